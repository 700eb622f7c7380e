"""A timeline of one cardgen command (run by hand, not by the tests): prints figures, asserts nothing.

    python benchmarks/trace_build.py build --version 3.1 --timings --force --out /tmp/x/o

Runs the command in this process with a trace around the one worker pool
(`cardgen.render.workers.Workers.submit`: when each job was queued, started and ended, in
which worker process) and around the build process's own steps (loading, the card stage, the
rulebooks' HTML, the sheets...), then prints them in time order from this process's start, with
the CPU seconds of each process: this one, the fork server (its imports) and each worker. Set
CARDGEN_CACHE_DIR to an empty folder for a cold build.
"""

from __future__ import annotations

import time

T0 = time.time()  # before cardgen is imported: the command's start, less Python's own (~30 ms)

import functools  # noqa: E402
import importlib.machinery  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

TRACE_ENV = "CARDGEN_TRACE_FILE"


def traced_job(fn, label: str, queued: float, *args):
    """A worker job with its start and end written to the trace file (one line each, appended)."""
    started, cpu_start = time.time(), time.process_time()
    try:
        return fn(*args)
    finally:
        ended = time.time()
        line = json.dumps({"pid": os.getpid(), "what": label, "queued": queued, "start": started, "end": ended,
                           "cpu_start": cpu_start, "cpu": time.process_time()})
        with open(os.environ[TRACE_ENV], "a") as f:
            f.write(line + "\n")


def _label(fn, args) -> str:
    name = getattr(fn, "__name__", str(fn))
    for arg in args:
        key = getattr(arg, "key", None) or getattr(arg, "out", None)
        if key:
            return f"{name} {Path(str(key)).name}"
    return name


_marks: list[tuple[str, float, float]] = []


def _mark(owner, attr: str, name: str | None = None) -> None:
    """Record each call of owner.attr in this process as a step of the timeline."""
    original = getattr(owner, attr)

    @functools.wraps(original)
    def wrapped(*args, **kwargs):
        started = time.time()
        try:
            return original(*args, **kwargs)
        finally:
            _marks.append((name or attr, started, time.time()))

    setattr(owner, attr, wrapped)


class _AfterImport:
    """A meta path finder that patches a module right after it is first imported, so that the
    trace imports nothing before the command does (its start-up is part of the timeline)."""

    def __init__(self, patches: dict[str, Callable[[Any], None]]):
        self.patches = patches

    def find_spec(self, name, path=None, target=None):
        patch = self.patches.pop(name, None)
        if patch is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        execute = loader.exec_module

        def exec_module(module):
            execute(module)
            patch(module)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install() -> None:
    import trace_build  # this module by its importable name: the workers unpickle traced_job from it

    def patch_workers(workers) -> None:
        submit = workers.Workers.submit

        def traced_submit(self, fn, *args):
            return submit(self, trace_build.traced_job, fn, _label(fn, args), time.time(), *args)

        workers.Workers.submit = traced_submit
        _mark(workers, "_make_processes", "workers made (forked once the server's imports are done)")
        _mark(workers, "_start_fork_server", "fork server started")

    def patch_cardstage(cardstage) -> None:
        _mark(cardstage, "validate_data", "validate")
        _mark(cardstage.CardRenderer, "__init__", "renderer set-up")
        _mark(cardstage.CardRenderer, "render_card", "draw and preflight faces")
        _mark(cardstage, "check_face", "draw and preflight faces")

    def patch_pipeline(pipeline) -> None:
        _mark(pipeline, "_workers", "start workers")

    def patch_rasterise(rasterise) -> None:
        _mark(rasterise.Rasteriser, "plan", "rasterise plan")
        _mark(rasterise.Rasteriser, "wait", "wait for faces")
        _mark(rasterise.Rasteriser, "publish", "publish faces")

    def patch_papers(papers) -> None:
        _mark(papers, "rulebook_html", "fill HTML")
        _mark(papers.PendingPdfs, "finish", "finish documents")

    sys.meta_path.insert(0, _AfterImport({
        "cardgen.render.workers": patch_workers,
        "cardgen.commands.build": lambda build: _mark(build, "snapshot_from", "load"),
        "cardgen.cardstage": patch_cardstage,
        "cardgen.pipeline": patch_pipeline,
        "cardgen.render.rasterise": patch_rasterise,
        "cardgen.rulebook.papers": patch_papers,
        "cardgen.imposition.stage": lambda stage: _mark(stage, "build_sheets", "sheets"),
    }))


def _merge(marks: list[tuple[str, float, float]]) -> list[tuple[str, float, float, int]]:
    """Runs of the same step one after the other (a face's preflight, 30 times) as one line."""
    merged: list[tuple[str, float, float, int]] = []
    for name, start, end in sorted(marks, key=lambda m: m[1]):
        if merged and merged[-1][0] == name and start - merged[-1][2] < 0.05:
            merged[-1] = (name, merged[-1][1], end, merged[-1][3] + 1)
        else:
            merged.append((name, start, end, 1))
    return merged


def report(trace: Path, ended: float) -> None:
    jobs = [json.loads(line) for line in trace.read_text().splitlines()] if trace.is_file() else []
    pids = sorted({j["pid"] for j in jobs})
    print("\ntimeline (seconds from the command's start):")
    for name, start, end, count in _merge(_marks):
        times = f" x{count}" if count > 1 else ""
        print(f"  build    {start - T0:6.2f} - {end - T0:6.2f}  {name}{times}")
    for pid in pids:
        mine = sorted((j for j in jobs if j["pid"] == pid), key=lambda j: j["start"])
        faces = [j for j in mine if j["what"].startswith("_run")]
        others = [j for j in mine if not j["what"].startswith("_run")]
        lane = f"w{pids.index(pid)}"
        if faces:
            busy = sum(j["end"] - j["start"] for j in faces)
            cpu = sum(j["cpu"] - j["cpu_start"] for j in faces)
            print(f"  {lane:<8} {faces[0]['start'] - T0:6.2f} - {faces[-1]['end'] - T0:6.2f}  {len(faces)} faces "
                  f"(busy {busy:.2f} s, {cpu:.2f} s of CPU; first queued at {min(j['queued'] for j in faces) - T0:.2f})")
        for j in others:
            print(f"  {lane:<8} {j['start'] - T0:6.2f} - {j['end'] - T0:6.2f}  {j['what']} (queued at "
                  f"{j['queued'] - T0:.2f})")
        print(f"  {lane:<8} CPU before its first job (its set-up, forked: the project fonts) "
              f"{mine[0]['cpu_start']:.2f} s")
        idle = []
        for a, b in zip(mine, mine[1:]):
            if b["start"] - a["end"] > 0.05:
                idle.append(f"{a['end'] - T0:.2f}-{b['start'] - T0:.2f}")
        if idle:
            print(f"  {lane:<8} idle between jobs: {', '.join(idle)}")
    print(f"  end      {ended - T0:6.2f}")
    face_cpu = sum(j["cpu"] - j["cpu_start"] for j in jobs if j["what"].startswith("_run"))
    own = resource.getrusage(resource.RUSAGE_SELF)
    print("\nCPU seconds:")
    print(f"  build process  {own.ru_utime + own.ru_stime:6.2f}")
    worker_total = 0.0
    for pid in pids:
        cpu = max(j["cpu"] for j in jobs if j["pid"] == pid)
        worker_total += cpu
        print(f"  worker w{pids.index(pid)}      {cpu:6.2f}   (up to its last job's end)")
    if face_cpu:
        print(f"  faces, all     {face_cpu:6.2f}   (the workers' face jobs)")
    server = _fork_server_cpu()
    if server is not None:
        own_s, reaped = server
        print(f"  fork server    {own_s:6.2f}   (its own: Python and the preloads)")
        print(f"  workers, all   {reaped:6.2f}   (as the fork server reaped them)")
        print(f"  all processes  {own.ru_utime + own.ru_stime + own_s + reaped:6.2f}")


def _fork_server_cpu() -> tuple[float, float] | None:
    from multiprocessing import forkserver

    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if not pid:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks, (int(fields[13]) + int(fields[14])) / ticks


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="cardgen-trace-") as tmp:
        trace = Path(tmp) / "jobs.jsonl"
        os.environ[TRACE_ENV] = str(trace)  # the workers take this environment when the pool starts
        install()
        from cardgen.cli import main as cardgen_main

        code = 0
        try:
            cardgen_main(sys.argv[1:])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        ended = time.time()
        time.sleep(0.3)  # the fork server reaps the last workers
        report(trace, ended)
    sys.exit(code)


if __name__ == "__main__":
    main()
