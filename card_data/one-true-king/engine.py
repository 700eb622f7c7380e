"""One True King's rules engine for `cardgen simulate`: the version as plain data, one game played.

Everything the engine plays is a rule of the version (game.yml's `rules:`): the set-up grid, the
spare cards, the advantage limit, the cards per space, the armies, and the four table rules the
submission leaves open (set_up_sums, overwrite, equal_sums, pair_defeated). A value the engine
has no reading for is an error naming the rule and the values it can play.

The board is a grid of spaces, each a stack of cards (bottom first). A card is an index into the
table's cards; the two Kings come after the number cards. Face-down cards belong to nobody until
an attack flips them; a covered card (overwrite: cover) never counts again: it only takes room.
Player 0 (the first seat) plays the army without the advantage: they place their King first and
move first, as the rulebook says.
"""

from __future__ import annotations

from random import Random
from typing import Any

from cardgen.data.setup import deal

READINGS = {
    "set_up_sums": ("face_up", "all_cards"),
    "overwrite": ("replace_face_up", "cover"),
    "equal_sums": ("spare_card_decides", "black_advantage"),
    "pair_defeated": ("both_removed", "top_removed"),
}
KING_VALUE = 100  # what a bot loses with its King: the game


class RuleError(Exception):
    """The version's rules cannot be played (one line, naming the rule)."""


def compile_table(snapshot) -> dict[str, Any]:
    """The version as plain data: cards (rank, army), the grid and the rules the engine plays."""
    rules = snapshot.rules
    for name, values in READINGS.items():
        if rules.get(name) not in values:
            raise RuleError(f"rule {name}: {rules.get(name)!r} cannot be played (the simulator plays "
                            f"{', '.join(values)})")
    armies = [sid for sid, s in snapshot.symbols.items() if s.kind == "army"]
    if len(armies) != 2:
        raise RuleError(f"One True King is played by two armies, the version has {len(armies)}")
    suit_army = rules.get("armies") or {}
    ranks, army, names, ids = [], [], [], []
    for card in snapshot.cards_in_deck("field"):
        for _ in range(card.count):
            ids.append(card.id)
            names.append(card.name)
            ranks.append(int(card.fields["rank"]))
            army.append(armies.index(suit_army[card.fields["suit"]]))
    kings = {armies.index(k.fields["army"]): k for k in snapshot.cards_in_deck("kings") if k.count}
    if set(kings) != {0, 1}:
        raise RuleError("each army needs its King")
    for a in (0, 1):  # the Kings follow the number cards: index n (first army), n + 1 (second)
        ids.append(kings[a].id)
        names.append(kings[a].name)
        ranks.append(0)
        army.append(a)
    grid, spare = first_position(snapshot)
    if sum(len(row) for row in grid) + spare != len(ranks) - 2:
        raise RuleError("the grid and the spare cards do not use exactly the field's cards")
    if rules["equal_sums"] == "spare_card_decides" and spare == 0:
        raise RuleError("rule equal_sums: spare_card_decides needs spare cards, and spare_cards is 0")
    black = armies.index("black") if "black" in armies else 1
    return {
        "ids": ids, "names": names, "rank": ranks, "army": army, "armies": armies,
        "army_names": [snapshot.symbols[a].name for a in armies], "numbers": len(ranks) - 2,
        "grid": grid, "rows": len(grid), "cols": len(grid[0]), "spare": spare,
        "limit": int(rules["advantage_limit"]), "stack": int(rules["stack_limit"]),
        "black": black, **{name: rules[name] for name in READINGS},
    }


def first_position(snapshot) -> tuple[list[str], int]:
    """The field as the set-up data lays it out (game.yml `setup:`, dealt by cardgen.data.setup.deal,
    as the rulebook's figure and the Tabletop Simulator table are): its grid's rows of D (face
    down) and U (face up), and the spare cards left in the pile it was dealt from. Each game
    shuffles the cards again from its own seed and lays them out by this grid."""
    table = deal(snapshot, 2)
    field = next((p for p in table.shared if p.grid_rows), None)
    if field is None:
        raise RuleError("the set-up lays out no grid of cards (a place with `grid:` in game.yml's setup)")
    spare = sum(len(p.cards) for p in table.shared if p.id == field.place.from_)
    return list(field.grid_rows or []), spare


class Game:
    """One game of One True King, from a seed, with a bot in each seat (seat 0 moves first)."""

    def __init__(self, table: dict[str, Any], rng: Random, bots: list[Any]):
        self.t, self.rng, self.bots = table, rng, bots
        self.rank, self.army = table["rank"], table["army"]
        self.n = table["numbers"]
        self.kings = (self.n, self.n + 1)
        self.rows, self.cols, self.stack = table["rows"], table["cols"], table["stack"]
        self.board: list[list[int]] = []
        self.face_down: set[int] = set()
        self.covered: set[int] = set()
        self.spares: list[int] = []
        self.player_army = [0, 1]  # player -> army; set by the set-up
        self.tallies: dict[str, int] = {}
        self.field_series: list[int] = []

    # --- the board ---------------------------------------------------------------------------

    def cell(self, r: int, c: int) -> int:
        return r * self.cols + c

    def neighbours(self, i: int) -> list[int]:
        r, c = divmod(i, self.cols)
        out = []
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < self.rows and 0 <= cc < self.cols:
                out.append(rr * self.cols + cc)
        return out

    def live(self, card: int) -> bool:
        """A card that counts: face up and not covered (a King always counts)."""
        return card not in self.face_down and card not in self.covered

    def owner(self, card: int) -> int | None:
        """The player a card fights for, or None (face down or covered: nobody's)."""
        return self.player_army.index(self.army[card]) if self.live(card) else None

    def strongest(self, player: int) -> int:
        """The strongest number card of this player's on the field (their King not counted)."""
        a = self.player_army[player]
        return max((self.rank[c] for stack in self.board for c in stack
                    if c < self.n and self.army[c] == a and self.live(c)), default=0)

    def strength(self, card: int) -> int:
        if card >= self.n:  # a King: as strong as the opponent's strongest card
            return self.strongest(1 - self.owner(card))  # type: ignore[operator]
        return self.rank[card]

    def unseen(self) -> list[int]:
        """The cards nobody has seen: face down on the field, and the spare cards left."""
        return [c for stack in self.board for c in stack if c in self.face_down] + list(self.spares)

    # --- set-up -------------------------------------------------------------------------------

    def sums(self, counted: list[int]) -> list[int]:
        sums = [0, 0]
        for c in counted:
            sums[self.army[c]] += self.rank[c]
        return sums

    def counted(self) -> list[int]:
        """The cards the set-up sums count (rule set_up_sums): top cards only, never covered ones."""
        out = []
        for stack in self.board:
            if stack and stack[-1] not in self.covered:
                if self.t["set_up_sums"] == "all_cards" or stack[-1] not in self.face_down:
                    out.append(stack[-1])
        return out

    def set_up(self) -> int:
        """Lay out the field, find the advantage, overwrite; returns the advantaged army."""
        deck = list(range(self.n))
        self.rng.shuffle(deck)
        cells = [kind for row in self.t["grid"] for kind in row]
        self.board = [[deck[i]] for i in range(len(cells))]
        self.face_down = {deck[i] for i, kind in enumerate(cells) if kind == "D"}
        self.spares = deck[len(cells):]
        sums = self.sums(self.counted())
        if sums[0] != sums[1]:
            adv = 0 if sums[0] > sums[1] else 1
        elif self.t["equal_sums"] == "spare_card_decides":
            adv = self.army[self.spares[0]]  # turned over and put back on top
            self.tallies["equal_sums"] = 1
        else:
            adv = self.t["black"]
            self.tallies["equal_sums"] = 1
        overwrites = 0
        while sums[adv] - sums[1 - adv] > self.t["limit"] and self.spares:
            mine = [c for c in self.counted() if self.army[c] == adv]
            target = max(mine, key=lambda c: self.rank[c])  # the first of the strongest, reading order
            new = self.spares.pop(0)
            stack = next(s for s in self.board if s and s[-1] == target)
            if self.t["overwrite"] == "replace_face_up":
                stack[-1] = new
                self.face_down.discard(target)
            else:  # cover: on top of it; the covered card never counts again
                stack.append(new)
                self.covered.add(target)
            overwrites += 1
            sums = self.sums(self.counted())
        self.tallies["overwrites"] = overwrites
        diff = sums[adv] - sums[1 - adv]
        self.tallies["start_difference"] = abs(diff)
        if diff > self.t["limit"]:
            self.tallies["spares_ran_out"] = 1
        self.start_diff = diff
        return adv

    def king_spaces(self) -> list[int]:
        """Face-down cards at the edge of the field, with room for a King on top."""
        out = []
        for i, stack in enumerate(self.board):
            r, c = divmod(i, self.cols)
            edge = r in (0, self.rows - 1) or c in (0, self.cols - 1)
            if edge and stack and stack[-1] in self.face_down and len(stack) < self.stack:
                out.append(i)
        return out

    # --- moves -------------------------------------------------------------------------------

    def moves(self, player: int) -> list[tuple[int, int]]:
        """Every legal move (from, to): a top card of yours, one space up, down, left or right."""
        out = []
        for i, stack in enumerate(self.board):
            if not stack or self.owner(stack[-1]) != player:
                continue
            card = stack[-1]
            for j in self.neighbours(i):
                there = self.board[j]
                if not there:
                    out.append((i, j))
                    continue
                top = self.owner(there[-1])
                if top is None or top == player:  # onto a face-down card, or one of yours
                    if len(there) >= self.stack:
                        continue
                    if top == player and card >= self.n and there[-1] < self.n:
                        continue  # a King never moves onto one of your face-up cards
                    out.append((i, j))
                else:
                    out.append((i, j))  # an attack
        return out

    def attack_odds(self, player: int, move: tuple[int, int]) -> tuple[float, int, int]:
        """For a bot: the chance an attack wins, given the cards nobody has seen; the value it
        removes from the defender and the value the attacker risks."""
        i, j = move
        card, there = self.board[i][-1], self.board[j]
        defenders = [c for c in there if self.live(c)]
        foe_king = self.kings[self.player_army[1 - player]]
        at_stake = sum(KING_VALUE if c >= self.n else self.rank[c] for c in defenders)
        risk = KING_VALUE if card >= self.n else self.rank[card]
        if card >= self.n and foe_king in defenders:
            return 1.0, at_stake, risk
        att, dfn = self.strength(card), sum(self.strength(c) for c in defenders)
        hidden = sum(1 for c in there if c in self.face_down)
        if not hidden:
            return (1.0 if att >= dfn else 0.0), at_stake, risk
        pool = self.unseen()
        mine = self.player_army[player]
        wins = sum(1 for c in pool if att + (self.rank[c] if self.army[c] == mine else 0)
                   >= dfn + (self.rank[c] if self.army[c] != mine else 0) * hidden)
        return wins / max(1, len(pool)), at_stake, risk

    def apply(self, player: int, move: tuple[int, int]) -> int | None:
        """Play a move; returns the winner when a King left the board."""
        i, j = move
        card = self.board[i][-1]
        there = self.board[j]
        if not there or self.owner(there[-1]) in (None, player):
            self.board[i].pop()
            there.append(card)
            return None
        # an attack: flip the face-down cards, compare, remove
        defenders = [c for c in there if self.live(c)]
        flipped = [c for c in there if c in self.face_down]
        mine = self.player_army[player]
        foe_king = self.kings[self.player_army[1 - player]]
        self.tallies["attacks"] = self.tallies.get("attacks", 0) + 1
        if card >= self.n and foe_king in defenders:  # King against King: whatever the strength
            self.tallies["end:king_by_king"] = 1
            return player
        att = self.strength(card) + sum(self.rank[c] for c in flipped if self.army[c] == mine)
        dfn = sum(self.strength(c) for c in defenders) + sum(self.rank[c] for c in flipped if self.army[c] != mine)
        for c in flipped:
            there.remove(c)
            self.face_down.discard(c)
        if att >= dfn:  # the attacker wins ties
            self.tallies["attacks_won"] = self.tallies.get("attacks_won", 0) + 1
            if self.t["pair_defeated"] == "top_removed" and len(defenders) > 1:
                beaten = [defenders[-1]]
            else:
                beaten = defenders
            for c in beaten:
                there.remove(c)
            if foe_king in beaten:
                self.tallies["end:king_by_card"] = 1
                return player
            if not any(self.live(c) for c in there):  # the space is taken
                there.clear()
                self.board[i].pop()
                there.append(card)
            return None
        self.board[i].pop()  # the attacker is defeated
        if card >= self.n:
            self.tallies["end:king_lost_attacking"] = 1
            return 1 - player
        return None

    def field_cards(self) -> int:
        return sum(1 for stack in self.board for c in stack if c < self.n and self.live(c))

    # --- one game -----------------------------------------------------------------------------

    def play(self, seats: list[str], max_turns: int) -> dict[str, Any]:
        adv = self.set_up()
        self.player_army = [1 - adv, adv]  # seat 0: the player without the advantage
        for player in (0, 1):
            spaces = self.king_spaces()
            if not spaces:
                return self._record(seats, 0, None, None, "no space for a King")
            where = self.bots[player].place(self, player, spaces)
            self.board[where].append(self.kings[self.player_army[player]])
        in_play = [c for stack in self.board for c in stack if c < self.n]
        turns, winner, stall, mover = 0, None, None, None
        while winner is None:
            if turns >= max_turns:
                stall = "turn cap"
                break
            player = turns % 2
            moves = self.moves(player)
            if not moves:
                stall = "no legal action"
                break
            winner, mover = self.apply(player, self.bots[player].move(self, player, moves)), player
            turns += 1
            if turns % 2 == 0:
                self.field_series.append(self.field_cards())
        record = self._record(seats, turns, winner, mover, stall)
        alive = {c for stack in self.board for c in stack if c < self.n and self.live(c)}
        record["parts"] = [(self.t["ids"][c], "number", self.player_army.index(self.army[c]), c in alive)
                           for c in in_play]
        return record

    def _record(self, seats: list[str], turns: int, winner: int | None, mover: int | None,
                stall: str | None) -> dict[str, Any]:
        ended = winner is not None
        tallies = dict(self.tallies)
        if ended:
            d = self.start_diff
            tallies[f"diff:{d}:games"] = 1
            tallies[f"diff:{d}:advantaged_wins"] = int(winner == 1)
            tallies[f"win:{self.t['armies'][self.player_army[winner]]}"] = 1  # type: ignore[index]
        return {"seats": list(seats), "ended": ended, "ender": mover if ended else None, "stall": stall, "turns": turns,
                "scores": [int(winner == p) for p in (0, 1)] if ended else [0, 0],
                "winners": [winner] if ended else [], "parts": [],
                "series": {"field": self.field_series}, "events": {}, "tallies": tallies}
