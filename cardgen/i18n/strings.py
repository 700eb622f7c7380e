"""Which strings of a game's data are words a translator translates, and where each was written.

One walk over a resolved snapshot yields every translatable string as an `Item`: its domain
(`cards`: what is printed on components; `rulebook`: what only the rulebook prints), the text,
its source file:line and a setter that puts a translation in its place. Extraction uses the
text and location, `localise` the setter, so the two can never disagree about what is
translatable. Ids, icons, colours, numbers, fields of type `str` (codes) and quoted playtest
feedback (kept in the language it was given in) are not translated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..data import yamlsource
from ..data.model import PluralText, ValueSpec
from ..data.snapshot import Snapshot
from ..errors import Loc

CARDS, RULEBOOK = "cards", "rulebook"
DOMAINS = (CARDS, RULEBOOK)


@dataclass
class Item:
    domain: str
    msgid: str
    loc: Loc
    note: str  # for the translator: what the string is ("card hilt-serpent: name")
    set: Callable[[str], None] | None = None
    plural: str | None = None  # a plural sentence: msgid is the singular, this the plural


def _setattr(obj: Any, name: str) -> Callable[[str], None]:
    return lambda value: setattr(obj, name, value)


def _setitem(obj: Any, key: Any) -> Callable[[str], None]:
    def put(value: str) -> None:
        obj[key] = value
    return put


def items(snapshot: Snapshot) -> Iterator[Item]:
    """Every translatable string of the game file and of the resolved version, in file order."""
    yield from _game_items(snapshot)
    yield from _version_items(snapshot)


def _game_items(snapshot: Snapshot) -> Iterator[Item]:
    gf, doc = snapshot.game.file, snapshot.game.source
    yield Item(CARDS, gf.name, doc.loc("name"), "game name", _setattr(gf, "name"))
    if gf.tagline:
        yield Item(RULEBOOK, gf.tagline, doc.loc("tagline"), "game tagline", _setattr(gf, "tagline"))
    for i, line in enumerate(gf.credits):
        yield Item(RULEBOOK, line, doc.loc("credits", i), "credits", _setitem(gf.credits, i))
    for tid, ctype in gf.card_types.items():
        yield Item(CARDS, ctype.label, doc.loc("card_types", tid, "label"), f"card type {tid}: label",
                   _setattr(ctype, "label"))
        if ctype.plural:
            yield Item(RULEBOOK, ctype.plural, doc.loc("card_types", tid, "plural"), f"card type {tid}: plural",
                       _setattr(ctype, "plural"))
        for fname, spec in ctype.fields.items():
            yield from _spec_items(spec, doc, ("card_types", tid, "fields", fname), f"field {tid}.{fname}")
    for did, deck in gf.decks.items():
        yield Item(CARDS, deck.name, doc.loc("decks", did, "name"), f"deck {did}: name", _setattr(deck, "name"))
    for kid, kind in gf.effects.items():
        where = ("effects", kid)
        yield Item(RULEBOOK, kind.summary, doc.loc(*where, "summary"), f"effect {kid}: summary",
                   _setattr(kind, "summary"))
        if isinstance(kind.text, PluralText):
            yield Item(CARDS, kind.text.one, doc.loc(*where, "text", "one"),
                       f"effect {kid}: printed sentence (Jinja2: keep {{{{ ... }}}} as they are)",
                       plural=kind.text.other)
        else:
            yield Item(CARDS, kind.text, doc.loc(*where, "text"),
                       f"effect {kid}: printed sentence (Jinja2: keep {{{{ ... }}}} as they are)",
                       _setattr(kind, "text"))
    for rid, spec in gf.rules.items():
        yield from _spec_items(spec, doc, ("rules", rid), f"rule {rid}")


def _spec_items(spec: ValueSpec, doc, where: tuple, what: str) -> Iterator[Item]:
    if spec.label:
        yield Item(RULEBOOK, spec.label, doc.loc(*where, "label"), f"{what}: label", _setattr(spec, "label"))
    if spec.description:
        yield Item(RULEBOOK, spec.description, doc.loc(*where, "description"), f"{what}: description",
                   _setattr(spec, "description"))
    for key, sentence in (spec.values or {}).items():
        yield Item(RULEBOOK, sentence, doc.loc(*where, "values", key), f"{what}: value {key}",
                   _setitem(spec.values, key))
    if spec.open_question:  # printed in the designer's notes, in the build's language
        yield Item(RULEBOOK, spec.open_question, doc.loc(*where, "open_question"), f"{what}: open question",
                   _setattr(spec, "open_question"))


def _is_text(spec: ValueSpec | None) -> bool:
    return spec is not None and (spec.type == "text" or (spec.type == "list" and spec.of == "text"))


def _text_values(value: Any, loc: Loc, domain: str, note: str, holder: Any, key: Any) -> Iterator[Item]:
    if isinstance(value, str) and value:
        yield Item(domain, value, loc, note, _setitem(holder, key))
    elif isinstance(value, list):
        for i, line in enumerate(value):
            if isinstance(line, str) and line:
                yield Item(domain, line, loc, note, _setitem(value, i))


def _version_items(snapshot: Snapshot) -> Iterator[Item]:
    game = snapshot.game
    for sid, sym in snapshot.symbols.items():
        loc = snapshot.symbol_locs.get(sid, Loc(game.dir))
        for attr in ("name", "description", "rarity"):
            if getattr(sym, attr):
                yield Item(CARDS, getattr(sym, attr), loc, f"symbol {sid}: {attr}", _setattr(sym, attr))
    for rid, spec in game.rule_specs.items():
        if _is_text(spec) and rid in snapshot.rules:
            yield from _text_values(snapshot.rules[rid], snapshot.rule_locs[rid], RULEBOOK, f"rule {rid}: value",
                                    snapshot.rules, rid)
    for card in snapshot.cards:
        yield Item(CARDS, card.name, card.loc_of("name"), f"card {card.id}: name", _setattr(card, "name"))
        if card.flavour:
            yield Item(CARDS, card.flavour, card.loc_of("flavour"), f"card {card.id}: flavour",
                       _setattr(card, "flavour"))
        specs = game.card_types[card.type].fields if card.type in game.card_types else {}
        for fname, value in card.fields.items():
            if _is_text(specs.get(fname)):
                yield from _text_values(value, card.loc_of(fname), CARDS, f"card {card.id}: {fname}",
                                        card.fields, fname)
    if snapshot.setup is not None:
        for area in ("shared", "players"):
            for place in getattr(snapshot.setup, area):
                loc = snapshot.setup_locs.get((area, place.id), Loc(game.dir))
                if place.label:
                    yield Item(CARDS, place.label, loc, f"set-up place {place.id}: label", _setattr(place, "label"))
                if place.step:
                    yield Item(RULEBOOK, place.step, loc, f"set-up place {place.id}: step", _setattr(place, "step"))
    for info in snapshot.chain:
        doc = _version_doc(info.file)
        for attr in ("title", "summary"):
            if getattr(info, attr):
                yield Item(RULEBOOK, getattr(info, attr), doc.loc(attr), f"version {info.id}: {attr}",
                           _setattr(info, attr))
        for part in ("changes", "choices", "problems"):
            lines = getattr(info.notes, part)
            for i, line in enumerate(lines):
                yield Item(RULEBOOK, line, doc.loc("notes", part, i), f"version {info.id}: notes, {part}",
                           _setitem(lines, i))


def _version_doc(path) -> yamlsource.YamlDocument:
    return yamlsource.load(path)
