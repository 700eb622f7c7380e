"""The `cardgen` command: a click group; each command lives in its own module under commands/."""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

import click

from .errors import CardgenError

COMMANDS = ["build", "validate", "show", "diff", "export", "simulate", "table", "serve", "schema", "new", "i18n"]


class LazyGroup(click.Group):
    """Imports a command's module only when it runs: `cardgen validate` never loads the PDF stack."""

    def list_commands(self, ctx):
        return COMMANDS

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        import importlib

        try:
            module = importlib.import_module(f"cardgen.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"cardgen.commands.{name}":
                return None
            raise
        return module.command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="cardgen")
@click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Project folder (holding cardgen.yml). Default: found from the working directory upwards.",
)
@click.pass_context
def cli(ctx: click.Context, project: Path | None) -> None:
    """cardgen: versioned YAML game data -> card sheets, rulebooks, diffs and exports."""
    ctx.obj = {"project_path": project}


def main(argv: list[str] | None = None) -> None:
    try:
        code = cli.main(args=argv, prog_name="cardgen", standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except CardgenError as exc:
        for line in exc.report_lines():
            click.echo(line, err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # a bug in cardgen, not in the user's data
        if os.environ.get("CARDGEN_DEBUG"):
            traceback.print_exc()
        click.echo(f"internal error: {type(exc).__name__}: {exc} (set CARDGEN_DEBUG=1 for details)", err=True)
        sys.exit(3)
