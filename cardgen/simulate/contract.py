"""What cardgen's simulator asks of a game's plug-in: one hook, `simulation(snapshot)`.

The hook returns an object with the members of `Simulation` below. cardgen's runner knows only
this contract and the `GameRecord` each game returns: it seeds and seats the games, spreads them
over processes, counts them (stats.Totals), draws the report; the game's plug-in knows its rules.
"""

from __future__ import annotations

from typing import Any, Protocol, TypedDict


class GameRecord(TypedDict):
    """One played game, as plain data."""

    seats: list[str]  # the bot at each seat, first player first
    ended: bool  # a player ended the game as the rules allow
    ender: int | None  # the seat that ended it; None when a rule ended it (e.g. the last card was drawn)
    stall: str | None  # why a game did not end ("turn cap", "no end condition", ...)
    turns: int  # player turns played
    scores: list[int]
    winners: list[int]  # seats with the best score (ties share the win)
    parts: list[tuple[str, str, int, bool]]  # (card id, card type, owner seat, completed) per card in play
    series: dict[str, list[int]]  # a value at the end of each round, e.g. {"mine": [52, 47, ...]}
    events: dict[str, int | None]  # the round something first happened, or None
    tallies: dict[str, int]  # counts for the game, summed over games


class Simulation(Protocol):
    bots: tuple[str, ...]  # the names --bots accepts
    assumptions: list[str]  # where the rules are silent, what the engine chose (shown in the report)
    card_info: dict[str, dict[str, str]]  # card id -> {"name", "type"} for the cards that can be played

    def play(self, seed: str, seats: list[str], max_turns: int) -> GameRecord:
        """Play one game; the same seed and seats give the same record."""

    def figures(self, totals: Any, stats: Any) -> dict[str, Any]:
        """The game's own figures from the runner's totals (stats: cardgen.simulate.stats)."""

    def claims(self, ask: Any) -> list[dict[str, Any]]:
        """The designer's claims answered (ask: runner.ClaimContext): each a dict with
        id, version, says, figure, verdict ("true", "false" or "inconclusive") and detail."""


class SimulationPlugin(Protocol):
    """The hook a game's plug-in module (card_data/<game>/plugin.py) defines to be simulated."""

    def simulation(self, snapshot: Any) -> Simulation: ...
