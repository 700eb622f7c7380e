"""One pool of worker processes for a whole build, so that its stages overlap on the cores.

Card rendering, the rulebook of each paper and anything else slow are submitted to the same
pool: while the cards of a version are still being rasterised, a free core already lays out
a rulebook, instead of each stage starting its own pool and waiting for the one before.

Workers are spawned (not forked), so each starts with fontconfig untouched and points it at
the project fonts before its first job. With one worker (`-j 1`, or a one-core machine) a job
runs in this process when its result is first asked for, so the stages keep the order in
which the build waits for them (the cards, then the rulebook).
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import signal
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ..errors import CardgenError
from . import fonts


def worker_count(requested: int | None) -> int:
    """`--jobs N`, or every core."""
    return max(1, requested or os.cpu_count() or 1)


class Workers:
    def __init__(self, count: int | None, fonts_dir: Path, font_cache: Path | None, preload: tuple[str, ...] = ()):
        """`preload`: modules each worker imports as it starts (the renderers its jobs will use)."""
        self.count = worker_count(count)
        self.fonts_dir = fonts_dir
        self.font_cache = font_cache
        self.preload = preload
        self._pool: ProcessPoolExecutor | None = None

    @property
    def parallel(self) -> bool:
        return self.count > 1

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future | Later:
        """Run fn(*args) in a worker (started when first needed) or, with one worker, later here."""
        if not self.parallel:
            def here() -> Any:
                fonts.use_project_fonts(self.fonts_dir, self.font_cache)
                return fn(*args)

            return Later(here)
        return self._started().submit(run_guarded, fn, *args)

    def start(self) -> Workers:
        """Start the worker processes now rather than at the first job.

        A worker spends about a second of CPU starting Python and importing cairo and
        weasyprint; started early, that overlaps what this process does before it has jobs
        (validating, rendering the SVGs, the rulebook's HTML) instead of delaying the first.
        """
        if self.parallel and self._pool is None:
            pool = self._started()
            for _ in range(self.count):  # the pool spawns a process per job waiting, up to count
                pool.submit(_ready)
        return self

    def _started(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = QuietPool(self.count, init_worker, (self.fonts_dir, self.font_cache, self.preload))
        return self._pool

    def close(self, cancel: bool = False) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=cancel)
            self._pool = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(cancel=exc_type is not None)


class QuietPool(ProcessPoolExecutor):
    """A pool of spawned workers that leave Ctrl-C to the main process from their first instant.

    `init_worker` ignores SIGINT, but a worker runs it only once started: Ctrl-C while it still
    starts Python and re-imports the main module (a cold build starts its workers at once) made
    each print a KeyboardInterrupt traceback (`exitcode = _main(fd, parent_sentinel)`). The pool
    spawns workers inside `submit`, so SIGINT is blocked around it: a worker inherits the blocked
    signal and never sees it, while this process receives a Ctrl-C made meanwhile as soon as
    `submit` returns (Python's own resource tracker is started the same way).
    """

    def __init__(self, count: int, initializer: Callable[..., None], initargs: tuple):
        super().__init__(max_workers=count, mp_context=multiprocessing.get_context("spawn"),
                         initializer=initializer, initargs=initargs)

    def submit(self, fn, /, *args, **kwargs):
        if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks (and no killpg)
            return super().submit(fn, *args, **kwargs)
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return super().submit(fn, *args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _ready() -> None:
    """A job that does nothing: submitted by `start` so that the pool spawns its processes."""


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


def init_worker(fonts_dir: Path, font_cache: Path | None, preload: tuple[str, ...] = ()) -> None:
    """Workers leave Ctrl-C to the main process, which stops them and prints one line
    (otherwise every worker prints its own KeyboardInterrupt traceback); then they import the
    renderers their jobs will use (`preload`).

    A problem the user can fix (a fonts folder holding something that is not a font) is kept
    and raised by the worker's first job instead of here: an exception in a pool's initializer
    prints a traceback and breaks the pool, while the job's error reaches the user as one line
    (and the main process, meeting the same fonts, usually says it first).
    """
    global _setup_error
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        fonts.use_project_fonts(fonts_dir, font_cache)
    except CardgenError as exc:
        _setup_error = exc
        return
    for module in preload:
        importlib.import_module(module)


def run_guarded(fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args) in a worker, unless setting the worker up failed: then that one-line error."""
    if _setup_error is not None:  # the same class (exit code) and location as in one process
        raise _setup_error.with_traceback(None)
    return fn(*args)
