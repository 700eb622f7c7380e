"""What cardgen's simulator asks of a game's plug-in: one hook, `simulation(snapshot)`.

The hook returns an object with the members of `Simulation` below. cardgen's runner knows only
this contract and the `GameRecord` each game returns: it seeds and seats the games, spreads them
over processes, counts them (stats.Totals), tests the claims (stats.decide), draws the report; the
game's plug-in knows its rules, its vocabulary, its own summary rows, plots and claims.
Only `bots`, `card_info` and `play` are required; every other member may be left out (no
figures, rows, plots or claims of the game's own). docs/simulate.md shows a whole small game.
"""

from __future__ import annotations

from typing import Any, Protocol, TypedDict


class GameRecord(TypedDict):
    """One played game, as plain data."""

    seats: list[str]  # the bot at each seat, first player first
    ended: bool  # the game finished as the rules say (a player or a rule ended it)
    ender: int | None  # the seat that ended it; None when a rule ended it (e.g. the last card was drawn)
    stall: str | None  # why a game did not finish ("turn cap", "no legal action", ...)
    turns: int  # player turns played
    scores: list[int]
    winners: list[int]  # seats with the best score (ties share the win); counted for finished games only
    parts: list[tuple[str, str, int, bool]]  # (card id, card type, owner seat, completed) per card in play
    series: dict[str, list[int]]  # a value at the end of each round, e.g. {"mine": [52, 47, ...]}
    events: dict[str, int | None]  # the round something first happened, or None
    tallies: dict[str, int]  # counts for the game, summed over games (and compared by paired runs)


class PlotSpec(TypedDict, total=False):
    """One of the game's own plots, as data: cardgen's report draws it, every compared version on it."""

    name: str  # file name part: simulate-<name>-<versions>.png
    title: str
    kind: str  # "line" or "bar"
    xlabel: str
    ylabel: str
    from_zero: bool  # the y axis starts at 0
    points: list[list[float]]  # [x, y] pairs


class Simulation(Protocol):
    bots: tuple[str, ...]  # the names --bots accepts
    default_bots: tuple[str, ...]  # the mix a run plays without --bots (optional: all of `bots`)
    assumptions: list[str]  # where the version's rules are silent, what was played (shown in the report)
    card_info: dict[str, dict[str, str]]  # card id -> {"name", "type"} for the cards that can be played
    plot_names: tuple[str, ...]  # the names of plots() below, known before any game is played

    def play(self, seed: str, seats: list[str], max_turns: int) -> GameRecord:
        """Play one game; the same seed and seats give the same record."""

    def figures(self, totals: Any, stats: Any) -> dict[str, Any]:
        """The game's own figures from the runner's totals (stats: cardgen.simulate.stats)."""

    def summary(self, result: dict[str, Any]) -> list[tuple[str, str]]:
        """The game's own rows of the summary table (label, text), from the result's figures."""

    def plots(self, result: dict[str, Any]) -> list[PlotSpec]:
        """The game's own plots, as data."""

    def claims(self, ask: Any) -> list[dict[str, Any]]:
        """The designer's claims (ask: runner.ClaimContext), each a dict with id, version, made_in,
        says, figure, detail, rests_on (data choices: [{"version", "choice"}]) and kind:
        "measured" with `evidence` from a stats test (cardgen decides the verdict, Holm-corrected
        over the run), "rule" with the verdict the rules give, or "n/a"."""


class SimulationPlugin(Protocol):
    """The hook a game's plug-in module (card_data/<game>/plugin.py) defines to be simulated."""

    def simulation(self, snapshot: Any) -> Simulation: ...


def measured_claim(ask: Any, cid: str, says: str, *, figure: str, evidence: dict[str, Any],
                   rests_on: tuple[tuple[str, ...], ...] = (), made_in: str = "1") -> dict[str, Any]:
    """A claim a plug-in measured, in the shape `claims()` returns: `evidence` from
    cardgen.simulate.stats, and the version chain's notes.choices that contain every keyword of
    one of the `rests_on` groups (the data choices the verdict rests on)."""
    found = []
    for info in ask.snapshot().chain:
        for text in info.notes.choices:
            if any(all(k.lower() in text.lower() for k in keys) for keys in rests_on):
                found.append({"version": info.id, "choice": text})
    return {"id": cid, "version": ask.version, "made_in": made_in, "says": says, "source": "a designer's question",
            "kind": "measured", "figure": figure, "detail": "", "rests_on": found, "values": {}, "evidence": evidence}
