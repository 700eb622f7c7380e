"""Where the games are played: this machine's worker processes, or a Dask distributed cluster.

A trial's games are split into chunks (fixed by the number of games only) and every chunk is
played by simulate.runner.play_chunk, which seeds game i from "<seed>:<i>". Totals merge exactly,
so the figures are the same whatever plays the chunks: one process, two, or a cluster.
"""

from __future__ import annotations

import math
import multiprocessing
import signal
from collections.abc import Iterator
from typing import Any

from ..errors import InputError
from ..simulate.runner import Experiment, play_chunk
from ..simulate.stats import Totals
from ..words import counted

CONNECT_TIMEOUT = 10  # seconds to reach a Dask scheduler
STEPS = 4  # the search looks at a trial's figures after each quarter of its games (pruning)


def chunks(games: int) -> list[list[tuple[int, int]]]:
    """The chunks of each step: STEPS steps, each split into up to 4 chunks of at least 25 games."""
    size = max(25, math.ceil(games / (STEPS * 4)))
    edges = sorted({round(games * (s + 1) / STEPS) for s in range(STEPS)} - {0})
    steps, start = [], 0
    for stop in edges:
        steps.append([(a, min(a + size, stop)) for a in range(start, stop, size)])
        start = stop
    return steps


def _play(args: tuple) -> Totals:
    return play_chunk(*args)


def _worker_ignores_ctrl_c() -> None:
    """Ctrl-C reaches the whole process group: the command stops the pool, a worker prints nothing."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalPlayer:
    """Worker processes on this machine (jobs=1: in this process)."""

    name = "local"

    def __init__(self, jobs: int):
        self.jobs = jobs
        self.where = f"with {counted(jobs, 'local worker')}"
        self._pool: Any = None

    def play(self, exp: Experiment, parts: list[tuple[int, int]]) -> list[Totals]:
        return list(self.map([(exp, a, b) for a, b in parts]))

    def map(self, tasks: list[tuple]) -> Iterator[Totals]:
        """(exp, start, stop) chunks, their totals in order."""
        if self.jobs == 1 or len(tasks) == 1:
            return (_play(t) for t in tasks)
        if self._pool is None:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
            self._pool = context.Pool(self.jobs, _worker_ignores_ctrl_c)
        return self._pool.imap(_play, tasks)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


class DaskPlayer:
    """A Dask distributed scheduler (`dask scheduler`, `dask worker ADDRESS`). Every worker needs
    cardgen installed and the project at the same path (the chunks name the project folder)."""

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError:
            raise InputError(f"--scheduler {address}: Dask is not installed; "
                             "pip install 'cardgen[cluster]'") from None
        try:
            self.client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise InputError(f"--scheduler {address}: cannot reach a Dask scheduler there ({exc})") from None
        self.name = address
        self.where = f"on Dask scheduler {address} ({counted(len(self.client.nthreads()), 'worker')} at the start)"

    def play(self, exp: Experiment, parts: list[tuple[int, int]]) -> list[Totals]:
        return list(self.map([(exp, a, b) for a, b in parts]))

    def map(self, tasks: list[tuple]) -> Iterator[Totals]:
        """(exp, start, stop) chunks sent to the cluster at once, their totals yielded in order
        (simulate.runner.Runner's play_tasks: `cardgen simulate --scheduler`)."""
        futures = [self.client.submit(play_chunk, *task, pure=False) for task in tasks]
        for future in futures:
            yield future.result()

    def close(self) -> None:
        self.client.close()


def player_for(scheduler: str, jobs: int) -> LocalPlayer | DaskPlayer:
    if scheduler == "local":
        return LocalPlayer(jobs)
    if not scheduler.startswith("tcp://"):
        raise InputError(f"--scheduler {scheduler}: expected 'local' or a Dask scheduler address tcp://HOST:PORT")
    return DaskPlayer(scheduler)


def play_steps(player, exp: Experiment) -> Iterator[tuple[int, Totals]]:
    """The experiment's totals after each step (games played so far, totals so far)."""
    totals = Totals(exp.players)
    for step in chunks(exp.games):
        for part in player.play(exp, step):
            totals.merge(part)
        yield step[-1][1], totals
