"""Where a game's message catalogs live, and reading and writing them with Babel.

    card_data/<game>/locale/cards.pot            the messages, extracted (cardgen i18n extract)
    card_data/<game>/locale/rulebook.pot
    card_data/<game>/locale/<lang>/cards.po      one language's translations (Poedit, Weblate)
    card_data/<game>/locale/<lang>/rulebook.po

Two domains, so a language can have its components translated before its rulebook: a build
in a language without `rulebook.po` prints the components and says why there is no rulebook.
"""

from __future__ import annotations

import datetime as _dt
import io
import re
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from .. import contain
from ..atomic import write_bytes
from ..data.snapshot import Game
from ..data.translator import Translator
from ..errors import Finding, InputError, Loc
from . import pofile
from .strings import DOMAINS

# A fixed date in the headers: extracting twice from the same data gives the same bytes.
FIXED_DATE = _dt.datetime(2026, 1, 1, tzinfo=_dt.timezone.utc)


def locale_dir(game: Game) -> Path:
    return game.dir / "locale"


def pot_path(game: Game, domain: str) -> Path:
    return locale_dir(game) / f"{domain}.pot"


def po_path(game: Game, lang: str, domain: str) -> Path:
    return locale_dir(game) / lang / f"{domain}.po"


def contained(game: Game, path: Path) -> Path:
    """`path`, a catalog of `game`, if it (after links) lies inside the game's folder, like every
    other source a build reads; `contain.OutsideProject` otherwise."""
    relative = path.relative_to(game.dir).as_posix()
    return contain.inside(game.dir, relative, "translation catalog", Loc(path))


def translations(game: Game) -> list[str]:
    """Languages with at least one catalog, the source language excluded, sorted."""
    folder = locale_dir(game)
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir()
                  if p.is_dir() and p.name != game.file.language and any(p.glob("*.po")))


def languages(game: Game) -> list[str]:
    """The source language first, then every translation."""
    return [game.file.language] + translations(game)


def check_language(lang: str) -> str:
    """A language code Babel knows (it, en, nl, pt_BR); one line naming what was expected otherwise."""
    try:
        Locale.parse(lang.replace("-", "_"))
    except (UnknownLocaleError, ValueError):
        raise InputError(f"unknown language '{lang}' (expected a code such as it, en, nl, de, pt_BR)") from None
    return lang


def read(path: Path, lang: str | None = None) -> Catalog:
    """The catalog at `path` (of language `lang`), checked as `msgfmt --check` checks it: any
    problem is an error naming the file and the entry's line (`pofile`)."""
    return read_checked(path, lang)[0]


def read_checked(path: Path, lang: str | None = None) -> tuple[Catalog, list[Finding]]:
    """`read`, and the warnings about harmless gaps (a plural form for one number without the number)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read catalog: {exc.strerror or exc}", Loc(path)) from None
    return pofile.read(path, lang, raw)


def merge(catalog: Catalog, template: Catalog) -> None:
    """`template`'s messages into `catalog` (changed ones become fuzzy), as msgmerge does. Babel's
    update forgets the previous msgid (`#|`) of an entry that was already fuzzy; it is kept, so
    updating twice gives the same bytes."""
    previous = {(m.id if isinstance(m.id, str) else m.id[0], m.context): list(m.previous_id)
                for m in catalog if m.id and m.fuzzy and m.previous_id}
    catalog.update(template, no_fuzzy_matching=False)
    for message in catalog:
        key = (message.id if isinstance(message.id, str) else message.id[0], message.context)
        if message.id and message.fuzzy and not message.previous_id and key in previous:
            message.previous_id = previous[key]


# Babel writes its own release into every catalog's header ("Generated-By: Babel 2.18.0"): with
# another Babel installed, `i18n update` would rewrite every committed catalog for that line alone
GENERATED_BY = re.compile(rb'"Generated-By: Babel [^"\\]*\\n"')


def write(path: Path, catalog: Catalog) -> None:
    buf = io.BytesIO()
    write_po(buf, catalog, width=100, sort_output=False, include_previous=True)
    data = GENERATED_BY.sub(rb'"Generated-By: cardgen\\n"', buf.getvalue(), count=1)
    if not path.is_file() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(path, data)


def require_translation(game: Game, lang: str) -> dict[str, Path]:
    """The catalogs of `lang`, a language other than the source; one line if it has none."""
    paths = {d: po_path(game, lang, d) for d in DOMAINS if po_path(game, lang, d).is_file()}
    if not paths:
        known = ", ".join(languages(game))
        raise InputError(f"{game.name} has no translation into '{lang}' (expected one of: {known}); "
                         f"start one with `cardgen i18n update --game {game.id} --lang {lang}`")
    return paths


def translator_for(game: Game, lang: str) -> Translator:
    """gettext for `lang` from its catalogs; the source language needs none."""
    source = game.file.language
    if lang == source:
        translator = Translator(lang, source)
        translator.domains = set(DOMAINS)
        return translator
    paths = {d: contained(game, p) for d, p in require_translation(game, lang).items()}
    translator = Translator(lang, source)
    for path in paths.values():
        catalog, warnings = read_checked(path, lang)
        translator.add(catalog, path)
        translator.remarks += warnings
    translator.domains = set(paths)
    return translator
