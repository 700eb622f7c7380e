"""Where the pieces of a sheet go: grid size, gutters, bleed kept, page orientation.

The rule (per axis, independently for columns and rows):

1. Count first. n = how many trim boxes fit side by side in the printable length
   (page - 2 * margin) with NO gutter and NO bleed. A column is never dropped to keep bleed.
2. Then spacing. The preferred spacing is (n - 1) gutters plus the bleed beyond the two
   outermost trim edges. If it does not fit in the slack left after step 1, gutters and outer
   bleed are scaled down by the same factor until it does (down to 0 when the trim boxes fill
   the printable length exactly).
3. The grid is centred on the page.

Each piece is clipped to its trim box grown by min(bleed, gutter / 2) towards a neighbour and by
the (possibly scaled) outer bleed at the grid's edge, so a piece's bleed never reaches a
neighbour's trim box; with gutter 0 neighbours meet at the shared cut line.

Poker (63 x 88, bleed 3) gives 3 x 3 on A4 (gutters 3.67 x 6 mm) and on Letter (5.63 x 1.8 mm).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .geometry import EPS_MM, Paper, Rect, SheetSpec


@dataclass(frozen=True)
class AxisFit:
    count: int
    gutter: float       # between neighbouring trim boxes
    outer_bleed: float  # bleed kept beyond the outermost trim edges
    start: float        # page edge to the first trim edge


def fit_axis(page_len: float, margin: float, trim: float, bleed: float, gutter: float) -> AxisFit:
    """Fit trim boxes along one page axis by the count-first rule of this module's docstring."""
    avail = page_len - 2 * margin
    count = math.floor((avail + EPS_MM) / trim) if avail > 0 else 0
    if count < 1:
        return AxisFit(0, 0.0, 0.0, 0.0)
    slack = max(avail - count * trim, 0.0)
    wanted = (count - 1) * gutter + 2 * bleed
    scale = 1.0 if wanted <= slack else slack / wanted
    extent = count * trim + (count - 1) * gutter * scale
    return AxisFit(count, gutter * scale, bleed * scale, (page_len - extent) / 2)


@dataclass(frozen=True)
class SheetLayout:
    """The grid on one page orientation. Row 0 is the TOP row; rects are from bottom-left."""

    spec: SheetSpec
    page_w: float
    page_h: float
    landscape: bool
    x: AxisFit
    y: AxisFit

    @property
    def cols(self) -> int:
        return self.x.count

    @property
    def rows(self) -> int:
        return self.y.count

    def trim_rect(self, col: int, row: int) -> Rect:
        w, h = self.spec.trim_w_mm, self.spec.trim_h_mm
        left = self.x.start + col * (w + self.x.gutter)
        top = self.page_h - self.y.start - row * (h + self.y.gutter)
        return Rect(left, top - h, w, h)

    def clip_rect(self, col: int, row: int) -> Rect:
        """Trim box plus the bleed this cell may paint: never past half the gutter."""
        bleed = self.spec.bleed_mm
        inner_x, inner_y = min(bleed, self.x.gutter / 2), min(bleed, self.y.gutter / 2)
        left = self.x.outer_bleed if col == 0 else inner_x
        right = self.x.outer_bleed if col == self.cols - 1 else inner_x
        top = self.y.outer_bleed if row == 0 else inner_y
        bottom = self.y.outer_bleed if row == self.rows - 1 else inner_y
        return self.trim_rect(col, row).expanded(left, bottom, right, top)

    def art_extent(self) -> Rect:
        """Everything the pieces may paint: crop marks start outside this."""
        first, last = self.clip_rect(0, 0), self.clip_rect(self.cols - 1, self.rows - 1)
        return Rect(first.x, last.y, last.x1 - first.x, first.y1 - last.y)

    def back_cell(self, col: int, row: int) -> tuple[int, int]:
        """Cell behind (col, row) after a LONG-EDGE flip.

        The sheet turns about an axis parallel to its long edges: left-right on a portrait page,
        top-bottom on a landscape one. The grid is centred, so the mirrored cell is exactly the
        mirror image of the face's cell.
        """
        if self.page_h >= self.page_w:
            return self.cols - 1 - col, row
        return col, self.rows - 1 - row


def _layout(spec: SheetSpec, page_w: float, page_h: float, landscape: bool) -> SheetLayout:
    gutter = spec.preferred_gutter_mm
    return SheetLayout(
        spec, page_w, page_h, landscape,
        fit_axis(page_w, spec.margin_mm, spec.trim_w_mm, spec.bleed_mm, gutter),
        fit_axis(page_h, spec.margin_mm, spec.trim_h_mm, spec.bleed_mm, gutter),
    )


def layout_for(spec: SheetSpec, paper: Paper) -> SheetLayout:
    """Pieces are never rotated. The page turns landscape only when that holds MORE pieces;
    a tie stays portrait, the orientation printers and their duplex defaults expect."""
    short, long_ = sorted((paper.width_mm, paper.height_mm))
    portrait = _layout(spec, short, long_, landscape=False)
    landscape = _layout(spec, long_, short, landscape=True)
    if landscape.cols * landscape.rows > portrait.cols * portrait.rows:
        return landscape
    return portrait


def grid_for(spec: SheetSpec, paper: Paper) -> tuple[int, int]:
    """(cols, rows) of the chosen orientation; (0, 0) when a piece does not fit the page at all."""
    layout = layout_for(spec, paper)
    if layout.cols == 0 or layout.rows == 0:
        return 0, 0
    return layout.cols, layout.rows
