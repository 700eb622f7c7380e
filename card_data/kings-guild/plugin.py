"""The King's Guild's own checks: what its data can break that the generic validator cannot see.

- kg-guilds: one Guild card per Guild symbol, and at least as many Guilds as the most players.
- kg-seals: every Guild has exactly `sigilli_per_gilda` Seal tokens, in its colour.
- kg-rooms: no two identical Rooms (same name, or same cost, points, places and effects).
- kg-funeral / kg-offering: the King's Funeral lies before the middle of the Mission deck (and
  after the face-up Missions of the set-up); the Offering to the Council is its last card.
- kg-precious: Magia and Gemme are reachable only through their Rooms: each precious resource
  has exactly one Room that unlocks it, and no effect that hands out resources names one.
- kg-hand-limit: the Treasure hand limit (6 in the seed) is stated.
- kg-mission: a Mission's resources are resource symbols, its Treasures treasure colours, its
  symbols Mission symbols; a double Mission has two sets and two Treasures, a single one one.
- kg-supply: the resource tokens printed match the board's supply (`riserva`).
- kg-grid: the room grid is a rectangle with one Guild Hall; every letter is a bonus place.
Loaded by cardgen's validator (`plugin: plugin.py` in game.yml).
"""

MISSION_DECK = "missioni"


def check(snapshot, report):
    _guilds(snapshot, report)
    _seals(snapshot, report)
    _rooms(snapshot, report)
    _mission_deck(snapshot, report)
    _precious(snapshot, report)
    _hand_limit(snapshot, report)
    _missions(snapshot, report)
    _supply(snapshot, report)
    _grid(snapshot, report)


def _symbols(snapshot, kind):
    return [sid for sid, s in snapshot.symbols.items() if s.kind == kind]


def _guilds(snapshot, report):
    guilds = _symbols(snapshot, "gilda")
    cards = snapshot.cards_of_type("gilda")
    most = snapshot.game.file.players.max
    if len(guilds) < most:
        report.error("kg-guilds", f"{len(guilds)} Guilds for up to {most} players: every player is dealt a "
                     "different Guild", loc=snapshot.game.source.loc("players", "max"))
    for gid in guilds:
        held = sum(c.count for c in cards if c.fields.get("gilda") == gid)
        if held != 1:
            report.error("kg-guilds", f"{snapshot.symbols[gid].name} has {held} Guild cards, expected 1",
                         loc=snapshot.symbol_locs[gid])


def _seals(snapshot, report):
    wanted = snapshot.rules.get("sigilli_per_gilda")
    seals = snapshot.cards_of_type("sigillo")
    for gid in _symbols(snapshot, "gilda"):
        mine = [c for c in seals if c.fields.get("gilda") == gid]
        held = sum(c.count for c in mine)
        if wanted is not None and held != wanted:
            report.error("kg-seals", f"{snapshot.symbols[gid].name} has {held} Seal tokens, expected "
                         f"{wanted} (sigilli_per_gilda, {snapshot.rule_locs['sigilli_per_gilda'].cited})",
                         card=mine[0] if mine else None,
                         loc=mine[0].loc_of("count") if mine else snapshot.symbol_locs[gid])


def _room_signature(card):
    effects = tuple(sorted((e.do, tuple(sorted(e.params.items()))) for e in card.effects))
    return (card.fields.get("costo"), card.fields.get("punti"), card.fields.get("posti"), effects)


def _rooms(snapshot, report):
    seen_names, seen_sigs = {}, {}
    for card in snapshot.cards_of_type("stanza"):
        name = card.name.strip().lower()
        if name in seen_names:
            report.error("kg-rooms", f"two Rooms are called '{card.name}' ({seen_names[name].id} at "
                         f"{seen_names[name].loc}): no two Rooms may be identical", card=card, loc=card.loc_of("name"))
        seen_names.setdefault(name, card)
        sig = _room_signature(card)
        if sig in seen_sigs and sig[3]:
            other = seen_sigs[sig]
            report.error("kg-rooms", f"Room '{card.name}' is identical to '{other.name}' ({other.loc}): same cost, "
                         "points, places and effects", card=card, loc=card.loc)
        seen_sigs.setdefault(sig, card)


def _mission_deck(snapshot, report):
    rules, locs = snapshot.rules, snapshot.rule_locs
    size = snapshot.deck_size(MISSION_DECK)
    funerals = snapshot.cards_of_type("funerale")
    offerings = snapshot.cards_of_type("offerta")
    for kind, cards, name in (("kg-funeral", funerals, "King's Funeral"), ("kg-offering", offerings, "Offering to the Council")):
        copies = sum(c.count for c in cards)
        if copies != 1:
            report.error(kind, f"the Mission deck holds {copies} {name} cards, expected exactly 1",
                         card=cards[0] if cards else None, loc=cards[0].loc_of("count") if cards else None)
    funeral, offering = rules.get("posizione_funerale"), rules.get("posizione_offerta")
    middle = size / 2
    face_up = rules.get("missioni_scoperte") or 0
    if funeral is not None:
        if funeral >= middle:
            report.error("kg-funeral", f"the King's Funeral is card {funeral} of {size}: it must lie a little "
                         f"before the middle of the Mission deck (card {middle:g})", loc=locs["posizione_funerale"])
        elif funeral <= face_up:
            report.error("kg-funeral", f"the King's Funeral is card {funeral}, but the set-up turns the first "
                         f"{face_up} face up (missioni_scoperte): it would be drawn before the game starts",
                         loc=locs["posizione_funerale"])
        elif funeral < middle - 4:
            report.warning("kg-funeral", f"the King's Funeral is card {funeral} of {size}, well before the middle "
                           f"(card {middle:g}); the seed says 'poco prima della metà'", loc=locs["posizione_funerale"])
    if offering is not None and offering != size:
        report.error("kg-offering", f"the Offering to the Council is card {offering}, but the Mission deck has "
                     f"{size} cards: it must be the last", loc=locs["posizione_offerta"])
    if funeral is not None and offering is not None and funeral == offering:
        report.error("kg-funeral", "the Funeral and the Offering cannot share a position", loc=locs["posizione_funerale"])


def _precious(snapshot, report):
    rules, locs = snapshot.rules, snapshot.rule_locs
    precious = rules.get("risorse_pregiate") or {}
    where = locs.get("risorse_pregiate")
    for sid, sym in snapshot.symbols.items():
        if sym.kind == "risorsa" and sym.rarity == "pregiata" and sid not in precious:
            report.error("kg-precious", f"{sym.name} is a precious resource but risorse_pregiate names no Room "
                         "that unlocks it", loc=snapshot.symbol_locs[sid])
    kinds = snapshot.game.effect_kinds
    for resource, room_id in precious.items():
        if resource not in snapshot.symbols:
            report.error("kg-precious", f"risorse_pregiate names '{resource}', which is not a defined resource", loc=where)
            continue
        name = snapshot.symbols[resource].name
        rooms = [c for c in snapshot.cards_of_type("stanza") if c.id == room_id]
        if not rooms:
            report.error("kg-precious", f"{name} is unlocked by Room '{room_id}', which does not exist", loc=where)
        unlocking = [c for c in snapshot.cards_of_type("stanza") for e in c.effects
                     if "unlocks" in kinds[e.do].tags and e.params.get("risorsa") == resource]
        if rooms and rooms[0] not in unlocking:
            report.error("kg-precious", f"Room '{rooms[0].name}' does not unlock {name} (no 'sblocca' effect for it)",
                         card=rooms[0], loc=rooms[0].loc)
        for card in unlocking:
            if card.id != room_id:
                report.error("kg-precious", f"{card.name} also unlocks {name}; only {room_id} may", card=card, loc=card.loc)
    for card in snapshot.cards:
        for e in card.effects:
            kind = kinds.get(e.do)
            if kind is None or "gives-resource" not in kind.tags:
                continue
            if e.params.get("risorsa") in precious:
                report.error("kg-precious", f"'{e.do}' hands out {snapshot.symbols[e.params['risorsa']].name}, "
                             "which players may only gather once they have built its Room", card=card, loc=e.loc)


def _hand_limit(snapshot, report):
    if snapshot.rules.get("tesori_in_mano") is None:
        report.error("kg-hand-limit", "the Treasure hand limit is not stated (tesori_in_mano; the seed: "
                     "'fino a 6 Carte Tesoro')", loc=snapshot.rule_locs.get("tesori_in_mano"))


def _missions(snapshot, report):
    def kind_of(sid):
        sym = snapshot.symbols.get(sid)
        return sym.kind if sym else None

    for card in snapshot.cards_of_type("missione"):
        sets = [s for s in (card.fields.get("risorse"), card.fields.get("risorse2")) if s]
        for field, needs in (("risorse", card.fields.get("risorse")), ("risorse2", card.fields.get("risorse2"))):
            for resource, n in (needs or {}).items():
                if kind_of(resource) != "risorsa":
                    report.error("kg-mission", f"{field}: '{resource}' is not a resource (expected one of: "
                                 f"{', '.join(_symbols(snapshot, 'risorsa'))})", card=card, loc=card.loc_of(field))
                elif n < 1:
                    report.error("kg-mission", f"{field}: {resource} x {n}, expected at least 1", card=card,
                                 loc=card.loc_of(field))
        treasures = card.fields.get("tesori") or []
        for t in treasures:
            if kind_of(t) != "colore-tesoro":
                report.error("kg-mission", f"tesori: '{t}' is not a Treasure colour (expected one of: "
                             f"{', '.join(_symbols(snapshot, 'colore-tesoro'))})", card=card, loc=card.loc_of("tesori"))
        for s in card.fields.get("simboli") or []:
            if kind_of(s) != "simbolo":
                report.error("kg-mission", f"simboli: '{s}' is not a Mission symbol (expected one of: "
                             f"{', '.join(_symbols(snapshot, 'simbolo'))})", card=card, loc=card.loc_of("simboli"))
        if len(treasures) != len(sets):
            report.error("kg-mission", f"{len(sets)} set(s) of resources but {len(treasures)} Treasure(s): a single "
                         "Mission gives one Treasure, a double one two", card=card, loc=card.loc_of("tesori"))


def _supply(snapshot, report):
    supply = snapshot.rules.get("riserva") or {}
    where = snapshot.rule_locs.get("riserva")
    printed = {}
    for card in snapshot.cards_of_type("risorsa"):
        printed[card.fields.get("risorsa")] = printed.get(card.fields.get("risorsa"), 0) + card.count
    for sid in _symbols(snapshot, "risorsa"):
        if sid not in supply:
            report.error("kg-supply", f"the board's supply (riserva) has no {snapshot.symbols[sid].name}", loc=where)
        elif printed.get(sid, 0) != supply[sid]:
            report.error("kg-supply", f"{supply[sid]} {snapshot.symbols[sid].name} in the supply but "
                         f"{printed.get(sid, 0)} tokens printed", loc=where)
    for key in supply:
        if snapshot.symbols.get(key) is None or snapshot.symbols[key].kind != "risorsa":
            report.error("kg-supply", f"riserva: '{key}' is not a resource", loc=where)


def _grid(snapshot, report):
    grid = snapshot.rules.get("griglia_stanze") or []
    bonus = snapshot.rules.get("bonus_griglia") or {}
    where = snapshot.rule_locs.get("griglia_stanze")
    if not grid or len({len(row) for row in grid}) != 1:
        report.error("kg-grid", "the room grid must be a rectangle: rows of equal length", loc=where)
        return
    cells = "".join(grid)
    if cells.count("S") != 1:
        report.error("kg-grid", f"the room grid has {cells.count('S')} Guild Halls (S), expected 1", loc=where)
    for letter in sorted(set(cells) - {".", "S"}):
        if letter not in bonus:
            report.error("kg-grid", f"'{letter}' in the room grid is not a bonus place (bonus_griglia: "
                         f"{', '.join(bonus) or 'none'})", loc=where)
    for letter, sid in bonus.items():
        sym = snapshot.symbols.get(sid)
        if sym is None or sym.kind != "bonus":
            report.error("kg-grid", f"bonus_griglia: {letter} -> '{sid}' is not a bonus symbol",
                         loc=snapshot.rule_locs.get("bonus_griglia"))


def simulation(snapshot):
    """The simulation hook (`cardgen simulate`): this version's rules engine, bots and claims."""
    from .simulation import KingsGuildSimulation

    return KingsGuildSimulation(snapshot)
