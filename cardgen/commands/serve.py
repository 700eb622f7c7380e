"""`cardgen serve`: a live preview of a version that updates as the designer saves."""

from __future__ import annotations

import signal
import threading
import time

import click

from ..errors import InputError, display_path
from ..words import counted
from .common import check_choices, game_option, lang_option, project_from, version_option

WATCHER_START_SECONDS = 10.0


@click.command(name="serve")
@game_option
@version_option
@lang_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. The default is this machine only; 0.0.0.0 shows it to your network.")
@click.option("--port", "-p", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port (0: any free port).")
@click.option("--no-browser", is_flag=True, help="Do not open the page in a browser.")
@click.pass_context
def command(ctx, game, version, lang, host, port, no_browser):
    """Preview every card face and back in a browser, updated on every save.

    Watches card_data/, versions/, templates/, icons/ and fonts/; an edit re-renders only the
    cards it changes and the open page updates by itself. A broken file shows its error in the
    page and here; the server keeps running, and fixing the file recovers.
    """
    from ..preview.server import PreviewServer
    from ..preview.state import Preview
    from ..preview.watch import watch_sources
    from ..render.workers import background_thread

    project = project_from(ctx)
    check_choices(project, game, version, lang)  # a version that does not exist is not a page to serve
    preview = Preview(project.root, game, version, lang)
    state = preview.refresh()
    try:
        server = PreviewServer(preview, host, port)
    except OSError as exc:
        raise InputError(f"cannot listen on {host}:{port} ({exc.strerror}); pass another --port") from None
    stop, ready = threading.Event(), threading.Event()

    def on_change(changes: set) -> None:
        started = time.perf_counter()
        server.refresh()
        _report(preview.state, time.perf_counter() - started)

    background_thread(watch_sources, "cardgen-watch",
                      (project.root, project.source_paths, on_change, stop, ready))
    ready.wait(WATCHER_START_SECONDS)
    server.refresh()  # what was saved while the watcher started
    in_lang = f" ({state.lang})" if state.lang else ""
    click.echo(f"Serving {state.game_name or 'the project'} {state.version}{in_lang} at {server.url} "
               f"(watching {display_path(project.root)}; Ctrl-C stops)", err=True)
    _report(state if preview.state.serial == state.serial else preview.state, 0.0)
    if not no_browser:
        import webbrowser

        webbrowser.open(server.url)
    # Ctrl-C is how serve ends, not an interruption: the plain KeyboardInterrupt while it serves,
    # not the CLI's handler, which marks a command interrupted (exit 130)
    handler = signal.getsignal(signal.SIGINT)
    swap = callable(handler) and threading.current_thread() is threading.main_thread()
    if swap:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        click.echo("stopped", err=True)
    finally:
        stop.set()
        server.stopping.set()
        server.server_close()
        if swap:
            signal.signal(signal.SIGINT, handler)


def _report(state, seconds: float) -> None:
    if state.error:
        for line in state.error.splitlines():
            click.echo(line if line.startswith("error") else f"error: {line}", err=True)
        return
    click.echo(f"{state.game_name} {state.version}: {counted(len(state.cards), 'face or back', 'faces and backs')}, "
               f"{state.rendered} rendered in {seconds:.2f}s, {counted(len(state.findings), 'finding')}", err=True)
