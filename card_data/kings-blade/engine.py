"""The King's Blade's rules engine: one game played by bots, from the resolved version's data.

Nothing here knows a card by name. `compile_table` turns a snapshot into plain data (the
version's rules, the mine's metals with their counts, every sword part with its points, needs and
structured effects); `play` deals and plays one game from that data. Change a card, a count or a
rule in the YAML and the next simulation plays the changed game.

Every rule the engine plays is a rule of the version's data (game.yml declares it, each value
with the sentence the rulebook prints): the table rules the designer's document leaves open
(handing out blades, refilling the market, where discarded metal goes, an empty mine...) and the
readings of play it needs (effects against the hand limit, extra pours, bouncing metal, when a
player may end the game, ties). Where a version leaves a rule open, the engine plays the value
game.yml gives as the rule's `default` (the reading its rulebook suggests in an "Open question"
box) and the report says so, in game.yml's sentence. The engine keeps no reading of its own.
"""

from __future__ import annotations

from collections import Counter
from random import Random
from typing import Any

from cardgen.data.setup import allowed_players, deal

# The rules the engine reads beyond the basic ones, and the values it can play (game.yml explains
# each; a version that leaves one open is played by the rule's `default` in game.yml).
# metal_order only says how players keep the order on the table: the engine always knows it.
TABLE_RULES = {
    "blade_deal": ("deal_random", "draft"),
    "market_refill": ("immediately", "on_restock"),
    "market_runs_out": ("reshuffle", "stays_empty"),
    "metal_discard": ("mine_bottom", "mine_shuffle"),
    "mine_runs_out": ("take_what_is_left", "game_ends"),
    "metal_order": ("row",),
    "effect_draws": ("beyond_hand_limit", "within_hand_limit"),
    "extra_pours": ("any_card", "same_card"),
    "bounce_target": ("owner_chooses", "next_in_turn"),
    "end_timing": ("any_time", "own_turn"),
    "ties": ("shared", "nobody_wins"),
}

# Effects the engine plays. A version whose cards use another effect kind cannot be simulated
# until the engine learns it (simulation() says which card and effect).
POINT_KINDS = ("points", "points_per_metal")
ABILITY_KINDS = (
    "hand_limit", "mine_bonus", "extra_pour", "counts_double", "market_peek", "free_restock",
    "overflow_guard", "overflow_keep", "overflow_bounce", "sabotage_draw", "forge_anywhere",
)
KNOWN_KINDS = POINT_KINDS + ABILITY_KINDS
LOOP_LIMIT = 50


class UnknownEffect(Exception):
    def __init__(self, card: str, kind: str):
        super().__init__(f"card '{card}': effect '{kind}' has no simulation rule in the engine "
                         f"(known: {', '.join(KNOWN_KINDS)})")
        self.card, self.kind = card, kind


class UnknownRuleValue(UnknownEffect):
    def __init__(self, rule: str, value: Any, known: tuple[str, ...]):
        Exception.__init__(self, f"rule '{rule}': value '{value}' has no simulation rule in the engine "
                                 f"(known: {', '.join(known)})")


# --- the version as plain data -------------------------------------------------------------------


def compile_table(snapshot) -> dict[str, Any]:
    """The resolved version as plain, picklable data: everything a game needs, nothing else."""
    game = snapshot.game
    metals = [sid for sid, s in snapshot.symbols.items() if s.kind == "metal" and not s.any]
    any_ids = {sid for sid, s in snapshot.symbols.items() if s.kind == "metal" and s.any}
    inert = {sid for sid, s in snapshot.symbols.items() if getattr(s, "inert", False)}
    bit = {m: 1 << i for i, m in enumerate(metals)}
    every = (1 << len(metals)) - 1

    def mask(when: str | None) -> int:
        if when in any_ids or when is None:
            return every  # "a metal of any kind triggers the effect": grey steel too
        if when in inert:
            return 0  # an inert metal has no effects (V2 on: grey steel)
        return bit.get(when, 0)

    mine: list[int] = []
    parts: list[dict[str, Any]] = []
    blades: list[int] = []
    market: list[int] = []
    part_types = [t for t, spec in game.card_types.items() if spec.effects]
    dealt_types = [t for t in part_types if game.card_types[t].per_player]
    for card in snapshot.cards:
        spec = game.card_types[card.type]
        if spec.deck == "mine":
            metal = card.fields.get("metal")
            mine += [metals.index(metal)] * card.count
            continue
        if card.type not in part_types:
            continue
        effects = []
        for e in card.effects:
            if e.do not in KNOWN_KINDS:
                raise UnknownEffect(card.id, e.do)
            effects.append((e.do, mask(e.when), int(e.params.get("amount", 1))))
        index = len(parts)
        parts.append({"id": card.id, "name": card.name, "type": card.type,
                      "points": int(card.fields.get("points") or 0), "needs": int(card.fields["needs"]),
                      "effects": effects})
        (blades if card.type in dealt_types else market).extend([index] * card.count)
    rules = dict(snapshot.rules)
    moot = set()
    if rules.get("hand_limit") is None:
        moot.add("effect_draws")
    if not rules.get("end_condition"):
        moot.add("end_timing")
    if not any(kind == "overflow_bounce" for part in parts for kind, _, _ in part["effects"]):
        moot.add("bounce_target")
    table_rules, assumptions = open_rules(game.rule_specs, rules, frozenset(moot))
    index = {p["id"]: i for i, p in enumerate(parts)}
    dealt = {t for t in part_types if game.card_types[t].per_player}
    return {
        "setup": {n: first_position(snapshot, n, metals, index, dealt) for n in allowed_players(snapshot)},
        "version": snapshot.version,
        "metals": metals,
        "metal_names": [snapshot.symbols[m].name or m for m in metals],
        "rules": {
            "hand_limit": rules.get("hand_limit"),
            "starting_hand": int(rules.get("starting_hand") or 0),
            "market_face_up": int(rules.get("market_face_up") or 4),
            "mine_action": rules.get("mine_action", "take_one"),
            "overflow": rules.get("overflow", "earliest_out"),
            "forge": rules.get("forge", "token_optional"),
            "end_condition": list(rules.get("end_condition") or []),
            **table_rules,
        },
        "assumptions": assumptions,
        "part_types": part_types,
        "mine": mine,
        "blades": blades,
        "market": market,
        "parts": parts,
    }


def first_position(snapshot, players: int, metals: list[str], index: dict[str, int], dealt: set[str]) -> dict[str, Any]:
    """The first position for `players`, from the set-up data (game.yml `setup:`, dealt by
    cardgen.data.setup.deal, as the rulebook's figure and the Tabletop Simulator table are): the
    metals in play and how many each player holds, the sword parts of the market and how many lie
    face up, how many blades each player gets. Each game shuffles them again from its own seed;
    the lists keep the data's card order, so a game's shuffles depend on the seed alone."""
    table = deal(snapshot, players)
    game = snapshot.game
    on_table = Counter(c.id for p in table.places() if p.kind != "box" for c in p.cards)
    in_box = Counter(c.id for p in table.places() if p.kind == "box" for c in p.cards)
    mine: list[int] = []
    market: list[int] = []
    blades: list[int] = []
    for card in snapshot.cards:
        if game.card_types[card.type].deck == "mine":
            mine += [metals.index(card.fields.get("metal"))] * on_table[card.id]
        elif card.id in index and card.type in dealt:  # the blades: dealt, and the rest to draft from
            blades += [index[card.id]] * (on_table[card.id] + in_box[card.id])
        elif card.id in index:
            market += [index[card.id]] * on_table[card.id]
    seat = table.seats[0]
    hand = [c for p in seat if p.kind == "hand" for c in p.cards if c.id not in index]
    row = [c for p in table.shared if p.kind == "row" for c in p.cards if c.id in index]
    own = [c for p in seat if p.kind != "hand" for c in p.cards if c.type in dealt]
    return {"mine": mine, "market": market, "blades": blades, "starting_hand": len(hand),
            "market_face_up": len(row), "blades_each": len(own)}


def open_rules(specs: dict[str, Any], rules: dict[str, Any], moot: frozenset[str] = frozenset()) -> tuple[dict[str, str], list[str]]:
    """The table rules as the version sets them, game.yml's `default` where it leaves one open,
    and one sentence per rule the version left open (game.yml's label and value sentence) unless
    it is `moot`: nothing in the version can show it (effects against a hand limit the version
    does not have, bouncing metal without a bouncing card, ending a game that cannot end)."""
    played: dict[str, str] = {}
    assumptions: list[str] = []
    for name, known in TABLE_RULES.items():
        value = rules.get(name)
        spec = specs.get(name)
        if value is None:
            value = spec.default if spec is not None else None
            if value is None:
                raise UnknownRuleValue(name, None, known)
            sentence = spec.values.get(value, "") if spec.values else ""
            if name in moot:
                played[name] = value  # nothing in this version can show it: not worth a line
                continue
            assumptions.append(f"{spec.label or name}: the version leaves it open; played as '{value}': {sentence}")
        if value not in known:
            raise UnknownRuleValue(name, value, known)
        played[name] = value
    return played, assumptions


def fill(card: CardRule, metals: list[int]) -> tuple[int, int]:
    """The bit mask of `metals` and how far they fill `card` (a counts_double metal counts 2)."""
    double, has, filled = card.double, 0, 0
    for m in metals:
        b = 1 << m
        has |= b
        filled += 2 if double & b else 1
    return has, filled


class CardRule:
    """One sword-part card, ready for play: bit masks instead of metal names."""

    __slots__ = ("abilities", "ability", "ability_bits", "appeal", "double", "id", "index", "name", "needs", "points",
                 "ppm", "pts", "states", "type", "utility")

    def __init__(self, index: int, data: dict[str, Any]):
        self.index = index
        self.id, self.name, self.type = data["id"], data["name"], data["type"]
        self.points, self.needs = data["points"], data["needs"]
        self.pts = tuple((m, a) for k, m, a in data["effects"] if k == "points" and m)
        self.ppm = tuple((m, a) for k, m, a in data["effects"] if k == "points_per_metal" and m)
        self.double = 0
        self.ability: dict[str, tuple[tuple[int, int], ...]] = {}
        for kind, m, amount in data["effects"]:
            if kind == "counts_double":
                self.double |= m
            elif kind in ABILITY_KINDS and m:
                self.ability[kind] = self.ability.get(kind, ()) + ((m, amount),)
        # every (kind, metal mask, amount) of its abilities, in the order of `ability`
        self.abilities = tuple((kind, m, a) for kind, entries in self.ability.items() for m, a in entries)
        self.ability_bits = 0  # the metals that switch any ability on: a pour of another switches none
        for _, m, _ in self.abilities:
            self.ability_bits |= m
        self.utility: tuple | None = None  # the bots' figures per ability (bots.py fills it on first use)
        self.states: dict[tuple[int, int], tuple[int, dict[str, int]]] = {}  # figures() per state
        # what the card promises, per metal it needs: how the bots judge a market card
        best_effect = max([a for _, a in self.pts] + [2 * a for _, a in self.ppm] + [0])
        self.appeal = (self.points + 0.5 * best_effect + 0.3 * len(self.ability)) / self.needs

    def figures(self, has: int, filled: int) -> tuple[int, dict[str, int]]:
        """The sword points and the switched-on abilities (kind -> amount) of this card holding the
        metals of the mask `has`, filled to `filled`: kept per state (a card has a few dozen), as
        parts ask for them after every pour. The dict is shared: read it, never change it."""
        found = self.states.get((has, filled))
        if found is None:
            abilities: dict[str, int] = {}
            for kind, m, amount in self.abilities:
                if has & m:
                    abilities[kind] = abilities.get(kind, 0) + amount
            found = self.states[(has, filled)] = (part_score(self, has, filled), abilities)
        return found


# --- shuffling -----------------------------------------------------------------------------------

_SHUFFLE_STEPS: dict[int, tuple[tuple[int, int, int], ...]] = {}  # length -> (index, range, bits) per draw


def shuffle(rng: Random, items: list) -> None:
    """rng.shuffle(items), draw for draw: CPython's algorithm (Fisher-Yates from the end, each draw
    getrandbits of the range's bit length, drawn again while out of range), without its two calls
    per item (a game shuffles 86 cards; tests/test_simulate_rules.py compares it with rng.shuffle)."""
    length = len(items)
    steps = _SHUFFLE_STEPS.get(length)
    if steps is None:
        steps = _SHUFFLE_STEPS[length] = tuple((i, i + 1, (i + 1).bit_length()) for i in range(length - 1, 0, -1))
    getrandbits = rng.getrandbits
    for i, n, k in steps:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


# --- the table during play -----------------------------------------------------------------------


class Part:
    """A sword part in a player's forge and the metals poured into it, earliest first."""

    __slots__ = ("abilities", "card", "damages", "filled", "gains", "has", "metals", "owner", "player", "score",
                 "whole")

    def __init__(self, card: CardRule, owner: int):
        self.card, self.owner = card, owner
        self.player: Player | None = None  # the player holding it (Player.take), told of every change
        self.metals: list[int] = []
        self.filled = 0  # metals counted towards completion (counts_double counts 2)
        self.has = 0  # bit mask of the metals it holds
        # the bots' memo of this state, per metal (bots.py finds it on first use; a change of the
        # part, or of its owner's complete types, forgets it): what a pour is worth to the owner,
        # and what an overflow takes from the owner
        self.gains: tuple[dict[int, float], dict[int, float]] | None = None
        self.damages: dict[int, float] | None = None
        self.score, self.abilities, self.whole = 0, {}, False
        self.derive()

    @property
    def complete(self) -> bool:
        return self.filled >= self.card.needs

    def refresh(self) -> None:
        self.has, self.filled = fill(self.card, self.metals)
        self.derive()

    def derive(self) -> None:
        """The sword points and the switched-on abilities of `has` and `filled` (after every change)."""
        card, filled = self.card, self.filled
        self.gains = self.damages = None
        old_score, old_abilities, was_whole = self.score, self.abilities, self.whole
        self.score, abilities = card.figures(self.has, filled)
        self.whole = filled >= card.needs
        self.abilities = abilities
        player = self.player
        if player is not None:
            if abilities == old_abilities and self.whole == was_whole:
                player.total += self.score - old_score  # only the points changed: no need to sum again
            else:
                player.changed()

    def poured(self, metal: int) -> None:
        """`metal` (just added to `metals`) poured into the card while it was incomplete: its figures,
        and its owner's: summed again only when an ability may switch on or the card completes."""
        card, old_has = self.card, self.has
        self.gains = self.damages = None
        b = 1 << metal
        self.has = has = old_has | b
        self.filled += 2 if card.double & b else 1
        if (has != old_has and b & card.ability_bits) or self.filled >= card.needs or self.player is None:
            self.derive()
            return
        old = self.score
        self.score = card.figures(has, self.filled)[0]
        self.player.total += self.score - old

    def ability(self, kind: str) -> int:
        return self.abilities.get(kind, 0)


def part_score(card: CardRule, metals_mask: int, filled: int) -> int:
    """Sword points of one card: completion points if complete, point effects always."""
    score = card.points if filled >= card.needs else 0
    for m, amount in card.pts:
        if metals_mask & m:
            score += amount
    if card.ppm:
        different = metals_mask.bit_count()
        for m, amount in card.ppm:
            if metals_mask & m:
                score += amount * different
    return score


class Player:
    """A seat: its hand of metals, its sword parts and the figures of those parts, summed again
    each time a part comes or changes (far fewer times than a turn asks for them)."""

    __slots__ = ("_parts", "abilities", "bot", "done", "done_count", "end_set", "end_types", "hand", "may_end", "seat",
                 "token", "total", "types", "wanting")

    def __init__(self, seat: int, bot, end_types: tuple[str, ...] | list[str] = ()):
        self.seat, self.bot = seat, bot
        self.end_types = end_types  # the part types the end condition asks for
        self.end_set = frozenset(end_types)
        self.hand: list[int] = []
        self.token: Part | None = None
        self.done: set[str] = set()
        self.parts = []

    @property
    def parts(self) -> list[Part]:
        """The player's sword parts (add one with take(); a changed list is assigned whole)."""
        return self._parts

    @parts.setter
    def parts(self, parts: list[Part]) -> None:
        self._parts = parts
        for part in parts:
            part.player = self
            part.gains = None  # the bots' figures of it are its owner's
        self.changed()

    def take(self, part: Part) -> None:
        part.player = self
        self._parts.append(part)
        if part.filled or part.whole or part.abilities or part.score:
            self.changed()
            return
        # a card fresh from the market or the blades (no metal, no points, no ability): it adds its
        # type, and a part that wants metal if it pays for completion or ends the game (as changed()
        # counts them), without summing every part again (a game takes about twelve)
        card = part.card
        if card.type not in self.types:
            self.types = self.types | {card.type}
        if card.points or card.type in self.end_types:
            self.wanting += 1

    def changed(self) -> None:
        """Sum the parts' switched-on abilities, sword points, types and complete types, and count the
        parts that still want metal: incomplete ones that pay for completion or end the game (after
        every change)."""
        abilities: dict[str, int] = {}
        done: set[str] = set()
        types: set[str] = set()
        count = total = wanting = 0
        end_types = self.end_types
        for part in self._parts:
            total += part.score
            for kind, amount in part.abilities.items():
                abilities[kind] = abilities.get(kind, 0) + amount
            card = part.card
            types.add(card.type)
            if part.filled >= card.needs:
                done.add(card.type)
                count += 1
            elif card.points or card.type in end_types:
                wanting += 1
        if done != self.done:  # what the end condition still asks of the parts changed: their gains too
            for part in self._parts:
                part.gains = None
        self.abilities, self.done, self.done_count, self.total = abilities, done, count, total
        self.types, self.wanting = types, wanting
        # the end condition's question (Table.can_end), answered once per change, not once per turn
        self.may_end = bool(end_types) and count >= len(end_types) and self.end_set <= done

    def ability(self, kind: str) -> int:
        return self.abilities.get(kind, 0)

    def score(self) -> int:
        return self.total


class Table:
    """One game in progress. Bots read it and choose; only the table changes it."""

    def __init__(self, table: dict[str, Any], cards: list[CardRule], rng: Random, bots: list):
        self.rules = table["rules"]
        self.cards = cards
        self.rng = rng
        self.n = len(bots)
        self.end_types = self.rules["end_condition"]
        self.players = [Player(i, bot, self.end_types) for i, bot in enumerate(bots)]
        self.end_set = frozenset(self.end_types)
        self.hand_base = self.rules["hand_limit"]
        self.earliest_out = self.rules["overflow"] == "earliest_out"
        self.token_required = self.rules["forge"] == "token_required"
        self.fill_hand = self.rules["mine_action"] == "fill_hand"
        self.refill_now = self.rules["market_refill"] == "immediately"
        self.reshuffle = self.rules["market_runs_out"] == "reshuffle"
        self.discard_shuffles = self.rules["metal_discard"] == "mine_shuffle"
        self.empty_mine_ends = self.rules["mine_runs_out"] == "game_ends"
        self.effects_overrule = self.rules["effect_draws"] == "beyond_hand_limit"
        self.extra_same_card = self.rules["extra_pours"] == "same_card"
        self.bounce_next = self.rules["bounce_target"] == "next_in_turn"
        self.end_any_time = self.rules["end_timing"] == "any_time"
        self.ties_share = self.rules["ties"] == "shared"
        # per seat whose action just ended, the players who may then end the game, in turn order
        # (end_timing: any_time: every player from that seat on; own_turn: that seat alone)
        n = self.n
        self.enders = [tuple(self.players[(seat + step) % n] for step in range(n if self.end_any_time else 1))
                       for seat in range(n)]
        self.pour_only: Part | None = None  # under extra_pours: same_card, the card of the first pour
        self.mine_ran_out = False  # under game_ends: the last metal was taken, the game is over
        self.turn = 0
        self.round = 0
        # what the runner's statistics read
        self.overflows = 0
        self.sabotage_overflows = 0
        self.bounces = 0
        self.loops: dict[str, int] = {}
        self.mine_empty_round: int | None = None
        self.empty_mine_turns = 0
        self.taken: list[tuple[Part, int]] = []  # (part, round it came into play)

        start = table["setup"][self.n]  # the first position the set-up data deals
        self.mine = list(start["mine"])
        shuffle(rng, self.mine)
        self.market_pile = [cards[i] for i in start["market"]]
        shuffle(rng, self.market_pile)
        self.market_discard: list[CardRule] = []
        self.market: list[CardRule] = []
        self._fill_market(start["market_face_up"])
        blades = [cards[i] for i in start["blades"]]
        shuffle(rng, blades)
        if self.rules["blade_deal"] == "draft":
            shown = [blades.pop() for _ in range(min(len(blades), self.n + 1))]
            for player in reversed(self.players):  # the last player picks first, then anticlockwise
                if shown:
                    self._gain(player, shown.pop(player.bot.pick_blade(self, player, shown)))
        else:
            for player in self.players:
                for _ in range(start["blades_each"]):
                    if blades:
                        self._gain(player, blades.pop())
        for player in self.players:
            for _ in range(start["starting_hand"]):
                self._draw(player, dealt=True)  # as the set-up deals it, even beyond the hand limit

    # -- questions bots ask -------------------------------------------------------------------

    def hand_limit(self, player: Player) -> int | None:
        if self.hand_base is None:
            return None
        return self.hand_base + player.ability("hand_limit")

    def room(self, player: Player) -> int:
        if self.hand_base is None:
            return 1 << 30
        room = self.hand_base + player.abilities.get("hand_limit", 0) - len(player.hand)
        return room if room > 0 else 0  # max(0, room), without the builtin's call: asked every turn

    def can_end(self, player: Player) -> bool:
        """The player's complete parts hold every type the end condition asks for (as many parts at least)."""
        return player.may_end  # Player.changed() answers it

    def pour_targets(self, player: Player) -> list[Part]:
        """Cards `player` may pour into: any card with a forge token (a complete one of another
        player only if not guarded), and the player's own cards that allow pouring anywhere."""
        if self.pour_only is not None:
            return [self.pour_only]
        targets = []
        for other in self.players:
            part = other.token
            if part is None:
                continue
            if other is not player and part.filled >= part.card.needs and part.abilities.get("overflow_guard"):
                continue
            targets.append(part)
        if "forge_anywhere" in player.abilities:  # one of the player's parts has it switched on
            for part in player.parts:
                if part is not player.token and part.card.ability.get("forge_anywhere") and part.ability("forge_anywhere"):
                    targets.append(part)
        return targets

    def can_restock(self) -> bool:
        return bool(self.market_pile or (self.reshuffle and self.market_discard))

    def mine_draw_count(self, player: Player, room: int | None = None) -> int:
        """Metals the mine action would draw now: one (or a full hand), within the hand limit, then
        the extra metals of mine_bonus, which overrule the limit under effect_draws: beyond_hand_limit.
        `room`: the player's room(), when the caller knows it already."""
        if room is None:
            room = self.room(player)
        # (conditions, not min(): asked every turn, and the builtin's call costs more than the test)
        base = room if self.fill_hand and self.hand_base is not None else (1 if room > 1 else room)
        if base <= 0:
            return 0  # the mine action needs room in the hand; the effect only adds to a draw
        bonus = player.abilities.get("mine_bonus", 0)
        if not self.effects_overrule and bonus > room - base:
            bonus = room - base
        count, left = base + bonus, len(self.mine)
        return count if count < left else left

    def scores(self) -> list[int]:
        return [p.score() for p in self.players]

    # -- changes ------------------------------------------------------------------------------

    def _draw(self, player: Player, effect: bool = False, dealt: bool = False) -> bool:
        """One metal from the mine into the hand: within the hand limit, or beyond it when an
        effect draws it and effects overrule the rules (effect_draws: beyond_hand_limit), or when
        the set-up deals it."""
        # (the room last: an effect's draw under beyond_hand_limit, most of them, does not ask for it)
        if not self.mine or (not dealt and not (effect and self.effects_overrule) and self.room(player) <= 0):
            return False
        player.hand.append(self.mine.pop())
        if not self.mine:
            if self.mine_empty_round is None:
                self.mine_empty_round = self.round + 1  # rounds count from 1, as players say
            self.mine_ran_out = self.empty_mine_ends
        return True

    def _discard(self, metal: int) -> None:
        """Discarded metal goes back into the mine: under it, or shuffled in (metal_discard)."""
        at = self.rng.randrange(len(self.mine) + 1) if self.discard_shuffles else 0
        self.mine.insert(at, metal)

    def _gain(self, player: Player, card: CardRule) -> Part:
        part = Part(card, player.seat)
        player.take(part)
        self.taken.append((part, self.round))
        return part

    def _fill_market(self, size: int) -> None:
        while len(self.market) < size:
            if not self.market_pile:
                if not self.market_discard or not self.reshuffle:
                    return
                self.market_pile = self.market_discard
                self.market_discard = []
                shuffle(self.rng, self.market_pile)
            self.market.append(self.market_pile.pop())

    def take_market(self, player: Player, index: int) -> Part:
        card = self.market.pop(index)
        part = self._gain(player, card)
        if self.refill_now:
            self._fill_market(self.rules["market_face_up"])
        return part

    def take_top(self, player: Player) -> Part | None:
        """market_peek: the top card of the market's drawing pile instead of a face-up one."""
        if not self.market_pile:
            return None
        return self._gain(player, self.market_pile.pop())

    def restock(self) -> None:
        self.market_discard.extend(self.market)
        self.market = []
        self._fill_market(self.rules["market_face_up"])

    def mine_action(self, player: Player) -> int:
        drawn = 0
        for _ in range(self.mine_draw_count(player)):
            drawn += self._draw(player, effect=True)  # the count already holds the limit
        return drawn

    def pour(self, player: Player, hand_index: int, part: Part) -> None:
        metal = player.hand.pop(hand_index)
        self._pour_into(player, metal, part, bounces=0, chain=None)

    def _pour_into(self, pourer: Player, metal: int, part: Part, bounces: int, chain: list[str] | None) -> None:
        """`chain`: the cards the metal bounced out of so far (None before the first bounce)."""
        was_complete = part.filled >= part.card.needs
        part.metals.append(metal)
        if not was_complete:
            part.poured(metal)
            return
        # overflow: the card was complete, one metal pours out
        self.overflows += 1
        owner = self.players[part.owner]
        if self.earliest_out:
            out_index = 0
        else:
            out_index = pourer.bot.overflow_choice(self, pourer, part)
        keep, bounce = part.ability("overflow_keep"), part.ability("overflow_bounce")
        out = part.metals.pop(out_index)
        part.refresh()
        if owner is not pourer and bounces == 0:
            self.sabotage_overflows += 1
            if pourer.ability("sabotage_draw"):
                self._draw(pourer, effect=True)
        if bounce:
            options = self._bounce_options(part)
            if not options:
                target = None
            elif self.bounce_next:
                target = options[0]  # the next card with a forge token in turn order
            else:
                target = owner.bot.bounce_target(self, owner, out, options)
            if target is not None:
                self.bounces += 1
                if chain is None:
                    chain = []
                chain.append(part.card.id)
                if bounces >= LOOP_LIMIT:
                    for card_id in sorted(set(chain)):
                        self.loops[card_id] = self.loops.get(card_id, 0) + 1
                    self._discard(out)
                    return
                self._pour_into(owner, out, target, bounces + 1, chain)
                return
        if keep and (self.room(owner) > 0 or self.effects_overrule):
            owner.hand.append(out)
        else:
            self._discard(out)

    def _bounce_options(self, source: Part) -> list[Part]:
        """Where bouncing metal may go: another card with a forge token (a guarded complete card
        of another player excepted), in seat order from the bouncing card's owner."""
        options = []
        for step in range(1, self.n + 1):
            other = self.players[(source.owner + step) % self.n]
            part = other.token
            if part is None or part is source:
                continue
            if other.seat != source.owner and part.filled >= part.card.needs and part.ability("overflow_guard"):
                continue
            options.append(part)
        return options

    # -- one game -----------------------------------------------------------------------------

    def play(self, max_turns: int) -> dict[str, Any]:
        ender: int | None = None
        passes = 0
        series: list[int] = []
        players, n, token_required = self.players, self.n, self.token_required
        while self.turn < max_turns:
            player = players[self.turn % n]
            bot = player.bot
            if not self.mine:
                self.empty_mine_turns += 1
            # forge phase
            choice = bot.forge(self, player)
            if choice is None and token_required and player.parts:
                choice = player.parts[0]
            player.token = choice
            if player.abilities.get("free_restock") and self.can_restock() and bot.wants_free_restock(self, player):
                self.restock()
            acted = self._action(player, bot.action(self, player))
            passes = 0 if acted else passes + 1
            self.turn += 1
            if self.turn % n == 0:
                series.append(len(self.mine))
                self.round += 1
            if self.mine_ran_out:  # mine_runs_out: game_ends
                break
            ender = self._who_ends(player.seat) if self.end_types else None
            if ender is not None or passes >= n:
                break
        if self.turn % self.n:
            series.append(len(self.mine))
        return self._record(ender, passes >= self.n, series)

    def _action(self, player: Player, action: tuple) -> bool:
        kind = action[0]
        if kind == "pour":  # the kinds in the order of how often bots choose them
            self.pour(player, action[1], action[2])
            extra = player.abilities.get("extra_pour", 0)  # as the pour left them
            if extra:
                if self.extra_same_card:
                    self.pour_only = action[2]
                try:
                    for _ in range(extra):
                        if not player.hand:
                            break
                        more = player.bot.extra_pour(self, player)
                        if more is None or more[1] not in self.pour_targets(player):
                            break
                        self.pour(player, more[0], more[1])
                finally:
                    self.pour_only = None
        elif kind == "mine":
            self.mine_action(player)
        elif kind == "take":
            self.take_market(player, action[1])
        elif kind == "top":
            self.take_top(player)
        elif kind == "restock":
            self.restock()
        else:  # "pass": nothing is legal
            return False
        return True

    def _who_ends(self, current: int) -> int | None:
        if not self.end_types:
            return None
        # end_timing: any_time lets every player end after any action; own_turn only the player
        # whose turn it was, after their own action
        for player in self.enders[current]:
            if player.may_end and player.bot.wants_end(self, player):  # can_end, inlined
                return player.seat
        return None

    def _winners(self, scores: list[int], best: int) -> list[int]:
        """The seats with the most sword points; a tie shares the win, or nobody wins (ties)."""
        top = [i for i, s in enumerate(scores) if s == best]
        return top if len(top) == 1 or self.ties_share else []

    def _record(self, ender: int | None, deadlock: bool, series: list[int]) -> dict[str, Any]:
        scores = self.scores()
        best = max(scores)
        if ender is not None or self.mine_ran_out:
            stall = None
        elif deadlock:  # every player in turn had no legal action (before the cap)
            stall = "no legal action"
        elif not self.end_types:
            stall = "no end condition"
        else:
            stall = "turn cap"
        return {
            "seats": [p.bot.name for p in self.players],
            "ended": ender is not None or self.mine_ran_out,
            "ender": ender,
            "stall": stall,
            "turns": self.turn,
            "scores": scores,
            "winners": self._winners(scores, best),
            "parts": [(part.card.id, part.card.type, part.owner, part.filled >= part.card.needs)
                      for part, _ in self.taken],
            "series": {"mine": series},
            "events": {"mine_empty": self.mine_empty_round},
            "tallies": {
                "overflows": self.overflows,
                "sabotage_overflows": self.sabotage_overflows,
                "bounces": self.bounces,
                "empty_mine_turns": self.empty_mine_turns,
                **{f"loop:{card}": n for card, n in self.loops.items()},
            },
        }


def legal_actions(table: Table, player: Player) -> list[tuple]:
    """Every action `player` may take now (pours as (hand index, target) pairs)."""
    actions: list[tuple] = [("take", i) for i in range(len(table.market))]
    if table.market_pile and player.ability("market_peek"):
        actions.append(("top",))
    if table.can_restock():
        actions.append(("restock",))
    if player.hand:
        targets = table.pour_targets(player)
        for h in range(len(player.hand)):
            for part in targets:
                actions.append(("pour", h, part))
    if table.mine and table.room(player) > 0:
        actions.append(("mine",))
    return actions or [("pass",)]
