"""`cardgen schema`: the JSON Schema of the data format (for editors' YAML language server)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from ..atomic import write_text
from ..data.model import json_schemas
from ..errors import InputError, display_path
from ..outputs import open_data_folder
from .common import project_from


@click.command(name="schema")
@click.option("--kind", type=click.Choice(["game", "version"]), default=None,
              help="Print one schema (default: both, as one JSON object keyed by kind).")
@click.option("--write", is_flag=True, help="Write schema/game.schema.json and schema/version.schema.json into the project.")
@click.pass_context
def command(ctx, kind, write):
    """Print (or write) the JSON Schema of game.yml and version files."""
    schemas = json_schemas()
    if write:
        project = project_from(ctx)
        folder = project.root / "schema"
        # schema/ is a project folder (editors read it), so the output guard's "never write a
        # source" does not apply; what does: nothing is written through a link leading out of
        # the project, and only files cardgen wrote (a schema with cardgen's title) are replaced.
        with open_data_folder(project, folder, project.root, "schema --write") as inside:
            paths = {name: inside(folder / f"{name}.schema.json") for name in schemas}
            for name, path in paths.items():
                _check_replaceable(path, schemas[name]["title"])
            for name, path in paths.items():
                write_text(path, json.dumps(schemas[name], indent=2, sort_keys=True) + "\n")
                click.echo(f"wrote {display_path(path)}")
        return
    out = schemas[kind] if kind else schemas
    click.echo(json.dumps(out, indent=2, sort_keys=True))


def _check_replaceable(path: Path, title: str) -> None:
    """An existing file is replaced only if it is a schema cardgen wrote (its title says so)."""
    if os.path.islink(path):
        raise InputError(f"{display_path(path)} is a symbolic link; cardgen writes the schema only as a plain file "
                         "(remove the link, then run `cardgen schema --write` again)")
    if not os.path.lexists(path):
        return
    try:
        existing = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        existing = None
    if not (isinstance(existing, dict) and existing.get("title") == title):
        raise InputError(f"{display_path(path)} exists and is not a schema cardgen wrote (expected the title "
                         f"{title!r}); refusing to replace it (move it away, then run `cardgen schema --write` again)")
