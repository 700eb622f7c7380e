"""The King's Blade's side of `cardgen simulate`: the hook object cardgen's runner plays with.

It holds the version as plain data (engine.compile_table), plays one game for a seed and a seating
(engine + bots), adds this game's own figures (the mine, overflows, loops) to the runner's
generic statistics, and answers the designer's playtest claims (claims.py).
"""

from __future__ import annotations

from random import Random
from typing import Any

from . import claims as claim_rules
from .bots import BOTS, make_bot
from .engine import CardRule, Table, UnknownEffect, compile_table


class SimulationError(Exception):
    """The version cannot be simulated (the runner shows the message as one line)."""


class KingsBladeSimulation:
    bots = BOTS

    def __init__(self, snapshot):
        try:
            self.table = compile_table(snapshot)
        except UnknownEffect as exc:  # an effect, or a rule value, the engine cannot play
            raise SimulationError(str(exc)) from None
        self.assumptions: list[str] = self.table["assumptions"]  # the rules' gaps, this version's
        self.cards = [CardRule(i, data) for i, data in enumerate(self.table["parts"])]
        self.card_info = {c.id: {"name": c.name, "type": c.type} for c in self.cards}
        self.version = snapshot.version

    def play(self, seed: str, seats: list[str], max_turns: int) -> dict[str, Any]:
        """One game: the seed fixes every shuffle and every random choice."""
        table = Table(self.table, self.cards, Random(seed), [make_bot(name) for name in seats])
        return table.play(max_turns)

    def figures(self, totals, stats) -> dict[str, Any]:
        """This game's own figures from the runner's totals (`stats` is cardgen's statistics)."""
        games = max(totals.games, 1)
        empty = totals.events.get("mine_empty", {})
        hits = sum(empty.values())
        rounds = stats.distribution(empty)
        loops = {key.split(":", 1)[1]: n for key, n in totals.tallies.items() if key.startswith("loop:")}
        return {
            "mine_exhausted": {
                "games": hits,
                "rate": hits / games,
                "ci": stats.wilson(hits, totals.games),
                "round": rounds,
                "mine_size": len(self.table["mine"]),
                "turns_with_empty_mine_per_game": totals.tallies.get("empty_mine_turns", 0) / games,
            },
            "overflows": {
                "per_game": totals.tallies.get("overflows", 0) / games,
                "sabotage_per_game": totals.tallies.get("sabotage_overflows", 0) / games,
                "sabotage_ci": totals.per_game("sabotage_overflows")["ci"],
                "bounces": totals.tallies.get("bounces", 0),
                "loops": loops,
            },
        }

    def claims(self, ask) -> list[dict[str, Any]]:
        return claim_rules.answer_all(self, ask)
