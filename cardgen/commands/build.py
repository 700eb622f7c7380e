"""`cardgen build`: card images, print-and-play sheets and the rulebook of one version."""

from __future__ import annotations

import time
from pathlib import Path

import click

from ..buildtypes import CUTTER_NAMES, PAPER_NAMES, BuildOptions, Timing
from ..console import progress_for
from ..errors import InputError, display_path
from ..files import BuildFiles, booklet_name, cutlines_name, sheets_name
from ..outputs import clear_stale_lock
from ..words import counted
from .common import (
    force_option,
    game_option,
    lang_option,
    parse_offset,
    project_from,
    root_from,
    snapshot_from,
    version_option,
)


@click.command(name="build")
@game_option
@version_option
@lang_option
@click.option("--paper", type=click.Choice(["a4", "letter", "both"]), default="both", show_default=True,
              help="Paper size of the sheets and the rulebook.")
@click.option("--fronts-only", is_flag=True, help="Sheets without back pages (no duplex printing).")
@click.option("--no-png", is_flag=True, help="Skip the 300 DPI PNG of every card.")
@click.option("--no-rulebook", is_flag=True, help="Skip the rulebook and the designer's notes.")
@click.option("--notes-paper", type=click.Choice(["a4", "letter", "both"]), default=None,
              help="Paper size of the designer's notes. Default: the rulebook's (--paper).")
@click.option("--booklet", is_flag=True,
              help="Also write the rulebook as a booklet: A5 pages two up on A4 (half-Letter on Letter), "
                   f"in saddle-stitch order for duplex printing ({booklet_name('<paper>')}).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder. Default: build/<game>/<version>/.")
@click.option("--only-changed-since", "since", default=None, metavar="VERSION",
              help="Update pack: sheets holding only cards new or changed since VERSION.")
@click.option("--duplex-offset", "duplex_offset", callback=lambda c, p, v: parse_offset(v), default=None,
              metavar="X,Y", help="Shift every duplex back page by X,Y mm (x right, y up as you look at the "
                                  "back), as measured with `cardgen calibrate`. Default: printer.duplex_offset_mm "
                                  "in cardgen.yml, else 0,0.")
@click.option("--cuts", type=click.Choice(["forgiving", "dense"]), default="forgiving", show_default=True,
              help="forgiving: every cut keeps at least 1 mm of bleed on both sides, so a cut a hair off "
                   "its marks shows no other colour; dense: neighbours may share a cut, for more cards a "
                   "sheet (cut exactly on the marks).")
@click.option("--cutter", type=click.Choice(CUTTER_NAMES), default=None,
              help="Also write sheets for a print-and-cut machine, with its registration marks "
                   f"({sheets_name('<paper>', '<mode>', '<cutter>')}), and the cut file "
                   f"({cutlines_name('<paper>', '<cutter>')}); "
                   "see docs/printing.md.")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None, help="Parallel render processes (default: all cores).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary, only problems.")
@click.option("--strict", is_flag=True, help="Treat warnings as problems: build nothing and exit 1 (for CI).")
@click.option("--timings", is_flag=True, help="Print how long each stage took (also with --quiet).")
@force_option
@click.pass_context
def command(ctx, game, version, lang, paper, fronts_only, no_png, no_rulebook, notes_paper, booklet, out_dir, since,
            duplex_offset, cuts, cutter, jobs, quiet, strict, timings, force):
    """Build card images, print sheets (A4 and Letter, bleed, crop marks, duplex backs) and the rulebook."""
    from .. import buildstamp
    from ..data.folders import DEFAULT_BUILD_DIR, cache_dir, source_paths

    _check_booklet(booklet, no_rulebook, since)
    _check_notes_paper(notes_paper, no_rulebook, since)
    started = time.perf_counter()
    # what changes the files written (not --jobs, --quiet, --timings): the key of the build stamp
    written = {"game": game, "version": version, "lang": lang, "paper": paper, "fronts_only": fronts_only,
               "no_png": no_png, "no_rulebook": no_rulebook, "notes_paper": notes_paper, "booklet": booklet,
               "since": since,
               "out": str(out_dir.resolve()) if out_dir else None, "duplex_offset": duplex_offset,
               "strict": strict, "cuts": cuts, "cutter": cutter}
    # Nothing is loaded before the stamp is looked at: where the project keeps its build folder
    # under the default name, a rebuild with nothing changed imports neither the data model nor a
    # renderer. A project naming another build_dir finds its stamp once cardgen.yml is loaded.
    root = root_from(ctx)
    digest = buildstamp.fingerprint(root, source_paths(root), written) if root is not None else None
    # --force is no input of the files but a request to look at them again: never "up to date"
    report = None
    if root is not None and digest is not None and not force:
        report = buildstamp.recall(root, cache_dir(root / DEFAULT_BUILD_DIR), written, digest)
    project = None
    if report is None:
        if root is not None:
            _start_early(root, written, jobs, no_rulebook or since is not None)
        project = project_from(ctx)
        if digest is not None and not force and project.cache_dir != cache_dir(project.root / DEFAULT_BUILD_DIR):
            report = buildstamp.recall(project.root, project.cache_dir, written, digest)
    if report is not None:  # every input as at the last build, and its files untouched
        clear_stale_lock(Path(report["out_dir"]))  # one a killed build left: nothing holds it, remove it
        _print_report(report, quiet, rebuilt=False, elapsed=time.perf_counter() - started)
        if timings:
            elapsed = time.perf_counter() - started
            click.echo("stage times:")
            click.echo(f"  up to date  {elapsed:6.2f} s   every input and output as the last build left them "
                       "(nothing loaded, rendered or written)")
        return
    assert project is not None  # loaded above whenever no stamp answered
    report = _build(ctx, project, game, version, lang, paper, fronts_only, no_png, no_rulebook, booklet, out_dir,
                    since, duplex_offset, jobs, quiet, strict, timings, force, started, cuts=cuts, cutter=cutter,
                    notes_paper=notes_paper)
    report["replaced"] = []  # said once: a rebuild that finds nothing to do replaced nothing
    if digest is not None:
        buildstamp.remember(project.root, project.cache_dir, written, digest, Path(report["out_dir"]), report)


def _start_early(root: Path, written: dict, jobs: int | None, no_rulebook: bool) -> None:
    """On a first build with these options, start the fork server before anything is loaded.

    Its imports (cairo, weasyprint) then run on another core while this process imports the
    data model and loads, validates and draws the cards, and the workers are ready for the first
    face. A build made before with these options (a stamp exists, however stale) may render
    nothing: there the pipeline starts its pool when it first needs one, as before.
    """
    from .. import buildstamp
    from ..data.folders import DEFAULT_BUILD_DIR, cache_dir
    from ..render.workers import LAYOUT_PRELOAD, RASTER_PRELOAD, import_pdf_stack, start_fork_server, worker_count

    if worker_count(jobs) < 2 or buildstamp.stamp_path(root, cache_dir(root / DEFAULT_BUILD_DIR), written).is_file():
        return
    import_pdf_stack()
    start_fork_server(RASTER_PRELOAD if no_rulebook else LAYOUT_PRELOAD)


def _build(ctx, project, game, version, lang, paper, fronts_only, no_png, no_rulebook, booklet, out_dir, since,
           duplex_offset, jobs, quiet, strict, timings, force, started, *, cuts: str, cutter: str | None,
           notes_paper: str | None) -> dict:
    """The build itself; returns its report (plain data, kept by the build stamp)."""
    from ..pipeline import build
    from ..render.workers import worker_count

    project, snapshot = snapshot_from(ctx, game, version, lang, project=project)
    old = None
    if since is not None:
        from ..data.versions import resolve

        old = resolve(project, snapshot.game, since)
    loaded = time.perf_counter()
    options = BuildOptions(
        papers=_papers(paper),
        duplex=not fronts_only,
        png=not no_png,
        out_dir=out_dir,
        workers=jobs,
        changed_since=old,
        rulebook=not no_rulebook and old is None,
        notes=not no_rulebook and old is None,
        notes_papers=None if notes_paper is None else _papers(notes_paper),
        booklet=booklet,
        back_offset_mm=duplex_offset if duplex_offset is not None else project.config.printer.duplex_offset_mm,
        strict=strict,
        force=force,
        cuts=cuts,
        cutter=cutter,
    )
    result = build(project, snapshot, options, progress_for(quiet))
    elapsed = time.perf_counter() - started
    report = _report(snapshot, result, options, since)
    _print_report(report, quiet, rebuilt=True, elapsed=elapsed)
    if timings:
        stages = [Timing("load", loaded - started, "project, game and version files")] + result.timings
        for line in timing_lines(stages, elapsed, worker_count(jobs)):
            click.echo(line)
    return report


def _report(snapshot, result, options: BuildOptions, since: str | None) -> dict:
    """What `build` tells the user, as plain data: printed now, and again by a rebuild that finds
    nothing changed (cardgen.buildstamp)."""
    only = result.only_cards
    return {
        "problems": [str(finding) for finding in result.findings] + [f"warning: {r}" for r in result.remarks],
        "replaced": [f"warning: {r}" for r in result.replaced],
        "title": f"{snapshot.game.name} {snapshot.version} ({snapshot.language})",
        "printed": sum(c.count for c in snapshot.cards if only is None or c.id in only),
        "faces": result.faces,
        "rendered": result.rendered,
        "only": None if only is None else sorted(only),
        "since": since,
        "outputs": [{"path": str(out.path.resolve()), "what": out.what, "pages": out.pages, "sheets": out.sheets,
                     "details": list(out.details), "rebuilt": out.rebuilt} for out in result.outputs],
        "offset": list(options.back_offset_mm) if any(o.sheets is not None for o in result.outputs) else None,
        "text_fit": _text_fit(snapshot.language, result.shrunk, result.faces),
        "png": str(BuildFiles(result.out_dir).png_dir.resolve()) if options.png else None,
        "svg": str(BuildFiles(result.out_dir).svg_dir.resolve()),
        "out_dir": str(result.out_dir.resolve()),
    }


def _print_report(report: dict, quiet: bool, *, rebuilt: bool, elapsed: float) -> None:
    """Problems on stderr (each says its own severity: `file:line:col: warning: ...`), then,
    unless --quiet, the summary. rebuilt=False: a rebuild that found nothing to do."""
    for line in report["problems"] + report.get("replaced", []):  # a stamp older than "replaced" lacks it
        click.echo(line, err=True)
    if quiet:
        return
    rendered = report["rendered"] if rebuilt else 0
    click.echo(f"{report['title']}: {counted(report['printed'], 'card')} to print, "
               f"{counted(report['faces'], 'different face or back', 'different faces and backs')} "
               f"({rendered} rendered, {report['faces'] - rendered} from cache) in {elapsed:.1f}s")
    if report["only"] is not None:
        click.echo(f"update pack since {report['since']}: {counted(len(report['only']), 'new or changed card')}: "
                   f"{', '.join(report['only']) or 'none'}")
    for out in report["outputs"]:
        state = "" if rebuilt and out["rebuilt"] else " (unchanged)"
        paper_count = f" = {counted(out['sheets'], 'sheet')} of paper" if out["sheets"] is not None else ""
        pages = f", {counted(out['pages'], 'page')}" if out["pages"] else ""  # a cut file has none
        click.echo(f"  {display_path(Path(out['path']))}  {out['what']}{pages}{paper_count}{state}")
        for line in out["details"]:
            click.echo(f"      {line}")
    if report["offset"] is not None:
        x, y = report["offset"]
        click.echo(f"  print sheets at 100 % (actual size); duplex backs shifted by {x:g},{y:g} mm "
                   "(measure yours: cardgen calibrate)")
    click.echo(report["text_fit"])
    if report["png"]:
        click.echo(f"  {display_path(Path(report['png']))}/  card images, 300 DPI with bleed")
    click.echo(f"  {display_path(Path(report['svg']))}/  card faces and backs as SVG")


def _text_fit(lang: str, shrunk: dict[str, float], faces: int) -> str:
    """The per-language text-fit report: faces whose text had to shrink below its normal size."""
    if not shrunk:
        return f"text fit ({lang}): every text at its normal size"
    worst = sorted(shrunk.items(), key=lambda kv: (kv[1], kv[0]))
    listed = ", ".join(f"{_name(face)} {ratio:.0%}" for face, ratio in worst[:8])
    more = f", and {len(worst) - 8} more" if len(worst) > 8 else ""
    return (f"text fit ({lang}): {len(shrunk)} of {counted(faces, 'face')} print{'s' if len(shrunk) == 1 else ''} text below its normal size "
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


def _papers(choice: str) -> tuple[str, ...]:
    """The papers a --paper or --notes-paper choice names ("both": every paper)."""
    return PAPER_NAMES if choice == "both" else (choice,)


def _check_notes_paper(notes_paper: str | None, no_rulebook: bool, since: str | None) -> None:
    """The notes come with the rulebook: a paper for them in a build that makes none is a
    contradiction to point out, as with --booklet."""
    if notes_paper is not None and no_rulebook:
        raise InputError("--notes-paper: --no-rulebook leaves out the designer's notes too; drop one of them")
    if notes_paper is not None and since is not None:
        raise InputError(f"--notes-paper: an update pack (--only-changed-since {since}) prints only cards, "
                         "no designer's notes; build the notes without --only-changed-since")


def _check_booklet(booklet: bool, no_rulebook: bool, since: str | None) -> None:
    """The booklet is the rulebook imposed for folding: asking for it without a rulebook is a
    contradiction to point out, not a request to ignore."""
    if booklet and no_rulebook:
        raise InputError("--booklet needs the rulebook: drop --no-rulebook (or --booklet)")
    if booklet and since is not None:
        raise InputError(f"--booklet: an update pack (--only-changed-since {since}) prints only cards, "
                         "no rulebook to fold; build the booklet without --only-changed-since")
