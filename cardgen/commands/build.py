"""`cardgen build`: card images, print-and-play sheets and the rulebook of one version."""

from __future__ import annotations

import time
from pathlib import Path

import click

from ..buildtypes import PAPER_NAMES, BuildOptions
from ..console import progress_for
from ..errors import display_path
from ..pipeline import build
from .common import game_option, snapshot_from, version_option


@click.command(name="build")
@game_option
@version_option
@click.option("--paper", type=click.Choice(["a4", "letter", "both"]), default="both", show_default=True,
              help="Paper size of the sheets and the rulebook.")
@click.option("--fronts-only", is_flag=True, help="Sheets without back pages (no duplex printing).")
@click.option("--no-png", is_flag=True, help="Skip the 300 DPI PNG of every card.")
@click.option("--no-rulebook", is_flag=True, help="Skip the rulebook.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder. Default: build/<game>/<version>/.")
@click.option("--only-changed-since", "since", default=None, metavar="VERSION",
              help="Update pack: sheets holding only cards new or changed since VERSION.")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None, help="Parallel render processes (default: all cores).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary, only problems.")
@click.option("--strict", is_flag=True, help="Treat warnings as problems: build nothing and exit 1 (for CI).")
@click.pass_context
def command(ctx, game, version, paper, fronts_only, no_png, no_rulebook, out_dir, since, jobs, quiet, strict):
    """Build card images, print sheets (A4 and Letter, bleed, crop marks, duplex backs) and the rulebook."""
    started = time.perf_counter()
    project, snapshot = snapshot_from(ctx, game, version)
    only = None
    if since is not None:
        from ..data.versions import resolve
        from ..diff import changed_card_ids

        only = changed_card_ids(resolve(project, snapshot.game, since), snapshot)
    options = BuildOptions(
        papers=PAPER_NAMES if paper == "both" else (paper,),
        duplex=not fronts_only,
        png=not no_png,
        out_dir=out_dir,
        workers=jobs,
        only_cards=only,
        rulebook=not no_rulebook and only is None,
        strict=strict,
    )
    result = build(project, snapshot, options, progress_for(quiet))
    for finding in result.findings:  # each says its own severity: `file:line:col: warning: ...`
        click.echo(str(finding), err=True)
    for remark in result.remarks:
        click.echo(f"warning: {remark}", err=True)
    if quiet:
        return
    elapsed = time.perf_counter() - started
    printed = sum(c.count for c in snapshot.cards if only is None or c.id in only)
    click.echo(f"{snapshot.game.name} {snapshot.version}: {printed} cards to print, {result.faces} different "
               f"faces and backs ({result.rendered} rendered, {result.faces - result.rendered} from cache) "
               f"in {elapsed:.1f}s")
    if only is not None:
        click.echo(f"update pack since {since}: {len(only)} new or changed card(s): {', '.join(sorted(only)) or 'none'}")
    for out in result.outputs:
        state = "" if out.rebuilt else " (unchanged)"
        click.echo(f"  {display_path(out.path)}  {out.what}, {out.pages} pages{state}")
    if options.png:
        click.echo(f"  {display_path(result.out_dir / 'png')}/  card images, 300 DPI with bleed")
    click.echo(f"  {display_path(result.out_dir / 'svg')}/  card faces and backs as SVG")
