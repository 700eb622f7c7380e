"""The simulation report: one self-contained HTML page, plots drawn by matplotlib as inline SVG.

Plots: game length, seat win rates, strategy win rates, card strength (win rate of the players who
completed each card, with 95% intervals), then the game's own plots, which its plug-in describes as
data (`game_plots` in the result: a title and points per version); with two results (`--compare
A B`) each plot shows both versions. Same figures, same bytes: the SVGs carry no date and a fixed
id salt.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from ..files import plot_name
from .text import ci as ci_text
from .text import claim_sections, pct, summary_rows

COLOURS = ["#a8322d", "#2e6fa8", "#2e7d73", "#b8862b", "#7d3fb0", "#6b6b6b"]
MARKER = "cardgen simulate"  # names the writer in every file written here (which files are cardgen's: see outputs)


def _figure(width: float, height: float):
    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = "cardgen-simulate"
    matplotlib.rcParams["font.size"] = 9
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: the browser draws it, the page stays small
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]  # inline: drop the XML prolog and doctype


def _rounds_hist(r: dict[str, Any]) -> dict[int, int]:
    """Finished games by length in rounds."""
    hist: dict[int, int] = {}
    for turns, count in r["turns"]["histogram"].items():
        rounds = math.ceil(int(turns) / r["players"])
        hist[rounds] = hist.get(rounds, 0) + count
    return hist


def length_plot(results: list[dict[str, Any]]):
    fig = _figure(6.4, 3.0)
    ax = fig.add_subplot()
    for i, r in enumerate(results):
        hist = _rounds_hist(r)
        if not hist:
            continue
        xs = list(range(min(hist), max(hist) + 1))
        share = [hist.get(x, 0) / r["games"] for x in xs]
        ax.bar([x + (i - (len(results) - 1) / 2) * 0.4 for x in xs], share, width=0.4 if len(results) > 1 else 0.8,
               color=COLOURS[i], alpha=0.85, label=f"{r['version']} (mean {r['turns']['rounds']['mean']:.1f})")
    ax.set_xlabel("rounds (every player had this many turns)")
    ax.set_ylabel("share of games")
    ax.set_title("Game length (finished games)")
    ax.legend(frameon=False)
    return fig


def _bars_with_ci(ax, labels, series, title, fair=None):
    width = 0.8 / len(series)
    for i, (name, values) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(labels))]
        rates = [v[0] if v[0] is not None else 0 for v in values]
        lo = [max(0.0, r - v[1][0]) if v[1] else 0 for r, v in zip(rates, values)]
        hi = [max(0.0, v[1][1] - r) if v[1] else 0 for r, v in zip(rates, values)]
        ax.bar(xs, rates, width=width * 0.9, color=COLOURS[i], label=name, yerr=[lo, hi], capsize=3,
               error_kw={"elinewidth": 1, "ecolor": "#333333"})
    ax.set_xticks(range(len(labels)), labels)
    if fair is not None:
        ax.axhline(fair, color="#333333", linestyle="--", linewidth=0.8, label=f"fair share {fair:.0%}")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_title(title)
    ax.legend(frameon=False, fontsize=8)


def seats_plot(results: list[dict[str, Any]]):
    fig = _figure(6.4, 2.8)
    ax1, ax2 = fig.subplots(1, 2)
    labels = [f"seat {s['seat']}" for s in results[0]["seat_win_rate"]]
    series = [(r["version"], [(s["rate"], s["ci"]) for s in r["seat_win_rate"]]) for r in results]
    _bars_with_ci(ax1, labels, series, "Win rate by seat (seat 1 first)", fair=1 / results[0]["players"])
    bots = list(results[0]["strategies"])
    series = [(r["version"], [(r["strategies"].get(b, {}).get("win_rate"), r["strategies"].get(b, {}).get("ci"))
                              for b in bots]) for r in results]
    _bars_with_ci(ax2, bots, series, "Win rate by strategy", fair=1 / results[0]["players"])
    return fig


def cards_plot(r: dict[str, Any], colour_index: int = 0):
    cards = [(c["type"], c["completer_win_rate"], c["ci"], c["name"]) for c in r["cards"].values()
             if c["completer_win_rate"] is not None]
    types = sorted({c[0] for c in cards})
    cards.sort(key=lambda c: (types.index(c[0]), c[1]))
    fig = _figure(6.4, 0.22 * len(cards) + 0.9)
    ax = fig.add_subplot()
    ys = list(range(len(cards)))
    rates = [c[1] for c in cards]
    lo = [max(0.0, c[1] - c[2][0]) for c in cards]
    hi = [max(0.0, c[2][1] - c[1]) for c in cards]
    colours = [COLOURS[(types.index(c[0]) + colour_index) % len(COLOURS)] for c in cards]
    ax.barh(ys, rates, xerr=[lo, hi], color=colours, capsize=2, error_kw={"elinewidth": 0.8})
    ax.set_yticks(ys, [f"{c[3]} ({c[0]})" for c in cards])
    ax.axvline(1 / r["players"], color="#333333", linestyle="--", linewidth=0.8)
    ax.set_xlabel("win rate of the players who completed the card (95% interval)")
    ax.set_title(f"Card strength, version {r['version']}")
    return fig


def game_plot(name: str, results: list[dict[str, Any]]):
    """One of the game's own plots (its plug-in's plots(): data, not drawing), every version on it."""
    specs = [next((p for p in r.get("game_plots", []) if p["name"] == name), None) for r in results]
    first = next(p for p in specs if p is not None)
    fig = _figure(6.4, 2.8)
    ax = fig.add_subplot()
    for i, (r, spec) in enumerate(zip(results, specs)):
        if spec is None:
            continue
        xs = [p[0] for p in spec["points"]]
        ys = [p[1] for p in spec["points"]]
        if spec.get("kind") == "bar":
            width = 0.8 / len(results)
            ax.bar([j + (i - (len(results) - 1) / 2) * width for j in range(len(xs))], ys, width=width * 0.9,
                   color=COLOURS[i], label=r["version"])
            ax.set_xticks(range(len(xs)), [str(x) for x in xs])
        else:
            ax.plot(xs, ys, color=COLOURS[i], label=r["version"])
    ax.set_xlabel(first.get("xlabel", ""))
    ax.set_ylabel(first.get("ylabel", ""))
    if first.get("from_zero"):
        ax.set_ylim(bottom=0)
    ax.set_title(first["title"])
    ax.legend(frameon=False)
    return fig


def _game_plot_names(results: list[dict[str, Any]]) -> list[str]:
    names: list[str] = []
    for r in results:
        names += [p["name"] for p in r.get("game_plots", []) if p["name"] not in names]
    return names


def draw_plots(results: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The plots as matplotlib figures, titled, in the order of plot_paths. A command builds them
    once and saves each as often as it is asked for (an SVG for the report, a PNG for --plots):
    a figure saved as SVG first gives the PNG bytes of one saved alone."""
    figures = [("Game length", length_plot(results)), ("Seats and strategies", seats_plot(results))]
    figures += [(f"Card strength {r['version']}", cards_plot(r)) for r in results]
    figures += [(name, game_plot(name, results)) for name in _game_plot_names(results)]
    return figures


def plots(drawn: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    """The report's plots (`draw_plots`) as inline SVG."""
    return [(title, _svg(fig)) for title, fig in drawn]


def plot_paths(results: list[dict[str, Any]] | list[str], folder: Path, game_plots: tuple[str, ...] = ()) -> list[Path]:
    """The PNG files write_plots makes for these results (or for version names and the names of the
    game's own plots, its simulation's `plot_names`)."""
    versions = [r["version"] if isinstance(r, dict) else r for r in results]
    dicts = [r for r in results if isinstance(r, dict)]
    if dicts:
        game_plots = tuple(_game_plot_names(dicts))
    tag = "-".join(versions)
    names = [f"length-{tag}", f"seats-{tag}", *(f"cards-{v}" for v in versions), *(f"{g}-{tag}" for g in game_plots)]
    return [Path(folder) / plot_name(name) for name in names]


def write_plots(results: list[dict[str, Any]], folder: Path, dpi: int = 120,
                drawn: list[tuple[str, Any]] | None = None) -> list[Path]:
    """Every plot of the report as a PNG in `folder` (for a rulebook, a blog post, the README),
    drawn from `results` unless `draw_plots(results)` is given."""
    from ..atomic import atomic_path

    written = []
    for (_, fig), path in zip(drawn if drawn is not None else draw_plots(results), plot_paths(results, folder)):
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format="png", dpi=dpi, metadata={"Software": MARKER})
        written.append(path)
    return written


def render_report(results: list[dict[str, Any]], game_name: str, drawn: list[tuple[str, Any]] | None = None) -> str:
    """The report's HTML; its plots drawn from `results` unless `draw_plots(results)` is given."""
    env = Environment(loader=FileSystemLoader(str(Path(__file__).parent)), autoescape=select_autoescape(["j2"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = pct
    env.filters["ci"] = ci_text
    template = env.get_template("report.html.j2")
    drawn = drawn if drawn is not None else draw_plots(results)
    return template.render(game=game_name, results=results, plots=plots(drawn), marker=MARKER,
                           summaries=[summary_rows(r) for r in results], sections=claim_sections)
