"""`cardgen new NAME`: start a game from the skeleton, so `cardgen build` works at once.

Inside a project (a folder with cardgen.yml at or above the working directory, or --project)
the game is added to it. Anywhere else a new project folder NAME/ is made around it, with
cardgen.yml, a copy of cardgen's fonts (so the project's cards never change with a cardgen
upgrade, and the licences travel with it) and the JSON Schemas, ready to be a git repository.
The skeleton (cardgen/builtin/skeleton/) is package data: its .yml files are Jinja2 templates
filled with the game's id and name; the card and rulebook templates are copied as they are.
The skeleton's rulebook extends the common rulebook templates, which cardgen ships and finds
by itself (a project's templates/common/ may hold its own versions, which take precedence).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import click
from jinja2 import Environment, StrictUndefined

from ..atomic import write_text
from ..builtin import FONTS_DIR, ICONS_DIR, SKELETON_DIR
from ..data.folders import PROJECT_FILE, project_root
from ..data.model import json_schemas
from ..data.project import load_project
from ..errors import InputError, display_path

# skeleton file -> where it goes in the project ({id} is the game's id)
GAME_FILES = {
    "game.yml": "card_data/{id}/game.yml",
    "1.yml": "versions/{id}/1.yml",
    "card.svg.j2": "templates/{id}/card.svg.j2",
    "back.svg.j2": "templates/{id}/back.svg.j2",
    "rulebook.html.j2": "templates/{id}/rulebook.html.j2",
}
PROJECT_FILES = {PROJECT_FILE: PROJECT_FILE, "gitignore": ".gitignore"}
# the shared icons (MIT, drawn for cardgen: crown, castle, suits...) the docs' examples use


def slug(name: str) -> str:
    """A game id from what the user typed: "Dragon Race!" -> "dragon-race"."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@click.command(name="new")
@click.argument("name")
@click.pass_context
def command(ctx, name):
    """Start a new game NAME: game.yml, a first version with a few cards, face and back templates."""
    game_id = slug(name)
    if not game_id:
        raise InputError(f"cannot make a game id from {name!r}: use letters or digits")
    title = name if name != game_id else game_id.replace("-", " ").title()
    given = (ctx.find_root().obj or {}).get("project_path")
    root = load_project(given).root if given else project_root()
    if root is None:
        root = Path.cwd() / game_id
        if root.exists() and any(root.iterdir()):
            raise InputError(f"{display_path(root)} already exists and is not empty")
        created = _new_project(root, game_id, title)
    else:
        created = []
    if (root / "card_data" / game_id).exists():
        raise InputError(f"game '{game_id}' already exists in {display_path(root / 'card_data')}")
    taken = [root / target.format(id=game_id) for target in GAME_FILES.values()]
    taken = [path for path in taken if os.path.lexists(path)]
    if taken:  # a template left from an earlier game of that name: the user's, never replaced
        raise InputError(f"{display_path(taken[0])} already exists; refusing to overwrite it (move it away, "
                         "or choose another game name)")
    created += _copy(GAME_FILES, root, game_id, title)
    created += _common_icons(root)
    for path in created:
        click.echo(f"  created {display_path(path)}")
    where = f"cd {display_path(root)} && " if root != Path.cwd().resolve() else ""
    click.echo(f"{title}: new game '{game_id}'. Next: {where}cardgen build --game {game_id}")


def _new_project(root: Path, game_id: str, title: str) -> list[Path]:
    created = _copy(PROJECT_FILES, root, game_id, title)
    for kind, schema in json_schemas().items():
        path = root / "schema" / f"{kind}.schema.json"
        write_text(path, json.dumps(schema, indent=2, sort_keys=True) + "\n")
        created.append(path)
    for folder in ("icons", "templates/common"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    shutil.copytree(FONTS_DIR, root / "fonts")
    created.append(root / "fonts")
    return created


def _common_icons(root: Path) -> list[Path]:
    """cardgen's shared icons (icons/common/: crown, suits, castle...) the project lacks, so
    `icon("common/crown", ...)` works in a new game as the docs show. Copied like the fonts (a
    game's cards never change with a cardgen upgrade); an existing icon is never overwritten."""
    created: list[Path] = []
    for src in sorted(ICONS_DIR.glob("*.svg")) if ICONS_DIR.is_dir() else []:
        path = root / "icons" / "common" / src.name
        if not path.exists():
            write_text(path, src.read_text(encoding="utf-8"))
            created.append(path)
    return [root / "icons" / "common"] if created else []  # listed once, not icon by icon


def _copy(files: dict[str, str], root: Path, game_id: str, title: str) -> list[Path]:
    skeleton = SKELETON_DIR
    env = Environment(undefined=StrictUndefined, keep_trailing_newline=True)
    created = []
    for source, target in files.items():
        text = (skeleton / source).read_text(encoding="utf-8")
        if source.endswith(".yml"):
            text = env.from_string(text).render(id=game_id, name=title)
        path = root / target.format(id=game_id)
        write_text(path, text)
        created.append(path)
    return created
