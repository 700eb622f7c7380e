"""`cardgen calibrate`: a sheet that measures how far your printer's duplex backs land off."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import display_path
from ..files import Files
from ..outputs import open_output
from .common import force_option, parse_offset, project_from


@click.command(name="calibrate")
@click.option("--paper", type=click.Choice(["a4", "letter"]), required=True, help="Paper size of your printer.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder. Default: build/.")
@click.option("--with-offset", "with_offset", is_flag=True,
              help="Shift the back by printer.duplex_offset_mm from cardgen.yml (or --duplex-offset), "
                   "to check it: the lines should then read 0.")
@click.option("--duplex-offset", "duplex_offset", callback=lambda c, p, v: parse_offset(v), default=None,
              metavar="X,Y", help="With --with-offset: the offset to check instead of cardgen.yml's.")
@click.option("--lang", "-l", "lang", default="en", show_default=True, metavar="LANG",
              help="Language of the sheet's instructions (cardgen's own catalogs: en, it, nl).")
@force_option
@click.pass_context
def command(ctx, paper, out_dir, with_offset, duplex_offset, lang, force):
    """Write calibration-<paper>.pdf: print it two-sided, read the offset, pass it to `build`."""
    from ..data.project import check_out_dir
    from ..i18n import own
    from ..i18n.catalogs import check_language
    from ..imposition import PAPER_SIZES
    from ..imposition.calibration import calibration_sheet

    project = project_from(ctx)
    offset = (0.0, 0.0)
    if with_offset:
        offset = duplex_offset if duplex_offset is not None else project.config.printer.duplex_offset_mm
    elif duplex_offset is not None:
        raise click.UsageError("--duplex-offset needs --with-offset: the sheet measures your printer without one")
    lang = check_language(lang)
    if lang != own.SOURCE_LANG and lang not in own.languages():
        raise click.UsageError(f"no calibration text in {lang!r}; cardgen's own page text is in "
                               f"{', '.join([own.SOURCE_LANG, *own.languages()])}")
    folder = check_out_dir(project, out_dir or project.build_dir)
    out = Files(project.build_dir).calibration(paper, folder)
    with open_output(project, folder, "calibrate", force=force):
        calibration_sheet(PAPER_SIZES[paper], out, font_path=project.fonts_dir / "AlegreyaSans-Regular.ttf",
                          back_offset_mm=(float(offset[0]), float(offset[1])), gettext=own.page_text(lang))
    click.echo(f"  {display_path(out)}  duplex calibration, {PAPER_SIZES[paper].name}, 2 pages = 1 sheet of paper")
    click.echo("Print it two-sided (flip on long edge) at 100 %, hold it against the light with the back towards "
               "you and read X and Y where the front's lines cross the scales; then "
               "`cardgen build --duplex-offset X,Y` or printer: {duplex_offset_mm: [X, Y]} in cardgen.yml.")
    if offset != (0.0, 0.0):
        click.echo(f"back shifted by {offset[0]:g},{offset[1]:g} mm: if that is right, the lines read 0")
