"""impose(): pieces of one or more sizes onto print-and-play sheets, fronts and (duplex) backs.

`pack` decides where every piece goes (grids, loose pieces in free space, mixed sheets, tiles of
components larger than the paper); this module draws that: the pieces, their cut marks, the page
text, and the back pages.

Every front page is followed by its back page (long-edge flip, `mirror`) when duplex. Back pages
carry no marks (you cut from the front) and are shifted as a whole by `back_offset_mm`, the
correction `cardgen calibrate` measures for the user's printer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import BuildError
from ..words import counted
from .furniture import DUPLEX, NOTICE, NOTICE_SHORT, ONE_SIDED, SCALE_TEXT, SHEET, SIDES, Item, NoRoom, place
from .geometry import EPS_MM, ImposedSheets, Mark, Paper, Placement, Rect, SheetSpec, Slot
from .layout import FORGIVING, SheetLayout
from .marks import circle_marks, grid_marks, outline_mark
from .pack import Kind, Packing, Sheet, Tiled, loose_bleed, pack, pack_cells
from .pdfwrite import Draw, PagePlan, SourceLibrary, register_font, write_sheet_pdf
from .presets import CutStyle
from .tiling import tile_footer, tile_marks


@dataclass(frozen=True)
class PieceGroup:
    """Pieces of one size and shape; `label` names them in the summary (e.g. "Forge token")."""

    spec: SheetSpec
    slots: list[Slot]
    label: str = ""


@dataclass(frozen=True)
class TiledComponent:
    """A component larger than the paper, printed one-sided over several overlapping pages."""

    slot: Slot
    bleed_mm: float
    label: str = ""


def impose(slots: list[Slot], spec: SheetSpec, paper: Paper, out: Path, *, duplex: bool = True,
           title: str = "", font_path: Path | None = None, back_offset_mm: tuple[float, float] = (0.0, 0.0),
           gettext: Callable[[str], str] = str, style: CutStyle = FORGIVING) -> ImposedSheets:
    """Pieces of one kind; see `impose_groups`."""
    return impose_groups([PieceGroup(spec, slots)], paper, out, duplex=duplex, title=title, font_path=font_path,
                         back_offset_mm=back_offset_mm, gettext=gettext, style=style)


def impose_groups(groups: list[PieceGroup], paper: Paper, out: Path, *, duplex: bool = True, title: str = "",
                  font_path: Path | None = None, back_offset_mm: tuple[float, float] = (0.0, 0.0),
                  footer: str | None = None, gettext: Callable[[str], str] = str, style: CutStyle = FORGIVING,
                  tiled: Sequence[TiledComponent] = ()) -> ImposedSheets:
    """Write every slot of `groups` (and the tiles of `tiled`) onto sheets of `paper` as `out`
    and report where everything went.

    A slot without a back leaves its back blank. Page index p of the report is the 0-based page
    in the PDF. Raises ValueError for an unreadable, multi-page or wrongly sized piece PDF
    (message starts with its path) or a piece that does not fit the paper. `title` is the
    document title; `footer` (default: the title) starts every page's footer line. `gettext`
    translates cardgen's page text (i18n.own). `style` is the cut style (`presets.CUT_STYLES`).
    """
    def packer(kinds: list[Kind], components: list[Tiled], margin: float) -> Packing:
        return pack(kinds, components, paper, style, margin)

    return _impose(groups, tiled, packer, paper, out, duplex=duplex, title=title, font_path=font_path,
                   back_offset_mm=back_offset_mm, footer=footer, gettext=gettext)


def impose_cells(groups: list[PieceGroup], cells: SheetLayout, card: int, paper: Paper, out: Path, *,
                 page_marks: Callable[[int], list[Mark]], text_outside: Rect | None = None, duplex: bool = True,
                 title: str = "", font_path: Path | None = None, footer: str | None = None,
                 gettext: Callable[[str], str] = str) -> ImposedSheets:
    """Every page on the one grid `cells` (a cutting machine's sheets, `cutter`): group `card`
    fills the cells, the other groups' pieces sit loose in empty cells. The fronts carry
    `page_marks(page)` (registration marks) instead of crop marks; page text stays outside
    `text_outside` (a frame around the cells) too."""
    def packer(kinds: list[Kind], components: list[Tiled], margin: float) -> Packing:
        return pack_cells(kinds, cells, card)

    return _impose(groups, (), packer, paper, out, duplex=duplex, title=title, font_path=font_path,
                   footer=footer, gettext=gettext, page_marks=page_marks, text_outside=text_outside)


def _impose(groups: list[PieceGroup], tiled: Sequence[TiledComponent],
            packer: Callable[[list[Kind], list[Tiled], float], Packing], paper: Paper, out: Path, *,
            duplex: bool, title: str, font_path: Path | None, footer: str | None, gettext: Callable[[str], str],
            back_offset_mm: tuple[float, float] = (0.0, 0.0),
            page_marks: Callable[[int], list[Mark]] | None = None, text_outside: Rect | None = None) -> ImposedSheets:
    footer_title = title if footer is None else footer
    if not any(g.slots for g in groups) and not tiled:
        raise ValueError("nothing to impose: no slots")
    font = register_font(font_path)
    margin = groups[0].spec.margin_mm if groups else 5.0
    slots = [s for g in groups for s in g.slots]
    kinds, first = [], 0
    for group in groups:
        kinds.append(Kind(group.spec, list(range(first, first + len(group.slots))), group.label))
        first += len(group.slots)
    with SourceLibrary() as library:
        keys: list[tuple[str, str | None]] = []
        for kind in kinds:
            size = _size(kind.spec)
            keys += [(library.add(slots[i].front, size), library.add(slots[i].back, size) if slots[i].back else None)
                     for i in kind.slots]
        components = []
        for component in tiled:
            key = library.add(component.slot.front)
            w, h = library.size_mm(key)
            if min(w, h) <= 2 * component.bleed_mm:
                raise ValueError(f"{component.slot.front}: {w:.1f} x {h:.1f} mm has no room for "
                                 f"{component.bleed_mm} mm bleed")
            components.append(Tiled(len(keys), (w, h), component.bleed_mm, component.label,
                                    component.slot.label))
            keys.append((key, None))
        packing = packer(kinds, components, margin)
        pages = _Pages(packing, kinds, components, keys, paper, duplex, back_offset_mm, margin, font, gettext,
                       footer_title, page_marks, text_outside)
        plans, placements = pages.render()
        write_sheet_pdf(plans, library, out, font=font, title=title)
    first_layout = next((s.layout for s in packing.sheets if s.layout is not None), None)
    first_tile = next((s.tile for s in packing.sheets if s.tile is not None), None)
    cols = first_layout.cols if first_layout else (first_tile.grid.cols if first_tile else 1)
    rows = first_layout.rows if first_layout else (first_tile.grid.rows if first_tile else 1)
    return ImposedSheets(
        path=Path(out), pages=len(plans), per_page=cols * rows if first_layout else 1, cols=cols, rows=rows,
        placements=placements, marks=[m for plan in plans for m in plan.marks],
        page_w_mm=packing.sheets[0].page_w, page_h_mm=packing.sheets[0].page_h, landscape=packing.landscape,
        labels=[lb for plan in plans for lb in plan.labels], layouts=summary(packing, kinds, components),
        duplex=duplex, used=[s.used() for s in packing.sheets], least_bleed=least_bleed(packing, kinds))


def _size(spec: SheetSpec) -> tuple[float, float]:
    return spec.trim_w_mm + 2 * spec.bleed_mm, spec.trim_h_mm + 2 * spec.bleed_mm


def mirror(rect: Rect, page_w: float, page_h: float) -> Rect:
    """Where `rect` lands on the back after a LONG-EDGE flip: the sheet turns about an axis
    parallel to its long edges, left-right on a portrait page, top-bottom on a landscape one."""
    if page_h >= page_w:
        return Rect(page_w - rect.x1, rect.y, rect.w, rect.h)
    return Rect(rect.x, page_h - rect.y1, rect.w, rect.h)


class _Pages:
    """The page plans of a packing: pieces, marks and page text, front and back."""

    def __init__(self, packing: Packing, kinds: list[Kind], tiled: list[Tiled], keys: list[tuple[str, str | None]],
                 paper: Paper, duplex: bool, offset: tuple[float, float], margin: float, font: str,
                 gettext: Callable[[str], str], footer: str, page_marks: Callable[[int], list[Mark]] | None,
                 text_outside: Rect | None):
        self.packing, self.kinds, self.tiled, self.keys = packing, kinds, tiled, keys
        self.paper, self.duplex, self.offset, self.margin = paper, duplex, offset, margin
        self.font, self.gettext, self.footer = font, gettext, footer
        self.page_marks = page_marks  # a cutting machine's marks, instead of crop marks
        self.text_outside = text_outside

    def render(self) -> tuple[list[PagePlan], list[Placement]]:
        plans: list[PagePlan] = []
        placements: list[Placement] = []
        sheets = [s for s in self.packing.sheets if s.tile is None]
        mode = self.gettext(DUPLEX if self.duplex else ONE_SIDED)
        for sheet in self.packing.sheets:
            for side in ("front", "back") if self.duplex else ("front",):
                plan, placed = self._plan(sheet, len(plans), side)
                items = [self._footer_item(sheet, sheets, side, mode)]
                if not plans:
                    items = [Item(self.gettext(NOTICE), ("top", "bottom", "left", "right"),
                                  shorter=(self.gettext(NOTICE_SHORT),)),
                             Item(SCALE_TEXT, ("top", "bottom", "left", "right"), scale=True)] + items
                try:
                    plan.labels, bars = place(items, len(plans), plan.w_mm, plan.h_mm, self.margin,
                                              _art(sheet, self.text_outside), plan.marks, self.font)
                except NoRoom as exc:
                    raise BuildError(self._no_room(sheet, sheets, side, exc)) from None
                plan.marks += bars
                plans.append(plan)
                placements += placed
        return plans, placements

    def _footer_item(self, sheet: Sheet, sheets: list[Sheet], side: str, mode: str) -> Item:
        if sheet.tile is not None:
            spot = sheet.tile
            title = f"{self.footer} {self.tiled[spot.tiled].name}".strip()
            return Item(tile_footer(title, spot.row, spot.col, spot.grid, self.paper, self.gettext))
        short = self.gettext(SHEET).format(n=sheets.index(sheet) + 1, total=len(sheets),
                                           side=self.gettext(SIDES[side]))
        line = " \u00b7 ".join(p for p in (self.footer, short, self.paper.name, mode) if p)
        return Item(line, shorter=(f"{short} \u00b7 {self.paper.name} \u00b7 {mode}", short))

    def _no_room(self, sheet: Sheet, sheets: list[Sheet], side: str, exc: NoRoom) -> str:
        if sheet.layout is not None:
            spec, grid = sheet.layout.spec, sheet.layout
            what = (f"{spec.trim_w_mm:g} x {spec.trim_h_mm:g} mm pieces {grid.cols} x {grid.rows} a sheet"
                    f"{' landscape' if grid.landscape else ''}")
        else:
            what = "its pieces"
        where = (f"print sheet {sheets.index(sheet) + 1}" if sheet in sheets else "tile page")
        return f"{self.paper.name} {where}, {side}: {what} leave {exc}; the other paper or another piece size may leave room"

    def _plan(self, sheet: Sheet, page: int, side: str) -> tuple[PagePlan, list[Placement]]:
        """One page: a draw + placement per piece, and (fronts only) the cut marks."""
        plan, placements = PagePlan(sheet.page_w, sheet.page_h), []
        dx, dy = self.offset if side == "back" else (0.0, 0.0)
        for piece in sheet.pieces:
            key = self.keys[piece.slot][0 if side == "front" else 1]
            if key is None:
                continue
            trim, clip = piece.trim, piece.clip
            if side == "back":
                trim, clip = mirror(trim, sheet.page_w, sheet.page_h), mirror(piece.back_clip, sheet.page_w, sheet.page_h)
                trim = Rect(trim.x + dx, trim.y + dy, trim.w, trim.h)
                clip = Rect(clip.x + dx, clip.y + dy, clip.w, clip.h)
            bleed = self.kinds[piece.kind].spec.bleed_mm
            plan.draws.append(Draw(key, trim.x - bleed, trim.y - bleed, clip))
            placements.append(Placement(page, piece.slot, side, trim.x, trim.y, trim.w, trim.h))
        spot = sheet.tile
        if spot is not None and side == "front":
            component = self.tiled[spot.tiled]
            key = self.keys[component.slot][0]
            assert key is not None
            region, source = spot.region, spot.source
            plan.draws.append(Draw(key, region.x - source.x, region.y - source.y, region))
            placements.append(Placement(page, component.slot, side, region.x, region.y, region.w, region.h,
                                        source=source))
        if side == "front":
            plan.marks = self._marks(sheet, page)
        return plan, placements

    def _marks(self, sheet: Sheet, page: int) -> list[Mark]:
        marks: list[Mark] = []
        layout = sheet.layout
        if self.page_marks is not None:
            marks += self.page_marks(page)
        elif layout is not None and layout.spec.shape == "circle":
            marks += circle_marks(page, [p.trim for p in sheet.pieces if not p.loose])
        elif layout is not None:
            marks += grid_marks(page, layout)
        spot = sheet.tile
        if spot is not None:
            component = self.tiled[spot.tiled]
            w, h = component.size_mm
            b = component.bleed_mm
            marks += tile_marks(page, spot.grid, spot.col, spot.row, spot.region, spot.source,
                                Rect(b, b, w - 2 * b, h - 2 * b), self.margin)
        shapes = [k.spec.shape for k in self.kinds]
        return marks + [outline_mark(page, p.trim, shapes[p.kind]) for p in sheet.pieces if p.loose]


def _art(sheet: Sheet, extra: Rect | None = None) -> Rect:
    """Everything a front may paint (and `extra`): page text and bars stay outside it."""
    rects = [p.clip for p in sheet.pieces] + ([extra] if extra is not None else [])
    if sheet.layout is not None and any(not p.loose for p in sheet.pieces):
        rects.append(sheet.layout.art_extent())
    if sheet.tile is not None:
        rects.append(sheet.tile.region)
    x0, y0 = min(r.x for r in rects), min(r.y for r in rects)
    return Rect(x0, y0, max(r.x1 for r in rects) - x0, max(r.y1 for r in rects) - y0)


def least_bleed(packing: Packing, kinds: list[Kind]) -> float | None:
    """The least bleed any piece keeps at any of its cuts: a grid's, or a loose piece's."""
    kept = [min(s.layout.x.least_bleed, s.layout.y.least_bleed)
            for s in packing.sheets if s.layout is not None and any(not p.loose for p in s.pieces)]
    kept += [loose_bleed(kinds[k].spec) for k in packing.loose]
    return min(kept) if kept else None


def summary(packing: Packing, kinds: list[Kind], tiled: list[Tiled]) -> list[str]:
    """The build summary's lines for a file: each grid, the loose pieces, the tiles."""
    lines: list[str] = []
    for sheet in packing.sheets:
        if sheet.layout is None or not any(not p.loose for p in sheet.pieces):
            continue
        line = describe(sheet.layout, kinds[next(p.kind for p in sheet.pieces if not p.loose)].label)
        if line not in lines:
            lines.append(line)
    for k, count in sorted(packing.loose.items()):
        spec = kinds[k].spec
        what = kinds[k].label or f"{spec.trim_w_mm:g} x {spec.trim_h_mm:g} mm pieces"
        lines.append(f"{what}: {count} in free space, each cut along its own line "
                     f"({loose_bleed(spec):.1f} mm bleed all round)")
    mixed = sum(1 for s in packing.sheets if s.layout is None and s.tile is None)
    if mixed:
        lines.append(f"{counted(mixed, 'sheet')} of pieces of several sizes, each cut along its own line")
    tiles: dict[tuple[str, int, int], int] = {}
    for ti, component in enumerate(tiled):
        spot = next(s.tile for s in packing.sheets if s.tile is not None and s.tile.tiled == ti)
        key = (component.label, spot.grid.rows, spot.grid.cols)
        tiles[key] = tiles.get(key, 0) + 1
    lines += [f"{label}: {n} x {rows} x {cols} tiled pages" for (label, rows, cols), n in tiles.items()]
    return lines


def describe(layout: SheetLayout, label: str) -> str:
    """One line for the build summary: grid, spacing and the bleed each piece keeps."""
    spec = layout.spec

    def axis(name: str, fit) -> str:
        if fit.count < 2:
            return f"one {name}"
        if fit.gutter < EPS_MM:
            return f"{name}s butted (shared cuts)"
        return f"{name}s {fit.gutter:.1f} mm apart ({min(spec.bleed_mm, fit.gutter / 2):.1f} mm bleed each)"

    what = label or f"{spec.trim_w_mm:g} x {spec.trim_h_mm:g} mm pieces"
    orient = " landscape" if layout.landscape else ""
    return (f"{what}: {layout.cols} x {layout.rows} a sheet{orient}, {axis('column', layout.x)}, "
            f"{axis('row', layout.y)}, outer bleed {layout.x.outer_bleed:.1f} / {layout.y.outer_bleed:.1f} mm")
