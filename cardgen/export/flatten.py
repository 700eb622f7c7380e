"""A card face's PDF redrawn opaque and in CMYK: transparency flattened by cardgen, vector kept.

cairo draws a face in RGB with translucency (`/ca` and `/CA` in ExtGStates, transparency groups
drawn at an opacity). PDF/X-1a allows neither, and letting a RIP or Ghostscript blend in CMYK
changes the colours (a faint watermark comes out strong). So cardgen reads the face's content
stream and redraws it as opaque pieces, blending in RGB as every viewer shows the design:

- an opaque element is drawn as it is;
- a translucent element E (colour C, opacity a) over what is already drawn is cut into pieces:
  E over the paper, then for every piece P drawn before that E overlaps, E clipped to P's shape
  (or P clipped to E's) in the blended colour a*C + (1-a)*P. Painter's order makes the last
  piece at any point the one over the topmost backdrop there, exactly as the blend would be;
- a transparency group drawn at an opacity is flattened on its own first (its pieces may stay
  translucent), then each of its pieces is blended over the page the same way.

Clipping uses only PDF 1.3 means: paths (W n), strokes turned into their outline, and text
(render mode 7). Text stays text in its embedded fonts, paths stay paths; every colour goes
through `Separation` (littleCMS) into DeviceCMYK. Anything else (images, shadings, soft masks,
blend modes) stops the export with one line naming it, rather than printing it wrong.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pikepdf

from ..errors import BuildError

Matrix = tuple[float, float, float, float, float, float]
Box = tuple[float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
EMPTY: Box = (math.inf, math.inf, -math.inf, -math.inf)
WHITE = (1.0, 1.0, 1.0)
CURVE_STEPS = 16  # a curve's outline (stroke clips only) as this many straight segments
OPAQUE = 1 - 1e-6
MODE = "\x00MODE\x00"  # where a text shape sets its render mode: 0 Tr to paint, 7 Tr to clip


def mul(a: Matrix, b: Matrix) -> Matrix:
    """a then b."""
    return (a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
            a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5])


def apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def inverse(m: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    det = a * d - b * c
    return (d / det, -b / det, -c / det, a / det, (c * f - d * e) / det, (b * e - a * f) / det)


def num(v: float) -> str:
    text = f"{v:.5f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def mat(m: Matrix) -> str:
    """A matrix for `cm`: fixed-point numbers (PDF has no exponents), 8 decimals."""
    out = []
    for v in m:
        text = f"{v:.8f}".rstrip("0").rstrip(".")
        out.append("0" if text in ("-0", "") else text)
    return " ".join(out)


def box_of(points, m: Matrix = IDENTITY) -> Box:
    xs, ys = [], []
    for x, y in points:
        px, py = apply(m, x, y)
        xs.append(px)
        ys.append(py)
    return (min(xs), min(ys), max(xs), max(ys)) if xs else EMPTY


def meet(a: Box, b: Box) -> Box:
    return (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))


def overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def contains(outer: Box, inner: Box) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and outer[2] >= inner[2] and outer[3] >= inner[3]


def over(top: tuple[float, float, float], alpha: float, under: tuple[float, float, float],
         under_alpha: float) -> tuple[tuple[float, float, float], float]:
    """Source-over compositing of non-premultiplied colours."""
    out = alpha + under_alpha * (1 - alpha)
    if out <= 0:
        return top, 0.0
    colour = tuple((alpha * t + (1 - alpha) * under_alpha * u) / out for t, u in zip(top, under))
    return colour, out  # type: ignore[return-value]


# --- shapes: what an element covers; each can paint and clip ------------------------------------

PathOps = tuple[tuple[str, tuple[float, ...]], ...]


@dataclass(frozen=True)
class Shape:
    kind: str               # "fill", "stroke" or "text"
    ctm: Matrix
    path: PathOps = ()      # fill and stroke, in user space
    evenodd: bool = False   # fill rule
    pen: tuple = ()         # stroke: (width, cap, join, miter, dash array, dash phase)
    text: bytes = b""       # text: the BT..ET body, shows before this one invisible (3 Tr)
    box: Box = EMPTY        # page space, conservative

    def rect(self) -> Box | None:
        """The page-space box of a fill that is one axis-aligned rectangle, else None."""
        if self.kind != "fill" or len(self.path) != 1 or self.path[0][0] != "re":
            return None
        if abs(self.ctm[1]) > 1e-9 or abs(self.ctm[2]) > 1e-9:
            return None
        x, y, w, h = self.path[0][1]
        return box_of([(x, y), (x + w, y + h)], self.ctm)

    # -- PDF operators

    def page_path(self) -> str:
        """The fill's path in page space (clips are set without a cm)."""
        return self._page_path

    @functools.cached_property
    def _page_path(self) -> str:
        return _path_text(self.path, self.ctm)

    def paint(self, cmyk: tuple[float, float, float, float]) -> str:
        colour = " ".join(num(v) for v in cmyk)
        if self.kind == "fill":
            return f"{colour} k\n{self.page_path()}\n{'f*' if self.evenodd else 'f'}\n"
        if self.kind == "stroke":
            return f"q {mat(self.ctm)} cm {colour} K {_pen_ops(self.pen)}\n{_path_text(self.path)}\nS Q\n"
        return f"q {mat(self.ctm)} cm {colour} k\nBT\n{self.text.decode('latin-1').replace(MODE, '0 Tr')}\nET Q\n"

    def clip(self) -> str:
        return self._clip

    @functools.cached_property
    def _clip(self) -> str:
        if self.kind == "fill":
            return f"{self.page_path()}\n{'W*' if self.evenodd else 'W'} n\n"
        if self.kind == "stroke":
            return f"{_path_text(_outline(self.path, self.pen), self.ctm)}\nW n\n"
        clip_text = self.text.decode("latin-1").replace(MODE, "7 Tr")
        return f"{mat(self.ctm)} cm\nBT\n{clip_text}\nET\n{mat(inverse(self.ctm))} cm\n"


def _path_text(path: PathOps, m: Matrix | None = None) -> str:
    parts = []
    for op, args in path:
        if op == "re":
            x, y, w, h = args
            if m is None:
                parts.append(f"{num(x)} {num(y)} {num(w)} {num(h)} re")
                continue
            corners = [apply(m, px, py) for px, py in ((x, y), (x + w, y), (x + w, y + h), (x, y + h))]
            parts.append(f"{num(corners[0][0])} {num(corners[0][1])} m " +
                         " ".join(f"{num(px)} {num(py)} l" for px, py in corners[1:]) + " h")
            continue
        points = [(args[i], args[i + 1]) for i in range(0, len(args), 2)]
        if m is not None:
            points = [apply(m, x, y) for x, y in points]
        parts.append(" ".join(f"{num(x)} {num(y)}" for x, y in points) + (" " if points else "") + op)
    return "\n".join(parts)


def _pen_ops(pen: tuple) -> str:
    width, cap, join, miter, dashes, phase = pen
    return f"{num(width)} w {cap} J {join} j {num(miter)} M [{' '.join(num(d) for d in dashes)}] {num(phase)} d"


# --- stroke outlines (a stroke as a clip: only where two translucent strokes cross) -------------


def _polylines(path: PathOps) -> list[tuple[list[tuple[float, float]], bool]]:
    """Subpaths as point lists (curves flattened) with their closed flag."""
    subpaths: list[tuple[list[tuple[float, float]], bool]] = []
    points: list[tuple[float, float]] = []
    closed = False

    def flush():
        nonlocal points, closed
        if points:
            subpaths.append((points, closed))
        points, closed = [], False

    for op, a in path:
        if op == "m":
            flush()
            points = [(a[0], a[1])]
        elif op == "l":
            points.append((a[0], a[1]))
        elif op in ("c", "v", "y"):
            p0 = points[-1] if points else (0.0, 0.0)
            if op == "c":
                p1, p2, p3 = (a[0], a[1]), (a[2], a[3]), (a[4], a[5])
            elif op == "v":
                p1, p2, p3 = p0, (a[0], a[1]), (a[2], a[3])
            else:
                p1, p2, p3 = (a[0], a[1]), (a[2], a[3]), (a[2], a[3])
            for i in range(1, CURVE_STEPS + 1):
                t = i / CURVE_STEPS
                u = 1 - t
                points.append((u ** 3 * p0[0] + 3 * u * u * t * p1[0] + 3 * u * t * t * p2[0] + t ** 3 * p3[0],
                               u ** 3 * p0[1] + 3 * u * u * t * p1[1] + 3 * u * t * t * p2[1] + t ** 3 * p3[1]))
        elif op == "h":
            closed = True
            start = points[0] if points else None
            flush()
            if start is not None:
                points = [start]  # a path may go on from the closed subpath's start
                closed = False
        elif op == "re":
            flush()
            x, y, w, h = a
            subpaths.append(([(x, y), (x + w, y), (x + w, y + h), (x, y + h)], True))
    flush()
    return [(p, c) for p, c in subpaths if len(p) > 1 or not c]


def _dash(points: list[tuple[float, float]], closed: bool, dashes: tuple, phase: float):
    """The dashes of one polyline, as open polylines."""
    if closed:
        points = points + [points[0]]
    if not dashes or sum(dashes) <= 0:
        return [(points, closed)]
    pattern = list(dashes) * (2 if len(dashes) % 2 else 1)
    index, left, on = 0, pattern[0], True
    phase %= sum(pattern)
    while phase > 0:  # skip into the pattern
        step = min(phase, left)
        phase -= step
        left -= step
        if left <= 0:
            index = (index + 1) % len(pattern)
            left, on = pattern[index], not on
    out, current = [], [points[0]] if on else []
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        length = math.hypot(x1 - x0, y1 - y0)
        pos = 0.0
        while length - pos > 1e-12:
            step = min(left, length - pos)
            pos += step
            left -= step
            t = pos / length
            point = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
            if on:
                current.append(point)
            if left <= 1e-12:
                if on and len(current) > 1:
                    out.append((current, False))
                index = (index + 1) % len(pattern)
                left, on = pattern[index], not on
                current = [point] if on else []
    if on and len(current) > 1:
        out.append((current, False))
    return out


def _ccw(polygon: list[tuple[float, float]]) -> list[tuple[float, float]]:
    area = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(polygon, polygon[1:] + polygon[:1]))
    return polygon if area >= 0 else polygon[::-1]


def _circle(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    return [(cx + r * math.cos(2 * math.pi * i / 24), cy + r * math.sin(2 * math.pi * i / 24)) for i in range(24)]


def _outline(path: PathOps, pen: tuple) -> PathOps:
    """The area a stroke covers, as polygons of one orientation (their nonzero union)."""
    width, cap, join, miter, dashes, phase = pen
    r = width / 2
    polygons: list[list[tuple[float, float]]] = []
    for points, closed in _polylines(path):
        for line, is_closed in _dash(points, closed, dashes, phase):
            segments = [(p, q) for p, q in zip(line, line[1:]) if math.hypot(q[0] - p[0], q[1] - p[1]) > 1e-9]
            if not segments:
                if cap == 1:
                    polygons.append(_circle(line[0][0], line[0][1], r))
                continue
            normals = []
            for (x0, y0), (x1, y1) in segments:
                length = math.hypot(x1 - x0, y1 - y0)
                nx, ny = -(y1 - y0) / length * r, (x1 - x0) / length * r
                normals.append((nx, ny))
                polygons.append([(x0 + nx, y0 + ny), (x1 + nx, y1 + ny), (x1 - nx, y1 - ny), (x0 - nx, y0 - ny)])
            pairs = list(zip(range(len(segments) - 1), range(1, len(segments))))
            if is_closed:
                pairs.append((len(segments) - 1, 0))
            for i, j in pairs:
                (vx, vy) = segments[j][0]
                (ax, ay), (bx, by) = normals[i], normals[j]
                if join == 1:
                    polygons.append(_circle(vx, vy, r))
                    continue
                for sign in (1, -1):  # the outer side is whichever; both are cheap
                    p1, p2 = (vx + sign * ax, vy + sign * ay), (vx + sign * bx, vy + sign * by)
                    polygon = [(vx, vy), p1, p2]
                    cos = max(-1.0, min(1.0, (ax * bx + ay * by) / (r * r)))
                    half = math.acos(cos) / 2
                    if join == 0 and math.cos(half) > 1e-9 and 1 / math.cos(half) <= miter:
                        mx, my = (p1[0] + p2[0]) / 2 - vx, (p1[1] + p2[1]) / 2 - vy
                        scale = (r / math.cos(half)) / max(math.hypot(mx, my), 1e-12)
                        polygon = [(vx, vy), p1, (vx + mx * scale, vy + my * scale), p2]
                    polygons.append(polygon)
            if not is_closed and cap in (1, 2):
                for (x, y), (nx, ny), direction in ((segments[0][0], normals[0], -1), (segments[-1][1], normals[-1], 1)):
                    if cap == 1:
                        polygons.append(_circle(x, y, r))
                    else:
                        tx, ty = ny * direction, -nx * direction  # along the line, outwards
                        polygons.append([(x + nx, y + ny), (x + nx + tx, y + ny + ty),
                                         (x - nx + tx, y - ny + ty), (x - nx, y - ny)])
    ops: list[tuple[str, tuple[float, ...]]] = []
    for polygon in polygons:
        polygon = _ccw(polygon)
        ops.append(("m", polygon[0]))
        ops += [("l", p) for p in polygon[1:]]
        ops.append(("h", ()))
    return tuple(ops)


# --- pieces and layers ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    clips: tuple[Shape, ...]
    shape: Shape
    rgb: tuple[float, float, float]
    alpha: float
    box: Box
    line: bool = False  # drawn by text or a stroke (black ones print in black ink only)


def _clip_box(clips: tuple[Shape, ...], box: Box) -> Box:
    for clip in clips:
        box = meet(box, clip.box)
    return box


class Layer:
    """Pieces in painting order; the last piece covering a point says what is there."""

    def __init__(self, page: bool):
        self.page = page  # the page's layer lies on white paper; a group's on nothing
        self.pieces: list[Piece] = []
        self.covers: list[int] = []  # pieces that are opaque axis-aligned rectangles

    def add(self, items: list[Piece]) -> None:
        """Composite `items` (in order) over what the layer holds now."""
        backdrop = len(self.pieces)
        for item in items:
            if item.box[0] >= item.box[2] or item.box[1] >= item.box[3]:
                continue
            if item.alpha >= OPAQUE:
                self._append(replace(item, alpha=1.0))
                continue
            start = self._start(item.box, backdrop)
            if start is None:
                if self.page:
                    colour, alpha = over(item.rgb, item.alpha, WHITE, 1.0)
                    self._append(replace(item, rgb=colour, alpha=alpha))
                else:
                    self._append(item)
                start = 0
            for under in self.pieces[start:backdrop]:
                if overlaps(item.box, under.box):
                    self._append(_merge(item, under))

    def _start(self, box: Box, end: int) -> int | None:
        """The last opaque rectangle before `end` that covers `box`: nothing below it shows."""
        for index in reversed(self.covers):
            if index < end:
                piece = self.pieces[index]
                rect = piece.shape.rect()
                if rect is not None and not piece.clips and contains(rect, box):
                    return index
        return None

    def _append(self, piece: Piece) -> None:
        if piece.alpha >= OPAQUE and not piece.clips and piece.shape.rect() is not None:
            self.covers.append(len(self.pieces))
        self.pieces.append(piece)


def _merge(top: Piece, under: Piece) -> Piece:
    """`top` over `under` where both are: one shape clips, the other paints, in the blend."""
    colour, alpha = over(top.rgb, top.alpha, under.rgb, under.alpha)
    clips = top.clips + under.clips
    if under.shape.kind == "fill" or (top.shape.kind != "fill" and under.shape.kind == "text"):
        clip, paint = under.shape, top.shape
    elif top.shape.kind in ("fill", "text"):
        clip, paint = top.shape, under.shape
    else:
        clip, paint = under.shape, top.shape  # two strokes: the one below as its outline
    return Piece(clips + (clip,), paint, colour, alpha, meet(top.box, under.box), top.line or under.line)


# --- reading a content stream -------------------------------------------------------------------


@dataclass
class _State:
    ctm: Matrix = IDENTITY
    clips: tuple[Shape, ...] = ()
    fill: tuple[float, float, float] = (0.0, 0.0, 0.0)
    stroke: tuple[float, float, float] = (0.0, 0.0, 0.0)
    fill_alpha: float = 1.0
    stroke_alpha: float = 1.0
    width: float = 1.0
    cap: int = 0
    join: int = 0
    miter: float = 10.0
    dashes: tuple = ()
    phase: float = 0.0
    font: tuple[str, float] | None = None  # global font name, size
    text_params: dict = field(default_factory=dict)  # Tc Tw Tz TL Ts as last set

    def copy(self) -> _State:
        return replace(self, text_params=dict(self.text_params))


UNSUPPORTED = {"sh": "a shading (gradient)", "BI": "an inline image", "d0": "a Type 3 glyph",
               "d1": "a Type 3 glyph", "BMC": None, "BDC": None, "EMC": None, "MP": None, "DP": None,
               "BX": None, "EX": None, "ri": None, "i": None}
TEXT_STATE = {"Tc", "Tw", "Tz", "TL", "Ts"}
SHOWS = {"Tj", "TJ", "'", '"'}


class Flattener:
    """Reads one page (and the forms it draws) into an opaque layer of pieces."""

    def __init__(self, where: str):
        self.where = where  # for messages: which card
        self.fonts: dict[tuple[int, int], tuple[str, pikepdf.Object]] = {}  # font object -> global name

    def fail(self, what: str) -> BuildError:
        return BuildError(f"{self.where} draws {what}, which cardgen cannot put into a CMYK print file "
                          "(it flattens and separates paths, text and opacity); draw it with shapes, "
                          "or order the RGB file (without --cmyk)")

    def font_name(self, font: pikepdf.Object) -> str:
        key = font.objgen if font.is_indirect else (id(font), 0)
        if key not in self.fonts:
            self.fonts[key] = (f"/F{len(self.fonts)}", font)
        return self.fonts[key][0]

    def page(self, page: pikepdf.Page) -> Layer:
        layer = Layer(page=True)
        self._run(page.obj, page.obj.get("/Resources", pikepdf.Dictionary()), _State(), layer)
        return layer

    def _run(self, stream, resources, state: _State, layer: Layer) -> None:
        stack: list[_State] = []
        path: list[tuple[str, tuple[float, ...]]] = []
        pending_clip: bool | None = None  # W (False) or W* (True) seen, applied at the path's end
        text: list[str] | None = None  # the BT block so far (operators as text)
        tlm, line_chars = IDENTITY, 0  # the text line's matrix, characters shown on it so far
        for operands, op in instructions(stream):
            if op in UNSUPPORTED:
                what = UNSUPPORTED[op]
                if what is not None:
                    raise self.fail(what)
                continue
            nums = operands
            if op == "q":
                stack.append(state.copy())
            elif op == "Q":
                state = stack.pop() if stack else state
            elif op == "cm":
                state.ctm = mul(tuple(float(v) for v in nums), state.ctm)  # type: ignore[arg-type]
            elif op in ("m", "l", "c", "v", "y", "re", "h"):
                path.append((op, tuple(float(v) for v in nums)))
            elif op in ("W", "W*"):
                pending_clip = op == "W*"
            elif op in ("f", "F", "f*", "S", "s", "B", "B*", "b", "b*", "n"):
                ops = tuple(path)
                if op in ("s", "b", "b*"):
                    ops = ops + (("h", ()),)
                evenodd = op in ("f*", "B*", "b*")
                if op in ("f", "F", "f*", "B", "B*", "b", "b*"):
                    self._paint(layer, state, Shape("fill", state.ctm, ops, evenodd, box=box_of(_points(ops), state.ctm)),
                                state.fill, state.fill_alpha, line=False)
                if op in ("S", "s", "B", "B*", "b", "b*"):
                    pen = (state.width, state.cap, state.join, state.miter, state.dashes, state.phase)
                    grow = state.width / 2 * max(state.miter if state.join == 0 else 1.0, 1.5)
                    x0, y0, x1, y1 = box_of(_points(ops))
                    box = box_of([(x0 - grow, y0 - grow), (x1 + grow, y1 + grow), (x0 - grow, y1 + grow),
                                  (x1 + grow, y0 - grow)], state.ctm)
                    self._paint(layer, state, Shape("stroke", state.ctm, ops, pen=pen, box=box),
                                state.stroke, state.stroke_alpha, line=True)
                if pending_clip is not None:
                    clip = Shape("fill", state.ctm, ops, pending_clip, box=box_of(_points(ops), state.ctm))
                    state.clips = state.clips + (clip,)
                    pending_clip = None
                path = []
            elif op in ("rg", "RG", "g", "G", "k", "K", "sc", "SC", "scn", "SCN", "cs", "CS"):
                self._colour(state, op, nums)
            elif op == "gs":
                self._ext_gstate(state, resources, operands[0])
            elif op == "w":
                state.width = float(nums[0])
            elif op == "J":
                state.cap = int(nums[0])
            elif op == "j":
                state.join = int(nums[0])
            elif op == "M":
                state.miter = float(nums[0])
            elif op == "d":
                state.dashes, state.phase = tuple(float(v) for v in nums[0]), float(nums[1])
            elif op == "BT":
                text, tlm, line_chars = [], IDENTITY, 0
            elif op == "ET":
                text = None
            elif op == "Tf":
                font = resources.get("/Font", {}).get(str(operands[0]))
                if font is None:
                    raise self.fail(f"text in a font the page does not define ({operands[0]})")
                if font.get("/Subtype") == "/Type3":
                    raise self.fail("text in a Type 3 font")
                state.font = (self.font_name(font), float(nums[1]))
                if text is not None:
                    text.append(f"{state.font[0]} {num(state.font[1])} Tf")
            elif op in TEXT_STATE:
                state.text_params[op] = float(nums[0])
                if text is not None:
                    text.append(f"{num(float(nums[0]))} {op}")
            elif op == "Tr":
                if int(nums[0]) != 0:
                    raise self.fail(f"text in render mode {int(nums[0])}")
            elif op in ("Tm", "Td", "TD", "T*"):
                if text is None:
                    continue
                values = [float(v) for v in nums]
                if op == "Tm":
                    tlm = tuple(values)  # type: ignore[assignment]
                elif op in ("Td", "TD"):
                    tlm = mul((1, 0, 0, 1, values[0], values[1]), tlm)
                    if op == "TD":
                        state.text_params["TL"] = -values[1]
                else:
                    tlm = mul((1, 0, 0, 1, 0, -state.text_params.get("TL", 0.0)), tlm)
                line_chars = 0
                text.append(pikepdf.unparse_content_stream([(operands, pikepdf.Operator(op))]).decode("latin-1"))
            elif op in SHOWS:
                if text is None:
                    continue
                if op in ("'", '"'):
                    tlm = mul((1, 0, 0, 1, 0, -state.text_params.get("TL", 0.0)), tlm)
                    line_chars = 0
                shown = pikepdf.unparse_content_stream([(operands, pikepdf.Operator(op))]).decode("latin-1")
                body = "\n".join(["3 Tr", *self._text_prefix(state), *text, MODE, shown])
                length = _chars(operands, op)
                shape = Shape("text", state.ctm, text=body.encode("latin-1"),
                              box=self._text_box(state, tlm, line_chars, length))
                self._paint(layer, state, shape, state.fill, state.fill_alpha, line=True)
                text.append(shown)
                line_chars += length
            elif op == "Do":
                self._do(resources, operands[0], state, layer)
            else:
                raise self.fail(f"the PDF operator {op}")

    @staticmethod
    def _text_prefix(state: _State) -> list[str]:
        out = []
        if state.font is not None:
            out.append(f"{state.font[0]} {num(state.font[1])} Tf")
        out += [f"{num(v)} {k}" for k, v in sorted(state.text_params.items())]
        return out

    @staticmethod
    def _text_box(state: _State, tlm: Matrix, before: int, length: int) -> Box:
        """Where a show may draw: from its line's start, every glyph (this show's and those shown
        before it on the line) at most an em wide; generous, used only to skip far pieces."""
        size = state.font[1] if state.font else 12.0
        scale = state.text_params.get("Tz", 100) / 100
        right = size * scale * (before + length + 2)
        corners = [(-size, -0.6 * size), (right, -0.6 * size), (-size, 1.4 * size), (right, 1.4 * size)]
        return box_of(corners, mul(tlm, state.ctm))

    def _paint(self, layer: Layer, state: _State, shape: Shape, rgb, alpha: float, line: bool) -> None:
        box = _clip_box(state.clips, shape.box)
        layer.add([Piece(state.clips, shape, rgb, alpha, box, line)])

    def _colour(self, state: _State, op: str, nums) -> None:
        values = [float(v) for v in nums if not isinstance(v, pikepdf.Name)]
        if op in ("cs", "CS", "sc", "SC", "scn", "SCN"):
            name = str(nums[0]) if op in ("cs", "CS") else None
            if name is not None and name != "/DeviceRGB":
                raise self.fail(f"colours in the colour space {name}")
            if op in ("cs", "CS"):
                return
        if op in ("g", "G"):
            rgb = (values[0],) * 3
        elif op in ("k", "K"):
            c, m, y, k = values
            rgb = ((1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k))
        else:
            rgb = (values[0], values[1], values[2])
        if op in ("rg", "g", "k", "sc", "scn"):
            state.fill = rgb
        else:
            state.stroke = rgb

    def _ext_gstate(self, state: _State, resources, name) -> None:
        gs = resources.get("/ExtGState", {}).get(str(name))
        if gs is None:
            raise self.fail(f"a graphics state the page does not define ({name})")
        for key, value in gs.items():
            if key == "/ca":
                state.fill_alpha = float(value)
            elif key == "/CA":
                state.stroke_alpha = float(value)
            elif key == "/BM" and str(value) not in ("/Normal", "/Compatible"):
                raise self.fail(f"the blend mode {value}")
            elif key == "/SMask" and str(value) != "/None":
                raise self.fail("a soft mask")
            elif key in ("/LW",):
                state.width = float(value)
            elif key in ("/Type", "/SA", "/AIS", "/TK", "/OP", "/op", "/OPM", "/FL", "/SM", "/RI"):
                continue
            else:
                raise self.fail(f"the graphics state entry {key}")

    def _do(self, resources, name, state: _State, layer: Layer) -> None:
        xobject = resources.get("/XObject", {}).get(str(name))
        if xobject is None or xobject.get("/Subtype") != "/Form":
            raise self.fail("an image" if xobject is not None else f"a missing XObject {name}")
        inner = state.copy()
        inner.ctm = mul(tuple(float(v) for v in xobject.get("/Matrix", IDENTITY)), state.ctm)  # type: ignore[arg-type]
        x0, y0, x1, y1 = (float(v) for v in xobject.BBox)
        bbox = Shape("fill", inner.ctm, (("re", (x0, y0, x1 - x0, y1 - y0)),), box=box_of([(x0, y0), (x1, y1)], inner.ctm))
        inner.clips = inner.clips + (bbox,)
        form_resources = xobject.get("/Resources", resources)
        group = xobject.get("/Group")
        if group is not None and group.get("/S") == "/Transparency" and state.fill_alpha < OPAQUE:
            alpha = state.fill_alpha
            inner.fill_alpha = inner.stroke_alpha = 1.0
            own = Layer(page=False)
            self._run(xobject, form_resources, inner, own)
            layer.add([replace(p, alpha=p.alpha * alpha) for p in own.pieces])
            return
        if group is not None:
            inner.fill_alpha = inner.stroke_alpha = 1.0  # a group starts with alpha 1
        self._run(xobject, form_resources, inner, layer)


def instructions(stream) -> list[tuple[Any, str]]:
    """(operands, operator name) of every instruction of a page or form; an inline image is "BI"."""
    out: list[tuple[Any, str]] = []
    for item in pikepdf.parse_content_stream(stream):
        if isinstance(item, pikepdf.ContentStreamInlineImage):
            out.append(([], "BI"))
        else:
            out.append((item.operands, str(item.operator)))
    return out


def _chars(operands, op: str) -> int:
    strings = operands[0] if op == "TJ" else operands[-1:]
    return sum(len(bytes(v)) for v in strings if isinstance(v, pikepdf.String))


def _points(ops: PathOps):
    for op, args in ops:
        if op == "re":
            x, y, w, h = args
            yield from ((x, y), (x + w, y + h))
        else:
            yield from ((args[i], args[i + 1]) for i in range(0, len(args) - 1, 2))


def render(layer: Layer, inks: Callable[[tuple[float, float, float], str], tuple[float, float, float, float]]) -> str:
    """The layer's pieces as an opaque DeviceCMYK content stream."""
    out = []
    for piece in layer.pieces:
        kind = "text" if piece.line and (piece.shape.kind != "fill" or any(c.kind != "fill" for c in piece.clips)) \
            else piece.shape.kind
        cmyk = inks(piece.rgb, kind)
        if not piece.clips:
            out.append(piece.shape.paint(cmyk))
            continue
        out.append("q\n" + "".join(c.clip() for c in piece.clips) + piece.shape.paint(cmyk) + "Q\n")
    return "".join(out)
