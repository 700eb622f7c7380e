"""Where the pieces of a sheet go: grid size, gutters, bleed kept, mark length, orientation.

Designed for a HOME printer, which leaves the outer `margin_mm` (5 mm) of the paper blank:
nothing that matters (a piece's trim area, a crop mark, page text) may lie there. The rule,
per axis (columns and rows independently), for a cut style (`presets.CUT_STYLES`):

1. Count first. n = how many trim boxes fit in the printable length (page - 2 * margin) while
   leaving a band of MARK_GAP_MM + MIN_MARK_MM at both ends for the crop marks of the cut lines
   across this axis and for page text, AND keeping the style's least bleed (forgiving: 1 mm) at
   every cut: beyond the outermost trim edges and on both sides of every cut between two pieces.
   The dense style lets neighbours share one cut and counts trim boxes only. Round pieces carry
   their own cut circle: they need the band only top and bottom, for the text, and never share
   a cut.
2. Then the slack is shared out in this order, each step taking what it can:
   a. one bleed b for every cut, outer edges and both sides of every gutter, up to
      PREFERRED_BLEED_MM: a miscut then shows the piece's own colour, never a neighbour's.
      (Dense: outer bleed up to PREFERRED_BLEED_MM first, then gutters of 2 * PREFERRED_BLEED_MM
      between ALL neighbours or none, the pieces butted on shared cuts.)
   b. crop marks up to PREFERRED_MARK_MM;
   c. outer bleed up to the design bleed, then gutters up to 2 * bleed.
3. What is left is centred: it widens the blank margin. A compact layout (`compact=True`) skips
   2b-2c and 3 and starts at the margin, leaving one strip beside the grid for smaller pieces.

Poker cards (63 x 88, bleed 3) come out 3 x 3 on A4 with 1 mm of bleed at every vertical cut
(columns 2 mm apart) and rows 4 mm apart. On Letter, 17.6 mm shorter, three rows leave 0.2 mm of
outer bleed: the forgiving layout is 4 x 2 on a landscape page instead, and the dense one keeps
3 x 3 with butted rows (see docs/printing.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .geometry import EPS_MM, Paper, Rect, SheetSpec
from .presets import CUT_STYLES, DEFAULT_CUT_STYLE, CutStyle

MARK_GAP_MM = 0.5        # art edge to the start of a crop mark
MIN_MARK_MM = 2.0        # shortest crop mark a layout accepts
PREFERRED_MARK_MM = 4.0  # crop marks grow to this when there is room
PREFERRED_BLEED_MM = 1.5  # bleed every cut gets before marks grow and the design bleed fills up
LOOSE_BLEED_MM = 1.0     # least bleed of a piece cut along its own drawn line (it never shares a cut)
BAND_MM = MARK_GAP_MM + MIN_MARK_MM  # least room for marks or a line of page text at a grid's end
FORGIVING = CUT_STYLES[DEFAULT_CUT_STYLE]


@dataclass(frozen=True)
class AxisFit:
    count: int
    gutter: float       # between neighbouring trim boxes (0: butted, a shared cut)
    outer_bleed: float  # bleed kept beyond the outermost trim edges
    start: float        # page edge to the first trim edge
    mark: float = 0.0   # crop mark length in the band beyond the outer bleed
    extent: float = 0.0  # first trim edge to last trim edge

    @property
    def end(self) -> float:
        return self.start + self.extent

    @property
    def least_bleed(self) -> float:
        """The least bleed kept at any cut along this axis (0 where neighbours share a cut)."""
        return min(self.outer_bleed, self.gutter / 2) if self.count > 1 else self.outer_bleed


def fit_axis(page_len: float, margin: float, trim: float, bleed: float, *, band: float = BAND_MM,
             shared_cuts: bool = True, style: CutStyle = FORGIVING, compact: bool = False) -> AxisFit:
    """Fit trim boxes along one page axis by the rule of this module's docstring.

    band: room kept at both ends, beyond the outer bleed, for crop marks or page text (0: none).
    shared_cuts: False for round pieces, which cannot share a cut: they keep LOOSE_BLEED_MM all
    round whatever the style. compact: no centring; the grid starts at the margin.
    """
    avail = page_len - 2 * margin - 2 * band
    least = min(bleed, style.min_bleed_mm if shared_cuts else max(style.min_bleed_mm, LOOSE_BLEED_MM))
    if avail <= 0:
        return AxisFit(0, 0.0, 0.0, 0.0)
    count = math.floor((avail + EPS_MM) / (trim + 2 * least))
    if count < 1:
        return AxisFit(0, 0.0, 0.0, 0.0)
    slack = max(avail - count * trim, 0.0)

    def take(want_each: float, times: int) -> float:
        nonlocal slack
        if times == 0 or want_each <= 0:
            return 0.0
        got = min(want_each, slack / times)
        slack -= got * times
        return got

    if least > 0 or count == 1:  # one bleed for every cut, outer edges and gutters alike
        kept = min(PREFERRED_BLEED_MM if not compact else least, bleed, slack / (2 * count))
        outer, gutter = take(kept, 2), take(2 * kept, count - 1)
    else:  # dense: outer bleed first, then gutters between all neighbours or none
        outer, gutter = take(min(PREFERRED_BLEED_MM, bleed), 2), 0.0
        want = min(2 * PREFERRED_BLEED_MM, 2 * bleed)
        if count > 1 and bleed > 0 and slack + EPS_MM >= (count - 1) * want and not compact:
            gutter = take(want, count - 1)
    mark = band - MARK_GAP_MM if band > 0 else 0.0
    if not compact:
        mark += take(PREFERRED_MARK_MM - MIN_MARK_MM, 2) if band > 0 else 0.0
        outer += take(bleed - outer, 2)
        if gutter > 0:
            gutter += take(2 * bleed - gutter, count - 1)
    extent = count * trim + (count - 1) * gutter
    start = margin + band + outer if compact else (page_len - extent) / 2
    return AxisFit(count, gutter, outer, start, mark, extent)


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
        """Trim box plus the bleed this cell may paint: half the gutter towards a neighbour
        (none where they share a cut), the outer bleed at the grid's edge."""
        bleed = self.spec.bleed_mm
        inner_x, inner_y = min(bleed, self.x.gutter / 2), min(bleed, self.y.gutter / 2)
        left = self.x.outer_bleed if col == 0 else inner_x
        right = self.x.outer_bleed if col == self.cols - 1 else inner_x
        top = self.y.outer_bleed if row == 0 else inner_y
        bottom = self.y.outer_bleed if row == self.rows - 1 else inner_y
        return self.trim_rect(col, row).expanded(left, bottom, right, top)

    def back_clip_rect(self, col: int, row: int) -> Rect:
        """A back page carries no marks, so its outer pieces keep their whole bleed up to the
        blank margin: a duplex back landing 1-2 mm off still shows no white at the outer cuts."""
        clip = self.clip_rect(col, row)
        bleed, margin = self.spec.bleed_mm, self.spec.margin_mm
        grow_x = max(0.0, min(bleed, self.x.start - margin) - self.x.outer_bleed)
        grow_y = max(0.0, min(bleed, self.y.start - margin) - self.y.outer_bleed)
        left = grow_x if col == 0 else 0.0
        right = grow_x if col == self.cols - 1 else 0.0
        top = grow_y if row == 0 else 0.0
        bottom = grow_y if row == self.rows - 1 else 0.0
        return clip.expanded(left, bottom, right, top)

    def grid_rect(self) -> Rect:
        """From the first trim edge to the last, on both axes."""
        return Rect(self.x.start, self.page_h - self.y.end, self.x.extent, self.y.extent)

    def art_extent(self) -> Rect:
        """Everything the pieces may paint on a front: crop marks start outside this."""
        return self.grid_rect().expanded(self.x.outer_bleed, self.y.outer_bleed,
                                         self.x.outer_bleed, self.y.outer_bleed)

    def cut_xs(self) -> list[float]:
        """Every vertical cut line (x), once: butted neighbours share one."""
        return _unique([self.trim_rect(c, 0).x for c in range(self.cols)]
                       + [self.trim_rect(c, 0).x1 for c in range(self.cols)])

    def cut_ys(self) -> list[float]:
        return _unique([self.trim_rect(0, r).y for r in range(self.rows)]
                       + [self.trim_rect(0, r).y1 for r in range(self.rows)])

    def mirror(self, rect: Rect) -> Rect:
        """Where `rect` lands on the back after a LONG-EDGE flip.

        The sheet turns about an axis parallel to its long edges: left-right on a portrait page,
        top-bottom on a landscape one. Grids are centred, so a cell mirrors onto a cell.
        """
        if self.page_h >= self.page_w:
            return Rect(self.page_w - rect.x1, rect.y, rect.w, rect.h)
        return Rect(rect.x, self.page_h - rect.y1, rect.w, rect.h)

    def back_cell(self, col: int, row: int) -> tuple[int, int]:
        """Cell behind (col, row) after a long-edge flip (see `mirror`)."""
        if self.page_h >= self.page_w:
            return self.cols - 1 - col, row
        return col, self.rows - 1 - row


def _unique(values: list[float]) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or abs(v - out[-1]) > EPS_MM:
            out.append(v)
    return out


def _layout(spec: SheetSpec, page_w: float, page_h: float, landscape: bool, style: CutStyle,
            compact: bool = False) -> SheetLayout:
    rect = spec.shape == "rect"
    return SheetLayout(
        spec, page_w, page_h, landscape,
        fit_axis(page_w, spec.margin_mm, spec.trim_w_mm, spec.bleed_mm,
                 band=BAND_MM if rect else 0.0, shared_cuts=rect, style=style, compact=compact),
        fit_axis(page_h, spec.margin_mm, spec.trim_h_mm, spec.bleed_mm, shared_cuts=rect, style=style),
    )


def page_size(paper: Paper, landscape: bool) -> tuple[float, float]:
    short, long_ = sorted((paper.width_mm, paper.height_mm))
    return (long_, short) if landscape else (short, long_)


def layout_for(spec: SheetSpec, paper: Paper, style: CutStyle = FORGIVING, *,
               landscape: bool | None = None, compact: bool = False) -> SheetLayout:
    """The grid of `spec` on `paper`. Pieces are never rotated. Unless `landscape` fixes the
    orientation, the page turns landscape only when that holds MORE pieces; a tie stays
    portrait, the orientation printers and their duplex defaults expect. compact: the grid
    starts at the left margin, leaving the rest of the width free (see `fit_axis`)."""
    if landscape is not None:
        return _layout(spec, *page_size(paper, landscape), landscape, style, compact)
    portrait = _layout(spec, *page_size(paper, False), False, style, compact)
    turned = _layout(spec, *page_size(paper, True), True, style, compact)
    if turned.cols * turned.rows > portrait.cols * portrait.rows:
        return turned
    return portrait


def grid_for(spec: SheetSpec, paper: Paper, style: CutStyle = FORGIVING) -> tuple[int, int]:
    """(cols, rows) of the chosen orientation; (0, 0) when a piece does not fit the page at all."""
    layout = layout_for(spec, paper, style)
    if layout.cols == 0 or layout.rows == 0:
        return 0, 0
    return layout.cols, layout.rows
