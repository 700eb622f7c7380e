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
    default_bots = ("greedy", "rush", "builder", "saboteur")  # the mix a run plays without --bots
    plot_names = ("mine",)  # its own plots (plots() below), named before any game is played

    def __init__(self, snapshot):
        try:
            self.table = compile_table(snapshot)
        except UnknownEffect as exc:  # an effect, or a rule value, the engine cannot play
            raise SimulationError(str(exc)) from None
        self.assumptions: list[str] = self.table["assumptions"]  # the rules' gaps, this version's
        self.cards = [CardRule(i, data) for i, data in enumerate(self.table["parts"])]
        self.card_info = {c.id: {"name": c.name, "type": c.type} for c in self.cards}
        self.version = snapshot.version
        # the bots hold no state of a game (their memos are per card state): one of each for every game
        self.players = {name: make_bot(name) for name in BOTS}

    def play(self, seed: str, seats: list[str], max_turns: int) -> dict[str, Any]:
        """One game: the seed fixes every shuffle and every random choice."""
        players = self.players
        table = Table(self.table, self.cards, Random(seed), [players[name] for name in seats])
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

    def summary(self, r: dict[str, Any]) -> list[tuple[str, str]]:
        """This game's rows of the summary table: the mine and overflows."""
        mine = r["mine_exhausted"]
        when = f", from round {mine['round']['mean']:.1f} on average" if mine.get("round") else ""
        interval = f" [{100 * mine['ci'][0]:.1f}%, {100 * mine['ci'][1]:.1f}%]" if mine.get("ci") else ""
        loops = r["overflows"]["loops"]
        return [
            ("mine ran empty", f"{mine['games']} games ({100 * mine['rate']:.1f}%{interval}) of {mine['mine_size']} "
                               f"metals{when}"),
            ("overflows", (f"{r['overflows']['per_game']:.2f} per game ({r['overflows']['sabotage_per_game']:.2f} by "
                           f"sabotage); loops: {', '.join(f'{c} x{n}' for c, n in loops.items()) or 'none'}")),
        ]

    def plots(self, r: dict[str, Any]) -> list[dict[str, Any]]:
        """This game's own plots, as data cardgen's report draws: the mine's size over the rounds."""
        return [{"name": "mine", "title": "Mine size over the rounds (mean of the games still running)",
                 "kind": "line", "xlabel": "round", "ylabel": "metals left in the mine", "from_zero": True,
                 "points": [[p["round"], p["mean"]] for p in r["series"].get("mine", [])]}]

    def claims(self, ask) -> list[dict[str, Any]]:
        return claim_rules.answer_all(self, ask)
