"""The translation stage: a resolved snapshot -> the same snapshot in another language.

Every translatable string (`strings.items`) is replaced by its translation; plural sentences
stay in both source forms and are chosen when a card is printed (`cardtext`), by the target
language's own plural rule. Numbers, ids and structure are untouched, so the validator, the
rulebook and the exports read the same data in any language.
"""

from __future__ import annotations

import copy
import dataclasses

from ..data.snapshot import Snapshot
from ..errors import Loc
from .catalogs import check_language, translator_for
from .strings import items


def localise(snapshot: Snapshot, lang: str | None = None) -> Snapshot:
    """A copy of `snapshot` in `lang` (default: the game's source language), carrying its words
    (`Snapshot.translation`, plain data) and the strings of its data the catalogs lack."""
    source = snapshot.game.file.language
    lang = check_language(lang or source)
    translator = translator_for(snapshot.game, lang)
    if lang == source:
        return dataclasses.replace(snapshot, language=lang, translation=None)
    result = copy.deepcopy(snapshot)
    missing: dict[str, Loc | None] = {}
    for item in items(result):
        if item.domain not in translator.domains:
            continue
        if item.plural is not None:  # chosen when printed; probe it now to know whether it is missing
            translator.ngettext(item.msgid, item.plural, 1)
        elif item.set is not None:
            item.set(translator.gettext(item.msgid))
        if item.msgid in translator.missing:
            missing.setdefault(item.msgid, item.loc)
    return dataclasses.replace(result, language=lang, translation=translator.translation(missing),
                               remarks=[*result.remarks, *translator.remarks])  # the catalogs' warnings
