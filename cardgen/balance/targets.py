"""The targets as figures with intervals: what each candidate scored, and the loss the search
minimises (each target's figure in units of its band, summed over the targets).

A verdict never says more than the intervals: "within" when every interval lies inside the band,
"outside" when one lies wholly outside it, "inconclusive" otherwise.
"""

from __future__ import annotations

import math
from typing import Any

from .plan import Target

MIN_COMPLETED = 30  # a card completed fewer times has too wide an interval to judge (as simulate's ranking)


def _verdict(intervals: list[list[float]], low: float, high: float) -> str:
    if any(ci[1] < low or ci[0] > high for ci in intervals):
        return "outside"
    if all(low <= ci[0] and ci[1] <= high for ci in intervals):
        return "within"
    return "inconclusive"


def cards(t: Target, r: dict[str, Any], varied: list[str]) -> dict[str, Any]:
    """Every card's completer win rate against its card type's mean: the spread over the deck and
    the verdict. The loss is the varied cards' own distance from their type's mean (root mean
    square, in bands): changing one card re-deals every later game, so the other cards' rates
    move by chance and would drown the one the search can steer. A varied card nobody completed
    counts as a win rate of 0 (too weak to be played)."""
    measured = [(cid, c) for cid, c in r["cards"].items() if c["completed"] >= MIN_COMPLETED]
    by_type: dict[str, list[float]] = {}
    for _, c in measured:
        by_type.setdefault(c["type"], []).append(c["completer_win_rate"])
    means = {k: sum(v) / len(v) for k, v in by_type.items()}
    varied_devs = []
    for cid in varied:
        c = r["cards"].get(cid)
        if c is not None and c["type"] in means:
            varied_devs.append((c["completer_win_rate"] or 0.0) - means[c["type"]])
    loss = math.sqrt(sum(d * d for d in varied_devs) / len(varied_devs)) / t.band if varied_devs else 1.0
    if not measured:
        return {"figure": None, "ci": None, "loss": round(loss, 4), "verdict": "inconclusive", "measured": 0,
                "unmeasured": len(r["cards"]), "worst": None, "outside": [], "type_means": {}}
    devs = [(c["completer_win_rate"] - means[c["type"]], cid, c) for cid, c in measured]
    spread = math.sqrt(sum(d * d for d, _, _ in devs) / len(devs))
    d, cid, c = max(devs, key=lambda x: (abs(x[0]), x[1]))
    mean = means[c["type"]]
    dev_cis = [[c["ci"][0] - means[c["type"]], c["ci"][1] - means[c["type"]]] for _, _, c in devs]
    outside = sorted(cid for (dd, cid, c), ci in zip(devs, dev_cis) if ci[1] < -t.band or ci[0] > t.band)
    return {
        "figure": round(spread, 4),  # the loss's figure: how far the cards lie from their type's mean
        "ci": None,  # a spread over cards has no simple interval; the worst card's is below
        "loss": round(loss, 4),
        "verdict": _verdict(dev_cis, -t.band, t.band),
        "measured": len(devs),
        "unmeasured": len(r["cards"]) - len(devs),
        "worst": {"card": cid, "name": c["name"], "type": c["type"], "rate": c["completer_win_rate"],
                  "ci": c["ci"], "type_mean": round(mean, 4), "deviation": round(d, 4)},
        "outside": outside,
        "type_means": {k: round(v, 4) for k, v in sorted(means.items())},
    }


def strategies(t: Target, r: dict[str, Any]) -> dict[str, Any]:
    """The strongest strategy's win rate above the fair share."""
    fair = 1 / r["players"]
    rows = [(s["win_rate"], name, s) for name, s in r["strategies"].items() if s["win_rate"] is not None]
    rate, name, s = max(rows, key=lambda x: (x[0], x[1]))
    return {
        "figure": round(rate - fair, 4),
        "ci": [round(s["ci"][0] - fair, 4), round(s["ci"][1] - fair, 4)],
        "loss": round(max(rate - fair, 0.0) / t.band, 4),
        "verdict": _verdict([[x["ci"][0], x["ci"][1]] for _, _, x in rows], -1.0, fair + t.band),
        "strongest": {"strategy": name, "rate": rate, "ci": s["ci"], "fair": round(fair, 4)},
    }


def seats(t: Target, r: dict[str, Any]) -> dict[str, Any]:
    """The seat farthest from the fair share."""
    fair = 1 / r["players"]
    rows = [s for s in r["seat_win_rate"] if s["rate"] is not None]
    s = max(rows, key=lambda x: (abs(x["rate"] - fair), -x["seat"]))
    dev = s["rate"] - fair
    return {
        "figure": round(dev, 4),
        "ci": [round(s["ci"][0] - fair, 4), round(s["ci"][1] - fair, 4)],
        "loss": round(abs(dev) / t.band, 4),
        "verdict": _verdict([x["ci"] for x in rows], fair - t.band, fair + t.band),
        "farthest": {"seat": s["seat"], "rate": s["rate"], "ci": s["ci"], "fair": round(fair, 4)},
    }


def length(t: Target, r: dict[str, Any]) -> dict[str, Any]:
    """Mean rounds against the range: 0 in the middle, 1 at either end."""
    rounds = r["turns"]["rounds"]
    mid, half = (t.low + t.high) / 2, (t.high - t.low) / 2
    return {
        "figure": rounds["mean"],
        "ci": rounds["ci"],
        "loss": round(abs(rounds["mean"] - mid) / half, 4),
        "verdict": _verdict([rounds["ci"]], t.low, t.high),
    }


MEASURES: dict[str, Any] = {"cards": cards, "strategies": strategies, "seats": seats, "length": length}


def _score(t: Target, r: dict[str, Any], varied: list[str]) -> dict[str, Any]:
    return cards(t, r, varied) if t.name == "cards" else MEASURES[t.name](t, r)


def measure(targets: list[Target], r: dict[str, Any], varied_cards: list[str]) -> dict[str, Any]:
    """One candidate's scores: every target, the summed loss, and the varied cards' own figures."""
    scores = {t.name: _score(t, r, varied_cards) for t in targets}
    card_rows = {}
    for cid in varied_cards:
        c = r["cards"].get(cid)
        if c is not None:
            card_rows[cid] = {"rate": c["completer_win_rate"], "ci": c["ci"], "completed": c["completed"],
                              "type": c["type"]}
    return {
        "games": r["games"],
        "loss": round(sum(s["loss"] for s in scores.values()), 4),
        "targets": scores,
        "cards": card_rows,
        "rounds": {"mean": r["turns"]["rounds"]["mean"], "ci": r["turns"]["rounds"]["ci"]},
    }
