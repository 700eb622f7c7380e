"""One True King's bots: how a seat chooses where its King starts and which card to move.

- random: any legal move, chosen uniformly; its King starts on any edge space allowed.
- greedy: the greedy attacker. Scores every move: an attack by the chance it wins (from the cards
  nobody has seen) times what it removes, less the chance it loses times what it risks; any other
  move by how much nearer it brings the card to the enemy King, less the danger of ending next to
  an enemy card that beats it. Its King starts next to as few enemy cards as it can, then as far
  from the enemy King as it can.
- cautious: like greedy, but attacks only when it wins at least 80% of the time, and keeps its
  King out of reach of enemy cards.
Every choice between equal moves is random (from the game's seed).
"""

from __future__ import annotations

BOTS = ("random", "greedy", "cautious")


def _distance(game, a: int, b: int) -> int:
    ra, ca = divmod(a, game.cols)
    rb, cb = divmod(b, game.cols)
    return abs(ra - rb) + abs(ca - cb)


def _king_at(game, player: int) -> int | None:
    king = game.kings[game.player_army[player]]
    return next((i for i, stack in enumerate(game.board) if king in stack), None)


class RandomBot:
    def place(self, game, player: int, spaces: list[int]) -> int:
        return game.rng.choice(spaces)

    def move(self, game, player: int, moves: list[tuple[int, int]]) -> tuple[int, int]:
        return game.rng.choice(moves)


class GreedyBot:
    def __init__(self, min_odds: float = 0.0, guard: float = 0.5):
        self.min_odds, self.guard = min_odds, guard

    def place(self, game, player: int, spaces: list[int]) -> int:
        """Fewest enemy cards next to it first, then as far as it can from the enemy King."""
        foe = _king_at(game, 1 - player)

        def key(s: int) -> tuple[int, int]:
            threats = sum(1 for j in game.neighbours(s) if game.board[j] and game.owner(game.board[j][-1]) == 1 - player)
            return (-threats, _distance(game, s, foe) if foe is not None else 0)

        best = max(key(s) for s in spaces)
        return game.rng.choice([s for s in spaces if key(s) == best])

    def _danger(self, game, player: int, card: int, at: int) -> float:
        """What the card risks standing on `at`: enemy neighbours at least as strong as it."""
        mine = game.strength(card)
        worst = 0.0
        for j in game.neighbours(at):
            stack = game.board[j]
            if stack and game.owner(stack[-1]) == 1 - player:
                enemy = stack[-1]
                if enemy >= game.n and card >= game.n:
                    return 1.0  # the enemy King kills a King whatever the strength
                if game.strength(enemy) >= mine:
                    worst = 1.0
        return worst

    def score(self, game, player: int, move: tuple[int, int]) -> float:
        i, j = move
        card = game.board[i][-1]
        there = game.board[j]
        value = 100.0 if card >= game.n else float(game.rank[card])
        if there and game.owner(there[-1]) == 1 - player:
            odds, gain, risk = game.attack_odds(player, move)
            if odds < self.min_odds:
                return -1000.0
            return odds * gain - (1 - odds) * risk
        foe = _king_at(game, 1 - player)
        approach = 0.0
        if foe is not None and card < game.n:
            approach = 0.5 * (_distance(game, i, foe) - _distance(game, j, foe))
        guard = self.guard * (10 if card >= game.n else 1)
        return approach - guard * value * self._danger(game, player, card, j) / 10

    def move(self, game, player: int, moves: list[tuple[int, int]]) -> tuple[int, int]:
        scored = [(self.score(game, player, m), m) for m in moves]
        best = max(s for s, _ in scored)
        return game.rng.choice([m for s, m in scored if s == best])


def make_bot(name: str):
    if name == "random":
        return RandomBot()
    if name == "greedy":
        return GreedyBot()
    if name == "cautious":
        return GreedyBot(min_odds=0.8, guard=3.0)
    raise ValueError(f"unknown bot {name}")
