"""`cardgen validate`: check a version's data; exit 0 clean (warnings allowed), 1 problems, 2 unusable."""

from __future__ import annotations

import json

import click

from ..cardstage import draw_cards
from ..words import counted
from .common import format_option, game_option, lang_option, snapshot_from, version_option


@click.command(name="validate")
@game_option
@version_option
@lang_option
@format_option
@click.option("--strict", is_flag=True, help="Treat warnings as problems (exit 1).")
@click.pass_context
def command(ctx, game, version, lang, fmt, strict):
    """Check a game version: references, counts, rules, the game's own checks, and the print
    preflight of every rendered card (safe zone, borders, overlap, contrast)."""
    project, snapshot = snapshot_from(ctx, game, version, lang)
    from ..rulebook.check import build_findings  # the documents' templates too, as build renders them

    # the card stage of `build` (its findings, preflight included), then the documents' templates
    findings = build_findings(project, snapshot, draw_cards(project, snapshot))
    errors = [f for f in findings if f.severity == "error"]
    warnings = [f for f in findings if f.severity == "warning"]
    if fmt == "json":
        click.echo(json.dumps({
            "game": snapshot.game.id,
            "version": snapshot.version,
            "errors": len(errors),
            "warnings": len(warnings),
            "findings": [f.to_json() for f in findings],
        }, indent=2, ensure_ascii=False))
    else:
        for f in findings:
            click.echo(str(f), err=False)
        total = sum(c.count for c in snapshot.cards)
        click.echo(
            f"{snapshot.game.name} {snapshot.version}: {counted(len(snapshot.cards), 'different card')}, {total} printed; "
            f"{counted(len(errors), 'error')}, {counted(len(warnings), 'warning')}"
        )
    ctx.exit(1 if errors or (strict and warnings) else 0)

