"""Build benchmark (run by hand, not by the tests): prints figures, asserts nothing.

    python benchmarks/bench_build.py [--cards 1000] [--skip-synthetic]

Figures for The King's Blade 3.1: cold build (empty cache), no-op rebuild, PDF sizes. Then a
synthetic version with N different cards (the real templates, N upgrade cards with varied
names and effects): cold build time and peak memory, next to the bare cost of converting the
same SVGs with cairosvg alone (one process, no cache, no sheets), so the pipeline's overhead
shows as a ratio.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cardgen.data.project import load_project

ROOT = Path(__file__).resolve().parents[1]


def timed_build(project: Path, *args: str) -> tuple[float, str]:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cardgen", *args], cwd=project, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"build failed:\n{proc.stderr}")
    return elapsed, proc.stdout


def synthetic_version(project: Path, n: int) -> None:
    effects = [
        "{when: orcish, do: points, amount: %d}",
        "{when: dwarvish, do: extra_pour, amount: 1}",
        "{when: elvish, do: points_per_metal, amount: 1}",
        "{when: any, do: points, amount: 1}",
        "{when: orcish, do: overflow_keep}",
    ]
    arts = ["art-gem", "art-rune", "art-scabbard", "art-engraving", "art-pommel-stone", "art-whetstone"]
    lines = ['extends: "3.1"', "title: Benchmark", "cards:"]
    for i in range(n):
        rows = ", ".join(effects[(i + k) % len(effects)].replace("%d", str(1 + i % 3)) for k in range(1 + i % 3))
        lines.append(f"  - {{id: bench-{i:04d}, type: upgrade, name: Upgrade No {i}, art: kings-blade/{arts[i % 6]}, "
                     f"points: {i % 4}, needs: {2 + i % 3}, effects: [{rows}]}}")
    (project / "versions/kings-blade/bench.yml").write_text("\n".join(lines) + "\n")


def bare_cairosvg(svg_dir: Path) -> float:
    """Convert every SVG to PDF and PNG with cairosvg alone, one process, no cache."""
    code = f"""
import time, pathlib, cairosvg
from cardgen.render.fonts import use_project_fonts
use_project_fonts(pathlib.Path({str(ROOT / 'fonts')!r}))
files = sorted(pathlib.Path({str(svg_dir)!r}).glob('*.svg'))
t = time.perf_counter()
for f in files:
    data = f.read_bytes()
    cairosvg.svg2pdf(bytestring=data)
    cairosvg.svg2png(bytestring=data, dpi=300)
print(time.perf_counter() - t)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(proc.stdout.strip())


def mib(path: Path) -> str:
    return f"{path.stat().st_size / 1024:.0f} KiB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cards", type=int, default=1000)
    ap.add_argument("--skip-synthetic", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cardgen-bench-") as tmp:
        project = load_project(ROOT).copy_sources(Path(tmp) / "project").root
        cold, _ = timed_build(project, "build", "--version", "3.1", "-q")
        noop, _ = timed_build(project, "build", "--version", "3.1", "-q")
        out = project / "build/kings-blade/3.1"
        print("The King's Blade 3.1")
        print(f"  cold build            {cold:6.2f} s")
        print(f"  no-op rebuild         {noop:6.2f} s   ({noop / cold:.1%} of cold)")
        for pdf in sorted(out.glob("*.pdf")):
            print(f"  {pdf.name:<22}{mib(pdf):>9}")
        bare = bare_cairosvg(out / "svg")
        print(f"  cairosvg alone        {bare:6.2f} s   (same SVGs to PDF + PNG, one process)")
        if args.skip_synthetic:
            return
        synthetic_version(project, args.cards)
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        cold_n, _ = timed_build(project, "build", "--version", "bench", "-q", "--no-rulebook")
        peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        noop_n, _ = timed_build(project, "build", "--version", "bench", "-q", "--no-rulebook")
        bench_out = project / "build/kings-blade/bench"
        bare_n = bare_cairosvg(bench_out / "svg")
        faces = len(list((bench_out / "svg").glob("*.svg")))
        print(f"\nSynthetic: {faces} different faces ({args.cards} added cards)")
        print(f"  cold build            {cold_n:6.2f} s   ({cold_n / faces * 1000:.0f} ms a face)")
        print(f"  no-op rebuild         {noop_n:6.2f} s   ({noop_n / cold_n:.1%} of cold)")
        print(f"  peak memory           {peak / 1024:6.0f} MiB (largest single process)")
        print(f"  cairosvg alone        {bare_n:6.2f} s   (one process)")
        print(f"  pipeline / cairosvg   {cold_n / bare_n:6.2f} x  (pipeline uses every core and also imposes sheets)")
        for pdf in sorted(bench_out.glob("*.pdf")):
            print(f"  {pdf.name:<22}{mib(pdf):>9}")


if __name__ == "__main__":
    main()
