"""Statistics over many simulated games: running totals that merge, and the figures drawn from them.

`Totals` keeps only counts (histograms, per-card tallies, per-round sums), so memory does not grow
with the number of games, and every count is an integer (a shared win is counted in units of
1/lcm(1..players)): totals merged in any order are identical, so the figures for a seed are the
same whatever the number of worker processes.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

Z95 = 1.959963984540054


class Totals:
    def __init__(self, players: int):
        self.players = players
        self.unit = math.lcm(*range(1, players + 1))
        self.games = 0
        self.ended = 0
        self.stalls: Counter[str] = Counter()
        self.turns: Counter[int] = Counter()
        self.seat_wins = [0] * players  # in units
        self.strategy_seats: Counter[str] = Counter()
        self.strategy_wins: Counter[str] = Counter()  # in units
        self.ended_by: Counter[str] = Counter()
        self.ender_wins: Counter[str] = Counter()  # in units
        # card id -> [type, copies in play, copies completed, completers, completer wins (units), games in play]
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
        share = self.unit // len(winners)
        self.turns[record["turns"]] += 1
        if record["ended"]:
            self.ended += 1
            if record["ender"] is not None:  # None: a rule ended it (the mine ran out, say), no player
                ender = seats[record["ender"]]
                self.ended_by[ender] += 1
                if record["ender"] in winners:
                    self.ender_wins[ender] += share
        else:
            self.stalls[record["stall"]] += 1
        for name in seats:
            self.strategy_seats[name] += 1
        for seat in winners:
            self.seat_wins[seat] += share
            self.strategy_wins[seats[seat]] += share
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
                row[3] += 1
                if owner in winners:
                    row[4] += share
        for name, values in record["series"].items():
            sums, counts = self.series.setdefault(name, [[], []])
            if len(sums) < len(values):
                grow = len(values) - len(sums)
                sums.extend([0] * grow)
                counts.extend([0] * grow)
            for i, v in enumerate(values):
                sums[i] += v
                counts[i] += 1
        for name, when in record["events"].items():
            hist = self.events.setdefault(name, Counter())
            if when is not None:
                hist[when] += 1
        self.tallies.update(record["tallies"])
        self.tally_squares.update({k: v * v for k, v in record["tallies"].items()})

    def merge(self, other: Totals) -> None:
        self.games += other.games
        self.ended += other.ended
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
        """Mean per game of a tally, with a 95% interval."""
        n = self.games
        if n == 0:
            return {"mean": None, "ci": None}
        total, squares = self.tallies.get(name, 0), self.tally_squares.get(name, 0)
        mean = total / n
        var = max(0.0, (squares - n * mean * mean) / max(n - 1, 1))
        half = Z95 * math.sqrt(var / n)
        return {"mean": round(mean, 4), "ci": [round(mean - half, 4), round(mean + half, 4)]}


# --- the figures ---------------------------------------------------------------------------------


def wilson(successes: float, n: int) -> list[float] | None:
    """95% Wilson score interval of a proportion (good for small n and rates near 0 or 1)."""
    if n <= 0:
        return None
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def distribution(hist: Counter) -> dict[str, Any] | None:
    """Mean (with a 95% interval), p10, p50 and p90 of integer values given as a histogram."""
    n = sum(hist.values())
    if n == 0:
        return None
    mean = sum(v * c for v, c in hist.items()) / n
    var = sum(c * (v - mean) ** 2 for v, c in hist.items()) / max(n - 1, 1)
    half = Z95 * math.sqrt(var / n)
    return {
        "n": n,
        "mean": round(mean, 3),
        "ci": [round(mean - half, 3), round(mean + half, 3)],
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
    """The generic figures: ending, length, seats, strategies, cards."""
    games, unit, players = totals.games, totals.unit, totals.players
    rounds: Counter[int] = Counter()
    for turns, count in totals.turns.items():
        rounds[math.ceil(turns / players)] += count
    seat = []
    for i, units in enumerate(totals.seat_wins):
        seat.append({"seat": i + 1, "rate": _rate(units / unit, games), "ci": wilson(units / unit, games)})
    strategies = {}
    for name in sorted(totals.strategy_seats):
        seats = totals.strategy_seats[name]
        wins = totals.strategy_wins[name] / unit
        ended = totals.ended_by[name]
        strategies[name] = {
            "seats": seats,
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
            "completer_win_rate": _rate(wins / unit, completers),
            "ci": wilson(wins / unit, completers),
        }
    for card_id, info in card_info.items():  # cards nobody took still belong in the table
        cards.setdefault(card_id, {"name": info["name"], "type": info["type"], "taken_per_game": 0.0,
                                   "games_taken": 0, "completed": 0, "completion_rate": None,
                                   "completer_win_rate": None, "ci": None})
    ranking = {}
    for ctype in sorted({c["type"] for c in cards.values()}):
        ranked = [(c["completer_win_rate"], cid) for cid, c in cards.items()
                  if c["type"] == ctype and c["completed"] >= min_completed]
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
        "turns": {**(distribution(totals.turns) or {}), "rounds": distribution(rounds),
                  "histogram": {str(k): v for k, v in sorted(totals.turns.items())}},
        "seat_win_rate": seat,
        "strategies": strategies,
        "cards": cards,
        "card_ranking": ranking,
        "series": series,
    }


def _rate(k: float, n: int) -> float | None:
    return round(k / n, 4) if n else None
