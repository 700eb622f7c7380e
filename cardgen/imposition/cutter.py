"""Sheets for a print-and-cut machine (Silhouette, Cricut) and the cut file that goes with them.

Every page of a cutter file has the same cells: a grid of the game's card size inside the area
the machine cuts, centred on the page and clear of the registration marks (`presets.Cutter`),
the cards `gap_mm` apart with half of it as bleed (Silhouette Card Maker's published spacing:
the machine cuts within a fraction of a millimetre). So one cut file, `cutlines-<paper>-<cutter>.svg`,
cuts every page: it holds the outline of every cell, with the card's corner radius, at its place
on the page, in millimetres. Smaller pieces sit in empty cells with their own drawn cut line
(the machine cuts the cell out, you cut the piece); pieces larger than a cell and components
larger than the paper stay on the home sheets.
"""

from __future__ import annotations

import math

from ..units import decimal
from .geometry import EPS_MM, Mark, Paper, Rect, SheetSpec
from .layout import AxisFit, SheetLayout, page_size
from .presets import Cutter

EDGE_CLEAR_MM = 0.5  # pieces keep this far inside the lines the corner marks stand on
CUT_STROKE_MM = 0.25  # the cut lines' width in the SVG: thin, and red, as the cutters' software shows them


def cut_area(cutter: Cutter, page_w: float, page_h: float) -> Rect:
    """Where pieces (with their bleed) may lie: inside the corner marks' lines, or inside
    Cricut's largest Print Then Cut area, centred on the page."""
    if cutter.kind == "frame":
        assert cutter.max_area_mm is not None
        w, h = cutter.max_area_mm if page_h >= page_w else cutter.max_area_mm[::-1]
        w, h = min(w, page_w), min(h, page_h)
        return Rect((page_w - w) / 2, (page_h - h) / 2, w, h)
    inner = cutter.inset_mm + cutter.thickness_mm / 2 + EDGE_CLEAR_MM
    return Rect(inner, inner, page_w - 2 * inner, page_h - 2 * inner)


def registration_marks(page: int, cutter: Cutter, page_w: float, page_h: float) -> list[Mark]:
    """The machine's marks as filled bars ("bar" marks, corners (x0, y0) and (x1, y1))."""
    t = cutter.thickness_mm
    if cutter.kind == "frame":
        outer = frame_rect(cutter, page_w, page_h)
        assert outer is not None
        return [Mark(page, "bar", outer.x, outer.y, outer.x1, outer.y + t),          # bottom
                Mark(page, "bar", outer.x, outer.y1 - t, outer.x1, outer.y1),        # top
                Mark(page, "bar", outer.x, outer.y + t, outer.x + t, outer.y1 - t),  # left
                Mark(page, "bar", outer.x1 - t, outer.y + t, outer.x1, outer.y1 - t)]
    inset, length, half = cutter.inset_mm, cutter.length_mm, cutter.thickness_mm / 2
    s = cutter.square_mm / 2
    right, top = page_w - inset, page_h - inset
    return [
        Mark(page, "bar", inset - s, top - s, inset + s, top + s),                 # square, top-left
        Mark(page, "bar", right - length, top - half, right + half, top + half),   # L, top-right: arm left
        Mark(page, "bar", right - half, top - length, right + half, top - half),   #               arm down
        Mark(page, "bar", inset - half, inset - half, inset + length, inset + half),  # L, bottom-left: arm right
        Mark(page, "bar", inset - half, inset + half, inset + half, inset + length),  #                 arm up
    ]


def frame_rect(cutter: Cutter, page_w: float, page_h: float) -> Rect | None:
    """The outer edge of Cricut's frame (None for corner marks): page text stays outside it."""
    if cutter.kind != "frame":
        return None
    return cut_area(cutter, page_w, page_h).expanded(*(cutter.frame_gap_mm + cutter.thickness_mm,) * 4)


def _keep_out(cutter: Cutter, page_w: float, page_h: float) -> list[Rect]:
    return [Rect(min(m.x0, m.x1), min(m.y0, m.y1), abs(m.x1 - m.x0), abs(m.y1 - m.y0)).expanded(
        *(cutter.clearance_mm,) * 4) for m in registration_marks(0, cutter, page_w, page_h)]


def cutter_layout(spec: SheetSpec, paper: Paper, cutter: Cutter) -> SheetLayout | None:
    """The grid of `spec` for `cutter` on `paper`: most cells, a tie staying portrait; None when
    not one piece fits. Cells are centred on the page (the cut file lines up by centring it)."""
    best: SheetLayout | None = None
    for landscape in (False, True):
        page_w, page_h = page_size(paper, landscape)
        area = cut_area(cutter, page_w, page_h)
        keep_out = _keep_out(cutter, page_w, page_h)
        kept = min(spec.bleed_mm, cutter.gap_mm / 2)
        cols = math.floor((area.w - 2 * kept + cutter.gap_mm + EPS_MM) / (spec.trim_w_mm + cutter.gap_mm))
        rows = math.floor((area.h - 2 * kept + cutter.gap_mm + EPS_MM) / (spec.trim_h_mm + cutter.gap_mm))
        for c, r in sorted(((c, r) for c in range(cols, 0, -1) for r in range(rows, 0, -1)),
                           key=lambda cr: -cr[0] * cr[1]):
            layout = _grid(spec, page_w, page_h, landscape, c, r, cutter.gap_mm, kept)
            painted = layout.art_extent()
            if not any(painted.intersects(k) for k in keep_out):
                if best is None or c * r > best.cols * best.rows:
                    best = layout
                break
    return best


def _grid(spec: SheetSpec, page_w: float, page_h: float, landscape: bool, cols: int, rows: int,
          gap: float, kept: float) -> SheetLayout:
    def axis(count: int, trim: float, length: float) -> AxisFit:
        extent = count * trim + (count - 1) * gap
        return AxisFit(count, gap, kept, (length - extent) / 2, 0.0, extent)

    return SheetLayout(spec, page_w, page_h, landscape, axis(cols, spec.trim_w_mm, page_w),
                       axis(rows, spec.trim_h_mm, page_h))


def cut_svg(layout: SheetLayout, radius_mm: float, title: str) -> str:
    """Every cell's outline in page millimetres (SVG's y runs down), one path a cell."""
    w, h = layout.page_w, layout.page_h
    shapes = []
    for row in range(layout.rows):
        for col in range(layout.cols):
            trim = layout.trim_rect(col, row)
            top = h - trim.y1
            if layout.spec.shape == "circle":
                r = trim.w / 2
                shapes.append(f'<circle cx="{decimal(trim.x + r)}" cy="{decimal(top + r)}" r="{decimal(r)}"/>')
            else:
                shapes.append(f'<path d="{rounded_rect(trim.x, top, trim.w, trim.h, radius_mm)}"/>')
    body = "\n    ".join(shapes)
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{decimal(w)}mm" height="{decimal(h)}mm" '
            f'viewBox="0 0 {decimal(w)} {decimal(h)}">\n'
            f'  <title>{_escape(title)}</title>\n'
            f'  <g id="cut-lines" fill="none" stroke="#ff0000" stroke-width="{decimal(CUT_STROKE_MM)}">\n'
            f'    {body}\n  </g>\n</svg>\n')


def rounded_rect(x: float, y: float, w: float, h: float, r: float) -> str:
    """SVG path data of a rectangle with corners of radius `r`, clockwise from the top-left
    corner's end (y down)."""
    r = max(0.0, min(r, w / 2, h / 2))
    n = decimal
    if r <= EPS_MM:
        return f"M{n(x)} {n(y)}H{n(x + w)}V{n(y + h)}H{n(x)}Z"
    return (f"M{n(x + r)} {n(y)}H{n(x + w - r)}A{n(r)} {n(r)} 0 0 1 {n(x + w)} {n(y + r)}"
            f"V{n(y + h - r)}A{n(r)} {n(r)} 0 0 1 {n(x + w - r)} {n(y + h)}"
            f"H{n(x + r)}A{n(r)} {n(r)} 0 0 1 {n(x)} {n(y + h - r)}"
            f"V{n(y + r)}A{n(r)} {n(r)} 0 0 1 {n(x + r)} {n(y)}Z")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
