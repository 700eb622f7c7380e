"""The card renderer: one card face or deck back as SVG, from the game's Jinja2 templates.
`cardgen.cardstage.draw_cards` runs it over every face and back, the one loop that does.

Templates live in templates/<game>/ (with templates/common/ shared by all games) and draw in
millimetres with the origin at the top-left of the trim box; the bleed lies outside it, at
negative coordinates and beyond the trim size. Helpers give templates what is hard to do in
SVG by hand: icons inlined from icons/, and text fitted into a box with the fonts' own metrics
(`textbox`), which shrinks long text and reports text that cannot fit even at its minimum size.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from xml.etree import ElementTree

from jinja2 import TemplateError
from markupsafe import Markup

from .. import contain
from ..buildtypes import Face
from ..colour import ink_on
from ..data import cardtext
from ..data.project import Project
from ..data.snapshot import Card, Snapshot
from ..data.translator import translator_of
from ..errors import BuildError, CardgenError, Finding, Loc
from ..units import svg_number as _fmt
from . import textfit
from .fonts import FontSet, MissingGlyphError
from .icons import inline_icon
from .templating import template_environment

TEXT_CLASS = "cg-text"  # marks fitted text blocks, which the preflight reads back
Align = Literal["left", "center"]
VAlign = Literal["top", "middle", "bottom"]


@dataclass(frozen=True)
class FaceNotes:
    """What rendering faces noticed besides the SVG: overflow findings (and the same as lines),
    the faces' smallest text size / normal size, and template strings the language lacks."""

    findings: tuple[Finding, ...] = ()
    warnings: tuple[str, ...] = ()
    shrunk: dict[str, float] = field(default_factory=dict)
    missing: tuple[str, ...] = ()


class CardRenderer:
    def __init__(self, project: Project, snapshot: Snapshot, icons: contain.Icons | None = None):
        self.project = project
        self.snapshot = snapshot
        self.game = snapshot.game
        self.fonts = FontSet(project.fonts_dir)
        # read once for all the faces this renderer draws (and the data checks before them: `icons`)
        self.icons = icons or contain.Icons(project.icons_dir)
        self.warnings: list[str] = []
        self.findings: list[Finding] = []  # the same warnings, structured (card, location)
        self.shrunk: dict[str, float] = {}
        self._current: str = ""
        self._loc: Loc | None = None
        self._card: Card | None = None
        # sandboxed (a template reads data and calls the helpers, but cannot reach Python
        # internals such as `''.__class__.__mro__`), and its loader never leaves the template folders
        self.env = template_environment(project, self.game.id, keep_trailing_newline=True)
        # a renderer draws one run of faces from the templates as they were when it started
        # (the stage's cache key read them then): no file's time checked again at every face
        self.env.auto_reload = False
        self.translator = translator_of(snapshot)  # this renderer's own: its `missing` are the templates'
        self.translator.install(self.env)
        self.env.globals.update(
            icon=self.icon,
            textbox=self.textbox,
            paragraphs=self.paragraphs,
            stack_rows=self.stack_rows,
            ink_on=ink_on,
            effect_runs=self.effect_runs,
            symbol=lambda sid: snapshot.symbols[sid],
            rule=lambda key: snapshot.rules.get(key),
            fmt=_fmt,
        )

    # --- public ------------------------------------------------------------------------------

    def take_notes(self) -> FaceNotes:
        """What the faces rendered since the last call noticed (text that does not fit or had to
        shrink, template strings the language lacks), handed over and forgotten here, so each
        face's notes can be kept with it."""
        notes = FaceNotes(tuple(self.findings), tuple(self.warnings), dict(self.shrunk),
                          tuple(self.translator.missing))
        self.findings, self.warnings, self.shrunk = [], [], {}
        self.translator.missing.clear()
        return notes

    def render_card(self, card: Card) -> Face:
        ctype = self.game.card_types[card.type]
        self._current = f"card '{card.id}'"
        self._loc, self._card = card.where, card
        svg = self._render(ctype.template, card.where, card=card, ctype=ctype,
                           **self._frame(card.type))
        w, h = self._outer(card.type)
        return Face(f"card-{card.id}", svg, w, h, ctype.shape)

    def render_back(self, deck_id: str) -> Face:
        deck = self.game.decks[deck_id]
        assert deck.back is not None  # backs are drawn only for decks that have one
        types = [t for t, ct in self.game.card_types.items() if ct.deck == deck_id]
        type_id = types[0]
        self._current = f"back of deck '{deck_id}'"
        self._loc, self._card = self.game.source.loc("decks", deck_id, "back"), None
        svg = self._render(deck.back, self.game.source.loc("decks", deck_id, "back"), deck=deck,
                           deck_id=deck_id, ctype=self.game.card_types[type_id], **self._frame(type_id))
        w, h = self._outer(type_id)
        return Face(f"back-{deck_id}", svg, w, h, self.game.card_types[type_id].shape)

    # --- template helpers --------------------------------------------------------------------

    def icon(self, name: str | None, x: float, y: float, size: float, colour: str | None = None,
             opacity: float | None = None, height: float | None = None, fit: str = "meet") -> Markup:
        """An icon from icons/<name>.svg drawn in the box (x, y, size, height or size); see `icons.inline_icon`."""
        try:
            return inline_icon(self.icons, name, x, y, size, colour, opacity, height, fit)
        except CardgenError as exc:
            raise BuildError(f"{self._current}: {exc}", exc.loc or self._loc) from None

    def textbox(self, content: Any, x: float, y: float, w: float, h: float, *, size: float,
                min_size: float | None = None, font: str = "body", bold: bool = False,
                italic: bool = False, align: Align = "left", valign: VAlign = "top", fill: str = "#1f1a17",
                line_height: float = 1.15) -> Markup:
        """Text fitted into the box (x, y, w, h): shrinks to min_size, warns if it still overflows."""
        family = self.game.file.fonts.title if font == "title" else self.game.file.fonts.body
        runs = self._runs(content, bold, italic)
        with self._glyphs([runs]):
            layout = textfit.fit_text(runs, w, h, family=family, max_size=size, min_size=min_size or size,
                                      line_height=line_height, align=align, fonts=self.fonts)
        if layout.overflow:
            self._warn(f"text does not fit its box even at {layout.size:g} mm: {_preview(runs)!r}", [runs], [content])
        self._note_size(layout.size, size)
        body = self._layout_svg(layout, content, x, y + layout.vertical_offset(valign), family, fill)
        return Markup(_text_group(body))

    def paragraphs(self, items: list, x: float, y: float, w: float, h: float, *, size: float,
                   min_size: float | None = None, gap: float = 0.5, bullet: str | None = None,
                   bullet_colour: str | None = None, font: str = "body", bold: bool = False,
                   italic: bool = False, align: Align = "left", valign: VAlign = "top", fill: str = "#1f1a17",
                   line_height: float = 1.15) -> Markup:
        """Paragraphs stacked in the box (x, y, w, h), `gap` em apart, all at ONE size: the
        largest that fits them all, so a list (a rules reference) reads evenly, which separate
        textboxes cannot promise. With `bullet` (an icon), each paragraph starts with it in a
        hanging indent of 1 em. Warns like textbox when even min_size does not fit."""
        family = self.game.file.fonts.title if font == "title" else self.game.file.fonts.body
        runs = [self._runs(item, bold, italic) for item in items]
        indent_em = 1.0 if bullet else 0.0
        for s in textfit._candidate_sizes(size, min_size or size):
            with self._glyphs(runs):
                layouts = [textfit.fit_text(r, w - indent_em * s, h, family=family, max_size=s, min_size=s,
                                            line_height=line_height, align=align, fonts=self.fonts) for r in runs]
            total = sum(lay.height for lay in layouts) + gap * s * max(len(layouts) - 1, 0)
            if total <= h + textfit.EPSILON and not any(lay.overflow for lay in layouts):
                break
        else:
            self._warn(f"{len(items)} paragraphs do not fit their box even at "
                       f"{s:g} mm: {_preview(runs[0]) if runs else ''!r}...", runs, items)
        self._note_size(s, size)
        top = y + {"top": 0.0, "middle": (h - total) / 2, "bottom": h - total}[valign]
        parts = []
        for item, layout in zip(items, layouts):
            paragraph = []
            if bullet and layout.lines:  # a half-em icon centred 0.3 em above the first baseline
                bullet_y = top + layout.lines[0].baseline - 0.55 * s
                paragraph.append(str(self.icon(bullet, x + 0.15 * s, bullet_y, 0.5 * s, bullet_colour or fill)))
            paragraph.append(self._layout_svg(layout, item, x + indent_em * s, top, family, fill))
            parts.append(_text_group("\n".join(paragraph)))
            top += layout.height + gap * s
        return Markup("\n".join(parts))

    def stack_rows(self, items: list, w: float, h: float, *, size: float, min_size: float | None = None,
                   pad: float = 0.8, min_row: float = 0.0, font: str = "body", bold: bool = False,
                   italic: bool = False, line_height: float = 1.15, warn: bool = True) -> dict[str, Any]:
        """Rows of text stacked in at most `h` mm, all at ONE size: the largest at which every row,
        `w` wide, fits with `pad` above and below it (and at least `min_row` tall). A card's rows
        set this way read as one text, where separately fitted boxes each pick a size of their
        own. Returns {"size": s, "heights": [row heights], "height": their sum}.

        `warn=False` for a template that only measures (how tall a name would be on one line):
        the text it then prints is fitted, and warned about, by the box that prints it."""
        family = self.game.file.fonts.title if font == "title" else self.game.file.fonts.body
        runs = [self._runs(item, bold, italic) for item in items]
        for s in textfit._candidate_sizes(size, min_size or size):
            with self._glyphs(runs):
                layouts = [textfit.fit_text(r, w, h, family=family, max_size=s, min_size=s,
                                            line_height=line_height, fonts=self.fonts) for r in runs]
            heights = [max(min_row, lay.height + 2 * pad) for lay in layouts]
            if sum(heights) <= h + textfit.EPSILON and not any(lay.overflow for lay in layouts):
                break
        else:
            if warn:
                self._warn(f"{len(items)} rows do not fit their {h:g} mm even at {s:g} mm", runs, items)
        return {"size": s, "heights": heights, "height": sum(heights)}

    def effect_runs(self, effect) -> list:
        return cardtext.effect_runs(self.snapshot, effect)

    # --- internals ---------------------------------------------------------------------------

    def _warn(self, message: str, boxes: list[list], texts: list | None = None) -> None:
        """Text that does not fit. `boxes` are the runs of each text in the box, to locate it in the
        data (a card field, an effect, a table cell). In a translation it names the language, and
        where one of `texts` is a catalog's translation, points at that catalog entry: the words to
        shorten are there, not in the source data."""
        loc = self._overflow_loc([_preview(runs, limit=None) for runs in boxes])
        translator = self.translator
        if not translator.is_source:
            origins = [translator.origin_of(t) for t in texts or [] if isinstance(t, str)]
            loc = next((o for o in origins if o is not None), loc)
            message += f" (translation into '{translator.lang}')"
        self.warnings.append(f"{self._current}: {message}")
        self.findings.append(Finding("warning", "text-overflow", f"{self._current}: {message}", loc,
                                     self._card.id if self._card else None))

    @contextlib.contextmanager
    def _glyphs(self, rows: list[list]):
        """A character the fonts lack: name the card, where its data writes it, the font, and the
        text (the one row of a box of rows that holds the character)."""
        try:
            yield
        except MissingGlyphError as exc:
            code = re.search(r"U\+([0-9A-F]{4,6})", exc.message)
            char = chr(int(code.group(1), 16)) if code else None
            loc = self._text_loc(char) if char else self._loc
            row = next((r for r in rows if char and char in _preview(r, limit=None)), rows[0] if rows else [])
            raise BuildError(f"{self._current}: {exc.message} in {_preview(row)!r} "
                             "(use a character the project fonts have, or add a font that has it)", loc) from None

    def _text_loc(self, char: str) -> Loc | None:
        """The data location of the text holding `char`: a card field, an effect, or a sentence."""
        card = self._card
        if card is None:
            return self._loc
        for key in ("name", "flavour", *card.fields):
            value = card.name if key == "name" else card.flavour if key == "flavour" else card.fields.get(key)
            if isinstance(value, str) and char in value:
                return card.loc_of(key)
        for effect in card.effects:
            kind = self.game.effect_kinds.get(effect.do)
            if kind is not None and char in kind.text:
                return self.game.source.loc("effects", effect.do, "text")
            if any(char in str(v) for v in effect.params.values()):
                return effect.loc
        return card.where

    def _overflow_loc(self, texts: list[str]) -> Loc | None:
        """The data location of text that does not fit: the card field or effect whose words
        the box shows (a spreadsheet cell when a table gave them), else the card."""
        card = self._card
        if card is None:
            return self._loc
        sources = [(card.value(key), card.loc_of(key)) for key in ("name", "flavour", *card.fields)]
        sources += [(_preview(self._runs(self.effect_runs(e), False, False), limit=None), e.loc) for e in card.effects]
        sources = [(v.strip(), loc) for v, loc in sources if isinstance(v, str) and v.strip()]
        texts = [t.strip() for t in texts]
        for same in (lambda v, t: v == t, lambda v, t: v in t):  # the whole text first, then a part
            for value, loc in sources:
                if any(same(value, t) for t in texts):
                    return loc
        return card.where

    def _note_size(self, used: float, normal: float) -> None:
        """Remember text that had to shrink: the build reports it per language (Italian runs
        longer than English, so the same card may fit in one and shrink in the other)."""
        if normal > 0 and used < normal - 1e-6:
            ratio = used / normal
            self.shrunk[self._current] = min(ratio, self.shrunk.get(self._current, 1.0))

    def _runs(self, content: Any, bold: bool, italic: bool) -> list:
        if isinstance(content, Markup):  # a translated template string: text, not markup
            content = content.unescape()
        if isinstance(content, (str, int, float)):
            return [textfit.Text(str(content), bold=bold, italic=italic)]
        runs: list[textfit.Run] = []
        for run in content:
            if isinstance(run, cardtext.IconRun):
                runs.append(textfit.Icon(run.icon))
            elif isinstance(run, cardtext.TextRun):
                runs.append(textfit.Text(run.text, bold=bold, italic=italic))
            else:
                runs.append(run)
        return runs

    def _layout_svg(self, layout: textfit.Layout, content: Any, x: float, y: float, family: str,
                    fill: str) -> str:
        """A fitted layout as SVG; inline symbol icons keep their symbol's colour."""
        colours = {}
        for run in content if isinstance(content, list) else []:
            if isinstance(run, cardtext.IconRun) and run.colour:
                colours[run.icon] = run.colour
        return textfit.layout_to_svg(
            layout, x, y, family=family, fill=fill,
            icon_svg=lambda name, ix, iy, isz: str(self.icon(name, ix, iy, isz, colours.get(name, fill))),
        )

    def _frame(self, type_id: str) -> dict[str, Any]:
        size = self.game.size_of(type_id)
        return {
            "snapshot": self.snapshot,
            "game": self.game,
            "style": self.snapshot.style,
            "rules": self.snapshot.rules,
            "symbols": self.snapshot.symbols,
            "w": size.width_mm,
            "h": size.height_mm,
            "bleed": self.game.file.bleed_mm,
            "fonts": self.game.file.fonts,
        }

    def _outer(self, type_id: str) -> tuple[float, float]:
        size = self.game.size_of(type_id)
        b = self.game.file.bleed_mm
        return size.width_mm + 2 * b, size.height_mm + 2 * b

    def _render(self, template: str, loc: Loc, **context) -> str:
        try:
            body = self.env.get_template(template).render(**context)
        except TemplateError as exc:
            raise BuildError(f"{template_place(exc, template)} failed for {self._current}: "
                             f"{type(exc).__name__ if not str(exc) else exc}", loc) from None
        except CardgenError:
            raise
        except (KeyError, AttributeError, TypeError, ValueError, ArithmeticError, IndexError) as exc:
            raise BuildError(f"{template_place(exc, template)} failed for {self._current}: "
                             f"{type(exc).__name__}: {exc}", loc) from None
        svg = _wrap_svg(body, context["w"], context["h"], context["bleed"])
        _check_svg(svg, self.project.root, f"{self._current} (template {template})", loc)
        return svg


def template_place(exc: BaseException, template: str) -> str:
    """`template card.svg.j2:12`: the template file and line an error happened at, if known."""
    name, line = getattr(exc, "filename", None), getattr(exc, "lineno", None)
    if line is None:  # a runtime error: find the template frame in the traceback
        tb = exc.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            if code.co_filename.endswith(".j2") or code.co_filename == "<template>":
                name, line = code.co_filename, tb.tb_lineno  # jinja maps these to the template's lines
            tb = tb.tb_next
    where = f"template {Path(name).name if name and name != '<template>' else template}"
    return f"{where}:{line}" if line else where


@functools.lru_cache(maxsize=2)
def face_tree(svg: str) -> ElementTree.Element:
    """A face's SVG parsed, shared (read only) by the check that it is well-formed and the
    preflight reading its shapes right after: each face is parsed once. ParseError if it is
    not well-formed."""
    return ElementTree.fromstring(svg)


def face_digest(svg: str) -> bytes:
    """A face's SVG, named by its content: what a process keeps of a face it checked."""
    return hashlib.blake2b(svg.encode(), digest_size=16).digest()


def _check_svg(svg: str, project_root: Path, what: str, loc: Loc) -> None:
    """The card must be well-formed XML (cairo would fail later, in a worker, without the card's
    name) and may refer only to its own ids, inline data and files of the project."""
    digest = face_digest(svg)
    if digest not in _WELL_FORMED:  # `serve` redraws unchanged faces after most edits; `validate` draws twice
        try:
            face_tree(svg)
        except ElementTree.ParseError as exc:
            line, column = exc.position
            raise BuildError(f"{what} is not well-formed SVG: {exc} (line {line}, column {column + 1} of the "
                             "rendered card)", loc) from None
        if len(_WELL_FORMED) >= WELL_FORMED_KEPT:
            _WELL_FORMED.clear()
        _WELL_FORMED.add(digest)
    contain.check_card_refs(svg, project_root, what, loc)  # each time: its files may have moved


WELL_FORMED_KEPT = 4096  # faces known to be well-formed XML, by `face_digest`
_WELL_FORMED: set[bytes] = set()


def _text_group(body: str) -> str:
    """Fitted text (with its inline icons) as one group, so the preflight can find text blocks."""
    return f'<g class="{TEXT_CLASS}">{body}</g>' if body else ""


def _wrap_svg(body: str, w: float, h: float, bleed: float) -> str:
    """The SVG document: page = trim + bleed, user units = mm, origin at the trim's top-left."""
    ow, oh = w + 2 * bleed, h + 2 * bleed
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_fmt(ow)}mm" height="{_fmt(oh)}mm" '
        f'viewBox="{_fmt(-bleed)} {_fmt(-bleed)} {_fmt(ow)} {_fmt(oh)}">\n'
        f"{body.strip()}\n</svg>\n"
    )


def _preview(runs: list, limit: int | None = 60) -> str:
    text = "".join(r.text if isinstance(r, textfit.Text) else "[icon]" for r in runs)
    return text if limit is None or len(text) <= limit else text[:limit - 3] + "..."
