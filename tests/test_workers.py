"""The one pool of worker processes (cardgen.render.workers): no other pool in cardgen, workers
forked from one fork server with the drawing libraries imported, the command's environment,
results in order, one-line errors, and Ctrl-C as `interrupted` (exit 130) with no worker traceback."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cardgen
from cardgen.render.workers import WORKER_GC_THRESHOLD, WorkerLost, Workers, background_thread, start_method

PACKAGE = Path(cardgen.__file__).parent
ROOT = PACKAGE.parent
POOLS = re.compile(r"ProcessPoolExecutor|\bmultiprocessing\b|\.Pool\(|os\.fork\(")


def test_the_one_pool_is_the_only_pool():
    """Rasterising, layout and simulation share render/workers.py: no module of cardgen starts a
    pool (or a process of Python) of its own."""
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in sorted(PACKAGE.rglob("*.py")) if path != PACKAGE / "render" / "workers.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if POOLS.search(line)]
    assert found == []
    assert POOLS.search((PACKAGE / "render" / "workers.py").read_text(encoding="utf-8"))  # the pattern finds the pool


FORK_SERVER_CHECK = """
import json, os, sys
from cardgen.render.workers import Workers, start_method
ask = "(__import__('os').getppid(), 'cardgen.render.svgconvert' in __import__('sys').modules)"
with Workers(2, preload=("cardgen.render.svgconvert",)) as first:
    answers = list(first.map(eval, [(ask,)] * 4))
    pids = first.pids()
with Workers(2) as second:
    again = list(second.map(eval, [(ask,)] * 4))
print(json.dumps({"forked": start_method() == "forkserver", "me": os.getpid(), "pids": pids,
                  "answers": answers, "again": again}))
"""


def test_workers_come_from_one_fork_server_with_the_preloads_imported():
    """Where the platform has a fork server, every pool of a command forks from the same one, which
    imported the preloads before the first fork (a worker pays no import); elsewhere this process
    spawns them and each imports the preloads as it starts. A command is a fresh process (in the
    test session, another test's pool may have started this process's fork server already)."""
    import json

    forked = start_method() == "forkserver"
    assert forked == (sys.platform == "linux") or sys.platform not in ("linux", "darwin", "win32")
    proc = subprocess.run([sys.executable, "-c", FORK_SERVER_CHECK], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    answers, again = got["answers"], got["again"]
    servers = {parent for parent, _ in answers + again}
    assert got["forked"] == forked
    assert len(servers) == 1 and (servers != {got["me"]}) == forked
    assert all(imported for _, imported in answers) and all(imported == forked for _, imported in again)
    assert len(got["pids"]) == 2 and got["me"] not in got["pids"]


SLOW_PRELOAD = """
import time
from pathlib import Path
here = Path(__file__).parent
(here / "importing").touch()
for _ in range(6000):  # go on importing until Ctrl-C has been sent (at most a minute)
    if (here / "sent").exists():
        break
    time.sleep(0.01)
(here / "imported").touch()
"""

SLOW_PRELOAD_CHECK = """
import os, signal, sys, time
from pathlib import Path
here = Path(sys.argv[1])
sys.path.insert(0, str(here))
from multiprocessing import forkserver
from cardgen.render.workers import start_fork_server
start_fork_server(("slow_preload",))
server = forkserver._forkserver._forkserver_pid


def wait_for(name):  # the server's import reached `name`; False if the server ended first
    for _ in range(6000):
        if (here / name).exists():
            return True
        if os.waitpid(server, os.WNOHANG)[0]:
            return False
        time.sleep(0.01)
    return False


wait_for("importing")  # the server is importing slow_preload
masks = {k: v for k, v in (line.split(":") for line in open(f"/proc/{server}/status")) if k in ("SigBlk", "SigIgn")}
os.kill(server, signal.SIGINT)  # Ctrl-C reaches the server too: a terminal signals the whole group
(here / "sent").touch()
alive = wait_for("imported")  # the import went on to its end
time.sleep(0.3)  # and the server goes on once it has imported its preloads
print(int(masks["SigBlk"], 16) >> (signal.SIGINT - 1) & 1, alive and os.waitpid(server, os.WNOHANG)[0] == 0)
"""


C_TYPES_JOBS = """
import sys
from pathlib import Path

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="10mm" viewBox="0 0 20 10">'
       '<text x="1" y="6" font-family="Alegreya Sans" font-size="4">Ab 12</text></svg>')


def parsed():
    import cairocffi
    weasyprint = sys.modules.get("weasyprint.text.ffi")
    tables = sorted(name for name in sys.modules if name.startswith("fontTools.ttLib.tables."))
    return sorted(cairocffi.ffi._parsed_types), sorted(weasyprint.ffi._parsed_types) if weasyprint else [], tables


def draw(folder):  # a card with text, as rasterise draws it
    from cardgen.render.svgconvert import svg_to_files

    svg_to_files(SVG, Path(folder) / "card.pdf", Path(folder) / "card.png")
    return parsed()


def lay_out(folder):  # a document with text, as layout lays one out and writes it
    import weasyprint

    weasyprint.HTML(string="<p style='font-family: Cinzel'>Hello <b>world</b></p>").write_pdf(Path(folder) / "doc.pdf")
    return parsed()
"""

C_TYPES_CHECK = """
import json, sys
from pathlib import Path
import ctypes_jobs
from cardgen.data.project import find_project
from cardgen.render import workers
preload = getattr(workers, sys.argv[2])
for module in preload:  # what the fork server imports: the C types it parsed, the modules it imported
    __import__(module)
server = ctypes_jobs.parsed()
with workers.drawing_workers(find_project(Path.cwd()), 2, preload) as pool:
    worker = pool.submit(getattr(ctypes_jobs, sys.argv[3]), sys.argv[1]).result()
print(json.dumps({"server": server, "worker": worker}))
"""


@pytest.mark.parametrize("preload, job, made", [("RASTER_PRELOAD", "draw", "card.png"),
                                                 ("LAYOUT_PRELOAD", "lay_out", "doc.pdf")])
def test_workers_parse_no_c_type_the_fork_server_parsed_for_them(tmp_path, preload, job, made):
    """cffi parses each C type a process asks for once (3-5 ms); the preload modules
    (render/preload.py, rulebook/preload.py) parse those a worker asks for when it draws a card or
    lays out a document, so a forked worker parses none of them again: only the glyph arrays of
    font subsetting, whose lengths depend on the document. Nor does it import a module of fontTools'
    for the font tables its font check reads (render/preload.py)."""
    import json

    (tmp_path / "ctypes_jobs.py").write_text(C_TYPES_JOBS)
    proc = subprocess.run([sys.executable, "-c", C_TYPES_CHECK, str(tmp_path), preload, job], capture_output=True,
                          text=True, timeout=120, cwd=ROOT, env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"})
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    (cairo_server, weasyprint_server, tables_server), (cairo, weasyprint, tables) = got["server"], got["worker"]
    assert (tmp_path / made).stat().st_size > 0
    assert "cairo_matrix_t *" in cairo_server and ("PangoRectangle *" in weasyprint_server) == (job == "lay_out")
    assert "fontTools.ttLib.tables._n_a_m_e" in tables  # the worker's font check read the fonts' names
    assert sorted(set(tables) - set(tables_server)) == []
    assert sorted(set(cairo) - set(cairo_server)) == []
    assert sorted(name for name in set(weasyprint) - set(weasyprint_server)
                  if not re.fullmatch(r"hb_codepoint_t\[\d+\]", name)) == []


@pytest.mark.skipif(start_method() != "forkserver" or not Path("/proc").is_dir(), reason="Linux's fork server")
def test_ctrl_c_while_the_fork_server_imports_is_ignored_there(tmp_path):
    """The fork server imports its preloads (about a second) with SIGINT blocked: Python's resource
    tracker, started on the way, unblocks SIGINT, so it is started first. A Ctrl-C then printed
    the server's KeyboardInterrupt traceback (in pydantic's import) and broke the pool's start.

    The preload here stays importing until the SIGINT has been sent (files in tmp_path say where
    it is), instead of for a fixed time."""
    (tmp_path / "slow_preload.py").write_text(SLOW_PRELOAD)
    proc = subprocess.run([sys.executable, "-c", SLOW_PRELOAD_CHECK, str(tmp_path)], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert (proc.stdout.split(), proc.stderr) == (["1", "True"], "")


SHADOWED_CHECK = """
import json
from cardgen.render.workers import Workers

if __name__ == "__main__":
    with Workers(2, preload=("cardgen.render.svgconvert",)) as pool:
        print(json.dumps(list(pool.map(eval, [("__import__('cardgen').__file__",)] * 3))))
"""


@pytest.mark.skipif(start_method() != "forkserver" or sys.version_info < (3, 11),
                    reason="a fork server started with PYTHONSAFEPATH (Python 3.11+)")
def test_workers_import_cardgen_from_where_the_command_does_not_from_the_working_folder(tmp_path):
    """The fork server is started with `python -c`, which put its working folder first on its
    path: run from a folder holding another `cardgen` (a checkout), its workers imported that one
    while the command ran the one on its own path (a benchmark's checkout)."""
    import json

    shadow = tmp_path / "here"
    (shadow / "cardgen").mkdir(parents=True)
    (shadow / "cardgen" / "__init__.py").write_text("SHADOW = True\n")
    (tmp_path / "check.py").write_text(SHADOWED_CHECK)
    proc = subprocess.run([sys.executable, str(tmp_path / "check.py")], capture_output=True, text=True, timeout=120,
                          cwd=shadow, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == [str(PACKAGE / "__init__.py")] * 3


def test_workers_take_the_commands_environment(monkeypatch):
    """A worker forked from a server started earlier still sees the environment as it is when its
    pool starts (SOURCE_DATE_EPOCH, the cache folder), as a spawned one would."""
    with Workers(2) as early:  # the fork server exists before the variable is set
        list(early.map(eval, [("1",)] * 2))
    monkeypatch.setenv("CARDGEN_TEST_WORKER_ENV", "from the command")
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    with Workers(2) as pool:
        seen = list(pool.map(eval, [("__import__('os').environ.get('CARDGEN_TEST_WORKER_ENV')",)] * 3))
        unset = list(pool.map(eval, [("'SOURCE_DATE_EPOCH' in __import__('os').environ",)] * 2))
    assert seen == ["from the command"] * 3 and unset == [False, False]


def test_workers_collect_cycles_rarely_and_never_walk_what_their_imports_made():
    """A worker's imports are frozen out of the cyclic collector, and a pass comes every
    WORKER_GC_THRESHOLD new objects, not Python's default 700 (render/workers.py)."""
    with Workers(2) as pool:
        states = list(pool.map(eval, [("(__import__('gc').get_threshold()[0], __import__('gc').get_freeze_count())",)] * 2))
    assert all(threshold == WORKER_GC_THRESHOLD and frozen > 10_000 for threshold, frozen in states), states


def test_map_yields_in_order_here_and_in_workers():
    tasks = [(f"__import__('time').sleep({0.2 if i == 0 else 0}) or {i} * {i}",) for i in range(6)]
    with Workers(2) as two:
        assert list(two.map(eval, tasks)) == [0, 1, 4, 9, 16, 25]
    with Workers(1) as one:  # nothing started: the tasks run in this process
        assert list(one.map(eval, tasks)) == [0, 1, 4, 9, 16, 25] and one.pids() == []


def test_closing_map_early_cancels_what_has_not_started():
    """A pruned balance trial closes its iterator: the chunks still queued never run."""
    with Workers(2) as pool:
        results = pool.map(eval, [("__import__('time').sleep(0.1) or 1",)] * 40)  # 2 s of jobs a worker
        assert next(results) == 1
        results.close()
        # of 40 queued, at most the workers' running jobs and the pool's next one were taken
        ran = list(pool.map(eval, [("2",)] * 2))
    assert ran == [2, 2]


def test_a_worker_that_dies_is_one_line():
    with Workers(2) as pool, pytest.raises(WorkerLost) as lost:
        list(pool.map(eval, [("__import__('os')._exit(1)",), ("1",)]))
    assert lost.value.exit_code == 1 and "\n" not in str(lost.value)
    assert "--jobs 1" in str(lost.value)


def _group(pgid: int) -> list[int]:
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            pids.append(int(stat.parent.name))
    return pids


def test_ctrl_c_in_simulate_is_one_line(tmp_path):
    """`cardgen simulate` plays in the same pool as the build renders: Ctrl-C to the process group
    (as a terminal sends it) while two workers play gives `interrupted`, exit 130, no traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardgen", "--project", str(ROOT), "simulate", "--version", "3.1", "--games",
         "400000", "--jobs", "2", "--no-claims", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        if Path("/proc").is_dir():
            for _ in range(3000):  # the command, its fork server and two workers
                if len(_group(proc.pid)) >= 4 or proc.poll() is not None:
                    break
                time.sleep(0.02)
            assert len(_group(proc.pid)) >= 4, proc.communicate()
        time.sleep(0.5 if Path("/proc").is_dir() else 10)  # the workers are playing
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert (proc.returncode, err.strip(), out) == (130, "interrupted", "")


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="no signal masks on Windows")
def test_cardgens_threads_leave_ctrl_c_to_the_main_thread():
    """Python handles SIGINT in the main thread only; a thread that could take it made a Ctrl-C
    while the workers started go unseen (the command ended 0). Every thread cardgen starts blocks
    it from its first instant, and the starter's own mask is left as it was."""
    seen = []
    background_thread(lambda: seen.append(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, ())), "t").join()
    assert seen == [True]
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, ())
    starting = [path for path in PACKAGE.rglob("*.py") if "threading.Thread(" in path.read_text(encoding="utf-8")]
    assert starting == [PACKAGE / "render" / "workers.py"]  # only background_thread starts one
