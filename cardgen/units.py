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


def decimal(value: float, places: int = 4) -> str:
    """A number as short, stable text: `places` decimals at most, no trailing zeros, never "-0".

    Every number cardgen writes into an SVG, a PDF content stream or a cache key goes through
    here, so the same input always gives the same bytes (no 1e-17 noise, no platform repr).
    Four places is 1/10000 of a millimetre or point: far below any printer's resolution.
    """
    text = format(float(value), _FIXED.get(places) or f".{places}f").rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


_FIXED = {places: f".{places}f" for places in range(7)}  # decimal's format specs, made once


def svg_number(value: float | None) -> str:
    """A length for card templates (`fmt`), in mm to 1/1000: the precision card SVGs were
    always written with (more places would change every card's bytes and cache key)."""
    return "" if value is None else decimal(value, 3)
