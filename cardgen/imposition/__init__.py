"""Imposition: card PDFs onto print-and-play sheets, and oversized components onto tiles.

All geometry is in millimetres from the page's bottom-left corner. See `layout` for the
grid/gutter rule, `marks` for crop and alignment marks, `pdfwrite` for how pieces stay vector
and deduplicated, `impose.impose` for duplex and `tiling.tile` for oversized components.
"""

from .geometry import (
    PAPER_SIZES,
    ImposedSheets,
    Mark,
    Paper,
    Placement,
    Rect,
    SheetSpec,
    Slot,
)
from .impose import impose
from .layout import SheetLayout, grid_for, layout_for
from .tiling import tile

__all__ = [
    "PAPER_SIZES", "ImposedSheets", "Mark", "Paper", "Placement", "Rect", "SheetLayout", "SheetSpec",
    "Slot", "grid_for", "impose", "layout_for", "tile",
]
