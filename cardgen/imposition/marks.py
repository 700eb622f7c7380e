"""Cutting and assembly marks, as geometry (the PDF writer only draws what this returns).

Crop marks sit on the extension of trim lines and start MARK_GAP_MM outside the area the art
may paint, so they can never cross a trim box, and are not hidden by (or confused with) bleed.
They end at the printer's blank margin at the latest: a mark a home printer cannot print
is no mark.
"""

from __future__ import annotations

from collections.abc import Iterable

from .geometry import EPS_MM, Mark, Rect
from .layout import MARK_GAP_MM, SheetLayout

MARK_LEN_MM = 4.0     # longest crop mark of a single component; shorter where the margin is nearer
ALIGN_LEN_MM = 2.5    # alignment triangle, base to tip
ALIGN_HALF_MM = 1.2   # alignment triangle, half the base
SCALE_TICK_MM = 1.5   # height of the end ticks of a scale-check bar (the bar is its baseline)


def grid_marks(page: int, layout: SheetLayout) -> list[Mark]:
    """A mark at both ends of every cut line of the grid, in the bands beyond the art:
    vertical cuts above and below it, horizontal cuts left and right of it. With a paper
    trimmer, line the blade up with the two marks of a cut."""
    art = layout.art_extent()
    marks = []
    for x in layout.cut_xs():
        top, bottom = art.y1 + MARK_GAP_MM, art.y - MARK_GAP_MM
        marks.append(Mark(page, "crop", x, top, x, top + layout.y.mark))
        marks.append(Mark(page, "crop", x, bottom, x, bottom - layout.y.mark))
    for y in layout.cut_ys():
        right, left = art.x1 + MARK_GAP_MM, art.x - MARK_GAP_MM
        marks.append(Mark(page, "crop", right, y, right + layout.x.mark, y))
        marks.append(Mark(page, "crop", left, y, left - layout.x.mark, y))
    return marks


def outline_mark(page: int, trim: Rect, shape: str) -> Mark:
    """The cut line drawn ON a piece placed where the sheet's crop marks do not reach it."""
    if shape == "circle":
        return circle_marks(page, [trim])[0]
    return Mark(page, "outline", trim.x, trim.y, trim.x1, trim.y1)


def crop_marks(page: int, trims: Iterable[Rect], art: Rect, visible: Rect,
               page_w: float, page_h: float, margin: float = 0.0) -> list[Mark]:
    """Two marks per trim corner that lies in `visible`: one on each trim line through it,
    running away from the piece, starting just outside `art` and ending at most at the blank
    `margin` of the page.

    Shared lines of a grid give identical marks; those are kept once, in a stable order.
    """
    marks: dict[tuple[str | float, ...], Mark] = {}
    for trim in trims:
        for cx, cy, dx, dy in ((trim.x, trim.y, -1, -1), (trim.x1, trim.y, 1, -1),
                               (trim.x, trim.y1, -1, 1), (trim.x1, trim.y1, 1, 1)):
            if not visible.contains(cx, cy):
                continue
            y_start = art.y1 + MARK_GAP_MM if dy > 0 else art.y - MARK_GAP_MM
            y_end = (min(y_start + MARK_LEN_MM, page_h - margin) if dy > 0
                     else max(y_start - MARK_LEN_MM, margin))
            x_start = art.x1 + MARK_GAP_MM if dx > 0 else art.x - MARK_GAP_MM
            x_end = (min(x_start + MARK_LEN_MM, page_w - margin) if dx > 0
                     else max(x_start - MARK_LEN_MM, margin))
            if (y_end - y_start) * dy > EPS_MM:  # else no room between art and page edge
                mark = Mark(page, "crop", cx, y_start, cx, y_end)
                marks.setdefault(_key(mark), mark)
            if (x_end - x_start) * dx > EPS_MM:
                mark = Mark(page, "crop", x_start, cy, x_end, cy)
                marks.setdefault(_key(mark), mark)
    return list(marks.values())


def _key(mark: Mark) -> tuple[str | float, ...]:
    return (mark.kind, *(round(v, 4) for v in (mark.x0, mark.y0, mark.x1, mark.y1)))


def circle_marks(page: int, trims: Iterable[Rect]) -> list[Mark]:
    """The cut line of a round piece: its trim circle."""
    return [Mark(page, "circle", t.x + t.w / 2, t.y + t.h / 2, t.x + t.w, t.y + t.h / 2) for t in trims]


def align_marks(page: int, region: Rect, xs: Iterable[float], ys: Iterable[float]) -> list[Mark]:
    """Triangles just outside `region` pointing at the vertical lines x in `xs` (above and below
    it) and at the horizontal lines y in `ys` (left and right of it)."""
    marks = []
    for x in xs:
        tip_top, tip_bottom = region.y1 + MARK_GAP_MM, region.y - MARK_GAP_MM
        marks.append(Mark(page, "align", x, tip_top + ALIGN_LEN_MM, x, tip_top))
        marks.append(Mark(page, "align", x, tip_bottom - ALIGN_LEN_MM, x, tip_bottom))
    for y in ys:
        tip_right, tip_left = region.x1 + MARK_GAP_MM, region.x - MARK_GAP_MM
        marks.append(Mark(page, "align", tip_right + ALIGN_LEN_MM, y, tip_right, y))
        marks.append(Mark(page, "align", tip_left - ALIGN_LEN_MM, y, tip_left, y))
    return marks


def mark_bounds(mark: Mark) -> Rect:
    """Area a mark covers (line width ignored; triangles include their base)."""
    if mark.kind == "circle":
        r = mark.x1 - mark.x0
        return Rect(mark.x0 - r, mark.y0 - r, 2 * r, 2 * r)
    if mark.kind == "scale":  # ticks point up from a horizontal bar, left from a vertical one
        x, y = min(mark.x0, mark.x1), min(mark.y0, mark.y1)
        if mark.y0 == mark.y1:
            return Rect(x, y, abs(mark.x1 - mark.x0), SCALE_TICK_MM)
        return Rect(x - SCALE_TICK_MM, y, SCALE_TICK_MM, abs(mark.y1 - mark.y0))
    if mark.kind in ("outline", "bar"):
        x, y = min(mark.x0, mark.x1), min(mark.y0, mark.y1)
        return Rect(x, y, abs(mark.x1 - mark.x0), abs(mark.y1 - mark.y0))
    half = ALIGN_HALF_MM if mark.kind == "align" else 0.0
    pad_x, pad_y = (half, 0.0) if mark.x0 == mark.x1 else (0.0, half)  # across the axis only
    x, y = min(mark.x0, mark.x1), min(mark.y0, mark.y1)
    return Rect(x - pad_x, y - pad_y, abs(mark.x1 - mark.x0) + 2 * pad_x, abs(mark.y1 - mark.y0) + 2 * pad_y)
