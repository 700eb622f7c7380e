"""Where the games are played: this machine's worker processes, or a Dask distributed cluster.

A trial's games are split into steps (fixed by the number of games only: the search may prune a
trial after each) and the steps into chunks, a few for every worker, and every chunk is played by
simulate.runner.play_chunk, which seeds game i from "<seed>:<i>". Totals merge exactly, so the
figures are the same whatever plays the chunks: one process, two, or a cluster. All the chunks of
a trial are queued at once, so no worker waits at the end of a step for the search to look at
its figures; a pruned trial cancels the chunks not started yet.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ..errors import InputError
from ..render.workers import Workers
from ..simulate.runner import Experiment, play_chunk, simulation_workers
from ..simulate.stats import Totals
from ..words import counted

CONNECT_TIMEOUT = 10  # seconds to reach a Dask scheduler
STEPS = 4  # the search looks at a trial's figures after each quarter of its games (pruning)
CHUNKS = 2  # chunks per step and worker: the workers finish a trial nearly together, and each
# chunk (a game's tenth of a second or more) outweighs its trip to a worker and back


def chunks(games: int, workers: int = 1) -> list[list[tuple[int, int]]]:
    """The chunks of each step: STEPS steps, each split into up to CHUNKS chunks per worker, of at
    least 25 games."""
    size = max(25, math.ceil(games / (STEPS * CHUNKS * max(1, workers))))
    edges = sorted({round(games * (s + 1) / STEPS) for s in range(STEPS)} - {0})
    steps, start = [], 0
    for stop in edges:
        steps.append([(a, min(a + size, stop)) for a in range(start, stop, size)])
        start = stop
    return steps


class LocalPlayer:
    """The command's worker processes on this machine (jobs=1: this process)."""

    name = "local"

    def __init__(self, jobs: int, workers: Workers | None = None):
        self.workers = (workers if workers is not None else simulation_workers(jobs)).start()
        self.jobs = self.workers.count
        self.where = f"with {counted(self.jobs, 'local worker')}"

    def play(self, exp: Experiment, parts: list[tuple[int, int]]) -> list[Totals]:
        return list(self.map([(exp, a, b) for a, b in parts]))

    def map(self, tasks: list[tuple]) -> Iterator[Totals]:
        """(exp, start, stop) chunks, their totals in order (all queued at once; closing the
        iterator cancels those not started)."""
        return self.workers.map(play_chunk, tasks)

    def close(self) -> None:
        self.workers.close(cancel=True)


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
        self.jobs = max(1, len(self.client.nthreads()))  # for the size of the chunks only
        self.where = f"on Dask scheduler {address} ({counted(len(self.client.nthreads()), 'worker')} at the start)"

    def play(self, exp: Experiment, parts: list[tuple[int, int]]) -> list[Totals]:
        return list(self.map([(exp, a, b) for a, b in parts]))

    def map(self, tasks: list[tuple]) -> Iterator[Totals]:
        """(exp, start, stop) chunks sent to the cluster at once, their totals yielded in order
        (simulate.runner.Runner's play_tasks: `cardgen simulate --scheduler`)."""
        futures = [self.client.submit(play_chunk, *task, pure=False) for task in tasks]
        try:
            for future in futures:
                yield future.result()
        finally:  # closed early (a pruned trial): the cluster drops what it has not played
            self.client.cancel(futures)

    def close(self) -> None:
        self.client.close()


def player_for(scheduler: str, jobs: int) -> LocalPlayer | DaskPlayer:
    if scheduler == "local":
        return LocalPlayer(jobs)
    if not scheduler.startswith("tcp://"):
        raise InputError(f"--scheduler {scheduler}: expected 'local' or a Dask scheduler address tcp://HOST:PORT")
    return DaskPlayer(scheduler)


def play_steps(player, exp: Experiment) -> Iterator[tuple[int, Totals]]:
    """The experiment's totals after each step (games played so far, totals so far). Every chunk
    is queued at the start; closing this iterator early (pruning) cancels the ones not started."""
    steps = chunks(exp.games, player.jobs)
    results = player.map([(exp, a, b) for step in steps for a, b in step])
    totals = Totals(exp.players)
    try:
        for step in steps:
            for _ in step:
                totals.merge(next(results))
            yield step[-1][1], totals
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()
