"""The designer's playtest claims, each answered with a figure and a verdict for a version.

The claims come from the version notes (the designer's changes, the playtest feedback, the known
problems); each is quoted from the data when the note is there. Every answer is measured: games
played with a mix of the strategic bots (rotated through the seats), counterfactual runs with one
rule changed, and for the overflow loop a probe of the engine itself. Verdicts are "true",
"false", "inconclusive" (the figures do not separate at 95%) or "n/a" (the version cannot show it).
"""

from __future__ import annotations

from random import Random
from typing import Any

from .bots import make_bot
from .engine import Part, Table

MIX = ("greedy", "rush", "builder", "saboteur")


def answer_all(sim, ask) -> list[dict[str, Any]]:
    claims = (no_end, overflow_loop, rush, katana, fill_hand, forge_token, mine_runs_out)
    return [claim(sim, ask) for claim in claims]


def _claim(ask, cid: str, made_in: str, keywords: tuple[str, ...], fallback: str, **answer) -> dict[str, Any]:
    says, where = fallback, f"version {made_in} notes"
    note = _note(ask, made_in, keywords)
    if note is not None:
        says = note
    return {"id": cid, "version": ask.version, "made_in": made_in, "says": says, "source": where, **answer}


def _note(ask, version: str, keywords: tuple[str, ...]) -> str | None:
    if version not in ask.versions():  # a project without that version: the plug-in's wording
        return None
    notes = ask.snapshot(version).info.notes
    texts = list(notes.problems) + list(notes.changes)
    if notes.feedback:
        texts += list(notes.feedback.negative) + list(notes.feedback.ideas)
    for text in texts:
        if all(k.lower() in text.lower() for k in keywords):
            return text
    return None


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _ci(ci) -> str:
    return "" if not ci else f" [{_pct(ci[0])}, {_pct(ci[1])}]"


# --- the claims ----------------------------------------------------------------------------------


def no_end(sim, ask) -> dict[str, Any]:
    fig = ask.run(bots=MIX)
    ended = fig["ended"]
    rule = sim.table["rules"]["end_condition"]
    stalled = ", ".join(f"{n} {why}" for why, n in ended["stalled"].items()) or "none"
    if not rule:
        verdict = "true" if ended["count"] == 0 else "false"
        detail = (f"the version has no end condition: games stop only at the cap of {fig['max_rounds']} rounds "
                  f"or when no player has a legal action (stalled: {stalled})")
    else:
        verdict = "false"
        detail = f"the game ends with a complete {' + '.join(rule)}; stalled: {stalled}"
    return _claim(ask, "no-end", "1", ("no way to end",), "There is no way to end the game.",
                  figure=f"{ended['count']} of {fig['games']} games ended ({_pct(ended['rate'])})",
                  verdict=verdict, detail=detail, values={"ended_rate": ended["rate"], "games": fig["games"]})


def overflow_loop(sim, ask) -> dict[str, Any]:
    fig = ask.run(bots=MIX)
    in_games = fig["overflows"]["loops"]
    probed = probe_loops(sim)
    names = {c.id: c.name for c in sim.cards}
    looping = sorted(set(probed) | set(in_games))
    if looping:
        verdict = "true"
        who = ", ".join(names.get(c, c) for c in looping)
        detail = (f"{who}: its overflow_bounce pours the overflowing metal into another forged card; two "
                  f"complete copies (or two bouncing cards) pass the metal back and forth without end")
    else:
        verdict = "false"
        detail = "no card in this version bounces overflowing metal, so no overflow can chain"
    seen = sum(in_games.values())
    figure = (f"engine probe: {', '.join(names.get(c, c) for c in probed) or 'no card'} loops; in "
              f"{fig['games']} games {seen} loops, {fig['overflows']['bounces']} bounces, "
              f"{fig['overflows']['per_game']:.2f} overflows per game")
    if probed and not seen:
        detail_extra = ("; in play the loop needs two bouncing cards complete, holding their trigger metal, "
                        "under two forge tokens at once, which the bots' games did not bring about")
    else:
        detail_extra = ""
    return _claim(ask, "overflow-loop", "1", ("loop",), "One card makes a loop with overflow.",
                  figure=figure, verdict=verdict, detail=detail + detail_extra,
                  values={"probe": probed, "loops_in_games": in_games, "games": fig["games"]})


def probe_loops(sim) -> list[str]:
    """Cards whose overflow, played by the engine, never stops: two complete bouncing cards in
    two forges, each holding the metal that switches the bounce on, and one pour."""
    copies: dict[int, int] = {}
    for index in sim.table["blades"] + sim.table["market"]:
        copies[index] = copies.get(index, 0) + 1
    bouncers = [c for c in sim.cards if c.ability.get("overflow_bounce")]
    found = []
    for card in bouncers:
        partners = [c for c in bouncers if c is not card or copies.get(card.index, 0) >= 2]
        for partner in partners:
            table = Table(sim.table, sim.cards, Random(0), [make_bot("greedy"), make_bot("greedy")])
            forged = []
            for player, rule in zip(table.players, (card, partner)):
                trigger = (rule.ability["overflow_bounce"][0][0] & -rule.ability["overflow_bounce"][0][0]).bit_length() - 1
                part = Part(rule, player.seat)
                while not part.complete:
                    part.metals.append(trigger)
                    part.refresh()
                player.parts, player.token = [part], part
                forged.append((part, trigger))
            first = table.players[0]
            first.hand = [forged[1][1]]
            table.pour(first, 0, forged[1][0])
            if table.loops:
                found.append(card.id)
                break
    return found


def rush(sim, ask) -> dict[str, Any]:
    fig = ask.run(bots=MIX)
    strategies = fig["strategies"]
    fair = 1 / fig["players"]
    r = strategies["rush"]
    others = {name: s for name, s in strategies.items() if name != "rush"}
    listing = ", ".join(f"{name} {_pct(s['win_rate'])}" for name, s in others.items())
    figure = f"rush wins {_pct(r['win_rate'])}{_ci(r['ci'])} of its seats (fair share {_pct(fair)}); {listing}"
    if not sim.table["rules"]["end_condition"]:
        verdict, detail = "n/a", "the version has no end to rush to"
    else:
        lo, hi = r["ci"]
        best_other = max(others.values(), key=lambda s: s["win_rate"])
        if lo > fair and all(lo > s["ci"][1] for s in others.values()):
            verdict, detail = "true", "rushing wins significantly more than its fair share and than every other strategy"
        elif hi < fair or best_other["ci"][0] > hi:
            verdict, detail = "false", "rushing wins significantly less than another strategy or than its fair share"
        else:
            verdict, detail = "inconclusive", "rushing is not separated from the other strategies at 95%"
        detail += f"; rush ended {r['ended_games']} games and won {_pct(r['won_when_ending'])} of those"
    return _claim(ask, "rush", "2", ("rush",), "Rushing to the end may be too strong a strategy.",
                  figure=figure, verdict=verdict, detail=detail,
                  values={"rush": r, "others": others, "fair": fair})


def katana(sim, ask) -> dict[str, Any]:
    base = ("katana", "2", ("katana",), "The Katana Hilt is weak compared with the other hilts.")
    now = _katana_standing(ask.run(bots=MIX))
    if now is None:
        return _claim(ask, *base, figure="no Katana Hilt in this version", verdict="n/a", detail="", values={})
    k, pooled = now["katana"], now["other_hilts_win_rate"]
    figure = (f"players who complete it win {_pct(k['completer_win_rate'])}{_ci(k['ci'])} vs {_pct(pooled)} for the "
              f"other {k['type']}s; rank {now['rank'] or '-'} of {now['of']}; completed {k['completed']} times "
              f"({_pct(k['completion_rate'])} of those taken)")
    if not k["ci"] or pooled is None or k["completed"] < 30:
        verdict, detail = "inconclusive", "too few completed Katana Hilts to judge"
    elif k["ci"][1] < pooled:
        verdict, detail = "true", f"significantly below the other {k['type']}s"
    elif k["ci"][0] > pooled:
        verdict, detail = "false", f"significantly above the other {k['type']}s"
    else:
        verdict, detail = "false", f"not significantly weaker than the other {k['type']}s (the interval holds their rate)"
    values = dict(now)
    if ask.version != "2" and "2" in ask.versions():
        then = _katana_standing(ask.run(version="2", bots=MIX))
        if then is not None:
            values["v2"] = then
            detail += (f"; in V2 its completers won {_pct(then['katana']['completer_win_rate'])}"
                       f"{_ci(then['katana']['ci'])} vs {_pct(then['other_hilts_win_rate'])} (rank "
                       f"{then['rank'] or '-'} of {then['of']})")
    return _claim(ask, *base, figure=figure, verdict=verdict, detail=detail, values=values)


def _katana_standing(fig) -> dict[str, Any] | None:
    """The Katana Hilt's completers' win rate against the pooled other cards of its type."""
    cards = fig["cards"]
    katana_id = next((cid for cid, c in cards.items() if "katana" in c["name"].lower()), None)
    if katana_id is None:
        return None
    k = cards[katana_id]
    wins = completers = 0.0
    ranked = []
    for cid, c in cards.items():
        if c["type"] != k["type"] or not c["completed"]:
            continue
        ranked.append((c["completer_win_rate"], cid))
        if cid != katana_id:
            wins += c["completer_win_rate"] * c["completed"]
            completers += c["completed"]
    ranked.sort(reverse=True)
    rank = next((i + 1 for i, (_, cid) in enumerate(ranked) if cid == katana_id), None)
    return {"katana": k, "other_hilts_win_rate": round(wins / completers, 4) if completers else None,
            "rank": rank, "of": len(ranked)}


def fill_hand(sim, ask) -> dict[str, Any]:
    rules = sim.table["rules"]
    base = ("fill-hand", "3", ("fill", "hand", "quicker"), "Filling your hand from the mine makes the game quicker.")
    if not rules["end_condition"]:
        return _claim(ask, *base, figure="games never end", verdict="n/a",
                      detail="without an end the game's length cannot change", values={})
    other = _other_mine_rules(ask, rules["mine_action"])
    if other is None:
        return _claim(ask, *base, figure="no version draws from the mine the other way", verdict="n/a",
                      detail="", values={})
    actual = ask.run(bots=MIX)
    changed = ask.run(bots=MIX, rules=other)
    fill, take = (actual, changed) if rules["mine_action"] == "fill_hand" else (changed, actual)
    fill_hand_limit = rules["hand_limit"] if rules["mine_action"] == "fill_hand" else other["hand_limit"]
    take_hand_limit = other["hand_limit"] if rules["mine_action"] == "fill_hand" else rules["hand_limit"]
    f, t = fill["turns"]["rounds"], take["turns"]["rounds"]
    figure = (f"fill hand (limit {fill_hand_limit}): {f['mean']:.1f} rounds [{f['ci'][0]:.1f}, {f['ci'][1]:.1f}]; "
              f"take one (limit {take_hand_limit}): {t['mean']:.1f} rounds [{t['ci'][0]:.1f}, {t['ci'][1]:.1f}]; "
              f"games ended {_pct(fill['ended']['rate'])} vs {_pct(take['ended']['rate'])}")
    if f["ci"][1] < t["ci"][0]:
        verdict = "true"
    elif f["ci"][0] > t["ci"][1]:
        verdict = "false"
    else:
        verdict = "inconclusive"
    detail = (f"same cards and other rules as {ask.version}, only the mine action and hand limit changed "
              f"(the V2 -> V3 change)")
    published = {}
    if ask.version in ("2", "3"):
        v2, v3 = (actual, ask.run(version="3", bots=MIX)) if ask.version == "2" else (ask.run(version="2", bots=MIX), actual)
        published = {"2": v2["turns"]["rounds"]["mean"], "3": v3["turns"]["rounds"]["mean"]}
        detail += (f"; as published V2 -> V3: {published['2']:.1f} -> {published['3']:.1f} rounds "
                   f"(V3 also asks for a complete upgrade to end)")
    return _claim(ask, *base, figure=figure, verdict=verdict, detail=detail,
                  values={"fill_hand_rounds": f, "take_one_rounds": t, "published": published,
                          "other_rules": other})


def _other_mine_rules(ask, mine_action: str) -> dict[str, Any] | None:
    """The mine rules of the nearest version that draws the other way (V2 <-> V3 for the seed)."""
    versions = ask.versions()
    here = versions.index(ask.version) if ask.version in versions else len(versions)
    by_distance = sorted(range(len(versions)), key=lambda i: (abs(i - here), -i))
    for i in by_distance:
        rules = ask.snapshot(versions[i]).rules
        if rules.get("mine_action") not in (None, mine_action) and rules.get("hand_limit") is not None:
            return {"mine_action": rules["mine_action"], "hand_limit": rules["hand_limit"]}
    return None


def forge_token(sim, ask) -> dict[str, Any]:
    """3.1: with the token optional "nobody could use overflow to sabotage"; now it must be on a part."""
    base = ("forge-token", "3.1", ("forge token", "sabotage"),
            "The forge token must always be on a sword part, so that players can sabotage with overflow.")
    current = sim.table["rules"]["forge"]
    other = "token_optional" if current == "token_required" else "token_required"
    actual = ask.run(bots=MIX)
    changed = ask.run(bots=MIX, rules={"forge": other})
    required, optional = (actual, changed) if current == "token_required" else (changed, actual)
    r, o = required["overflows"], optional["overflows"]
    figure = (f"overflows caused by another player per game: token required {r['sabotage_per_game']:.2f} "
              f"[{r['sabotage_ci'][0]:.2f}, {r['sabotage_ci'][1]:.2f}], token optional {o['sabotage_per_game']:.2f} "
              f"[{o['sabotage_ci'][0]:.2f}, {o['sabotage_ci'][1]:.2f}]")
    if r["sabotage_ci"][0] > o["sabotage_ci"][1]:
        verdict = "true"
        detail = "requiring the token makes sabotage significantly more frequent"
    elif r["sabotage_ci"][1] < o["sabotage_ci"][0]:
        verdict, detail = "false", "requiring the token makes sabotage rarer"
    else:
        verdict, detail = "inconclusive", "the two rules are not separated at 95%"
    if o["sabotage_per_game"] > 0:
        detail += ("; with the token optional players still sabotage (the claim that nobody could does not hold "
                   "for these bots)") if verdict != "false" else ""
    detail += f" (same cards and rules as {ask.version}, only the forge rule changed; current rule: {current})"
    return _claim(ask, *base, figure=figure, verdict=verdict, detail=detail,
                  values={"token_required": r, "token_optional": o})


def mine_runs_out(sim, ask) -> dict[str, Any]:
    fig = ask.run(players=4, bots=MIX)
    mine = fig["mine_exhausted"]
    when = mine["round"]
    figure = (f"the mine ran empty in {mine['games']} of {fig['games']} four-player games "
              f"({_pct(mine['rate'])}{_ci(mine['ci'])}) with {mine['mine_size']} metal cards")
    if when:
        figure += f", at round {when['mean']:.1f} on average (p10 {when['p10']}, p90 {when['p90']})"
    if mine["games"] == 0:
        verdict = "true"
        detail = f"never in {fig['games']} games (at 95% the rate is at most {_pct(mine['ci'][1])})"
    else:
        verdict = "false"
        detail = (f"players then found an empty mine on {mine['turns_with_empty_mine_per_game']:.1f} turns per "
                  f"game on average")
    return _claim(ask, "mine-runs-out", "3.1", ("60 metal",), "60 metal cards never let the mine run out, even with 4 players.",
                  figure=figure, verdict=verdict, detail=detail, values={"mine_exhausted": mine, "games": fig["games"]})
