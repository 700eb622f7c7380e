"""The designer's playtest claims, each answered for a version: measured in play, or checked in the rules.

The claims come from the version notes (the designer's changes, the playtest feedback, the known
problems); each is quoted from the data when the note is there. A claim is either

- a **rule check** (`kind: "rule"`): its answer follows from the version's rules and cards alone
  (is there an end condition? does a card's overflow loop when the engine plays it?), reported
  apart from the measured claims; or
- **measured** (`kind: "measured"`): `evidence` is a named test from cardgen.simulate.stats over
  the games played (the mix of strategic bots rotated through the seats; versions and rule changes
  compared on the same seeds), and cardgen decides the verdict: "true" or "false" when the test
  rejects "no difference" after Holm's correction over the run's measured claims, "inconclusive"
  otherwise: too few finished games, games stopped by the round cap, or a difference the games do
  not separate from noise.

Beside each verdict, `rests_on` names the data choices it rests on (notes.choices: cards and values
the designer's document does not state), so a verdict that confirms an invented value says so.
"""

from __future__ import annotations

from random import Random
from typing import Any

from cardgen.simulate import stats

from .bots import make_bot
from .engine import Part, Table

MIX = ("greedy", "rush", "builder", "saboteur")


def answer_all(sim, ask) -> list[dict[str, Any]]:
    claims = (no_end, overflow_loop, rush, katana, fill_hand, forge_token, mine_runs_out)
    return [claim(sim, ask) for claim in claims]


def _claim(ask, cid: str, made_in: str, keywords: tuple[str, ...], fallback: str, *, kind: str = "measured",
           rests_on: tuple[tuple[str, ...], ...] = (), **answer) -> dict[str, Any]:
    says, where = fallback, f"version {made_in} notes"
    note = _note(ask, made_in, keywords)
    if note is not None:
        says = note
    answer.setdefault("evidence", None)
    return {"id": cid, "version": ask.version, "made_in": made_in, "says": says, "source": where, "kind": kind,
            "rests_on": _choices(ask, rests_on), **answer}


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


def _choices(ask, wanted: tuple[tuple[str, ...], ...]) -> list[dict[str, str]]:
    """The recorded data choices (notes.choices of this version and those it extends) that hold
    every keyword of one of `wanted`: what the seed does not state and a verdict rests on."""
    if not wanted:
        return []
    found = []
    for info in ask.snapshot().chain:
        for text in info.notes.choices:
            low = text.lower()
            if any(all(k.lower() in low for k in keys) for keys in wanted):
                found.append({"version": info.id, "choice": text})
    return found


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _ci(ci) -> str:
    return "" if not ci else f" [{_pct(ci[0])}, {_pct(ci[1])}]"


def _finished(fig) -> str:
    """How many games finished and how many the cap (or a deadlock) stopped: said beside every measure."""
    stopped = fig["games"] - fig["ended"]["count"]
    text = f"{fig['ended']['count']} of {fig['games']} games finished"
    if stopped:
        text += f", {stopped} stopped early ({', '.join(f'{n} {why}' for why, n in fig['ended']['stalled'].items())})"
    return text


# --- the claims ----------------------------------------------------------------------------------


def no_end(sim, ask) -> dict[str, Any]:
    """V1: "there is no way to end the game". Without an end condition in the rules it holds by the
    rules (a rule check). With one, a single game a player ended refutes it; games that never end
    cannot show that no game can (inconclusive)."""
    fig = ask.run(bots=MIX)
    ended = fig["ended"]
    rule = sim.table["rules"]["end_condition"]
    base = ("no-end", "1", ("no way to end",), "There is no way to end the game.")
    figure = f"{ended['count']} of {fig['games']} games ended ({_pct(ended['rate'])}, cap {fig['max_rounds']} rounds)"
    if not rule:
        return _claim(ask, *base, kind="rule", verdict="true", figure=figure,
                      detail="rule check: the version has no end condition (end_condition is empty), so no player "
                             "may end the game; games stop only at the cap or when nobody can act",
                      values={"ended_rate": ended["rate"], "games": fig["games"]})
    by_players = sum(s["ended_games"] for s in fig["strategies"].values())
    evidence = stats.exists(by_players, fig["games"], label="games a player ended")
    detail = (f"the rules let a player with a complete {' + '.join(rule)} end the game; "
              f"{by_players} games were ended by a player")
    return _claim(ask, *base, figure=figure, detail=detail, evidence=evidence,
                  values={"ended_rate": ended["rate"], "games": fig["games"], "ended_by_players": by_players})


def overflow_loop(sim, ask) -> dict[str, Any]:
    """V1: "one card makes a loop with overflow". A rule check: the engine plays the version's rules
    on two complete bouncing cards (probe_loops); loops met in play are reported beside it."""
    fig = ask.run(bots=MIX)
    in_games = fig["overflows"]["loops"]
    probed = probe_loops(sim)
    names = {c.id: c.name for c in sim.cards}
    seen = sum(in_games.values())
    figure = (f"rule check (engine probe): {', '.join(names.get(c, c) for c in probed) or 'no card'} loops; "
              f"in {fig['games']} games {seen} loops, {fig['overflows']['bounces']} bounces, "
              f"{fig['overflows']['per_game']:.2f} overflows per game")
    if probed:
        who = ", ".join(names.get(c, c) for c in probed)
        detail = (f"{who}: its overflow_bounce pours the overflowing metal into another forged card; two complete "
                  f"copies (or two bouncing cards) pass the metal back and forth without end")
        if not seen:
            detail += ("; in play the loop needs two bouncing cards complete, holding their trigger metal, under two "
                       "forge tokens at once, which the bots' games did not bring about")
    else:
        detail = "no card in this version bounces overflowing metal, so no overflow can chain"
    return _claim(ask, "overflow-loop", "1", ("loop",), "One card makes a loop with overflow.", kind="rule",
                  verdict="true" if probed else "false", figure=figure, detail=detail,
                  rests_on=(("loop",), ("mirror hilt",)),
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
    """V2: "rushing may be too strong": rush's wins in finished mixed games against its fair share
    (exact binomial test; each game has one rush seat when the mix fills the table)."""
    fig = ask.run(bots=MIX)
    base = ("rush", "2", ("rush",), "Rushing to the end may be too strong a strategy.")
    fair = 1 / fig["players"]
    if not sim.table["rules"]["end_condition"]:
        return _claim(ask, *base, kind="n/a", verdict="n/a", figure="games never end",
                      detail="the version has no end to rush to", values={})
    r = fig["strategies"].get("rush", {"seats": 0, "wins": 0, "win_rate": None, "ci": None, "ended_games": 0,
                                       "won_when_ending": None})
    others = {name: s for name, s in fig["strategies"].items() if name != "rush"}
    listing = ", ".join(f"{name} {_pct(s['win_rate'])}" for name, s in others.items())
    figure = (f"rush wins {_pct(r['win_rate'])}{_ci(r['ci'])} of its seats in finished games (fair share "
              f"{_pct(fair)}); {listing}; {_finished(fig)}")
    evidence = stats.rate_against_share(r["wins"], r["seats"], fair, more=True, label="rush win rate - fair share")
    detail = f"rush ended {r['ended_games']} games and won {_pct(r['won_when_ending'])} of those"
    return _claim(ask, *base, figure=figure, detail=detail, evidence=evidence,
                  values={"rush": r, "others": others, "fair": fair})


def katana(sim, ask) -> dict[str, Any]:
    """V2: "the Katana Hilt is weak": its completers' win rate in finished games against the pooled
    completers of the other cards of its type (two-proportion score test)."""
    base = ("katana", "2", ("katana",), "The Katana Hilt is weak compared with the other hilts.")
    fig = ask.run(bots=MIX)
    now = _katana_standing(fig)
    if now is None:
        return _claim(ask, *base, kind="n/a", verdict="n/a", figure="no Katana Hilt in this version", detail="",
                      values={})
    k = now["katana"]
    pooled = now["other_hilts_win_rate"]
    figure = (f"players who complete it win {_pct(k['completer_win_rate'])}{_ci(k['ci'])} of finished games "
              f"({k['completers']} completions) vs {_pct(pooled)} for the other {k['type']}s "
              f"({now['other_completers']} completions); rank {now['rank'] or '-'} of {now['of']}; {_finished(fig)}")
    evidence = stats.two_rates(now["other_wins"], now["other_completers"], k["completer_wins"], k["completers"],
                               more=True, label=f"other {k['type']}s' completers' win rate - Katana's")
    detail = ("completers of one card are not independent of each other within a game; the test treats "
              "them as independent")
    values = dict(now)
    if ask.version != "2" and "2" in ask.versions():
        then = _katana_standing(ask.run(version="2", bots=MIX))
        if then is not None:
            values["v2"] = then
            detail += (f"; in V2 its completers won {_pct(then['katana']['completer_win_rate'])}"
                       f"{_ci(then['katana']['ci'])} vs {_pct(then['other_hilts_win_rate'])} (rank "
                       f"{then['rank'] or '-'} of {then['of']})")
    return _claim(ask, *base, figure=figure, detail=detail, evidence=evidence, values=values,
                  rests_on=(("katana",),))


def _katana_standing(fig) -> dict[str, Any] | None:
    """The Katana Hilt's completers' wins against the pooled other cards of its type."""
    cards = fig["cards"]
    katana_id = next((cid for cid, c in cards.items() if "katana" in c["name"].lower()), None)
    if katana_id is None:
        return None
    k = cards[katana_id]
    wins = completers = 0.0
    ranked = []
    for cid, c in cards.items():
        if c["type"] != k["type"] or not c["completers"]:
            continue
        ranked.append((c["completer_win_rate"], cid))
        if cid != katana_id:
            wins += c["completer_wins"]
            completers += c["completers"]
    ranked.sort(reverse=True)
    rank = next((i + 1 for i, (_, cid) in enumerate(ranked) if cid == katana_id), None)
    return {"katana": k, "other_hilts_win_rate": round(wins / completers, 4) if completers else None,
            "other_wins": round(wins, 4), "other_completers": int(completers), "rank": rank, "of": len(ranked)}


def fill_hand(sim, ask) -> dict[str, Any]:
    """V3: "filling the hand makes the game quicker": rounds of the same seeds played with fill-hand
    and with take-one (the mine action and hand limit of the nearest version that draws the other
    way), paired t-test over the pairs where both games finished."""
    rules = sim.table["rules"]
    base = ("fill-hand", "3", ("fill", "hand", "quicker"), "Filling your hand from the mine makes the game quicker.")
    if not rules["end_condition"]:
        return _claim(ask, *base, kind="n/a", verdict="n/a", figure="games never end",
                      detail="without an end the game's length cannot change", values={})
    other = _other_mine_rules(ask, rules["mine_action"])
    if other is None:
        return _claim(ask, *base, kind="n/a", verdict="n/a", figure="no version draws from the mine the other way",
                      detail="", values={})
    here_fills = rules["mine_action"] == "fill_hand"
    actual, changed, pairs = ask.paired({"bots": MIX}, {"bots": MIX, "rules": other}, ("rounds",))
    fill, take = (actual, changed) if here_fills else (changed, actual)
    fill_limit = rules["hand_limit"] if here_fills else other["hand_limit"]
    take_limit = other["hand_limit"] if here_fills else rules["hand_limit"]
    f, t = fill["turns"]["rounds"], take["turns"]["rounds"]

    def rounds(d) -> str:
        return "no finished game" if not d else f"{d['mean']:.1f} rounds [{d['ci'][0]:.1f}, {d['ci'][1]:.1f}]"

    figure = (f"finished games: fill hand (limit {fill_limit}) {rounds(f)}; take one (limit {take_limit}) "
              f"{rounds(t)}; games finished {_pct(fill['ended']['rate'])} vs {_pct(take['ended']['rate'])}")
    # the claim: fill-hand games are shorter, i.e. take-one minus fill-hand rounds is positive
    evidence = stats.paired_means(pairs["rounds"], more=not here_fills,
                                  label=f"rounds: {ask.version} as published - with the other mine rules")
    detail = (f"same seeds, cards and other rules as {ask.version}, only the mine action and hand limit changed "
              f"(the V2 -> V3 change); games stopped by the cap are left out of both means and of the pairs")
    published = {}
    if ask.version in ("2", "3"):
        v2, v3 = (actual, ask.run(version="3", bots=MIX)) if ask.version == "2" else (ask.run(version="2", bots=MIX), actual)
        if v2["turns"]["rounds"] and v3["turns"]["rounds"]:
            published = {"2": v2["turns"]["rounds"]["mean"], "3": v3["turns"]["rounds"]["mean"]}
            detail += (f"; as published V2 -> V3: {published['2']:.1f} -> {published['3']:.1f} rounds "
                       f"(V3 also asks for a complete upgrade to end)")
    return _claim(ask, *base, figure=figure, detail=detail, evidence=evidence,
                  values={"fill_hand_rounds": f, "take_one_rounds": t, "published": published,
                          "other_rules": other, "pairs": pairs["rounds"]})


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
    """3.1: with the token optional "nobody could use overflow to sabotage"; now it must be on a part.
    Overflows caused by another player per finished game, token required against optional, on the
    same seeds (paired t-test)."""
    base = ("forge-token", "3.1", ("forge token", "sabotage"),
            "The forge token must always be on a sword part, so that players can sabotage with overflow.")
    current = sim.table["rules"]["forge"]
    if current not in ("token_required", "token_optional"):
        return _claim(ask, *base, kind="n/a", verdict="n/a", figure=f"this version has no forge token ({current})",
                      detail="", values={})
    other = "token_optional" if current == "token_required" else "token_required"
    actual, changed, pairs = ask.paired({"bots": MIX}, {"bots": MIX, "rules": {"forge": other}},
                                        ("sabotage_overflows",))
    required, optional = (actual, changed) if current == "token_required" else (changed, actual)
    r, o = required["overflows"], optional["overflows"]
    figure = (f"overflows caused by another player per game: token required {r['sabotage_per_game']:.2f}, "
              f"token optional {o['sabotage_per_game']:.2f}; {_finished(actual)}")
    evidence = stats.paired_means(pairs["sabotage_overflows"], more=current == "token_required",
                                  label="sabotage overflows per game: token required - optional")
    detail = (f"same seeds, cards and rules as {ask.version}, only the forge rule changed (current rule: {current}); "
              f"differences over the pairs where both games finished")
    if o["sabotage_per_game"] > 0:
        detail += "; with the token optional the bots still sabotage (nobody could, the note says)"
    return _claim(ask, *base, figure=figure, detail=detail, evidence=evidence,
                  values={"token_required": r, "token_optional": o, "pairs": pairs["sabotage_overflows"]})


def mine_runs_out(sim, ask) -> dict[str, Any]:
    """3.1: "60 metal cards never let the mine run out, even with 4 players". One game in which the
    mine ran empty refutes it; with none, it holds when the exact binomial test puts the rate below
    1% over the games that could show it (finished games: one stopped by the cap may be too short)."""
    fig = ask.run(players=4, bots=MIX)
    mine = fig["mine_exhausted"]
    when = mine["round"]
    figure = (f"the mine ran empty in {mine['games']} of {fig['games']} four-player games "
              f"({_pct(mine['rate'])}{_ci(mine['ci'])}) with {mine['mine_size']} metal cards")
    if when:
        figure += f", at round {when['mean']:.1f} on average (p10 {when['p10']}, p90 {when['p90']})"
    figure += f"; {_finished(fig)}"
    could_show = fig["ended"]["count"] + mine["games"]  # exact when it never ran empty, the case it decides
    evidence = stats.never(mine["games"], could_show, tolerance=0.01, label="games in which the mine ran empty")
    if mine["games"]:
        detail = (f"players then found an empty mine on {mine['turns_with_empty_mine_per_game']:.1f} turns per "
                  f"game on average")
    else:
        detail = "'never' is read as: in fewer than 1% of games"
    return _claim(ask, "mine-runs-out", "3.1", ("60 metal",), "60 metal cards never let the mine run out, even with 4 players.",
                  figure=figure, detail=detail, evidence=evidence, values={"mine_exhausted": mine, "games": fig["games"]},
                  rests_on=(("mine runs out",),))
