"""One True King's own checks: the set-up grid, the spare cards and the two kings.

The field is laid out as `grid` (one string per row, D = face down, U = face up) and the cards
left over (`spare_cards`) overwrite the advantaged player's strongest cards; together they must
use exactly the number cards of the field deck. The kings are set aside first: one per army.
Loaded by cardgen's validator (`plugin: plugin.py` in game.yml).
"""

from cardgen.errors import Loc

FIELD, KINGS = "field", "kings"


def check(snapshot, report):
    _grid_shape(snapshot, report)
    _grid_uses_the_field(snapshot, report)
    _unique_cards(snapshot, report)
    _armies(snapshot, report)


def _grid_shape(snapshot, report):
    """A rectangle of D and U, alternating like the seed's diagram, with room for two kings.

    Each player places their King on a peripheral face-down card, so the edge needs two D's.
    """
    grid, where = snapshot.rules.get("grid") or [], snapshot.rule_locs.get("grid")
    if len({len(row) for row in grid}) > 1 or any(set(row) - {"D", "U"} for row in grid):
        report.error("otk-grid", "every row of `grid` must be as long as the others and hold only "
                     f"D (face down) and U (face up): {grid}", loc=where)
        return
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if (c + 1 < len(row) and row[c + 1] == cell) or (r + 1 < len(grid) and grid[r + 1][c] == cell):
                report.warning("otk-grid-pattern", f"row {r + 1}, column {c + 1}: neighbouring spaces are "
                               "both face " + ("down" if cell == "D" else "up") + "; the seed alternates them",
                               loc=where)
                return
    edge = [cell for r, row in enumerate(grid) for c, cell in enumerate(row)
            if r in (0, len(grid) - 1) or c in (0, len(row) - 1)]
    if edge.count("D") < 2:
        report.error("otk-grid", "the kings start on peripheral face-down spaces, but the grid's edge "
                     f"has {edge.count('D')}", loc=where)


def _grid_uses_the_field(snapshot, report):
    """Grid spaces + spare cards = the number cards of the field deck, no more, no less."""
    grid = snapshot.rules.get("grid") or []
    spaces = sum(len(row) for row in grid)
    spare = snapshot.rules.get("spare_cards") or 0
    held = snapshot.deck_size(FIELD)
    if spaces + spare != held:
        size = f"{len(grid[0]) if grid else 0} x {len(grid)}"
        report.error("otk-grid-cards", f"the {size} grid ({spaces} cards) plus {spare} spare cards needs "
                     f"{spaces + spare} number cards, but the field deck holds {held}",
                     loc=snapshot.rule_locs.get("grid"))


def _unique_cards(snapshot, report):
    """A standard deck has each number card once."""
    seen = {}
    for card in snapshot.cards_in_deck(FIELD):
        key = (card.fields.get("rank"), card.fields.get("suit"))
        if card.count > 1 or (card.count and key in seen):
            other = seen.get(key, card)
            report.error("otk-duplicate", f"'{card.name}' is printed more than once (also card '{other.id}', "
                         f"count {card.count})", card=card)
        if card.count:
            seen.setdefault(key, card)


def _armies(snapshot, report):
    """Every suit fights for an army, and each army has exactly one king."""
    armies = snapshot.rules.get("armies") or {}
    army_ids = [sid for sid, s in snapshot.symbols.items() if s.kind == "army"]
    for sid, sym in snapshot.symbols.items():
        if sym.kind == "suit" and armies.get(sid) not in army_ids:
            report.error("otk-armies", f"suit {sym.name} fights for no army (rule `armies` gives "
                         f"{armies.get(sid)!r}; armies: {', '.join(army_ids)})", loc=snapshot.rule_locs.get("armies"))
    kings = snapshot.cards_in_deck(KINGS)
    for army in army_ids:
        mine = [k for k in kings if k.fields.get("army") == army]
        count = sum(k.count for k in mine)
        if count != 1:
            report.error("otk-kings", f"the {snapshot.symbols[army].name} army needs exactly one king, "
                         f"found {count}", card=mine[0] if mine else None,
                         loc=None if mine else Loc(snapshot.info.file))


def simulation(snapshot):
    """The simulation hook (`cardgen simulate`): this version's rules engine, bots and claims."""
    from .simulation import OneTrueKingSimulation

    return OneTrueKingSimulation(snapshot)
