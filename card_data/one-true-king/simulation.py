"""One True King's side of `cardgen simulate`: the hook object cardgen's runner plays with.

It holds the version as plain data (engine.compile_table), plays one game for a seed and a seating
(engine + bots), adds this game's own figures (the set-up, how games end, the armies) to the
runner's generic ones, draws its own plots as data and answers a designer's questions as claims.
Seat 1 is the player without the set-up advantage, who places their King first and moves first.
A number card "completed" in the generic card table is a card of the field still standing at the
end of the game.
"""

from __future__ import annotations

from random import Random
from typing import Any

from .bots import BOTS, make_bot
from .engine import Game, RuleError, compile_table

ENDINGS = {"end:king_by_card": "a card took the King", "end:king_by_king": "King killed King",
           "end:king_lost_attacking": "a King fell attacking"}


class SimulationError(Exception):
    """The version cannot be simulated (the runner shows the message as one line)."""


class OneTrueKingSimulation:
    bots = BOTS
    default_bots = ("greedy", "random")
    plot_names = ("advantage", "field")
    assumptions: list[str] = []  # version 1 states every table rule the engine plays

    def __init__(self, snapshot):
        try:
            self.table = compile_table(snapshot)
        except RuleError as exc:
            raise SimulationError(str(exc)) from None
        self.card_info = {cid: {"name": name, "type": "number"}
                          for cid, name in zip(self.table["ids"][:self.table["numbers"]],
                                               self.table["names"][:self.table["numbers"]])}
        self.version = snapshot.version

    def play(self, seed: str, seats: list[str], max_turns: int) -> dict[str, Any]:
        return Game(self.table, Random(seed), [make_bot(name) for name in seats]).play(seats, max_turns)

    def figures(self, totals, stats) -> dict[str, Any]:
        games = max(totals.games, 1)
        finished = totals.ended
        by_diff: dict[int, list[int]] = {}
        for key, n in totals.tallies.items():
            if key.startswith("diff:"):
                _, d, what = key.split(":")
                row = by_diff.setdefault(int(d), [0, 0])
                row[0 if what == "games" else 1] += n
        ran_out = totals.tallies.get("spares_ran_out", 0)
        return {
            "set_up": {
                "overwrites_per_game": totals.per_game("overwrites"),
                "start_difference": totals.per_game("start_difference"),
                "equal_sums_games": totals.tallies.get("equal_sums", 0),
                "spares_ran_out": {"games": ran_out, "rate": ran_out / games, "ci": stats.wilson(ran_out, totals.games)},
                "limit": self.table["limit"], "spare_cards": self.table["spare"],
            },
            "endings": {label: {"games": totals.tallies.get(key, 0),
                                "rate": totals.tallies.get(key, 0) / finished if finished else None}
                        for key, label in ENDINGS.items()},
            "army_wins": {name: {"wins": totals.tallies.get(f"win:{army}", 0),
                                 "rate": totals.tallies.get(f"win:{army}", 0) / finished if finished else None,
                                 "ci": stats.wilson(totals.tallies.get(f"win:{army}", 0), finished)}
                          for army, name in zip(self.table["armies"], self.table["army_names"])},
            "attacks_per_game": totals.per_game("attacks"),
            "attacks_won_per_game": totals.per_game("attacks_won"),
            "advantage_by_difference": [{"difference": d, "games": g, "advantaged_wins": w,
                                         "rate": w / g if g else None, "ci": stats.wilson(w, g)}
                                        for d, (g, w) in sorted(by_diff.items())],
        }

    def summary(self, r: dict[str, Any]) -> list[tuple[str, str]]:
        s = r["set_up"]
        ran = s["spares_ran_out"]
        ends = "; ".join(f"{label} {e['games']}" for label, e in r["endings"].items())
        armies = ", ".join(f"{name} {100 * a['rate']:.1f}%" if a["rate"] is not None else f"{name} -"
                           for name, a in r["army_wins"].items())
        return [
            ("set-up", f"{s['overwrites_per_game']['mean']:.2f} overwrites per game; difference at the start "
                       f"{s['start_difference']['mean']:.1f} on average; the {s['spare_cards']} spare cards ran out "
                       f"above the limit of {s['limit']} in {ran['games']} games ({100 * ran['rate']:.1f}%)"),
            ("how games end", ends),
            ("attacks", f"{r['attacks_per_game']['mean']:.1f} per game, {r['attacks_won_per_game']['mean']:.1f} won"),
            ("wins by army", armies),
        ]

    def plots(self, r: dict[str, Any]) -> list[dict[str, Any]]:
        rows = [row for row in r["advantage_by_difference"] if row["games"] >= 10]
        return [
            {"name": "advantage", "title": "Win rate of the player with the advantage, by the difference at the start",
             "kind": "bar", "xlabel": "their sum minus the other's, after overwriting (10+ finished games)",
             "ylabel": "win rate", "from_zero": True,
             "points": [[row["difference"], row["rate"]] for row in rows]},
            {"name": "field", "title": "Cards still fighting on the field (mean of the games still running)",
             "kind": "line", "xlabel": "round", "ylabel": "face-up number cards", "from_zero": True,
             "points": [[p["round"], p["mean"]] for p in r["series"].get("field", [])]},
        ]

    def claims(self, ask) -> list[dict[str, Any]]:
        from .claims import answer_all

        return answer_all(self, ask)
