"""The balance report: one self-contained HTML page, a plot per varied value and the search
history, drawn by matplotlib as inline SVG (no date, a fixed id salt: same figures, same bytes)."""

from __future__ import annotations

import html
import io
from typing import Any

from .text import as_text

MARKER = "cardgen balance"
COMPLETE, PRUNED, BEST = "#2e6fa8", "#b8862b", "#a8322d"


def _figure(width: float, height: float):
    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = "cardgen-balance"
    matplotlib.rcParams["font.size"] = 9
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: the page stays small
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]


def value_plot(doc: dict[str, Any], path: str):
    """Left: the varied card's completer win rate (95% interval) at each value tried; right: the loss."""
    card = path.split(".", 1)[0]
    trials = doc["trials"]
    fig = _figure(6.4, 2.8)
    left, right = fig.subplots(1, 2)
    done = [t for t in trials if t["state"] == "complete" and card in t["cards"] and t["cards"][card]["rate"] is not None]
    if done:
        xs = [t["values"][path] for t in done]
        rates = [t["cards"][card]["rate"] for t in done]
        lo = [r - t["cards"][card]["ci"][0] for r, t in zip(rates, done)]
        hi = [t["cards"][card]["ci"][1] - r for r, t in zip(rates, done)]
        left.errorbar(xs, rates, yerr=[lo, hi], fmt="o", color=COMPLETE, capsize=3, elinewidth=1)
    mean = doc["baseline"]["targets"].get("cards", {}).get("type_means", {}).get(doc["card_types"].get(card, ""))
    if mean is not None:
        band = doc["settings"]["targets"][[t["name"] for t in doc["settings"]["targets"]].index("cards")]["band"]
        left.axhspan(mean - band, mean + band, color="#dddddd", label=f"band around the type mean (as it is, {mean:.0%})")
        left.legend(frameon=False, fontsize=7)
    left.set_xlabel(path)
    left.set_ylabel("completer win rate (95% interval)")
    left.set_title(doc["card_names"].get(card, card))
    for state, colour, face in (("complete", COMPLETE, COMPLETE), ("pruned", PRUNED, "none")):
        rows = [t for t in trials if t["state"] == state]
        right.scatter([t["values"][path] for t in rows], [t["loss"] for t in rows], edgecolors=colour,
                      facecolors=face, label=state)
    best = doc["best"]
    right.scatter([best["values"][path]], [best["loss"]], marker="*", s=120, color=BEST, label="best", zorder=3)
    right.set_xlabel(path)
    right.set_ylabel("loss (lower is better)")
    right.set_title("Loss at each value tried")
    right.legend(frameon=False, fontsize=7)
    return fig


def history_plot(doc: dict[str, Any]):
    """The loss of every trial in order, and the best so far."""
    trials = doc["trials"]
    fig = _figure(6.4, 2.6)
    ax = fig.add_subplot()
    for state, colour, face in (("complete", COMPLETE, COMPLETE), ("pruned", PRUNED, "none")):
        rows = [t for t in trials if t["state"] == state]
        ax.scatter([t["trial"] for t in rows], [t["loss"] for t in rows], edgecolors=colour, facecolors=face,
                   label=f"{state} ({len(rows)})")
    best, running = [], None
    for t in trials:
        if t["state"] == "complete":
            running = t["loss"] if running is None else min(running, t["loss"])
        best.append(running)
    ax.step([t["trial"] for t in trials], best, where="post", color=BEST, label="best so far")
    ax.axhline(doc["baseline"]["loss"], color="#333333", linestyle="--", linewidth=0.8, label="as it is")
    ax.set_xlabel("trial")
    ax.set_ylabel("loss")
    ax.set_title("Search history")
    ax.legend(frameon=False, fontsize=7)
    return fig


def plots(doc: dict[str, Any]) -> list[tuple[str, str]]:
    figures = [(f"{v['value']}", value_plot(doc, v["value"])) for v in doc["settings"]["vary"]]
    figures.append(("Search history", history_plot(doc)))
    return [(title, _svg(fig)) for title, fig in figures]


def render_report(doc: dict[str, Any]) -> str:
    title = f"{doc['game_name']} {doc['settings']['version']}: balance search"
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"generator\" "
             f"content=\"{MARKER}\"><title>{html.escape(title)}</title>",
             "<style>body{font-family:sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem}"
             "pre{white-space:pre-wrap;font-size:0.8rem}figure{margin:1.5rem 0}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>"]
    for name, svg in plots(doc):
        parts.append(f"<figure class=\"plot\"><figcaption>{html.escape(name)}</figcaption>{svg}</figure>")
    parts.append(f"<h2>Figures</h2><pre>{html.escape(as_text(doc))}</pre></body></html>\n")
    return "\n".join(parts)
