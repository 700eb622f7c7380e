"""A card's numeric values named by a path, and a snapshot with some of them changed.

A path is `CARD.FIELD` (a numeric field the card's type declares in game.yml, or `count`) or
`CARD.effects.N.PARAM` (the card's N-th effect, counted from 1, and a numeric parameter its effect
kind declares). `cardgen balance` varies these values; a changed value is applied to a copy of the
resolved snapshot, so the project's files are never touched and every later stage (the
simulation's rules engine) reads the changed value as data.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, Loc
from ..words import counted
from .model import ValueSpec
from .snapshot import Card, Snapshot

NUMERIC = ("int", "number")
COUNT_SPEC = ValueSpec(type="int", min=1, max=10_000)  # count 0 would remove the card: not a value to search


@dataclass(frozen=True)
class ValuePath:
    text: str  # as the user wrote it, e.g. katana-hilt.effects.1.amount
    card: str
    name: str  # the field or effect parameter
    effect: int | None  # index into card.effects (0-based), None for a card field
    spec: ValueSpec
    spec_loc: Loc | None  # where game.yml declares the field or parameter


def parse_path(snapshot: Snapshot, text: str) -> ValuePath:
    """The value `text` names in this version, or an InputError naming what exists instead."""
    card_id, _, rest = text.partition(".")
    ids = [c.id for c in snapshot.cards]
    if card_id not in ids:
        near = [i for i in ids if card_id and (card_id in i or i in card_id)]
        hint = f" (did you mean {', '.join(near[:3])}?)" if near else ""
        raise InputError(f"'{text}': no card '{card_id}' in {snapshot.game.name} {snapshot.version}{hint}")
    card = snapshot.card(card_id)
    parts = rest.split(".") if rest else []
    if len(parts) == 3 and parts[0] == "effects":
        return _effect_path(snapshot, card, text, parts[1], parts[2])
    if len(parts) == 1:
        name = parts[0]
        if name == "count":
            return ValuePath(text, card.id, name, None, COUNT_SPEC, None)
        fields = snapshot.game.card_types[card.type].fields
        spec = fields.get(name)
        if spec is not None and spec.type in NUMERIC:
            loc = snapshot.game.source.loc("card_types", card.type, "fields", name)
            return ValuePath(text, card.id, name, None, spec, loc)
    raise InputError(f"'{text}': expected one of {', '.join(numeric_paths(snapshot, card))}", card.loc)


def _effect_path(snapshot: Snapshot, card: Card, text: str, number: str, param: str) -> ValuePath:
    if not number.isdigit() or not 1 <= int(number) <= len(card.effects):
        raise InputError(f"'{text}': card '{card.id}' has {counted(len(card.effects), 'effect')}; expected effects.1 to "
                         f"effects.{len(card.effects)}", card.loc_of("effects"))
    index = int(number) - 1
    effect = card.effects[index]
    kind = snapshot.game.effect_kinds.get(effect.do)
    spec = kind.params.get(param) if kind is not None else None
    if spec is None or spec.type not in NUMERIC or param not in effect.params:
        raise InputError(f"'{text}': expected one of {', '.join(numeric_paths(snapshot, card))}", effect.loc)
    loc = snapshot.game.source.loc("effects", effect.do, "params", param)
    return ValuePath(text, card.id, param, index, spec, loc)


def numeric_paths(snapshot: Snapshot, card: Card) -> list[str]:
    """Every value of `card` a path can name."""
    fields = snapshot.game.card_types[card.type].fields
    paths = [f"{card.id}.{name}" for name, spec in fields.items() if spec.type in NUMERIC]
    paths.append(f"{card.id}.count")
    for i, effect in enumerate(card.effects, start=1):
        kind = snapshot.game.effect_kinds.get(effect.do)
        params = kind.params if kind is not None else {}
        paths += [f"{card.id}.effects.{i}.{p}" for p, spec in params.items()
                  if spec.type in NUMERIC and p in effect.params]
    return paths


def current_value(snapshot: Snapshot, path: ValuePath) -> Any:
    card = snapshot.card(path.card)
    if path.effect is not None:
        return card.effects[path.effect].params.get(path.name)
    return card.count if path.name == "count" else card.fields.get(path.name)


def with_values(snapshot: Snapshot, values: Iterable[tuple[str, Any]]) -> Snapshot:
    """A copy of `snapshot` with these values changed; the cards it does not change are shared."""
    values = list(values)
    if not values:
        return snapshot
    cards = list(snapshot.cards)
    for text, value in values:
        path = parse_path(snapshot, text)
        i = next(i for i, c in enumerate(cards) if c.id == path.card)
        card = cards[i] if cards[i] is not snapshot.cards[i] else copy.deepcopy(cards[i])
        if path.effect is not None:
            card.effects[path.effect].params[path.name] = value
        elif path.name == "count":
            card.count = value
        else:
            card.fields[path.name] = value
        cards[i] = card
    return dataclasses.replace(snapshot, cards=cards)
