"""Options and loading shared by the commands."""

from __future__ import annotations

from pathlib import Path

import click

from ..data.project import Project, find_project, load_project
from ..data.snapshot import Snapshot
from ..data.versions import load_game, resolve

game_option = click.option("--game", "-g", default=None, help="Game id (a folder in card_data/). Default: the project's default game.")
version_option = click.option("--version", "-v", "version", default=None, help="Version, e.g. 3.1 or v3. Default: the game's default version.")
format_option = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)


def project_from(ctx: click.Context) -> Project:
    path: Path | None = (ctx.find_root().obj or {}).get("project_path")
    return load_project(path) if path else find_project()


def snapshot_from(ctx: click.Context, game: str | None, version: str | None) -> tuple[Project, Snapshot]:
    project = project_from(ctx)
    g = load_game(project, game)
    return project, resolve(project, g, version)
