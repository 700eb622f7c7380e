"""Knightfall's own checks: the troop's size and positions, and the jumbo deck.

The 5th Edition rulebook gives the troop's size twice and the two disagree: "10 cards in total"
and a layout of 1 Knight + 3 Archers + 4 Mages (8 positions). The data keeps both
(`troop_limit`, `troop_positions`); this plug-in reports the disagreement instead of hiding it.
Decisions are hidden: each player lays one of their own coins face down, so every player needs a
coin of each decision, all coins sharing one back. Loaded by cardgen's validator (`plugin: plugin.py` in game.yml).
"""

DECK = "cards"
KNIGHT = "knight"


def check(snapshot, report):
    _troop(snapshot, report)
    _deck(snapshot, report)
    _coins(snapshot, report)


def _troop(snapshot, report):
    rules, locs = snapshot.rules, snapshot.rule_locs
    positions = rules.get("troop_positions") or {}
    where = locs.get("troop_positions")
    for key in positions:
        sym = snapshot.symbols.get(key)
        if sym is None or sym.kind != "position":
            report.error("knightfall-position", f"troop position '{key}' is not a position symbol "
                         "(the camp map takes its name, icon and power from one)", loc=where)
    if positions.get(KNIGHT) != 1:
        report.error("knightfall-knight", "a troop has exactly one Knight position (\"The 'Knight' position "
                     f"CAN NEVER be empty\"), troop_positions gives {positions.get(KNIGHT, 0)}", loc=where)
    total = sum(positions.values())
    limit = rules.get("troop_limit")
    if limit is not None and total != limit:
        counts = " + ".join(f"{n} {key}" for key, n in positions.items())
        report.warning("knightfall-troop-size", f"the troop holds at most {limit} cards (troop_limit, "
                       f"{locs['troop_limit'].cited}) but its layout has {counts} = {total} positions; the seed "
                       "says both, the camp map draws the layout", loc=where)
    first = rules.get("first_draw") or 0
    if first > total:
        report.error("knightfall-first-draw", f"stage 1 places {first} cards in the troop, but it has only "
                     f"{total} positions", loc=locs.get("first_draw"))


def _deck(snapshot, report):
    """Powers 1-13, four of each, two per colour: a standard deck whose suits do not matter."""
    colours = [sid for sid, s in snapshot.symbols.items() if s.kind == "colour"]
    counts = {}
    for card in snapshot.cards_in_deck(DECK):
        key = (card.fields.get("power"), card.fields.get("colour"))
        counts[key] = counts.get(key, 0) + card.count
    for power in range(1, 14):
        for colour in colours:
            held = counts.get((power, colour), 0)
            if held != 2:
                cards = [c for c in snapshot.cards_in_deck(DECK)
                         if (c.fields.get("power"), c.fields.get("colour")) == (power, colour)]
                report.error("knightfall-deck", f"power {power} in {snapshot.symbols[colour].name}: {held} cards, "
                             "expected 2 (four of each power, two red and two black)",
                             card=cards[0] if cards else None,
                             loc=cards[0].loc_of("count") if cards else snapshot.symbol_locs[colour])


def _coins(snapshot, report):
    """One coin of each decision (Attack, Defend) per player."""
    players = snapshot.game.file.players.max
    decisions = [sid for sid, s in snapshot.symbols.items() if s.kind == "decision"]
    coins = snapshot.cards_of_type("coin")
    for sid in decisions:
        held = [c for c in coins if c.fields.get("decision") == sid]
        count = sum(c.count for c in held)
        if count != players:
            report.error("knightfall-coins", f"{count} {snapshot.symbols[sid].name} coin(s) for {players} players: "
                         "each player needs one coin of each decision to hide their choice",
                         card=held[0] if held else None,
                         loc=held[0].loc_of("count") if held else snapshot.symbol_locs[sid])
