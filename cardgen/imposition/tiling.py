"""tile(): one component larger than the paper (map, board) split over overlapping pages.

Every tile has the same size, and neighbours overlap by exactly `overlap_mm`. The tiles are
the fewest that cover the component in either page orientation (a tie stays portrait). Each
page shows its region centred, clipped to the region, with triangles in the margin pointing at
the lines where the neighbouring tiles' regions begin: cut one sheet along its region edge and
lay that edge on the triangles of the other. Where the component's trim corners fall on a
page, crop marks are drawn there. Triangles, marks and page text sit in a band of BAND_MM
between the printer's blank margin and the region, so a home printer prints all of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import BuildError
from ..i18n.own import N_
from .furniture import NOTICE, ONE_SIDED, SCALE_TEXT, Item, NoRoom, place
from .geometry import EPS_MM, ImposedSheets, Mark, Paper, Placement, Rect
from .layout import MARK_GAP_MM
from .marks import ALIGN_LEN_MM, MARK_LEN_MM, align_marks, crop_marks
from .pdfwrite import Draw, PagePlan, SourceLibrary, register_font, write_sheet_pdf

BAND_MM = MARK_GAP_MM + ALIGN_LEN_MM  # room for the triangles (and the page text) beyond a region
OVERLAP_MM = 4.0  # neighbouring tiles overlap by this: enough to tape over


@dataclass(frozen=True)
class TileGrid:
    page_w: float
    page_h: float
    landscape: bool
    cols: int
    rows: int
    tile_w: float  # every region is tile_w x tile_h; neighbours overlap by `overlap`
    tile_h: float
    overlap: float

    def region(self, col: int, row: int, comp_h: float) -> Rect:
        """Region of tile (col, row) in component mm; row 0 is the TOP row."""
        step_x, step_y = self.tile_w - self.overlap, self.tile_h - self.overlap
        top = comp_h - row * step_y
        return Rect(col * step_x, top - self.tile_h, self.tile_w, self.tile_h)


def tiles_needed(length: float, avail: float, overlap: float) -> int:
    """Fewest tiles of at most `avail` that cover `length` with `overlap` between neighbours."""
    if length <= avail + EPS_MM:
        return 1
    return math.ceil((length - overlap) / (avail - overlap) - EPS_MM)


def tile_grid(comp_w: float, comp_h: float, paper: Paper, overlap: float, margin: float,
              landscape: bool | None = None) -> TileGrid:
    """Choose the orientation needing fewer pages (unless `landscape` fixes it: a print file
    keeps one orientation), then size the tiles evenly."""
    short, long_ = sorted((paper.width_mm, paper.height_mm))
    options = []
    orientations = ((False, (short, long_)), (True, (long_, short)))
    for turned, (pw, ph) in orientations:
        if landscape is not None and turned != landscape:
            continue
        avail_w, avail_h = pw - 2 * margin, ph - 2 * margin
        if min(avail_w, avail_h) <= overlap:
            raise ValueError(f"overlap {overlap} mm leaves no room on {paper.name} with {margin} mm margins")
        cols, rows = tiles_needed(comp_w, avail_w, overlap), tiles_needed(comp_h, avail_h, overlap)
        options.append((cols * rows, turned, pw, ph, cols, rows))
    _, landscape, pw, ph, cols, rows = min(options)  # False < True: a tie stays portrait
    tile_w = comp_w if cols == 1 else (comp_w + (cols - 1) * overlap) / cols
    tile_h = comp_h if rows == 1 else (comp_h + (rows - 1) * overlap) / rows
    return TileGrid(pw, ph, landscape, cols, rows, tile_w, tile_h, overlap)


def tile(component: Path, paper: Paper, out: Path, *, overlap_mm: float = OVERLAP_MM, title: str = "",
         font_path: Path | None = None, bleed_mm: float = 0.0, margin_mm: float = 5.0,
         gettext: Callable[[str], str] = str) -> ImposedSheets:
    """Split the one-page PDF `component` over pages of `paper` (see module docstring).

    bleed_mm is the component's own bleed: crop marks go at its trim. margin_mm is the
    printer's blank margin. Placements: one per page, `source` = the region shown, in
    component mm. The overlap is small (4 mm, enough to tape over) so that a 384 mm map still
    takes two A4 widths with the band for marks on each side.
    """
    if overlap_mm < 0 or bleed_mm < 0:
        raise ValueError("overlap_mm and bleed_mm must not be negative")
    font = register_font(font_path)
    with SourceLibrary() as library:
        key = library.add(Path(component))
        comp_w, comp_h = library.size_mm(key)
        if min(comp_w, comp_h) <= 2 * bleed_mm:
            raise ValueError(f"{component}: {comp_w:.1f} x {comp_h:.1f} mm has no room for {bleed_mm} mm bleed")
        grid = tile_grid(comp_w, comp_h, paper, overlap_mm, margin_mm + BAND_MM)
        trim = Rect(bleed_mm, bleed_mm, comp_w - 2 * bleed_mm, comp_h - 2 * bleed_mm)
        plans: list = []
        placements: list = []
        for row in range(grid.rows):
            for col in range(grid.cols):
                plan, placement = _tile_page(key, grid, len(plans), col, row, comp_h, trim, margin_mm)
                items = [Item(tile_footer(title, row, col, grid, paper, gettext))]
                if not plans:
                    items[:0] = [Item(gettext(NOTICE), ("top", "bottom", "left", "right")),
                                 Item(SCALE_TEXT, ("top", "bottom", "left", "right"), scale=True)]
                try:
                    plan.labels, bars = place(items, len(plans), grid.page_w, grid.page_h, margin_mm,
                                              placement.rect, plan.marks, font)
                except NoRoom as exc:
                    raise BuildError(f"{paper.name} tile {row + 1},{col + 1} of {title or component}: the "
                                     f"{grid.rows} x {grid.cols} tiles leave {exc}") from None
                plan.marks += bars
                plans.append(plan)
                placements.append(placement)
        write_sheet_pdf(plans, library, out, font=font, title=title)
    return ImposedSheets(
        path=Path(out), pages=len(plans), per_page=1, cols=grid.cols, rows=grid.rows,
        placements=placements, marks=[m for plan in plans for m in plan.marks],
        page_w_mm=grid.page_w, page_h_mm=grid.page_h, landscape=grid.landscape,
        labels=[lb for plan in plans for lb in plan.labels])


def _tile_page(key: str, grid: TileGrid, page: int, col: int, row: int, comp_h: float,
               trim: Rect, margin: float) -> tuple[PagePlan, Placement]:
    """The region of tile (col, row), centred on its page and clipped to itself, with marks."""
    on_page, source = tile_region(grid, col, row, comp_h)
    plan = PagePlan(grid.page_w, grid.page_h)
    plan.draws.append(Draw(key, on_page.x - source.x, on_page.y - source.y, on_page))
    plan.marks = tile_marks(page, grid, col, row, on_page, source, trim, margin)
    placement = Placement(page, 0, "front", on_page.x, on_page.y, on_page.w, on_page.h, source=source)
    return plan, placement


def tile_pockets(grid: TileGrid, region: Rect, margin: float, pad: float) -> list[Rect]:
    """The free strips left and right of a tile's region, between its top and bottom edges and
    clear of its marks (triangles and crop marks reach MARK_GAP_MM + MARK_LEN_MM out): room for
    small pieces cut along their own lines (`imposition.pack`)."""
    reach = MARK_GAP_MM + max(ALIGN_LEN_MM, MARK_LEN_MM) + pad
    left = Rect(margin, region.y, region.x - reach - margin, region.h)
    right = Rect(region.x1 + reach, region.y, grid.page_w - margin - region.x1 - reach, region.h)
    return [r for r in (left, right) if r.w > EPS_MM]


def tile_region(grid: TileGrid, col: int, row: int, comp_h: float) -> tuple[Rect, Rect]:
    """(region on the page, the same region in component mm) of tile (col, row): centred."""
    source = grid.region(col, row, comp_h)
    on_page = Rect((grid.page_w - source.w) / 2, (grid.page_h - source.h) / 2, source.w, source.h)
    return on_page, source


def tile_marks(page: int, grid: TileGrid, col: int, row: int, region: Rect, source: Rect, trim: Rect,
               margin: float) -> list[Mark]:
    """The marks of tile (col, row) on `page`; `trim` is the component's trim in its own mm."""
    dx, dy = region.x - source.x, region.y - source.y
    return _marks(page, grid, col, row, region, Rect(trim.x + dx, trim.y + dy, trim.w, trim.h), margin)


def _marks(page: int, grid: TileGrid, col: int, row: int, region: Rect, trim: Rect,
           margin: float) -> list[Mark]:
    """Crop marks at the component's trim corners on this page, and triangles at the lines
    where each neighbouring tile's region starts (overlap_mm inside this region's edge)."""
    ov = grid.overlap
    xs = ([region.x + ov] if col > 0 else []) + ([region.x1 - ov] if col < grid.cols - 1 else [])
    ys = ([region.y1 - ov] if row > 0 else []) + ([region.y + ov] if row < grid.rows - 1 else [])
    return (crop_marks(page, [trim], region, region, grid.page_w, grid.page_h, margin)
            + align_marks(page, region, xs, ys))


# Translators: the footer of one page of a map tiled over several: "tile 1,2 of 2 x 2" (row, column)
TILE = N_("tile {row},{col} of {rows} x {cols}")
LANDSCAPE = N_("{paper} landscape")


def tile_footer(title: str, row: int, col: int, grid: TileGrid, paper: Paper, gettext: Callable[[str], str]) -> str:
    paper_text = gettext(LANDSCAPE).format(paper=paper.name) if grid.landscape else paper.name
    parts = [title] if title else []
    parts += [gettext(TILE).format(row=row + 1, col=col + 1, rows=grid.rows, cols=grid.cols), paper_text,
              gettext(ONE_SIDED)]
    return " · ".join(parts)
