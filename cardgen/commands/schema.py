"""`cardgen schema`: the JSON Schema of the data format (for editors' YAML language server)."""

from __future__ import annotations

import json

import click

from ..atomic import write_text
from ..data.model import json_schemas
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
        for name, schema in schemas.items():
            path = project.root / "schema" / f"{name}.schema.json"
            write_text(path, json.dumps(schema, indent=2, sort_keys=True) + "\n")
            click.echo(f"wrote {path}")
        return
    out = schemas[kind] if kind else schemas
    click.echo(json.dumps(out, indent=2, sort_keys=True))
