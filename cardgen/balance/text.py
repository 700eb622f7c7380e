"""A balance run as text: the version as it is against the best values found, then every trial."""

from __future__ import annotations

from typing import Any

from ..simulate.text import ci, pct
from ..words import counted


def pp(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:+.1f} pp"


def pp_ci(interval) -> str:
    return "" if not interval else f" [{pp(interval[0])}, {pp(interval[1])}]"


def target_rows(score: dict[str, Any], names: dict[str, str]) -> list[tuple[str, str]]:
    rows = []
    for name, s in score["targets"].items():
        if name == "cards":
            rows.append(("cards: spread", f"{100 * (s['figure'] or 0):.1f} pp RMS over {counted(s['measured'], 'card')} "
                                          f"({s['verdict']}; {len(s['outside'])} outside)"))
            w = s["worst"]
            if w:
                rows.append(("  farthest card", f"{w['name']} {pp(w['deviation'])}: {pct(w['rate'])}{ci(w['ci'])} "
                                                f"vs {w['type']} mean {pct(w['type_mean'])}"))
        elif name == "strategies":
            st = s["strongest"]
            rows.append(("strategies", f"{st['strategy']} {pp(s['figure'])}{pp_ci(s['ci'])} above the fair share "
                                       f"({s['verdict']})"))
        elif name == "seats":
            st = s["farthest"]
            rows.append(("seats", f"seat {st['seat']} {pp(s['figure'])}{pp_ci(s['ci'])} from the fair share "
                                  f"({s['verdict']})"))
        else:
            rows.append(("length", f"{s['figure']:.2f} rounds [{s['ci'][0]:.2f}, {s['ci'][1]:.2f}] ({s['verdict']})"))
    means = score["targets"].get("cards", {}).get("type_means", {})
    for cid, c in score["cards"].items():
        mean = f" vs {c['type']} mean {pct(means[c['type']])}" if c["type"] in means else ""
        rows.append((f"  {names.get(cid, cid)}", f"{pct(c['rate'])}{ci(c['ci'])}{mean}, completed {counted(c['completed'], 'time')}"))
    rows.append(("loss", f"{score['loss']:.3f}"))
    return rows


def as_text(doc: dict[str, Any]) -> str:
    s = doc["settings"]
    lines = [f"{doc['game_name']} {s['version']}: balance search, {counted(doc['trials_done'], 'trial')} of {counted(s['games'], 'game')} "
             f"(seed {s['seed']}, {s['players']} players, bots {', '.join(s['bots'])}; study {doc['study'] or '-'})"]
    lines += [f"target {t}" for t in doc["target_text"]]
    base, best = doc["baseline"], doc["best"]
    names = doc["card_names"]
    rows = [(v["value"], str(v["current"]), str(best["values"][v["value"]])) for v in s["vary"]]
    rows += [(label, a, b) for (label, a), (_, b) in zip(target_rows(base, names), target_rows(best, names))]
    label_width = max(len(r[0]) for r in rows)
    width = max(len(r[1]) for r in rows)
    lines += ["", f"{'':<{label_width}}  {'as it is (' + s['version'] + ')':<{width}}  best (trial {best['trial']})"]
    lines += [f"{label:<{label_width}}  {a:<{width}}  {b}" for label, a, b in rows]
    lines += ["", "Trials (the search minimises the loss; a pruned trial stopped after the games shown)"]
    for t in doc["trials"]:
        values = ", ".join(f"{k}={v}" for k, v in t["values"].items())
        lines.append(f"  {t['trial']:>3}  {values:<30} loss {t['loss']:.3f}  {t['state']}"
                     + (f" after {counted(t['games'], 'game')}" if t["state"] == "pruned" else ""))
    lines.append("")
    if doc["proposal"]["changes"]:
        change = ", ".join(f"{c['value']} {c['from']} -> {c['to']}" for c in doc["proposal"]["changes"])
        lines.append(f"proposed: {change}")
    else:
        lines.append("proposed: no change (the values as they are scored best)")
    return "\n".join(lines)
