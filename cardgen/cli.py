"""The `cardgen` command: a click group; each command lives in its own module under commands/."""

from __future__ import annotations

import os
import signal
import sys
import traceback
from pathlib import Path

import click

from . import interrupt
from .errors import CardgenError

COMMANDS = ["build", "validate", "show", "diff", "export", "calibrate", "simulate", "balance", "table", "serve",
            "schema", "new", "i18n"]


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
        return with_project_option(module.command)


def _store_project(ctx: click.Context, param, value):
    if value is not None:
        root = ctx.find_root()
        root.obj = dict(root.obj or {})
        root.obj["project_path"] = value
    return value


def project_option():
    return click.Option(["--project"], type=click.Path(file_okay=False, path_type=Path), default=None,
                        expose_value=False, is_eager=True, callback=_store_project,
                        help="Project folder (holding cardgen.yml); also accepted before the command name.")


def with_project_option(command: click.Command) -> click.Command:
    """Every command (and subcommand) also takes --project after its name: `cardgen build --project P`
    works like `cardgen --project P build`. Added here so new commands get it without asking."""
    if not any(p.name == "project" for p in command.params):
        command.params.append(project_option())
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            with_project_option(sub)
    return command


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


def _one_line(exc: BaseException) -> tuple[str, int] | None:
    """The line and exit code for an error a user can cause outside the data (None: a bug)."""
    from concurrent.futures.process import BrokenProcessPool

    if isinstance(exc, OSError) and not isinstance(exc, (BlockingIOError, InterruptedError)):
        from .outputs import os_error_message

        return os_error_message(exc), 1
    if isinstance(exc, BrokenProcessPool):
        return ("a render process ended abruptly (out of memory, or killed); run again with --jobs 1 "
                "to see which card fails"), 1
    if isinstance(exc, RecursionError):
        return "input nested too deeply to process", 2
    return None


def _on_sigint(signum, frame) -> None:
    """Ctrl-C: recorded (`interrupt`), then raised. The record is what counts: whatever error
    Ctrl-C causes on its way out (a pool broken meanwhile) is the interruption, and where the
    KeyboardInterrupt is lost (cardgen/interrupt.py says how) the stages stop before writing and
    the command never reports success."""
    interrupt.note()
    raise KeyboardInterrupt


def _interrupted_exit() -> None:
    click.echo("interrupted", err=True)
    sys.exit(130)


def main(argv: list[str] | None = None) -> None:
    interrupt.forget()
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not where the caller chose its own
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        code = cli.main(args=argv, prog_name="cardgen", standalone_mode=False)
        if interrupt.came():  # Ctrl-C came, but its KeyboardInterrupt was lost on the way (see _on_sigint)
            _interrupted_exit()
        sys.exit(code if isinstance(code, int) else 0)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.Abort:  # click turns Ctrl-C into Abort
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except CardgenError as exc:
        if interrupt.came():  # e.g. a worker lost while the command stopped: the user's Ctrl-C, not an error
            _interrupted_exit()
        for line in exc.report_lines():
            click.echo(line, err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # a bug in cardgen, not in the user's data, unless _one_line knows it
        if interrupt.came():
            _interrupted_exit()
        known = _one_line(exc)
        if known is not None and not os.environ.get("CARDGEN_DEBUG"):
            click.echo(f"error: {known[0]}", err=True)
            sys.exit(known[1])
        if os.environ.get("CARDGEN_DEBUG"):
            traceback.print_exc()
        click.echo(f"internal error: {type(exc).__name__}: {exc} (set CARDGEN_DEBUG=1 for details)", err=True)
        sys.exit(3)
