"""Players for the simulator: a random legal player and strategies that score options by the data.

Every strategy judges a move by what the cards say: the sword points a pour adds (completion
points, point effects, points per different metal), the abilities it switches on, the progress
towards the parts the version's end condition asks for, and, for a pour into another player's
complete card, the points the overflow takes from them. They differ only in their weights and in
when they end the game:

- greedy: the best move by those figures; ends the game when it leads.
- rush: ends the game as soon as it may; takes the cheapest parts the end condition needs.
- builder: collects points, takes extra parts; ends only with a clear lead or when play runs dry.
- saboteur: pours into other players' forged complete cards to make them overflow.
- random: any legal move, chosen uniformly.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engine import CardRule, Part, Player, Table, fill, legal_actions, part_score

# What an ability is worth to its owner, in sword points, for choosing between moves.
UTILITY = {
    "extra_pour": 1.0, "forge_anywhere": 1.0, "overflow_guard": 0.8, "hand_limit": 0.6,
    "mine_bonus": 0.4, "overflow_keep": 0.4, "sabotage_draw": 0.4, "market_peek": 0.3,
    "free_restock": 0.3, "overflow_bounce": 0.0,
}
NEVER = -1e9


@dataclass(frozen=True)
class Weights:
    progress: float = 1.0     # per completion point, for each metal poured towards completion
    need: float = 2.0         # taking / completing a part type the end condition asks for
    duplicate: float = 1.5    # taking a second part of a type already held
    spread: float = 0.6       # per part already held that still wants metal, when taking another
    max_parts: int = 4
    sabotage: float = 1.0     # per sword point an overflow takes from another player
    end: str = "lead"         # lead | asap | margin


# own_gain's figures for an incomplete card, per bot weights: (card, mask, filled, needed) ->
# ({metal: gain}, {hand's metals mask: the best of their gains}). Bounded by the cards' states (and
# the 2^metals masks), so memory stays flat however many games a worker plays.
Gains = tuple[dict[int, float], dict[int, float]]
_GAINS: dict[Weights, dict[tuple, Gains]] = {}
# _after_overflow's answers: (card, metals, metal, maximise, earliest_out) -> (mask, filled, score)
_OVERFLOWS: dict[tuple, tuple[int, int, int]] = {}


class Strategy:
    def __init__(self, name: str, w: Weights):
        self.name, self.w = name, w
        self._gains_memo = _GAINS.setdefault(w, {})

    # -- figures ------------------------------------------------------------------------------

    def own_gain(self, t: Table, player: Player, part: Part, metal: int, done: set[str]) -> float:
        """What pouring `metal` into the player's own `part` is worth to them."""
        gains = self._gains(t, part, done)[0]
        gain = gains.get(metal)
        if gain is None:
            gain = gains[metal] = self._own_gain(t, part, metal, done)
        return gain

    def _gains(self, t: Table, part: Part, done: set[str]) -> Gains:
        """own_gain's figures for `part` as it is, per metal (kept on the part until it changes). For
        an incomplete card they depend only on the card, its metals' mask and count and whether the
        end condition still asks for the card's type: kept once per worker and weights. For a
        complete card (the pour overflows it) on its metals in order: kept on the part alone (the
        orders are many: a memo of them grew with the games)."""
        gains = part.gains
        if gains is None:
            card = part.card
            if part.filled >= card.needs:
                gains = ({}, {})
            else:
                key = (card, part.has, part.filled, card.type in t.end_set and card.type not in done)
                gains = self._gains_memo.get(key)
                if gains is None:
                    gains = self._gains_memo[key] = ({}, {})
            part.gains = gains
        return gains

    def _best_gain(self, t: Table, part: Part, gains: dict[int, float], hand_mask: int, done: set[str]) -> float:
        """The best own_gain of the metals in `hand_mask` (forge's figure of a part, kept per mask)."""
        value = NEVER
        metal = 0
        while hand_mask >> metal:
            if hand_mask >> metal & 1:
                gain = gains.get(metal)
                if gain is None:
                    gain = gains[metal] = self._own_gain(t, part, metal, done)
                if gain > value:
                    value = gain
            metal += 1
        return value

    def _own_gain(self, t: Table, part: Part, metal: int, done: set[str]) -> float:
        card, w = part.card, self.w
        old_has, old_filled = part.has, part.filled
        old = part.score  # part_score(card, old_has, old_filled)
        b = 1 << metal
        needs = card.needs
        if old_filled >= needs:  # it overflows: which metal leaves is the rule's (or ours)
            has, filled, new = _after_overflow(t, part, metal, maximise=True)
        else:
            has, filled = old_has | b, old_filled + (2 if card.double & b else 1)
            new = part_score(card, has, filled)
        gain = float(new - old)
        if old_filled < needs:
            step = min(filled, needs) - old_filled
            gain += w.progress * card.points * step / needs
            if card.type in t.end_types and card.type not in done:
                gain += w.need * (1.0 if filled >= needs else 0.3 * step / needs)
        if has != old_has:  # otherwise no ability switches on
            for value, m in _utility(card):
                if has & m and not old_has & m:
                    gain += value
        return gain

    def sabotage_gain(self, t: Table, player: Player, part: Part, metal: int, metal_worth: float) -> float:
        """What pouring `metal` into another player's complete `part` is worth: their loss."""
        damages = _damages(t, part)
        damage = damages.get(metal)
        if damage is None:
            damage = damages[metal] = _damage(t, part, metal)
        if damage <= 0:
            return NEVER
        owner_score = t.players[part.owner].total
        lead = 1.5 if owner_score >= max(p.total for p in t.players if p is not player) else 1.0
        bonus = 0.5 if player.abilities.get("sabotage_draw") else 0.0
        return self.w.sabotage * damage * lead + bonus - 0.5 * metal_worth

    def take_value(self, t: Table, player: Player, card, types_held: set[str], incomplete: int) -> float:
        w = self.w
        if len(player.parts) >= w.max_parts:
            return NEVER
        value = card.appeal
        if card.type in t.end_types and card.type not in types_held:
            value += w.need
        elif card.type in types_held:
            value -= w.duplicate
        return value - w.spread * incomplete

    # -- decisions ----------------------------------------------------------------------------

    def forge(self, t: Table, player: Player) -> Part | None:
        done = player.done
        hand_mask = 0
        for m in player.hand:
            hand_mask |= 1 << m
        best, best_value = None, NEVER
        for part in player.parts:
            complete = part.filled >= part.card.needs
            if not hand_mask:  # nothing to pour: keep the token where the next pours will go
                value = -0.1 if complete else 0.1
            else:  # the best own_gain of a metal in hand, kept per part state and hand mask
                gains = part.gains
                if gains is None:
                    gains = self._gains(t, part, done)
                found = gains[1].get(hand_mask)
                if found is None:
                    found = gains[1][hand_mask] = self._best_gain(t, part, gains[0], hand_mask, done)
                value = found
            if complete:
                value -= 0.5  # a complete card under the token can be made to overflow
            if value > best_value:
                best, best_value = part, value
        if best_value <= 0 and not t.token_required:
            return None
        return best

    def pick_blade(self, t: Table, player: Player, shown: list[CardRule]) -> int:
        """blade_deal: draft: the blade that promises most per metal it needs."""
        return max(range(len(shown)), key=lambda i: (shown[i].appeal, -i))

    def wants_free_restock(self, t: Table, player: Player) -> bool:
        return self._best_take(t, player)[0] < 0

    def action(self, t: Table, player: Player) -> tuple:
        best_value, best = self._best_take(t, player)
        if best_value < 0 and len(player.parts) < self.w.max_parts and t.can_restock():
            best_value, best = 0.0, ("restock",)
        pour_value, pour = self._best_pour(t, player)
        if pour is not None and pour_value > best_value:
            best_value, best = pour_value, pour
        room = t.room(player) if t.mine else 0
        if room > 0:
            drawn = t.mine_draw_count(player, room)
            value = 0.35 * drawn + (3.0 if not player.hand else 0.0)
            if value > best_value:
                best_value, best = value, ("mine",)
        if best is None:
            fallback = legal_actions(t, player)
            return fallback[0]
        return best

    def extra_pour(self, t: Table, player: Player):
        value, pour = self._best_pour(t, player)
        return (pour[1], pour[2]) if pour is not None and value > 0 else None

    def overflow_choice(self, t: Table, pourer: Player, part: Part) -> int:
        """Under `pourer_chooses`: keep the best for ourselves, take the best from others."""
        own = part.owner == pourer.seat
        best_index, best_score = 0, None
        for out in range(len(part.metals)):
            score = part_score(part.card, *fill(part.card, part.metals[:out] + part.metals[out + 1:]))
            if best_score is None or (score > best_score if own else score < best_score):
                best_index, best_score = out, score
        return best_index

    def bounce_target(self, t: Table, player: Player, metal: int, options: list[Part]) -> Part:
        """Metal bouncing out of one of our cards: into our own card if that helps, else where
        it makes another player's complete card overflow and costs them most."""
        done = _done_types(player)
        best, best_value = options[0], NEVER
        for part in options:
            if part.owner == player.seat:
                value = self.own_gain(t, player, part, metal, done)
            elif part.filled >= part.card.needs:
                value = self.sabotage_gain(t, player, part, metal, 0.0)
            else:
                value = -1.0  # it would only help them complete it
            if value > best_value:
                best, best_value = part, value
        return best

    def wants_end(self, t: Table, player: Player) -> bool:
        if self.w.end == "asap":
            return True
        mine = player.total  # player.score(), as below: a list, not a generator, for max (asked most turns)
        others = max([p.total for p in t.players if p is not player])
        if self.w.end == "lead":
            return mine > others
        # margin: a clear lead, or a lead when there is little left to gain
        return mine >= others + 3 or (mine > others and (len(t.mine) < 2 * t.n or t.round >= 25))

    # -- helpers ------------------------------------------------------------------------------

    def _best_take(self, t: Table, player: Player):
        types_held = player.types
        # parts that still want metal: incomplete ones that pay for completion or end the game
        incomplete = player.wanting
        end_set = t.end_set
        best_value, best = NEVER, None
        w = self.w
        if len(player.parts) < w.max_parts:  # take_value, inlined
            spread = w.spread * incomplete
            need, duplicate = w.need, w.duplicate
            best_i = -1
            for i, card in enumerate(t.market):
                ctype = card.type
                if ctype in types_held:
                    value = card.appeal - duplicate
                elif ctype in end_set:
                    value = card.appeal + need
                else:
                    value = card.appeal
                value -= spread
                if value > best_value:
                    best_value, best_i = value, i
            if best_i >= 0:
                best = ("take", best_i)
        # else every take is worth NEVER, which is not more than best_value
        if t.market_pile and player.abilities.get("market_peek"):
            value = self.take_value(t, player, t.market_pile[-1], types_held, incomplete)
            if value > best_value:
                best_value, best = value, ("top",)
        return best_value, best

    def _best_pour(self, t: Table, player: Player):
        hand = player.hand
        if not hand:
            return NEVER, None
        done = player.done
        seat = player.seat
        own_targets = []  # (part, own_gain's figures per metal)
        other_targets = []  # (part, _damage's figures per metal, the owner's lead)
        sabotage = self.w.sabotage
        bonus = 0.0
        others = 0
        for part in t.pour_targets(player):
            if part.owner == seat:
                gains = part.gains
                if gains is None:
                    gains = self._gains(t, part, done)
                own_targets.append((part, gains[0]))
            elif sabotage > 0 and part.filled >= part.card.needs:
                if not other_targets:  # sabotage_gain's figures that do not depend on the target
                    others = max([p.total for p in t.players if p is not player])
                    bonus = 0.5 if player.abilities.get("sabotage_draw") else 0.0
                lead = 1.5 if t.players[part.owner].total >= others else 1.0
                damages = part.damages
                if damages is None:
                    damages = _damages(t, part)
                other_targets.append((part, damages, lead))
        # the best pour so far, as its value, hand index and part (the action's tuple made once, at the end)
        best_value, best_h, best_part = NEVER, 0, None
        seen = 0
        for h, metal in enumerate(hand):
            b = 1 << metal
            if seen & b:
                continue
            seen |= b
            worth = 0.0
            for part, gains in own_targets:  # own_gain, inlined
                value = gains.get(metal)
                if value is None:
                    value = gains[metal] = self._own_gain(t, part, metal, done)
                if value > worth:
                    worth = value
                if value > best_value:
                    best_value, best_h, best_part = value, h, part
            for part, damages, lead in other_targets:  # sabotage_gain, inlined
                damage = damages.get(metal)
                if damage is None:
                    damage = damages[metal] = _damage(t, part, metal)
                value = NEVER if damage <= 0 else sabotage * damage * lead + bonus - 0.5 * worth
                if value > best_value:
                    best_value, best_h, best_part = value, h, part
        return best_value, (("pour", best_h, best_part) if best_part is not None else None)


class RandomPlayer:
    """Any legal move, uniformly; ends the game now and then when it may."""

    name = "random"

    def forge(self, t: Table, player: Player) -> Part | None:
        options: list[Part | None] = list(player.parts)
        if not t.token_required:
            options.append(None)
        return t.rng.choice(options)

    def pick_blade(self, t: Table, player: Player, shown: list[CardRule]) -> int:
        return t.rng.randrange(len(shown))

    def wants_free_restock(self, t: Table, player: Player) -> bool:
        return t.rng.random() < 0.5

    def action(self, t: Table, player: Player) -> tuple:
        return t.rng.choice(legal_actions(t, player))

    def extra_pour(self, t: Table, player: Player):
        targets = t.pour_targets(player)
        if not targets or t.rng.random() < 0.5:
            return None
        return t.rng.randrange(len(player.hand)), t.rng.choice(targets)

    def overflow_choice(self, t: Table, pourer: Player, part: Part) -> int:
        return t.rng.randrange(len(part.metals))

    def bounce_target(self, t: Table, player: Player, metal: int, options: list[Part]) -> Part:
        return t.rng.choice(options)

    def wants_end(self, t: Table, player: Player) -> bool:
        return t.rng.random() < 0.25


def _after_overflow(t: Table, part: Part, metal: int, maximise: bool) -> tuple[int, int, int]:
    """The metals' mask, fill and sword points of `part` after `metal` overflows it: the earliest
    metal out (earliest_out), or the one the pourer picks (best for its owner or worst: `maximise`)."""
    key = (part.card, tuple(part.metals), metal, maximise, t.earliest_out)
    found = _OVERFLOWS.get(key)
    if found is None:
        found = _OVERFLOWS[key] = _overflow(t, part, metal, maximise)
    return found


def _overflow(t: Table, part: Part, metal: int, maximise: bool) -> tuple[int, int, int]:
    metals = part.metals + [metal]
    options = [0] if t.earliest_out else range(len(metals))
    best = None
    for out in options:
        has, filled = fill(part.card, metals[:out] + metals[out + 1:])
        score = part_score(part.card, has, filled)
        if best is None or (score > best[2] if maximise else score < best[2]):
            best = (has, filled, score, out)
    return best[0], best[1], best[2]


def _utility(card: CardRule) -> tuple[tuple[float, int], ...]:
    """(what the ability is worth, its metal mask) for each of the card's abilities, in order (kept on the card)."""
    utility = card.utility
    if utility is None:
        utility = card.utility = tuple((UTILITY.get(kind, 0.0), m) for kind, m, _ in card.abilities)
    return utility


# _damage's answers: (card, metals, earliest_out) -> {metal: the sword points and ability worth lost}
_DAMAGES: dict[tuple, dict[int, float]] = {}


def _damages(t: Table, part: Part) -> dict[int, float]:
    """_damage's figures for another player's complete `part` as it is, per metal (once per state,
    kept on the part until it changes)."""
    damages = part.damages
    if damages is None:
        key = (part.card, tuple(part.metals), t.earliest_out)
        damages = _DAMAGES.get(key)
        if damages is None:
            damages = _DAMAGES[key] = {}
        part.damages = damages
    return damages


def _damage(t: Table, part: Part, metal: int) -> float:
    """What pouring `metal` into another player's complete `part` takes from its owner: the sword
    points the overflow costs and the abilities it switches off."""
    card = part.card
    old = part.score  # part_score(card, part.has, part.filled)
    has, _, new = _after_overflow(t, part, metal, maximise=False)
    damage: float = old - new
    old_has = part.has
    if has != old_has:  # otherwise no ability switches off
        for value, m in _utility(card):
            if old_has & m and not has & m:
                damage += value
    return damage


def _done_types(player: Player) -> set[str]:
    """The types of the player's complete parts (the player's own set: read, never change it)."""
    return player.done


STRATEGIES = {
    "greedy": Weights(),
    "rush": Weights(progress=0.5, need=4.0, duplicate=4.0, spread=1.5, max_parts=3, sabotage=0.0, end="asap"),
    "builder": Weights(progress=1.3, need=1.0, duplicate=0.3, spread=0.3, max_parts=6, sabotage=0.3, end="margin"),
    "saboteur": Weights(sabotage=3.0, end="lead"),
}
BOTS = ("random", *STRATEGIES)


def make_bot(name: str):
    if name == "random":
        return RandomPlayer()
    return Strategy(name, STRATEGIES[name])
