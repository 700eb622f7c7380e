"""What differs between two resolved snapshots, as plain data that every output format reads.

Everything is compared on the resolved snapshots, never on the version files, so a diff between
any two versions (3 -> 3.1, 1 -> 3, even 3 -> 2) says what a player would notice. The core
knows nothing about a game: labels, enum sentences and card-type names come from game.yml, and
values are shown through the game's own declarations (`value_text`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from ..data import cardtext
from ..data.model import Claim, ValueSpec, claim_key
from ..data.snapshot import Card, Effect, Snapshot
from ..errors import Loc

TABLE_SUFFIXES = (".csv", ".xlsx")
CARD_BUILTINS = {"name": "Name", "type": "Type", "count": "Copies", "art": "Art", "flavour": "Flavour"}
SYMBOL_FIELDS = {
    "name": "Name", "kind": "Kind", "colour": "Colour", "icon": "Icon", "rarity": "Rarity",
    "inert": "Inert (no effects)", "any": "Stands for any", "description": "Description",
}


@dataclass(frozen=True)
class Change:
    """One value that differs: raw values for scripts, `*_text` as people read them."""

    key: str
    label: str
    old: Any
    new: Any
    old_text: str
    new_text: str
    detail: str | None = None  # e.g. "adds Upgrade" for lists


@dataclass(frozen=True)
class EffectRow:
    """An effect row added, removed or changed; texts are the card's generated sentences."""

    change: str  # "added" | "removed" | "changed"
    old: dict | None
    new: dict | None
    old_text: str | None
    new_text: str | None


@dataclass(frozen=True)
class CardInfo:
    """A card that is only in one of the versions."""

    id: str
    name: str
    type: str
    type_label: str
    deck: str
    count: int
    fields: list[tuple[str, str]]  # (label, value text) of the game's declared fields
    effects: list[str]
    source: str | None = None  # the spreadsheet row that defines it, for a card kept in a table


@dataclass(frozen=True)
class CardChange:
    id: str
    name: str
    type: str
    type_label: str
    deck: str
    fields: list[Change]
    effects: list[EffectRow]
    source: str | None = None  # the spreadsheet row the change comes from, for a card kept in a table


@dataclass(frozen=True)
class SymbolChange:
    id: str
    name: str
    status: str  # "added" | "removed" | "changed"
    fields: list[Change]


@dataclass(frozen=True)
class DeckCount:
    id: str
    name: str
    old_cards: int
    new_cards: int
    old_different: int
    new_different: int


@dataclass(frozen=True)
class SymbolCount:
    id: str
    name: str
    old: int
    new: int


@dataclass
class VersionDiff:
    game: str
    game_name: str
    old: Snapshot
    new: Snapshot
    rules: list[Change] = field(default_factory=list)
    style: list[Change] = field(default_factory=list)
    symbols: list[SymbolChange] = field(default_factory=list)
    added: list[CardInfo] = field(default_factory=list)
    removed: list[CardInfo] = field(default_factory=list)
    changed: list[CardChange] = field(default_factory=list)
    deck_counts: list[DeckCount] = field(default_factory=list)
    symbol_counts: list[SymbolCount] = field(default_factory=list)
    reprint: list[str] = field(default_factory=list)  # ids of new cards whose printed face differs
    notes: list[tuple[str, list[str]]] = field(default_factory=list)  # (version, change notes)
    claims: list[Change] = field(default_factory=list)  # detail: "added" | "removed" | "changed"

    @property
    def identical(self) -> bool:
        """No difference a player could see (the designer's notes and claims do not count)."""
        return not any([self.rules, self.style, self.symbols, self.added, self.removed, self.changed,
                        self.deck_counts, self.symbol_counts, self.reprint])


def compare(old: Snapshot, new: Snapshot, reprint: list[str]) -> VersionDiff:
    """The differences from `old` to `new`; `reprint` comes from `faces.changed_card_ids`."""
    diff = VersionDiff(new.game.id, new.game.name, old, new, reprint=reprint)
    diff.rules = _rules(old, new)
    diff.style = _style(old, new)
    diff.symbols = _symbols(old, new)
    old_cards = {c.id: c for c in old.cards}
    new_cards = {c.id: c for c in new.cards}
    diff.added = [card_info(new, c) for c in in_deck_order(new) if c.id not in old_cards]
    diff.removed = [card_info(old, c) for c in in_deck_order(old) if c.id not in new_cards]
    for card in in_deck_order(new):
        if card.id in old_cards:
            change = _card_change(old, old_cards[card.id], new, card)
            if change.fields or change.effects:
                diff.changed.append(change)
    diff.deck_counts = _deck_counts(old, new)
    diff.symbol_counts = _symbol_counts(old, new)
    diff.notes = _notes(old, new)
    diff.claims = _claims(old, new)
    return diff


def _claims(old: Snapshot, new: Snapshot) -> list[Change]:
    """The designer's claims added, withdrawn or changed, matched by their key (model.claim_key)."""
    before = {claim_key(c): c for c in old.claims}
    after = {claim_key(c): c for c in new.claims}
    changes = []
    for key in list(before) + [k for k in after if k not in before]:
        a, b = before.get(key), after.get(key)
        if a == b:
            continue
        status = "added" if a is None else "removed" if b is None else "changed"
        changes.append(Change(key, key, _claim_data(a), _claim_data(b), claim_text(old, a), claim_text(new, b),
                              status))
    return changes


def _claim_data(claim: Claim | None) -> dict | None:
    return None if claim is None else claim.model_dump(exclude_defaults=True)


def claim_text(snapshot: Snapshot, claim: Claim | None) -> str:
    """'The Mine: 60 cards ("60 metal cards")', 'Steel: 20 cards, 1/3 of The Mine'."""
    if claim is None:
        return "(none)"
    deck = snapshot.game.decks[claim.deck].name if claim.deck in snapshot.game.decks else claim.deck
    symbol = snapshot.symbols[claim.symbol].name or claim.symbol if claim.symbol in snapshot.symbols else claim.symbol
    counts = []
    if claim.total is not None:
        counts.append(f"{claim.total} cards")
    if claim.count is not None:
        counts.append(f"{claim.count} cards")
    if claim.share is not None:
        counts.append(f"{claim.share} of {deck}")
    says = f' ("{claim.says}")' if claim.says else ""
    return f"{symbol or deck or claim.id}: {', '.join(counts) or 'no count'}{says}"


def in_deck_order(snapshot: Snapshot) -> list[Card]:
    """Cards grouped by deck in the game's deck order, keeping the data's order within a deck."""
    decks = list(snapshot.game.decks)
    types = snapshot.game.card_types

    def rank(card: Card) -> int:
        deck = types[card.type].deck if card.type in types else None
        return decks.index(deck) if deck in decks else len(decks)

    return sorted(snapshot.cards, key=rank)


# --- values as people read them ---------------------------------------------------------------


def value_text(snapshot: Snapshot, spec: ValueSpec | None, value: Any) -> str:
    """A value through its declaration: an enum's sentence, a symbol's or card type's name."""
    if value is None or value == []:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    kind = spec.type if spec else None
    if spec is not None and kind == "enum" and spec.values:
        return spec.values.get(value, str(value))
    if kind == "list" or isinstance(value, list):
        item_kind = spec.of if spec else None
        return ", ".join(_item_text(snapshot, item_kind, v) for v in value)
    return _item_text(snapshot, kind, value)


def _item_text(snapshot: Snapshot, kind: str | None, value: Any) -> str:
    if kind == "card_type" and value in snapshot.game.card_types:
        return snapshot.game.card_types[value].label
    if kind == "symbol" and value in snapshot.symbols:
        return snapshot.symbols[value].name or str(value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _change(key: str, label: str, old_snap: Snapshot, new_snap: Snapshot, spec: ValueSpec | None,
            old: Any, new: Any) -> Change:
    detail = None
    if isinstance(old, list) and isinstance(new, list):
        item_kind = spec.of if spec else None
        gone = [_item_text(old_snap, item_kind, v) for v in old if v not in new]
        came = [_item_text(new_snap, item_kind, v) for v in new if v not in old]
        detail = "; ".join(part for part in (
            f"adds {', '.join(came)}" if came else "", f"removes {', '.join(gone)}" if gone else "") if part) or None
    return Change(key, label, old, new, value_text(old_snap, spec, old), value_text(new_snap, spec, new), detail)


# --- sections ---------------------------------------------------------------------------------


def _rules(old: Snapshot, new: Snapshot) -> list[Change]:
    specs = new.game.rule_specs
    keys = list(specs) + sorted((set(old.rules) | set(new.rules)) - set(specs))
    changes = []
    for key in keys:
        before, after = old.rules.get(key), new.rules.get(key)
        if before != after:
            spec = specs.get(key)
            changes.append(_change(key, (spec.label if spec else None) or key, old, new, spec, before, after))
    return changes


def _style(old: Snapshot, new: Snapshot) -> list[Change]:
    return [
        _change(key, key, old, new, None, old.style.get(key), new.style.get(key))
        for key in sorted(set(old.style) | set(new.style))
        if old.style.get(key) != new.style.get(key)
    ]


def _symbols(old: Snapshot, new: Snapshot) -> list[SymbolChange]:
    changes = []
    for sid in list(new.symbols) + [s for s in old.symbols if s not in new.symbols]:
        before, after = old.symbols.get(sid), new.symbols.get(sid)
        either = after or before
        assert either is not None  # sid comes from one of the two
        name = either.name or sid
        if before is None or after is None:
            status = "added" if before is None else "removed"
            changes.append(SymbolChange(sid, name, status, []))
            continue
        fields = [
            _change(key, label, old, new, None, getattr(before, key), getattr(after, key))
            for key, label in SYMBOL_FIELDS.items()
            if getattr(before, key) != getattr(after, key)
        ]
        if fields:
            changes.append(SymbolChange(sid, name, "changed", fields))
    return changes


def _field_specs(snapshot: Snapshot, card: Card) -> dict[str, ValueSpec]:
    ctype = snapshot.game.card_types.get(card.type)
    return dict(ctype.fields) if ctype else {}


def card_info(snapshot: Snapshot, card: Card) -> CardInfo:
    ctype = snapshot.game.card_types.get(card.type)
    specs = _field_specs(snapshot, card)
    fields = [(spec.label or key, value_text(snapshot, spec, card.fields.get(key)))
              for key, spec in specs.items() if key in card.fields]
    return CardInfo(card.id, card.name, card.type, ctype.label if ctype else card.type,
                    ctype.deck if ctype else "", card.count, fields,
                    [cardtext.effect_plain(snapshot, e) for e in card.effects],
                    table_row(card, ["id", *card.field_locs]))


def _card_change(old_snap: Snapshot, old: Card, new_snap: Snapshot, new: Card) -> CardChange:
    fields = []
    for key, label in CARD_BUILTINS.items():
        before, after = getattr(old, key), getattr(new, key)
        if before != after:
            spec = ValueSpec(type="card_type") if key == "type" else None
            fields.append(_change(key, label, old_snap, new_snap, spec, before, after))
    old_specs, new_specs = _field_specs(old_snap, old), _field_specs(new_snap, new)
    for key in list(new_specs) + sorted((set(old.fields) | set(new.fields)) - set(new_specs)):
        before, after = old.fields.get(key), new.fields.get(key)
        if before != after:
            spec = new_specs.get(key) or old_specs.get(key)
            fields.append(_change(key, (spec.label if spec else None) or key, old_snap, new_snap, spec,
                                  before, after))
    ctype = new_snap.game.card_types.get(new.type)
    effects = effect_rows(old_snap, old.effects, new_snap, new.effects)
    changed_keys = [c.key for c in fields] + (["effects"] if effects else [])
    return CardChange(new.id, new.name, new.type, ctype.label if ctype else new.type, ctype.deck if ctype else "",
                      fields, effects, table_row(new, changed_keys))


def table_row(card: Card, keys: list[str]) -> str | None:
    """`cards.xlsx, sheet Hilts, row 7` when one of `keys` got its value from a spreadsheet row."""
    for key in keys:
        loc = card.field_locs.get(key)
        if loc is not None and loc.file.suffix.lower() in TABLE_SUFFIXES:
            return str(Loc(loc.file, loc.line, 0, loc.sheet))
    return None


def effect_rows(old_snap: Snapshot, old: list[Effect], new_snap: Snapshot, new: list[Effect]) -> list[EffectRow]:
    """Effect rows added, removed or changed, in the order the new card prints them.

    Identical rows are matched first (longest common subsequence, so reordering around them
    reads naturally); of the rest, rows with the same trigger (`when`) are paired as "changed"
    ("the Orcish row now does X"), then rows with the same effect kind ("+1 point moved from
    Steel to Orcish"); whatever is left was added or removed.
    """
    old_keys = [_row_key(old_snap, e) for e in old]
    new_keys = [_row_key(new_snap, e) for e in new]
    left_old: list[int] = []
    left_new: list[int] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(a=old_keys, b=new_keys, autojunk=False).get_opcodes():
        if tag != "equal":
            left_old += range(i1, i2)
            left_new += range(j1, j2)
    pairs = []
    for attr in ("when", "do"):
        for j in list(left_new):
            i = next((i for i in left_old if getattr(old[i], attr) == getattr(new[j], attr)), None)
            if i is not None:
                pairs.append((i, j))
                left_old.remove(i)
                left_new.remove(j)
    placed = [(j, 1, _row("changed", old_snap, old[i], new_snap, new[j])) for i, j in pairs]
    placed += [(i, 0, _row("removed", old_snap, old[i], new_snap, None)) for i in left_old]
    placed += [(j, 1, _row("added", old_snap, None, new_snap, new[j])) for j in left_new]
    return [row for _, _, row in sorted(placed, key=lambda p: (p[0], p[1]))]


def _row_key(snapshot: Snapshot, effect: Effect) -> tuple:
    return (effect.when, effect.do, tuple(sorted(effect.params.items())), cardtext.effect_plain(snapshot, effect))


def _row(change: str, old_snap: Snapshot, old: Effect | None, new_snap: Snapshot, new: Effect | None) -> EffectRow:
    return EffectRow(
        change,
        _effect_data(old), _effect_data(new),
        cardtext.effect_plain(old_snap, old) if old else None,
        cardtext.effect_plain(new_snap, new) if new else None,
    )


def _effect_data(effect: Effect | None) -> dict | None:
    if effect is None:
        return None
    return {"when": effect.when, "do": effect.do, **effect.params}


def _deck_counts(old: Snapshot, new: Snapshot) -> list[DeckCount]:
    counts = []
    for did, deck in new.game.decks.items():
        entry = DeckCount(did, deck.name, old.deck_size(did), new.deck_size(did),
                          len(old.cards_in_deck(did)), len(new.cards_in_deck(did)))
        if (entry.old_cards, entry.old_different) != (entry.new_cards, entry.new_different):
            counts.append(entry)
    return counts


def _symbol_counts(old: Snapshot, new: Snapshot) -> list[SymbolCount]:
    counts = []
    for sid in list(new.symbols) + [s for s in old.symbols if s not in new.symbols]:
        before, after = old.symbol_count(sid), new.symbol_count(sid)
        if before != after:
            sym = new.symbols.get(sid) or old.symbols[sid]
            counts.append(SymbolCount(sid, sym.name or sid, before, after))
    return counts


def _notes(old: Snapshot, new: Snapshot) -> list[tuple[str, list[str]]]:
    """The designer's change notes of every version on the way from `old` to `new`.

    Those are the versions in the newer one's chain that the older one does not include: for
    2 -> 3 the notes of 3; for 1 -> 3 those of 2 and 3; going back (3 -> 2) there are none.
    """
    seen = {info.id for info in old.chain}
    return [(info.id, list(info.notes.changes)) for info in new.chain
            if info.id not in seen and info.notes.changes]
