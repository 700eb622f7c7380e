"""Build benchmark (run by hand, not by the tests): prints figures, asserts nothing.

    python benchmarks/bench_build.py [--runs 3] [--cards 1000] [--skip-synthetic] [--baseline REF]
                                     [--decksmith PATH]

Measures this checkout ("after") and, with --baseline, the cardgen of a git commit ("before",
e.g. `--baseline main` or a hash; exported with `git archive` into a scratch folder), in the
same runs, taking turns, so both see the same machine load; the goals of issue 12 are printed
beside the figures. Each figure is the median of --runs runs, each in a fresh copy of the
project with an empty cache; the machine's load average is printed too, since a figure taken
under load says little (CPU seconds say more than wall seconds then). Each tree's modules are
byte-compiled first (`byte_compile`), as an installed cardgen's and DeckSmith's are.

- The King's Blade 3.1: cold build (`cardgen build --version 3.1`: both papers' sheets, both
  rulebooks, both designer's notes, PNGs) with the time of each stage (`--timings`), its CPU
  seconds (all processes) and peak memory (the build process plus its workers, summed while
  they run), a no-op rebuild, the sheets alone (`--paper a4 --no-rulebook --no-png`).
- Each rulebook paper on one core, in one process: weasyprint's layout alone, and the whole
  paper (layout, PDF, the cards put in); CPU seconds.
- DeckSmith 0.9.9, when installed (not a dependency of cardgen: best in a virtual environment
  of its own, `python -m venv ds && ds/bin/pip install decksmith==0.9.9`, then
  `--decksmith ds/bin/decksmith`, or the DECKSMITH variable; else the `decksmith` on PATH): it
  builds and exports to a PDF as many card faces as the 3.1 build prints, in the same runs, and
  the ratios cardgen / DeckSmith are printed, in CPU seconds and in wall seconds, with the goals
  of issue 26 (CPU <= 1.0x, wall <= 0.7x, stretch 0.5x; the no-op rebuild under 3 % of cold).
- A synthetic version with N different cards (the real templates, N upgrade cards with varied
  names and effects), at N/2 and N to show the cost grows linearly: cold build (--no-rulebook),
  no-op rebuild, peak memory, next to the bare cost of converting the same SVGs to PDF and
  PNG with cairosvg alone (one process, no cache, no sheets). --synthetic-runs runs each.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STAGE_RE = re.compile(r"^  (\S.*?)\s+(\d+\.\d+) s")
SOURCES = ("cardgen.yml", "card_data", "versions", "templates", "icons", "fonts", "schema")
CACHE_ENV = "CARDGEN_CACHE_DIR"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}/{fifteen:.1f}"


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


# --- running things ----------------------------------------------------------------------------


@dataclass
class Tree:
    """A cardgen source tree to measure: this checkout, or a baseline commit exported."""

    label: str
    root: Path

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != CACHE_ENV}  # each copy keeps its own cache
        env["PYTHONPATH"] = str(self.root)
        return env

    def project(self, dest: Path) -> Path:
        """A fresh copy of this tree's project sources (no build/, no cache)."""
        dest.mkdir(parents=True)
        for name in SOURCES:
            source = self.root / name
            if source.is_dir():
                shutil.copytree(source, dest / name)
            elif source.is_file():
                shutil.copy2(source, dest / name)
        return dest


@dataclass
class Run:
    seconds: float
    cpu: float  # user + system seconds of the command and every process it started (see adopt_orphans)
    peak_mib: float  # the largest sum of resident memory of the command and its descendants
    stdout: str


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def adopt_orphans() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux).

    A build's workers are forked by a fork server (cardgen.render.workers), a child of the
    build that it never waits for: when the build ends, the server and the workers it reaped are
    orphans, and `RUSAGE_CHILDREN` would count none of their CPU (in November 2026 it counted
    2 of 14 CPU seconds). As their reaper, this process waits for them (`reap_orphans`) and
    their CPU is counted with the build's.
    """
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def reap_orphans(timeout: float = 60.0) -> None:
    """Wait for the adopted descendants of the command that just ended (its fork server ends
    when the command's end closes its pipe)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # none left
            return
        if pid == 0:
            if time.monotonic() > deadline:
                raise SystemExit("a process the command started did not end")
            time.sleep(0.01)


class TreeMemory:
    """Samples the summed resident memory of a process and its descendants (Linux /proc)."""

    def __init__(self, pid: int):
        self.pid = pid
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak_kib = max(self.peak_kib, sum(_rss_kib(p) for p in _descendants(self.pid)))
            self._stop.wait(0.05)


def _descendants(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat") as f:
                    parents[int(entry.name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [root], [root]
    while todo:
        pid = todo.pop()
        kids = [p for p, parent in parents.items() if parent == pid]
        found += kids
        todo += kids
    return found


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(cwd: Path, args: list[str], env: dict[str, str] | None = None) -> Run:
    cpu = children_cpu()
    started = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with TreeMemory(proc.pid) as memory:
        out, err = proc.communicate()
    elapsed = time.perf_counter() - started
    reap_orphans()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{out}\n{err}")
    return Run(elapsed, children_cpu() - cpu, memory.peak_kib / 1024, out)


def cardgen(tree: Tree, cwd: Path, *args: str) -> Run:
    return run(cwd, [sys.executable, "-m", "cardgen", *args], tree.env())


def stage_times(output: str) -> dict[str, float]:
    lines = output[output.index("stage times:"):].splitlines()[1:]
    return {m.group(1): float(m.group(2)) for m in map(STAGE_RE.match, lines) if m}


# --- DeckSmith ---------------------------------------------------------------------------------

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


DECKSMITH_VERSION = "0.9.9"


def decksmith_command(given: str | None) -> str | None:
    """The `decksmith` program to run (--decksmith, $DECKSMITH, or the one on PATH), if it is
    DeckSmith 0.9.9: asked of the Python beside it, so a separate virtual environment works."""
    program = given or os.environ.get("DECKSMITH") or shutil.which("decksmith")
    if not program or not Path(program).is_file():
        return None
    python = Path(program).absolute().parent / "python"
    code = "from importlib.metadata import version; print(version('decksmith'))"
    try:
        found = subprocess.run([str(python) if python.is_file() else sys.executable, "-c", code],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return str(Path(program).absolute()) if found == DECKSMITH_VERSION else None


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


def decksmith_build(program: str, folder: Path) -> tuple[float, float]:
    """Build the images, then export them to an A4 PDF, as its README's two steps: wall, CPU."""
    shutil.rmtree(folder / "output", ignore_errors=True)
    build = run(folder, [program, "build", "--output", "output"])
    export = run(folder, [program, "export", "output", "--output", "deck.pdf", "--page-size", "A4",
                          "--width", "63", "--height", "88"])
    return build.seconds + export.seconds, build.cpu + export.cpu


# --- one paper of the rulebook on one core ------------------------------------------------------

PAPER_CODE = """
import json, statistics, sys, time
from pathlib import Path
import weasyprint
from weasyprint.text.fonts import FontConfiguration
from cardgen.buildtypes import PAPER_SIZES
from cardgen.builtin import BUILTIN_DIR
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
try:
    from cardgen.render.cards import CardRenderer
except ImportError:
    CardRenderer = None
from cardgen.render.fonts import use_project_fonts
from cardgen.rulebook import document
from cardgen.rulebook.fetch import ProjectFetcher

project = load_project(Path(sys.argv[1]))
runs = int(sys.argv[2])
snapshot = resolve(project, load_game(project, None), "3.1")
try:  # the one card stage
    from cardgen.cardstage import draw_cards
    rendered = draw_cards(project, snapshot, checks=False).faces()
except ImportError:  # a cardgen from before it
    rendered = CardRenderer(project, snapshot).render_all()
use_project_fonts(project.fonts_dir, project.cache_dir / "fontconfig")


def whole(doc):
    pdf = document.write_rulebook_pdf(project, doc)
    if hasattr(document, "with_cards"):  # cards put in from their PDFs (made by rasterise in a build)
        pdf = document.with_cards(project, pdf, {})
    return pdf


try:  # a build lays the columns out with remembered layouts (cardgen/rulebook/columns.py)
    from cardgen.rulebook.columns import fewer_layouts
except ImportError:  # a cardgen from before it
    from contextlib import nullcontext as fewer_layouts


def lay_out(doc):
    fetcher = ProjectFetcher([project.root, project.build_dir, project.cache_dir, BUILTIN_DIR])
    with fewer_layouts():
        weasyprint.HTML(string=doc.html, base_url=doc.base_url, url_fetcher=fetcher).render(
            font_config=FontConfiguration())


figures = {}
for paper in ("a4", "letter"):
    doc = document.rulebook_html(project, snapshot, rendered, snapshot.game.file.rulebook, PAPER_SIZES[paper])
    whole(doc)  # once first: fonts loaded, the cards' PDFs in the cache, as in a build
    layout, total = [], []
    for _ in range(runs):
        started = time.process_time()
        lay_out(doc)
        layout.append(time.process_time() - started)
        started = time.process_time()
        whole(doc)
        total.append(time.process_time() - started)
    figures[paper] = [statistics.median(layout), statistics.median(total)]
print(json.dumps(figures))
"""


def paper_cpu(tree: Tree, project: Path, runs: int) -> dict[str, list[float]]:
    env = tree.env()
    env[CACHE_ENV] = str(project / "build" / ".cache")
    # run in the project: from the checkout, `python -c` would import the checkout's cardgen
    proc = subprocess.run([sys.executable, "-c", PAPER_CODE, str(project), str(runs)], env=env, cwd=project,
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"one-paper measure failed for {tree.label}:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- The King's Blade 3.1 ----------------------------------------------------------------------


@dataclass
class Figures:
    values: dict[str, list[float]] = field(default_factory=dict)
    stages: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, value: float) -> None:
        self.values.setdefault(name, []).append(value)

    def get(self, name: str) -> float:
        return median(self.values.get(name, []))


def bench_31(trees: list[Tree], runs: int, decksmith: str | None) -> tuple[dict[str, Figures], Figures, int]:
    figures = {t.label: Figures() for t in trees}
    smith = Figures()
    printed = 0
    for i in range(runs):
        for tree in trees:
            f = figures[tree.label]
            with tempfile.TemporaryDirectory(prefix="cardgen-bench-") as tmp:
                f.add("load", os.getloadavg()[0])
                project = tree.project(Path(tmp) / "project")
                cold = cardgen(tree, project, "build", "--version", "3.1", "--timings")
                f.add("cold", cold.seconds)
                f.add("cold cpu", cold.cpu)
                f.add("peak", cold.peak_mib)
                for stage, value in stage_times(cold.stdout).items():
                    f.stages.setdefault(stage, []).append(value)
                printed = int(re.search(r"(\d+) cards to print", cold.stdout).group(1))
                noop = cardgen(tree, project, "build", "--version", "3.1", "-q")
                f.add("noop", noop.seconds)
                alone = tree.project(Path(tmp) / "sheets-only")
                sheets = cardgen(tree, alone, "build", "--version", "3.1", "--paper", "a4", "--no-rulebook",
                                 "--no-png", "-q")
                f.add("sheets", sheets.seconds)
                for paper, (layout, whole) in paper_cpu(tree, project, 1).items():
                    f.add(f"layout {paper}", layout)
                    f.add(f"paper {paper}", whole)
                for pdf in sorted((project / "build/kings-blade/3.1").glob("*.pdf")):
                    f.add(f"size {pdf.name}", pdf.stat().st_size / 1024)
            print(f"  run {i + 1}/{runs}, {tree.label}: cold {cold.seconds:.2f} s ({cold.cpu:.2f} s CPU, "
                  f"{cold.peak_mib:.0f} MiB), no-op {noop.seconds:.2f} s, sheets alone {sheets.seconds:.2f} s  "
                  f"({load()})", flush=True)
        if decksmith:
            with tempfile.TemporaryDirectory(prefix="cardgen-bench-") as tmp:
                smith.add("load", os.getloadavg()[0])
                wall, cpu = decksmith_build(decksmith, decksmith_project(Path(tmp), printed))
            smith.add("build", wall)
            smith.add("cpu", cpu)
            print(f"  run {i + 1}/{runs}, DeckSmith: {wall:.2f} s ({cpu:.2f} s CPU)  ({load()})", flush=True)
    return figures, smith, printed


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
    # claims: [] -- the designer's claims about 3.1's counts do not hold for N more cards
    lines = ['extends: "3.1"', "title: Benchmark", "claims: []", "cards:"]
    for i in range(n):
        rows = ", ".join(effects[(i + k) % len(effects)].replace("%d", str(1 + i % 3)) for k in range(1 + i % 3))
        lines.append(f"  - {{id: bench-{i:04d}, type: upgrade, name: Upgrade No {i}, art: kings-blade/{arts[i % 6]}, "
                     f"points: {i % 4}, needs: {2 + i % 3}, effects: [{rows}]}}")
    (project / "versions/kings-blade/bench.yml").write_text("\n".join(lines) + "\n")


BARE_CODE = """
import pathlib, sys, time, cairosvg
from cardgen.render.fonts import use_project_fonts
use_project_fonts(pathlib.Path(sys.argv[1]))
files = sorted(pathlib.Path(sys.argv[2]).glob('*.svg'))
t = time.perf_counter()
for f in files:
    data = f.read_bytes()
    cairosvg.svg2pdf(bytestring=data)
    cairosvg.svg2png(bytestring=data, dpi=300)
print(time.perf_counter() - t)
"""


def bare_cairosvg(tree: Tree, fonts: Path, svg_dir: Path) -> float:
    """Convert every SVG to PDF and PNG with cairosvg alone, one process, no cache."""
    proc = subprocess.run([sys.executable, "-c", BARE_CODE, str(fonts), str(svg_dir)], env=tree.env(),
                          cwd=svg_dir, capture_output=True, text=True, check=True)
    return float(proc.stdout.strip())


def bench_synthetic(trees: list[Tree], cards: int, runs: int) -> dict[tuple[str, int], Figures]:
    found: dict[tuple[str, int], Figures] = {}
    for n in (cards // 2, cards):
        for _ in range(runs):
            for tree in trees:
                f = found.setdefault((tree.label, n), Figures())
                with tempfile.TemporaryDirectory(prefix="cardgen-bench-") as tmp:
                    project = tree.project(Path(tmp) / "project")
                    synthetic_version(project, n)
                    cold = cardgen(tree, project, "build", "--version", "bench", "-q", "--no-rulebook")
                    noop = cardgen(tree, project, "build", "--version", "bench", "-q", "--no-rulebook")
                    svg = project / "build/kings-blade/bench/svg"
                    f.add("faces", len(list(svg.glob("*.svg"))))
                    f.add("cold", cold.seconds)
                    f.add("cold cpu", cold.cpu)
                    f.add("noop", noop.seconds)
                    f.add("peak", cold.peak_mib)
                    if tree is trees[-1]:  # the same SVGs for every tree: converted once
                        bare = bare_cairosvg(tree, project / "fonts", svg)
                        for other in trees:
                            found[(other.label, n)].add("bare", bare)
                print(f"  N = {n}, {tree.label}: cold {cold.seconds:.2f} s ({cold.cpu:.2f} s CPU, "
                      f"{cold.peak_mib:.0f} MiB)  ({load()})", flush=True)
            print(f"  N = {n}: cairosvg alone {bare:.2f} s", flush=True)
    return found


# --- the table ----------------------------------------------------------------------------------


def table(rows: list[tuple[str, list[str], str]], labels: list[str]) -> None:
    width = max(len(r[0]) for r in rows)
    print(f"  {'':<{width}}  " + "  ".join(f"{label:>10}" for label in labels) + "   goal")
    for name, values, goal in rows:
        print(f"  {name:<{width}}  " + "  ".join(f"{v:>10}" for v in values) + (f"   {goal}" if goal else ""))


def report(trees: list[Tree], figures: dict[str, Figures], smith: Figures, printed: int, runs: int) -> None:
    labels = [t.label for t in trees]
    loads = [v for f in figures.values() for v in f.values["load"]]
    print(f"\nThe King's Blade 3.1 on {os.cpu_count()} cores, median of {runs} run(s) "
          f"(1-minute load {min(loads):.1f} to {max(loads):.1f} at their starts)")
    ds = smith.get("build")

    def each(fn) -> list[str]:
        return [fn(figures[label]) for label in labels]

    rows = [
        ("cold build (s)", each(lambda f: f"{f.get('cold'):.2f}"), "<= 0.7x DeckSmith"),
        ("cold build, CPU (s)", each(lambda f: f"{f.get('cold cpu'):.2f}"), "<= DeckSmith"),
        ("no-op rebuild (s)", each(lambda f: f"{f.get('noop'):.2f}"), ""),
        ("no-op / cold", each(lambda f: f"{f.get('noop') / f.get('cold'):.1%}"), "< 3 %"),
        ("sheets alone (s)", each(lambda f: f"{f.get('sheets'):.2f}"), ""),
        ("peak memory, build + workers (MiB)", each(lambda f: f"{f.get('peak'):.0f}"), "< 600"),
    ]
    for paper in ("a4", "letter"):
        rows.append((f"rulebook {paper.upper()} layout, 1 core (CPU s)",
                     each(lambda f, p=paper: f"{f.get('layout ' + p):.2f}"), "<= 1.5"))
        rows.append((f"rulebook {paper.upper()} whole paper, 1 core (CPU s)",
                     each(lambda f, p=paper: f"{f.get('paper ' + p):.2f}"), ""))
    if smith.values:
        rows += [
            (f"DeckSmith, {printed} faces built + exported (s)", [f"{ds:.2f}"] * len(labels), ""),
            (f"DeckSmith, {printed} faces, CPU (s)", [f"{smith.get('cpu'):.2f}"] * len(labels), ""),
            ("CPU, cold build / DeckSmith", each(lambda f: f"{f.get('cold cpu') / smith.get('cpu'):.2f}x"),
             "<= 1.0x"),
            ("wall, cold build / DeckSmith", each(lambda f: f"{f.get('cold') / ds:.2f}x"), "<= 0.7x (stretch 0.5x)"),
            ("sheets alone / DeckSmith", each(lambda f: f"{f.get('sheets') / ds:.2f}x"), "<= 0.3x"),
        ]
    table(rows, labels)
    stages = sorted({s for f in figures.values() for s in f.stages}, key=lambda s: min(
        list(f.stages).index(s) if s in f.stages else 99 for f in figures.values()))
    print("\n  stages of the cold build, wall seconds (--timings; the rulebooks and notes are laid out beside")
    print("  the cards, so the stages overlap and add up to more than the build):")
    table([(s, [f"{median(figures[label].stages[s]):.2f}" if s in figures[label].stages else "-" for label in labels],
            "") for s in stages], labels)
    sizes = sorted({name for f in figures.values() for name in f.values if name.startswith("size ")})
    print("\n  output sizes (KiB):")
    table([(s[5:], [f"{figures[label].get(s):.0f}" for label in labels], "") for s in sizes], labels)
    if smith.values:
        cpu = [figures[label].get("cold cpu") / smith.get("cpu") for label in labels]
        wall = [figures[label].get("cold") / ds for label in labels]
        smith_loads = smith.values["load"]
        print(f"\n  cardgen / DeckSmith 0.9.9, cold 3.1 build against {printed} faces built + exported, "
              f"median of {runs} paired run(s), 1-minute load {min(loads + smith_loads):.1f} to "
              f"{max(loads + smith_loads):.1f}:")
        for label, c, w in zip(labels, cpu, wall):
            print(f"    {label}: CPU {c:.2f}x (goal <= 1.0x: {'met' if c <= 1.0 else 'not met'}), wall {w:.2f}x "
                  f"(goal <= 0.7x: {'met' if w <= 0.7 else 'not met'}; stretch 0.5x: "
                  f"{'met' if w <= 0.5 else 'not met'})")
    else:
        print("\n  DeckSmith 0.9.9 not found (--decksmith PATH, DECKSMITH, or `decksmith` on PATH): no "
              "side-by-side ratio")


def report_synthetic(trees: list[Tree], synthetic: dict[tuple[str, int], Figures], cards: int) -> None:
    labels = [t.label for t in trees]
    if synthetic:
        half, full = cards // 2, cards
        print(f"\nSynthetic: The King's Blade 3.1 plus N different upgrade cards, --no-rulebook ({load()})")
        syn = {key: f for key, f in synthetic.items()}

        def both(fn) -> list[str]:
            return [fn(syn[(label, half)], syn[(label, full)]) for label in labels]

        table([
            (f"N = {half}: cold build (s)", both(lambda a, b: f"{a.get('cold'):.2f}"), ""),
            (f"N = {full}: cold build (s)", both(lambda a, b: f"{b.get('cold'):.2f}"), ""),
            (f"N = {full}: faces", both(lambda a, b: f"{b.get('faces'):.0f}"), ""),
            (f"N = {full}: cairosvg alone, 1 process (s)", both(lambda a, b: f"{b.get('bare'):.2f}"), ""),
            (f"N = {full}: build / cairosvg alone", both(lambda a, b: f"{b.get('cold') / b.get('bare'):.2f}x"),
             "<= 1.3x"),
            (f"N = {full}: CPU, build / cairosvg alone",
             both(lambda a, b: f"{b.get('cold cpu') / b.get('bare'):.2f}x"), ""),
            (f"ms a face, N = {half} / N = {full}",
             both(lambda a, b: f"{a.get('cold') / a.get('faces') * 1000:.0f}/"
                               f"{b.get('cold') / b.get('faces') * 1000:.0f}"), "linear: about equal"),
            (f"N = {full}: no-op / cold", both(lambda a, b: f"{b.get('noop') / b.get('cold'):.1%}"), "<= 10 %"),
            (f"N = {full}: peak memory (MiB)", both(lambda a, b: f"{b.get('peak'):.0f}"), "< 600"),
        ], labels)


def _version(dist: str) -> str:
    from importlib.metadata import version

    try:
        return version(dist)
    except Exception:
        return "?"


def baseline_tree(ref: str, tmp: Path) -> Tree:
    folder = tmp / "baseline"
    folder.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", ref], capture_output=True, text=True,
                            check=True).stdout.strip()
    return Tree(f"before {commit}", folder)


def byte_compile(tree: Tree) -> None:
    """Compile the tree's modules to bytecode before timing it, as installing a wheel does.

    DeckSmith runs from its installed, byte-compiled package; cardgen runs from its sources. With
    PYTHONDONTWRITEBYTECODE set (as on some CI machines and sandboxes) Python would compile every
    cardgen module again in each process of each run (the build process and the fork server:
    0.5-2 CPU s a build, measured 2026-11-26), a cost no installed cardgen pays. Python reads
    these files even with the variable set, and checks them against the sources' times."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree.root / "cardgen")], check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cards", type=int, default=1000)
    ap.add_argument("--synthetic-runs", type=int, default=1)
    ap.add_argument("--skip-synthetic", action="store_true")
    ap.add_argument("--baseline", metavar="REF", help="also measure the cardgen of this git commit (before)")
    ap.add_argument("--decksmith", metavar="PATH", help="the decksmith program (DeckSmith 0.9.9) to compare with")
    args = ap.parse_args()
    decksmith = decksmith_command(args.decksmith)
    if not adopt_orphans():
        print("warning: cannot adopt orphaned processes (not Linux?): the CPU of forked workers is not counted")
    print(f"cardgen build benchmark, {time.strftime('%Y-%m-%d %H:%M')}, {load()}, weasyprint {_version('weasyprint')}, "
          f"cairosvg {_version('cairosvg')}, DeckSmith: {decksmith or 'not found'}")
    with tempfile.TemporaryDirectory(prefix="cardgen-bench-trees-") as tmp:
        trees = ([baseline_tree(args.baseline, Path(tmp))] if args.baseline else []) + [Tree("after", ROOT)]
        for tree in trees:
            byte_compile(tree)
        figures, smith, printed = bench_31(trees, args.runs, decksmith)
        report(trees, figures, smith, printed, args.runs)
        if not args.skip_synthetic:
            print(flush=True)
            report_synthetic(trees, bench_synthetic(trees, args.cards, args.synthetic_runs), args.cards)


if __name__ == "__main__":
    main()
