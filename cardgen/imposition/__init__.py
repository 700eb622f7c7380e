"""Imposition: card PDFs onto print-and-play sheets, and oversized components onto tiles.

All geometry is in millimetres from the page's bottom-left corner. See `layout` for the
grid/gutter rule, `presets` for the cut styles and cutting machines, `pack` for which piece goes
on which sheet (grids, free space, the quarter rule), `marks` for crop and alignment marks,
`pdfwrite` for how pieces stay vector and deduplicated, `furniture` for page text, `impose` for
drawing it all (duplex backs included), `tiling` for oversized components and `cutter` for a
cutting machine's sheets and cut file.
"""

from .geometry import PAPER_SIZES, ImposedSheets, Label, Mark, Paper, Placement, Rect, SheetSpec, Slot
from .impose import PieceGroup, TiledComponent, impose, impose_groups
from .layout import SheetLayout, grid_for, layout_for
from .presets import CUT_STYLES, CUTTERS, CutStyle
from .tiling import tile

__all__ = [
    "CUTTERS", "CUT_STYLES", "PAPER_SIZES", "CutStyle", "ImposedSheets", "Label", "Mark", "Paper", "PieceGroup",
    "Placement", "Rect", "SheetLayout", "SheetSpec", "Slot", "TiledComponent", "grid_for", "impose",
    "impose_groups", "layout_for", "tile",
]
