"""Simulation benchmark (run by hand, not by the tests): prints figures, asserts nothing.

    python benchmarks/bench_simulate.py [--games 100000] [--jobs 2] [--players 4] [--version 3.1]

Plays the games the way `cardgen simulate` does (no claims) and prints games per second, wall and
CPU time, the machine's load average before and after (the machine may be shared: a load above
the number of cores means the figure is a lower bound), and the peak memory of the worker
processes for a tenth of the games and for all of them: flat memory means the two are close.
The goal (issue 24): 100,000 four-player King's Blade 3.1 games in under 60 s on two cores.
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


def child(games: int, jobs: int, players: int, version: str) -> None:
    """One measured run in a fresh process, so that peak memory belongs to this run alone."""
    from cardgen.simulate.runner import Experiment, Runner

    exp = Experiment(project=str(ROOT), game="kings-blade", version=version, players=players,
                     bots=("greedy", "rush", "builder", "saboteur"), games=games)
    started, cpu = time.perf_counter(), time.process_time()
    with Runner(jobs) as runner:
        figures = runner.figures(exp)
        wall = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({
        "games": figures["games"], "wall_s": wall,
        "cpu_s": time.process_time() - cpu + workers.ru_utime + workers.ru_stime,
        "main_rss_mb": own.ru_maxrss / 1024, "worker_rss_mb": workers.ru_maxrss / 1024,
        "rounds": figures["turns"]["rounds"]["mean"] if figures["turns"]["rounds"] else float("nan"),
    }))


def measure(games: int, jobs: int, players: int, version: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", "--games", str(games), "--jobs", str(jobs),
                           "--players", str(players), "--version", version],
                          capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--version", default="3.1")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.games, args.jobs, args.players, args.version)
        return
    print(f"cores: {os.cpu_count()}, load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    small = measure(max(1, args.games // 10), args.jobs, args.players, args.version)
    full = measure(args.games, args.jobs, args.players, args.version)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for run in (small, full):
        print(f"{run['games']:>7} {args.players}-player {args.version} games, {args.jobs} jobs: "
              f"{run['wall_s']:6.1f} s wall, {run['cpu_s']:6.1f} s CPU, {run['games'] / run['wall_s']:7.1f} games/s "
              f"({run['games'] / run['cpu_s']:.1f} per CPU second); peak memory: main {run['main_rss_mb']:.0f} MB, "
              f"largest worker {run['worker_rss_mb']:.0f} MB; mean length {run['rounds']:.1f} rounds")
    print(f"goal: {full['games']} games in under 60 s on two cores: {'met' if full['wall_s'] < 60 else 'NOT met'} "
          f"({full['wall_s']:.1f} s)")
    print(f"memory, {full['games']} games against {small['games']}: worker peak "
          f"{full['worker_rss_mb'] - small['worker_rss_mb']:+.1f} MB, main {full['main_rss_mb'] - small['main_rss_mb']:+.1f} MB")


if __name__ == "__main__":
    main()
