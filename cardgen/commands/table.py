"""`cardgen table export`: a version's cards as a spreadsheet that a version's `table:` reads back."""

from __future__ import annotations

from pathlib import Path

import click

from ..atomic import write_bytes
from ..errors import display_path
from ..outputs import open_output_file
from ..words import counted
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
    # a new table may be written beside the versions (to be named by `table:`); an existing
    # source never, another file of the user's only with --force
    with open_output_file(project, target, "table export", new_in_data=True, force_option="--force", force=force):
        write_bytes(target, table_bytes(snapshot, target))
    total = sum(c.count for c in snapshot.cards)
    click.echo(f"wrote {display_path(target)}: {counted(len(snapshot.cards), 'card')} ({total} with copies)", err=True)
