"""Fit rich card text (styled text and inline icons) into a box, so it never leaves the box.

Text is measured with the project fonts' own metrics (fontTools cmap + hmtx) rather than
estimated. That is exact for our renderer: cairosvg draws through cairo's toy font API, one
letter at a time, advancing by each glyph's advance width, with no kerning or other shaping.
(Verified: Cinzel kerns "AV" by -0.105 em in GPOS, yet cairo's advance for "AV" equals the
plain hmtx sum, and rendered ink matches the unkerned width; see tests/test_textfit.py.)
PNGs match too because `cardgen.render.svgconvert` renders them with unhinted metrics, as PDFs are.
A line's width counts ink reaching past the advances (Cinzel's Q tail, italic f), and line
boxes use an ascent/descent covering every glyph, so ink stays inside the box as well.

All lengths are SVG user units (millimetres in cardgen); font sizes are the em size in the
same units. Lines are broken greedily at spaces, "\\n" (or "\\r\\n") forces a break, a no-break
space (U+00A0) glues words, runs of spaces collapse into one. A break never happens between an
icon and text touching it, so "(<icon>)." stays together.

Inline icons: a square of 1 em with 0.15 em of space on each side. Its bottom sits 0.2 em
below the baseline, so its centre is 0.3 em above it: between the x-height middle (~0.23 em)
and the cap-height middle (~0.32 em) of both project fonts, which reads as centred on mixed
text. The icon stays within the font's ascent (0.8 em < 0.9) and descent (0.2 em < 0.3), so
it never changes line spacing.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal
from xml.sax.saxutils import escape, quoteattr

from ..units import decimal
from .fonts import FontMetrics, FontSet

SIZE_STEP = 0.25
ICON_SIZE = 1.0  # em
ICON_GAP = 0.15  # em, on each side
ICON_DROP = 0.2  # em below the baseline
BREAKING_SPACES = " \t"
EPSILON = 1e-9

Align = Literal["left", "center"]
VAlign = Literal["top", "middle", "bottom"]


@dataclass(frozen=True)
class Text:
    """A run of text in one style; may contain spaces and "\\n"."""

    text: str
    bold: bool = False
    italic: bool = False


@dataclass(frozen=True)
class Icon:
    """An inline icon, drawn by the caller's `icon_svg` callback."""

    name: str


Run = Text | Icon


@dataclass(frozen=True)
class Span:
    """Text of one style on a line; x is relative to the box's left edge, width measured."""

    x: float
    text: str
    bold: bool
    italic: bool
    width: float


@dataclass(frozen=True)
class PlacedIcon:
    """An icon's square: top-left corner (relative to the text block's top-left) and side."""

    x: float
    y: float
    size: float
    name: str


@dataclass(frozen=True)
class Line:
    """One line: baseline (from the top of the text block), width occupied, what sits on it.

    `width` covers the glyphs' advances and any ink reaching beyond them.
    """

    baseline: float
    width: float
    items: tuple[Span | PlacedIcon, ...]


@dataclass(frozen=True)
class Layout:
    """Result of `fit_text`. `overflow` means even min_size did not fit; the caller warns."""

    size: float
    overflow: bool
    lines: tuple[Line, ...]
    height: float
    box_width: float
    box_height: float

    def vertical_offset(self, valign: VAlign) -> float:
        """How far below the box top the text block starts for top/middle/bottom placement."""
        free = self.box_height - self.height
        offsets = {"top": 0.0, "middle": free / 2, "bottom": free}
        if valign not in offsets:
            raise ValueError(f"valign must be one of {sorted(offsets)}, not {valign!r}")
        return offsets[valign]


@dataclass(frozen=True)
class _Char:
    char: str
    bold: bool
    italic: bool


_Atom = _Char | Icon


@dataclass(frozen=True)
class _Word:
    """Unbreakable (except as a last resort) atoms, with the space that preceded it, if any."""

    space: _Char | None
    atoms: tuple[_Atom, ...]


def fit_text(
    runs: list[Run],
    width: float,
    height: float,
    *,
    family: str,
    max_size: float,
    min_size: float,
    line_height: float = 1.15,
    align: Align = "left",
    fonts: FontSet | None = None,
) -> Layout:
    """Lay out `runs` at the largest size (max_size down to min_size, step 0.25) that fits.

    If nothing fits, returns the min_size layout with overflow=True.
    """
    if not 0 < min_size <= max_size:
        raise ValueError(f"need 0 < min_size <= max_size, got {min_size}, {max_size}")
    if align not in ("left", "center"):
        raise ValueError(f"align must be 'left' or 'center', not {align!r}")
    measure = _measure_of(fonts or _project_fonts(), family)
    key = (tuple(runs), width, height, max_size, min_size, line_height, align)
    try:
        found = measure.fitted.get(key)
    except TypeError:  # a run that is not a Text or an Icon: _paragraphs says so
        return _fit(runs, width, height, max_size, min_size, line_height, align, measure)
    if found is None:
        if len(measure.fitted) >= LAYOUTS_KEPT:  # forget, rather than grow without end
            measure.fitted.clear()
        found = measure.fitted[key] = _fit(runs, width, height, max_size, min_size, line_height, align, measure)
    return found


def _fit(runs: list[Run], width: float, height: float, max_size: float, min_size: float, line_height: float,
         align: Align, measure: _Measure) -> Layout:
    paragraphs = _paragraphs(runs)
    for size in _candidate_sizes(max_size, min_size):
        layout = _layout_at(size, paragraphs, width, height, line_height, align, measure)
        if not layout.overflow:
            return layout
    return layout  # the min_size attempt, which overflows


def layout_to_svg(
    layout: Layout,
    x: float,
    y: float,
    *,
    family: str,
    fill: str,
    icon_svg: Callable[[str, float, float, float], str],
) -> str:
    """SVG markup drawing `layout` with the box's top-left corner at (x, y).

    Every tspan gets an explicit x so cairosvg puts it exactly where it was measured; there
    is no whitespace between tags because xml:space="preserve" (needed to keep spaces inside
    spans) would print it. Weight and style are explicit on each span so that a surrounding
    group cannot change them.
    """
    parts = []
    for line in layout.lines:
        spans = [item for item in line.items if isinstance(item, Span)]
        if spans:
            parts.append(_text_element(spans, x, y + line.baseline, layout.size, family, fill))
        for icon in (item for item in line.items if isinstance(item, PlacedIcon)):
            parts.append(icon_svg(icon.name, x + icon.x, y + icon.y, icon.size))
    return "\n".join(parts)


def _text_element(
    spans: list[Span], x: float, baseline: float, size: float, family: str, fill: str
) -> str:
    y = decimal(baseline)
    tspans = "".join(
        f'<tspan x="{decimal(x + span.x)}" y="{y}"'
        f' font-weight="{"bold" if span.bold else "normal"}"'
        f' font-style="{"italic" if span.italic else "normal"}">{_escaped(span.text)}</tspan>'
        for span in spans
    )
    return (
        f'<text xml:space="preserve" font-family={_quoted(family)} font-size="{decimal(size)}"'
        f" fill={_quoted(fill)}>{tspans}</text>"
    )


# a build writes the same words (a card type's labels, an effect's sentence) and the same few
# families and colours on many cards: each escaped once per process
_escaped = functools.lru_cache(maxsize=4096)(escape)
_quoted = functools.lru_cache(maxsize=256)(quoteattr)



@functools.cache
def _project_fonts() -> FontSet:
    return FontSet()


@dataclass(frozen=True)
class _Extent:
    """Horizontal extent of a piece of line in em: its advance, and the range it occupies
    (its advance box widened by ink that pokes out, so that ink stays in the box too)."""

    advance: float
    left: float
    right: float

    @property
    def width(self) -> float:
        return self.right - self.left

    def __add__(self, other: _Extent) -> _Extent:
        """`other` placed right after `self`."""
        return _Extent(
            self.advance + other.advance,
            min(self.left, self.advance + other.left),
            max(self.right, self.advance + other.right),
        )


_NOTHING = _Extent(0.0, 0.0, 0.0)


_STYLES: tuple[tuple[bool, bool], ...] = ((False, False), (False, True), (True, False), (True, True))  # (bold, italic)
_MEASURES: dict[tuple[FontMetrics, ...], _Measure] = {}
_FAMILIES: weakref.WeakKeyDictionary[FontSet, dict[str, _Measure]] = weakref.WeakKeyDictionary()
# what is kept, bounded for a long process (`cardgen serve`, a test run drawing many project
# copies, each with fonts of its own): a seed game fits about 250 layouts and measures 450 words
# and lines per family
MEASURES_KEPT = 8  # families (of one font folder each); a ninth starts the set again
EXTENTS_KEPT = 20_000  # words and lines a family keeps measured
LAYOUTS_KEPT = 4_000  # fitted layouts a family keeps


def _measure_of(fonts: FontSet, family: str) -> _Measure:
    """The family's measure, shared by every box of every card in the process: a build fits
    the same words (a card type's labels, an effect's sentence) on many cards and at many
    sizes, and each is measured once. Keyed by the faces' metrics, which are read once per
    font file; a measure knows nothing else."""
    known = _FAMILIES.setdefault(fonts, {})
    found = known.get(family)
    if found is None:  # a FontSet's faces never change: resolved once per family
        metrics = tuple(fonts.metrics(family, *style) for style in _STYLES)
        found = _MEASURES.get(metrics)
        if found is None:
            if len(_MEASURES) >= MEASURES_KEPT:  # start again (no iterating: `cardgen serve` has threads)
                _MEASURES.clear()
            found = _MEASURES[metrics] = _Measure(dict(zip(_STYLES, metrics)))
        known[family] = found
    return found


class _Measure:
    """Extents in em of atoms and lines, and line box metrics, for one family; and the layouts
    fit_text made with them (a layout is a function of its text, box and sizes, and these)."""

    def __init__(self, metrics: dict[tuple[bool, bool], FontMetrics]) -> None:
        self._metrics = metrics
        self.ascent = max(max(m.ascent for m in self._metrics.values()), ICON_SIZE - ICON_DROP)
        self.descent = max(max(m.descent for m in self._metrics.values()), ICON_DROP)
        # fit_text measures the same words at every size it tries: each measured once
        self._atoms: dict[_Atom, _Extent] = {}
        self._extents: dict[tuple[_Atom, ...], _Extent] = {}
        self.fitted: dict[tuple, Layout] = {}

    def atom(self, atom: _Atom) -> _Extent:
        found = self._atoms.get(atom)
        if found is None:
            found = self._atoms[atom] = self._measure(atom)
        return found

    def _measure(self, atom: _Atom) -> _Extent:
        if isinstance(atom, Icon):
            return _Extent(ICON_SIZE + 2 * ICON_GAP, 0.0, ICON_SIZE + 2 * ICON_GAP)
        metrics = self._metrics[atom.bold, atom.italic]
        advance = metrics.advance(atom.char)
        ink = metrics.ink_x(atom.char) or (0.0, advance)
        return _Extent(advance, min(0.0, ink[0]), max(advance, ink[1]))

    def extent(self, atoms: list[_Atom] | tuple[_Atom, ...]) -> _Extent:
        key = tuple(atoms)
        found = self._extents.get(key)
        if found is None:
            if len(self._extents) >= EXTENTS_KEPT:  # forget, rather than grow without end
                self._extents.clear()
            found = self._extents[key] = sum((self.atom(atom) for atom in atoms), _NOTHING)
        return found

    def block_height(self, line_count: int, line_height: float) -> float:
        """Top of the first line's ascent to the bottom of the last line's descent, in em."""
        return (line_count - 1) * line_height + self.ascent + self.descent


def _candidate_sizes(max_size: float, min_size: float) -> list[float]:
    """max_size, max_size - 0.25, ... and always exactly min_size last."""
    steps = math.floor((max_size - min_size) / SIZE_STEP + EPSILON)
    sizes = [max_size - i * SIZE_STEP for i in range(steps + 1)]
    if sizes[-1] - min_size > EPSILON:
        sizes.append(min_size)
    sizes[-1] = min_size  # not 2.3000000000000003
    return sizes


def _layout_at(
    size: float,
    paragraphs: list[list[_Word]],
    width: float,
    height: float,
    line_height: float,
    align: Align,
    measure: _Measure,
) -> Layout:
    lines = [line for words in paragraphs for line in _wrap(words, width / size, measure)]
    block_height = measure.block_height(len(lines), line_height) * size
    placed = tuple(
        _place(line, i, size, line_height, width, align, measure) for i, line in enumerate(lines)
    )
    overflow = block_height > height + EPSILON or any(
        line.width > width + EPSILON for line in placed
    )
    return Layout(size, overflow, placed, block_height, width, height)


def _paragraphs(runs: list[Run]) -> list[list[_Word]]:
    """Split runs into paragraphs (at "\\n") of words (at spaces); icons join adjacent text."""
    paragraphs: list[list[_Word]] = [[]]
    atoms: list[_Atom] = []
    space: _Char | None = None

    def end_word() -> None:
        nonlocal space
        if atoms:
            paragraphs[-1].append(_Word(space if paragraphs[-1] else None, tuple(atoms)))
            atoms.clear()
            space = None

    for run in runs:
        if isinstance(run, Icon):
            atoms.append(run)
            continue
        for char in run.text.replace("\r\n", "\n").replace("\r", "\n"):
            if char == "\n":
                end_word()
                paragraphs.append([])
                space = None
            elif char in BREAKING_SPACES:
                end_word()
                space = space or _Char(" ", run.bold, run.italic)
            else:
                atoms.append(_Char(char, run.bold, run.italic))
    end_word()
    return [_glue_icons(words) for words in paragraphs]


def _glue_icons(words: list[_Word]) -> list[_Word]:
    """An icon standing alone between spaces ("+1 point per <icon>") keeps the space before it
    unbreakable, so it never starts a line by itself: it stays with the word before it (the
    first word of a paragraph: with the word after it)."""
    glued: list[_Word] = []
    for word in words:
        alone = all(isinstance(a, Icon) for a in word.atoms)
        if alone and glued and word.space is not None:
            before = glued[-1]
            glued[-1] = _Word(before.space, (*before.atoms, word.space, *word.atoms))
        elif glued and glued[-1].space is None and len(glued) == 1 and \
                all(isinstance(a, Icon) for a in glued[0].atoms) and word.space is not None:
            glued[0] = _Word(None, (*glued[0].atoms, word.space, *word.atoms))
        else:
            glued.append(word)
    return glued


def _wrap(words: list[_Word], limit: float, measure: _Measure) -> list[list[_Atom]]:
    """Greedy line filling; a word wider than the whole line is split by characters."""
    lines: list[list[_Atom]] = []
    line: list[_Atom] = []
    extent = _NOTHING
    for word in words:
        word_extent = measure.extent(word.atoms)
        joined = extent + measure.extent([word.space] if word.space else []) + word_extent
        if line and joined.width <= limit + EPSILON:
            line += [word.space, *word.atoms] if word.space else list(word.atoms)
            extent = joined
            continue
        if line:
            lines.append(line)
        fits = word_extent.width <= limit + EPSILON
        chunks = [word.atoms] if fits else _split_word(word.atoms, limit, measure)
        lines += [list(chunk) for chunk in chunks[:-1]]
        line, extent = list(chunks[-1]), measure.extent(chunks[-1])
    lines.append(line)
    return lines


def _split_word(
    atoms: tuple[_Atom, ...], limit: float, measure: _Measure
) -> list[tuple[_Atom, ...]]:
    """Greedy character chunks at most `limit` em wide (at least one atom each)."""
    chunks: list[tuple[_Atom, ...]] = []
    start, extent = 0, _NOTHING
    for i, atom in enumerate(atoms):
        grown = extent + measure.atom(atom)
        if i > start and grown.width > limit + EPSILON:
            chunks.append(atoms[start:i])
            start, grown = i, measure.atom(atom)
        extent = grown
    chunks.append(atoms[start:])
    return chunks


def _place(
    atoms: list[_Atom],
    index: int,
    size: float,
    line_height: float,
    box_width: float,
    align: Align,
    measure: _Measure,
) -> Line:
    """Turn a line's atoms into positioned spans (grouped by style) and icons.

    The line's occupied range (advance box plus overhanging ink) is what gets aligned, so a
    glyph reaching left of its origin is moved in rather than poking out of the box.
    """
    extent = measure.extent(atoms)
    width = extent.width * size
    free = box_width - width if align == "center" else 0.0
    x = free / 2 - extent.left * size
    baseline = (measure.ascent + index * line_height) * size
    items: list[Span | PlacedIcon] = []
    # a span's characters are gathered and it is made once its style ends (not once a
    # character): its width is the same running sum of advances, in the same order
    chars: list[str] = []
    style: tuple[bool, bool] | None = None
    start = span_width = 0.0
    for atom in atoms:
        advance = measure.atom(atom).advance * size
        if isinstance(atom, Icon):
            if style is not None:
                items.append(Span(start, "".join(chars), style[0], style[1], span_width))
                style = None
            top = baseline - (ICON_SIZE - ICON_DROP) * size
            items.append(PlacedIcon(x + ICON_GAP * size, top, ICON_SIZE * size, atom.name))
        elif style == (atom.bold, atom.italic):
            chars.append(atom.char)
            span_width = span_width + advance
        else:
            if style is not None:
                items.append(Span(start, "".join(chars), style[0], style[1], span_width))
            chars, style, start, span_width = [atom.char], (atom.bold, atom.italic), x, advance
        x += advance
    if style is not None:
        items.append(Span(start, "".join(chars), style[0], style[1], span_width))
    return Line(baseline, width, tuple(items))
