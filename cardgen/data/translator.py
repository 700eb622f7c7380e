"""The words of one language: gettext lookups over a game's PO catalogs, with plural rules.

A `Translator` answers `gettext` and `ngettext` for the language being built. In the game's
source language it returns the source text, choosing singular or plural by the language's CLDR
rule (Babel); in a translation it looks the message up in the compiled catalogs and picks the
plural form with the catalog's own `Plural-Forms` expression. Every message it could not find
is remembered (`missing`), so whoever asked can say which strings are still missing.

A snapshot carries its language's words as plain data, a frozen `Translation`; every user of
the snapshot (the card renderer, the card text, the rulebook) makes its own `Translator` from it
with `translator_of`, so what one of them found missing is its own result, never written back
into the snapshot.
"""

from __future__ import annotations

import functools
import gettext as _gettext
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog

from ..errors import Finding, Loc
from .readonly import ReadOnlyDict


def source_plural(lang: str) -> Callable[[int], int]:
    """0 for the singular form, 1 for the plural, by the CLDR rule of `lang`."""
    try:
        locale = Locale.parse(lang.replace("-", "_"))
    except (UnknownLocaleError, ValueError):
        return lambda n: 0 if n == 1 else 1
    return lambda n: 0 if locale.plural_form(abs(n)) == "one" else 1


@functools.lru_cache(maxsize=64)
def _plural_rule(expression: str) -> Callable[[int], int]:
    """A catalog's Plural-Forms expression as a function (compiled once per expression)."""
    return _gettext.c2py(expression)


def _frozen(mapping: Mapping) -> Mapping:
    return ReadOnlyDict(mapping)


@dataclass(frozen=True)
class Translation:
    """The words of one language for a snapshot, as plain data (what `i18n.localise` attaches).

    `missing` holds the strings of the game's data its catalogs lack, each with where the data
    says it (the validator reports them); the templates' missing strings are found when they
    are rendered, and returned by the stage that renders them."""

    lang: str
    source_lang: str
    domains: frozenset[str]
    messages: Mapping[str, tuple[str, ...]] = field(default_factory=ReadOnlyDict)
    plurals: Mapping[str, str] = field(default_factory=ReadOnlyDict)  # msgid -> Plural-Forms
    origins: Mapping[str, Loc] = field(default_factory=ReadOnlyDict)  # msgid -> catalog entry
    missing: Mapping[str, Loc | None] = field(default_factory=ReadOnlyDict)

    @property
    def is_source(self) -> bool:
        return self.lang == self.source_lang


class Translator:
    """gettext for one language; `missing` collects the messages it had to leave untranslated."""

    def __init__(self, lang: str, source_lang: str, catalogs: list[Catalog] | None = None):
        self.lang = lang
        self.source_lang = source_lang
        self.is_source = lang == source_lang
        self.domains: set[str] = {"cards", "rulebook"} if self.is_source else set()
        self.messages: dict[str, tuple[str, ...]] = {}
        self.missing: dict[str, None] = {}  # ordered set of msgids
        self.origins: dict[str, Loc] = {}  # msgid -> its entry in a catalog (file:line)
        self.remarks: list[Finding] = []  # warnings about the catalogs (i18n.pofile)
        self._plurals: dict[str, str] = {}  # msgid -> its own catalog's plural rule (Plural-Forms)
        self._source_plural = source_plural(source_lang)
        self._by_text: dict[str, Loc] | None = None  # translated text -> origin, built when first asked
        for catalog in catalogs or []:
            self.add(catalog)

    def add(self, catalog: Catalog, path: Path | None = None) -> None:
        """The translations of `catalog` (read from `path`). Each catalog's msgstr[N] follow its
        own header's Plural-Forms: a second catalog's header never reinterprets the first's."""
        plural = catalog.plural_expr or "(n != 1)"
        self._by_text = None
        for message in catalog:
            if not message.id or message.fuzzy:
                continue  # the header; an outdated translation counts as missing
            msgid = message.id[0] if isinstance(message.id, (list, tuple)) else message.id
            forms: tuple[str | None, ...] = (tuple(message.string) if isinstance(message.string, (list, tuple))
                                             else (message.string,))
            if all(forms):
                self.messages[msgid] = tuple(f for f in forms if f)  # all of them: typed as str
                self._plurals[msgid] = plural
                if path is not None:
                    self.origins[msgid] = Loc(path, message.lineno or 0)

    def origin_of(self, text: str) -> Loc | None:
        """The catalog entry whose translation is `text` (for findings about printed text)."""
        if self.is_source:
            return None
        if self._by_text is None:
            self._by_text = {form: self.origins[msgid] for msgid, forms in self.messages.items()
                             if msgid in self.origins for form in forms}
        return self._by_text.get(text)

    def gettext(self, msgid: str) -> str:
        if self.is_source or not msgid:
            return msgid
        forms = self.messages.get(msgid)
        if forms is None:
            self.missing[msgid] = None
            return msgid
        return forms[0]

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        if not self.is_source:
            forms = self.messages.get(singular)
            if forms is not None:
                index = _plural_rule(self._plurals[singular])(int(n))
                return forms[max(0, min(index, len(forms) - 1))]
            self.missing[singular] = None
        return singular if self._source_plural(int(n)) == 0 else plural

    def translation(self, missing: Mapping[str, Loc | None] | None = None) -> Translation:
        """What this translator knows, as plain data; `missing`: the data's strings it lacks."""
        return Translation(self.lang, self.source_lang, frozenset(self.domains), _frozen(self.messages),
                           _frozen(self._plurals), _frozen(self.origins), _frozen(missing or {}))

    @classmethod
    def of(cls, translation: Translation) -> Translator:
        """A fresh translator over `translation`'s words, with nothing missing yet."""
        translator = cls(translation.lang, translation.source_lang)
        translator.domains = set(translation.domains)
        translator.messages = dict(translation.messages)
        translator._plurals = dict(translation.plurals)
        translator.origins = dict(translation.origins)
        return translator

    # Jinja's i18n extension calls these names (with newstyle=True it formats %(name)s itself)
    def install(self, env) -> None:
        env.install_gettext_callables(self.gettext, self.ngettext, newstyle=True)


def source_translator(lang: str) -> Translator:
    return Translator(lang, lang)


def translator_of(snapshot) -> Translator:
    """A new translator of the snapshot's language (its own `missing`); a snapshot that was never
    localised, or is in its source language, speaks its source language."""
    if snapshot.translation is None:
        return source_translator(snapshot.language)
    return Translator.of(snapshot.translation)
