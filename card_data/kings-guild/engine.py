"""The King's Guild's rules engine for `cardgen simulate`: the version as plain data, one game played.

Every value comes from the version (rules: and cards): the gathering limits, the board's storage,
the Treasure hand limit, the starting coins, the face-up Missions, Rooms and Specialists, the price
drop, the Seals, where the Funeral and the Offering lie, the Charms bonus, the points per Mission,
the supply, the precious resources and their Rooms, the room grid and its bonus places. An effect
kind the engine cannot play is an error naming the card and the effect.

Simplified on purpose (docs/simulate.md says so): a double Mission is paid whole in one action
(both sets at once, two Treasures), so Seals are used only on the Offering to the Council;
Specialists are not tied to a place (a player holds as many as their places), so `sposta` changes
nothing; a Specialist whose phase is Espandersi and gives coins pays them at each Expand action.
"""

from __future__ import annotations

import re
from random import Random
from typing import Any

from cardgen.data.setup import allowed_players, deal

# the effect kinds the engine plays, by where they act
PASSIVE = {"monete_per_missione", "sconto_stanze", "sconto_specialisti", "missione_sconto", "magazzino",
           "tesori_in_mano", "pesca_due", "sblocca", "raccolta_bonus", "asta", "sposta",
           "punti_per_simbolo", "punti_per_specialista", "punti_per_stanza", "punti_per_monete"}
ON_DISCARD = {"monete", "punti", "risorse", "risorse_a_scelta", "tesoro", "sconto_stanze",
              "sconto_specialisti", "scambio", "azione_extra"}
ON_EXPAND = {"monete"}  # a Specialist of phase `espansione`
BONUS_KINDS = ("monete", "punti", "tesoro")  # what a bonus place can give, read from its symbol's name
SOURCES = ("charms", "charms_majority", "relics", "treasures", "missions", "specialists", "rooms", "offering")
UNIT = 60  # lcm(1..6): a shared win is a fraction of a whole, kept in integer units


class RuleError(Exception):
    """The version's rules or cards cannot be played (one line, naming what)."""


def _effects(card, allowed: set[str], where: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for e in card.effects:
        if e.do not in allowed:
            raise RuleError(f"card {card.id} ({card.name}): effect '{e.do}' cannot be played {where} yet")
        out.append((e.do, dict(e.params)))
    return out


def compile_table(snapshot) -> dict[str, Any]:
    """The version as plain data."""
    rules = snapshot.rules
    sym = snapshot.symbols
    resources = [s for s, v in sym.items() if v.kind == "risorsa"]
    precious = dict(rules["risorse_pregiate"])
    common = [r for r in resources if r not in precious]
    colours = [s for s, v in sym.items() if v.kind == "colore-tesoro"]
    bonus = {}
    for letter, sid in rules["bonus_griglia"].items():
        name = sym[sid].name.lower()
        what = next((k for k in BONUS_KINDS if k in sid or k in name), None)
        number = re.search(r"\d+", name)
        colour = next((c for c in colours if sym[c].name.lower() in name), None)
        if what is None or (what != "tesoro" and number is None) or (what == "tesoro" and colour is None):
            raise RuleError(f"bonus place {letter} ({sid}, '{sym[sid].name}') cannot be played: the simulator "
                            "reads 'N monete', 'N punti' or 'Tesoro <colour>' from its name")
        bonus[letter] = (what, int(number.group()) if number else 0, colour)
    guilds = {}
    for card in snapshot.cards_of_type("gilda"):
        guilds[card.fields["gilda"]] = {"id": card.id, "name": card.name, "fx": _effects(card, PASSIVE, "by a Guild")}
    deck = []
    funeral = offering = None
    for card in snapshot.cards_in_deck("missioni"):
        for _ in range(card.count):
            if card.type == "funerale":
                funeral = {"id": card.id, "statua": card.fields["statua"]}
            elif card.type == "offerta":
                offering = {"id": card.id, "punti": int(card.fields["punti"]),
                            "per_punto": int(card.fields["risorse_per_punto"])}
            else:
                f = card.fields
                sets = [dict(f["risorse"])] + ([dict(f["risorse2"])] if f.get("risorse2") else [])
                need: dict[str, int] = {}  # what its sets ask for, summed
                for each in sets:
                    for r, n in each.items():
                        need[r] = need.get(r, 0) + n
                deck.append({"id": card.id, "name": card.name, "sets": sets, "need": need, "paid": {}, "monete": int(f["monete"]),
                             "tesori": list(f["tesori"]), "simboli": list(f.get("simboli") or [])})
    if funeral is None or offering is None:
        raise RuleError("the Mission deck needs the King's Funeral and the Offering to the Council")
    treasures = {c: [] for c in colours}
    for t in ("tesoro-rosso", "tesoro-giallo", "tesoro-blu"):
        for card in snapshot.cards_of_type(t):
            f = card.fields
            info = {"id": card.id, "name": card.name, "set": f.get("set"), "punti": int(f.get("punti") or 0),
                    "monete": int(f["monete"]), "fx": _effects(card, ON_DISCARD, "when a Treasure is discarded")}
            treasures[f["colore"]].extend([info] * card.count)
    specialists = []
    for card in snapshot.cards_of_type("specialista"):
        phase = card.fields["fase"]
        allowed = PASSIVE | (ON_EXPAND if phase == "espansione" else set())
        info = {"id": card.id, "name": card.name, "costo": int(card.fields["costo"]), "punti": int(card.fields["punti"]),
                "fase": phase, "fx": _effects(card, allowed, f"by a Specialist of phase {phase}")}
        specialists.extend([info] * card.count)
    rooms, statue = [], None
    for card in snapshot.cards_of_type("stanza"):
        f = card.fields
        info = {"id": card.id, "name": card.name, "costo": int(f["costo"]), "punti": int(f["punti"]),
                "posti": int(f["posti"]), "fx": _effects(card, PASSIVE, "by a Room")}
        if card.id == funeral["statua"]:
            statue = info
        elif f.get("mercato", True):
            rooms.extend([info] * card.count)
    if statue is None:
        raise RuleError(f"the King's Funeral awards Room '{funeral['statua']}', which does not exist")
    size = len(deck) + 2
    if int(rules["posizione_offerta"]) != size:
        raise RuleError(f"rule posizione_offerta: {rules['posizione_offerta']} but the Mission deck has {size} cards")
    grid = list(rules["griglia_stanze"])
    return {
        "resources": resources, "common": common, "precious": precious, "colours": colours,
        "guilds": guilds, "missions": deck, "funeral": funeral, "offering": offering, "treasures": treasures,
        "specialists": specialists, "rooms": rooms, "statue": statue, "grid": grid, "bonus": bonus,
        "same": int(rules["raccolta_stesso_tipo"]), "different": int(rules["raccolta_diverse"]),
        "storage": int(rules["magazzino"]), "hand": int(rules["tesori_in_mano"]),
        "coins": int(rules["monete_iniziali"]), "face_up": int(rules["missioni_scoperte"]),
        "room_row": int(rules["stanze_in_vendita"]), "spec_row": int(rules["specialisti_in_fila"]),
        "drop": int(rules["calo_prezzo"]), "seals": int(rules["sigilli_per_gilda"]),
        "funeral_at": int(rules["posizione_funerale"]), "charms_bonus": int(rules["charms_maggioranza"]),
        "per_mission": int(rules["punti_per_missione"]), "supply": dict(rules["riserva"]),
        "hall_places": int(rules["posti_sala"]),
        "setup": {n: first_position(snapshot, n) for n in allowed_players(snapshot)},
    }


def first_position(snapshot, players: int) -> dict[str, int]:
    """What the set-up data (game.yml `setup:`, dealt by cardgen.data.setup.deal, as the rulebook's
    figure and the Tabletop Simulator table are) puts on the table for `players`: the Missions face
    up and where the King's Funeral lies in their deck, the Rooms for sale, the Specialists in the
    row, and each player's coins (their value) and Seals. Each game shuffles the decks again from
    its own seed; these are the counts and positions it deals them by."""
    table = deal(snapshot, players)
    types = snapshot.game.card_types

    def mission(card) -> bool:
        return types[card.type].deck == "missioni"

    rows: dict[str, int] = {}  # deck -> cards face up in its row
    for placed in table.shared:
        if placed.kind == "row" and placed.cards:
            deck = types[placed.cards[0].type].deck
            rows[deck] = rows.get(deck, 0) + len(placed.cards)
    # the Mission deck as dealt, top first: the face-up row came off its top
    missions = [c for p in table.shared if p.kind == "row" for c in p.cards if mission(c)]
    missions += [c for p in table.shared if p.kind == "deck" for c in p.cards if mission(c)]
    funeral = next((i + 1 for i, c in enumerate(missions) if c.type == "funerale"), 0)
    seat = table.seats[0]
    coins = sum(int(c.fields["valore"]) for p in seat for c in p.cards if "valore" in c.fields)
    seals = sum(1 for p in seat for c in p.cards if c.type == "sigillo")
    return {"face_up": rows.get("missioni", 0), "room_row": rows.get("stanze", 0),
            "spec_row": rows.get("specialisti", 0), "funeral_at": funeral, "coins": coins, "seals": seals}


_NEIGHBOURS: dict[tuple, list[frozenset[int]]] = {}


def _neighbours(cells: list[tuple[int, int]]) -> list[frozenset[int]]:
    """For each cell of the room grid, the cells next to it (one step across or down), once per grid."""
    key = tuple(cells)
    found = _NEIGHBOURS.get(key)
    if found is None:
        found = _NEIGHBOURS[key] = [frozenset(j for j, (r2, c2) in enumerate(cells) if abs(r - r2) + abs(c - c2) == 1)
                                    for r, c in cells]
    return found


def _cell_index(key: int, size: int) -> int:
    if key < -size:
        raise IndexError("list index out of range")
    return key + size


class Player:
    def __init__(self, guild: str, table: dict[str, Any], start: dict[str, int] | None = None):
        start = start or table
        self.guild = guild
        self.coins = start["coins"]
        self.res = {r: 0 for r in table["resources"]}
        self.hand: list[dict[str, Any]] = []
        self.face_down = 0  # points of Treasures discarded for their points
        self.missions: list[dict[str, Any]] = []
        self.rooms: dict[int, dict[str, Any]] = {}  # grid cell -> Room
        self.room_points = 0  # bonus places' points
        self.specialists: list[dict[str, Any]] = []
        self.seals = start["seals"]
        self.offering = False
        self.statue = False
        self.discount_rooms = 0  # this turn, from a discarded Treasure
        self.discount_specialists = 0
        self.effects_changed(table)

    def effects_changed(self, table) -> None:
        """Sum the effects of the player's Guild, Rooms and Specialists, once each time a Room or a
        Specialist comes (they only grow): what total(), has() and the turn's questions read."""
        sums: dict[str, int] = {}  # kind -> its amounts summed
        matched: dict[tuple, int] = {}  # (kind, parameter, value) -> the amounts of those effects summed
        for fx in self.sources(table):
            for kind, prm in fx:
                amount = prm.get("amount", 1)
                sums[kind] = sums.get(kind, 0) + amount
                for name, value in prm.items():
                    if isinstance(value, (str, int)):
                        key = (kind, name, value)
                        matched[key] = matched.get(key, 0) + amount
        self.sums, self.matched = sums, matched
        self.kinds, self.matches = frozenset(sums), frozenset(matched)
        # the resources the player may gather: the common ones and the precious ones a Room unlocks
        self.gatherable = frozenset(r for r in table["resources"]
                                    if r not in table["precious"] or ("sblocca", "risorsa", r) in self.matches)
        self.capacity = table["storage"] + sums.get("magazzino", 0)
        self.hand_limit = table["hand"] + sums.get("tesori_in_mano", 0)
        self.places = table["hall_places"] + sum(r["posti"] for r in self.rooms.values())

    def sources(self, table):
        yield table["guilds"][self.guild]["fx"]
        for room in self.rooms.values():
            yield room["fx"]
        for s in self.specialists:
            yield s["fx"]

    def total(self, table, kind: str, **match) -> int:
        """The amounts of the player's effects of `kind` (whose parameters have the values `match`) summed."""
        if not match:
            return self.sums.get(kind, 0)
        if len(match) == 1:
            ((name, value),) = match.items()
            return self.matched.get((kind, name, value), 0)
        return sum(p.get("amount", 1) for fx in self.sources(table) for k, p in fx
                   if k == kind and all(p.get(a) == b for a, b in match.items()))

    def has(self, table, kind: str, **match) -> bool:
        if not match:
            return kind in self.kinds
        if len(match) == 1:
            ((name, value),) = match.items()
            return (kind, name, value) in self.matches
        return any(k == kind and all(p.get(a) == b for a, b in match.items())
                   for fx in self.sources(table) for k, p in fx)

    def stored(self) -> int:
        return sum(self.res.values())


class Game:
    """One game: seats in turn order (seat 0 plays first), each with its bot."""

    def __init__(self, table: dict[str, Any], rng: Random, bots: list[Any]):
        t = self.t = table
        self.rng, self.bots = rng, bots
        n = len(bots)
        guilds = list(t["guilds"])
        if n > len(guilds):
            raise RuleError(f"{n} players but {len(guilds)} Guilds")
        start = t["setup"][n]  # the first position the set-up data deals
        self.players = [Player(g, t, start) for g in rng.sample(guilds, n)]
        self.supply = dict(t["supply"])
        missions = list(t["missions"])
        rng.shuffle(missions)
        missions.insert(start["funeral_at"] - 1, {"id": t["funeral"]["id"], "funeral": True})
        missions.append({"id": t["offering"]["id"], "offering": True})
        self.deck = missions
        self.row: list[dict[str, Any]] = []
        self.tdecks = {c: rng.sample(cards, len(cards)) for c, cards in t["treasures"].items()}
        self.tdiscard: dict[str, list[dict[str, Any]]] = {c: [] for c in t["colours"]}
        self.room_deck = rng.sample(t["rooms"], len(t["rooms"]))
        self.room_row = [self.room_deck.pop() for _ in range(min(start["room_row"], len(self.room_deck)))]
        self.spec_deck = rng.sample(t["specialists"], len(t["specialists"]))
        self.spec_row: list[list[Any]] = []  # [Specialist, price drop] per place, left to right
        for _ in range(start["spec_row"]):
            self.spec_row.append([self.spec_deck.pop(), 0] if self.spec_deck else [None, 0])
        self.last_turns: int | None = None  # set when the Offering is drawn: turns left
        self.tallies: dict[str, int] = {}
        self.cells = [(r, c) for r, row in enumerate(t["grid"]) for c, ch in enumerate(row)]
        self.neighbours = _neighbours(self.cells)
        self.hall = next(i for i, (r, c) in enumerate(self.cells) if t["grid"][r][c] == "S")
        self.funeral_round: int | None = None
        self.turn = 0
        for _ in range(start["face_up"]):
            self.draw_mission(None)

    # --- helpers -------------------------------------------------------------------------------

    def tally(self, key: str, n: int = 1) -> None:
        self.tallies[key] = self.tallies.get(key, 0) + n

    def capacity(self, p: Player) -> int:
        return p.capacity

    def hand_limit(self, p: Player) -> int:
        return p.hand_limit

    def places(self, p: Player) -> int:
        return p.places

    def can_gather(self, p: Player, r: str) -> bool:
        return r in p.gatherable

    def free_cells(self, p: Player) -> list[int]:
        taken = set(p.rooms) | {self.hall}
        size = len(self.cells)
        # the cells next to a taken one (a Room beside the board, key -1 - k, stands for cell
        # size - 1 - k here, as Python's negative index has always read it)
        near = set()
        for j in taken:
            near.update(self.neighbours[j if j >= 0 else _cell_index(j, size)])
        return [i for i in range(size) if i in near and i not in taken]

    def room_price(self, p: Player, room: dict[str, Any]) -> int:
        return max(0, room["costo"] - p.sums.get("sconto_stanze", 0) - p.discount_rooms)

    def spec_price(self, p: Player, slot: int) -> int:
        spec, drop = self.spec_row[slot]
        return max(0, spec["costo"] - drop - p.sums.get("sconto_specialisti", 0) - p.discount_specialists)

    def mission_need(self, p: Player, mission: dict[str, Any]) -> tuple[dict[str, int], int] | None:
        """What paying the whole Mission takes from p's board (its discount spent on what p lacks
        first), and the shortfall left; None when the discount cannot cover it."""
        need = mission["need"]
        discount = p.sums.get("missione_sconto", 0)
        if not discount:  # nothing to spend: the Mission's own needs (shared: read only)
            res, short = p.res, 0
            for r, n in need.items():
                if n > res[r]:
                    short += n - res[r]
            return need, short
        # the answer depends only on the discount and what p holds of each resource the Mission needs:
        # kept on the Mission (bounded by the board's storage, so memory stays flat)
        key = (discount, *[p.res[r] for r in need])
        found = mission["paid"].get(key)
        if found is None:
            found = mission["paid"][key] = self._pay_with_discount(p, need, discount)
        return found

    @staticmethod
    def _pay_with_discount(p: Player, need: dict[str, int], discount: int) -> tuple[dict[str, int], int]:
        pay = dict(need)
        for r in sorted(pay, key=lambda r: p.res[r] - pay[r]):  # the scarcest first
            while discount and pay[r] > p.res[r]:
                pay[r] -= 1
                discount -= 1
        short = sum(max(0, n - p.res[r]) for r, n in pay.items())
        for r in sorted(pay, key=lambda r: -pay[r]):
            while discount and pay[r]:
                pay[r] -= 1
                discount -= 1
        return pay, short

    # --- the decks -----------------------------------------------------------------------------

    def draw_mission(self, player: int | None) -> None:
        while self.deck:
            card = self.deck.pop(0)
            if card.get("funeral"):
                self.funeral()
                continue
            if card.get("offering"):
                self.last_turns = len(self.players)
                self.tally("offering_drawn")
                return
            self.row.append(card)
            return

    def draw_treasure(self, p: Player, colour: str) -> None:
        deck = self.tdecks[colour]
        if not deck and self.tdiscard[colour]:
            deck.extend(self.rng.sample(self.tdiscard[colour], len(self.tdiscard[colour])))
            self.tdiscard[colour].clear()
            self.tally("treasure_reshuffles")
        if not deck:
            return
        drawn = [deck.pop()]
        if deck and "pesca_due" in p.kinds:
            drawn.append(deck.pop())
        keep = max(drawn, key=lambda c: self.bots[self.players.index(p)].treasure_value(self, p, c))
        drawn.remove(keep)
        deck[:0] = drawn  # the other goes to the bottom
        p.hand.append(keep)
        self.tally(f"treasures:{colour}")
        while len(p.hand) > self.hand_limit(p):
            worst = min(p.hand, key=lambda c: self.bots[self.players.index(p)].treasure_value(self, p, c))
            self.discard(p, worst, use=bool(worst["fx"]))

    def discard(self, p: Player, card: dict[str, Any], use: bool) -> bool:
        """Discard a Treasure from p's hand for its power (use) or its coins. True: an extra action."""
        p.hand.remove(card)
        extra = False
        colour = next(c for c, cards in self.t["treasures"].items() if card in cards)
        if not use:
            p.coins += card["monete"]
            self.tdiscard[colour].append(card)
            self.tally("treasure_coins")
            return False
        self.tally("treasure_powers")
        kept = False
        for kind, prm in card["fx"]:
            if kind == "monete":
                p.coins += prm["amount"]
            elif kind == "punti":
                p.face_down += prm["amount"]
                kept = True
            elif kind in ("risorse", "risorse_a_scelta"):
                bot = self.bots[self.players.index(p)]
                for _ in range(prm["amount"]):
                    r = prm.get("risorsa") or bot.wanted_resource(self, p)
                    if r is None or self.supply[r] == 0:
                        break
                    if p.stored() >= self.capacity(p):
                        break
                    self.supply[r] -= 1
                    p.res[r] += 1
            elif kind == "tesoro":
                self.draw_treasure(p, prm["colore"])
            elif kind == "sconto_stanze":
                p.discount_rooms += prm["amount"]
            elif kind == "sconto_specialisti":
                p.discount_specialists += prm["amount"]
            elif kind == "scambio":
                self.bots[self.players.index(p)].swap(self, p, prm["amount"])
            elif kind == "azione_extra":
                extra = True
        if not kept:
            self.tdiscard[colour].append(card)
        return extra

    # --- the actions -----------------------------------------------------------------------------

    def gather(self, p: Player, take: dict[str, int], give_back: dict[str, int]) -> None:
        for r, n in give_back.items():
            n = min(n, p.res[r])
            p.res[r] -= n
            self.supply[r] += n
        for r, n in take.items():
            n += p.matched.get(("raccolta_bonus", "risorsa", r), 0)
            n = min(n, self.supply[r], p.capacity - p.stored())
            self.supply[r] -= n
            p.res[r] += n
        self.tally("action:gather")

    def craft(self, p: Player, index: int) -> None:
        mission = self.row.pop(index)
        pay, short = self.mission_need(p, mission)
        assert short == 0
        for r, n in pay.items():
            p.res[r] -= n
            self.supply[r] += n
        p.coins += mission["monete"] + p.sums.get("monete_per_missione", 0)
        p.missions.append(mission)
        self.tally("action:craft")
        if len(mission["sets"]) > 1:
            self.tally("double_missions")
        for colour in mission["tesori"]:
            self.draw_treasure(p, colour)
        self.draw_mission(self.players.index(p))

    def expand_income(self, p: Player) -> None:
        """Specialists of phase Espandersi that give coins pay them at each Expand action."""
        p.coins += p.sums.get("monete", 0)
        self.tally("action:expand")

    def build(self, p: Player, index: int, cell: int) -> None:
        room = self.room_row.pop(index)
        p.coins -= self.room_price(p, room)
        p.discount_rooms = 0
        self.place_room(p, room, cell)
        if self.room_deck:
            self.room_row.append(self.room_deck.pop())
        self.tally("rooms_built")

    def place_room(self, p: Player, room: dict[str, Any], cell: int | None) -> None:
        key = cell if cell is not None else -1 - len(p.rooms)  # no free place: beside the board
        p.rooms[key] = room
        p.effects_changed(self.t)
        if cell is None:
            return
        r, c = self.cells[cell]
        letter = self.t["grid"][r][c]
        if letter in self.t["bonus"]:
            what, n, colour = self.t["bonus"][letter]
            self.tally(f"bonus:{what}")
            if what == "monete":
                p.coins += n
            elif what == "punti":
                p.room_points += n
            else:
                self.draw_treasure(p, colour)

    def hire(self, p: Player, slot: int) -> None:
        spec, drop = self.spec_row[slot]
        p.coins -= self.spec_price(p, slot)
        p.discount_specialists = 0
        p.specialists.append(spec)
        p.effects_changed(self.t)
        self.tally("specialists_hired")
        self.spec_row[slot] = [self.spec_deck.pop(), 0] if self.spec_deck else [None, 0]
        if drop == 0:  # bought at full price: every Specialist to its right costs less
            self.tally("full_price")
            for right in range(slot + 1, len(self.spec_row)):
                other = self.spec_row[right]
                if other[0] is None:
                    continue
                other[1] += self.t["drop"]
                if other[0]["costo"] - other[1] <= 0:
                    self.tally("specialists_dropped")
                    self.spec_row[right] = [self.spec_deck.pop(), 0] if self.spec_deck else [None, 0]

    def funeral(self) -> None:
        """Every player bids secretly; the highest pays and places the Statue; a tie: nobody
        (unless exactly one tied player wins ties by an effect)."""
        self.funeral_round = self.turn // len(self.players) + 1
        bids = [self.bots[i].bid(self, p) for i, p in enumerate(self.players)]
        bids = [max(0, min(b, p.coins)) for b, p in zip(bids, self.players)]
        top = max(bids)
        tied = [i for i, b in enumerate(bids) if b == top]
        if len(tied) > 1:
            tied = [i for i in tied if self.players[i].has(self.t, "asta")]
        if top == 0 or len(tied) != 1:
            self.tally("funeral:nobody")
            return
        winner = self.players[tied[0]]
        winner.coins -= top
        winner.statue = True
        cells = self.free_cells(winner)
        self.place_room(winner, self.t["statue"], self.bots[tied[0]].room_cell(self, winner, cells) if cells else None)
        self.tally("funeral:won")
        self.tally("funeral:bid", top)

    # --- scoring -----------------------------------------------------------------------------------

    def score(self) -> list[dict[str, int]]:
        t = self.t
        charms = [sum(1 for c in p.hand if c["set"] == "charms") for p in self.players]
        most = max(charms)
        out = []
        for i, p in enumerate(self.players):
            s = dict.fromkeys(SOURCES, 0)
            s["charms"] = sum(c["punti"] for c in p.hand if c["set"] == "charms")
            s["charms_majority"] = t["charms_bonus"] if most > 0 and charms[i] == most else 0
            s["relics"] = sum(c["punti"] for c in p.hand if c["set"] == "reliquia")
            s["treasures"] = p.face_down
            s["missions"] = t["per_mission"] * len(p.missions)

            def end_points(fx, p=p) -> int:
                pts = 0
                for kind, prm in fx:
                    if kind == "punti_per_simbolo":
                        pts += prm["amount"] * sum(1 for m in p.missions if prm["simbolo"] in m["simboli"])
                    elif kind == "punti_per_specialista":
                        pts += prm["amount"] * len(p.specialists)
                    elif kind == "punti_per_stanza":
                        pts += prm["amount"] * len(p.rooms)
                    elif kind == "punti_per_monete":
                        pts += p.coins // prm["amount"]
                return pts

            s["specialists"] = sum(x["punti"] + end_points(x["fx"]) for x in p.specialists)
            s["rooms"] = (sum(r["punti"] + end_points(r["fx"]) for r in p.rooms.values()) + p.room_points
                          + end_points(t["guilds"][p.guild]["fx"]))
            if p.offering:
                s["offering"] = t["offering"]["punti"] + p.stored() // t["offering"]["per_punto"]
            out.append(s)
        return out

    # --- one game -----------------------------------------------------------------------------------

    def play(self, seats: list[str], max_turns: int) -> dict[str, Any]:
        n = len(self.players)
        stall = None
        mission_series: list[int] = []
        while True:
            if self.last_turns == 0:
                break
            if self.turn >= max_turns:
                stall = "turn cap"
                if all(any(not any(x.has(self.t, "sblocca", risorsa=r) for x in self.players)
                           for s in m["sets"] for r in s if r in self.t["precious"]) for m in self.row):
                    stall = "Mission row locked: every face-up Mission needs a precious resource nobody can gather"
                break
            i = self.turn % n
            p = self.players[i]
            last = self.last_turns is not None
            self.bots[i].take_turn(self, i, p, last)
            p.discount_rooms = p.discount_specialists = 0
            if self.last_turns is not None:
                if last:
                    self.last_turns -= 1
            self.turn += 1
            if self.turn % n == 0:
                mission_series.append(len(self.deck))
        ended = stall is None
        scores = self.score()
        totals = [sum(s.values()) for s in scores]
        winners: list[int] = []
        if ended:
            best = max(zip(totals, (p.coins for p in self.players)))
            winners = [i for i, p in enumerate(self.players) if (totals[i], p.coins) == best]
            for w in winners:
                self.tally(f"guild:{self.players[w].guild}:wins", UNIT // len(winners))
            for s in scores:
                for k, v in s.items():
                    self.tally(f"points:{k}", v)
            for i, p in enumerate(self.players):
                self.tally(f"guild:{p.guild}:games")
                if p.offering:
                    self.tally("offering_seals")
            self.tally("points:total", sum(totals))
            self.tally("winner_points", max(totals))
        parts = [(self.t["guilds"][p.guild]["id"], "gilda", i, True) for i, p in enumerate(self.players)]
        for i, p in enumerate(self.players):
            parts += [(m["id"], "missione", i, True) for m in p.missions]
            parts += [(s["id"], "specialista", i, True) for s in p.specialists]
            parts += [(r["id"], "stanza", i, True) for r in p.rooms.values()]
        events: dict[str, int | None] = {"funeral": self.funeral_round}
        return {"seats": list(seats), "ended": ended, "ender": None, "stall": stall, "turns": self.turn,
                "scores": totals, "winners": winners, "parts": parts,
                "series": {"missions": mission_series}, "events": events, "tallies": dict(self.tallies)}
