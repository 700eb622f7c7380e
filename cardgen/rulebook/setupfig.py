"""The rulebook's set-up figure: the set-up as the data deals it, drawn with the real pictures.

`lay_out(helpers, players)` deals the game's set-up (`cardgen.data.setup.deal`, the same table
Tabletop Simulator's `export tts --table` lays out and the simulator starts from) for the number
of players the rulebook shows, and places every component at its real size, in millimetres:

- the shared area first: each place a group under its label (a face-down pile as the deck's back
  with its size, a row or a grid card by card, a supply one picture per different piece with its
  count, a board with the places that lie `on` it at their `at` positions, their counts on plates
  kept off the words the board prints, read back from its rendered face);
- then each player's area, framed, the same way (a hand fanned, pieces stacked with their count).

Places of `kind: box` hold what nobody uses at the start and are not drawn. The drawing itself
(frames, labels in the build's language) is the template macro `rb.setup_figure`
(rulebook-macros.html.j2); every place it draws is a `<g class="setup-place">` naming the place,
its kind, its seat and how many components lie there, and every face-up picture a
`<g class="setup-card">` naming its card, so the figure can be checked against `deal`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..data.setup import Placed, Table, deal, label_of
from ..data.snapshot import Card, Snapshot

Box = tuple[float, float, float, float]  # left, top, right, bottom

# a face as the rulebook's helpers picture it (helpers.FaceImage); named here without importing
# the helpers, which import this module to lay a set-up out
FaceImage = Any


class Helpers(Protocol):
    """What the set-up figure needs of the rulebook's helpers (`rb`)."""

    snapshot: Snapshot

    def card(self, card_id: str) -> Any: ...

    def deck(self, deck_id: str) -> Any: ...

GAP = 12.0  # mm between the groups of the table, at the table's own scale
NEAR = 5.0  # mm between the components of one group
PAGE_MM = 170.0  # the width a figure is drawn at on a page, to size its words
WORDS_MM = 3.2  # a label's height on that page
PLATE_WORDS = 0.8  # a count on a board, on its plate: smaller than the words around the table
PLATE_SHARE = 0.7  # and its plate at most this share of the pile's width
PILE_SHOWN = 3  # backs drawn for a pile, whatever its size
STACK_SHOWN = 4  # copies drawn for a stack of one piece
SLIDES = 4  # sideways steps each way a plate tries on its way off a board's printed words
FAN_DEGREES = 7.0  # between two cards of a fanned hand
ASPECT = 1.5  # width over height the layout aims at


@dataclass
class Picture:
    """One component as drawn: the face (or back) `w` mm wide with its top-left at (x, y)."""

    face: FaceImage
    x: float
    y: float
    w: float
    rotate: float = 0.0
    shadow: bool = True
    card: str = ""  # the card shown face up; "" for a back

    @property
    def h(self) -> float:
        return self.w * self.face.height / self.face.width


@dataclass
class Tag:
    """A word or a number in the figure (a count under a pile, a place's name)."""

    text: str
    x: float
    y: float
    size: float
    anchor: str = "middle"
    bold: bool = False
    word: str = ""  # a word the template says in the build's language instead ("hand")
    # drawn as the infinity sign (an unlimited supply): a path, since a project's fonts may lack U+221E
    infinity: bool = False
    # (width, height) of a plate behind the words, centred on them: a count on a board sits on the
    # pile itself, over the board's printed art, where a word below it would run into the next place
    plate: tuple[float, float] | None = None
    # the box (left, top, right, bottom) of the pile a plate counts: where `_off_the_words` looks
    # for room when the plate's first place would cover the board's printed words
    pile: Box | None = None

    @property
    def plate_box(self) -> tuple[float, float, float, float] | None:
        """The plate's left, top, width and height: centred on the words (their middle lies
        0.35 of their size above the baseline `y`)."""
        if self.plate is None:
            return None
        w, h = self.plate
        return self.x - w / 2, self.y - self.size * 0.35 - h / 2, w, h


@dataclass
class PlaceDrawing:
    """One place of the set-up as the figure draws it."""

    id: str
    kind: str
    seat: int | None
    count: int  # components lying there
    label: str
    on_board: bool
    pictures: list[Picture] = field(default_factory=list)
    tags: list[Tag] = field(default_factory=list)
    w: float = 0.0  # the group's size (labels included), before it is moved into place
    h: float = 0.0

    def moved(self, dx: float, dy: float) -> PlaceDrawing:
        for p in self.pictures:
            p.x, p.y = p.x + dx, p.y + dy
        for t in self.tags:
            t.x, t.y = t.x + dx, t.y + dy
            if t.pile:
                t.pile = (t.pile[0] + dx, t.pile[1] + dy, t.pile[2] + dx, t.pile[3] + dy)
        return self

    @property
    def cards(self) -> list[str]:
        """The face-up components' card ids, one per copy drawn."""
        return [p.card for p in self.pictures if p.card]


@dataclass
class Frame:
    """A player's area: a framed box with the player's number above its contents."""

    seat: int
    x: float
    y: float
    w: float
    h: float


@dataclass
class SetupFigure:
    """The set-up laid out in millimetres of the table: `width` x `height`, `font` the height of a label."""

    players: int
    width: float
    height: float
    font: float
    places: list[PlaceDrawing]
    frames: list[Frame]
    seats: list[int]  # the seats drawn (every seat unless the template asked for fewer)
    table: Table

    def aspect_width(self, max_width: float, max_height: float) -> float:
        """The width (page mm) at which the figure fits `max_width` x `max_height`."""
        return min(max_width, max_height * self.width / self.height)



def lay_out(helpers: Helpers, players: int, seats: int | None = None, page_width: float = PAGE_MM,
            max_height: float = 200.0, aspect: float = ASPECT) -> SetupFigure:
    """The set-up dealt for `players` and laid out; `seats` draws only the first players' areas.
    The words are sized for a figure drawn at most `page_width` x `max_height` mm on the page;
    the groups are packed so that the figure's width over its height comes near `aspect`."""
    snapshot = helpers.snapshot
    table = deal(snapshot, players)
    shown = list(range(players if seats is None else max(1, min(seats, players))))
    drawer = _Drawer(helpers)
    shared = {p.id: drawer.group(p) for p in table.shared if p.kind != "box" and p.cards}
    boards = {pid: g for pid, g in shared.items() if g.kind == "board"}
    free = [g for p in table.shared if (g := shared.get(p.id)) and p.place.on not in boards]
    on_board = [(p, g) for p in table.shared if (g := shared.get(p.id)) and p.place.on in boards]
    seat_groups = [[drawer.group(p) for p in table.seats[s] if p.kind != "box" and p.cards] for s in shown]
    # the figure's width: the widest group, or wider when the table is large, so it comes out landscape
    width, height = _best_width(free, seat_groups, aspect)
    page = min(page_width, max_height * width / max(height, 1.0))  # the figure's width on the page
    font = width * WORDS_MM / page
    drawer.font = font
    # now with labels: the groups again, at the size of their words
    drawer.labelled = True
    shared = {p.id: drawer.group(p) for p in table.shared if p.kind != "box" and p.cards}
    free = [g for p in table.shared if (g := shared.get(p.id)) and p.place.on not in boards]
    on_board = [(p, g) for p in table.shared if (g := shared.get(p.id)) and p.place.on in boards]
    seat_groups = [[drawer.group(p) for p in table.seats[s] if p.kind != "box" and p.cards] for s in shown]
    width = max(width, _best_width(free, seat_groups, aspect)[0])  # the words take room too
    places: list[PlaceDrawing] = []
    y = _pack(free, width, 0.0)
    places += free
    for placed, group in on_board:  # on its board, at the board's `at` (the first component's centre)
        board = shared[placed.place.on or ""]
        bx, by = board.pictures[0].x, board.pictures[0].y
        ax, ay = placed.place.at or (board.pictures[0].w / 2, board.pictures[0].h / 2)
        first = group.pictures[0]
        group.moved(bx + ax - (first.x + first.w / 2), by + ay - (first.y + first.h / 2))
        places.append(group)
    for board_id, board in boards.items():
        lying = [g for p, g in on_board if p.place.on == board_id]
        if lying:
            _off_the_words(board.pictures[0], lying)
    frames: list[Frame] = []
    pad = font * 0.9
    header = font * 1.8
    blocks = []
    for seat, groups in zip(shown, seat_groups):
        inner = max(max((g.w for g in groups), default=0.0), width - 2 * pad)
        # a seat packed in its own coordinates, then framed
        bottom = _pack(groups, inner, 0.0) if groups else 0.0
        right = max((g.w + _left(g) for g in groups), default=0.0)
        blocks.append((seat, groups, right + 2 * pad, bottom + header + pad))
    x = 0.0
    shelf = 0.0
    y += GAP if places else 0.0
    for seat, groups, bw, bh in blocks:
        if x > 0 and x + bw > width + 0.01:
            x, y, shelf = 0.0, y + shelf + GAP, 0.0
        for g in groups:
            g.moved(x + pad, y + header)
        places += groups
        frames.append(Frame(seat, x, y, bw, bh))
        x += bw + GAP
        shelf = max(shelf, bh)
    height = y + shelf if blocks else y
    right = max([g.w + _left(g) for g in free] + [f.x + f.w for f in frames] + [1.0])
    return SetupFigure(players, max(width, right), max(height, 1.0), font, places, frames, shown, table)


def _best_width(free: list[PlaceDrawing], seat_groups: list[list[PlaceDrawing]],
                aspect: float) -> tuple[float, float]:
    """The packing width (and the height it gives) whose shape comes nearest to `aspect`, from the
    widest group up to everything in one row; sizes before labels, with room for them."""
    seats = [(sum(g.w + GAP for g in groups) + GAP, max((g.h for g in groups), default=0.0) + 3 * GAP)
             for groups in seat_groups]
    shared = [(g.w, g.h + 2 * GAP) for g in free]
    widest = max([w for w, _ in shared + seats] + [100.0])
    everything = max(sum(w + GAP for w, _ in shared), sum(w + GAP for w, _ in seats), widest)
    best: tuple[float, float, float] | None = None
    steps = 24
    for i in range(steps + 1):
        width = widest + (everything - widest) * i / steps
        height = _shelves(shared, width) + GAP + _shelves(seats, width)
        miss = abs(math.log(width / height / aspect))
        if best is None or miss < best[0] - 1e-9:
            best = (miss, width, height)
    assert best is not None
    return best[1], best[2]


def _shelves(sizes: list[tuple[float, float]], width: float) -> float:
    """The height of `sizes` shelf-packed within `width`."""
    x = y = shelf = 0.0
    for w, h in sizes:
        if x > 0 and x + w > width + 0.01:
            x, y, shelf = 0.0, y + shelf + GAP, 0.0
        x += w + GAP
        shelf = max(shelf, h)
    return y + shelf


def _left(group: PlaceDrawing) -> float:
    xs = [p.x for p in group.pictures] + [t.x - (t.size * 0.3 * len(t.text) if t.anchor == "middle" else 0)
                                          for t in group.tags]
    return min(xs, default=0.0)


def _pack(groups: list[PlaceDrawing], width: float, top: float) -> float:
    """Shelf-pack groups (each drawn from (0, 0)) left to right within `width`; returns the bottom."""
    x = y = shelf = 0.0
    y = top
    for group in groups:
        if x > 0 and x + group.w > width + 0.01:
            x, y, shelf = 0.0, y + shelf + GAP, 0.0
        group.moved(x, y)
        x += group.w + GAP
        shelf = max(shelf, group.h)
    return y + shelf if groups else top


def _off_the_words(board: Picture, groups: list[PlaceDrawing]) -> None:
    """Move each count's plate on `board` that would cover the board's printed words (those no
    piece lies on), another place's pieces, an earlier plate or the board's edge: below its pile,
    slid sideways as far as the pile reaches, else above it the same way, else across its pile's
    bottom edge, which hides only the figure's own picture. The figure's words are several times
    the board's, so a plate below a coin ran over the name printed under it (The King's Guild's
    coin bank)."""
    from ..preflight.geometry import read_shapes
    from ..render.fonts import FontSet

    scale = board.w / board.face.width
    pieces = [(group, _box([p])) for group in groups for p in group.pictures]
    printed = [(board.x + x0 * scale, board.y + y0 * scale, board.x + x1 * scale, board.y + y1 * scale)
               for s in read_shapes(board.face.face.svg, board.face.fonts or FontSet()) if s.kind == "text"
               for x0, y0, x1, y1 in [s.box]]
    words = [w for w in printed if not any(_inside(w, piece) for _, piece in pieces)]
    edge = (board.x, board.y, board.x + board.w, board.y + board.h)
    plates: list[Box] = []
    for group in groups:
        taken = words + [piece for g, piece in pieces if g is not group]
        for tag in group.tags:
            if tag.plate is None or tag.pile is None:
                continue
            places = _plate_places(tag, tag.plate, tag.pile)
            box = next((b for b in places if _inside(b, edge) and not any(_overlap(b, t) for t in taken + plates)),
                       places[-1])
            tag.x, tag.y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2 + tag.size * 0.35
            plates.append(box)


def _plate_places(tag: Tag, plate: tuple[float, float], pile: Box) -> list[Box]:
    """Where a count's plate may go, best first: where `_count` put it; below the pile, then above
    it, centred and slid sideways while its middle stays over the pile; last, across the pile's
    bottom edge, hiding half its height (a small pile in a slot full of words)."""
    w, h = plate
    inset = tag.size * 0.2
    left, top, right, bottom = pile
    middle, reach = (left + right) / 2, (right - left) / 2
    slides = [0.0] + [side * reach * k / SLIDES for k in range(1, SLIDES + 1) for side in (-1, 1)]
    first = tag.plate_box
    assert first is not None
    places = [(first[0], first[1], first[0] + w, first[1] + h)]
    for y in (bottom + inset, top - inset - h):
        places += [(middle + dx - w / 2, y, middle + dx + w / 2, y + h) for dx in slides]
    places.append((middle - w / 2, bottom - h / 2, middle + w / 2, bottom + h / 2))
    return places


def _box(pictures: list[Picture]) -> Box:
    return (min(p.x for p in pictures), min(p.y for p in pictures),
            max(p.x + p.w for p in pictures), max(p.y + p.h for p in pictures))


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(a: Box, b: Box) -> bool:
    """Whether `a` lies wholly within `b`."""
    return b[0] <= a[0] and a[2] <= b[2] and b[1] <= a[1] and a[3] <= b[3]


class _Drawer:
    """Draws one place as a group whose top-left corner is (0, 0)."""

    def __init__(self, helpers: Helpers):
        self.helpers = helpers
        self.snapshot = helpers.snapshot
        self.font = 10.0
        self.labelled = False

    def size(self, card: Card) -> tuple[float, float]:
        size = self.snapshot.game.size_of(card.type)
        return size.width_mm, size.height_mm

    def face(self, card: Card) -> FaceImage:
        return self.helpers.card(card.id).face

    def back(self, card: Card) -> FaceImage:
        deck = self.helpers.deck(self.snapshot.game.card_types[card.type].deck)
        return deck.back or self.face(card)

    def picture(self, card: Card, up: bool, x: float, y: float, **kw) -> Picture:
        w, _ = self.size(card)
        return Picture(self.face(card) if up else self.back(card), x, y, w, card=card.id if up else "", **kw)

    def group(self, placed: Placed) -> PlaceDrawing:
        label = label_of(self.snapshot, placed)
        on_board = placed.area == "shared" and placed.place.on is not None
        drawing = PlaceDrawing(placed.id, placed.kind, placed.seat, len(placed.cards), label, on_board)
        kind = placed.kind
        if kind == "deck":
            self._pile(drawing, placed)
        elif kind == "supply" or (kind == "pieces" and not placed.grid_rows):
            self._stacks(drawing, placed, unlimited=placed.place.unlimited and kind == "supply")
        elif kind == "hand":
            self._fan(drawing, placed)
        else:
            self._spread(drawing, placed)
        x0 = min(p.x for p in drawing.pictures)
        y0 = min(p.y for p in drawing.pictures)
        x1 = max(p.x + p.w for p in drawing.pictures)
        y1 = max(p.y + p.h for p in drawing.pictures)
        words = self.font
        counts = [t for t in drawing.tags]
        if counts:
            y1 += words * 1.5
        top = 0.0
        if self.labelled and not on_board and kind != "board":
            top = words * 1.5
            word = "hand" if kind == "hand" and not placed.place.label else ""
            drawing.tags.append(Tag(label, (x0 + x1) / 2, y0 - words * 0.45, words, bold=True, word=word))
        width = max(x1 - x0, len(label) * words * 0.55 if self.labelled and not on_board else 0.0)
        drawing.moved(-x0 + (width - (x1 - x0)) / 2, -y0 + top)
        drawing.w, drawing.h = width, y1 - y0 + top
        return drawing

    def _count(self, drawing: PlaceDrawing, text: str, pile: Box, infinity: bool = False) -> None:
        """A pile's count (`pile`: its left, top, right and bottom): below it, centred. On a board, on
        a plate that keeps it legible over the board's printed art, and inside the pile's bottom
        right-hand corner where the plate takes at most PLATE_SHARE of the pile's width (a deck): a
        count below a deck runs into the next place on the board. A small pile (a coin, a token)
        keeps its count below it, so its face stays seen (`_off_the_words` moves a plate that
        would cover the board's words)."""
        left, _, right, bottom = pile
        x = (left + right) / 2
        if not drawing.on_board:
            drawing.tags.append(Tag(text, x, bottom + self.font * 1.15, self.font, infinity=infinity))
            return
        size = self.font * PLATE_WORDS
        w, h, inset = size * ((1.0 if infinity else 0.56 * len(text)) + 0.6), size * 1.2, size * 0.2
        if w <= PLATE_SHARE * (right - left):
            cx, cy = right - inset - w / 2, bottom - inset - h / 2
        else:
            cx, cy = x, bottom + inset + h / 2
        drawing.tags.append(Tag(text, cx, cy + size * 0.35, size, infinity=infinity, plate=(w, h), pile=pile))

    def _pile(self, drawing: PlaceDrawing, placed: Placed) -> None:
        """A pile: its back (or its top card, face up) with two more under it, and its size."""
        top = placed.cards[0]
        w, h = self.size(top)
        step = w * 0.035
        shown = min(PILE_SHOWN, len(placed.cards))
        for i in range(shown - 1, -1, -1):
            card = placed.cards[i]
            up = placed.face_up and i == 0
            drawing.pictures.append(self.picture(card if up else top, up, i * step, i * step, shadow=i == shown - 1))
        self._count(drawing, f"×{len(placed.cards)}", (0.0, 0.0, w + (shown - 1) * step, h + (shown - 1) * step))

    def _stacks(self, drawing: PlaceDrawing, placed: Placed, unlimited: bool) -> None:
        """Pieces: one small stack per different piece, with how many there are (∞: as many as needed)."""
        place = placed.place
        x = 0.0
        different = placed.different
        dx = place.spacing_mm[0] if place.spacing_mm else None
        for card in different:
            n = sum(1 for c in placed.cards if c.id == card.id)
            w, h = self.size(card)
            step = w * 0.06
            shown = min(STACK_SHOWN, n)
            for i in range(shown - 1, -1, -1):
                drawing.pictures.append(self.picture(card, True, x + i * step, i * step, shadow=i == shown - 1))
            if n > 1 or unlimited:
                self._count(drawing, "∞" if unlimited else f"×{n}",
                            (x, 0.0, x + w + (shown - 1) * step, h + (shown - 1) * step), infinity=unlimited)
            x += dx if dx else w + (shown - 1) * step + max(NEAR, self.font * 2.2 if n > 1 else NEAR)

    def _fan(self, drawing: PlaceDrawing, placed: Placed) -> None:
        """A hand: its cards face up (the player's own view), fanned."""
        n = len(placed.cards)
        for i, card in enumerate(placed.cards):
            w, _ = self.size(card)
            turn = (i - (n - 1) / 2) * FAN_DEGREES
            drawing.pictures.append(self.picture(card, True, i * w * 0.42, abs(turn) * w * 0.012,
                                                 rotate=turn))

    def _spread(self, drawing: PlaceDrawing, placed: Placed) -> None:
        """A row, a grid, the cards in front of a player, a board: side by side as the set-up spaces them."""
        place = placed.place
        first = placed.cards[0]
        w, h = self.size(first)
        columns = len(placed.grid_rows[0]) if placed.grid_rows else (place.columns or len(placed.cards))
        gap = NEAR if placed.kind != "board" else GAP
        dx, dy = place.spacing_mm or (w + gap, h + gap)
        if not place.spacing_mm and placed.kind == "cards":  # different things in front of a player
            x = 0.0
            for card, up in zip(placed.cards, placed.faces_up()):
                drawing.pictures.append(self.picture(card, up, x, 0.0))
                x += self.size(card)[0] + NEAR
            return
        for n, (card, up) in enumerate(zip(placed.cards, placed.faces_up())):
            drawing.pictures.append(self.picture(card, up, (n % columns) * dx, (n // columns) * dy))
