"""impose(): many same-size pieces onto print-and-play sheets, fronts and (duplex) backs."""

from __future__ import annotations

import math
from pathlib import Path

from .geometry import ImposedSheets, Mark, Paper, Placement, Rect, SheetSpec, Slot
from .layout import SheetLayout, layout_for
from .marks import circle_marks, crop_marks
from .pdfwrite import (
    Draw,
    PagePlan,
    SourceLibrary,
    fit_footer,
    register_font,
    write_sheet_pdf,
)


def impose(slots: list[Slot], spec: SheetSpec, paper: Paper, out: Path, *,
           duplex: bool = True, title: str = "", font_path: Path | None = None) -> ImposedSheets:
    """Write `slots` onto sheets of `paper` as `out` and report where everything went.

    Slots fill each page row by row from the top left. With `duplex`, every front page is
    followed by its back page, laid out for long-edge flipping (`SheetLayout.back_cell`);
    a slot without a back leaves its back cell blank. Page index p of the report is the
    0-based page in the PDF. Raises ValueError for an unreadable, multi-page or wrongly sized
    piece PDF (message starts with its path) or a piece that does not fit the paper.
    """
    if not slots:
        raise ValueError("nothing to impose: no slots")
    layout = layout_for(spec, paper)
    if layout.cols == 0 or layout.rows == 0:
        raise ValueError(f"a {spec.trim_w_mm} x {spec.trim_h_mm} mm piece does not fit on "
                         f"{paper.name} with {spec.margin_mm} mm margins; use tile()")
    font = register_font(font_path)
    per_page = layout.cols * layout.rows
    sheets = math.ceil(len(slots) / per_page)
    size = (spec.trim_w_mm + 2 * spec.bleed_mm, spec.trim_h_mm + 2 * spec.bleed_mm)
    with SourceLibrary() as library:
        keys = [(library.add(s.front, size), library.add(s.back, size) if s.back else None)
                for s in slots]
        plans, placements = [], []
        sides = ("front", "back") if duplex else ("front",)
        for sheet in range(sheets):
            first = sheet * per_page
            cells = [(i, (i - first) % layout.cols, (i - first) // layout.cols)
                     for i in range(first, min(first + per_page, len(slots)))]
            for side in sides:
                plan, placed = _page_plan(layout, len(plans), side, cells, keys)
                plan.footer = _footer(title, sheet, sheets, side, paper, layout)
                fit_footer(plan, font, spec.margin_mm)
                plans.append(plan)
                placements += placed
        write_sheet_pdf(plans, library, out, font=font, margin_mm=spec.margin_mm, title=title)
    return ImposedSheets(
        path=Path(out), pages=len(plans), per_page=per_page, cols=layout.cols, rows=layout.rows,
        placements=placements, marks=[m for plan in plans for m in plan.marks],
        page_w_mm=layout.page_w, page_h_mm=layout.page_h, landscape=layout.landscape)


def _page_plan(layout: SheetLayout, page: int, side: str, cells: list[tuple[int, int, int]],
               keys: list[tuple[str, str | None]]) -> tuple[PagePlan, list[Placement]]:
    """One page: a draw + placement per occupied (slot, col, row) cell, and the page's marks.

    Crop marks cover the whole grid on both sides (they are outside the art, and identical on
    front and back because the grid is centred). Cut circles lie ON the art, so they are drawn
    on fronts only.
    """
    spec = layout.spec
    plan, placements = PagePlan(layout.page_w, layout.page_h, footer=""), []
    for slot, col, row in cells:
        key = keys[slot][0] if side == "front" else keys[slot][1]
        if key is None:
            continue
        if side == "back":
            col, row = layout.back_cell(col, row)
        trim = layout.trim_rect(col, row)
        plan.draws.append(Draw(key, trim.x - spec.bleed_mm, trim.y - spec.bleed_mm,
                               layout.clip_rect(col, row)))
        placements.append(Placement(page, slot, side, trim.x, trim.y, trim.w, trim.h))
    plan.marks = _marks(layout, page, side, [p.rect for p in placements])
    return plan, placements


def _marks(layout: SheetLayout, page: int, side: str, trims: list[Rect]) -> list[Mark]:
    if layout.spec.shape == "circle":
        return circle_marks(page, trims) if side == "front" else []
    grid = [layout.trim_rect(c, r) for r in range(layout.rows) for c in range(layout.cols)]
    art = layout.art_extent()
    return crop_marks(page, grid, art, art, layout.page_w, layout.page_h)


def _footer(title: str, sheet: int, sheets: int, side: str, paper: Paper, layout: SheetLayout) -> str:
    paper_text = f"{paper.name} landscape" if layout.landscape else paper.name
    parts = [title] if title else []
    parts += [f"sheet {sheet + 1}/{sheets}, {side}s", paper_text]
    return " · ".join(parts)
