"""Build benchmark (run by hand, not by the tests): prints figures, asserts nothing.

    python benchmarks/bench_build.py [--runs 3] [--cards 1000] [--skip-synthetic]

Every figure is the median of --runs runs, each in a fresh copy of the project with an empty
cache, and the machine's load average is printed beside it: on a shared machine a figure
taken under load says little.

- The King's Blade 3.1: cold build (`cardgen build --version 3.1`: both papers' sheets and
  rulebooks, PNGs), the time of each stage (`--timings`), a no-op rebuild, the sheets alone
  (`--paper a4 --no-rulebook --no-png`) and the PDF sizes.
- DeckSmith 0.9.9, when installed (`pip install decksmith==0.9.9`; it is not a dependency of
  cardgen): it builds and exports to a PDF as many card faces as the 3.1 build prints, in the
  same runs, and the ratio cardgen / DeckSmith is printed.
- A synthetic version with N different cards (the real templates, N upgrade cards with
  varied names and effects), at N/2 and N to show the cost grows linearly: cold build, no-op
  rebuild, peak memory, next to the bare cost of converting the same SVGs with cairosvg alone
  (one process, no cache, no sheets).
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cardgen.data.project import CACHE_ENV, load_project

ROOT = Path(__file__).resolve().parents[1]
STAGE_RE = re.compile(r"^  (\S.*?)\s+(\d+\.\d+) s")


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}/{fifteen:.1f}"


CPU: list[float] = []  # CPU seconds (user + system, all processes) of each run() call


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(cwd: Path, *args: str) -> tuple[float, str]:
    """Wall-clock seconds and stdout of a command; its CPU seconds go to CPU (less sensitive
    to other people's load than wall time, and the cost on one core)."""
    env = {k: v for k, v in os.environ.items() if k != CACHE_ENV}  # each copy keeps its own cache
    cpu = children_cpu()
    started = time.perf_counter()
    proc = subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - started
    CPU.append(children_cpu() - cpu)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return elapsed, proc.stdout


def cardgen(cwd: Path, *args: str) -> tuple[float, str]:
    return run(cwd, sys.executable, "-m", "cardgen", *args)


def stage_times(output: str) -> dict[str, float]:
    lines = output[output.index("stage times:"):].splitlines()[1:]
    return {m.group(1): float(m.group(2)) for m in map(STAGE_RE.match, lines) if m}


def fresh_project(tmp: Path, name: str) -> Path:
    return load_project(ROOT).copy_sources(tmp / name).root


def median(values: list[float]) -> float:
    return statistics.median(values)


# --- DeckSmith --------------------------------------------------------------------------------

DECKSMITH_SPEC = """\
id: canvas
width: 744
height: 1039
background_color: [236, 226, 206]
elements:
  - {id: frame, type: rectangle, size: [700, 995], position: [0, 0], relative_to: [canvas, center],
     anchor: center, color: [120, 40, 30], outline_color: [60, 30, 20], outline_width: 6}
  - {id: panel, type: rectangle, size: [640, 420], position: [0, -40], relative_to: [canvas, bottom-center],
     anchor: bottom-center, color: [246, 239, 226]}
  - {id: title, type: text, position: [0, 70], relative_to: [canvas, top-center], anchor: top-center,
     text: "%name%", color: [250, 240, 220], font_size: 52, align: center}
  - {id: points, type: text, position: [60, 60], relative_to: [canvas, top-left], anchor: top-left,
     text: "%points%", color: [250, 240, 220], font_size: 64}
  - {id: effect, type: text, position: [0, -400], relative_to: [canvas, bottom-center], anchor: top-center,
     text: "%effect%", color: [40, 30, 20], font_size: 36, width: 580, align: left, line_spacing: 8}
"""


def decksmith_available() -> bool:
    try:
        from importlib.metadata import version

        return version("decksmith") == "0.9.9" and shutil.which("decksmith") is not None
    except Exception:
        return False


def decksmith_project(tmp: Path, faces: int) -> Path:
    """A DeckSmith deck of `faces` poker-size cards at 300 DPI (744 x 1039 px): name, points,
    an effect sentence on a panel, in a frame; roughly what a cardgen card face draws."""
    folder = tmp / "decksmith"
    folder.mkdir()
    (folder / "deck.yaml").write_text(DECKSMITH_SPEC)
    with open(folder / "deck.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter=";")
        w.writerow(["name", "points", "effect"])
        for i in range(faces):
            w.writerow([f"Card number {i}", str(i % 5),
                        f"When this card holds orcish metal, gain {1 + i % 3} sword points; "
                        f"you may pour one more metal on your turn."])
    return folder


def decksmith_build(folder: Path) -> float:
    """Build the images, then export them to an A4 PDF, as its README's two steps."""
    shutil.rmtree(folder / "output", ignore_errors=True)
    started = time.perf_counter()
    run(folder, "decksmith", "build", "--output", "output")
    run(folder, "decksmith", "export", "output", "--output", "deck.pdf", "--page-size", "A4",
        "--width", "63", "--height", "88")
    return time.perf_counter() - started


# --- The King's Blade 3.1 ----------------------------------------------------------------------


def bench_31(runs: int) -> None:
    cold, noop, sheets, smith, stages, loads = [], [], [], [], {}, []
    cold_cpu, smith_cpu = [], []
    printed = 0
    sizes: dict[str, int] = {}
    use_decksmith = decksmith_available()
    for i in range(runs):
        with tempfile.TemporaryDirectory(prefix="cardgen-bench-") as tmp:
            loads.append(os.getloadavg()[0])
            project = fresh_project(Path(tmp), "project")
            seconds, out = cardgen(project, "build", "--version", "3.1", "--timings")
            cold.append(seconds)
            cold_cpu.append(CPU[-1])
            for stage, value in stage_times(out).items():
                stages.setdefault(stage, []).append(value)
            printed = int(re.search(r"(\d+) cards to print", out).group(1))
            noop.append(cardgen(project, "build", "--version", "3.1", "-q")[0])
            built = project / "build/kings-blade/3.1"
            sizes = {p.name: p.stat().st_size for p in sorted(built.glob("*.pdf"))}
            alone = fresh_project(Path(tmp), "sheets-only")
            sheets.append(cardgen(alone, "build", "--version", "3.1", "--paper", "a4", "--no-rulebook",
                                  "--no-png", "-q")[0])
            if use_decksmith:
                smith.append(decksmith_build(decksmith_project(Path(tmp), printed)))
                smith_cpu.append(CPU[-1] + CPU[-2])  # its build and its export
            loads.append(os.getloadavg()[0])
        print(f"  run {i + 1}/{runs}: cold {cold[-1]:.2f} s, no-op {noop[-1]:.2f} s, sheets alone "
              f"{sheets[-1]:.2f} s" + (f", DeckSmith {smith[-1]:.2f} s" if smith else "") + f"  ({load()})",
              flush=True)

    print(f"\nThe King's Blade 3.1 on {os.cpu_count()} cores, median of {runs} "
          f"(1-minute load {min(loads):.1f} to {max(loads):.1f})")
    print(f"  cold build            {median(cold):6.2f} s   (both papers' sheets and rulebooks, PNGs; "
          f"{median(cold_cpu):.2f} s of CPU)")
    print(f"  no-op rebuild         {median(noop):6.2f} s   ({median(noop) / median(cold):.1%} of cold)")
    print(f"  sheets alone          {median(sheets):6.2f} s   (--paper a4 --no-rulebook --no-png, cold)")
    print("  stages of the cold build (rulebook layout runs beside the cards, so they overlap):")
    for stage, values in stages.items():
        print(f"    {stage:<18}  {median(values):6.2f} s")
    for name, size in sizes.items():
        print(f"  {name:<22}{size / 1024:6.0f} KiB")
    if smith:
        ds = median(smith)
        print(f"\nDeckSmith 0.9.9, {printed} faces built and exported to a PDF, same runs: {ds:.2f} s "
              f"({median(smith_cpu):.2f} s of CPU)")
        print(f"  cardgen cold / DeckSmith    {median(cold) / ds:5.2f} x  (goal <= 1.0, stretch 0.5)")
        print(f"  sheets alone / DeckSmith    {median(sheets) / ds:5.2f} x  (goal <= 0.3)")
        print(f"  CPU seconds, cold / DeckSmith {median(cold_cpu) / median(smith_cpu):5.2f} x")
    else:
        print("\nDeckSmith not installed (pip install decksmith==0.9.9): no side-by-side ratio")


# --- synthetic ---------------------------------------------------------------------------------


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


def bench_synthetic(cards: int, runs: int) -> None:
    print(f"\nSynthetic: The King's Blade 3.1 plus N different upgrade cards, median of {runs}")
    for n in (cards // 2, cards):
        cold, noop, bare, peaks = [], [], [], []
        for _ in range(runs):
            with tempfile.TemporaryDirectory(prefix="cardgen-bench-") as tmp:
                project = fresh_project(Path(tmp), "project")
                synthetic_version(project, n)
                before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
                cold.append(cardgen(project, "build", "--version", "bench", "-q", "--no-rulebook")[0])
                peaks.append(max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
                noop.append(cardgen(project, "build", "--version", "bench", "-q", "--no-rulebook")[0])
                svg = project / "build/kings-blade/bench/svg"
                faces = len(list(svg.glob("*.svg")))
                bare.append(bare_cairosvg(svg))
        c, b = median(cold), median(bare)
        print(f"  N = {n}: {faces} different faces ({load()})")
        print(f"    cold build          {c:6.2f} s   ({c / faces * 1000:.0f} ms a face)")
        print(f"    no-op rebuild       {median(noop):6.2f} s   ({median(noop) / c:.1%} of cold)")
        print(f"    peak memory         {max(peaks) / 1024:6.0f} MiB (largest single process)")
        print(f"    cairosvg alone      {b:6.2f} s   (one process)")
        print(f"    pipeline / cairosvg {c / b:6.2f} x  (the pipeline uses every core and also imposes sheets)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cards", type=int, default=1000)
    ap.add_argument("--skip-synthetic", action="store_true")
    args = ap.parse_args()
    print(f"cardgen build benchmark, {time.strftime('%Y-%m-%d %H:%M')}, {load()}")
    bench_31(args.runs)
    if not args.skip_synthetic:
        bench_synthetic(args.cards, args.runs)


if __name__ == "__main__":
    main()
