"""Card sentences generated from structured effects.

An effect is data (`{when: orcish, do: points, amount: 1}`); the game's vocabulary gives each
effect kind a Jinja2 sentence. The printed card, the rulebook, the diff and the exports all call
`effect_runs`/`effect_plain`, so a card can never say something the data does not.
Sentences run in Jinja2's sandbox: game data cannot reach Python internals.
"""

from __future__ import annotations

import functools
import re
import weakref
from dataclasses import dataclass
from typing import Any

from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from ..errors import BuildError
from .model import PluralText
from .snapshot import Effect, Snapshot
from .translator import translator_of

ICON_MARK = re.compile(r"\x00icon:([^|\x00]+)\|([^\x00]*)\x00")


@dataclass(frozen=True)
class TextRun:
    text: str


@dataclass(frozen=True)
class IconRun:
    icon: str  # icon path below icons/, without .svg
    label: str  # words that stand for the icon in plain text
    colour: str | None = None


@dataclass(frozen=True)
class SymbolRef:
    """A symbol as seen by a sentence template: prints as its name; icon() draws it."""

    id: str
    name: str
    icon: str | None
    colour: str | None

    def __str__(self) -> str:
        return self.name


def _icon(target: Any, label: str | None = None) -> str:
    if isinstance(target, SymbolRef):
        return f"\x00icon:{target.icon}|{label or target.name}\x00"
    # a decorative icon (not a symbol) has no words of its own unless given some
    return f"\x00icon:{target}|{label or ''}\x00"


def _plural(n: Any, word: str, plural: str | None = None) -> str:
    return word if n == 1 else (plural or word + "s")


@functools.cache
def _env() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False)
    env.globals.update(icon=_icon, plural=_plural)
    return env


@functools.lru_cache(maxsize=4096)
def _template(source: str):
    return _env().from_string(source)


def symbol_ref(snapshot: Snapshot, symbol_id: str) -> SymbolRef:
    sym = snapshot.symbols[symbol_id]
    return SymbolRef(symbol_id, sym.name or symbol_id, sym.icon, sym.colour)


def render_sentence(snapshot: Snapshot, source: str, values: dict[str, Any]) -> str:
    """Fill a sentence template; raises TemplateError/KeyError for the validator to report."""
    return _template(source).render(**values)


def effect_values(snapshot: Snapshot, effect: Effect) -> dict[str, Any]:
    kind = snapshot.game.effect_kinds[effect.do]
    values: dict[str, Any] = {}
    for name, spec in kind.params.items():
        value = effect.params.get(name, spec.default)
        if spec.type == "symbol" and value is not None:
            value = symbol_ref(snapshot, value)
        values[name] = value
    if effect.when is not None:
        values["when"] = symbol_ref(snapshot, effect.when)
    return values


class SentenceError(BuildError):
    """An effect's sentence template failed (a misspelt name, a sandbox violation): one line
    naming the effect in the card's data and the sentence in game.yml."""


def sentence_source(snapshot: Snapshot, text: Any, values: dict[str, Any]) -> str:
    """The Jinja2 source of a sentence in the snapshot's language: a plural sentence picks its
    form for the number by that language's rule (a translation brings its own forms)."""
    if isinstance(text, PluralText):
        return translator_of(snapshot).ngettext(text.one, text.other, values.get(text.count) or 0)
    return text


def effect_sentence(snapshot: Snapshot, effect: Effect) -> str:
    """The effect's sentence, filled once per snapshot: the validator, the card faces, the
    rulebook's card list, legend and figures on every paper and document all ask for it (3.1's
    rulebook alone asked three times per effect and paper). A snapshot is frozen, so what it
    says cannot change while it lives; a changed game is a new snapshot, with sentences of its own."""
    sentences = _sentences(snapshot)
    known = sentences.get(id(effect))
    if known is not None and known[0] is effect:
        return known[1]
    sentence = _fill_sentence(snapshot, effect)
    sentences[id(effect)] = (effect, sentence)  # the effect kept with it: its id is not reused meanwhile
    return sentence


def _sentences(snapshot: Snapshot) -> dict[int, tuple[Effect, str]]:
    """The sentences filled for this snapshot, by effect; forgotten with the snapshot."""
    key = id(snapshot)
    sentences = _SENTENCES.get(key)
    if sentences is None:
        sentences = _SENTENCES[key] = {}
        weakref.finalize(snapshot, _SENTENCES.pop, key, None)
    return sentences


_SENTENCES: dict[int, dict[int, tuple[Effect, str]]] = {}  # id(snapshot) -> id(effect) -> (effect, sentence)


def _fill_sentence(snapshot: Snapshot, effect: Effect) -> str:
    kind = snapshot.game.effect_kinds.get(effect.do)
    if kind is None:
        raise SentenceError(f"unknown effect '{effect.do}' (expected one of: "
                            f"{', '.join(sorted(snapshot.game.effect_kinds))})", effect.loc)
    try:
        values = effect_values(snapshot, effect)
        return render_sentence(snapshot, sentence_source(snapshot, kind.text, values), values).strip()
    except (TemplateError, KeyError, TypeError, ValueError, AttributeError, ArithmeticError, IndexError) as exc:
        where = snapshot.game.source.loc("effects", effect.do, "text")
        what = str(exc) if isinstance(exc, TemplateError) and str(exc) else f"{type(exc).__name__}: {exc}"
        raise SentenceError(f"the sentence of effect '{effect.do}' (game.yml {where.line}:{where.column}) "
                            f"fails: {what}", effect.loc) from None


def to_runs(sentence: str, snapshot: Snapshot | None = None) -> list[TextRun | IconRun]:
    runs: list[TextRun | IconRun] = []
    pos = 0
    colours = _icon_colours(snapshot) if snapshot else {}
    for m in ICON_MARK.finditer(sentence):
        if m.start() > pos:
            runs.append(TextRun(sentence[pos : m.start()]))
        runs.append(IconRun(m.group(1), m.group(2), colours.get(m.group(1))))
        pos = m.end()
    if pos < len(sentence):
        runs.append(TextRun(sentence[pos:]))
    return runs


def _icon_colours(snapshot: Snapshot) -> dict[str, str]:
    return {s.icon: s.colour for s in snapshot.symbols.values() if s.icon and s.colour}


def plain(sentence: str) -> str:
    """The sentence as plain text: symbol icons become their name in brackets, decorations vanish."""
    text = ICON_MARK.sub(lambda m: f"[{m.group(2)}]" if m.group(2) else "", sentence)
    return " ".join(text.split())


def effect_runs(snapshot: Snapshot, effect: Effect) -> list[TextRun | IconRun]:
    return to_runs(effect_sentence(snapshot, effect), snapshot)


def effect_plain(snapshot: Snapshot, effect: Effect) -> str:
    """`[Orcish Steel] +1 sword point`: the effect as one line of plain text."""
    sentence = plain(effect_sentence(snapshot, effect))
    if effect.when is None:
        return sentence
    return f"[{snapshot.symbols[effect.when].name}] {sentence}"


def card_plain(snapshot: Snapshot, card) -> str:
    """All of a card's effects, one per line (TTS descriptions, `show`, diffs)."""
    return "\n".join(effect_plain(snapshot, e) for e in card.effects)


__all__ = [
    "TextRun",
    "IconRun",
    "SymbolRef",
    "TemplateError",
    "SentenceError",
    "effect_runs",
    "effect_plain",
    "effect_sentence",
    "card_plain",
    "to_runs",
    "plain",
]
