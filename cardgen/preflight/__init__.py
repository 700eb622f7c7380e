"""Preflight: print checks on every rendered face, from the geometry of its SVG.

A home printer's duplex lands 1-2 mm off and a trimmer cuts about 1 mm off, so a card must
not depend on where exactly its edge falls:
- safe zone: text and icons at least 3 mm inside the trim;
- borders: no frame, keyline or panel edge within 3 mm of the trim unless it bleeds off;
- backs: no frame at all, so a 1.5 mm duplex shift shows nowhere;
- overlap: text keeps clear of every other element it is not printed on;
- contrast: small text at least 4.5:1 against what lies under it (WCAG 2 AA), large 3:1.
Findings are warnings in the validator's channel (`Finding`), named by card id, so `build`
warns, `validate` lists them and `--strict` fails on them.
"""

from __future__ import annotations

import math

from ..buildtypes import Face, RenderedSet
from ..colour import blend, contrast_ratio
from ..data.snapshot import Snapshot
from ..errors import Finding, Loc
from ..render.cards import face_digest
from ..render.fonts import FontSet
from .geometry import Box, Shape, read_shapes

SAFE_MM = 3.0  # text, icons and borders stay this far inside the trim
CLEAR_MM = 1.0  # text keeps this far from other elements
BACK_FRAME_SHARE = 0.6  # an outline covering this share of a back is a frame
FAINT = 0.35  # elements more transparent than this are background art, printed under text
SMALL_TEXT_MM = 6.35  # 18 pt: WCAG's large text starts here
MIN_CONTRAST_SMALL = 4.5
MIN_CONTRAST_LARGE = 3.0
EPS = 0.01
FAR_MM = CLEAR_MM + 0.1  # an element whose box is this far from a text's needs no closer look


def preflight(snapshot: Snapshot, rendered: RenderedSet, fonts: FontSet) -> list[Finding]:
    """Findings for every card face and deck back of a rendered version, in card order."""
    findings: list[Finding] = []
    bleed = snapshot.game.file.bleed_mm
    for card in snapshot.cards:
        face = rendered.faces.get(card.id)
        if face:
            findings += check_face(face, bleed, fonts, card=card.id, loc=card.where)
    for deck_id, face in rendered.backs.items():
        loc = snapshot.game.source.loc("decks", deck_id, "back")
        findings += check_face(face, bleed, fonts, card=f"back-{deck_id}", loc=loc, back=True)
    return findings


def check_face(face: Face, bleed: float, fonts: FontSet, *, card: str, loc: Loc | None = None,
               back: bool = False) -> list[Finding]:
    return [Finding("warning", code, message, loc, card) for code, message in _messages(face, bleed, fonts, back)]


def _messages(face: Face, bleed: float, fonts: FontSet, back: bool) -> tuple[tuple[str, str], ...]:
    """What the preflight says of a face: a function of its SVG, size, shape, bleed and font
    faces (their metrics are kept per face for the process, `fonts._metrics`), so kept per
    process. `cardgen serve` redraws every face after an edit to a template, the rules or
    game.yml, and most come out the same SVG; `validate` and the exports draw a version's
    faces again in one process; none of them is read back again."""
    key = (face_digest(face.svg), face.width_mm, face.height_mm,
           face.shape, bleed, fonts.faces, back)
    found = _CHECKED.get(key)
    if found is None:
        found = _judge(face, bleed, fonts, back)
        if len(_CHECKED) >= CHECKED_KEPT:
            _CHECKED.clear()  # start again (no iterating: `cardgen serve` has threads)
        _CHECKED[key] = found
    return found


CHECKED_KEPT = 4096  # faces whose findings are kept (the seed games have about 470)
_CHECKED: dict[tuple, tuple[tuple[str, str], ...]] = {}


def _judge(face: Face, bleed: float, fonts: FontSet, back: bool) -> tuple[tuple[str, str], ...]:
    """Every finding's (code, message) for one face, each once, in the order found."""
    trim = _Trim(face.width_mm - 2 * bleed, face.height_mm - 2 * bleed, bleed, face.shape)
    shapes = read_shapes(face.svg, fonts)
    messages: list[tuple[str, str]] = []
    for s in shapes:
        messages += [("preflight-safe-zone", m) for m in _safe_zone(s, trim)]
        if back and _is_frame(s, trim):
            messages.append(("preflight-back-frame", f"{_name(s)} frames the back {_fmt(trim.inset(s))} mm inside "
                             "the trim: a 1.5 mm duplex shift shows as an uneven border"))
    texts = [s for s in shapes if s.kind == "text"]
    for t in texts:
        backgrounds = _backgrounds(t, shapes)
        messages += [("preflight-overlap", m) for m in _overlaps(t, shapes, backgrounds)]
        messages += [("preflight-contrast", m) for m in _contrast(t, backgrounds)]
    return tuple(dict.fromkeys(messages))


class _Trim:
    def __init__(self, w: float, h: float, bleed: float, shape: str):
        self.w, self.h, self.bleed, self.round = w, h, bleed, shape == "circle"

    def sides(self, box: Box) -> dict[str, float]:
        """How far each side of `box` lies inside the trim (negative: outside it)."""
        return {"left": box[0], "top": box[1], "right": self.w - box[2], "bottom": self.h - box[3]}

    def bleeds_off(self, distance: float) -> bool:
        return distance <= -self.bleed + EPS

    def inset(self, s: Shape) -> float:
        """The least distance from the element to the trim line, inside it."""
        if self.round:
            r, cx, cy = self.w / 2, self.w / 2, self.h / 2
            if s.circle:
                return r - (math.hypot(s.circle[0] - cx, s.circle[1] - cy) + s.circle[2])
            return r - max(math.hypot(x - cx, y - cy) for x in (s.box[0], s.box[2]) for y in (s.box[1], s.box[3]))
        return min(self.sides(s.box).values())

    def background(self, s: Shape) -> bool:
        return all(self.bleeds_off(d) for d in self.sides(s.box).values())


def _safe_zone(s: Shape, trim: _Trim) -> list[str]:
    if trim.background(s):
        return []
    if s.kind == "icon" and s.opacity < FAINT:
        return []  # faint background art (a back's lattice) may run off the card like a tint
    if s.kind in ("text", "icon"):
        inset = trim.inset(s)
        if inset < SAFE_MM - EPS:
            return [f"{_name(s)} lies {_fmt(inset)} mm inside the trim; text and icons need {SAFE_MM:g} mm "
                    "(the safe zone)"]
        return []
    if trim.round:
        inset = trim.inset(s)
        if -trim.bleed + EPS < inset < SAFE_MM - EPS:
            return [f"{_name(s)} has an edge {_fmt(inset)} mm inside the cut line; borders need {SAFE_MM:g} mm "
                    "or to bleed off"]
        return []
    bad = {side: d for side, d in trim.sides(s.box).items() if not trim.bleeds_off(d) and d < SAFE_MM - EPS}
    if not bad:
        return []
    where = ", ".join(f"{_fmt(d)} mm from the {side}" for side, d in bad.items())
    return [f"{_name(s)} has an edge within {SAFE_MM:g} mm of the trim ({where}): a miscut shows it; "
            "keep it 3 mm inside or let it bleed off"]


def _is_frame(s: Shape, trim: _Trim) -> bool:
    if s.kind not in ("rect", "circle") or trim.background(s):
        return False
    return s.width >= BACK_FRAME_SHARE * trim.w and s.height >= BACK_FRAME_SHARE * trim.h


def _overlaps(t: Shape, shapes: list[Shape], backgrounds: list[str]) -> list[str]:
    """What crowds the text `t`, which stands on `backgrounds` (`_backgrounds`)."""
    found = []
    ground = set(backgrounds)
    around = (t.box[0] - CLEAR_MM, t.box[1] - CLEAR_MM, t.box[2] + CLEAR_MM, t.box[3] + CLEAR_MM)
    hidden_below = max((s.order for s in shapes[:t.order] if s.kind in ("rect", "circle") and s.fill
                        and s.opacity >= 0.99 and _covers(s, around)), default=-1)
    x0, y0, x1, y1 = t.box
    for s in shapes:
        if s is t or s.opacity < FAINT or s.order < hidden_below:
            continue  # faint art, or covered around the text by what the text is printed on
        if max(s.box[0] - x1, x0 - s.box[2], s.box[1] - y1, y0 - s.box[3]) > FAR_MM:
            continue  # its box lies well clear of the text's: so does what it paints (`_gap`)
        if s.order < t.order and s.fill in ground and not s.stroke and s.kind in ("rect", "circle"):
            continue  # painted under the text in the colour it stands on: no edge to see
        gap = _gap(t.box, s)
        if gap < CLEAR_MM - EPS:
            what = "overlaps" if gap <= 0 else f"is {_fmt(gap)} mm from"
            found.append(f"{_name(t)} {what} {_name(s)}; text needs {CLEAR_MM:g} mm of clear space")
    return found


def _gap(box: Box, s: Shape) -> float:
    """Clear space between a text box and an element's painted area (<= 0: they overlap).

    An element whose fill holds the whole text is what the text is printed on: only its edge,
    if the text comes close to it, counts."""
    if s.kind == "circle" and s.circle:
        cx, cy, r = s.circle
        far = max(math.hypot(x - cx, y - cy) for x in (box[0], box[2]) for y in (box[1], box[3]))
        if s.fill and far <= r:  # printed on the disc: only its rim may crowd the text
            return r - s.stroke_width - far if s.stroke else math.inf
        if not s.fill and far <= r - s.stroke_width:  # inside a ring
            return r - s.stroke_width - far
        near = math.hypot(max(cx - box[2], 0, box[0] - cx), max(cy - box[3], 0, box[1] - cy))
        return near - r
    if s.kind == "text" or s.kind == "icon" or s.kind == "line":
        return _box_gap(box, s.box)
    inside = s.box[0] <= box[0] and s.box[1] <= box[1] and box[2] <= s.box[2] and box[3] <= s.box[3]
    if inside:
        edge = min(box[0] - s.box[0], box[1] - s.box[1], s.box[2] - box[2], s.box[3] - box[3])
        if s.fill and not s.stroke:
            return math.inf
        return edge - (s.stroke_width if s.stroke else 0)
    return _box_gap(box, s.box)


def _box_gap(a: Box, b: Box) -> float:
    dx = max(b[0] - a[2], a[0] - b[2])
    dy = max(b[1] - a[3], a[1] - b[3])
    if dx <= 0 and dy <= 0:
        return max(dx, dy)
    return math.hypot(max(dx, 0), max(dy, 0))


def _contrast(t: Shape, backgrounds: list[str]) -> list[str]:
    """Text colour against every background it may stand on (`_backgrounds`): the filled
    shapes under its whole box, and the colours of icons painted under it."""
    fill = t.fill
    if not fill:
        return []
    need = MIN_CONTRAST_SMALL if t.font_size < SMALL_TEXT_MM else MIN_CONTRAST_LARGE
    worst = min(backgrounds, key=lambda b: contrast_ratio(fill, b))
    ratio = contrast_ratio(fill, worst)
    if ratio < need - 1e-6:
        return [f"{_name(t)} ({t.fill} on {worst}) has contrast {ratio:.2f}:1; "
                f"{'small' if need > 3 else 'large'} text needs {need:g}:1"]
    return []


def _backgrounds(t: Shape, shapes: list[Shape]) -> list[str]:
    """The colours a text may stand on: the filled shapes under its whole box composited on
    white paper, with each colour of an icon painted under its middle as a possibility."""
    cx, cy = (t.box[0] + t.box[2]) / 2, (t.box[1] + t.box[3]) / 2
    backgrounds = ["#ffffff"]
    for s in shapes[:t.order]:
        if s.kind in ("rect", "circle") and s.fill and _covers(s, t.box):
            backgrounds = [blend(b, s.fill, s.opacity) for b in backgrounds]
        elif s.kind == "icon" and s.box[0] <= cx <= s.box[2] and s.box[1] <= cy <= s.box[3] and s.colours:
            backgrounds = sorted({blend(b, c, s.opacity) for b in backgrounds for c in s.colours})
    return backgrounds


def _covers(s: Shape, box: Box) -> bool:
    if s.circle:
        cx, cy, r = s.circle
        return all(math.hypot(x - cx, y - cy) <= r for x in (box[0], box[2]) for y in (box[1], box[3]))
    return s.box[0] <= box[0] and s.box[1] <= box[1] and box[2] <= s.box[2] and box[3] <= s.box[3]


def _name(s: Shape) -> str:
    if s.kind == "text":
        text = s.text if len(s.text) <= 30 else s.text[:27] + "..."
        return f"text {text!r}"
    x, y = _fmt(s.box[0]), _fmt(s.box[1])
    if s.circle:
        cx, cy, r = (_fmt(v) for v in s.circle)
        return f"a circle (centre {cx}, {cy}; radius {r})"
    return {"rect": f"a rectangle at ({x}, {y})", "circle": f"an ellipse at ({x}, {y})",
            "line": f"a line at ({x}, {y})", "icon": f"an icon at ({x}, {y})"}[s.kind]


def _fmt(value: float) -> str:
    return f"{value:.1f}"
