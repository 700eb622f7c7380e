"""Packing one print file: which piece goes on which sheet, and where.

For one page orientation (a file keeps one; `pack` tries both):

1. Kinds (pieces of one size and shape), largest first, fill sheets of their own grid
   (`layout`), row by row. The pieces that do not fill a whole sheet either start one more
   sheet of the grid or become LOOSE pieces (a whole sheet of paper for four coins is waste):
   every choice is tried, in both orientations, and the one needing fewest sheets wins; then
   the one with every sheet at least a quarter used, the one with fewest loose pieces, the one
   whose largest grid holds more, portrait.
2. Components larger than the paper add their tile pages (`tiling`).
3. Loose pieces, largest first, go into free space: a grid's empty cells, the strip beside a
   grid (laid out compact, starting at the margin, where that strip holds a piece), the strips
   beside a tile's region, in sheet order; what is left fills mixed sheets. A loose piece keeps
   LOOSE_BLEED_MM of bleed all round and carries its own cut line: the sheet's crop marks do not
   reach it, and its box never crosses one of the sheet's cut lines.
4. No sheet is used less than a quarter (pieces' trim area over the paper's) unless the file
   has only one: a sheet under it takes pieces from the others (loose pieces first, then the
   last piece of a grid) as long as those stay at a quarter or more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .geometry import EPS_MM, Paper, Rect, SheetSpec
from .layout import FORGIVING, LOOSE_BLEED_MM, MARK_GAP_MM, SheetLayout, layout_for, page_size
from .presets import CutStyle
from .tiling import BAND_MM as TILE_BAND_MM
from .tiling import OVERLAP_MM, TileGrid, tile_grid, tile_pockets, tile_region

QUARTER = 0.25
POCKET_PAD_MM = 0.8  # free space keeps this far from the marks beside it
TEXT_LANE_MM = 4.0   # a mixed sheet keeps this at its top and bottom for the page text


@dataclass(frozen=True)
class Kind:
    """Pieces of one size and shape; `slots` index the file's slots."""

    spec: SheetSpec
    slots: list[int]
    label: str = ""


@dataclass(frozen=True)
class Tiled:
    """A component larger than the paper: `size_mm` with its bleed."""

    slot: int
    size_mm: tuple[float, float]
    bleed_mm: float
    label: str = ""  # its kind, for the summary ("Camp map")
    name: str = ""   # this one, for its pages' footers ("camp-red")


@dataclass
class Piece:
    slot: int
    kind: int
    trim: Rect
    clip: Rect       # what the front may paint
    back_clip: Rect  # what the back may paint, before mirroring
    loose: bool      # cut along its own drawn line, not the sheet's crop marks


@dataclass(frozen=True)
class TileSpot:
    tiled: int  # index into the file's tiled components
    grid: TileGrid
    col: int
    row: int
    region: Rect  # on the page
    source: Rect  # the same region in the component's mm


@dataclass
class Sheet:
    page_w: float
    page_h: float
    layout: SheetLayout | None = None  # the grid whose crop marks the sheet carries
    tile: TileSpot | None = None
    pieces: list[Piece] = field(default_factory=list)
    pockets: list[Rect] = field(default_factory=list)  # where loose pieces may still paint
    regions: list[Rect] = field(default_factory=list)  # the free spaces as they were before any piece

    def free(self, *rects: Rect) -> None:
        """Add free space (an empty cell, a strip) where loose pieces may go."""
        self.pockets += rects
        self.regions += rects

    def used(self) -> float:
        area = sum(p.trim.w * p.trim.h for p in self.pieces)
        if self.tile is not None:
            area += self.tile.region.w * self.tile.region.h
        return area / (self.page_w * self.page_h)


@dataclass
class Packing:
    landscape: bool
    sheets: list[Sheet]
    grids: dict[int, SheetLayout]  # kind -> the grid its sheets use
    loose: dict[int, int]          # kind -> how many of its pieces are loose

    def balanced(self) -> bool:
        """Is every sheet at least a quarter used (or the file a single sheet)?"""
        return len(self.sheets) < 2 or all(s.used() >= QUARTER - EPS_MM for s in self.sheets)


def pack(kinds: Sequence[Kind], tiled: Sequence[Tiled], paper: Paper, style: CutStyle = FORGIVING,
         margin: float = 5.0) -> Packing:
    """The file's sheets in the orientation, and with the choice of loose pieces, that needs
    fewest sheets (see module docstring)."""
    options = []
    for turned in (False, True):
        partial = []  # kinds with pieces left over after their full sheets
        for ki, kind in enumerate(kinds):
            layout = layout_for(kind.spec, paper, style, landscape=turned)
            per = layout.cols * layout.rows
            if per and len(kind.slots) % per:
                partial.append(ki)
        for choice in range(2 ** len(partial)):
            loose = frozenset(ki for bit, ki in enumerate(partial) if choice >> bit & 1)
            packing = _pack(kinds, tiled, paper, style, margin, turned, loose)
            if packing is not None:
                options.append(packing)
    if not options:
        big = max(kinds, key=lambda k: k.spec.trim_w_mm * k.spec.trim_h_mm).spec
        raise ValueError(f"a {big.trim_w_mm:g} x {big.trim_h_mm:g} mm piece does not fit on {paper.name} "
                         f"inside the {big.margin_mm:g} mm margins; use tile()")
    largest = max(range(len(kinds)), key=lambda i: kinds[i].spec.trim_w_mm * kinds[i].spec.trim_h_mm) if kinds else None

    def per_sheet(p: Packing) -> int:  # a tie goes to the orientation whose largest grid holds more
        layout = p.grids.get(largest) if largest is not None else None
        return layout.cols * layout.rows if layout else 0

    return min(options, key=lambda p: (len(p.sheets), not p.balanced(), sum(p.loose.values()), -per_sheet(p),
                                       p.landscape))


def loose_bleed(spec: SheetSpec) -> float:
    return min(spec.bleed_mm, LOOSE_BLEED_MM)


def _pack(kinds: Sequence[Kind], tiled: Sequence[Tiled], paper: Paper, style: CutStyle, margin: float,
          landscape: bool, loose_kinds: frozenset[int]) -> Packing | None:
    """One orientation; the kinds in `loose_kinds` put the pieces that do not fill a sheet loose."""
    page_w, page_h = page_size(paper, landscape)
    order = sorted(range(len(kinds)), key=lambda i: -kinds[i].spec.trim_w_mm * kinds[i].spec.trim_h_mm)
    grids: dict[int, SheetLayout] = {}
    sheets: list[Sheet] = []
    loose: list[tuple[int, int]] = []  # (kind, slot), largest kinds first
    for ki in order:
        layout = layout_for(kinds[ki].spec, paper, style, landscape=landscape)
        per = layout.cols * layout.rows
        if per == 0:
            return None
        slots = kinds[ki].slots
        on_grid = len(slots) - len(slots) % per if ki in loose_kinds else len(slots)
        if on_grid:
            grids[ki] = layout
        sheets += [grid_sheet(layout, ki, slots[i:i + per]) for i in range(0, on_grid, per)]
        loose += [(ki, slot) for slot in slots[on_grid:]]
    if loose:
        narrowest = min(kinds[ki].spec.trim_w_mm + 2 * loose_bleed(kinds[ki].spec) for ki, _ in loose)
        sheets = [_compact(s, kinds, paper, style, landscape, narrowest) for s in sheets]
    tiles = []
    for ti, component in enumerate(tiled):
        try:
            grid = tile_grid(*component.size_mm, paper, OVERLAP_MM, margin + TILE_BAND_MM, landscape)
        except ValueError:
            return None
        for row in range(grid.rows):
            for col in range(grid.cols):
                region, source = tile_region(grid, col, row, component.size_mm[1])
                tiles.append(Sheet(page_w, page_h, tile=TileSpot(ti, grid, col, row, region, source)))
                tiles[-1].free(*tile_pockets(grid, region, margin, POCKET_PAD_MM))
    mixed: list[Sheet] = []
    for ki, slot in loose:
        spec = kinds[ki].spec
        if not any(place_loose(s, spec, ki, slot) for s in sheets + tiles + mixed):
            mixed.append(Sheet(page_w, page_h))
            mixed[-1].free(_printable(page_w, page_h, margin))
            if not place_loose(mixed[-1], spec, ki, slot):
                return None
    sheets += mixed
    _rebalance(sheets, kinds, page_w, page_h, margin)
    for sheet in sheets + tiles:
        centre_loose(sheet)
        grow_backs(sheet, kinds)
    return Packing(landscape, sheets + tiles, grids, _loose_counts(sheets + tiles))


def _loose_counts(sheets: Sequence[Sheet]) -> dict[int, int]:
    """kind -> its pieces cut along their own line, as finally placed (rebalancing may have
    moved a grid's piece into free space)."""
    counts: dict[int, int] = {}
    for piece in (p for s in sheets for p in s.pieces if p.loose):
        counts[piece.kind] = counts.get(piece.kind, 0) + 1
    return dict(sorted(counts.items()))


def grid_sheet(layout: SheetLayout, kind: int, slots: Sequence[int]) -> Sheet:
    """A sheet of `layout`'s grid holding `slots` row by row; its empty cells are free space."""
    sheet = Sheet(layout.page_w, layout.page_h, layout=layout)
    for i, slot in enumerate(slots):
        col, row = i % layout.cols, i // layout.cols
        sheet.pieces.append(Piece(slot, kind, layout.trim_rect(col, row), layout.clip_rect(col, row),
                                  layout.back_clip_rect(col, row), loose=False))
    sheet.free(*(layout.trim_rect(i % layout.cols, i // layout.cols)
                 for i in range(len(slots), layout.cols * layout.rows)))
    return sheet


def side_pockets(layout: SheetLayout) -> list[Rect]:
    """Free space right of a grid, beyond its crop marks: one strip per row, between the row's
    cut lines (which run across the whole sheet), up to the blank margin."""
    art = layout.art_extent()
    marks = MARK_GAP_MM + layout.x.mark if layout.spec.shape == "rect" else 0.0
    x0 = art.x1 + marks + POCKET_PAD_MM
    width = layout.page_w - layout.spec.margin_mm - x0
    if width <= EPS_MM:
        return []
    rows = [layout.trim_rect(0, r) for r in range(layout.rows)]
    return [Rect(x0, row.y, width, row.h) for row in rows]


def _compact(sheet: Sheet, kinds: Sequence[Kind], paper: Paper, style: CutStyle, landscape: bool,
             narrowest: float) -> Sheet:
    """The grid sheet laid out compact, with its side strip free, where that strip holds the
    narrowest loose piece; otherwise the sheet as it is (centred)."""
    if sheet.layout is None or not sheet.pieces:
        return sheet
    kind = sheet.pieces[0].kind
    compact = layout_for(kinds[kind].spec, paper, style, landscape=landscape, compact=True)
    pockets = side_pockets(compact)
    if not pockets or pockets[0].w + EPS_MM < narrowest:
        return sheet
    packed = grid_sheet(compact, kind, [p.slot for p in sheet.pieces])
    packed.free(*pockets)
    return packed


def _printable(page_w: float, page_h: float, margin: float) -> Rect:
    """A mixed sheet's free space: inside the margins, less a lane for page text top and bottom."""
    return Rect(margin, margin + TEXT_LANE_MM, page_w - 2 * margin, page_h - 2 * margin - 2 * TEXT_LANE_MM)


def place_loose(sheet: Sheet, spec: SheetSpec, kind: int, slot: int) -> bool:
    """Put one loose piece into the first pocket of `sheet` that holds it (top-left first), and
    split what is left of that pocket: the part beside the piece, then the part below it."""
    keep = loose_bleed(spec)
    w, h = spec.trim_w_mm + 2 * keep, spec.trim_h_mm + 2 * keep
    for i, pocket in enumerate(sheet.pockets):
        if w > pocket.w + EPS_MM or h > pocket.h + EPS_MM:
            continue
        clip = Rect(pocket.x, pocket.y1 - h, w, h)
        trim = clip.expanded(-keep, -keep, -keep, -keep)
        sheet.pieces.append(Piece(slot, kind, trim, clip, clip, loose=True))
        beside = Rect(pocket.x + w, pocket.y1 - h, pocket.w - w, h)
        below = Rect(pocket.x, pocket.y, pocket.w, pocket.h - h)
        sheet.pockets[i:i + 1] = [r for r in (beside, below) if r.w > EPS_MM and r.h > EPS_MM]
        return True
    return False


def _rebalance(sheets: list[Sheet], kinds: Sequence[Kind], page_w: float, page_h: float, margin: float) -> None:
    """Fill each sheet used less than a quarter from the others (module docstring, step 4)."""
    if len(sheets) < 2:
        return
    paper = page_w * page_h
    for receiver in sheets:
        while receiver.used() < QUARTER:
            if not _take_one(receiver, sheets, kinds, paper, margin):
                break
    for sheet in sheets:
        _in_slot_order(sheet)


def _in_slot_order(sheet: Sheet) -> None:
    """A grid's pieces in slot order over the cells they hold, row by row: a piece taken from
    the sheet before went into the first empty cell, but comes before the others here."""
    grid = [p for p in sheet.pieces if not p.loose]
    if sheet.layout is None or len(grid) < 2:
        return
    cells = sorted(((p.trim, p.clip, p.back_clip) for p in grid), key=lambda c: (-c[0].y, c[0].x))
    for piece, (trim, clip, back_clip) in zip(sorted(grid, key=lambda p: p.slot), cells):
        piece.trim, piece.clip, piece.back_clip = trim, clip, back_clip
    sheet.pieces = sorted(grid, key=lambda p: p.slot) + [p for p in sheet.pieces if p.loose]


def _take_one(receiver: Sheet, sheets: list[Sheet], kinds: Sequence[Kind], paper: float, margin: float) -> bool:
    for donor in reversed(sheets):
        if donor is receiver:
            continue
        loose = [p for p in donor.pieces if p.loose]
        grid = [p for p in donor.pieces if not p.loose][-1:]
        for piece in list(reversed(loose)) + grid:
            if donor.used() - piece.trim.w * piece.trim.h / paper < QUARTER - EPS_MM:
                continue
            if _receive(receiver, kinds, piece, margin):
                donor.pieces.remove(piece)
                if not piece.loose:
                    donor.free(piece.trim)  # the emptied cell is free space again
                return True
    return False


def _receive(sheet: Sheet, kinds: Sequence[Kind], piece: Piece, margin: float) -> bool:
    """Place `piece` on `sheet`: in the next empty cell of the sheet's grid if it is of the
    grid's kind, else loose; a mixed sheet is packed again, largest pieces first."""
    spec = kinds[piece.kind].spec
    layout = sheet.layout
    if layout is not None and layout.spec == spec:  # a piece of the sheet's grid: into its next empty cell
        for i in range(layout.cols * layout.rows):
            col, row = i % layout.cols, i // layout.cols
            cell = layout.trim_rect(col, row)
            if cell in sheet.pockets and cell in sheet.regions:  # empty, and nothing loose in it
                sheet.pockets.remove(cell)
                sheet.regions.remove(cell)
                sheet.pieces.append(Piece(piece.slot, piece.kind, cell, layout.clip_rect(col, row),
                                          layout.back_clip_rect(col, row), loose=False))
                return True
        return False
    if sheet.layout is not None or sheet.tile is not None:
        return place_loose(sheet, spec, piece.kind, piece.slot)
    trial = Sheet(sheet.page_w, sheet.page_h)
    trial.free(_printable(sheet.page_w, sheet.page_h, margin))
    pieces = sorted([(p.kind, p.slot) for p in sheet.pieces] + [(piece.kind, piece.slot)],
                    key=lambda ks: -kinds[ks[0]].spec.trim_w_mm * kinds[ks[0]].spec.trim_h_mm)
    if not all(place_loose(trial, kinds[k].spec, k, s) for k, s in pieces):
        return False
    sheet.pieces, sheet.pockets, sheet.regions = trial.pieces, trial.pockets, trial.regions
    return True


def centre_loose(sheet: Sheet) -> None:
    """Centre the loose pieces of each free space (a cell, a strip) in it: packing put them in
    its top-left corner."""
    for region in sheet.regions:
        inside = [p for p in sheet.pieces if p.loose and _within(p.clip, region)]
        if not inside:
            continue
        x0, y0 = min(p.clip.x for p in inside), min(p.clip.y for p in inside)
        x1, y1 = max(p.clip.x1 for p in inside), max(p.clip.y1 for p in inside)
        dx, dy = region.x + (region.w - (x1 - x0)) / 2 - x0, region.y + (region.h - (y1 - y0)) / 2 - y0
        for piece in inside:
            piece.trim, piece.clip, piece.back_clip = (_moved(r, dx, dy) for r in (piece.trim, piece.clip, piece.back_clip))


def grow_backs(sheet: Sheet, kinds: Sequence[Kind]) -> None:
    """Let each loose piece's back keep more of its bleed, up to the design bleed, into the
    empty part of its free space: a duplex back landing 1-2 mm off then still shows no white
    paper at the cut. It never grows into another piece's box or out of its free space."""
    clips = [p.clip for p in sheet.pieces]
    for piece in (p for p in sheet.pieces if p.loose):
        region = next((r for r in sheet.regions if _within(piece.clip, r)), piece.clip)
        room = kinds[piece.kind].spec.bleed_mm - (piece.clip.x1 - piece.trim.x1)
        if room <= EPS_MM:
            continue
        c = piece.clip
        left, right = min(room, c.x - region.x), min(room, region.x1 - c.x1)
        bottom, top = min(room, c.y - region.y), min(room, region.y1 - c.y1)
        for other in clips:
            if other is c:
                continue
            if other.y < c.y1 - EPS_MM and c.y < other.y1 - EPS_MM:  # beside it
                if other.x1 <= c.x + EPS_MM:
                    left = min(left, c.x - other.x1)
                if other.x >= c.x1 - EPS_MM:
                    right = min(right, other.x - c.x1)
            if other.x < c.x1 - EPS_MM and c.x < other.x1 - EPS_MM:  # above or below it
                if other.y1 <= c.y + EPS_MM:
                    bottom = min(bottom, c.y - other.y1)
                if other.y >= c.y1 - EPS_MM:
                    top = min(top, other.y - c.y1)
        grown = c.expanded(max(left, 0.0), max(bottom, 0.0), max(right, 0.0), max(top, 0.0))
        if all(not grown.intersects(o) for o in clips if o is not c):
            piece.back_clip = grown


def _within(rect: Rect, region: Rect) -> bool:
    return (region.x - EPS_MM <= rect.x and rect.x1 <= region.x1 + EPS_MM
            and region.y - EPS_MM <= rect.y and rect.y1 <= region.y1 + EPS_MM)


def _moved(rect: Rect, dx: float, dy: float) -> Rect:
    return Rect(rect.x + dx, rect.y + dy, rect.w, rect.h)


def pack_cells(kinds: Sequence[Kind], layout: SheetLayout, card: int) -> Packing:
    """Every page on the same grid `layout` (a cutting machine cuts each page with one cut
    file): kind `card` fills the cells row by row; every other kind goes loose into empty
    cells, a new page of empty cells taking what the others cannot hold. Every piece must fit
    a cell; no compacting moves a cell, and a page under a quarter used takes cards (into its
    empty cells) or loose pieces from the others where they can spare them."""
    per = layout.cols * layout.rows
    slots = kinds[card].slots
    sheets = [grid_sheet(layout, card, slots[i:i + per]) for i in range(0, len(slots), per)]
    order = sorted((k for k in range(len(kinds)) if k != card),
                   key=lambda k: -kinds[k].spec.trim_w_mm * kinds[k].spec.trim_h_mm)
    for ki in order:
        for slot in kinds[ki].slots:
            if not any(place_loose(s, kinds[ki].spec, ki, slot) for s in sheets):
                sheets.append(grid_sheet(layout, card, []))
                if not place_loose(sheets[-1], kinds[ki].spec, ki, slot):
                    raise ValueError(f"a {kinds[ki].spec.trim_w_mm:g} x {kinds[ki].spec.trim_h_mm:g} mm piece "
                                     "does not fit a cell of the cutter's grid")
    _rebalance(sheets, kinds, layout.page_w, layout.page_h, layout.spec.margin_mm)
    for sheet in sheets:
        centre_loose(sheet)
        grow_backs(sheet, kinds)
    return Packing(layout.landscape, sheets, {card: layout} if slots else {}, _loose_counts(sheets))
