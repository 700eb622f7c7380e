"""CPU of the test session's seed builds (tests/conftest.py `SeedBuilds`), by part.

`python benchmarks/bench_seed_builds.py [game ...]` makes the builds a full test run makes, in the
order it makes them (the keys below mirror SeedBuilds' docstring: keep them alike), into a
temporary folder with an empty render cache, and prints for each build the CPU seconds of this
process and of its pool workers, the workers' split into card drawing (rasterising faces) and
each document's layout on each paper (weasyprint's layout and drawing, `rulebook.layout.lay_out`),
and the number of layouts. A job's CPU is measured in the worker that ran it; "other" is the
pool's remainder (starting workers and, in the first build, the fork server's imports). Figures are CPU seconds, not wall: compare them with the
machine's load beside them.
"""

from __future__ import annotations

import collections
import functools
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(Path(__file__).resolve().parent)]

# (kind, game, version, language, papers) as the readers ask for them in a full run
BUILDS = [("documents", "kings-blade", v, None, None) for v in ("1", "2", "3", "3.1")] + [
    ("documents", game, None, None, None) for game in ("way-of-the-blade", "one-true-king", "knightfall",
                                                         "kings-guild")] + [
    ("documents", "kings-blade", "3.1", "nl", None), ("documents", "kings-guild", None, "en", None)] + [
    ("sheets", game, None, None, None) for game in ("way-of-the-blade", "one-true-king", "knightfall")] + [
    ("sheets", "kings-blade", "3.1", "nl", ("letter",)), ("sheets", "kings-guild", None, None, ("a4",)),
    ("sheets", "kings-guild", None, "en", None), ("sheets", "kings-blade", "3.1", None, None)]

_JOBS = "CARDGEN_BENCH_JOBS"  # the file each worker appends its jobs' CPU to


def timed_job(label: str, fn, *args):
    """fn(*args) in a worker, its CPU seconds appended to the jobs file under `label`."""
    started = time.process_time()
    try:
        return fn(*args)
    finally:
        with open(os.environ[_JOBS], "a", encoding="utf-8") as out:
            out.write(f"{time.process_time() - started:.4f}\t{label}\n")


def main(games: list[str]) -> None:
    from cpu import fork_server_cpu, own_cpu

    from cardgen.render.workers import Workers
    from cardgen.rulebook import papers

    folder = Path(tempfile.mkdtemp(prefix="bench-seeds-"))
    os.environ["CARDGEN_CACHE_DIR"] = str(folder / "cache")
    os.environ[_JOBS] = str(folder / "jobs.txt")
    from conftest import SeedBuilds

    from cardgen.render import fonts

    fonts.use_project_fonts(ROOT / "fonts")  # as the session does before any test draws (conftest.session_cache)

    labels = [""]
    submit = Workers.submit

    def labelled_submit(self, fn, *args):
        name = labels[0] or ("draw" if fn.__name__ == "_run" else fn.__name__)
        return submit(self, functools.partial(timed_job, name, fn), *args)

    lay_out = papers.PendingPdfs.lay_out

    def labelled_lay_out(self, paper, *args):
        labels[0] = f"{self.document.name} {paper}"
        try:
            return lay_out(self, paper, *args)
        finally:
            labels[0] = ""

    Workers.submit = labelled_submit  # type: ignore[method-assign]
    papers.PendingPdfs.lay_out = labelled_lay_out  # type: ignore[method-assign]
    seeds = SeedBuilds(folder / "out")
    total: collections.Counter[str] = collections.Counter()
    layouts = 0
    print(f"load {os.getloadavg()[0]:.1f}; CPU seconds: this process, pool (draw + layouts + other)")
    for kind, game, version, lang, paper_list in BUILDS:
        if games and game not in games:
            continue
        Path(os.environ[_JOBS]).write_text("")
        own, pool = own_cpu(), fork_server_cpu()
        if kind == "documents":
            seeds.get(game, version, lang)
        else:
            seeds.sheets(game, version, lang, **({"papers": paper_list} if paper_list else {}))
        own, pool = own_cpu() - own, fork_server_cpu() - pool
        jobs: collections.Counter[str] = collections.Counter()
        for line in Path(os.environ[_JOBS]).read_text().splitlines():
            seconds, label = line.split("\t")
            jobs[label] += float(seconds)
        docs = {k: v for k, v in jobs.items() if k != "draw"}
        layouts += len(docs)
        other = pool - sum(jobs.values())
        total.update({"own": own, "pool": pool, "draw": jobs["draw"], "layouts": sum(docs.values()), "other": other})
        name = "/".join(str(p) for p in (kind, game, version or "-", lang or "-", *(paper_list or ())))
        parts = [f"draw {jobs['draw']:.2f}", *(f"{k} {v:.2f}" for k, v in sorted(docs.items())), f"other {other:.2f}"]
        print(f"{own:6.2f} {pool:6.2f}  {name}: {', '.join(parts)}")
    print(f"{total['own']:6.2f} {total['pool']:6.2f}  all: draw {total['draw']:.2f}, {layouts} layouts "
          f"{total['layouts']:.2f}, other {total['other']:.2f}; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
