"""The translation stage: a resolved snapshot -> the same snapshot in another language.

Every translatable string (`strings.items`) is replaced by its translation; plural sentences
stay in both source forms and are chosen when a card is printed (`cardtext`), by the target
language's own plural rule. Numbers, ids and structure are untouched, so the validator, the
rulebook and the exports read the same data in any language.
"""

from __future__ import annotations

import copy

from ..data.snapshot import Snapshot
from .catalogs import check_language, translator_for
from .strings import items


def localise(snapshot: Snapshot, lang: str | None = None) -> Snapshot:
    """`snapshot` in `lang` (default: the game's source language), with its translator attached."""
    source = snapshot.game.file.language
    lang = check_language(lang or source)
    translator = translator_for(snapshot.game, lang)
    result = copy.deepcopy(snapshot) if lang != source else copy.copy(snapshot)
    if lang != source:
        for item in items(result):
            if item.domain not in translator.domains:
                continue
            if item.plural is not None:  # chosen when printed; probe it now to know whether it is missing
                translator.ngettext(item.msgid, item.plural, 1)
            elif item.set is not None:
                item.set(translator.gettext(item.msgid))
            if item.msgid in translator.missing:
                translator.missing_locs.setdefault(item.msgid, item.loc)
        result.remarks = [*result.remarks, *translator.remarks]  # the catalogs' warnings, for validate
    result.lang = lang
    result.translator = translator
    return result
