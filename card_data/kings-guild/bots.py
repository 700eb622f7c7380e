"""The King's Guild's bots: how a seat chooses its action, its Treasures, its bid and its Rooms' places.

- greedy: points first. Crafts a Mission whenever it can pay one (the one worth most: its point,
  its symbols for its Rooms and Specialists, its Treasures, its coins); otherwise Expands when it can
  buy at least 2 points; otherwise Gathers towards the Mission nearest to done. Bids up to the
  Statue's points less one at the Funeral. On the last turn it puts its Seal on the Offering when
  it cannot craft.
- builder: the economy player. Expands whenever it can buy anything (Rooms first, the precious
  resources' Rooms and places for Specialists valued highly), crafts for coins otherwise, and bids
  up to half its coins. Always puts its Seal on the Offering on the last turn.
Both discard Treasures with a power at once (points face down, coins, resources while there is
room), keep the discounts for an Expand, and keep Charms and Relics for the end. Ties between
equal choices are broken by the game's seed.
"""

from __future__ import annotations

from typing import Any

BOTS = ("greedy", "builder")


class Bot:
    expand_threshold = 2.0
    expand_first = False

    # --- values ------------------------------------------------------------------------------

    def treasure_value(self, game, p, card: dict[str, Any]) -> float:
        value = float(card["punti"]) if card["set"] else 0.0
        if card["set"] == "charms":
            value += 1.0
        for kind, prm in card["fx"]:
            value += {"monete": 0.6, "punti": 1.0, "risorse": 0.5, "risorse_a_scelta": 0.6}.get(kind, 0.3) * prm.get("amount", 2)
        return value

    def mission_value(self, game, p, m: dict[str, Any]) -> float:
        t = game.t
        value = t["per_mission"] + 0.4 * (m["monete"] + p.sums.get("monete_per_missione", 0))
        matched = p.matched
        for sym in m["simboli"]:
            value += matched.get(("punti_per_simbolo", "simbolo", sym), 0)
        return value + 1.5 * len(m["tesori"])

    def room_value(self, game, p, room: dict[str, Any]) -> float:
        value = room["punti"] + 0.5 * room["posti"]
        for kind, prm in room["fx"]:
            if kind == "sblocca":
                value += 1.5 if any(prm["risorsa"] in s for m in game.row for s in m["sets"]) else 0.5
            elif kind == "punti_per_simbolo":
                value += 0.6 * sum(1 for m in p.missions if prm["simbolo"] in m["simboli"]) + 0.5
            elif kind in ("punti_per_specialista", "punti_per_stanza"):
                value += 0.7 * prm["amount"] * (len(p.specialists) + len(p.rooms)) / 2
            else:
                value += 0.7
        return value

    def spec_value(self, game, p, spec: dict[str, Any]) -> float:
        value = spec["punti"] + 0.6 * len(spec["fx"])
        for kind, prm in spec["fx"]:
            if kind == "punti_per_simbolo":
                value += sum(1 for m in p.missions if prm["simbolo"] in m["simboli"])
        return value

    # --- helpers the engine calls --------------------------------------------------------------

    def target(self, game, p) -> tuple[dict[str, int], dict[str, Any] | None]:
        """The Mission nearest to done that p can gather for, and what it still lacks."""
        best, lack_best, best_key = None, None, None
        res, gatherable = p.res, p.gatherable
        for m in game.row:
            pay, short = game.mission_need(p, m)  # short: what the Mission still lacks, summed
            if best_key is not None and short > best_key[0]:
                continue  # nearer Missions are known (whether this one can be gathered for or not)
            lack = {}
            for r, n in pay.items():
                have = res[r]
                if n > have:
                    if r not in gatherable:
                        break
                    lack[r] = n - have
                else:
                    lack[r] = 0
            else:
                key = (short, -self.mission_value(game, p, m))
                if best_key is None or key < best_key:
                    best, lack_best, best_key = m, lack, key
        return (lack_best if lack_best is not None else {}), best

    def wanted_resource(self, game, p) -> str | None:
        lack, _ = self.target(game, p)
        wanted = [r for r, n in lack.items() if n and r in game.t["common"] and game.supply[r]]
        if wanted:
            return max(wanted, key=lambda r: lack[r])
        common = [r for r in game.t["common"] if game.supply[r]]
        return game.rng.choice(common) if common else None

    def swap(self, game, p, amount: int) -> None:
        lack, _ = self.target(game, p)
        for _ in range(amount):
            want = [r for r, n in lack.items() if n and r in game.t["common"] and game.supply[r]]
            spare = [r for r in game.t["common"] if p.res[r] and not lack.get(r)]
            if not want or not spare:
                return
            give, take = max(spare, key=lambda r: p.res[r]), want[0]
            p.res[give] -= 1
            game.supply[give] += 1
            p.res[take] += 1
            game.supply[take] -= 1
            lack[take] -= 1

    def bid(self, game, p) -> int:
        return min(p.coins, game.rng.randint(0, max(0, game.t["statue"]["punti"] - 1)))

    def room_cell(self, game, p, cells: list[int]) -> int:
        order = {"punti": 0, "monete": 1, "tesoro": 2}

        def key(i: int) -> int:
            r, c = game.cells[i]
            letter = game.t["grid"][r][c]
            return order[game.t["bonus"][letter][0]] if letter in game.t["bonus"] else 9

        best = min(key(i) for i in cells)
        return game.rng.choice([i for i in cells if key(i) == best])

    # --- a turn -------------------------------------------------------------------------------------

    def use_treasures(self, game, p) -> int:
        extra = 0
        for card in list(p.hand):
            kinds = {k for k, _ in card["fx"]}
            if not kinds or kinds & {"sconto_stanze", "sconto_specialisti", "scambio"}:
                continue
            if kinds & {"risorse", "risorse_a_scelta"} and p.stored() >= p.capacity:
                continue
            extra += game.discard(p, card, use=True)
        return extra

    def expand_options(self, game, p) -> tuple[float, Any, Any]:
        """The best purchase: (value, (room index, cell) or None, specialist slot or None)."""
        room_discount = spec_discount = 0
        for c in p.hand:
            for kind, prm in c["fx"]:
                if kind == "sconto_stanze":
                    room_discount += prm["amount"]
                elif kind == "sconto_specialisti":
                    spec_discount += prm["amount"]
        coins = p.coins
        rooms: list[tuple[float, Any, int]] = [(0.0, None, 0)]
        if game.free_cells(p):
            owned = {r["id"] for r in p.rooms.values()}
            for i, room in enumerate(game.room_row):
                price = max(0, game.room_price(p, room) - room_discount)
                if room["id"] not in owned and price <= coins:
                    rooms.append((self.room_value(game, p, room), i, price))
        # the Specialists' prices and values do not depend on the Room bought with them: once per turn
        specs = None
        best: tuple[float, Any, Any] = (0.0, None, None)
        for rv, ri, rprice in rooms:
            places = p.places + (game.room_row[ri]["posti"] if ri is not None else 0)
            if rv > best[0]:  # max(best, ..., key=value): the first of equal values stays
                best = (rv, (ri, None) if ri is not None else None, None)
            if len(p.specialists) >= places:
                continue
            if specs is None:
                specs = [(slot, max(0, game.spec_price(p, slot) - spec_discount), self.spec_value(game, p, spec))
                         for slot, (spec, _) in enumerate(game.spec_row) if spec is not None]
            for slot, price, sv in specs:
                if rprice + price <= coins:
                    v = rv + sv
                    if v > best[0]:
                        best = (v, (ri, None) if ri is not None else None, slot)
        return best

    def expand(self, game, p, room, slot) -> None:
        game.expand_income(p)
        for card in list(p.hand):  # the discounts, used now
            kinds = {k for k, _ in card["fx"]}
            if ("sconto_stanze" in kinds and room is not None) or ("sconto_specialisti" in kinds and slot is not None):
                game.discard(p, card, use=True)
        if room is not None:
            game.build(p, room[0], self.room_cell(game, p, game.free_cells(p)))
        if slot is not None and game.spec_row[slot][0] is not None and game.spec_price(p, slot) <= p.coins:
            game.hire(p, slot)

    def gather(self, game, p, lack: dict[str, int] | None = None) -> None:
        """`lack`: target()'s, when the caller asked it of the board as it still is."""
        t = game.t
        if lack is None:
            lack, _ = self.target(game, p)
        gatherable, supply = p.gatherable, game.supply
        ok = [r for r in t["resources"] if r in gatherable and supply[r]]
        if not ok:
            game.gather(p, {}, {})
            return
        wanted = sorted((r for r in ok if lack.get(r)), key=lambda r: -lack[r])
        if wanted and (lack[wanted[0]] >= 2 or len(wanted) == 1):
            take = {wanted[0]: t["same"]}
        elif wanted:
            take = {r: 1 for r in wanted[:t["different"]]}
        else:
            r = max(ok, key=lambda r: (r in t["precious"], game.supply[r]))
            take = {r: t["same"]}
        room = p.capacity - p.stored()
        want = sum(take.values())
        give_back: dict[str, int] = {}
        if want > room:
            for r in sorted(t["resources"], key=lambda r: -p.res[r]):
                if lack.get(r) or r in take:
                    continue
                n = min(p.res[r], want - room - sum(give_back.values()))
                if n > 0:
                    give_back[r] = n
        game.gather(p, take, give_back)

    def unlock(self, game, p) -> bool:
        """No face-up Mission can be gathered for: buy the Room that unlocks a precious resource
        they need (coins from Treasures if short, the least worth first), or any Room to turn the market."""
        needed = {r for m in game.row for s in m["sets"] for r in s if r not in p.gatherable}
        owned = {r["id"] for r in p.rooms.values()}
        cells = game.free_cells(p)
        if not cells:
            return False
        rooms = [(k, room) for k, room in enumerate(game.room_row) if room["id"] not in owned]
        useful = [(k, room) for k, room in rooms if any(kind == "sblocca" and prm["risorsa"] in needed
                                                         for kind, prm in room["fx"])] or rooms
        if not useful:
            return False
        k, room = min(useful, key=lambda kr: game.room_price(p, kr[1]))
        for card in sorted(p.hand, key=lambda c: self.treasure_value(game, p, c)):
            if game.room_price(p, room) <= p.coins:
                break
            game.discard(p, card, use=False)  # the only other income: even Charms and Relics
        if game.room_price(p, room) > p.coins:
            return False
        self.expand(game, p, (k, None), None)
        return True

    def action(self, game, i: int, p) -> None:
        craftable = [(self.mission_value(game, p, m), k) for k, m in enumerate(game.row)
                     if game.mission_need(p, m)[1] == 0]
        value, room, slot = self.expand_options(game, p)
        can_expand = (room is not None or slot is not None) and value >= self.expand_threshold
        if self.expand_first and can_expand:
            self.expand(game, p, room, slot)
        elif craftable:
            game.craft(p, max(craftable)[1])
        elif can_expand:
            self.expand(game, p, room, slot)
        else:
            lack, mission = self.target(game, p)
            if mission is not None:
                self.gather(game, p, lack)  # nothing changed since target(): its answer stands
            elif not self.unlock(game, p):
                self.gather(game, p)  # unlock may have spent Treasures: asked again

    def offering_worth(self, game, p) -> bool:
        if p.seals <= 0 or p.offering:
            return False
        craftable = any(game.mission_need(p, m)[1] == 0 for m in game.row)
        return not craftable

    def take_turn(self, game, i: int, p, last: bool) -> None:
        extra = self.use_treasures(game, p)
        if last and self.offering_worth(game, p):
            p.seals -= 1
            p.offering = True
        else:
            self.action(game, i, p)
        for _ in range(extra):
            if game.last_turns == 0:
                break
            self.action(game, i, p)


class GreedyBot(Bot):
    pass


class BuilderBot(Bot):
    expand_threshold = 1.0
    expand_first = True

    def room_value(self, game, p, room: dict[str, Any]) -> float:
        return super().room_value(game, p, room) + room["posti"]

    def bid(self, game, p) -> int:
        return game.rng.randint(p.coins // 3, max(p.coins // 3, p.coins // 2))

    def offering_worth(self, game, p) -> bool:
        return p.seals > 0 and not p.offering


def make_bot(name: str):
    if name == "greedy":
        return GreedyBot()
    if name == "builder":
        return BuilderBot()
    raise ValueError(f"unknown bot {name}")
