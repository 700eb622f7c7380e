"""Statistics over many simulated games: running totals that merge, the figures drawn from them,
and the tests that turn them into verdicts.

`Totals` keeps only counts (histograms, per-card tallies, per-round sums), so memory does not grow
with the number of games, and every count is an integer (a shared win is counted in units of
1/lcm(1..players)): totals merged in any order are identical, so the figures for a seed are the
same whatever the number of worker processes.

Games stopped before they ended (by the round cap, or because nobody could act) have no winner
under the rules: win rates, card strength and game length count finished games only; the games
stopped early are counted apart (`unfinished`).

Intervals and tests come from scipy and statsmodels (see docs/simulate.md for each test, its
level and its assumptions): Wilson intervals for rates, t intervals for means, the exact binomial
test for one rate against a share, the score test for two rates, the paired t-test for two runs
of the same seeds, and Holm's correction over the claims of one run (`holm`, written here:
statsmodels' own collects garbage on every call).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

ALPHA = 0.05  # the family-wise level of a run's claims (Holm)
MIN_SAMPLE = 30  # fewer finished games (or pairs, or completions) than this decide nothing
Z95 = 1.959963984540054


class Totals:
    def __init__(self, players: int):
        self.players = players
        self.unit = math.lcm(*range(1, players + 1))
        self.games = 0
        self.ended = 0  # finished games: a player or a rule ended them
        self.unfinished: Counter[int] = Counter()  # turns of the games stopped early (cap, no legal action)
        self.stalls: Counter[str] = Counter()
        self.turns: Counter[int] = Counter()
        self.seat_wins = [0] * players  # in units, finished games only (as every win below)
        self.strategy_seats: Counter[str] = Counter()
        self.strategy_wins: Counter[str] = Counter()  # in units
        self.ended_by: Counter[str] = Counter()
        self.ender_wins: Counter[str] = Counter()  # in units
        # card id -> [type, copies in play, copies completed, completers in finished games,
        #             their wins (units), games in play]
        self.cards: dict[str, list] = {}
        self.series: dict[str, list[list[int]]] = {}  # name -> [sums per round, games per round]
        self.events: dict[str, Counter[int]] = {}  # name -> round it first happened -> games
        self.tallies: Counter[str] = Counter()
        self.tally_squares: Counter[str] = Counter()  # for the interval of a per-game mean

    def add(self, record: dict[str, Any]) -> None:
        """Count one game record (see contract.GameRecord)."""
        self.games += 1
        seats = record["seats"]
        winners = record["winners"]
        share = self.unit // len(winners) if winners else 0
        finished = bool(record["ended"])
        if finished:
            self.ended += 1
            self.turns[record["turns"]] += 1
            if record["ender"] is not None:  # None: a rule ended it (the mine ran out, say), no player
                ender = seats[record["ender"]]
                self.ended_by[ender] += 1
                if record["ender"] in winners:
                    self.ender_wins[ender] += share
            for name in seats:
                self.strategy_seats[name] += 1
            for seat in winners:
                self.seat_wins[seat] += share
                self.strategy_wins[seats[seat]] += share
        else:
            self.stalls[record["stall"]] += 1
            self.unfinished[record["turns"]] += 1
        seen = set()
        for card_id, card_type, owner, completed in record["parts"]:
            row = self.cards.get(card_id)
            if row is None:
                row = self.cards[card_id] = [card_type, 0, 0, 0, 0, 0]
            row[1] += 1
            if card_id not in seen:
                seen.add(card_id)
                row[5] += 1
            if completed:
                row[2] += 1
                if finished:
                    row[3] += 1
                    if owner in winners:
                        row[4] += share
        for name, values in record["series"].items():
            sums, counts = self.series.setdefault(name, [[], []])
            if len(sums) < len(values):
                grow = len(values) - len(sums)
                sums.extend([0] * grow)
                counts.extend([0] * grow)
            k = len(values)  # one slice each, not a loop of indexes: a game adds one value per round
            sums[:k] = [a + b for a, b in zip(sums, values)]
            counts[:k] = [c + 1 for c in counts[:k]]
        for name, when in record["events"].items():
            hist = self.events.setdefault(name, Counter())
            if when is not None:
                hist[when] += 1
        tallies, squares = self.tallies, self.tally_squares
        for name, n in record["tallies"].items():
            tallies[name] += n
            squares[name] += n * n

    def merge(self, other: Totals) -> None:
        self.games += other.games
        self.ended += other.ended
        self.unfinished.update(other.unfinished)
        self.stalls.update(other.stalls)
        self.turns.update(other.turns)
        self.seat_wins = [a + b for a, b in zip(self.seat_wins, other.seat_wins)]
        self.strategy_seats.update(other.strategy_seats)
        self.strategy_wins.update(other.strategy_wins)
        self.ended_by.update(other.ended_by)
        self.ender_wins.update(other.ender_wins)
        for card_id, row in other.cards.items():
            mine = self.cards.setdefault(card_id, [row[0], 0, 0, 0, 0, 0])
            for i in range(1, 6):
                mine[i] += row[i]
        for name, (sums, counts) in other.series.items():
            my_sums, my_counts = self.series.setdefault(name, [[], []])
            grow = len(sums) - len(my_sums)
            if grow > 0:
                my_sums.extend([0] * grow)
                my_counts.extend([0] * grow)
            for i, (s, c) in enumerate(zip(sums, counts)):
                my_sums[i] += s
                my_counts[i] += c
        for name, hist in other.events.items():
            self.events.setdefault(name, Counter()).update(hist)
        self.tallies.update(other.tallies)
        self.tally_squares.update(other.tally_squares)

    def per_game(self, name: str) -> dict[str, Any]:
        """Mean per game of a tally (over every game played), with its 95% t interval."""
        return mean_ci(self.tallies.get(name, 0), self.tally_squares.get(name, 0), self.games)


# --- the figures ---------------------------------------------------------------------------------


def load_libraries() -> None:
    """Import the libraries the figures and tests below use (statsmodels, which brings scipy: about
    1.5 s of CPU), so that a caller whose games play in other processes pays for them meanwhile
    rather than after the last game (`runner.Runner.totals`)."""
    import scipy.stats  # noqa: F401
    import statsmodels.stats.proportion  # noqa: F401


def wilson(successes: float, n: int) -> list[float] | None:
    """95% Wilson score interval of a proportion (statsmodels; good for small n and rates near 0 or 1)."""
    if n <= 0:
        return None
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(successes, n, alpha=ALPHA, method="wilson")
    return [round(max(0.0, float(lo)), 4), round(min(1.0, float(hi)), 4)]


def mean_ci(total: float, squares: float, n: int, digits: int = 4) -> dict[str, Any]:
    """Mean of n values given their sum and sum of squares, with its 95% t interval (scipy)."""
    if n <= 0:
        return {"mean": None, "ci": None, "n": 0}
    mean = total / n
    if n < 2:
        return {"mean": round(mean, digits), "ci": None, "n": n}
    from scipy.stats import t

    var = max(0.0, (squares - n * mean * mean) / (n - 1))
    half = float(t.ppf(1 - ALPHA / 2, n - 1)) * math.sqrt(var / n)
    return {"mean": round(mean, digits), "ci": [round(mean - half, digits), round(mean + half, digits)], "n": n}


def distribution(hist: Counter) -> dict[str, Any] | None:
    """Mean (with a 95% t interval), p10, p50 and p90 of integer values given as a histogram."""
    n = sum(hist.values())
    if n == 0:
        return None
    total = sum(v * c for v, c in hist.items())
    squares = sum(v * v * c for v, c in hist.items())
    m = mean_ci(total, squares, n, digits=3)
    return {
        "n": n,
        "mean": m["mean"],
        "ci": m["ci"] or [m["mean"], m["mean"]],
        "p10": _percentile(hist, n, 0.10),
        "p50": _percentile(hist, n, 0.50),
        "p90": _percentile(hist, n, 0.90),
    }


def _percentile(hist: Counter, n: int, q: float) -> int:
    """The smallest value with at least q of the games at or below it."""
    target = q * n
    seen = 0
    for value in sorted(hist):
        seen += hist[value]
        if seen >= target:
            return value
    return max(hist)


def figures(totals: Totals, card_info: dict[str, dict[str, str]], min_completed: int = 30) -> dict[str, Any]:
    """The generic figures: ending, length, seats, strategies, cards (wins and length: finished games)."""
    games, unit, players = totals.games, totals.unit, totals.players
    finished = totals.ended
    rounds: Counter[int] = Counter()
    for turns, count in totals.turns.items():
        rounds[math.ceil(turns / players)] += count
    unfinished_rounds: Counter[int] = Counter()
    for turns, count in totals.unfinished.items():
        unfinished_rounds[math.ceil(turns / players)] += count
    seat = []
    for i, units in enumerate(totals.seat_wins):
        seat.append({"seat": i + 1, "rate": _rate(units / unit, finished), "ci": wilson(units / unit, finished),
                     "wins": round(units / unit, 4), "games": finished})
    strategies = {}
    for name in sorted(totals.strategy_seats):
        seats = totals.strategy_seats[name]
        wins = totals.strategy_wins[name] / unit
        ended = totals.ended_by[name]
        strategies[name] = {
            "seats": seats,
            "wins": round(wins, 4),
            "win_rate": _rate(wins, seats),
            "ci": wilson(wins, seats),
            "ended_games": ended,
            "won_when_ending": _rate(totals.ender_wins[name] / unit, ended),
        }
    cards = {}
    for card_id in sorted(totals.cards):
        ctype, copies, completed, completers, wins, in_games = totals.cards[card_id]
        info = card_info.get(card_id, {})
        cards[card_id] = {
            "name": info.get("name", card_id),
            "type": ctype,
            "taken_per_game": round(copies / games, 4) if games else 0.0,
            "games_taken": in_games,
            "completed": completed,
            "completion_rate": _rate(completed, copies),
            "completers": completers,  # in finished games
            "completer_wins": round(wins / unit, 4),
            "completer_win_rate": _rate(wins / unit, completers),
            "ci": wilson(wins / unit, completers),
        }
    for card_id, info in card_info.items():  # cards nobody took still belong in the table
        cards.setdefault(card_id, {"name": info["name"], "type": info["type"], "taken_per_game": 0.0,
                                   "games_taken": 0, "completed": 0, "completion_rate": None, "completers": 0,
                                   "completer_wins": 0, "completer_win_rate": None, "ci": None})
    ranking = {}
    for ctype in sorted({c["type"] for c in cards.values()}):
        ranked = [(c["completer_win_rate"], cid) for cid, c in cards.items()
                  if c["type"] == ctype and c["completers"] >= min_completed]
        if ranked:
            ranked.sort()
            ranking[ctype] = {"strongest": ranked[-1][1], "weakest": ranked[0][1], "min_completed": min_completed}
    series = {}
    for name, (sums, counts) in totals.series.items():
        series[name] = [{"round": i + 1, "mean": round(s / c, 3), "games": c} for i, (s, c) in enumerate(zip(sums, counts))]
    return {
        "games": games,
        "ended": {
            "count": totals.ended,
            "rate": _rate(totals.ended, games),
            "ci": wilson(totals.ended, games),
            "stalled": dict(sorted(totals.stalls.items())),
        },
        # length of the finished games; the games stopped early apart (their length is the cap's)
        "turns": {**(distribution(totals.turns) or {"n": 0}), "rounds": distribution(rounds),
                  "histogram": {str(k): v for k, v in sorted(totals.turns.items())}},
        "unfinished": {"games": games - totals.ended, "rounds": distribution(unfinished_rounds)},
        "seat_win_rate": seat,
        "strategies": strategies,
        "cards": cards,
        "card_ranking": ranking,
        "series": series,
    }


def _rate(k: float, n: int) -> float | None:
    return round(k / n, 4) if n else None


# --- tests: a claim's evidence, and the verdicts of a run's claims -------------------------------
#
# Each test returns a plain dict: `test` (its name), `n` (the sample), `effect` (what was measured,
# signed so that a positive effect is in the direction the claim states), `ci` (95% interval of
# the effect), `p` (two-sided unless the name says otherwise) and `supports` (does the effect lie on
# the claim's side). `decide` turns the p-values of one run's claims into verdicts with Holm's
# correction. A test given too little to decide returns p None and `why`: its verdict is
# "inconclusive" whatever the effect.


def too_few(test: str, why: str, **values: Any) -> dict[str, Any]:
    """Evidence that decides nothing: the verdict will be "inconclusive", with `why`."""
    return {"test": test, "n": values.pop("n", 0), "effect": None, "ci": None, "p": None, "supports": None,
            "why": why, **values}


def rate_against_share(wins: float, n: int, share: float, more: bool = True,
                       label: str = "rate - share") -> dict[str, Any]:
    """Exact binomial test (scipy.stats.binomtest, two-sided) of a rate against a fixed share.
    The claim is that the rate is above the share (`more`) or below it. A shared win counts as a
    fraction: the count is rounded to the nearest whole win for the test."""
    name = "exact binomial test (two-sided)"
    if n < MIN_SAMPLE:
        return too_few(name, f"{n} observations, fewer than {MIN_SAMPLE}", n=n)
    from scipy.stats import binomtest

    k = min(n, max(0, round(wins)))
    result = binomtest(k, n, share, alternative="two-sided")
    lo, hi = wilson(wins, n) or [0.0, 1.0]
    sign = 1 if more else -1
    effect = sign * (wins / n - share)
    ci = sorted([sign * (lo - share), sign * (hi - share)])
    return {"test": name, "n": n, "effect": round(effect, 4), "effect_label": label,
            "ci": [round(ci[0], 4), round(ci[1], 4)], "p": float(result.pvalue), "supports": effect > 0}


def rate_is_share(wins: float, n: int, share: float, label: str = "rate - share") -> dict[str, Any]:
    """A claim that a rate is a fixed share ("no advantage": a seat wins 1/players of the games).
    Exact binomial test (scipy.stats.binomtest, two-sided): a significant difference either way
    refutes the claim (`supports` is False); no significant difference leaves it "inconclusive",
    since games can show a difference but never prove there is none. The effect is rate - share."""
    evidence = rate_against_share(wins, n, share, more=True, label=label)
    if evidence.get("p") is not None:
        evidence["supports"] = False
    return evidence


def two_rates(k1: float, n1: int, k2: float, n2: int, more: bool = True,
              label: str = "rate 1 - rate 2") -> dict[str, Any]:
    """Score test for two independent proportions (statsmodels test_proportions_2indep, two-sided)
    with Newcombe's interval of the difference. The claim: rate 1 above rate 2 (`more`) or below."""
    name = "two-proportion score test (two-sided)"
    if min(n1, n2) < MIN_SAMPLE:
        return too_few(name, f"samples of {n1} and {n2}, fewer than {MIN_SAMPLE}", n=n1 + n2, n1=n1, n2=n2)
    from statsmodels.stats.proportion import confint_proportions_2indep, test_proportions_2indep

    p1, p2 = k1 / n1, k2 / n2
    if p1 == p2 and p1 in (0.0, 1.0):  # no variation at all: nothing separates them
        return too_few(name, "both rates are " + ("0" if p1 == 0 else "1"), n=n1 + n2, n1=n1, n2=n2)
    result = test_proportions_2indep(k1, n1, k2, n2, method="score", compare="diff")
    lo, hi = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff", alpha=ALPHA)
    sign = 1 if more else -1
    ci = sorted([sign * float(lo), sign * float(hi)])
    effect = sign * (p1 - p2)
    return {"test": name, "n": n1 + n2, "n1": n1, "n2": n2, "effect": round(effect, 4), "effect_label": label,
            "ci": [round(ci[0], 4), round(ci[1], 4)], "p": float(result.pvalue), "supports": effect > 0}


def paired_means(pairs: dict[str, Any], more: bool = True, label: str = "a - b") -> dict[str, Any]:
    """Paired t-test (two-sided) of the per-game differences a - b of two runs played on the same
    seeds (`pairs`: n, sum, squares of the differences), with the 95% t interval of the mean
    difference. The claim: a above b (`more`) or below."""
    name = "paired t-test on shared seeds (two-sided)"
    n = pairs["n"]
    if n < MIN_SAMPLE:
        return too_few(name, f"{n} pairs of finished games, fewer than {MIN_SAMPLE}", n=n)
    from scipy.stats import t

    mean = pairs["sum"] / n
    var = max(0.0, (pairs["squares"] - n * mean * mean) / (n - 1))
    sign = 1 if more else -1
    if var == 0:
        if mean == 0:
            return too_few(name, "every pair gave the same value", n=n)
        p = 0.0
        half = 0.0
    else:
        se = math.sqrt(var / n)
        p = float(2 * t.sf(abs(mean) / se, n - 1))
        half = float(t.ppf(1 - ALPHA / 2, n - 1)) * se
    effect = sign * mean
    return {"test": name, "n": n, "effect": round(effect, 4), "effect_label": label,
            "ci": [round(effect - half, 4), round(effect + half, 4)], "p": p, "supports": effect > 0}


def never(events: int, n: int, tolerance: float = 0.01, label: str = "games where it happened") -> dict[str, Any]:
    """A claim that something never happens. One occurrence refutes it (p = 0: an observed
    counterexample). With none, it holds when the exact one-sided binomial test (scipy) puts the
    rate below `tolerance`; n counts the games that could show it (finished games, and any game
    where it happened)."""
    if events:
        return {"test": "counterexample", "n": n, "effect": events, "effect_label": label, "ci": wilson(events, n),
                "p": 0.0, "supports": False}
    name = f"exact binomial test, one-sided: rate below {tolerance:.0%}"
    if n < MIN_SAMPLE:
        return too_few(name, f"{n} games that could show it, fewer than {MIN_SAMPLE}", n=n)
    from scipy.stats import binomtest

    p = float(binomtest(0, n, tolerance, alternative="less").pvalue)
    return {"test": name, "n": n, "effect": 0, "effect_label": label, "ci": wilson(0, n), "p": p, "supports": True}


def exists(events: int, n: int, label: str = "games where it happened") -> dict[str, Any]:
    """A claim that something cannot happen: one occurrence refutes it; none decides nothing
    (games cannot show that something is impossible: only the rules can)."""
    if events:
        return {"test": "counterexample", "n": n, "effect": events, "effect_label": label, "ci": wilson(events, n),
                "p": 0.0, "supports": False}
    return too_few("counterexample", f"it did not happen in {n} games, which cannot show it never can", n=n)


def holm(p_values: list[float], alpha: float = ALPHA) -> tuple[list[bool], list[float]]:
    """Holm's step-down correction of `p_values` at the family-wise level `alpha`: which tests it
    rejects, and the adjusted p-values (each capped at 1), in the order given. The figures of
    statsmodels' `multipletests(method="holm")` (tests/test_simulate.py holds them equal), which
    runs a full garbage collection on every call: in a process holding many objects (a balance
    search deciding each trial's claims, the test suite) that took longer than the rest of the
    verdicts."""
    n = len(p_values)
    order = sorted(range(n), key=lambda i: p_values[i])
    reject, adjusted = [False] * n, [0.0] * n
    rejecting, running = True, 0.0
    for rank, i in enumerate(order):
        tests_left = n - rank
        # statsmodels' comparison (p against alpha over the tests left), so that a p-value
        # exactly at a threshold is decided as there; every test after the first kept is kept
        rejecting = rejecting and p_values[i] <= alpha / tests_left
        reject[i] = rejecting
        running = max(running, p_values[i] * tests_left)
        adjusted[i] = min(running, 1.0)
    return reject, adjusted


def decide(claims: list[dict[str, Any]], alpha: float = ALPHA) -> list[dict[str, Any]]:
    """The verdicts of one run's claims. A rule check ("kind": "rule") keeps the verdict the rules
    gave it. A measured claim is "true" or "false" when its test rejects "no difference" at the
    family-wise level `alpha` after Holm's correction (`holm`) over every
    measured claim of the run, in the direction of its effect; otherwise "inconclusive"."""
    measured = [c for c in claims if c.get("kind", "measured") == "measured" and c.get("evidence")]
    tested = [c for c in measured if c["evidence"].get("p") is not None]
    if tested:
        reject, adjusted = holm([c["evidence"]["p"] for c in tested], alpha)
        for claim, r, p in zip(tested, reject, adjusted):
            claim["evidence"]["p_holm"] = float(p)
            claim["evidence"]["family"] = len(tested)
            if r:
                claim["verdict"] = "true" if claim["evidence"]["supports"] else "false"
            else:
                claim["verdict"] = "inconclusive"
                claim["evidence"].setdefault("why", f"not significant at {alpha:.0%} after Holm's correction "
                                                    f"over {len(tested)} claims")
    for claim in measured:
        if claim["evidence"].get("p") is None:
            claim["verdict"] = "inconclusive"
    for claim in claims:
        claim.setdefault("verdict", "inconclusive")
        claim["level"] = alpha
    return claims
