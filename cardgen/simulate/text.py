"""The simulation's figures as text for a terminal: one result, or two versions side by side."""

from __future__ import annotations

from typing import Any


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def ci(interval) -> str:
    return "" if not interval else f" [{pct(interval[0])}, {pct(interval[1])}]"


def header(r: dict[str, Any], name: str) -> str:
    changed = "".join(f", {k}={v}" for k, v in r["rules_changed"].items())
    return (f"{name} {r['version']}: {r['games']} games, {r['players']} players, bots {', '.join(r['bots'])} "
            f"(seed {r['seed']}, cap {r['max_rounds']} rounds{changed})")


def summary_rows(r: dict[str, Any]) -> list[tuple[str, str]]:
    """The summary: how many games finished, their length, then the game's own rows (its plug-in's
    summary(), kept in the result as `game_summary`)."""
    ended = r["ended"]
    stalled = ", ".join(f"{n} {why}" for why, n in ended["stalled"].items()) or "none"
    turns, rounds = r["turns"], r["turns"].get("rounds")
    if rounds:
        length = (f"{rounds['mean']:.1f} rounds, {turns['mean']:.1f} turns [{turns['ci'][0]:.1f}, {turns['ci'][1]:.1f}]; "
                  f"p10 {turns['p10']}, p90 {turns['p90']} turns (finished games)")
    else:
        length = "no game finished"
    rows = [
        ("games ended", f"{ended['count']} of {r['games']} ({pct(ended['rate'])}{ci(ended['ci'])}); stopped early: {stalled}"),
        ("game length", length),
    ]
    return rows + [(label, value) for label, value in r.get("game_summary", [])]


def claim_lines(claim: dict[str, Any]) -> list[str]:
    """One claim: its verdict and the evidence (test, sample, effect and interval, p after Holm),
    or the rule it was checked against; then the data choices it rests on."""
    lines = [f"  [{claim['verdict']}] (V{claim['made_in']}) {claim['says']}", f"      {claim['figure']}"]
    e = claim.get("evidence")
    if e:
        if e.get("p") is None:
            lines.append(f"      {e['test']}: cannot decide ({e.get('why', '')})")
        else:
            interval = f" [{e['ci'][0]:.4g}, {e['ci'][1]:.4g}]" if e.get("ci") else ""
            holm = f", Holm-adjusted p {e['p_holm']:.3g} over {e['family']} claims" if "p_holm" in e else ""
            lines.append(f"      {e['test']}, n {e['n']}: {e.get('effect_label', 'effect')} {e['effect']:.4g}{interval}, "
                         f"p {e['p']:.3g}{holm}, level {claim.get('level', 0.05):.0%}")
    if claim.get("detail"):
        lines.append(f"      {claim['detail']}")
    for choice in claim.get("rests_on", []):
        lines.append(f"      rests on a data choice (V{choice['version']}): {choice['choice']}")
    return lines


def claim_sections(claims: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Measured claims first, then the rule checks, then those the version cannot show."""
    sections = [("Playtest claims, measured in the games", [c for c in claims if c.get("kind", "measured") == "measured"]),
                ("Playtest claims, checked in the rules", [c for c in claims if c.get("kind") == "rule"]),
                ("Playtest claims this version cannot show", [c for c in claims if c.get("kind") == "n/a"])]
    return [(title, items) for title, items in sections if items]


def as_text(r: dict[str, Any], name: str) -> str:
    lines = [header(r, name), ""]
    for label, value in summary_rows(r):
        lines.append(f"{label:<15} {value}")
    lines += ["", "Win rate by seat in finished games (seat 1 plays first)"]
    for s in r["seat_win_rate"]:
        lines.append(f"  seat {s['seat']}  {pct(s['rate']):>6}{ci(s['ci'])}")
    lines += ["", "Win rate by strategy"]
    for bot, s in r["strategies"].items():
        lines.append(f"  {bot:<9} {pct(s['win_rate']):>6}{ci(s['ci'])}  ended {s['ended_games']} games, "
                     f"won {pct(s['won_when_ending'])} of those")
    lines += ["", "Cards: taken per game, completed (share of those taken), win rate of players who completed it"]
    ranking = r["card_ranking"]
    for ctype in sorted({c["type"] for c in r["cards"].values()}):
        rows = sorted(((cid, c) for cid, c in r["cards"].items() if c["type"] == ctype),
                      key=lambda item: -(item[1]["completer_win_rate"] or 0))
        for cid, c in rows:
            mark = ""
            if ranking.get(ctype, {}).get("strongest") == cid:
                mark = "  strongest " + ctype
            elif ranking.get(ctype, {}).get("weakest") == cid:
                mark = "  weakest " + ctype
            lines.append(f"  {ctype:<8} {c['name']:<22} {c['taken_per_game']:5.2f} {c['completed']:>6} "
                         f"({pct(c['completion_rate']):>6})  {pct(c['completer_win_rate']):>6}{ci(c['ci'])}{mark}")
    for title, claims in claim_sections(r.get("claims", [])):
        lines += ["", title]
        for claim in claims:
            lines += claim_lines(claim)
    return "\n".join(lines)


def compare_text(a: dict[str, Any], b: dict[str, Any], name: str) -> str:
    va, vb = a["version"], b["version"]
    lines = [(f"{name}: {va} vs {vb}, {a['games']} games each, {a['players']} players, "
              f"bots {', '.join(a['bots'])} (seed {a['seed']})"), ""]
    width = 62
    lines.append(f"{'':<15} {va:<{width}} {vb}")
    for (label, x), (_, y) in zip(summary_rows(a), summary_rows(b)):
        lines.append(f"{label:<15} {x[:width]:<{width}} {y[:width]}")
    lines += ["", "Win rate by seat"]
    for sa, sb in zip(a["seat_win_rate"], b["seat_win_rate"]):
        lines.append(f"  seat {sa['seat']:<9} {pct(sa['rate']) + ci(sa['ci']):<{width}} {pct(sb['rate']) + ci(sb['ci'])}")
    lines += ["", "Win rate by strategy"]
    for bot in a["strategies"]:
        x, y = a["strategies"][bot], b["strategies"].get(bot, {})
        lines.append(f"  {bot:<13} {pct(x['win_rate']) + ci(x['ci']):<{width}} {pct(y.get('win_rate')) + ci(y.get('ci'))}")
    lines += ["", "Cards: win rate of players who completed it"]
    ids = sorted(set(a["cards"]) | set(b["cards"]), key=lambda c: ((a["cards"].get(c) or b["cards"][c])["type"], c))
    for cid in ids:
        x, y = a["cards"].get(cid), b["cards"].get(cid)
        card = x or y
        left = f"{pct(x['completer_win_rate'])}{ci(x['ci'])}" if x else "(not in this version)"
        right = f"{pct(y['completer_win_rate'])}{ci(y['ci'])}" if y else "(not in this version)"
        lines.append(f"  {card['type']:<8} {card['name']:<22} {left:<{width - 18}} {right}")
    claims_a = {c["id"]: c for c in a.get("claims", [])}
    if claims_a:
        lines += ["", "Playtest claims"]
        for cb in b.get("claims", []):
            ca = claims_a.get(cb["id"])
            lines.append(f"  (V{cb['made_in']}) {cb['says']}")
            if ca:
                lines.append(f"      {va}: [{ca['verdict']}] {ca['figure']}")
            lines.append(f"      {vb}: [{cb['verdict']}] {cb['figure']}")
    return "\n".join(lines)
