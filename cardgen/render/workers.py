"""The one pool of worker processes of a command: rasterising, layout and simulation all use it.

A command makes one `Workers` and hands it to every stage that has slow work: while the cards of
a version are still being rasterised, a free core already lays out a rulebook, instead of each
stage starting its own pool and waiting for the one before; `cardgen simulate` and `cardgen
balance` play their games in the same kind of pool. No other module of cardgen starts processes
(tests/test_workers.py reads the source to keep it so).

Where the platform has one (Linux), the workers are forked from a fork server, a fresh Python
process that this pool starts once per command and that imports the pool's `preload` modules
(cairo, weasyprint, the simulator) before its first fork: each worker starts in milliseconds
with the drawing libraries already imported, instead of spending about a second of CPU importing
them. Elsewhere (macOS, Windows) workers are spawned and import `preload` themselves. Either way
a worker starts with fontconfig untouched (the fork server only imports: nothing draws text in
it) and points it at the project fonts before its first job, and it takes this process's
environment variables as they are when the pool starts.

Ctrl-C is the main process's alone: workers ignore SIGINT from their first instant, the command
cancels what has not started and prints `interrupted` (exit 130), and no worker prints a
traceback. A worker's error comes back as the same one-line error it gives in one process.

With one worker (`-j 1`, or a one-core machine) nothing is started: `submit` runs a job in this
process when its result is first asked for, so the stages keep the order in which the command
waits for them (the cards, then the rulebook), and `map` plays its tasks here one by one.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import process as futures_process
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CardgenError

if TYPE_CHECKING:
    from ..data.project import Project

# what a pool for drawing cards imports before its first job (the rulebook's pool adds weasyprint;
# svgconvert, first, makes this process find cairo's and weasyprint's C libraries: `libraries`);
# the `preload` modules do, once in the fork server, what each worker did first (parse C types)
RASTER_PRELOAD = ("cardgen.render.svgconvert", "cardgen.render.preload")
LAYOUT_PRELOAD = RASTER_PRELOAD + ("weasyprint", "cardgen.rulebook.layout", "cardgen.rulebook.preload")


def import_pdf_stack() -> None:
    """Import pikepdf in this process before its workers start: pikepdf (nanobind) aborts the
    process, printing a traceback, when Ctrl-C lands in its import, and a Ctrl-C while the
    workers start would often land there."""
    import pikepdf  # noqa: F401


def start_fork_server(preload: tuple[str, ...]) -> None:
    """Start this command's fork server now, importing `preload` there, rather than with its
    first pool (where workers are forked: Linux; elsewhere nothing to do).

    The server's imports (cairo, weasyprint: about a second of CPU) then overlap the command's
    own (the data model, its loading) instead of following them; it returns at once. The first
    pool decides the preloads only if no server runs yet: a command that starts it early names
    every module its pools will want.
    """
    if start_method() == "forkserver":
        _start_fork_server(preload)


def drawing_workers(project: Project, count: int | None, preload: tuple[str, ...] = RASTER_PRELOAD) -> Workers:
    """A command's pool for drawing: workers that use the project's fonts."""
    return Workers(count, project.fonts_dir, project.cache_dir / "fontconfig", preload)


def own_pool(project: Project, workers: Workers | int | None) -> contextlib.AbstractContextManager[Workers]:
    """The command's pool as given, or (given a number of workers) a pool for the caller alone,
    closed when the `with` block ends."""
    if isinstance(workers, Workers):
        return contextlib.nullcontext(workers)
    return drawing_workers(project, workers)


def worker_count(requested: int | None) -> int:
    """`--jobs N`, or every core."""
    return max(1, requested or os.cpu_count() or 1)


class WorkerLost(CardgenError):
    """A worker process died (out of memory, or killed): exit 1 with one line."""

    exit_code = 1


LOST = "a worker process ended abruptly (out of memory, or killed); run again with --jobs 1 to see the error"


class Workers:
    """A command's worker processes (started when first needed, or by `start`)."""

    def __init__(self, count: int | None, fonts_dir: Path | None = None, font_cache: Path | None = None,
                 preload: tuple[str, ...] = (), writes: bool = True):
        """`fonts_dir`: the project fonts every text the workers draw uses (None: they draw no
        text, e.g. the simulator's); `preload`: modules the workers import before their first job.

        `writes`: the jobs write files. Cancelled (Ctrl-C, an error), such a pool lets the jobs
        already running finish, so that no temporary file is left behind (they are short: one
        card, one document); a pool whose jobs only compute (`writes=False`: the simulator's
        chunks of games, which may run for many seconds) stops them at once.
        """
        self.count = worker_count(count)
        self.fonts_dir = fonts_dir
        self.font_cache = font_cache
        self.preload = preload
        self.writes = writes
        self._pool: ProcessPoolExecutor | None = None
        self._starter: threading.Thread | None = None

    @property
    def parallel(self) -> bool:
        return self.count > 1

    @property
    def ready(self) -> bool:
        """Started (`start`) and every worker process made: a job submitted now does not wait
        for the processes to be made (which, forked, waits for the fork server's imports)."""
        return self._pool is not None and (self._starter is None or not self._starter.is_alive())

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future | Later:
        """Run fn(*args) in a worker (started when first needed) or, with one worker, later here."""
        if not self.parallel:
            def here() -> Any:
                self.set_up_here()
                return fn(*args)

            return Later(here)
        return self._started().submit(run_guarded, fn, *args)

    def map(self, fn: Callable[..., Any], tasks: Iterable[tuple]) -> Iterator[Any]:
        """fn(*task) of every task, yielded in the tasks' order.

        Every task is queued at once, so a worker that finishes one never waits for the caller
        to take the results (the figures of a step, a pruning decision); closing the iterator
        early (a pruned trial, an error, Ctrl-C) cancels the tasks not started yet. With one
        worker the tasks run here, each when its result is asked for.
        """
        tasks = list(tasks)
        if not self.parallel or len(tasks) <= 1:
            if tasks:
                self.set_up_here()
            return (fn(*task) for task in tasks)
        pool = self._started()
        return _in_order([pool.submit(run_guarded, fn, *task) for task in tasks])

    def start(self) -> Workers:
        """Start the worker processes now rather than at the first job.

        A worker spends about a second of CPU starting Python and importing cairo and weasyprint
        (forked from the fork server: the server does, once); started early, that overlaps what
        this process does before it has jobs (validating, rendering the SVGs, the rulebook's
        HTML) instead of delaying the first. A fork waits for the server's imports, so forked
        workers are asked for from a thread of their own, and this process goes on meanwhile.
        """
        if self.parallel and self._pool is None:
            pool = self._started()
            if start_method() == "spawn":
                _make_processes(pool, self.count)
            else:
                self._starter = background_thread(_make_processes, "cardgen-workers-start", (pool, self.count))
        return self

    def set_up_here(self) -> None:
        """Set this process up as the workers are set up (the project fonts), to run a job here."""
        if self.fonts_dir is not None:
            from . import fonts  # imported only where text is drawn: the simulator's pools never load fontTools

            fonts.use_project_fonts(self.fonts_dir, self.font_cache)

    def _started(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = QuietPool(self.count, init_worker,
                                   (self.fonts_dir, self.font_cache, self.preload, dict(os.environ)), self.preload)
        return self._pool

    def pids(self) -> list[int]:
        """The ids of the worker processes running now (benchmarks read their CPU time)."""
        return sorted(self._pool._processes or ()) if self._pool is not None else []

    def close(self, cancel: bool = False) -> None:
        """Stop the workers once their jobs are done (`cancel`: the jobs not started are dropped,
        and in a pool that `writes` nothing the running ones are stopped too)."""
        if self._pool is not None:
            pool, self._pool = self._pool, None
            if cancel and not self.writes:
                _stop(pool)
            else:
                if getattr(pool, "_broken", False):
                    # broken by a worker's death: Python 3.11 ends the workers it knew of then, but
                    # one started meanwhile by a `submit` waits for a job forever, and shutdown with
                    # it (a suite run hung 297 s in test_a_worker_that_dies_is_one_line)
                    _terminate(list((pool._processes or {}).values()))
                pool.shutdown(wait=True, cancel_futures=cancel)
        if self._starter is not None:
            self._starter.join()
            self._starter = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(cancel=exc_type is not None)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Shut the pool down without waiting for its running jobs (what Python 3.14 calls
    `terminate_workers`): the jobs not started are cancelled, the workers ended with SIGTERM."""
    processes = list((pool._processes or {}).values())
    manager: Any = getattr(pool, "_executor_manager_thread", None)  # a Thread (typeshed says otherwise)
    pool.shutdown(wait=False, cancel_futures=True)
    _terminate(processes)
    if manager is not None:
        manager.join()


def _terminate(processes: list) -> None:
    """SIGTERM to each of these worker processes (those closed or ended meanwhile are skipped)."""
    for process in processes:
        with contextlib.suppress(ValueError, ProcessLookupError, AttributeError):
            process.terminate()


def _in_order(futures: list[Future]) -> Iterator[Any]:
    try:
        for future in futures:
            yield result_of(future)
    finally:  # closed early, or failed: what has not started never will
        for future in futures:
            future.cancel()


def result_of(future: Future | Later) -> Any:
    """The job's result, or its one-line error (a worker that died: `WorkerLost`)."""
    try:
        return future.result()
    except BrokenProcessPool:
        raise WorkerLost(LOST) from None


def start_method() -> str:
    """forkserver where Python has one and forking is safe (Linux and the BSDs), else spawn.

    macOS has a fork server too, but a process forked from one that loaded cairo and pango
    (and through them the system's frameworks) is not safe there: Python itself spawns on macOS.
    """
    if sys.platform != "darwin" and "forkserver" in multiprocessing.get_all_start_methods():
        return "forkserver"
    return "spawn"


class QuietPool(ProcessPoolExecutor):
    """A pool whose workers leave Ctrl-C to the main process from their first instant.

    `init_worker` ignores SIGINT, but a worker runs it only once started: Ctrl-C while it still
    starts Python (a cold build starts its workers at once) made each print a KeyboardInterrupt
    traceback (`exitcode = _main(fd, parent_sentinel)`). The pool starts workers inside `submit`,
    so SIGINT is blocked around it: a spawned worker, and the fork server with every worker
    forked from it, inherits the blocked signal and never sees it, while this process receives a
    Ctrl-C made meanwhile as soon as `submit` returns (Python's own resource tracker is started
    the same way).
    """

    def __init__(self, count: int, initializer: Callable[..., None], initargs: tuple, preload: tuple[str, ...] = ()):
        method = start_method()
        if method == "forkserver":
            _start_fork_server(preload)
        # a worker that finishes a job takes the next from a queue this process's manager thread
        # refills; Python keeps one job there for the whole pool, so on a busy machine a worker
        # waited for this process to be scheduled. One waiting job per worker: none waits, and
        # a cancelled map (a pruned trial) loses at most that one job per worker.
        extra = futures_process.EXTRA_QUEUED_CALLS  # read by __init__ only
        futures_process.EXTRA_QUEUED_CALLS = count  # type: ignore[misc]  # Final in typeshed, a plain global
        try:
            super().__init__(max_workers=count, mp_context=multiprocessing.get_context(method),
                             initializer=initializer, initargs=initargs)
        finally:
            futures_process.EXTRA_QUEUED_CALLS = extra  # type: ignore[misc]

    def submit(self, fn, /, *args, **kwargs):
        with _sigint_blocked():
            return super().submit(fn, *args, **kwargs)


def background_thread(target: Callable[..., Any], name: str, args: tuple = ()) -> threading.Thread:
    """Start a daemon thread that never receives SIGINT, so that Ctrl-C always reaches the main thread.

    Python runs signal handlers in the main thread only. The kernel hands a process's SIGINT to
    any thread not blocking it, and may pick another thread when the main thread is off the CPU
    on a busy machine: Python then notices it only at the main thread's next check, which a
    command blocked waiting for its workers may make late. (The Ctrl-C seen lost under load was
    another way, an exception CPython dropped: cardgen/interrupt.py.) A thread started with
    SIGINT blocked keeps it blocked (a new thread inherits its starter's mask).
    """
    thread = threading.Thread(target=target, args=args, daemon=True, name=name)
    with _sigint_blocked():
        thread.start()
    return thread


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks (and no killpg)
        yield
        return
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _start_fork_server(preload: tuple[str, ...]) -> None:
    """Start this process's fork server (once: later pools fork from the same one), importing
    `preload` there, with SIGINT blocked (see QuietPool).

    Python before 3.13 imports a fork server's preloads before it takes this process's
    `sys.path`, so the server is given that path in PYTHONPATH, and nothing before it: a module
    is imported from where this process imports it (a benchmark's checkout, not an installed
    cardgen, nor a checkout in the working folder). Workers restore this process's environment
    in `init_worker`.
    """
    from multiprocessing import forkserver, resource_tracker

    # the resource tracker first: starting it (inside forkserver.ensure_running) blocks and then
    # *unblocks* SIGINT, which would start the server with SIGINT open while it imports
    resource_tracker.ensure_running()
    forkserver.set_forkserver_preload(list(preload))  # heeded only by the pool that starts the server
    # PYTHONSAFEPATH (Python 3.11+): the server, started with `python -c`, would otherwise put its
    # working folder first on its path, where a `cardgen` folder (a checkout) or a module named as
    # a library shadowed what this process imports, in every worker
    path = os.pathsep.join(os.path.abspath(p) if p else os.getcwd() for p in sys.path)
    before = {name: os.environ.get(name) for name in ("PYTHONPATH", "PYTHONSAFEPATH")}
    os.environ.update(PYTHONPATH=path, PYTHONSAFEPATH="1")
    try:
        with _sigint_blocked():
            forkserver.ensure_running()
    finally:
        for name, value in before.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def _ready() -> None:
    """A job that does nothing: submitted by `start` so that the pool starts its processes."""


def _make_processes(pool: ProcessPoolExecutor, count: int) -> None:
    """Make the pool start its processes (it starts one per job waiting, up to its size)."""
    try:
        for _ in range(count):
            pool.submit(_ready)
    except (RuntimeError, BrokenProcessPool):  # closed meanwhile (Ctrl-C, an error): nothing to start
        pass


class Later:
    """A call made in this process when its result is first asked for (the one-worker case)."""

    def __init__(self, call: Callable[[], Any]):
        self._call: Callable[[], Any] | None = call
        self._result: Any = None

    def result(self) -> Any:
        if self._call is not None:
            call, self._call = self._call, None
            self._result = call()
        return self._result

    def cancel(self) -> bool:
        self._call = None
        return True


_setup_error: CardgenError | None = None  # what went wrong setting this worker up, if anything


def init_worker(fonts_dir: Path | None, font_cache: Path | None, preload: tuple[str, ...] = (),
                env: dict[str, str] | None = None) -> None:
    """Workers leave Ctrl-C to the main process, which stops them and prints one line
    (otherwise every worker prints its own KeyboardInterrupt traceback); they take the main
    process's environment (`env`: a forked worker has the fork server's), point fontconfig at
    the project fonts and import the modules their jobs will use (`preload`).

    A problem the user can fix (a fonts folder holding something that is not a font) is kept
    and raised by the worker's first job instead of here: an exception in a pool's initializer
    prints a traceback and breaks the pool, while the job's error reaches the user as one line
    (and the main process, meeting the same fonts, usually says it first).
    """
    global _setup_error
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if env is not None and env != dict(os.environ):
        os.environ.clear()
        os.environ.update(env)
    if fonts_dir is not None:
        from . import fonts

        try:
            fonts.use_project_fonts(fonts_dir, font_cache)
        except CardgenError as exc:
            _setup_error = exc
            return
    for module in preload:
        importlib.import_module(module)
    _fewer_collections()


# A worker's jobs (a document's layout, a face's drawing) make hundreds of thousands of short-lived
# objects: at Python's default threshold (700) the cyclic collector ran 269 times over 3.1's
# rulebook and notes, each pass walking every object the imports made too: 0.13-0.15 s of CPU.
# Those are frozen (never walked again) and a pass comes every 20,000 new objects: 6 passes,
# 0.02-0.04 s, the same peak memory (102 -> 100-107 MB; measured 2026-11-26, three runs each).
WORKER_GC_THRESHOLD = 20_000


def _fewer_collections() -> None:
    gc.freeze()
    gc.set_threshold(WORKER_GC_THRESHOLD, *gc.get_threshold()[1:])


def run_guarded(fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args) in a worker, unless setting the worker up failed: then that one-line error."""
    if _setup_error is not None:  # the same class (exit code) and location as in one process
        raise _setup_error.with_traceback(None)
    return fn(*args)
