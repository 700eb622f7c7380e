"""cardgen's own words on the pages it prints around a game. They belong to the toolchain, not to
a game, so their catalogs ship with cardgen, one per domain:

    sheets    the print sheets' notice, footers and tile labels, and the duplex calibration
              sheet's instructions (cardgen/imposition/*.py, marked `N_("...")`)
    rulebook  the common rulebook templates cardgen ships (rulebook-base.html.j2 and
              rulebook-macros.html.j2: "Contents", "Card list", "2–4 players", the footer) and
              the designer's notes (notes.html.j2), marked `{% trans %}` / `_()` like a game's
              templates

    cardgen/i18n/locale/<domain>.pot          the messages, extracted
    cardgen/i18n/locale/<lang>/<domain>.po    one language's translations (nl, it)

A build prints them in the snapshot's language (The King's Guild in Italian, `--lang nl` in Dutch);
a language without a catalog prints them in English, the toolchain's own language. Code translates
a sheet's message with the `gettext` a stage is given (`page_text(lang)`); a rulebook's templates
get `rulebook_gettext`, which asks the game's catalogs first. `cardgen i18n own` keeps the
catalogs current.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file
from jinja2.ext import babel_extract

from ..data.translator import Translator
from .catalogs import FIXED_DATE, read
from .extract import JINJA_OPTIONS  # the options the rulebook stage renders with

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
SHEETS, RULEBOOK = "sheets", "rulebook"
DOMAINS = (SHEETS, RULEBOOK)
DOMAIN = SHEETS  # the default of the functions below: the sheets came first
SOURCE_LANG = "en"
SOURCES = {  # below cardgen/
    SHEETS: ("imposition/impose.py", "imposition/tiling.py", "imposition/furniture.py", "imposition/calibration.py"),
    RULEBOOK: ("builtin/templates/rulebook-base.html.j2", "builtin/templates/rulebook-macros.html.j2",
               "builtin/templates/notes.html.j2"),
}
KEYWORDS = {"N_": None}


def N_(message: str) -> str:  # noqa: N802 (gettext's name for "mark, translate later")
    """Mark `message` for extraction; the stage that prints it translates it."""
    return message


def pot_path(domain: str = DOMAIN) -> Path:
    return LOCALE_DIR / f"{domain}.pot"


def po_path(lang: str, domain: str = DOMAIN) -> Path:
    return LOCALE_DIR / lang / f"{domain}.po"


def languages(domain: str | None = None) -> list[str]:
    """Languages cardgen's own words are translated into (in `domain`, or in any), sorted."""
    names = [domain] if domain else list(DOMAINS)
    return sorted({p.parent.name for d in names for p in LOCALE_DIR.glob(f"*/{d}.po")})


def extract(domain: str = DOMAIN) -> Catalog:
    """A fresh template of the messages marked in the domain's SOURCES (same code, same bytes)."""
    root = Path(__file__).resolve().parents[1]
    catalog = Catalog(project="cardgen", domain=domain, creation_date=FIXED_DATE, revision_date=FIXED_DATE,
                      fuzzy=False, charset="utf-8")
    for rel in SOURCES[domain]:
        method = "python" if rel.endswith(".py") else babel_extract
        options = None if rel.endswith(".py") else JINJA_OPTIONS
        keywords = KEYWORDS if rel.endswith(".py") else DEFAULT_KEYWORDS
        for line, message, comments, _context in extract_from_file(
                method, root / rel, keywords=keywords, comment_tags=("Translators:",),  # type: ignore[arg-type]
                options=options):
            key = message if isinstance(message, str) else (message[0], message[1])
            where = (f"cardgen/{rel}", line)
            existing = catalog.get(key if isinstance(key, str) else key[0])
            if existing is not None:
                existing.locations.append(where)
            else:
                catalog.add(key, locations=[where], auto_comments=comments)
    return catalog


@functools.lru_cache(maxsize=16)
def translator(lang: str, domain: str = DOMAIN) -> Translator:
    """gettext of cardgen's own words in `lang` (English, the source, where no catalog exists)."""
    path = po_path(lang, domain)
    if lang == SOURCE_LANG or not path.is_file():
        return Translator(lang, lang)
    return Translator(lang, SOURCE_LANG, [read(path, lang)])


def page_text(lang: str) -> Callable[[str], str]:
    return translator(lang).gettext


@functools.lru_cache(maxsize=1)
def rulebook_messages() -> frozenset[str]:
    """The msgids of the common rulebook templates (read from the shipped template catalog)."""
    path = pot_path(RULEBOOK)
    return frozenset(m.id if isinstance(m.id, str) else m.id[0] for m in read(path) if m.id) if path.is_file() \
        else frozenset()


class RulebookWords:
    """gettext for a rulebook's templates: the game's catalogs, and for the words of cardgen's
    common templates, cardgen's own catalog of the language being built.

    A game's translation of the same words wins (a game may word its contents page its own
    way); cardgen's words a game does not translate are not reported missing for the game, and
    where cardgen has no catalog for the language they print in English, like the sheets'.
    """

    def __init__(self, game: Translator):
        self.game = game
        self.own = translator(game.lang, RULEBOOK)
        self.own_ids = rulebook_messages()

    def _own(self, msgid: str) -> bool:
        return msgid in self.own_ids and msgid not in self.game.messages

    def gettext(self, msgid: str) -> str:
        return self.own.gettext(msgid) if self._own(msgid) else self.game.gettext(msgid)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.own.ngettext(singular, plural, n) if self._own(singular) else \
            self.game.ngettext(singular, plural, n)

    def install(self, env) -> None:
        env.install_gettext_callables(self.gettext, self.ngettext, newstyle=True)


def catalog_digest(lang: str) -> str:
    """What the page text of `lang` depends on, for cache keys: the catalog's bytes, or none."""
    path = po_path(lang)
    data = path.read_bytes() if lang != SOURCE_LANG and path.is_file() else b""
    return f"{lang}:{hashlib.sha256(data).hexdigest()}"
