"""`cardgen diff A B`: what changed between two versions, for people, release notes and scripts."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ..atomic import write_text
from ..console import progress_for
from ..data.versions import load_game, resolve
from ..errors import display_path
from ..outputs import check_output_file, open_output_file
from .common import game_option, project_from

FORMATS = ["text", "markdown", "json", "html"]


@click.command(name="diff")
@click.argument("old")
@click.argument("new")
@game_option
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: coloured for a terminal; markdown: release notes; json: for scripts; "
                   "html: one self-contained page with old and new card images.")
@click.option("--exit-code", is_flag=True,
              help="Exit 1 if the versions differ, 0 if they are the same (like git diff).")
@click.option("--out", "out_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file instead of standard output.")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None,
              help="Parallel render processes for --format html (default: all cores).")
@click.pass_context
def command(ctx, old, new, game, fmt, exit_code, out_file, jobs):
    """Compare versions OLD and NEW (e.g. `cardgen diff 2 3`; v3, V3 and 3 are the same).

    Shows rule, style and symbol changes, cards added, removed and changed (each field and
    effect row old -> new), deck counts, the designer's change notes, and how many card
    faces must be printed again.
    """
    from ..diff import diff_versions
    from ..diff.formats import as_json, as_markdown, as_text

    project = project_from(ctx)
    if out_file is not None:  # refuse a source or a file of the user's before any work, not after
        check_output_file(project, out_file)
    g = load_game(project, game)
    diff = diff_versions(project, resolve(project, g, old), resolve(project, g, new))
    if fmt == "html":
        from ..diff.html import as_html

        output = as_html(project, diff, workers=jobs, progress=progress_for(quiet=False))
    else:
        output = {"text": as_text, "markdown": as_markdown, "json": as_json}[fmt](diff)
    if out_file is not None:
        with open_output_file(project, out_file, "diff") as target:
            write_text(target, click.unstyle(output))
        click.echo(f"wrote {display_path(out_file)}", err=True)
    else:
        colour = fmt == "text" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        click.echo(output, nl=False, color=colour)
    ctx.exit(1 if exit_code and not diff.identical else 0)
