"""The duplex calibration sheet: how far a printer's backs land from their fronts.

The front carries its instructions at the top, under the title and the 50 mm bar, and a long
vertical and a long horizontal line through the middle of the page, kept clear of the text. The
back (long-edge flip, so the middle of the front lies behind the middle of the back) carries
scales across those lines, -5 to +5 mm in 0.5 mm steps: a tick every 0.5 mm, longer every
millimetre, longer again and numbered every 2 mm (the numbers in two staggered rows, so they
can be large), positive to the right and upwards as you look at the back. Held against a window
(or cut along a front line),
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
LINE_HALF_MM = 70.0   # half the length of the front's lines, at most
TEXT_GAP_MM = 8.0     # the lines end this far from the instructions
SCALE_AT_MM = 40.0    # scales sit this far from the middle, along the line they measure
TEXT_PT = 7.0
LINE_GAP_MM = 4.5     # between lines of the instructions
TICK_MM = {"half": 3.0, "mm": 4.5, "even": 6.0, "zero": 9.0}  # tick lengths: 0.5 mm, 1 mm, 2 mm, the zero
LABEL_PT = 8.0        # the scales' numbers


# Translators: the calibration sheet's instructions (cardgen calibrate); {paper} is A4 or LETTER.
TITLE = N_("Duplex calibration \u00b7 {paper} \u00b7 print this page two-sided, flip on long edge, at 100 %")
STEPS = (
    N_("1. Check the bar above measures 50 mm: if not, the printer scaled the page; print at 100 % / actual size."),
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
    steps = [gettext(step) for step in STEPS]
    bar_y = h - 27.0
    front.labels = [_label(0, gettext(TITLE).format(paper=paper.name), 25.0, h - 17.0, font),
                    _label(0, "50 mm", 25.0 + SCALE_LEN_MM + 1.5, bar_y, font)]
    front.labels += [_label(0, text, 25.0, bar_y - 9.0 - LINE_GAP_MM * i, font) for i, text in enumerate(steps)]
    text_bottom = min(label.box.y for label in front.labels)
    half = min(LINE_HALF_MM, text_bottom - TEXT_GAP_MM - cy)  # the vertical line stops short of the text
    front.marks = [Mark(0, "crop", cx, cy - half, cx, cy + half),
                   Mark(0, "crop", cx - LINE_HALF_MM, cy, cx + LINE_HALF_MM, cy),
                   Mark(0, "scale", 25.0, bar_y, 25.0 + SCALE_LEN_MM, bar_y)]

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


def _tick(i: int) -> float:
    """Length of the tick i half-millimetres from the zero."""
    if i == 0:
        return TICK_MM["zero"]
    if i % 4 == 0:
        return TICK_MM["even"]
    return TICK_MM["mm"] if i % 2 == 0 else TICK_MM["half"]


def _scale(page: int, x0: float, y0: float, horizontal: bool) -> list[Mark]:
    """Ticks across the line to be read: every 0.5 mm, longer every 1 mm and 2 mm, longest at 0;
    horizontal scales' ticks point up from their baseline, vertical ones' to the right."""
    marks = []
    steps = round(RANGE_MM / STEP_MM)
    for i in range(-steps, steps + 1):
        value, length = i * STEP_MM, _tick(i)
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
    """-4 ... +4 every 2 mm, in two staggered rows beside the baseline (under a horizontal
    scale, left of a vertical one): numbers 4 mm apart in a row can be large enough to read."""
    labels = []
    ascent, _ = pdfmetrics.getAscentDescent(font, LABEL_PT)
    height = pt_to_mm(ascent)
    for value in range(-int(RANGE_MM) + 1, int(RANGE_MM), 2):
        text = f"{value:+d}" if value else "0"
        width = pt_to_mm(pdfmetrics.stringWidth(text, font, LABEL_PT))
        row = (value // 2) % 2  # 0, +-4: the near row; +-2: the far one
        if horizontal:
            labels.append(_label(page, text, x0 + value - width / 2, y0 - 1.0 - height - row * (height + 0.8),
                                 font, size=LABEL_PT))
        else:
            labels.append(_label(page, text, x0 - 1.0 - width - row * 5.0, y0 + value - height / 2, font,
                                 size=LABEL_PT))
    return labels


def _label(page: int, text: str, x: float, y: float, font: str, size: float = TEXT_PT) -> Label:
    ascent, descent = pdfmetrics.getAscentDescent(font, size)
    width = pt_to_mm(pdfmetrics.stringWidth(text, font, size))
    box = Rect(x, y + pt_to_mm(descent), width, pt_to_mm(ascent - descent))
    return Label(page, text, x, y, size, box)
