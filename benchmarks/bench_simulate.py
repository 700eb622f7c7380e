"""Simulation benchmark (run by hand, not by the tests): prints figures and the goals' verdicts.

    python benchmarks/bench_simulate.py [--jobs 2] [--only kings-blade|kings-guild] [--scale 1.0]

The goals of issue 24 (item 6), each played the way `cardgen simulate` plays (no claims):
- 100,000 four-player King's Blade 3.1 games in under 60 s on two cores;
- 10,000 four-player King's Guild games in under 120 s on two cores;
- memory flat in the number of games.

Each goal is measured in a fresh process (so that peak memory belongs to that run alone) for a
tenth of its games and for all of them: games per second, wall and CPU time, the peak memory of the
main and worker processes (flat memory: the two runs' peaks are close), what the main process
costs (its CPU; when the games were queued, when the first chunk came back, how long the figures
took after the last), and the machine's load average before and after. The machine may be shared:
a load above the number of cores means the wall time is a lower bound of the speed, so the verdict
is then printed as "not a result".
--scale plays a fraction of the games (and of the time limit), for a quick look.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cpu import fork_server_cpu, own_cpu  # noqa: E402  (benchmarks/cpu.py, beside this script)

# game -> (version, players, bots, games, seconds): the goals
GOALS = {
    "kings-blade": ("3.1", 4, ("greedy", "rush", "builder", "saboteur"), 100_000, 60.0),
    "kings-guild": ("1", 4, ("greedy", "builder"), 10_000, 120.0),
}


class Chunks:
    """The runner's progress, as times: when the games were queued, when the first and the last
    chunk came back (what the main process costs before the workers play and after they end)."""

    def start(self, label: str, total: int) -> None:
        self.queued, self.first, self.last = time.perf_counter(), 0.0, 0.0

    def advance(self, games: int) -> None:
        self.last = time.perf_counter()
        self.first = self.first or self.last

    def stop(self) -> None:
        pass


def child(game: str, games: int, jobs: int) -> None:
    """One measured run in a fresh process, so that peak memory belongs to this run alone."""
    from cardgen.simulate.runner import Experiment, Runner

    version, players, bots, _, _ = GOALS[game]
    exp = Experiment(project=str(ROOT), game=game, version=version, players=players, bots=bots, games=games)
    started, cpu = time.perf_counter(), own_cpu()
    chunks = Chunks()
    with Runner(jobs, progress=chunks) as runner:
        figures = runner.figures(exp)
        wall = time.perf_counter() - started
        worker_rss = max((peak_mb(pid) for pid in runner.workers.pids()), default=0.0)
    main_cpu = own_cpu() - cpu  # this process alone: loading, queueing, merging, the figures
    # the workers are the fork server's children: their CPU is in its figures once the pool is closed
    cpu = main_cpu + fork_server_cpu()
    own = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "games": figures["games"], "wall_s": wall, "cpu_s": cpu, "main_cpu_s": main_cpu,
        "queued_s": chunks.queued - started, "first_chunk_s": chunks.first - started,
        "after_last_s": started + wall - chunks.last,
        "main_rss_mb": own.ru_maxrss / 1024, "worker_rss_mb": worker_rss,
        "rounds": figures["turns"]["rounds"]["mean"] if figures["turns"]["rounds"] else float("nan"),
    }))


def peak_mb(pid: int) -> float:
    """A live process's peak memory (VmHWM, Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(game: str, games: int, jobs: int) -> dict:
    before = os.getloadavg()[0]
    proc = subprocess.run([sys.executable, __file__, "--child", game, "--games", str(games), "--jobs", str(jobs)],
                          capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    run = json.loads(proc.stdout)
    run["load"] = max(before, os.getloadavg()[0])  # the 1-minute load average around the run
    return run


def goal(game: str, jobs: int, scale: float) -> bool:
    version, players, _, games, seconds = GOALS[game]
    games, seconds = max(1, round(games * scale)), seconds * scale
    cores = os.cpu_count() or 1
    print(f"{game} {version}, {players} players, {jobs} jobs; load average before: {load()}")
    small = measure(game, max(1, games // 10), jobs)
    full = measure(game, games, jobs)
    for run in (small, full):
        print(f"  {run['games']:>7} games: {run['wall_s']:6.1f} s wall, {run['cpu_s']:6.1f} s CPU, "
              f"{run['games'] / run['wall_s']:7.1f} games/s ({run['games'] / run['cpu_s']:.1f} per CPU second); "
              f"peak memory: main {run['main_rss_mb']:.0f} MB, largest worker {run['worker_rss_mb']:.0f} MB; "
              f"mean length {run['rounds']:.1f} rounds; load average {run['load']:.2f}")
        print(f"           main process: {run['main_cpu_s']:.2f} s CPU; games queued after {run['queued_s']:.2f} s, "
              f"first chunk back after {run['first_chunk_s']:.2f} s, figures done {run['after_last_s']:.2f} s "
              f"after the last")
    met = full["wall_s"] < seconds
    loaded = full["load"] > cores
    verdict = "PASS" if met else "FAIL"
    if loaded:
        verdict += f" (not a result: load average {full['load']:.2f} on {cores} cores)"
    print(f"  goal: {games} games in under {seconds:.0f} s: {verdict} ({full['wall_s']:.1f} s); "
          f"load average after: {load()}")
    print(f"  memory, {full['games']} games against {small['games']}: worker peak "
          f"{full['worker_rss_mb'] - small['worker_rss_mb']:+.1f} MB, main {full['main_rss_mb'] - small['main_rss_mb']:+.1f} MB")
    return met and not loaded


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", choices=sorted(GOALS))
    parser.add_argument("--scale", type=float, default=1.0, help="play this fraction of each goal's games and time")
    parser.add_argument("--games", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--child", choices=sorted(GOALS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.games, args.jobs)
        return
    print(f"cores: {os.cpu_count()}")
    results = {game: goal(game, args.jobs, args.scale) for game in ([args.only] if args.only else GOALS)}
    print("; ".join(f"{game}: {'PASS' if ok else 'not passed'}" for game, ok in results.items()))


if __name__ == "__main__":
    main()
