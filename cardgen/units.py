"""Unit conversion in one place: every length in cardgen's data is in millimetres.

PDF and SVG user units are points (1/72 inch); raster sizes are pixels at a given DPI.
"""

from __future__ import annotations

MM_PER_INCH = 25.4
PT_PER_INCH = 72.0


def mm_to_pt(mm: float) -> float:
    return mm * PT_PER_INCH / MM_PER_INCH


def pt_to_mm(pt: float) -> float:
    return pt * MM_PER_INCH / PT_PER_INCH


def mm_to_px(mm: float, dpi: float) -> int:
    """Whole pixels covering `mm` at `dpi` (rounded to nearest, as print services count)."""
    return int(round(mm * dpi / MM_PER_INCH))




def svg_number(value: float | None) -> str:
    """A length for SVG text: short and stable (no 1e-17 noise), so output bytes are deterministic."""
    if value is None:
        return ""
    text = f"{float(value):.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
