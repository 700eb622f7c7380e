"""`cardgen table export`: a version's cards as a spreadsheet that a version's `table:` reads back."""

from __future__ import annotations

from pathlib import Path

import click

from ..atomic import write_bytes
from ..errors import InputError, display_path
from .common import game_option, snapshot_from, version_option


@click.group(name="table")
def command():
    """Cards kept in a spreadsheet (CSV or XLSX)."""


@command.command(name="export")
@game_option
@version_option
@click.option("--to", "target", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="cards.xlsx (one sheet per deck) or cards.csv (every card).")
@click.option("--force", is_flag=True, help="Replace the file if it exists (never a project source).")
@click.pass_context
def export(ctx, game, version, target, force):
    """Write one row per card: id, type, name, count, each field, effects.

    Edit it, then name it in a version file (`table: cards.xlsx`): its rows add or override
    cards by id, blank cells keep the inherited value and `count: 0` removes a card.
    """
    from ..data.tablewrite import table_bytes

    project, snapshot = snapshot_from(ctx, game, version)
    if target.suffix.lower() not in (".csv", ".xlsx"):
        raise click.BadParameter("expected a file name ending in .csv or .xlsx", param_hint="--to")
    resolved = target.resolve()
    if any(resolved == p.resolve() or resolved.is_relative_to(p.resolve())
           for p in project.source_paths if p.is_dir()) and resolved.exists():
        raise InputError(f"{display_path(target)} is a project source; cardgen never overwrites one "
                         "(export to a new file, then point the version's `table:` at it)")
    if resolved.exists() and not force:
        raise InputError(f"{display_path(target)} exists; pass --force to replace it")
    write_bytes(target, table_bytes(snapshot, target))
    total = sum(c.count for c in snapshot.cards)
    click.echo(f"wrote {display_path(target)}: {len(snapshot.cards)} cards ({total} with copies)", err=True)
