"""Options and loading shared by the commands."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..data.folders import PROJECT_FILE, project_root

if TYPE_CHECKING:  # the data model is imported by the commands that load data, when they do
    from ..data.project import Project
    from ..data.snapshot import Snapshot

game_option = click.option("--game", "-g", default=None, help="Game id (a folder in card_data/). Default: the project's default game.")
version_option = click.option("--version", "-v", "version", default=None, help="Version, e.g. 3.1 or v3. Default: the game's default version.")
lang_option = click.option("--lang", "-l", "lang", default=None, metavar="LANG",
                           help="Language to print in (it, en, nl...). Default: the game's source language.")
force_option = click.option("--force", is_flag=True,
                            help="Replace outputs you edited since cardgen wrote them (by default they are kept "
                                 "and listed). Files cardgen never wrote are never replaced.")
format_option = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)


def project_from(ctx: click.Context) -> Project:
    from ..data.project import find_project, load_project

    path: Path | None = (ctx.find_root().obj or {}).get("project_path")
    return load_project(path) if path else find_project()


def root_from(ctx: click.Context) -> Path | None:
    """The folder of the project `project_from` would load, without loading it; None where it
    would fail (it then says why)."""
    path: Path | None = (ctx.find_root().obj or {}).get("project_path")
    if path is None:
        return project_root()
    root = Path(path).resolve()
    return root if (root / PROJECT_FILE).is_file() else None


def snapshot_from(ctx: click.Context, game: str | None, version: str | None,
                  lang: str | None = None, project: Project | None = None) -> tuple[Project, Snapshot]:
    """The resolved version, in `lang` (default: the game's source language)."""
    from ..data.versions import load_game, resolve
    from ..i18n.localise import localise

    project = project or project_from(ctx)
    g = load_game(project, game)
    return project, localise(resolve(project, g, version), lang)


def check_choices(project: Project, game: str | None, version: str | None, lang: str | None) -> None:
    """The game, version and language asked for exist: the same one line (exit 2) every command
    gives. The data itself need not be sound: a broken game.yml is left to the caller (`serve`
    shows it in its page and recovers when it is fixed)."""
    from ..data.versions import existing_version, load_game
    from ..errors import CardgenError
    from ..i18n.catalogs import check_language, require_translation

    project.game_dir(game)  # no such game
    try:
        g = load_game(project, game)
    except CardgenError:
        if lang is not None:
            check_language(lang)
        return  # the game's own file is broken: nothing more can be known about its versions
    existing_version(project, g, version)
    if lang is not None and check_language(lang) != g.file.language:
        require_translation(g, lang)


def parse_offset(value: str | None) -> tuple[float, float] | None:
    """`--duplex-offset X,Y` in mm; a bad value is a usage error (exit 2) naming what was expected."""
    if value is None:
        return None
    from ..data.project import MAX_DUPLEX_OFFSET_MM

    try:
        x, y = (float(part) for part in value.split(","))
    except ValueError:
        x = y = math.nan
    if not (math.isfinite(x) and math.isfinite(y)):  # float() also reads 'nan' and 'inf'
        raise click.BadParameter(f"expected two numbers in mm as X,Y (e.g. 0.5,-1), got {value!r}")
    if max(abs(x), abs(y)) > MAX_DUPLEX_OFFSET_MM:
        raise click.BadParameter(f"each offset must lie within +-{MAX_DUPLEX_OFFSET_MM:g} mm, got {value!r}")
    return x, y
