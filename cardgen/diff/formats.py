"""A VersionDiff as text for a terminal, Markdown for release notes, and JSON for scripts.

All three list the same sections in the same order (rules, style, symbols, cards added,
removed and changed, deck counts); the JSON structure is documented in docs/diff.md and its
keys are sorted, so the same two versions always give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from ..words import counted
from .compare import CardInfo, Change, EffectRow, VersionDiff


def version_label(snapshot) -> str:
    title = snapshot.info.title
    return f"{title} ({snapshot.version})" if title and snapshot.version not in title else (
        title or f"version {snapshot.version}")


# --- JSON -------------------------------------------------------------------------------------


def as_json(diff: VersionDiff) -> str:
    data = {
        "game": diff.game,
        "name": diff.game_name,
        "old": {"version": diff.old.version, "title": diff.old.info.title},
        "new": {"version": diff.new.version, "title": diff.new.info.title},
        "identical": diff.identical,
        "rules": [_change_json(c) for c in diff.rules],
        "style": [_change_json(c) for c in diff.style],
        "symbols": [{"id": s.id, "name": s.name, "status": s.status, "fields": [_change_json(c) for c in s.fields]}
                    for s in diff.symbols],
        "cards": {
            "added": [_card_json(c) for c in diff.added],
            "removed": [_card_json(c) for c in diff.removed],
            "changed": [
                {"id": c.id, "name": c.name, "type": c.type, "type_label": c.type_label, "deck": c.deck,
                 "fields": [_change_json(f) for f in c.fields],
                 "effects": [_row_json(r) for r in c.effects], "source": c.source}
                for c in diff.changed
            ],
        },
        "counts": {
            "decks": [{"id": d.id, "name": d.name,
                       "old": {"cards": d.old_cards, "different": d.old_different},
                       "new": {"cards": d.new_cards, "different": d.new_different}} for d in diff.deck_counts],
            "symbols": [{"id": s.id, "name": s.name, "old": s.old, "new": s.new} for s in diff.symbol_counts],
        },
        "claims": [_change_json(c) for c in diff.claims],
        "reprint": list(diff.reprint),
        "notes": [{"version": v, "changes": notes} for v, notes in diff.notes],
    }
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _change_json(c: Change) -> dict[str, Any]:
    return {"key": c.key, "label": c.label, "old": c.old, "new": c.new,
            "old_text": c.old_text, "new_text": c.new_text, "detail": c.detail}


def _row_json(r: EffectRow) -> dict[str, Any]:
    return {"change": r.change, "old": r.old, "new": r.new, "old_text": r.old_text, "new_text": r.new_text}


def _card_json(c: CardInfo) -> dict[str, Any]:
    return {"id": c.id, "name": c.name, "type": c.type, "type_label": c.type_label, "deck": c.deck, "count": c.count,
            "fields": [{"label": label, "value": value} for label, value in c.fields], "effects": c.effects,
            "source": c.source}


# --- text and Markdown ------------------------------------------------------------------------


class _Style:
    """How the two human formats mark things: ANSI colours for text, emphasis for Markdown."""

    def __init__(self, markdown: bool):
        self.md = markdown
        self.arrow = " → " if markdown else " -> "

    def heading(self, text: str) -> str:
        return f"## {text}" if self.md else click.style(text, bold=True)

    def item(self, text: str, depth: int = 0) -> str:
        return ("  " * depth + "- " + text) if self.md else ("  " * (depth + 1) + text)

    def name(self, text: str) -> str:
        return f"**{text}**" if self.md else click.style(text, bold=True)

    def old(self, text: str) -> str:
        return text if self.md else click.style(text, fg="red")

    def new(self, text: str) -> str:
        return text if self.md else click.style(text, fg="green")

    def change(self, c: Change) -> str:
        line = f"{self.name(c.label) if self.md else c.label}: {self.old(c.old_text)}{self.arrow}{self.new(c.new_text)}"
        return line + (f" ({c.detail})" if c.detail else "")


def as_text(diff: VersionDiff) -> str:
    """Coloured with click.style; click.echo strips the colours when they are not wanted."""
    return _render(diff, _Style(markdown=False))


def as_markdown(diff: VersionDiff) -> str:
    return _render(diff, _Style(markdown=True))


def _render(diff: VersionDiff, s: _Style) -> str:
    old, new = version_label(diff.old), version_label(diff.new)
    lines = [f"# {diff.game_name}: {old}{s.arrow}{new}" if s.md
             else click.style(f"{diff.game_name}: {old}{s.arrow}{new}", bold=True)]
    if diff.identical and not diff.claims:
        lines += ["", "No differences."]
    for version, notes in diff.notes:
        lines += ["", s.heading(f"Designer's change notes ({version})")]
        lines += [""] if s.md else []
        lines += [f"> - {note}" if s.md else s.item(note) for note in notes]  # one quoted item each
    _section(lines, s, "Rules", [s.item(s.change(c)) for c in diff.rules])
    _section(lines, s, "Style", [s.item(s.change(c)) for c in diff.style])
    _section(lines, s, "Symbols", _symbol_lines(diff, s))
    _section(lines, s, "Cards added", [line for c in diff.added for line in _card_lines(c, s, s.new)])
    _section(lines, s, "Cards removed", [line for c in diff.removed for line in _card_lines(c, s, s.old, brief=True)])
    _section(lines, s, "Cards changed", _changed_lines(diff, s))
    _section(lines, s, "Deck counts", _count_lines(diff, s))
    _section(lines, s, "Claims", [s.item(s.change(c)) for c in diff.claims])
    if diff.reprint:
        since = f"cardgen build --version {diff.new.version} --only-changed-since {diff.old.version}"
        faces = counted(len(diff.reprint), "card face differs and needs", "card faces differ and need")
        lines += ["", f"{faces} printing again: "
                      f"{'`' + since + '`' if s.md else since} prints just those."]
    return "\n".join(lines) + "\n"


def _section(lines: list[str], s: _Style, title: str, body: list[str]) -> None:
    if body:
        lines += ["", s.heading(title)] + ([""] if s.md else []) + body


def _symbol_lines(diff: VersionDiff, s: _Style) -> list[str]:
    lines = []
    for sym in diff.symbols:
        if sym.status != "changed":
            mark = s.new if sym.status == "added" else s.old
            lines.append(s.item(f"{s.name(sym.name)}: {mark(sym.status)}"))
            continue
        lines.append(s.item(s.name(sym.name)))
        lines += [s.item(s.change(c), 1) for c in sym.fields]
    return lines


def _card_lines(card: CardInfo, s: _Style, mark: Callable[[str], str], brief: bool = False) -> list[str]:
    copies = f", x{card.count}" if card.count != 1 else ""
    source = f" [{card.source}]" if card.source and not brief else ""
    head = s.item(f"{s.name(mark(card.name))} ({card.type_label}{copies}){source}")
    if brief:
        return [head]
    details = [f"{label} {value}" for label, value in card.fields] + card.effects
    return [head] + [s.item(d, 1) for d in details]


def _changed_lines(diff: VersionDiff, s: _Style) -> list[str]:
    lines = []
    for card in diff.changed:
        source = f" [{card.source}]" if card.source else ""
        lines.append(s.item(f"{s.name(card.name)} ({card.type_label}){source}"))
        lines += [s.item(s.change(c), 1) for c in card.fields]
        lines += [s.item(_row_text(r, s), 1) for r in card.effects]
    return lines


def _row_text(row: EffectRow, s: _Style) -> str:
    if row.change == "added":
        return f"Effect added: {s.new(row.new_text or '')}"
    if row.change == "removed":
        return f"Effect removed: {s.old(row.old_text or '')}"
    return f"Effect changed: {s.old(row.old_text or '')}{s.arrow}{s.new(row.new_text or '')}"


def _count_lines(diff: VersionDiff, s: _Style) -> list[str]:
    lines = []
    for d in diff.deck_counts:
        text = f"{s.name(d.name)}: {s.old(str(d.old_cards))}{s.arrow}{s.new(str(d.new_cards))} cards"
        if d.old_different != d.new_different:
            text += f" ({d.old_different}{s.arrow}{d.new_different} different)"
        lines.append(s.item(text))
    for c in diff.symbol_counts:
        lines.append(s.item(f"{s.name(c.name)}: {s.old(str(c.old))}{s.arrow}{s.new(str(c.new))} cards"))
    return lines
