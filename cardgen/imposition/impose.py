"""impose(): pieces of one or more sizes onto print-and-play sheets, fronts and (duplex) backs.

Each kind of piece (one size and shape) has its own grid (`layout`). Kinds are laid out largest
first; the empty cells of a kind's last sheet then take smaller pieces, as many as fit in a
cell with their bleed (King's Blade's forge tokens in the last card sheet). A piece in another
grid's cell is cut out of that cell after the grid is cut, along the cut line drawn on it.

Every front page is followed by its back page (long-edge flip, `SheetLayout.mirror`) when
duplex. Back pages carry no crop marks (you cut from the front) and are shifted as a whole by
`back_offset_mm`, the correction `cardgen calibrate` measures for the user's printer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import BuildError
from .furniture import DUPLEX, NOTICE, NOTICE_SHORT, ONE_SIDED, SCALE_TEXT, SHEET, SIDES, Item, NoRoom, place
from .geometry import EPS_MM, ImposedSheets, Mark, Paper, Placement, Rect, SheetSpec, Slot
from .layout import MIN_BLEED_MM, SheetLayout, layout_for
from .marks import circle_marks, grid_marks, outline_mark
from .pdfwrite import Draw, PagePlan, SourceLibrary, register_font, write_sheet_pdf


@dataclass(frozen=True)
class PieceGroup:
    """Pieces of one size and shape; `label` names them in the summary (e.g. "Forge token")."""

    spec: SheetSpec
    slots: list[Slot]
    label: str = ""


@dataclass(frozen=True)
class _Piece:
    slot: int            # index into all slots, in the order the groups were given
    trim: Rect
    clip: Rect           # what the front may paint
    back_clip: Rect      # what the back may paint, before mirroring
    shape: str
    bleed: float         # of the piece's source PDF (trim + 2 * bleed)
    outlined: bool       # in another grid's cell: its cut line is drawn on it


@dataclass
class _Sheet:
    layout: SheetLayout  # the grid whose crop marks the sheet carries
    pieces: list[_Piece]
    free: list[Rect]     # trim boxes of the grid's empty cells


def impose(slots: list[Slot], spec: SheetSpec, paper: Paper, out: Path, *, duplex: bool = True,
           title: str = "", font_path: Path | None = None,
           back_offset_mm: tuple[float, float] = (0.0, 0.0), gettext: Callable[[str], str] = str) -> ImposedSheets:
    """Pieces of one kind; see `impose_groups`."""
    return impose_groups([PieceGroup(spec, slots)], paper, out, duplex=duplex, title=title,
                         font_path=font_path, back_offset_mm=back_offset_mm, gettext=gettext)


def impose_groups(groups: list[PieceGroup], paper: Paper, out: Path, *, duplex: bool = True,
                  title: str = "", font_path: Path | None = None,
                  back_offset_mm: tuple[float, float] = (0.0, 0.0), footer: str | None = None,
                  gettext: Callable[[str], str] = str) -> ImposedSheets:
    """Write every slot of `groups` onto sheets of `paper` as `out` and report where everything went.

    Slots fill each grid row by row from the top left. A slot without a back leaves its back
    blank. Page index p of the report is the 0-based page in the PDF. Raises ValueError for an
    unreadable, multi-page or wrongly sized piece PDF (message starts with its path) or a piece
    that does not fit the paper. `title` is the document title; `footer` (default: the title)
    starts every page's footer line. `gettext` translates cardgen's page text (i18n.own).
    """
    footer_title = title if footer is None else footer
    groups = [g for g in groups if g.slots]
    if not groups:
        raise ValueError("nothing to impose: no slots")
    font = register_font(font_path)
    first_slot = [sum(len(g.slots) for g in groups[:i]) for i in range(len(groups))]
    sheets: list[_Sheet] = []
    layouts = []
    # Largest pieces first, so smaller ones can fill the cells they leave empty.
    for gi in sorted(range(len(groups)), key=lambda i: -groups[i].spec.trim_w_mm * groups[i].spec.trim_h_mm):
        group = groups[gi]
        layout = layout_for(group.spec, paper)
        if layout.cols == 0 or layout.rows == 0:
            raise ValueError(f"a {group.spec.trim_w_mm:g} x {group.spec.trim_h_mm:g} mm piece does not fit on "
                             f"{paper.name} inside the {group.spec.margin_mm:g} mm margins; use tile()")
        todo = list(range(first_slot[gi], first_slot[gi] + len(group.slots)))
        todo = _fill_free_cells(sheets, group.spec, todo)
        if todo:
            layouts.append(describe(layout, group.label))
        while todo:
            sheet, todo = _new_sheet(layout, todo)
            sheets.append(sheet)
    slots = [s for g in groups for s in g.slots]
    sizes = {i: _size(g.spec) for gi, g in enumerate(groups)
             for i in range(first_slot[gi], first_slot[gi] + len(g.slots))}
    with SourceLibrary() as library:
        keys = [(library.add(s.front, sizes[i]), library.add(s.back, sizes[i]) if s.back else None)
                for i, s in enumerate(slots)]
        plans: list = []
        placements: list = []
        mode = gettext(DUPLEX if duplex else ONE_SIDED)
        for n, sheet in enumerate(sheets):
            sides = ("front", "back") if duplex else ("front",)
            for side in sides:
                plan, placed = _page_plan(sheet, len(plans), side, keys, back_offset_mm)
                short = gettext(SHEET).format(n=n + 1, total=len(sheets), side=gettext(SIDES[side]))
                line = " \u00b7 ".join(p for p in (footer_title, short, paper.name, mode) if p)
                items = [Item(line, shorter=(f"{short} \u00b7 {paper.name} \u00b7 {mode}", short))]
                if n == 0 and side == "front":
                    items = [Item(gettext(NOTICE), ("top", "bottom", "left", "right"),
                                  shorter=(gettext(NOTICE_SHORT),)),
                             Item(SCALE_TEXT, ("top", "bottom", "left", "right"), scale=True)] + items
                art = sheet.layout.art_extent()
                try:
                    plan.labels, bars = place(items, len(plans), plan.w_mm, plan.h_mm,
                                              sheet.layout.spec.margin_mm, art, plan.marks, font)
                except NoRoom as exc:
                    spec, grid = sheet.layout.spec, sheet.layout
                    raise BuildError(
                        f"{paper.name} print sheet {n + 1}, {side}: {spec.trim_w_mm:g} x {spec.trim_h_mm:g} mm "
                        f"pieces {grid.cols} x {grid.rows} a sheet{' landscape' if grid.landscape else ''} "
                        f"leave {exc}; the other paper or another piece size may leave room") from None
                plan.marks += bars
                plans.append(plan)
                placements += placed
        write_sheet_pdf(plans, library, out, font=font, title=title)
    first = sheets[0].layout
    return ImposedSheets(
        path=Path(out), pages=len(plans), per_page=first.cols * first.rows, cols=first.cols,
        rows=first.rows, placements=placements, marks=[m for plan in plans for m in plan.marks],
        page_w_mm=first.page_w, page_h_mm=first.page_h, landscape=first.landscape,
        labels=[lb for plan in plans for lb in plan.labels], layouts=layouts, duplex=duplex)


def _size(spec: SheetSpec) -> tuple[float, float]:
    return spec.trim_w_mm + 2 * spec.bleed_mm, spec.trim_h_mm + 2 * spec.bleed_mm


def _new_sheet(layout: SheetLayout, todo: list[int]) -> tuple[_Sheet, list[int]]:
    per_page = layout.cols * layout.rows
    here, rest = todo[:per_page], todo[per_page:]
    pieces = []
    for i, slot in enumerate(here):
        col, row = i % layout.cols, i // layout.cols
        pieces.append(_Piece(slot, layout.trim_rect(col, row), layout.clip_rect(col, row),
                             layout.back_clip_rect(col, row), layout.spec.shape, layout.spec.bleed_mm,
                             outlined=False))
    free = [layout.trim_rect(i % layout.cols, i // layout.cols) for i in range(len(here), per_page)]
    return _Sheet(layout, pieces, free), rest


def _fill_free_cells(sheets: list[_Sheet], spec: SheetSpec, todo: list[int]) -> list[int]:
    """Put as many of `todo` as fit into the empty cells of earlier sheets; return the rest."""
    for sheet in sheets:
        while todo and sheet.free:
            spots = cell_spots(spec, sheet.free[0])
            if not spots:
                break  # cells of one sheet are all the same size
            sheet.free.pop(0)
            for trim, clip in spots:
                if not todo:
                    break
                sheet.pieces.append(_Piece(todo.pop(0), trim, clip, clip, spec.shape, spec.bleed_mm,
                                          outlined=True))
    return todo


def cell_spots(spec: SheetSpec, cell: Rect) -> list[tuple[Rect, Rect]]:
    """(trim, clip) of each piece of `spec` that fits in `cell`, top row first.

    Pieces are spread evenly with e of space at the cell's edges and 2e between them, e at
    least MIN_BLEED_MM; each keeps min(bleed, e) of bleed, so none paints past the cell's cut
    lines or onto another.
    """
    w, h, bleed = spec.trim_w_mm, spec.trim_h_mm, spec.bleed_mm
    least = min(MIN_BLEED_MM, bleed)
    nx = math.floor((cell.w + EPS_MM) / (w + 2 * least))
    ny = math.floor((cell.h + EPS_MM) / (h + 2 * least))
    if nx < 1 or ny < 1:
        return []
    ex, ey = (cell.w - nx * w) / (2 * nx), (cell.h - ny * h) / (2 * ny)
    bx, by = min(bleed, ex), min(bleed, ey)
    spots = []
    for row in range(ny):
        for col in range(nx):
            x = cell.x + ex + col * (w + 2 * ex)
            y = cell.y1 - ey - h - row * (h + 2 * ey)
            trim = Rect(x, y, w, h)
            spots.append((trim, trim.expanded(bx, by, bx, by)))
    return spots


def _page_plan(sheet: _Sheet, page: int, side: str, keys: list[tuple[str, str | None]],
               offset: tuple[float, float]) -> tuple[PagePlan, list[Placement]]:
    """One page: a draw + placement per piece, and (fronts only) its cut marks."""
    layout = sheet.layout
    plan, placements = PagePlan(layout.page_w, layout.page_h), []
    dx, dy = offset if side == "back" else (0.0, 0.0)
    for piece in sheet.pieces:
        key = keys[piece.slot][0] if side == "front" else keys[piece.slot][1]
        if key is None:
            continue
        trim, clip = piece.trim, piece.clip
        if side == "back":
            trim, clip = layout.mirror(trim), layout.mirror(piece.back_clip)
            trim = Rect(trim.x + dx, trim.y + dy, trim.w, trim.h)
            clip = Rect(clip.x + dx, clip.y + dy, clip.w, clip.h)
        plan.draws.append(Draw(key, trim.x - piece.bleed, trim.y - piece.bleed, clip))
        placements.append(Placement(page, piece.slot, side, trim.x, trim.y, trim.w, trim.h))
    if side == "front":
        plan.marks = _marks(sheet, page)
    return plan, placements


def _marks(sheet: _Sheet, page: int) -> list[Mark]:
    layout = sheet.layout
    own = [p for p in sheet.pieces if not p.outlined]
    if layout.spec.shape == "circle":
        marks = circle_marks(page, [p.trim for p in own])
    else:
        marks = grid_marks(page, layout)
    return marks + [outline_mark(page, p.trim, p.shape) for p in sheet.pieces if p.outlined]


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
