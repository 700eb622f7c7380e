"""Balance benchmark (run by hand, not by the tests): prints figures, asserts nothing.

    python benchmarks/bench_balance.py [--games 2000] [--trials 40] [--skip-search]

1. Games per second of one trial's games (--games, 4 players, the four strategic bots) played the
   way `cardgen balance` plays them (balance.play: chunks on a local pool), with 1 and 2 workers,
   and whether the two gave the same figures.
2. The wall time of a `cardgen balance` search over two values (katana-hilt.points=1..6,
   katana-hilt.needs=2..5) towards the cards target, --trials trials of --games games, 2 workers,
   in a copy of the project (the repository's build/ is left alone).

The machine's load average is printed before and after each measurement: on a shared machine a
load above the number of cores means the figures are lower bounds, and the ratio of 2 to 1 workers
says little (the other processes take the second core). The CPU seconds per 1,000 games (this
process and the workers, read from /proc: see cpu.py) say whether two workers do more work per
game than one (pool overhead): on an idle machine the ratio is at most the ratio of those.
--repeat N measures N times, alternating 1 and 2 workers (paired runs on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cpu import own_cpu, workers_cpu  # noqa: E402  (benchmarks/cpu.py, beside this script)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def games_per_second(games: int, jobs: int) -> tuple[float, float, str]:
    from cardgen.balance.play import LocalPlayer, play_steps
    from cardgen.simulate.runner import Experiment, figures_from, simulation_for

    exp = Experiment(project=str(ROOT), game="kings-blade", version="3.1", players=4,
                     bots=("greedy", "rush", "builder", "saboteur"), games=games, seed=1)
    simulation_for(exp)  # load the game once, outside the measurement (a search loads it once too)
    player = LocalPlayer(jobs)
    player.play(exp, [(i, i + 1) for i in range(jobs)])  # start the pool's processes outside the measurement
    try:
        started, cpu = time.perf_counter(), own_cpu() + workers_cpu(player.workers)
        totals = None
        for _, totals in play_steps(player, exp):
            pass
        wall = time.perf_counter() - started
        cpu = own_cpu() + workers_cpu(player.workers) - cpu
    finally:
        player.close()
    return games / wall, cpu, json.dumps(figures_from(exp, totals), sort_keys=True)


def search(games: int, trials: int) -> dict:
    from cardgen.data.project import load_project

    with tempfile.TemporaryDirectory() as tmp:
        root = load_project(ROOT).copy_sources(Path(tmp) / "project").root
        cmd = [sys.executable, "-m", "cardgen", "balance", "--version", "3.1", "--vary", "katana-hilt.points=1..6",
               "--vary", "katana-hilt.needs=2..5", "--target", "cards", "--trials", str(trials), "--games", str(games),
               "--seed", "1", "--jobs", "2", "--format", "json"]
        started = time.perf_counter()
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=False,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    doc = json.loads(proc.stdout)
    rows = doc["trials"]
    distinct = {tuple(sorted(t["values"].items())) for t in rows}
    return {"wall_s": round(wall, 1), "trials": len(rows), "distinct_candidates": len(distinct),
            "pruned": sum(t["state"] == "pruned" for t in rows), "best": doc["best"]["values"],
            "best_loss": doc["best"]["loss"], "as_it_is_loss": doc["baseline"]["loss"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--skip-search", action="store_true")
    parser.add_argument("--repeat", type=int, default=1, help="measure 1 and 2 workers this many times, in turn")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}")
    for _ in range(args.repeat):
        rates = {}
        for jobs in (1, 2):
            before = load()
            rate, cpu, figures = games_per_second(args.games, jobs)
            rates[jobs] = (rate, figures)
            print(f"{jobs} worker{'s' if jobs > 1 else ''}: {rate:7.1f} games/s over {args.games} games, "
                  f"{1000 * cpu / args.games:.2f} CPU s per 1000 games   (load before {before}, after {load()})")
        print(f"2 workers / 1 worker: {rates[2][0] / rates[1][0]:.2f}x; same figures: {rates[1][1] == rates[2][1]}")
    if not args.skip_search:
        before = load()
        result = search(args.games, args.trials)
        print(f"search, {args.trials} trials x {args.games} games, 2 values, 2 workers: {result['wall_s']} s "
              f"({result['distinct_candidates']} distinct candidates, {result['pruned']} pruned; best "
              f"{result['best']} loss {result['best_loss']} vs {result['as_it_is_loss']} as it is)   "
              f"(load before {before}, after {load()})")


if __name__ == "__main__":
    main()
