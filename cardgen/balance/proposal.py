"""The proposed version file: `extends:` the version the search started from, holding only the
changed values and one `notes.choices` entry per change saying which run proposed it.

Strings are written as JSON strings (valid YAML): the same result gives the same bytes. An effect
amount is written as the card's whole effect list, the smallest unit an override replaces.
"""

from __future__ import annotations

import json
from typing import Any

from ..data.cardvalues import parse_path, with_values
from ..data.snapshot import Snapshot


def changes(current: dict[str, Any], best: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"value": k, "from": current[k], "to": best[k]} for k in current if best[k] != current[k]]


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _effect(e) -> str:
    items = ([("when", e.when)] if e.when is not None else []) + [("do", e.do)] + list(e.params.items())
    return "{" + ", ".join(f"{k}: {_scalar(v)}" for k, v in items) + "}"


def version_text(snapshot: Snapshot, found: list[dict[str, Any]], proposed_by: str, why: str) -> str:
    """The YAML of the proposed version (`found`: changes(), non-empty)."""
    changed = with_values(snapshot, [(c["value"], c["to"]) for c in found])
    by_card: dict[str, dict[str, Any]] = {}
    for c in found:
        path = parse_path(snapshot, c["value"])
        card = changed.card(path.card)
        fields = by_card.setdefault(path.card, {})
        if path.effect is not None:
            fields["effects"] = card.effects
        else:
            fields[path.name] = c["to"]
    lines = [f"# Proposed by {proposed_by}", f"extends: {_scalar(snapshot.version)}",
             f"title: {_scalar(f'{snapshot.info.title or snapshot.version} (balance proposal)')}", "", "override:"]
    for card_id in sorted(by_card):
        lines.append(f"  - id: {card_id}")
        for key, value in by_card[card_id].items():
            if key == "effects":
                lines.append("    effects:")
                lines += [f"      - {_effect(e)}" for e in value]
            else:
                lines.append(f"    {key}: {_scalar(value)}")
    lines += ["", "notes:", "  choices:"]
    for c in found:
        lines.append("    - " + _scalar(f"{c['value']}: {c['from']} -> {c['to']}, proposed by {proposed_by} ({why})."))
    return "\n".join(lines) + "\n"
