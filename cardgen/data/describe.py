"""A snapshot as plain JSON-ready data: for `cardgen show`, the diff and scripts.

Stable key order and no file paths, so that two builds of the same data describe identically.
"""

from __future__ import annotations

from typing import Any

from . import cardtext
from .snapshot import Card, Snapshot


def describe(snapshot: Snapshot) -> dict[str, Any]:
    game = snapshot.game
    return {
        "game": game.id,
        "name": game.name,
        "version": snapshot.version,
        "title": snapshot.info.title,
        "extends": [v.id for v in snapshot.chain[:-1]],
        "players": {"min": game.file.players.min, "max": game.file.players.max},
        "rules": {key: snapshot.rules.get(key) for key in game.rule_specs if key in snapshot.rules},
        "style": dict(sorted(snapshot.style.items())),
        "symbols": {sid: describe_symbol(snapshot, sid) for sid in snapshot.symbols},
        "decks": {
            did: {"name": deck.name, "cards": snapshot.deck_size(did),
                  "different": len(snapshot.cards_in_deck(did))}
            for did, deck in game.decks.items()
        },
        "cards": [describe_card(snapshot, c) for c in snapshot.cards],
        "total_cards": sum(c.count for c in snapshot.cards),
    }


def describe_symbol(snapshot: Snapshot, sid: str) -> dict[str, Any]:
    sym = snapshot.symbols[sid]
    data = {k: v for k, v in sym.model_dump().items() if v is not None}
    data["count"] = snapshot.symbol_count(sid)
    return data


def describe_card(snapshot: Snapshot, card: Card) -> dict[str, Any]:
    ctype = snapshot.game.card_types.get(card.type)
    return {
        "id": card.id,
        "type": card.type,
        "deck": ctype.deck if ctype else None,
        "name": card.name,
        "count": card.count,
        "art": card.art,
        "fields": dict(card.fields),
        "effects": [
            {"when": e.when, "do": e.do, **e.params, "text": cardtext.effect_plain(snapshot, e)}
            for e in card.effects
        ],
        "text": cardtext.card_plain(snapshot, card),
        "changed_in": card.changed_in,
    }
