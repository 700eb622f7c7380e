"""The duplex calibration sheet: how far a printer's backs land from their fronts.

The front carries a long vertical and a long horizontal line through the middle of the page.
The back (long-edge flip, so the middle of the front lies behind the middle of the back)
carries scales across those lines, in 0.5 mm steps, labelled every millimetre, positive to the
right and upwards as you look at the back (numbered every 2 mm). Held against a window (or cut along a front line),
the front line shows on a scale at the value the backs must be SHIFTED by: a back printed
1 mm too far right puts its scale's zero 1 mm right of the line, so the line reads -1, and
shifting the backs by -1 brings them home. That value goes into `--duplex-offset X,Y`.

Each axis is measured twice, on both sides of the middle; the two readings differ only if the
back is also rotated, which no offset can fix (the sheet says so).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reportlab.pdfbase import pdfmetrics

from ..i18n.own import N_
from ..units import pt_to_mm
from .furniture import SCALE_LEN_MM
from .geometry import Label, Mark, Paper, Rect
from .pdfwrite import PagePlan, SourceLibrary, register_font, write_sheet_pdf

RANGE_MM = 5.0        # the scales read -5 ... +5 mm
STEP_MM = 0.5
LINE_HALF_MM = 70.0   # half the length of the front's lines
SCALE_AT_MM = 40.0    # scales sit this far from the middle, along the line they measure
TEXT_PT = 7.0


# Translators: the calibration sheet's instructions (cardgen calibrate); {paper} is A4 or LETTER.
TITLE = N_("Duplex calibration \u00b7 {paper} \u00b7 print this page two-sided, flip on long edge, at 100 %")
STEPS = (
    N_("1. Check the bar below measures 50 mm: if not, the printer scaled the page; print at 100 % / actual size."),
    N_("2. Hold the sheet against a window or a lamp with the BACK facing you (or cut along the long"),
    N_("    line of this side with a trimmer and look at the back)."),
    N_("3. Read where this side's lines cross the scales on the back: X on the two horizontal scales,"),
    N_("    Y on the two vertical ones. If the two readings of one axis differ, the back is also rotated."),
    N_("4. cardgen build --duplex-offset X,Y   or, in cardgen.yml:   printer: {duplex_offset_mm: [X, Y]}"),
    N_("5. Check: cardgen calibrate --paper ... --with-offset prints the sheet with it: the lines read 0."),
)
BACK = N_("Back \u00b7 X: read the front's vertical line on the horizontal scales (+ = shift backs right) "
          "\u00b7 Y: its horizontal line on the vertical scales (+ = up)")
CHECKED = N_("printed with --duplex-offset {x},{y}: the lines should read 0")


def calibration_sheet(paper: Paper, out: Path, *, font_path: Path | None = None,
                      back_offset_mm: tuple[float, float] = (0.0, 0.0),
                      gettext: Callable[[str], str] = str) -> list[PagePlan]:
    """Write the two-page sheet (front, back) for `paper`, portrait; returns the page plans.

    back_offset_mm shifts the back as a build would: printed with the offset you configured,
    the lines should read 0. `gettext` translates the instructions (cardgen's own catalogs).
    """
    font = register_font(font_path)
    w, h = paper.width_mm, paper.height_mm
    cx, cy = w / 2, h / 2
    front = PagePlan(w, h)
    front.marks = [Mark(0, "crop", cx, cy - LINE_HALF_MM, cx, cy + LINE_HALF_MM),
                   Mark(0, "crop", cx - LINE_HALF_MM, cy, cx + LINE_HALF_MM, cy),
                   Mark(0, "scale", 25.0, h - 40.0, 25.0 + SCALE_LEN_MM, h - 40.0)]
    steps = [gettext(step) for step in STEPS]
    front.labels = [_label(0, gettext(TITLE).format(paper=paper.name), 25.0, h - 20.0, font)]
    front.labels += [_label(0, text, 25.0, h - 50.0 - 4.0 * i, font) for i, text in enumerate(steps)]
    front.labels.append(_label(0, "50 mm", 25.0 + SCALE_LEN_MM + 1.5, h - 40.0, font))

    dx, dy = back_offset_mm
    back = PagePlan(w, h)
    for side in (-1, 1):
        back.marks += _scale(1, cx + dx, cy + dy + side * SCALE_AT_MM, horizontal=True)
        back.marks += _scale(1, cx + dx + side * SCALE_AT_MM, cy + dy, horizontal=False)
        back.labels += _scale_labels(1, cx + dx, cy + dy + side * SCALE_AT_MM, True, font)
        back.labels += _scale_labels(1, cx + dx + side * SCALE_AT_MM, cy + dy, False, font)
    back.labels.append(_label(1, gettext(BACK), 25.0, h - 20.0, font, size=6.0))
    if back_offset_mm != (0.0, 0.0):
        back.labels.append(_label(1, gettext(CHECKED).format(x=f"{dx:g}", y=f"{dy:g}"),
                                  25.0, h - 25.0, font, size=6.0))
    with SourceLibrary() as library:
        write_sheet_pdf([front, back], library, out, font=font,
                  title=f"cardgen duplex calibration - {paper.name}")
    return [front, back]


def _scale(page: int, x0: float, y0: float, horizontal: bool) -> list[Mark]:
    """Ticks across the line to be read: every 0.5 mm, longer every 1 mm, longest at 0."""
    marks = []
    steps = round(RANGE_MM / STEP_MM)
    for i in range(-steps, steps + 1):
        value = i * STEP_MM
        length = 4.0 if i == 0 else (2.5 if i % 2 == 0 else 1.5)
        if horizontal:
            marks.append(Mark(page, "crop", x0 + value, y0, x0 + value, y0 + length))
        else:
            marks.append(Mark(page, "crop", x0, y0 + value, x0 + length, y0 + value))
    if horizontal:
        marks.append(Mark(page, "crop", x0 - RANGE_MM, y0, x0 + RANGE_MM, y0))
    else:
        marks.append(Mark(page, "crop", x0, y0 - RANGE_MM, x0, y0 + RANGE_MM))
    return marks


def _scale_labels(page: int, x0: float, y0: float, horizontal: bool, font: str) -> list[Label]:
    labels = []
    for value in range(-int(RANGE_MM) + 1, int(RANGE_MM), 2):  # -4 -2 0 +2 +4: 1 mm is too tight
        text = f"{value:+d}" if value else "0"
        if horizontal:  # numbers under the ticks
            width = pt_to_mm(pdfmetrics.stringWidth(text, font, 4.0))
            labels.append(_label(page, text, x0 + value - width / 2, y0 - 2.2, font, size=4.0))
        else:  # numbers left of the ticks
            width = pt_to_mm(pdfmetrics.stringWidth(text, font, 4.0))
            labels.append(_label(page, text, x0 - 0.8 - width, y0 + value - 0.5, font, size=4.0))
    return labels


def _label(page: int, text: str, x: float, y: float, font: str, size: float = TEXT_PT) -> Label:
    ascent, descent = pdfmetrics.getAscentDescent(font, size)
    width = pt_to_mm(pdfmetrics.stringWidth(text, font, size))
    box = Rect(x, y + pt_to_mm(descent), width, pt_to_mm(ascent - descent))
    return Label(page, text, x, y, size, box)
