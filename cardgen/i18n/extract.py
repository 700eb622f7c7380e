"""Data + templates -> message catalogs, one per domain (Babel).

Strings of the data come from `strings.items` over every version of the game (a message used in
several places lists them all); strings of the templates are the `{% trans %}` blocks and `_()`
calls that Babel's Jinja2 extractor finds. Card templates (`*.svg.j2` and other non-rulebook
templates) go to `cards`, rulebook templates (`rulebook*`, `*.html.j2`) to `rulebook`.
"""

from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file
from jinja2.exceptions import TemplateSyntaxError
from jinja2.ext import babel_extract

from ..builtin import TEMPLATES_DIR
from ..data.project import Project
from ..data.snapshot import Game
from ..data.versions import available_versions, resolve
from ..errors import InputError, Loc
from .catalogs import FIXED_DATE
from .strings import CARDS, DOMAINS, RULEBOOK, items

# the options every cardgen Jinja2 environment uses, so line numbers and whitespace match
JINJA_OPTIONS = {"trimmed": "true", "trim_blocks": "true", "lstrip_blocks": "true", "silent": "false",
                 "newstyle_gettext": "true"}


def extract(project: Project, game: Game) -> dict[str, Catalog]:
    """Fresh catalogs (templates for translators) of every domain."""
    catalogs = {d: _new_catalog(game, d) for d in DOMAINS}
    seen: dict[tuple[str, str], set] = {}
    for version in available_versions(project, game):
        snapshot = resolve(project, game, version)
        for item in items(snapshot):
            _add(catalogs[item.domain], seen, project, item.msgid, item.plural, item.loc, item.note)
    for domain, path in template_files(project, game):
        for line, message, comments in _template_messages(path):
            msgid, plural = (message[0], message[1]) if isinstance(message, tuple) else (message, None)
            note = "template" + (": " + " ".join(comments) if comments else "")
            _add(catalogs[domain], seen, project, msgid, plural, Loc(path, line), note)
    return catalogs


def template_files(project: Project, game: Game) -> list[tuple[str, Path]]:
    found = []
    for folder in (project.templates_dir / game.id, project.templates_dir / "common"):
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.j2")):
            if folder.name == "common" and _is_builtin(path):
                continue
            domain = RULEBOOK if path.name.startswith("rulebook") or path.name.endswith(".html.j2") else CARDS
            found.append((domain, path))
    return found


def _is_builtin(path: Path) -> bool:
    """A copy of (or, in this repository, a link to) one of cardgen's own common templates."""
    builtin = TEMPLATES_DIR / path.name
    return builtin.is_file() and builtin.read_bytes() == path.read_bytes()


def _template_messages(path: Path):
    try:
        for line, message, comments, _context in extract_from_file(
                babel_extract, path, keywords=DEFAULT_KEYWORDS, comment_tags=("Translators:",),  # type: ignore[arg-type]
                options=JINJA_OPTIONS):
            yield line, message, comments
    except TemplateSyntaxError as exc:
        raise InputError(f"template syntax: {exc.message}", Loc(path, exc.lineno or 0)) from None


def _new_catalog(game: Game, domain: str) -> Catalog:
    return Catalog(project=f"{game.name} ({domain})", version=None, copyright_holder=", ".join(game.file.authors),
                   charset="utf-8", creation_date=FIXED_DATE, revision_date=FIXED_DATE, fuzzy=False,
                   header_comment=f"# {game.name}: {domain} messages, in {game.file.language} (the source language).\n"
                                  f"# Extracted by `cardgen i18n extract` from card_data/, versions/ and templates/.")


def _add(catalog: Catalog, seen: dict, project: Project, msgid: str, plural: str | None, loc: Loc,
         note: str) -> None:
    key = msgid if plural is None else (msgid, plural)
    where = (_relative(project, loc.file), loc.line)
    existing = catalog.get(msgid)
    if existing is None:
        catalog.add(key, locations=[where], auto_comments=[note],
                    flags=("python-format",) if "%(" in msgid else ())
        return
    if where not in existing.locations:
        existing.locations.append(where)
    if note not in existing.auto_comments and len(existing.auto_comments) < 3:
        existing.auto_comments.append(note)


def _relative(project: Project, path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(project.root.resolve()))
    except ValueError:
        return str(path)
