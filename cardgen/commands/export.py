"""`cardgen export tts|png`: a version's cards for Tabletop Simulator or a print service."""

from __future__ import annotations

from pathlib import Path

import click

from ..cardstage import draw_cards
from ..console import progress_for
from ..data.project import check_out_dir
from ..errors import display_path
from ..export.printpng import PRESETS
from ..export.services import for_export
from ..files import of_snapshot, rulebook_name, tts_table_rulebook_dir
from ..outputs import open_output
from ..words import counted
from .common import force_option, game_option, lang_option, snapshot_from, version_option

out_option = click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                          help="Output folder.")
jobs_option = click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None,
                           help="Parallel render processes (default: all cores).")
PDF_SERVICES = for_export("pdf")
quiet_option = click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary, only problems.")


@click.group(name="export")
def command():
    """Export a version's cards for Tabletop Simulator, a print service (PNG) or a print shop (PDF)."""


def _drawn(ctx, game, version, lang=None):
    """The version and its faces from the card stage (`_draw`)."""
    project, snapshot = snapshot_from(ctx, game, version, lang)
    return project, snapshot, _draw(project, snapshot)


def _draw(project, snapshot):
    """The card stage, as `build` runs it: refuse data with errors, show warnings, go on with
    the faces it rendered."""
    return _drawn_stage(project, snapshot).faces()


def _drawn_stage(project, snapshot):
    """`_draw`, returning the whole card stage (for a build that should not draw again)."""
    cards = draw_cards(project, snapshot)
    cards.faces()  # ValidationFailed when a finding is an error
    for finding in cards.findings:  # each says its own severity: `file:line:col: warning: ...`
        click.echo(str(finding), err=True)
    return cards


@command.command(name="tts")
@game_option
@version_option
@lang_option
@out_option
@click.option("--base-url", default=None, metavar="URL",
              help="Where you host the images (URL + file name); default: file:/// paths on this computer.")
@click.option("--install", is_flag=True,
              help="Also copy the decks into Tabletop Simulator's Saved Objects folder, "
                   "in a folder named after the game.")
@click.option("--table", is_flag=True,
              help="Instead: one saved game with the whole table set up (the game's set-up), for each player "
                   "count (default: build/<game>/<version>/tts-table/<game>-<version>-<N>p.json).")
@click.option("--players", type=int, default=None, metavar="N",
              help="With --table: the number of players (default: every number the game allows).")
@jobs_option
@quiet_option
@force_option
@click.pass_context
def tts(ctx, game, version, lang, out_dir, base_url, install, table, players, jobs, quiet, force):
    """Tabletop Simulator saved objects, one per deck, with deck sheet images (default: build/<game>/<version>/tts/)."""
    from ..export.install import file_url, folder_name, install_objects, saved_objects_dir
    from ..export.tts import export_tts, write_objects

    if players is not None and not table:
        raise click.UsageError("--players goes with --table (a set-up table for that many players)")

    def url_in(folder: Path):
        if base_url:
            return lambda name: base_url + ("" if base_url.endswith("/") else "/") + name
        return lambda name: file_url(folder / name)

    if table:
        _tts_table(ctx, game, version, lang, out_dir, url_in, install, players, jobs, quiet, force)
        return
    project, snapshot, rendered = _drawn(ctx, game, version, lang)
    out = check_out_dir(project, out_dir or of_snapshot(project.build_dir, snapshot).tts)

    with open_output(project, out, "export tts", force=force):
        objects = export_tts(project, snapshot, rendered, out, workers=jobs, progress=progress_for(quiet))
        write_objects(objects, snapshot, out, url_in(out))
    target = None
    if install:
        target = saved_objects_dir() / folder_name(snapshot.game.name)
        with open_output(project, target, "export tts --install", force=force):
            install_objects(objects, snapshot, out, target, url_in(target))  # type: ignore[arg-type]  # boards and tokens too
    if quiet:
        return
    for obj in objects:
        if not hasattr(obj, "sheets"):  # a board, tile or token object
            click.echo(f"  {display_path(out / obj.file)}  {obj.name}: {counted(obj.copies, obj.kind)}, "
                       f"{len(obj.pieces)} different")
            continue
        sheets = ", ".join(f"{s.cols}x{s.rows} of {s.cell[0]}x{s.cell[1]} px" for s in obj.sheets)
        click.echo(f"  {display_path(out / obj.file)}  {obj.name}: {counted(len(obj.copies), 'card')}, "  # type: ignore[arg-type]
                   f"{sum(len(s.cards) for s in obj.sheets)} different ({sheets})")
    if target is not None:
        click.echo(f"installed into {target} (Tabletop Simulator: Objects > Saved Objects)")


def _tts_table(ctx, game, version, lang, out_dir, url_in, install, players, jobs, quiet, force):
    """`export tts --table`: the set-up dealt and laid out, one saved game per player count."""
    from ..buildtypes import BuildOptions
    from ..data.setup import allowed_players, check_players
    from ..export.install import folder_name
    from ..export.ttstable import export_table, install_table, saves_dir, write_table_images
    from ..pipeline import build

    project, snapshot = snapshot_from(ctx, game, version, lang)
    counts = list(allowed_players(snapshot)) if players is None else [players]
    for n in counts:
        check_players(snapshot, n)  # one line, before anything is rendered
    cards = _drawn_stage(project, snapshot)
    rendered = cards.faces()
    out = check_out_dir(project, out_dir or of_snapshot(project.build_dir, snapshot).tts_table)
    rulebook = None
    if snapshot.game.file.rulebook:
        # the players' rulebook, built on its own beside the table (never over a build's files)
        options = BuildOptions(papers=("a4",), png=False, sheets=False, notes=False,
                               out_dir=tts_table_rulebook_dir(out), workers=jobs, force=force)
        build(project, snapshot, options, progress_for(quiet), drawn=cards)  # the faces drawn above
        rulebook = tts_table_rulebook_dir(out) / rulebook_name("a4")
        if not rulebook.is_file():  # a language without the rulebook's words: the build said so
            rulebook = None
    written = []
    with open_output(project, out, "export tts --table", force=force):
        # the deck sheets and piece images are the same for every player count: rasterised once
        images = write_table_images(project, snapshot, rendered, out, workers=jobs, progress=progress_for(quiet))
        for n in counts:
            written.append(export_table(project, snapshot, rendered, n, out, url_in(out), rulebook=rulebook,
                                        written=images))
    target = None
    if install:
        target = saves_dir() / folder_name(snapshot.game.name)
        with open_output(project, target, "export tts --table --install", force=force):
            for n, export in zip(counts, written):
                install_table(project, snapshot, n, out, target, url_in(target), export)
    if quiet:
        return
    for export in written:
        laid = export.laid
        click.echo(f"  {display_path(out / export.file)}  {counted(export.players, 'player')}: "
                   f"{counted(len(laid.items), 'object')} on the table, "
                   f"{counted(sum(len(h.cards) for h in laid.hands), 'card')} in hands")
    if target is not None:
        click.echo(f"installed into {target} (Tabletop Simulator: Games > Save & Load)")


@command.command(name="png")
@click.option("--preset", type=click.Choice(list(PRESETS)), required=True,
              help="A print service's image size, from cardgen's table of services (docs/print-services.md): "
                   + "; ".join(f"{k}: {s.label}" for k, s in PRESETS.items()) + ".")
@game_option
@version_option
@lang_option
@out_option
@jobs_option
@quiet_option
@force_option
@click.pass_context
def png(ctx, preset, game, version, lang, out_dir, jobs, quiet, force):
    """One PNG per card at a print service's exact size, a folder per deck.

    Default output: build/<game>/<version>/png-<preset>/.
    """
    from ..export.printpng import export_png

    project, snapshot, rendered = _drawn(ctx, game, version, lang)
    chosen = PRESETS[preset]
    out = check_out_dir(project, out_dir or of_snapshot(project.build_dir, snapshot).png_export(preset))
    with open_output(project, out, f"export png --preset {preset}", force=force):
        results = export_png(project, snapshot, rendered, chosen, out, workers=jobs, progress=progress_for(quiet))
    if quiet:
        return
    click.echo(f"{snapshot.game.name} {snapshot.version} for {chosen.label}:")
    for result in results:
        click.echo(f"  {display_path(out / result.deck)}/  {counted(len(result.files) - 1, 'card file')} + back, "
                   f"{result.size[0]}x{result.size[1]} px")


@command.command(name="print")
@game_option
@version_option
@click.option("--service", type=click.Choice(list(PDF_SERVICES)), default="generic",
              show_default=True, help="Print shop: sets the bleed, the page order and the CMYK file's PDF/X "
                                      "flavour and ink limit (docs/print-services.md).")
@click.option("--cmyk", is_flag=True, help="Also write <deck>-cmyk.pdf: CMYK, as the PDF/X flavour the service asks for.")
@out_option
@jobs_option
@quiet_option
@force_option
@click.pass_context
def print_(ctx, game, version, service, cmyk, out_dir, jobs, quiet, force):
    """One PDF per deck for a print shop: a card per page, TrimBox and BleedBox on every page.

    Default output: build/<game>/<version>/print/<service>/.
    """
    from ..export.printpdf import SERVICES, export_print, ghostscript

    if cmyk:
        ghostscript()  # fail before rendering anything
    project, snapshot, rendered = _drawn(ctx, game, version)
    chosen = SERVICES[service]
    out = check_out_dir(project, out_dir or of_snapshot(project.build_dir, snapshot).print_export(service))
    with open_output(project, out, f"export print --service {service}", force=force):
        results = export_print(project, snapshot, rendered, chosen, out, cmyk=cmyk, workers=jobs, progress=progress_for(quiet))
    if quiet:
        return
    click.echo(f"{snapshot.game.name} {snapshot.version} for {chosen.label} ({chosen.note}):")
    for r in results:
        click.echo(f"  {display_path(r.path)}  {r.what}: {counted(r.cards, 'card')}, {counted(r.pages, 'page')} of "
                   f"{r.trim_mm[0]:g} x {r.trim_mm[1]:g} mm + {r.bleed_mm:.3g} mm bleed")
