"""cardgen's own words on the pages it prints around a game: the print sheets' notice, footers and
tile labels, and the duplex calibration sheet's instructions. They belong to the toolchain, not to a game, so their catalogs ship with cardgen:

    cardgen/i18n/locale/sheets.pot          the messages, extracted from cardgen/imposition/*.py
    cardgen/i18n/locale/<lang>/sheets.po    one language's translations (nl, it)

A build prints them in the snapshot's language (The King's Guild in Italian, `--lang nl` in Dutch);
a language without a catalog prints them in English, the toolchain's own language. Code marks a
message with `N_("...")` where it is defined and translates it with the `gettext` a stage is
given (`page_text(lang)`); `cardgen i18n extract --own` / `update --own` / `status --own` keep the
catalogs current, as they do a game's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file

from ..data.translator import Translator
from .catalogs import FIXED_DATE, read

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "sheets"
SOURCE_LANG = "en"
SOURCES = ("imposition/impose.py", "imposition/tiling.py", "imposition/furniture.py",  # below cardgen/
           "imposition/calibration.py")
KEYWORDS = {"N_": None}


def N_(message: str) -> str:  # noqa: N802 (gettext's name for "mark, translate later")
    """Mark `message` for extraction; the stage that prints it translates it."""
    return message


def pot_path() -> Path:
    return LOCALE_DIR / f"{DOMAIN}.pot"


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / f"{DOMAIN}.po"


def languages() -> list[str]:
    """Languages cardgen's page text is translated into, sorted."""
    return sorted(p.parent.name for p in LOCALE_DIR.glob(f"*/{DOMAIN}.po"))


def extract() -> Catalog:
    """A fresh template of the messages marked in SOURCES (same code, same bytes)."""
    root = Path(__file__).resolve().parents[1]
    catalog = Catalog(project="cardgen", domain=DOMAIN, creation_date=FIXED_DATE, revision_date=FIXED_DATE,
                      fuzzy=False, charset="utf-8")
    for rel in SOURCES:
        for line, message, comments, _context in extract_from_file(
                "python", root / rel, keywords=KEYWORDS, comment_tags=("Translators:",)):
            catalog.add(message, locations=[(f"cardgen/{rel}", line)], auto_comments=comments)
    return catalog


@functools.lru_cache(maxsize=16)
def translator(lang: str) -> Translator:
    """gettext of cardgen's page text in `lang` (English, the source, where no catalog exists)."""
    path = po_path(lang)
    if lang == SOURCE_LANG or not path.is_file():
        return Translator(lang, lang)
    return Translator(lang, SOURCE_LANG, [read(path, lang)])


def page_text(lang: str) -> Callable[[str], str]:
    return translator(lang).gettext


def catalog_digest(lang: str) -> str:
    """What the page text of `lang` depends on, for cache keys: the catalog's bytes, or none."""
    import hashlib

    path = po_path(lang)
    data = path.read_bytes() if lang != SOURCE_LANG and path.is_file() else b""
    return f"{lang}:{hashlib.sha256(data).hexdigest()}"
