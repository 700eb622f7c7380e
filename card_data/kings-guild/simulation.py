"""The King's Guild's side of `cardgen simulate`: the hook object cardgen's runner plays with.

It holds the version as plain data (engine.compile_table), plays one game for a seed and a seating
(engine + bots), adds the game's own figures (points per scoring source, wins per Guild, the
actions, the Funeral, the Offering, the price drop) and plots, and answers a designer's questions
as claims. Seat 1 plays first. In the generic card table a Guild, a Mission, a Room or a Specialist
is "completed" by the player who holds it at the end: the table reads as "what the winners held".
"""

from __future__ import annotations

from random import Random
from typing import Any

from .bots import BOTS, make_bot
from .engine import UNIT, Game, RuleError, compile_table

SOURCE_LABELS = {"charms": "Charms", "charms_majority": "Charms majority", "relics": "Relics",
                 "treasures": "Treasures face down", "missions": "Missions", "specialists": "Specialists",
                 "rooms": "Rooms", "offering": "Offering's Seal"}
ACTIONS = {"action:gather": "Gather", "action:craft": "Craft", "action:expand": "Expand"}


class SimulationError(Exception):
    """The version cannot be simulated (the runner shows the message as one line)."""


class KingsGuildSimulation:
    bots = BOTS
    default_bots = ("greedy", "builder")
    plot_names = ("sources", "guilds", "missions")
    assumptions = [
        "A double Mission is paid whole in one Craft action (both sets, two Treasures): Seals go only on the Offering.",
        "When the Offering is drawn, every player, starting with the next, plays one last turn (the one who drew it last).",
        "A Treasure deck that runs out is refilled by shuffling its discards; Treasures kept face down for points stay out.",
        "Specialists are not tied to a place: a player holds as many as their Guild Hall's and Rooms' places "
        "(so Maestro di Casa's move changes nothing).",
        "A Specialist of phase Espandersi that gives coins pays them at each Expand action.",
        "A bonus place's reward is read from its symbol's name (2 monete, 2 punti vittoria, Un Tesoro blu).",
        "The Funeral's winner places the Statue next to a Room if there is room, beside the board otherwise.",
        "Over the hand limit, the Treasure worth least to the bot is discarded (for its power when it has one).",
    ]

    def __init__(self, snapshot):
        try:
            self.table = compile_table(snapshot)
        except RuleError as exc:
            raise SimulationError(str(exc)) from None
        self.version = snapshot.version
        self.guild_names = {g: info["name"] for g, info in self.table["guilds"].items()}
        self.card_info: dict[str, dict[str, str]] = {}
        for card in snapshot.cards:
            if card.type in ("gilda", "missione", "specialista", "stanza"):
                self.card_info[card.id] = {"name": card.name, "type": card.type}

    def play(self, seed: str, seats: list[str], max_turns: int) -> dict[str, Any]:
        try:
            return Game(self.table, Random(seed), [make_bot(name) for name in seats]).play(seats, max_turns)
        except RuleError as exc:
            raise SimulationError(str(exc)) from None

    def figures(self, totals, stats) -> dict[str, Any]:
        tl = totals.tallies
        finished = totals.ended
        players = totals.players
        actions = {label: totals.per_game(key) for key, label in ACTIONS.items()}
        guilds = {}
        for gid, name in self.guild_names.items():
            games = tl.get(f"guild:{gid}:games", 0)
            wins = tl.get(f"guild:{gid}:wins", 0) / UNIT
            guilds[name] = {"id": gid, "games": games, "wins": wins, "rate": wins / games if games else None,
                            "ci": stats.wilson(wins, games)}
        seats = finished * players
        return {
            "points": {label: {"per_player": tl.get(f"points:{key}", 0) / seats if seats else None}
                       for key, label in SOURCE_LABELS.items()},
            "winner_points": tl.get("winner_points", 0) / finished if finished else None,
            "guild_wins": guilds,
            "actions": actions,
            "missions_per_game": {"double": totals.per_game("double_missions")},
            "funeral": {"won": tl.get("funeral:won", 0), "nobody": tl.get("funeral:nobody", 0),
                        "mean_bid": tl.get("funeral:bid", 0) / tl["funeral:won"] if tl.get("funeral:won") else None},
            "offering": {"seals_per_game": totals.per_game("offering_seals")},
            "specialists": {"hired_per_game": totals.per_game("specialists_hired"),
                            "full_price_per_game": totals.per_game("full_price"),
                            "dropped_per_game": totals.per_game("specialists_dropped")},
            "rooms_per_game": totals.per_game("rooms_built"),
            "treasures": {"powers_per_game": totals.per_game("treasure_powers"),
                          "for_coins_per_game": totals.per_game("treasure_coins"),
                          "reshuffles_per_game": totals.per_game("treasure_reshuffles")},
        }

    def summary(self, r: dict[str, Any]) -> list[tuple[str, str]]:
        pts = "; ".join(f"{label} {v['per_player']:.1f}" for label, v in r["points"].items()
                        if v["per_player"] is not None)
        guilds = ", ".join(f"{name.split()[-1]} {100 * g['rate']:.0f}%" for name, g in r["guild_wins"].items()
                           if g["rate"] is not None)
        acts = ", ".join(f"{label} {a['mean']:.1f}" for label, a in r["actions"].items())
        f = r["funeral"]
        bid = "-" if f["mean_bid"] is None else f"{f['mean_bid']:.1f}"
        s = r["specialists"]
        return [
            ("points per player by source", pts or "-"),
            ("win rate by Guild", guilds or "-"),
            ("actions per game", acts),
            ("King's Funeral", f"Statue won in {f['won']} games (mean bid {bid}), nobody in {f['nobody']} (a tie)"),
            ("Offering", f"{r['offering']['seals_per_game']['mean']:.2f} Seals per game"),
            ("Specialists", f"{s['hired_per_game']['mean']:.1f} hired per game, "
                            f"{s['full_price_per_game']['mean']:.1f} at full price, "
                            f"{s['dropped_per_game']['mean']:.2f} dropped to 0 and discarded"),
        ]

    def plots(self, r: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"name": "sources", "title": "Points per player, by scoring source", "kind": "bar",
             "xlabel": "source", "ylabel": "points per player (finished games)", "from_zero": True,
             "points": [[label, v["per_player"] or 0.0] for label, v in r["points"].items()]},
            {"name": "guilds", "title": "Win rate by Guild", "kind": "bar", "xlabel": "Guild",
             "ylabel": "win rate", "from_zero": True,
             "points": [[name.split()[-1], g["rate"] or 0.0] for name, g in r["guild_wins"].items()]},
            {"name": "missions", "title": "Mission deck left (mean of the games still running)", "kind": "line",
             "xlabel": "round", "ylabel": "cards in the Mission deck", "from_zero": True,
             "points": [[p["round"], p["mean"]] for p in r["series"].get("missions", [])]},
        ]

    def claims(self, ask) -> list[dict[str, Any]]:
        from .claims import answer_all

        return answer_all(self, ask)
