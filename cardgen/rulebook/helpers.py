"""What a rulebook template sees: the version's data, through helpers that refuse unknown ids.

A rulebook must never state a number or a rule the data does not have. So a template does not
write "Steel x20" or "a hand of 3": it asks `symbol("steel").count` and `rule("hand_limit")`,
and every mention of a card, symbol, card type, deck or rule goes through a helper that raises
`RulebookError` when the version lacks it (a card removed in a later version, a misspelt rule,
an enum value the prose compares against but the game does not declare). The renderer adds
the template's file and line to the message.

Card pictures are the real rendered faces: each face's SVG is stored once in the build cache
(by content) and placed by `FaceImage.place` as an SVG <image>; in the PDF that image is the
face's own vector PDF, the one the print sheets use (`cardpdf.py`), so figures stay vector and
show the cards exactly as they print.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from .. import contain
from ..atomic import write_text
from ..buildtypes import Face, RenderedSet
from ..cache import Cache
from ..data import cardtext
from ..data.project import Project
from ..data.snapshot import Card, Effect, Snapshot
from ..errors import BuildError
from ..render.fonts import FontSet
from ..render.icons import inline_icon
from ..units import svg_number as _fmt


class RulebookError(BuildError):
    """A template asked for something the data does not have; the renderer says where."""


# --- card pictures -----------------------------------------------------------------------------


class FaceStore:
    """Writes rendered faces' SVG into the build cache (once, by content) and names each face
    by a URL of its digest, `cardgen-face:<sha256>`, which `fetch.ProjectFetcher` serves.

    The URL names no folder, so the rulebook (its HTML and its PDF) is the same wherever the
    cache is. One store per document: it also numbers the clip paths of round faces, whose
    ids share the HTML document's id space with the headings.
    """

    def __init__(self, cache_dir: Path):
        self.cache = Cache(cache_dir)
        self._clips = 0

    def url(self, face: Face) -> str:
        path = self.cache.path(face.digest, ".svg")
        if not path.is_file():
            write_text(path, face.svg)
        return f"cardgen-face:{face.digest}"

    def clip_id(self) -> str:
        self._clips += 1
        return f"cardgen-clip-{self._clips}"


@dataclass
class FaceImage:
    """A rendered face as a figure draws it: trimmed (no bleed), in trim millimetres."""

    face: Face
    bleed: float
    store: FaceStore
    fonts: FontSet | None = None  # to measure text when a figure asks where a part is

    @property
    def width(self) -> float:
        return self.face.width_mm - 2 * self.bleed

    @property
    def height(self) -> float:
        return self.face.height_mm - 2 * self.bleed

    def part(self, name: str) -> tuple[float, float, float, float]:
        """Box (x0, y0, x1, y1, trim mm) of the part the card's template named `name`
        (`<g id="name">`), read from the rendered face; fails the build if it has none."""
        from ..preflight.geometry import read_parts

        parts = read_parts(self.face.svg, self.fonts or FontSet())
        if name not in parts:
            raise RulebookError(f"a figure asks for the part '{name}' of {self.face.key}, whose template "
                                f"names only {', '.join(sorted(parts)) or 'none'}")
        return parts[name]

    @property
    def url(self) -> str:
        return self.store.url(self.face)

    def place(self, x: float, y: float, width: float, rotate: float = 0, shadow: bool = True) -> Markup:
        """SVG markup drawing the face trimmed, `width` wide with its top-left at (x, y).

        For use inside a figure's <svg>; `rotate` turns it (degrees) about its centre, as for a
        fanned hand. Round components are clipped to their circle.
        """
        height = width * self.height / self.width
        nums = {k: _fmt(v) for k, v in dict(x=x, y=y, w=width, h=height, cx=x + width / 2,
                                              cy=y + height / 2, r=width / 2).items()}
        image = (f'<image x="{_fmt(-self.bleed)}" y="{_fmt(-self.bleed)}" width="{_fmt(self.face.width_mm)}" '
                 f'height="{_fmt(self.face.height_mm)}" preserveAspectRatio="none" href="{escape(self.url)}"/>')
        box = f'viewBox="0 0 {_fmt(self.width)} {_fmt(self.height)}"'
        if self.face.shape == "circle":
            clip = self.store.clip_id()
            r = self.width / 2
            inner = (f'<defs><clipPath id="{clip}"><circle cx="{_fmt(r)}" cy="{_fmt(r)}" r="{_fmt(r)}"/>'
                     f'</clipPath></defs><g clip-path="url(#{clip})">{image}</g>')
            outline = f'<circle cx="{nums["cx"]}" cy="{nums["cy"]}" r="{nums["r"]}"'
            drop = f'<circle cx="{_fmt(x + width / 2 + 0.5)}" cy="{_fmt(y + height / 2 + 0.7)}" r="{nums["r"]}"'
        else:
            inner = image
            outline = f'<rect x="{nums["x"]}" y="{nums["y"]}" width="{nums["w"]}" height="{nums["h"]}"'
            drop = f'<rect x="{_fmt(x + 0.5)}" y="{_fmt(y + 0.7)}" width="{nums["w"]}" height="{nums["h"]}"'
        parts = [
            f'{drop} fill="#000000" fill-opacity="0.18"/>' if shadow else "",
            f'<svg x="{nums["x"]}" y="{nums["y"]}" width="{nums["w"]}" height="{nums["h"]}" {box}>{inner}</svg>',
            f'{outline} fill="none" stroke="#000000" stroke-opacity="0.35" stroke-width="0.15"/>',
        ]
        body = "".join(parts)
        if rotate:
            body = f'<g transform="rotate({_fmt(rotate)} {nums["cx"]} {nums["cy"]})">{body}</g>'
        return Markup(body)


# --- views of the data -------------------------------------------------------------------------


@dataclass
class SymbolView:
    id: str
    name: str
    colour: str | None
    icon_name: str | None
    rarity: str | None
    any: bool
    inert: bool
    description: str | None
    count: int  # printed cards carrying it
    helpers: Helpers

    def icon(self, size: str = "1.15em") -> Markup:
        return self.helpers.icon(self.icon_name, size, self.colour) if self.icon_name else Markup("")

    @property
    def cards(self) -> list[CardView]:
        """The cards that carry this symbol in a symbol field (a metal's metal cards)."""
        return [self.helpers.card(c.id) for c in self.helpers.snapshot.cards
                if self.id in _symbol_values(self.helpers.snapshot, c)]

    def __str__(self) -> str:
        return self.name


class SymbolSet:
    """The symbols of one kind: call it with an id (`metal("elvish")`) or iterate over it."""

    def __init__(self, helpers: Helpers, kind: str | None):
        self.helpers = helpers
        self.kind = kind
        snapshot = helpers.snapshot
        self.ids = [sid for sid, s in snapshot.symbols.items() if kind is None or s.kind == kind]
        if kind is not None and not self.ids:
            kinds = sorted({s.kind for s in snapshot.symbols.values() if s.kind})
            raise RulebookError(f"no symbols of kind '{kind}' in version {snapshot.version} "
                                f"(kinds: {', '.join(kinds) or 'none'})")

    def __call__(self, symbol_id: str) -> SymbolView:
        if symbol_id not in self.ids:
            what = f"{self.kind} " if self.kind else "symbol "
            raise RulebookError(f"mentions {what}'{symbol_id}', which version {self.helpers.snapshot.version} "
                                f"does not have (expected one of: {', '.join(self.ids)})")
        return self.helpers.symbol_view(symbol_id)

    def __iter__(self) -> Iterator[SymbolView]:
        return iter([self.helpers.symbol_view(sid) for sid in self.ids])

    @property
    def specific(self) -> list[SymbolView]:
        """The symbols that stand for themselves (not 'any')."""
        return [s for s in self if not s.any]

    @property
    def any(self) -> SymbolView | None:
        """The symbol that stands for any symbol of this kind, if the version has one."""
        return next((s for s in self if s.any), None)

    @property
    def total(self) -> int:
        return sum(s.count for s in self.specific)


@dataclass
class EffectView:
    do: str
    when: SymbolView | None
    params: dict[str, Any]
    plain: str  # the card's sentence as one line, "[Orcish Steel] +1 sword point"
    sentence: str  # the sentence without the triggering symbol


@dataclass
class TypeView:
    id: str
    label: str
    colour: str
    deck: str
    per_player: int | None
    count: int  # printed cards of this type
    helpers: Helpers
    plural: str | None = None  # the data's own word for the type's cards; templates fall back to "<label> cards"

    @property
    def cards(self) -> list[CardView]:
        return self.helpers.cards(type=self.id)

    def __str__(self) -> str:
        return self.label


@dataclass
class DeckView:
    id: str
    name: str
    colour: str
    size: int  # printed cards in the deck
    back: FaceImage | None

    def __str__(self) -> str:
        return self.name


class Fields(dict):
    """A card's fields; `c.fields.points` on a card without that field stops the build."""

    def __init__(self, card: Card):
        super().__init__(card.fields)
        self.card_id = card.id

    def __missing__(self, name: str):
        raise RulebookError(f"card '{self.card_id}' has no field '{name}' (fields: {', '.join(self) or 'none'})")


@dataclass
class CardView:
    id: str
    name: str
    count: int
    type: TypeView
    fields: Fields
    effects: list[EffectView]
    details: list[tuple[str, str]]  # (field label, value as printed), for the card list
    flavour: str | None
    face: FaceImage

    def __str__(self) -> str:
        return self.name


def _symbol_values(snapshot: Snapshot, card: Card) -> list[str]:
    """The symbols a card carries in its symbol-typed fields (a metal card's metal)."""
    specs = snapshot.game.card_types[card.type].fields
    return [card.fields[n] for n, spec in specs.items() if spec.type == "symbol" and card.fields.get(n)]


# --- the helpers -------------------------------------------------------------------------------


class Helpers:
    """The functions and values a rulebook template is given (see `globals`).

    Data: `game`, `snapshot`, `info` (this version: title, summary, notes), `chain` (every
    version up to this one, oldest first).
    Lookups that fail the build on an unknown id: `card(id)` -> CardView (name, count, type,
    fields, effects with `.plain`/`.sentence`, `face`); `cards(type=, deck=)`; `card_type(id)`
    (label, colour, count, cards); `deck(id)` (name, size, back); `symbol(id, kind=None)`;
    `symbols(kind)` -> a SymbolSet, callable by id and iterable, with `.specific`, `.any`,
    `.total`; `rule(key)`, `rule_is(key, value)`, `rule_text(key)`; `unhandled(key)` and
    `fail(message)` to stop the build from the template.
    Drawing: `face.place(x, y, width, rotate=0)` inside a figure's <svg>; `icon(name, size,
    colour)` inline in text; `sentence_icons()` for a legend; `setup_layout(players)` the set-up
    dealt and laid out (drawn by the macro `rb.setup_figure(players)`).
    Words: `join_words(items)`, `chance(part, whole)`, `language_name(code)`, `fmt(number)`,
    `css_string(text)`. The document adds `contents()`, `font_faces`, `paper`, `template_url()`.
    """

    def __init__(self, project: Project, snapshot: Snapshot, rendered: RenderedSet, store: FaceStore):
        self.project = project
        self.snapshot = snapshot
        self.rendered = rendered
        self.store = store
        self.fonts = FontSet(project.fonts_dir)  # measures text where a figure asks for a card's parts
        self.icons = contain.Icons(project.icons_dir)  # read once for the whole document
        self._cards: dict[str, CardView] = {}
        self._symbols: dict[str, SymbolView] = {}

    def globals(self) -> dict[str, Any]:
        s = self.snapshot
        return {
            "game": s.game,
            "snapshot": s,
            "info": s.info,
            "chain": s.chain,
            "card": self.card,
            "cards": self.cards,
            "card_type": self.card_type,
            "deck": self.deck,
            "symbol": self.symbol,
            "symbols": self.symbols,
            "rule": self.rule,
            "rule_is": self.rule_is,
            "rule_text": self.rule_text,
            "unhandled": self.unhandled,
            "fail": self.fail,
            "icon": self.icon,
            "sentence_icons": self.sentence_icons,
            "setup_layout": self.setup_layout,
            "join_words": join_words,
            "language_name": language_name,
            "chance": chance,
            "css_string": css_string,
            "fmt": _fmt,
        }

    # cards, types, decks

    def card(self, card_id: str) -> CardView:
        if card_id not in self._cards:
            try:
                card = self.snapshot.card(card_id)
            except KeyError:
                raise RulebookError(f"mentions card '{card_id}', which version {self.snapshot.version} "
                                    f"does not have") from None
            self._cards[card_id] = self._card_view(card)
        return self._cards[card_id]

    def cards(self, type: str | None = None, deck: str | None = None) -> list[CardView]:
        """Cards in data order, optionally of one card type or one deck (both checked)."""
        if type is not None:
            self._type_spec(type)
        if deck is not None:
            self._deck_spec(deck)
        game = self.snapshot.game
        return [self.card(c.id) for c in self.snapshot.cards
                if (type is None or c.type == type) and (deck is None or game.card_types[c.type].deck == deck)]

    def card_type(self, type_id: str) -> TypeView:
        spec = self._type_spec(type_id)
        count = sum(c.count for c in self.snapshot.cards_of_type(type_id))
        return TypeView(type_id, spec.label, spec.colour, spec.deck, spec.per_player, count, self, spec.plural)

    def deck(self, deck_id: str) -> DeckView:
        spec = self._deck_spec(deck_id)
        back = self.rendered.backs.get(deck_id)
        return DeckView(deck_id, spec.name, spec.colour, self.snapshot.deck_size(deck_id),
                        FaceImage(back, self.snapshot.game.file.bleed_mm, self.store, self.fonts) if back else None)

    def _type_spec(self, type_id: str):
        return _declared("card type", type_id, self.snapshot.game.card_types)

    def _deck_spec(self, deck_id: str):
        return _declared("deck", deck_id, self.snapshot.game.decks)

    def _card_view(self, card: Card) -> CardView:
        face = self.rendered.faces[card.id]
        return CardView(card.id, card.name, card.count, self.card_type(card.type), Fields(card),
                        [self._effect_view(e) for e in card.effects], self._details(card), card.flavour,
                        FaceImage(face, self.snapshot.game.file.bleed_mm, self.store, self.fonts))

    def _details(self, card: Card) -> list[tuple[str, str]]:
        specs = self.snapshot.game.card_types[card.type].fields
        details = []
        for name, spec in specs.items():
            value = card.fields.get(name)
            if value is None:
                continue
            if spec.type == "symbol":
                value = self.symbol_view(value).name
            elif isinstance(value, list):
                value = "; ".join(str(v) for v in value)
            details.append((spec.label or name, str(value)))
        return details

    def _effect_view(self, effect: Effect) -> EffectView:
        s = self.snapshot
        return EffectView(
            do=effect.do,
            when=self.symbol_view(effect.when) if effect.when else None,
            params=dict(effect.params),
            plain=cardtext.effect_plain(s, effect),
            sentence=cardtext.plain(cardtext.effect_sentence(s, effect)),
        )

    # symbols

    def symbol(self, symbol_id: str, kind: str | None = None) -> SymbolView:
        return SymbolSet(self, kind)(symbol_id)

    def symbols(self, kind: str | None = None) -> SymbolSet:
        return SymbolSet(self, kind)

    def symbol_view(self, symbol_id: str) -> SymbolView:
        if symbol_id not in self._symbols:
            sym = self.snapshot.symbols[symbol_id]
            self._symbols[symbol_id] = SymbolView(
                symbol_id, sym.name or symbol_id, sym.colour, sym.icon, sym.rarity, bool(sym.any),
                bool(sym.inert), sym.description, self.snapshot.symbol_count(symbol_id), self)
        return self._symbols[symbol_id]

    # rules

    def rule(self, key: str) -> Any:
        """The version's value of a rule the game declares (None: the rule does not exist)."""
        self._rule_spec(key)
        return self.snapshot.rules.get(key)

    def rule_is(self, key: str, value: Any) -> bool:
        """`rule(key) == value`, where `value` must be one the game declares for an enum rule.

        Comparing against a misspelt value would silently be false and print the wrong prose.
        """
        spec = self._rule_spec(key)
        if spec.type == "enum" and value not in (spec.values or {}):
            raise RulebookError(f"compares rule '{key}' with '{value}', which is not one of its values "
                                f"({', '.join(spec.values or {})})")
        return self.snapshot.rules.get(key) == value

    def rule_text(self, key: str) -> str:
        """The sentence game.yml gives for the version's value of an enum rule."""
        spec = self._rule_spec(key)
        if spec.type != "enum":
            raise RulebookError(f"rule_text('{key}'): rule '{key}' is not an enum rule")
        return (spec.values or {})[self.snapshot.rules.get(key)]

    def unhandled(self, key: str) -> None:
        """Call in the `{% else %}` of a rule's prose: a value the template does not explain."""
        self._rule_spec(key)
        raise RulebookError(f"the rulebook has no text for rule '{key}' = {self.snapshot.rules.get(key)!r} "
                            f"(version {self.snapshot.version}); add a branch for it")

    def fail(self, message: str) -> None:
        raise RulebookError(message)

    def _rule_spec(self, key: str):
        specs = self.snapshot.game.rule_specs
        if key not in specs:
            raise RulebookError(f"mentions rule '{key}', which the game does not declare "
                                f"(expected one of: {', '.join(specs)})")
        return specs[key]

    # the set-up

    def setup_layout(self, players: int, seats: int | None = None, width: float = 170,
                     max_height: float = 200, aspect: float = 1.5) -> Any:
        """The game's set-up dealt for `players` (game.yml `setup:`) and laid out with the real
        pictures, for `rb.setup_figure` to draw (setupfig.py); `seats` draws only the first
        players' areas; its words are sized for a figure at most `width` x `max_height` mm, and
        its parts packed so that its width over its height comes near `aspect`. A player count the game does not allow, or a set-up that cannot be dealt,
        stops the build."""
        from ..data.setup import SetupError, allowed_players
        from .setupfig import lay_out

        if not isinstance(players, int) or players not in allowed_players(self.snapshot):
            allowed = allowed_players(self.snapshot)
            raise RulebookError(f"setup_figure({players!r}): {self.snapshot.game.name} is played by "
                                f"{allowed.start}-{allowed.stop - 1} players")
        try:
            return lay_out(self, players, seats, width, max_height, aspect)
        except SetupError as exc:
            raise RulebookError(f"setup_figure({players}): {exc.message}") from None

    # icons

    def icon(self, name: str | None, size: str = "1.15em", colour: str | None = None) -> Markup:
        """An icon from icons/ inline in the text, tinted like on the cards, `size` high."""
        if not name:
            raise RulebookError("icon(): no icon name given")
        try:
            inner = inline_icon(self.icons, name, 0, 0, 100, colour)  # tinted as on the cards
        except BuildError as exc:
            raise RulebookError(exc.message) from None
        return Markup(f'<svg class="icon" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" '
                      f'style="width:{escape(size)};height:{escape(size)}">{inner}</svg>')

    def sentence_icons(self) -> list[str]:
        """Icons the card sentences of this version draw besides symbols (for the legend)."""
        symbol_icons = {s.icon for s in self.snapshot.symbols.values()}
        found: list[str] = []
        for card in self.snapshot.cards:
            for effect in card.effects:
                for run in cardtext.effect_runs(self.snapshot, effect):
                    if isinstance(run, cardtext.IconRun) and run.icon not in symbol_icons and run.icon not in found:
                        found.append(run.icon)
        return found


def font_faces(fonts_dir: Path) -> Markup:
    """@font-face rules for every font of the project, so text resolves to those files only."""
    rules = []
    for face in FontSet(fonts_dir).faces:
        rules.append(
            f"@font-face {{ font-family: {css_string(face.family)}; src: url({css_string(face.path.as_uri())}); "
            f"font-weight: {700 if face.bold else 400}; font-style: {'italic' if face.italic else 'normal'}; }}"
        )
    return Markup("\n".join(rules))


def css_string(text: Any) -> Markup:
    """`text` as a double-quoted CSS string, safe inside a <style> element."""
    body = re.sub(r'["\\\n<>]', lambda m: f"\\{ord(m.group(0)):x} ", str(text))
    return Markup(f'"{body}"')


def join_words(items: list[Any], last: str = "and") -> str:
    """"blade, hilt and upgrade": a list as an English phrase; `join_words(items, _("and"))` in
    the language being built."""
    words = [str(i) for i in items]
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def language_name(code: str, in_language: str = "en") -> str:
    """"Dutch" for "nl" (in Dutch "Nederlands"), to label text kept in the language it was
    written in; Babel's names (CLDR), the code itself for a language it does not know."""
    from babel import Locale, UnknownLocaleError

    try:
        return Locale.parse(code).get_language_name(in_language) or code
    except (UnknownLocaleError, ValueError):
        return code


def chance(part: int, whole: int, words: str = "{part} in {whole}") -> str:
    """"1 in 6": how likely a draw is, simplified to 1 in n when it can be. A translated rulebook
    passes its own `words`: `chance(4, 60, _("{part} in {whole}"))` gives "1 op 15" in Dutch."""
    if whole <= 0:
        raise RulebookError(f"chance({part}, {whole}): nothing to draw from")
    share = Fraction(part, whole)
    return words.format(part=share.numerator, whole=share.denominator)


def _declared(what: str, key: str, declared: dict):
    """game.yml's declaration of `key`; a rulebook naming anything else fails the build."""
    if key not in declared:
        raise RulebookError(f"mentions {what} '{key}', which the game does not declare "
                            f"(expected one of: {', '.join(declared)})")
    return declared[key]
