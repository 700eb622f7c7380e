"""How complete each language is: a fresh extraction compared with each language's catalogs.

A message is untranslated when its catalog lacks it or leaves it empty, outdated when its
translation is marked fuzzy (the source changed since it was translated: `i18n update` marks
it). A language is complete when it has neither. Obsolete messages (in a catalog but no longer
in the data) are listed but do not make a language incomplete.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from babel.messages.catalog import Catalog

from ..data.snapshot import Game
from .catalogs import po_path, read


@dataclass
class Entry:
    msgid: str
    where: str  # first source location, file:line


@dataclass
class DomainStatus:
    domain: str
    exists: bool
    total: int = 0
    translated: int = 0
    untranslated: list[Entry] = field(default_factory=list)
    outdated: list[Entry] = field(default_factory=list)
    obsolete: int = 0

    @property
    def complete(self) -> bool:
        return self.exists and not self.untranslated and not self.outdated


@dataclass
class LanguageStatus:
    lang: str
    domains: list[DomainStatus]

    @property
    def complete(self) -> bool:
        """Every catalog the language has is complete (a domain it has no catalog for is not offered)."""
        present = [d for d in self.domains if d.exists]
        return bool(present) and all(d.complete for d in present)

    @property
    def percent(self) -> float:
        present = [d for d in self.domains if d.exists]
        total = sum(d.total for d in present)
        return 100.0 * sum(d.translated for d in present) / total if total else 100.0


def language_status(game: Game, lang: str, templates: dict[str, Catalog]) -> LanguageStatus:
    domains = []
    for domain, template in templates.items():
        path = po_path(game, lang, domain)
        status = DomainStatus(domain, path.is_file())
        messages = [m for m in template if m.id]
        status.total = len(messages)
        if status.exists:
            catalog = read(path, lang)
            for message in messages:
                key = message.id[0] if isinstance(message.id, tuple) else message.id
                found = catalog.get(key)
                entry = Entry(key, _where(message))
                strings = found.string if found is not None else None
                forms = list(strings) if isinstance(strings, (list, tuple)) else [strings]
                if found is None or not all(forms):
                    status.untranslated.append(entry)
                elif found.fuzzy:
                    status.outdated.append(entry)
                else:
                    status.translated += 1
            wanted = {m.id[0] if isinstance(m.id, tuple) else m.id for m in messages}
            status.obsolete = sum(1 for m in catalog if m.id and
                                  (m.id[0] if isinstance(m.id, tuple) else m.id) not in wanted)
        domains.append(status)
    return LanguageStatus(lang, domains)


def _where(message) -> str:
    if not message.locations:
        return "?"
    file, line = message.locations[0]
    return f"{file}:{line}" if line else str(file)
