"""Tabletop Simulator: a whole table, set up, as one saved game (`cardgen export tts --table`).

The set-up (`cardgen.data.setup`) is dealt for the chosen number of players, then laid out on
the table in millimetres and written as a TTS save:

- the shared area in the middle: boards (locked), piles (a `DeckCustom`, face down and shuffled
  where the set-up says), rows of single cards or pieces, supplies as one bag per different piece
  (an `Infinite_Bag` where the supply is unlimited) and boxes (a bag of what is not used);
  places `on` a board lie on it at their `at` position;
- the seats around it, clockwise from the south-west: half along the south edge, half along the
  north edge, facing the middle. Each seat is a TTS player colour: what lies in front of it
  (its player board, pieces and cards) is tinted with it, and its hand zone (`HandTrigger`) holds the cards the set-up deals into a
  hand;
- the rulebook as an in-game PDF (`Custom_PDF`) and a notecard with the set-up steps, west of
  everything.

The images are the ones `cardgen export tts` writes (deck sheets, piece faces), in the same
folder. Footprints are exact for cards (a TTS card at scale 1 is a poker card) and follow
ttspieces.TTS_PIECE_MM for boards, tiles and tokens; a bag's, a PDF's and a notecard's are
estimates (topview.BAG_MM_AT_1, PDF_MM, NOTE_MM). `topview.py` reads the JSON back and draws it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..buildtypes import Progress, RenderedSet
from ..data.project import Project
from ..data.setup import Placed, Table, deal, label_of
from ..data.snapshot import Card, Snapshot
from ..files import tts_table, tts_table_owned, tts_table_rulebook, tts_table_thumbnail
from ..i18n import own
from ..render.workers import Workers
from . import tts, ttspieces
from .images import png_bytes, remove_stale, write_if_changed
from .topview import BAG_MM_AT_1, HAND_Y, NOTE_MM, PDF_MM, UNIT_MM, render_png

GAP_MM = 20.0  # between places
NEAR_MM = 5.0  # between the components of one place
BAG_MM = 34.0  # a bag's footprint on the table
HAND_DEPTH_MM = 120.0
TABLE_Y = 1.0  # height of things lying on the table
ON_BOARD_Y = 1.6
SEAT_COLOURS = [  # TTS's player colours and their RGB, in the order seats are given them
    ("White", (1.0, 1.0, 1.0)), ("Red", (0.856, 0.1, 0.094)), ("Blue", (0.118, 0.53, 1.0)),
    ("Green", (0.192, 0.701, 0.168)), ("Yellow", (0.905, 0.898, 0.172)), ("Purple", (0.627, 0.125, 0.941)),
    ("Orange", (0.956, 0.392, 0.113)), ("Pink", (0.96, 0.439, 0.807)), ("Teal", (0.129, 0.694, 0.607)),
    ("Brown", (0.443, 0.231, 0.09)),
]
TINT = 0.35  # how much of the seat's colour a seat's board and pieces take


def table_file(stem: str, players: int) -> str:
    """`<game>-<version>[-<lang>]-<N>p.json`: the one place the table's file name is made."""
    return tts_table(stem, players)


def rulebook_file(stem: str) -> str:
    return tts_table_rulebook(stem)


def owned_by(stem: str) -> Callable[[str], bool]:
    """The images an export of `stem` wrote into a table folder (tables of other player counts stay)."""
    return tts_table_owned(stem)


# --- what lies where (millimetres; x to the east, y to the south) -----------------------------


@dataclass
class Item:
    """One object on the table: its centre, its footprint and what it is."""

    what: str  # pile, card, piece, board, bag, hand
    x: float
    y: float
    w: float
    h: float
    cards: list[Card] = field(default_factory=list)
    face_up: bool = True
    label: str = ""
    description: str = ""
    seat: int | None = None
    infinite: bool = False
    on_board: bool = False
    north: bool = False

    def moved(self, dx: float, dy: float) -> Item:
        self.x += dx
        self.y += dy
        return self

    @property
    def box(self) -> tuple[float, float, float, float]:
        return self.x - self.w / 2, self.y - self.h / 2, self.x + self.w / 2, self.y + self.h / 2


def _bounds(items: list[Item]) -> tuple[float, float, float, float]:
    boxes = [i.box for i in items]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


@dataclass
class Laid:
    """A table laid out: every item, the seats' hand zones and colours."""

    table: Table
    items: list[Item]
    hands: list[Item]
    colours: list[tuple[str, tuple[float, float, float]]]


def size_of(snapshot: Snapshot, card: Card) -> tuple[float, float]:
    size = snapshot.game.size_of(card.type)
    return size.width_mm, size.height_mm


def component(snapshot: Snapshot, card: Card) -> str:
    return snapshot.game.card_types[card.type].component



def _group(snapshot: Snapshot, placed: Placed) -> list[Item]:
    """A place's items around (0, 0): the first component's centre at the origin."""
    cards = placed.cards
    if not cards:
        return []
    kind = placed.kind
    label = label_of(snapshot, placed)
    step = placed.place.step or ""
    first = cards[0]
    w, h = size_of(snapshot, first)
    pieces = component(snapshot, first) != "card"
    if kind == "box" or (kind == "deck" and pieces):
        return [Item("bag", 0, 0, BAG_MM, BAG_MM, list(cards), False, label, step, placed.seat)]
    if kind == "supply":
        bags = []
        for n, card in enumerate(placed.different):
            copies = [c for c in cards if c.id == card.id]
            bags.append(Item("bag", 0, 0, BAG_MM, BAG_MM, copies, placed.face_up, card.name, step, placed.seat,
                             infinite=placed.place.unlimited))
        return _spread(bags, placed, BAG_MM, BAG_MM)
    if kind == "deck":
        piles: dict[tuple[float, float, str], list[Card]] = {}
        for card in cards:  # a pile of mixed sizes cannot be one TTS deck: one pile per size
            key = (*size_of(snapshot, card), snapshot.game.card_types[card.type].shape)
            piles.setdefault(key, []).append(card)
        items = [Item("pile", 0, 0, pw, ph, pile, placed.face_up, label, step, placed.seat)
                 for (pw, ph, _), pile in piles.items()]
        return _spread(items, placed, max(i.w for i in items), max(i.h for i in items))
    what = "board" if kind == "board" else ("piece" if pieces else "card")
    faces = placed.faces_up()
    items = [Item(what, 0, 0, *size_of(snapshot, card), [card], faces[n], card.name, step, placed.seat)
             for n, card in enumerate(cards)]
    return _spread(items, placed, w, h)


def _spread(items: list[Item], placed: Placed, w: float, h: float) -> list[Item]:
    """Lay a place's items out in its grid, columns or one row."""
    place = placed.place
    columns = len(placed.grid_rows[0]) if placed.grid_rows else (place.columns or len(items))
    gap = NEAR_MM if placed.kind != "board" else GAP_MM
    dx, dy = place.spacing_mm or (w + gap, h + gap)
    for n, item in enumerate(items):
        item.x, item.y = (n % columns) * dx, (n // columns) * dy
    return items


def _pack(groups: list[list[Item]], width: float) -> list[Item]:
    """Shelf-pack groups left to right, a new shelf when `width` is full; top-left at (0, 0)."""
    laid: list[Item] = []
    x = y = shelf = 0.0
    for group in groups:
        x0, y0, x1, y1 = _bounds(group)
        gw, gh = x1 - x0, y1 - y0
        if x > 0 and x + gw > width:
            x, y, shelf = 0.0, y + shelf + GAP_MM, 0.0
        laid += [item.moved(x - x0, y - y0) for item in group]
        x += gw + GAP_MM
        shelf = max(shelf, gh)
    return laid


def lay_out(snapshot: Snapshot, players: int) -> Laid:
    """The set-up dealt for `players` and laid out on the table."""
    table = deal(snapshot, players)
    items: list[Item] = []
    # the shared area: boards and what lies free are packed; places `on` a board follow it
    groups = {p.id: _group(snapshot, p) for p in table.shared}
    free = [groups[p.id] for p in table.shared if p.place.on is None and groups[p.id]]
    widest = max((_bounds(g)[2] - _bounds(g)[0] for g in free), default=0.0)
    items += _pack(free, max(widest, 700.0))
    for placed in table.shared:
        items += _put_on_board(placed, groups, items)
    sx0, sy0, sx1, sy1 = _bounds(items) if items else (0.0, 0.0, 0.0, 0.0)
    for item in items:
        item.moved(-(sx0 + sx1) / 2, -(sy0 + sy1) / 2)
    top, bottom = -(sy1 - sy0) / 2, (sy1 - sy0) / 2
    # the seats: clockwise from the south-west corner
    south = (players + 1) // 2
    order = [("S", 0)] + [("N", i) for i in range(players - south)] + [("S", i) for i in range(south - 1, 0, -1)]
    blocks = [_seat_block(snapshot, table, seat) for seat in range(players)]
    hands: list[Item] = []
    for row, north in (("S", False), ("N", True)):
        seats = sorted((pos, seat) for seat, (side, pos) in enumerate(order) if side == row)
        widths = [_bounds(blocks[seat][0] + [blocks[seat][1]])[2] - _bounds(blocks[seat][0] + [blocks[seat][1]])[0]
                  for _, seat in seats]
        x = -(sum(widths) + GAP_MM * 2 * (len(widths) - 1)) / 2
        for (_, seat), width in zip(seats, widths):
            laid, hand = blocks[seat]
            everything = laid + [hand]
            bx0, by0, bx1, by1 = _bounds(everything)
            if north:  # turned to face the middle: the hand lies at the far edge
                for item in everything:
                    item.x, item.y, item.north = bx0 + bx1 - item.x, by0 + by1 - item.y, True
                dy = top - GAP_MM * 2 - by1
            else:
                dy = bottom + GAP_MM * 2 - by0
            for item in everything:
                item.moved(x - bx0, dy)
            items += laid
            hands.append(hand)
            x += width + GAP_MM * 2
    hands.sort(key=lambda h: h.seat or 0)
    return Laid(table, items, hands, [SEAT_COLOURS[i % len(SEAT_COLOURS)] for i in range(players)])


def _put_on_board(placed: Placed, groups: dict[str, list[Item]], laid: list[Item]) -> list[Item]:
    place = placed.place
    group = groups[placed.id]
    if place.on is None or not group:
        return []
    boards = [i for i in groups.get(place.on, []) if i.what == "board"]
    if not boards:  # the board is not used in this version: lay the place beside the others
        x0, y0, x1, y1 = _bounds(laid) if laid else (0.0, 0.0, 0.0, 0.0)
        return [item.moved(x1 + GAP_MM + item.w / 2, y0 + item.h / 2) for item in group]
    board = boards[0]
    bx, by = board.box[0], board.box[1]
    ax, ay = place.at or (board.w / 2, board.h / 2)
    for item in group:
        item.moved(bx + ax, by + ay)
        item.on_board = True
    return group


def _seat_block(snapshot: Snapshot, table: Table, seat: int) -> tuple[list[Item], Item]:
    """A seat's places packed in front of its player, and its hand zone below them."""
    placed = table.seats[seat]
    groups = [_group(snapshot, p) for p in placed if p.kind != "hand"]
    groups = [g for g in groups if g]
    widest = max((_bounds(g)[2] - _bounds(g)[0] for g in groups), default=0.0)
    laid = _pack(groups, max(widest, 420.0))
    for item in laid:
        item.seat = seat
    in_hand = [c for p in placed if p.kind == "hand" for c in p.cards]
    x0, y0, x1, y1 = _bounds(laid) if laid else (0.0, 0.0, 300.0, 0.0)
    cw, ch = size_of(snapshot, in_hand[0]) if in_hand else (63.0, 88.0)
    width = max(x1 - x0, len(in_hand) * (cw + NEAR_MM) + GAP_MM, 300.0)
    depth = max(HAND_DEPTH_MM, ch + GAP_MM)
    hand = Item("hand", x0 + width / 2, (y1 + GAP_MM if laid else 0.0) + depth / 2, width, depth, in_hand,
                True, "", "", seat)
    return laid, hand


# --- the saved game ---------------------------------------------------------------------------


@dataclass
class TableExport:
    """What `export_table` wrote: the save's file and the objects' images."""

    file: str
    thumbnail_file: str
    image_files: list[str]
    rulebook_file: str | None
    laid: Laid
    players: int

    @property
    def files(self) -> list[str]:
        return [self.file, self.thumbnail_file, *self.image_files] + ([self.rulebook_file] if self.rulebook_file else [])


def write_table_images(project: Project, snapshot: Snapshot, rendered: RenderedSet, out_dir: Path, *,
                       workers: Workers | int | None = None,
                       progress: Progress | None = None) -> tuple[list[tts.DeckObject], list[ttspieces.PieceObject]]:
    """Every deck sheet and piece image the table needs (the ones `export tts` writes)."""
    stem = tts.export_stem(snapshot)
    decks = tts.plan_objects(snapshot, stem)
    pieces = ttspieces.plan_pieces(snapshot, stem)
    with tts.own_pool(project, workers) as pool:  # every image in the same worker processes
        for deck in decks:
            tts.write_deck_images(project, snapshot, rendered, deck, out_dir, pool, progress)
        ttspieces.write_piece_images(project, snapshot, rendered, pieces, out_dir, pool, progress)
    return decks, pieces


def export_table(project: Project, snapshot: Snapshot, rendered: RenderedSet, players: int, out_dir: Path,
                 url_for: Callable[[str], str], *, rulebook: Path | None = None, workers: Workers | int | None = None,
                 progress: Progress | None = None,
                 written: tuple[list[tts.DeckObject], list[ttspieces.PieceObject]] | None = None) -> TableExport:
    """Write the table for `players` into `out_dir`: its JSON, thumbnail, images and rulebook PDF.

    `written`: what `write_table_images` wrote into `out_dir` already (every player count's table
    shows the same sheets: a command writing several counts rasterises them once)."""
    stem = tts.export_stem(snapshot)
    laid = lay_out(snapshot, players)
    decks, pieces = written or write_table_images(project, snapshot, rendered, out_dir, workers=workers,
                                                 progress=progress)
    pdf = None
    if rulebook is not None:
        pdf = rulebook_file(stem)
        write_if_changed(out_dir / pdf, rulebook.read_bytes())
    name = table_file(stem, players)
    save = saved_game(snapshot, laid, decks, pieces, url_for, name, pdf)
    write_if_changed(out_dir / name, (json.dumps(save, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    thumb = tts_table_thumbnail(stem, players)
    write_if_changed(out_dir / thumb, thumbnail(save, out_dir))
    images = sorted({f for d in decks for f in d.image_files} | {f for p in pieces for f in p.image_files})
    result = TableExport(name, thumb, images, pdf, laid, players)
    remove_stale(out_dir, set(result.files), owned_by(stem))
    return result


def thumbnail(save: dict, folder: Path) -> bytes:
    """256 x 256 for TTS's Save & Load browser: the table seen from above."""
    import io

    from PIL import Image

    data = render_png(save, folder, size_px=256, labels=False)
    with Image.open(io.BytesIO(data)) as image:
        return png_bytes(image.convert("RGB"), dpi=72)


def saved_game(snapshot: Snapshot, laid: Laid, decks: list[tts.DeckObject], pieces: list[ttspieces.PieceObject],
               url_for: Callable[[str], str], name: str, pdf: str | None) -> dict:
    writer = _Writer(snapshot, decks, pieces, url_for, name)
    states: list[dict] = []
    for item in laid.items:
        tint = laid.colours[item.seat][1] if item.seat is not None else None
        states.append(writer.state(item, tint))
    for seat, hand in enumerate(laid.hands):
        colour = laid.colours[seat]
        states.append(writer.hand_zone(hand, colour))
        x = hand.x - hand.w / 2 + NEAR_MM
        for card in hand.cards:
            w, h = size_of(snapshot, card)
            x += w / 2
            states.append(writer.state(Item("card", x, hand.y, w, h, [card], True, card.name, "", seat,
                                            north=hand.north), None, y=HAND_Y, in_hand=True))
            x += w / 2 + NEAR_MM
    steps = setup_steps(snapshot, laid.table)
    title = game_title(snapshot, laid.table.players)
    x0, y0, x1, y1 = _bounds(laid.items + laid.hands)
    if pdf is not None:
        states.append(writer.pdf(pdf, x0 - GAP_MM * 2 - PDF_MM[0] / 2, y0 + PDF_MM[1] / 2))
    note_x = x0 - GAP_MM * 2 - NOTE_MM[0] / 2
    note_y = y0 + (PDF_MM[1] + GAP_MM if pdf else 0) + NOTE_MM[1] / 2
    states.append(writer.note(title, steps, note_x, note_y))
    return {
        "SaveName": title, "GameMode": snapshot.game.name, "Gravity": 0.5, "PlayArea": 0.5,
        "Table": "Table_RPG", "Sky": "Sky_Museum", "Note": title + "\n\n" + steps, "Rules": "",
        "XmlUI": "", "LuaScript": "", "LuaScriptState": "", "Date": "", "VersionNumber": "",
        "ObjectStates": states, "TabStates": {}, "DecalPallet": [],
    }


def game_title(snapshot: Snapshot, players: int) -> str:
    words = own.translator(snapshot.language, own.RULEBOOK).gettext("%(players)s players") % {"players": players}
    return f"{snapshot.game.name} {snapshot.version} ({words})"


def setup_steps(snapshot: Snapshot, table: Table) -> str:
    """The set-up's steps, numbered, in the build's language (a place without `step` has none)."""
    seen: list[str] = []
    for placed in table.places():
        step = placed.place.step
        if step and step not in seen:
            seen.append(step)
    return "\n".join(f"{n}. {step}" for n, step in enumerate(seen, 1))


class _Writer:
    def __init__(self, snapshot: Snapshot, decks: list[tts.DeckObject], pieces: list[ttspieces.PieceObject],
                 url_for: Callable[[str], str], name: str):
        self.snapshot, self.url_for, self.name = snapshot, url_for, name
        self.n = 0
        self.cells: dict[str, tuple[tts.DeckObject, tts.Sheet, int]] = {}
        for deck in decks:
            for sheet in deck.sheets:
                for index, card in enumerate(sheet.cards):
                    self.cells[card.id] = (deck, sheet, index)
        self.pieces: dict[str, tuple[ttspieces.PieceObject, ttspieces.Piece]] = {
            p.card.id: (obj, p) for obj in pieces for p in obj.pieces}

    def guid(self) -> str:
        self.n += 1
        return hashlib.sha1(f"{self.name}#{self.n}".encode()).hexdigest()[:6]

    def transform(self, item: Item, y: float, face_up: bool, scale: tuple[float, float]) -> dict:
        return {"posX": _num(item.x / UNIT_MM), "posY": y, "posZ": _num(-item.y / UNIT_MM),
                "rotX": 0, "rotY": 0 if item.north else 180, "rotZ": 0 if face_up else 180,
                "scaleX": _num(scale[0]), "scaleY": 1, "scaleZ": _num(scale[1])}

    def state(self, item: Item, tint: tuple[float, float, float] | None, y: float | None = None,
              in_hand: bool = False) -> dict:
        y = y if y is not None else (ON_BOARD_Y if item.on_board else TABLE_Y)
        if item.what == "bag":
            return self.bag(item, y)
        if item.what in ("pile", "card"):
            state = self.pile(item.cards, item.label, item.description)
            scale = (state["Transform"]["scaleX"], state["Transform"]["scaleZ"])
            state["Transform"] = self.transform(item, y, item.face_up, scale)
            if tint is not None and not in_hand:
                state["ColorDiffuse"] = _tint(tint)
            return state
        state = self.piece(item.cards[0])
        scale = (state["Transform"]["scaleX"], state["Transform"]["scaleZ"])
        state["Transform"] = self.transform(item, y, item.face_up, scale)
        if tint is not None:
            state["ColorDiffuse"] = _tint(tint)
        return state

    def pile(self, cards: list[Card], label: str, description: str) -> dict:
        cells = [self.cells[c.id] for c in cards]
        deck = cells[0][0]
        if len(cards) == 1:
            _, sheet, index = cells[0]
            return tts.card_object(deck, self.snapshot, sheet, index, cards[0],
                             {sheet.key: tts.custom_deck(deck, sheet, self.url_for)}, guid=self.guid())
        sheets = {s.key: tts.custom_deck(deck, s, self.url_for) for _, s, _ in cells}
        return {
            **tts.object_base("DeckCustom", deck, self.guid(), label, description, hands=False),
            "DeckIDs": [sheet.key * 100 + index for _, sheet, index in cells],
            "CustomDeck": {str(k): v for k, v in sheets.items()},
            "ContainedObjects": [tts.card_object(deck, self.snapshot, sheet, index, card,
                                           {sheet.key: sheets[sheet.key]}, guid=self.guid())
                                 for (_, sheet, index), card in zip(cells, cards)],
        }

    def piece(self, card: Card) -> dict:
        obj, piece = self.pieces[card.id]
        return ttspieces.one_piece(obj, self.snapshot, piece, self.url_for, self.guid(), 0)

    def content(self, cards: list[Card]) -> list[dict]:
        """What a bag holds: pieces one by one, cards as one pile per deck."""
        out: list[dict] = []
        piles: dict[str, list[Card]] = {}
        for card in cards:
            if card.id in self.pieces:
                out.append(self.piece(card))
            else:
                piles.setdefault(self.cells[card.id][0].base, []).append(card)
        for pile in piles.values():
            deck = self.cells[pile[0].id][0]
            out.append(self.pile(pile, deck.name, ""))
        return out

    def bag(self, item: Item, y: float) -> dict:
        contents = self.content(item.cards[:1] if item.infinite else item.cards)
        scale = BAG_MM / BAG_MM_AT_1
        return {
            "Name": "Infinite_Bag" if item.infinite else "Bag", "GUID": self.guid(), "Nickname": item.label,
            "Description": item.description, "Transform": self.transform(item, y, True, (scale, scale)),
            "ColorDiffuse": {"r": 0.44, "g": 0.32, "b": 0.2}, "Locked": False, "Tooltip": True,
            "ContainedObjects": contents,
        }

    def hand_zone(self, hand: Item, colour: tuple[str, tuple[float, float, float]]) -> dict:
        r, g, b = colour[1]
        transform = self.transform(hand, HAND_Y, True, (hand.w / UNIT_MM, hand.h / UNIT_MM))
        transform["scaleY"] = 6
        return {"Name": "HandTrigger", "GUID": self.guid(), "Nickname": "", "Description": "",
                "Transform": transform, "ColorDiffuse": {"r": r, "g": g, "b": b, "a": 0.0},
                "FogColor": colour[0], "Locked": True, "Grid": False, "Snap": False, "Tooltip": False}

    def pdf(self, file: str, x: float, y: float) -> dict:
        item = Item("pdf", x, y, *PDF_MM)
        return {"Name": "Custom_PDF", "GUID": self.guid(), "Nickname": self.snapshot.game.name,
                "Description": "", "Transform": self.transform(item, TABLE_Y, True, (1, 1)),
                "Locked": False, "Tooltip": True,
                "CustomPDF": {"PDFUrl": self.url_for(file), "PDFPassword": "", "PDFPage": 0, "PDFPageOffset": 0}}

    def note(self, title: str, steps: str, x: float, y: float) -> dict:
        item = Item("note", x, y, *NOTE_MM)
        return {"Name": "Notecard", "GUID": self.guid(), "Nickname": title, "Description": steps,
                "Transform": self.transform(item, TABLE_Y, True, (1, 1)), "Locked": False, "Tooltip": True}


def _tint(colour: tuple[float, float, float]) -> dict:
    return {k: _num(1 - TINT + TINT * v) for k, v in zip("rgb", colour)}


def _num(value: float) -> float:
    return round(value, 4) + 0.0


def read_table(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


# --- --install --------------------------------------------------------------------------------


def saves_dir(platform: str | None = None, home: Path | None = None) -> Path:
    """TTS's Saves folder (saved games), beside Saved Objects."""
    import sys

    from .install import saved_objects_dir

    return saved_objects_dir(platform or sys.platform, home).parent


def install_table(project: Project, snapshot: Snapshot, players: int, source: Path, target: Path,
                  url_for: Callable[[str], str], export: TableExport) -> None:
    """Copy a table's images (and rulebook) into `target`, write its save there pointing at them."""
    import shutil

    from .. import atomic

    target.mkdir(parents=True, exist_ok=True)
    for name in [*export.image_files, *([export.rulebook_file] if export.rulebook_file else []),
                 export.thumbnail_file]:
        with atomic.atomic_path(target / name) as tmp:
            shutil.copyfile(source / name, tmp)
    save = json.loads((source / export.file).read_text(encoding="utf-8"))
    save = _rebase(save, url_for)
    write_if_changed(target / export.file, (json.dumps(save, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    remove_stale(target, set(export.files), owned_by(tts.export_stem(snapshot)))


def _rebase(value: Any, url_for: Callable[[str], str]) -> Any:
    """Every image and PDF URL of a save, pointed through `url_for(its file name)`."""
    if isinstance(value, dict):
        return {k: (url_for(Path(unquote_url(v)).name) if k in _URL_KEYS and v else _rebase(v, url_for))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_rebase(v, url_for) for v in value]
    return value


_URL_KEYS = {"FaceURL", "BackURL", "ImageURL", "ImageSecondaryURL", "PDFUrl"}


def unquote_url(url: str) -> str:
    from urllib.parse import unquote, urlparse

    return unquote(urlparse(url).path)
