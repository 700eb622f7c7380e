"""Bad-input benchmark (run by hand, not by the tests): prints figures, asserts nothing.

    python benchmarks/bench_bad_input.py [--runs 5]

How long `cardgen validate` takes, and how much memory it needs, to refuse hostile input: a
2 MB version file (over the 1,000,000-byte limit) and a 1 kB "billion laughs" alias bomb that
would expand to 10**10 values. The well-formed version 3 is measured beside them: refusing
must cost no more than reading a good file. tests/test_bad_input.py proves the refusals (one
line, exit 2) and writes the same files; a time limit there failed on a busy machine.

Each figure is the median of --runs runs of the real command in a fresh process, in a private
copy of the project; the machine's load average is printed beside it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cardgen.data.project import load_project

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from test_bad_input import V3, alias_bomb, huge_file  # noqa: E402  (the tests' own hostile files)


def run(project: Path) -> tuple[float, int, float, str]:
    """One `cardgen validate -v 3`: wall seconds, exit code, peak memory (MB), its last line of stderr."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "cardgen", "validate", "-v", "3"], cwd=project,
                                stdout=subprocess.DEVNULL, stderr=err, env={**os.environ, "PYTHONPATH": str(ROOT)})
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak memory
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        last = (err.read().decode().strip().splitlines() or [""])[-1]
    return wall, proc.returncode, usage.ru_maxrss / 1024, last


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    cases = {"well-formed version 3": None, "2 MB file": huge_file(), "alias bomb": alias_bomb()}
    with tempfile.TemporaryDirectory() as tmp:
        project = load_project(ROOT).copy_sources(Path(tmp) / "project").root
        good = (project / V3).read_text(encoding="utf-8")
        for name, text in cases.items():
            (project / V3).write_text(good if text is None else text, encoding="utf-8")
            runs = [run(project) for _ in range(args.runs)]
            walls = [w for w, _, _, _ in runs]
            codes = sorted({c for _, c, _, _ in runs})
            print(f"{name:>22}: {statistics.median(walls):5.2f} s median ({min(walls):.2f}-{max(walls):.2f}) "
                  f"over {args.runs} runs, exit {codes}, peak memory {max(m for _, _, m, _ in runs):.0f} MB; "
                  f"load {os.getloadavg()[0]:.2f}")
            print(f"{'':>24}{runs[-1][3][:110]}")


if __name__ == "__main__":
    main()
