"""`cardgen build`: card images, print-and-play sheets and the rulebook of one version."""

from __future__ import annotations

import time
from pathlib import Path

import click

from ..buildtypes import PAPER_NAMES, BuildOptions, Timing
from ..console import progress_for
from ..errors import InputError, display_path
from ..pipeline import build
from ..render.workers import worker_count
from .common import game_option, lang_option, parse_offset, snapshot_from, version_option


@click.command(name="build")
@game_option
@version_option
@lang_option
@click.option("--paper", type=click.Choice(["a4", "letter", "both"]), default="both", show_default=True,
              help="Paper size of the sheets and the rulebook.")
@click.option("--fronts-only", is_flag=True, help="Sheets without back pages (no duplex printing).")
@click.option("--no-png", is_flag=True, help="Skip the 300 DPI PNG of every card.")
@click.option("--no-rulebook", is_flag=True, help="Skip the rulebook and the designer's notes.")
@click.option("--booklet", is_flag=True,
              help="Also write the rulebook as a booklet: A5 pages two up on A4 (half-Letter on Letter), "
                   "in saddle-stitch order for duplex printing (rulebook-booklet-<paper>.pdf).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder. Default: build/<game>/<version>/.")
@click.option("--only-changed-since", "since", default=None, metavar="VERSION",
              help="Update pack: sheets holding only cards new or changed since VERSION.")
@click.option("--duplex-offset", "duplex_offset", callback=lambda c, p, v: parse_offset(v), default=None,
              metavar="X,Y", help="Shift every duplex back page by X,Y mm (x right, y up as you look at the "
                                  "back), as measured with `cardgen calibrate`. Default: printer.duplex_offset_mm "
                                  "in cardgen.yml, else 0,0.")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None, help="Parallel render processes (default: all cores).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary, only problems.")
@click.option("--strict", is_flag=True, help="Treat warnings as problems: build nothing and exit 1 (for CI).")
@click.option("--timings", is_flag=True, help="Print how long each stage took (also with --quiet).")
@click.pass_context
def command(ctx, game, version, lang, paper, fronts_only, no_png, no_rulebook, booklet, out_dir, since, duplex_offset,
            jobs, quiet, strict, timings):
    """Build card images, print sheets (A4 and Letter, bleed, crop marks, duplex backs) and the rulebook."""
    _check_booklet(booklet, no_rulebook, since)
    started = time.perf_counter()
    project, snapshot = snapshot_from(ctx, game, version, lang)
    old = None
    if since is not None:
        from ..data.versions import resolve

        old = resolve(project, snapshot.game, since)
    loaded = time.perf_counter()
    options = BuildOptions(
        papers=PAPER_NAMES if paper == "both" else (paper,),
        duplex=not fronts_only,
        png=not no_png,
        out_dir=out_dir,
        workers=jobs,
        changed_since=old,
        rulebook=not no_rulebook and old is None,
        notes=not no_rulebook and old is None,
        booklet=booklet,
        back_offset_mm=duplex_offset if duplex_offset is not None else project.config.printer.duplex_offset_mm,
        strict=strict,
    )
    result = build(project, snapshot, options, progress_for(quiet))
    elapsed = time.perf_counter() - started
    for finding in result.findings:  # each says its own severity: `file:line:col: warning: ...`
        click.echo(str(finding), err=True)
    for remark in result.remarks:
        click.echo(f"warning: {remark}", err=True)
    if not quiet:
        _summary(snapshot, result, options, since, elapsed)
    if timings:
        stages = [Timing("load", loaded - started, "project, game and version files")] + result.timings
        for line in timing_lines(stages, elapsed, worker_count(jobs)):
            click.echo(line)


def _summary(snapshot, result, options: BuildOptions, since: str | None, elapsed: float) -> None:
    only = result.only_cards
    printed = sum(c.count for c in snapshot.cards if only is None or c.id in only)
    click.echo(f"{snapshot.game.name} {snapshot.version} ({snapshot.language}): {printed} cards to print, {result.faces} different "
               f"faces and backs ({result.rendered} rendered, {result.faces - result.rendered} from cache) "
               f"in {elapsed:.1f}s")
    if only is not None:
        click.echo(f"update pack since {since}: {len(only)} new or changed card(s): {', '.join(sorted(only)) or 'none'}")
    for out in result.outputs:
        state = "" if out.rebuilt else " (unchanged)"
        paper_count = f" = {out.sheets} sheets of paper" if out.sheets is not None else ""
        click.echo(f"  {display_path(out.path)}  {out.what}, {out.pages} pages{paper_count}{state}")
        for line in out.details:
            click.echo(f"      {line}")
    if any(o.sheets is not None for o in result.outputs):
        offset = options.back_offset_mm
        click.echo(f"  print sheets at 100 % (actual size); duplex backs shifted by {offset[0]:g},{offset[1]:g} mm "
                   "(measure yours: cardgen calibrate)")
    click.echo(_text_fit(snapshot.language, result.shrunk, result.faces))
    if options.png:
        click.echo(f"  {display_path(result.out_dir / 'png')}/  card images, 300 DPI with bleed")
    click.echo(f"  {display_path(result.out_dir / 'svg')}/  card faces and backs as SVG")


def _text_fit(lang: str, shrunk: dict[str, float], faces: int) -> str:
    """The per-language text-fit report: faces whose text had to shrink below its normal size."""
    if not shrunk:
        return f"text fit ({lang}): every text at its normal size"
    worst = sorted(shrunk.items(), key=lambda kv: (kv[1], kv[0]))
    listed = ", ".join(f"{_name(face)} {ratio:.0%}" for face, ratio in worst[:8])
    more = f", and {len(worst) - 8} more" if len(worst) > 8 else ""
    return (f"text fit ({lang}): {len(shrunk)} of {faces} faces print text below its normal size "
            f"(smallest size / normal): {listed}{more}")


def _name(face: str) -> str:
    """"card 'rapier'" -> "rapier"; "back of deck 'mine'" -> "back of deck mine"."""
    return face[5:].strip("'") if face.startswith("card '") else face.replace("'", "")


def timing_lines(stages: list[Timing], elapsed: float, workers: int) -> list[str]:
    """The --timings table: one line per stage, then the wall-clock total.

    Rulebook layout runs in worker processes at the same time as the card renders and the
    sheets, so with several workers the stages add up to more than the total.
    """
    width = max(len(t.stage) for t in stages)
    lines = ["stage times:"]
    lines += [f"  {t.stage:<{width}}  {t.seconds:6.2f} s" + (f"   {t.detail}" if t.detail else "") for t in stages]
    overlap = f", stages overlapping on {workers} worker processes" if workers > 1 else ""
    lines.append(f"  {'total':<{width}}  {elapsed:6.2f} s   wall clock{overlap}")
    return lines


def _check_booklet(booklet: bool, no_rulebook: bool, since: str | None) -> None:
    """The booklet is the rulebook imposed for folding: asking for it without a rulebook is a
    contradiction to point out, not a request to ignore."""
    if booklet and no_rulebook:
        raise InputError("--booklet needs the rulebook: drop --no-rulebook (or --booklet)")
    if booklet and since is not None:
        raise InputError(f"--booklet: an update pack (--only-changed-since {since}) prints only cards, "
                         "no rulebook to fold; build the booklet without --only-changed-since")
