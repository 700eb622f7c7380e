"""Cutting and assembly marks, as geometry (the PDF writer only draws what this returns).

Crop marks sit on the extension of trim lines and start MARK_GAP_MM outside the area the art
may paint, so they can never cross a trim box, and are not hidden by (or confused with) bleed.
"""

from __future__ import annotations

from typing import Iterable

from .geometry import EPS_MM, Mark, Rect

MARK_GAP_MM = 1.0     # art edge to the start of a crop mark
MARK_LEN_MM = 5.0     # longest crop mark; shorter where the page edge is nearer
MIN_MARK_MM = 1.0     # a mark shortened below this (by the footer) is left out
ALIGN_LEN_MM = 2.5    # alignment triangle, base to tip
ALIGN_HALF_MM = 1.2   # alignment triangle, half the base


def crop_marks(page: int, trims: Iterable[Rect], art: Rect, visible: Rect,
               page_w: float, page_h: float) -> list[Mark]:
    """Two marks per trim corner that lies in `visible`: one on each trim line through it,
    running away from the piece, starting just outside `art` and ending at most at the page edge.

    Shared lines of a grid give identical marks; those are kept once, in a stable order.
    """
    marks: dict[tuple[float, ...], Mark] = {}
    for trim in trims:
        for cx, cy, dx, dy in ((trim.x, trim.y, -1, -1), (trim.x1, trim.y, 1, -1),
                               (trim.x, trim.y1, -1, 1), (trim.x1, trim.y1, 1, 1)):
            if not visible.contains(cx, cy):
                continue
            y_start = art.y1 + MARK_GAP_MM if dy > 0 else art.y - MARK_GAP_MM
            y_end = min(y_start + MARK_LEN_MM, page_h) if dy > 0 else max(y_start - MARK_LEN_MM, 0.0)
            x_start = art.x1 + MARK_GAP_MM if dx > 0 else art.x - MARK_GAP_MM
            x_end = min(x_start + MARK_LEN_MM, page_w) if dx > 0 else max(x_start - MARK_LEN_MM, 0.0)
            if (y_end - y_start) * dy > EPS_MM:  # else no room between art and page edge
                mark = Mark(page, "crop", cx, y_start, cx, y_end)
                marks.setdefault(_key(mark), mark)
            if (x_end - x_start) * dx > EPS_MM:
                mark = Mark(page, "crop", x_start, cy, x_end, cy)
                marks.setdefault(_key(mark), mark)
    return list(marks.values())


def _key(mark: Mark) -> tuple[float, ...]:
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
    half = ALIGN_HALF_MM if mark.kind == "align" else 0.0
    pad_x, pad_y = (half, 0.0) if mark.x0 == mark.x1 else (0.0, half)  # across the axis only
    x, y = min(mark.x0, mark.x1), min(mark.y0, mark.y1)
    return Rect(x - pad_x, y - pad_y, abs(mark.x1 - mark.x0) + 2 * pad_x, abs(mark.y1 - mark.y0) + 2 * pad_y)


def keep_clear_of(marks: list[Mark], box: Rect) -> list[Mark]:
    """Make room for the footer: a crop mark running into `box` stops before it (and is left
    out if that leaves less than MIN_MARK_MM); any other mark touching `box` is left out."""
    kept = []
    for mark in marks:
        if not _touches(mark_bounds(mark), box):
            kept.append(mark)
        elif mark.kind == "crop":
            short = _stop_before(mark, box)
            if short is not None and short.length >= MIN_MARK_MM:
                kept.append(short)
    return kept


def _touches(a: Rect, b: Rect) -> bool:
    return a.x <= b.x1 and b.x <= a.x1 and a.y <= b.y1 and b.y <= a.y1


def _stop_before(mark: Mark, box: Rect) -> Mark | None:
    """The part of an axis-aligned crop mark from its start up to where it enters `box`."""
    if mark.x0 == mark.x1:  # vertical
        edge = box.y1 if mark.y1 < mark.y0 else box.y
        if (mark.y0 - edge) * (mark.y0 - mark.y1) <= 0:
            return None  # starts inside the box
        return Mark(mark.page, mark.kind, mark.x0, mark.y0, mark.x1, edge)
    edge = box.x1 if mark.x1 < mark.x0 else box.x
    if (mark.x0 - edge) * (mark.x0 - mark.x1) <= 0:
        return None
    return Mark(mark.page, mark.kind, mark.x0, mark.y0, edge, mark.y1)
