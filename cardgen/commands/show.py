"""`cardgen show`: the resolved snapshot of a version, for people (text) and scripts (json)."""

from __future__ import annotations

import json

import click

from ..data.describe import describe
from ..words import counted
from .common import format_option, game_option, lang_option, snapshot_from, version_option


@click.command(name="show")
@game_option
@version_option
@lang_option
@format_option
@click.pass_context
def command(ctx, game, version, lang, fmt):
    """Show what a version is: rules, symbols with counts, every card with its text."""
    _, snapshot = snapshot_from(ctx, game, version, lang)
    data = describe(snapshot)
    if fmt == "json":
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    click.echo(as_text(snapshot, data))


def as_text(snapshot, data) -> str:
    game = snapshot.game
    lines = [f"{data['name']} - {data['title'] or 'version ' + data['version']}"]
    if data["extends"]:
        lines.append(f"  extends: {' -> '.join(data['extends'])}")
    lines.append("")
    lines.append("Rules")
    for key, value in data["rules"].items():
        spec = game.rule_specs[key]
        shown = _rule_value(spec, value)
        lines.append(f"  {spec.label or key}: {shown}")
    lines.append("")
    lines.append("Symbols")
    for sid, sym in data["symbols"].items():
        extra = f" x{sym['count']}" if sym["count"] else ""
        colour = f" {sym['colour']}" if sym.get("colour") else ""
        inert = " (no effects)" if sym.get("inert") else ""
        lines.append(f"  {sym.get('name', sid)}{extra}{colour}{inert}")
    for did, deck in data["decks"].items():
        lines.append("")
        lines.append(f"{deck['name']}: {counted(deck['cards'], 'card')} ({deck['different']} different)")
        for card in data["cards"]:
            if card["deck"] != did:
                continue
            stats = " ".join(f"{k}={v}" for k, v in card["fields"].items())
            lines.append(f"  {card['count']:>2} x {card['name']} [{card['type']}] {stats}".rstrip())
            for effect in card["effects"]:
                lines.append(f"        {effect['text']}")
    return "\n".join(lines)


def _rule_value(spec, value) -> str:
    if value is None or value == []:
        return "none"
    if spec.type == "enum" and spec.values:
        return f"{value} - {spec.values.get(value, '')}"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    return str(value)
