"""What a rendered face draws, read back from its SVG as plain shapes with boxes in mm.

The preflight judges the artwork itself, as a print shop's preflight does, not the template's
intentions: every rect, circle, line, icon and text block with its box after transforms, its
paint and its place in the painting order. Text blocks are the `<g class="cg-text">` groups the
renderer writes around fitted text (with their inline icons); their box is the glyphs' ink,
measured with the project fonts.
"""

from __future__ import annotations

import functools
import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from ..render.cards import TEXT_CLASS, face_tree
from ..render.fonts import FontFace, FontMetrics, FontSet

SVG_NS = "{http://www.w3.org/2000/svg}"
ICON_MARGIN = 0.04  # icons keep their drawing inside 4..96 of their 100-unit viewBox
NUMBER_RE = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
PAINT_RE = re.compile(r'(?:fill|stroke)="(#[0-9a-fA-F]{6})"')
HEX6_RE = re.compile(r"#[0-9a-fA-F]{6}")
TRANSFORM_RE = re.compile(r"(matrix|translate|scale|rotate)\s*\(([^)]*)\)")

Matrix = tuple[float, float, float, float, float, float]  # a b c d e f, as in SVG
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
Box = tuple[float, float, float, float]  # x0, y0, x1, y1


@dataclass(frozen=True)
class Shape:
    """One painted element. `box` includes half the stroke; circles keep centre and radius."""

    kind: str  # "rect" | "circle" | "line" | "icon" | "text"
    box: Box
    order: int  # painting order: higher is drawn later, on top
    fill: str | None = None  # "#rrggbb", None when not filled
    stroke: str | None = None
    stroke_width: float = 0.0
    opacity: float = 1.0  # element opacity times fill opacity
    circle: tuple[float, float, float] | None = None  # cx, cy, outer r
    text: str = ""
    font_size: float = 0.0
    colours: tuple[str, ...] = ()  # icons: the fixed colours they paint with

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


def read_shapes(svg: str, fonts: FontSet) -> list[Shape]:
    """Every painted element of a face, in painting order."""
    return _read(svg, fonts)[0]


def read_parts(svg: str, fonts: FontSet) -> dict[str, Box]:
    """The box of every group a template named (`<g id="...">`): where a figure that explains
    a card (the rulebook's anatomy) finds the card's parts, wherever the layout put them.

    Read once per process for each face and set of font faces (the metrics are kept per face
    too, `fonts._metrics`): a build's rulebook, booklet and notes ask for the same faces' parts
    on every paper, and `validate` renders them four times; parsing and measuring a face was a
    fifth of filling 3.1's rulebook."""
    key = (svg, fonts.faces)
    parts = _PARTS.get(key)
    if parts is None:
        parts = _read(svg, fonts)[1]
        if len(_PARTS) >= PARTS_KEPT:
            del _PARTS[next(iter(_PARTS))]  # the oldest
        _PARTS[key] = parts
    return dict(parts)


PARTS_KEPT = 64  # faces whose parts are kept (a rulebook's figures explain a handful)
_PARTS: dict[tuple[str, tuple[FontFace, ...]], dict[str, Box]] = {}


def _read(svg: str, fonts: FontSet) -> tuple[list[Shape], dict[str, Box]]:
    root = face_tree(svg)  # parsed once: the renderer checked it is well-formed
    shapes: list[Shape] = []
    parts: dict[str, Box] = {}
    for child in root:
        _walk(child, IDENTITY, 1.0, shapes, fonts, parts)
    return shapes, parts


def _walk(el: ET.Element, ctm: Matrix, opacity: float, out: list[Shape], fonts: FontSet,
          parts: dict[str, Box]) -> None:
    tag = el.tag.replace(SVG_NS, "")
    transform = el.get("transform")
    if transform:  # most elements have none: the matrix they are drawn with is their parent's
        ctm = _multiply(ctm, _transform(transform))
    opacity *= _float(el.get("opacity"), 1.0)
    if tag == "g" and TEXT_CLASS in el.get("class", "").split():
        box, text, size, fill = _text_block(el, ctm, fonts)
        if box:
            out.append(Shape("text", box, len(out), fill=fill, opacity=opacity, text=text, font_size=size))
        return
    if tag == "g":
        first = len(out)
        for child in el:
            _walk(child, ctm, opacity, out, fonts, parts)
        part_id = el.get("id")
        if part_id and len(out) > first:
            boxes = [s.box for s in out[first:]]
            parts[part_id] = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                                   max(b[2] for b in boxes), max(b[3] for b in boxes))
        return
    if tag == "svg":
        box = _icon_box(el)
        out.append(Shape("icon", _transform_box(ctm, box), len(out), opacity=opacity, colours=_icon_colours(el)))
        return
    paint = _paint(el, opacity)
    if paint is None:
        return
    fill, stroke, width, alpha = paint
    half = width / 2 if stroke else 0.0
    if tag == "rect":
        x, y = _float(el.get("x")), _float(el.get("y"))
        w, h = _float(el.get("width")), _float(el.get("height"))
        box = _transform_box(ctm, (x - half, y - half, x + w + half, y + h + half))
        out.append(Shape("rect", box, len(out), fill, stroke, width, alpha))
    elif tag in ("circle", "ellipse"):
        cx, cy = _apply(ctm, _float(el.get("cx")), _float(el.get("cy")))
        rx = _float(el.get("r", el.get("rx"))) * _scale(ctm) + half
        ry = _float(el.get("r", el.get("ry"))) * _scale(ctm) + half
        circle = (cx, cy, rx) if tag == "circle" else None
        out.append(Shape("circle", (cx - rx, cy - ry, cx + rx, cy + ry), len(out), fill, stroke, width, alpha,
                         circle=circle))
    elif tag == "line":
        x1, y1 = _apply(ctm, _float(el.get("x1")), _float(el.get("y1")))
        x2, y2 = _apply(ctm, _float(el.get("x2")), _float(el.get("y2")))
        out.append(Shape("line", (min(x1, x2) - half, min(y1, y2) - half, max(x1, x2) + half,
                                  max(y1, y2) + half), len(out), None, stroke, width, alpha))


def _paint(el: ET.Element, opacity: float) -> tuple[str | None, str | None, float, float] | None:
    """(fill, stroke, stroke width, effective opacity), or None when nothing is painted."""
    fill_attr = el.get("fill", "#000000")
    stroke_attr = el.get("stroke")
    fill = None if fill_attr in ("none", "transparent") else _hex(fill_attr)
    stroke = None if stroke_attr is None or stroke_attr == "none" else _hex(stroke_attr)
    width = _float(el.get("stroke-width"), 1.0) if stroke else 0.0
    if fill:
        alpha = opacity * _float(el.get("fill-opacity"), 1.0)
    else:
        alpha = opacity * _float(el.get("stroke-opacity"), 1.0)
    if (fill is None and stroke is None) or alpha <= 0:
        return None
    return fill, stroke, width, alpha


def _text_block(group: ET.Element, ctm: Matrix, fonts: FontSet) -> tuple[Box | None, str, float, str | None]:
    """Ink box of a fitted text block (glyphs and inline icons), its text, size and colour."""
    boxes: list[Box] = []
    words: list[str] = []
    size, fill = 0.0, None
    for el in group.iter():
        tag = el.tag.replace(SVG_NS, "")
        if tag == "svg":
            boxes.append(_transform_box(ctm, _icon_box(el)))
        elif tag == "text":
            family = el.get("font-family", "")
            size = _float(el.get("font-size"), 1.0)
            fill = _hex(el.get("fill", "#000000"))
            for span in el:
                text = span.text or ""
                words.append(text)
                metrics = fonts.metrics(family, span.get("font-weight") == "bold",
                                        span.get("font-style") == "italic")
                ink = _span_ink(metrics, text, _float(span.get("x")), _float(span.get("y")), size)
                if ink is None:
                    continue
                if ctm[1] == 0 and ctm[2] == 0:  # no rotation or skew: the box of the glyphs' boxes, moved
                    boxes.append(_transform_box(ctm, ink))
                else:
                    boxes += [_transform_box(ctm, box) for box in _glyph_boxes(metrics, text, _float(span.get("x")),
                                                                               _float(span.get("y")), size)]
    if not boxes:
        return None, "", size, fill
    box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
    return box, " ".join(w.strip() for w in words if w.strip()), size, fill


def _glyph_boxes(metrics: FontMetrics, text: str, x: float, base: float, size: float) -> list[Box]:
    """The ink box of every glyph of a span set at (x, base), in the span's coordinates."""
    boxes = []
    for char in text:
        advance, ink = metrics.glyph(char)
        if ink:
            boxes.append((x + ink[0] * size, base - ink[3] * size, x + ink[2] * size, base - ink[1] * size))
        x += advance * size
    return boxes


@functools.lru_cache(maxsize=20_000)  # spans whose ink box is kept (a seed game's faces hold a few thousand)
def _span_ink(metrics: FontMetrics, text: str, x: float, base: float, size: float) -> Box | None:
    """The box around `_glyph_boxes` (None: no ink). Under a transform without rotation or
    skew each coordinate maps on its own and in order, so the box of the moved glyph boxes is
    the moved box of these, the same floats: one `_transform_box` for a span, not one a glyph.
    Kept per process: a card type's labels are the same spans at the same place on every card."""
    boxes = _glyph_boxes(metrics, text, x, base, size)
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _icon_colours(el: ET.Element) -> tuple[str, ...]:
    """The fixed colours an icon paints with: every `fill="#rrggbb"` or `stroke="#rrggbb"` its
    markup holds (PAINT_RE over the icon written out), found without writing it out: an
    attribute whose name ends so, with exactly such a value, or the words in its text."""
    found = set()
    for node in el.iter():
        for key, value in node.attrib.items():
            if key.endswith(("fill", "stroke")) and HEX6_RE.fullmatch(value):
                found.add(value.lower())
        for text in (node.text, node.tail):
            if text and "=" in text:
                found.update(c.lower() for c in PAINT_RE.findall(text))
    return tuple(sorted(found))


def _icon_box(el: ET.Element) -> Box:
    """Where a nested icon's drawing lies: its viewBox fitted into its viewport."""
    x, y = _float(el.get("x")), _float(el.get("y"))
    w, h = _float(el.get("width")), _float(el.get("height"))
    vb = [float(v) for v in NUMBER_RE.findall(el.get("viewBox", f"0 0 {w} {h}"))]
    aspect = el.get("preserveAspectRatio", "xMidYMid meet")
    if aspect == "none" or len(vb) != 4 or not vb[2] or not vb[3]:
        dw, dh = w, h
    else:
        scale = (max if "slice" in aspect else min)(w / vb[2], h / vb[3])
        dw, dh = vb[2] * scale, vb[3] * scale
    x0, y0 = x + (w - dw) / 2, y + (h - dh) / 2
    if "slice" in aspect:  # a pattern covering its viewport is clipped to it
        return (x, y, x + w, y + h)
    mx, my = dw * ICON_MARGIN, dh * ICON_MARGIN
    return (x0 + mx, y0 + my, x0 + dw - mx, y0 + dh - my)


# --- small geometry ------------------------------------------------------------------------------

def _transform(text: str) -> Matrix:
    m = IDENTITY
    for name, args in TRANSFORM_RE.findall(text):
        v = [float(n) for n in NUMBER_RE.findall(args)]
        if name == "matrix" and len(v) == 6:
            t = tuple(v)
        elif name == "translate":
            t = (1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0)
        elif name == "scale":
            t = (v[0], 0, 0, v[1] if len(v) > 1 else v[0], 0, 0)
        else:  # rotate(angle [cx cy])
            a = math.radians(v[0])
            cx, cy = (v[1], v[2]) if len(v) == 3 else (0.0, 0.0)
            cos, sin = math.cos(a), math.sin(a)
            t = (cos, sin, -sin, cos, cx - cos * cx + sin * cy, cy - sin * cx - cos * cy)
        m = _multiply(m, t)  # type: ignore[arg-type]
    return m


def _multiply(m: Matrix, n: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2,
            a * e2 + c * f2 + e, b * e2 + d * f2 + f)


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def _scale(m: Matrix) -> float:
    return math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))


def _transform_box(m: Matrix, box: Box) -> Box:
    """The box around `box`'s four corners after `m` (each corner as `_apply` puts it; every
    glyph of every text block comes here, so written out)."""
    a, b, c, d, e, f = m
    x0, y0, x1, y1 = box
    xs = (a * x0 + c * y0 + e, a * x0 + c * y1 + e, a * x1 + c * y0 + e, a * x1 + c * y1 + e)
    ys = (b * x0 + d * y0 + f, b * x0 + d * y1 + f, b * x1 + d * y0 + f, b * x1 + d * y1 + f)
    return (min(xs), min(ys), max(xs), max(ys))


def _float(value: str | None, default: float = 0.0) -> float:
    if value is None:
        return default
    number = _number(value)
    return default if number is None else number


@functools.lru_cache(maxsize=4096)
def _number(value: str) -> float | None:
    """The number an attribute starts with (None: none): a face repeats the same few values
    (its sizes, colours' opacities, a column's x) in every element."""
    m = NUMBER_RE.match(value.strip())
    return float(m.group(0)) if m else None


@functools.lru_cache(maxsize=1024)
def _hex(colour: str) -> str | None:
    """A colour as "#rrggbb" where it can be told (kept: a face paints with a handful)."""
    colour = colour.strip().lower()
    if re.fullmatch(r"#[0-9a-f]{6}", colour):
        return colour
    if re.fullmatch(r"#[0-9a-f]{3}", colour):
        return "#" + "".join(ch * 2 for ch in colour[1:])
    return {"white": "#ffffff", "black": "#000000"}.get(colour, colour or None)
