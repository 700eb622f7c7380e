"""Page text and the scale-check bar: placed in the bands between the printer's blank margin
and the art, clear of every mark.

A band is the strip from the blank margin to the art (bottom, top, left, right). Marks crossing
it cut it into free intervals; each item goes, centred, into the free interval nearest the
middle of the page that holds it, trying the bands in the item's order. Left and right bands
take text running upwards, only when no wording of it (an item may have shorter ones) fits
along the top or bottom. Where small pieces put a crop mark every few centimetres, no free
interval along a band may be long enough (the 50 mm bar); the item then goes into a band's outer
lane, between the blank margin and the ends of the marks, which no mark crosses. An item that
fits nowhere is an error (NoRoom), not a silent loss: a sheet whose "print at 100 %" notice is
missing gets printed shrunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reportlab.pdfbase import pdfmetrics

from ..i18n.own import N_
from ..units import pt_to_mm
from .geometry import EPS_MM, Label, Mark, Rect
from .marks import SCALE_TICK_MM, mark_bounds

TEXT_PT = 5.5          # page text: small, but readable
MIN_TEXT_PT = 4.5      # shrunk to this before rotating into a side band
PAD_MM = 0.8           # text and bars keep this far from marks
ART_PAD_MM = 0.3       # and this far from the art
SCALE_LEN_MM = 50.0
NOTICE = N_("Print at 100 % / actual size (not \u201cfit to page\u201d): the bar must measure 50 mm")
NOTICE_SHORT = N_("Print at 100 %")
# the rest of cardgen's page text (a caller translates it with i18n.own.page_text)
# Translators: the footer of a print sheet: "sheet 2/13, back"
SHEET = N_("sheet {n}/{total}, {side}")
SIDES = {"front": N_("front"), "back": N_("back")}
DUPLEX = N_("print duplex, flip on long edge")
ONE_SIDED = N_("print one-sided")
SCALE_TEXT = "50 mm"


class NoRoom(ValueError):
    """An item of page text (or the scale bar) fits in no band of its page."""


@dataclass(frozen=True)
class Item:
    """What to place: a line of text, or (scale=True) a 50 mm bar followed by its text."""

    text: str
    bands: tuple[str, ...] = ("bottom", "top", "left", "right")
    scale: bool = False
    shorter: tuple[str, ...] = ()  # shorter wordings, tried in order where the text does not fit


def place(items: list[Item], page: int, page_w: float, page_h: float, margin: float, art: Rect,
          marks: list[Mark], font: str) -> tuple[list[Label], list[Mark]]:
    """Labels (and scale bars) for `items` on one page; raises ValueError if one cannot fit."""
    bands = _bands(page_w, page_h, margin, art)
    free = {name: _free(band, name, marks) for name, band in bands.items()}
    labels: list[Label] = []
    bars: list[Mark] = []
    for item in items:
        placed = None
        # text reads across the page where any wording fits there: a shorter wording along the
        # top or bottom beats the whole text running up a side (a long translation otherwise
        # turned every front's footer on its side)
        across = tuple(b for b in item.bands if b in ("bottom", "top"))
        for names in (across, tuple(b for b in item.bands if b not in across)):
            for text in (item.text, *item.shorter):
                candidate = Item(text, item.bands, item.scale)
                for size in (TEXT_PT, MIN_TEXT_PT):
                    for name in names:
                        placed = _try(candidate, size, name, bands[name], free[name], page, font)
                        if placed:
                            break
                    if placed:
                        break
                if placed:
                    break
            if placed:
                break
        in_lane = False
        if not placed:
            placed, in_lane = _in_outer_lane(item, bands, marks, labels, bars, page, font), True
        if not placed:
            raise NoRoom(f"no room for {item.text!r} between the {margin:g} mm margin and the pieces")
        label, bar = placed
        labels.append(label)
        if bar:
            bars.append(bar)
        if in_lane:  # the bands' free intervals must now keep clear of it too
            taken = [lb.box for lb in labels] + [mark_bounds(b) for b in bars]
            free = {name: _free(band, name, marks, taken) for name, band in bands.items()}
    return labels, bars


def _bands(w: float, h: float, margin: float, art: Rect) -> dict[str, Rect]:
    """Strips between the blank margin and the art; along x for bottom/top, along y for sides."""
    top_of_bottom = art.y - ART_PAD_MM
    bottom_of_top = art.y1 + ART_PAD_MM
    right_of_left = art.x - ART_PAD_MM
    left_of_right = art.x1 + ART_PAD_MM
    return {
        "bottom": Rect(margin, margin, w - 2 * margin, max(0.0, top_of_bottom - margin)),
        "top": Rect(margin, bottom_of_top, w - 2 * margin, max(0.0, h - margin - bottom_of_top)),
        "left": Rect(margin, margin, max(0.0, right_of_left - margin), h - 2 * margin),
        "right": Rect(left_of_right, margin, max(0.0, w - margin - left_of_right), h - 2 * margin),
    }


def _in_outer_lane(item: Item, bands: dict[str, Rect], marks: list[Mark], labels: list[Label],
                   bars: list[Mark], page: int, font: str):
    """`item` in the strip of a band between the blank margin and the outer ends of the marks
    crossing it, clear of what this page already placed there; None if no band has one."""
    for text in (item.text, *item.shorter):
        candidate = Item(text, item.bands, item.scale)
        for size in (TEXT_PT, MIN_TEXT_PT):
            for name in item.bands:
                lane = _outer_lane(name, bands[name], marks)
                if lane is None:
                    continue
                taken = [lb.box for lb in labels] + [mark_bounds(b) for b in bars]
                placed = _try(candidate, size, name, lane, _free(lane, name, marks, taken), page, font)
                if placed:
                    return placed
    return None


def _outer_lane(name: str, band: Rect, marks: list[Mark]) -> Rect | None:
    """The part of `band` farther from the art than every mark that reaches into it."""
    inside = [b for b in (mark_bounds(m) for m in marks)
              if b.x <= band.x1 and band.x <= b.x1 and b.y <= band.y1 and band.y <= b.y1]
    if not inside:
        return None  # the whole band is free: place() tried it already
    if name == "bottom":
        edge = min(b.y for b in inside) - PAD_MM
        lane = Rect(band.x, band.y, band.w, edge - band.y)
    elif name == "top":
        edge = max(b.y1 for b in inside) + PAD_MM
        lane = Rect(band.x, edge, band.w, band.y1 - edge)
    elif name == "left":
        edge = min(b.x for b in inside) - PAD_MM
        lane = Rect(band.x, band.y, edge - band.x, band.h)
    else:
        edge = max(b.x1 for b in inside) + PAD_MM
        lane = Rect(edge, band.y, band.x1 - edge, band.h)
    return lane if lane.w > EPS_MM and lane.h > EPS_MM else None


def _along(name: str) -> int:
    return 0 if name in ("bottom", "top") else 1


def _free(band: Rect, name: str, marks: list[Mark], taken: Sequence[Rect] = ()) -> list[tuple[float, float]]:
    """Free intervals along the band after taking out every mark (and `taken` area) that crosses it."""
    axis = _along(name)
    lo, hi = (band.x, band.x1) if axis == 0 else (band.y, band.y1)
    blocked = []
    for b in [mark_bounds(mark) for mark in marks] + list(taken):
        if b.x <= band.x1 and band.x <= b.x1 and b.y <= band.y1 and band.y <= b.y1:
            a0, a1 = (b.x, b.x1) if axis == 0 else (b.y, b.y1)
            blocked.append((a0 - PAD_MM, a1 + PAD_MM))
    intervals = [(lo, hi)]
    for b0, b1 in blocked:
        nxt = []
        for i0, i1 in intervals:
            if b1 <= i0 or b0 >= i1:
                nxt.append((i0, i1))
                continue
            if b0 > i0:
                nxt.append((i0, b0))
            if b1 < i1:
                nxt.append((b1, i1))
        intervals = nxt
    return intervals


def _try(item: Item, size: float, name: str, band: Rect, free: list[tuple[float, float]],
         page: int, font: str):
    ascent, descent = pdfmetrics.getAscentDescent(font, size)
    text_h = pt_to_mm(ascent - descent)
    text_w = pt_to_mm(pdfmetrics.stringWidth(item.text, font, size))
    gap = 1.5 if item.scale else 0.0
    length = text_w + (SCALE_LEN_MM + gap if item.scale else 0.0)
    thick = max(text_h, SCALE_TICK_MM) if item.scale else text_h
    axis = _along(name)
    across = band.h if axis == 0 else band.w
    if across + EPS_MM < thick:
        return None
    middle = (band.x + band.w / 2) if axis == 0 else (band.y + band.h / 2)
    for i0, i1 in sorted(free, key=lambda iv: abs((iv[0] + iv[1]) / 2 - middle)):
        if i1 - i0 + EPS_MM < length:
            continue
        start = (i0 + i1) / 2 - length / 2
        free.remove((i0, i1))
        free += [iv for iv in ((i0, start - PAD_MM), (start + length + PAD_MM, i1)) if iv[1] > iv[0]]
        low = (band.y if axis == 0 else band.x) + (across - thick) / 2  # centred across the band
        text_start = start + (SCALE_LEN_MM + gap if item.scale else 0.0)
        text_low = low + (thick - text_h) / 2
        if axis == 0:
            bar = Mark(page, "scale", start, low, start + SCALE_LEN_MM, low) if item.scale else None
            box = Rect(text_start, text_low, text_w, text_h)
            return Label(page, item.text, text_start, text_low - pt_to_mm(descent), size, box), bar
        # running upwards: the glyphs' tops point left, so their descent lies right of the
        # baseline; the bar's ticks point left too
        bar = Mark(page, "scale", low + thick, start, low + thick, start + SCALE_LEN_MM) if item.scale else None
        box = Rect(text_low, text_start, text_h, text_w)
        return Label(page, item.text, text_low + text_h + pt_to_mm(descent), text_start, size, box,
                     angle=90), bar
    return None
