"""The resolved snapshot of one game version: plain data that every later stage reads.

Loading and version resolution produce a `Snapshot`; the validator, the card renderer, the
rulebook, the diff and the exports all read it and nothing else, so they cannot disagree.
A `Snapshot` is frozen: a stage that wants another one (a translation, other rules) makes a
copy with `dataclasses.replace`, and what a stage finds is its own result, never written into it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Loc
from .model import CardType, Claim, Deck, EffectKind, GameFile, Notes, Setup, Size, Symbol, ValueSpec
from .translator import Translation

NAMED_SIZES = {
    "poker": Size(width_mm=63, height_mm=88),
    "bridge": Size(width_mm=57, height_mm=89),
    "tarot": Size(width_mm=70, height_mm=120),
    "mini": Size(width_mm=44, height_mm=63),
    "jumbo": Size(width_mm=88, height_mm=126),
    "square": Size(width_mm=70, height_mm=70),
}


@dataclass
class Effect:
    do: str
    when: str | None
    params: dict[str, Any]
    loc: Loc


@dataclass
class Card:
    id: str
    type: str
    name: str
    count: int
    art: str | None
    flavour: str | None
    effects: list[Effect]
    fields: dict[str, Any]
    note: str | None
    loc: Loc  # where the card was defined
    field_locs: dict[str, Loc] = field(default_factory=dict)  # where each field got its value
    changed_in: str = ""  # version that last defined or changed the card
    row: Loc | None = None  # the spreadsheet row (a version's `table:`) that last added or changed it

    def value(self, name: str) -> Any:
        """A card field by name, the built-in ones included (for templates and checks)."""
        if name in ("id", "type", "name", "count", "art", "flavour", "note"):
            return getattr(self, name)
        return self.fields.get(name)

    def loc_of(self, name: str) -> Loc:
        return self.field_locs.get(name, self.loc)

    @property
    def where(self) -> Loc:
        """Where a finding about the card as a whole points: the spreadsheet row a designer
        edits when a table last changed the card, else the YAML that defines it."""
        return self.row or self.loc

    def from_row(self, name: str) -> bool:
        """Does field `name` get its value from the spreadsheet row that last changed the card?"""
        loc = self.field_locs.get(name)
        return (self.row is not None and loc is not None
                and (loc.file, loc.line, loc.sheet) == (self.row.file, self.row.line, self.row.sheet))


@dataclass
class VersionInfo:
    id: str
    file: Path
    extends: str | None
    title: str | None
    date: str | None
    summary: str | None
    notes: Notes


@dataclass
class Game:
    id: str
    dir: Path
    file: GameFile
    source: Any  # the yamlsource.YamlDocument of game.yml, for locations

    @property
    def name(self) -> str:
        return self.file.name

    @property
    def card_types(self) -> dict[str, CardType]:
        return self.file.card_types

    @property
    def decks(self) -> dict[str, Deck]:
        return self.file.decks

    @property
    def effect_kinds(self) -> dict[str, EffectKind]:
        return self.file.effects

    @property
    def rule_specs(self) -> dict[str, ValueSpec]:
        return self.file.rules

    def size_of(self, type_id: str) -> Size:
        ref = self.card_types[type_id].size or self.file.card_size
        if isinstance(ref, Size):
            return ref
        return self.file.sizes.get(ref) or NAMED_SIZES[ref]


@dataclass(frozen=True)
class Snapshot:
    game: Game
    version: str
    chain: list[VersionInfo]  # oldest first; the last one is this version
    rules: dict[str, Any]
    rule_locs: dict[str, Loc]
    style: dict[str, Any]
    symbols: dict[str, Symbol]
    symbol_locs: dict[str, Loc]
    cards: list[Card]
    claims: list[Claim]
    claim_locs: list[Loc]
    unused_decks: dict[str, Loc] = field(default_factory=dict)  # this version's own `unused_decks`
    # what resolving the versions noticed (a card overridden twice in one file...): the
    # validator reports these with its own findings
    remarks: list[Any] = field(default_factory=list)
    # the set-up in force (game.yml's, changed place by place by the versions) and where each
    # place is written: ("shared" | "players", place id) -> Loc; None = the game declares none
    setup: Setup | None = None
    setup_locs: dict[tuple[str, str], Loc] = field(default_factory=dict)
    language: str = ""  # the language of every printed string; "" (on creation) = the game's source language
    translation: Translation | None = None  # its words from the game's catalogs (i18n.localise); None: the source

    def __post_init__(self) -> None:
        if not self.language:
            object.__setattr__(self, "language", self.game.file.language)

    @property
    def info(self) -> VersionInfo:
        return self.chain[-1]

    def card(self, card_id: str) -> Card:
        for c in self.cards:
            if c.id == card_id:
                return c
        raise KeyError(card_id)

    def cards_of_type(self, type_id: str) -> list[Card]:
        return [c for c in self.cards if c.type == type_id]

    def cards_in_deck(self, deck_id: str) -> list[Card]:
        types = {t for t, spec in self.game.card_types.items() if spec.deck == deck_id}
        return [c for c in self.cards if c.type in types]

    def deck_size(self, deck_id: str) -> int:
        return sum(c.count for c in self.cards_in_deck(deck_id))

    def symbol_count(self, symbol_id: str, field_name: str | None = None) -> int:
        """How many printed cards carry `symbol_id` in a symbol-typed field."""
        total = 0
        for c in self.cards:
            specs = self.game.card_types[c.type].fields if c.type in self.game.card_types else {}
            for name, spec in specs.items():
                if spec.type == "symbol" and (field_name in (None, name)) and c.fields.get(name) == symbol_id:
                    total += c.count
        return total
