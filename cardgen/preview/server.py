"""The preview's HTTP server: the page, its data, and server-sent events on every change.

Plain `http.server` on loopback (the designer's own machine): one thread per connection, so an
open event stream never blocks the page. Every path is served from memory or from a fixed
folder (the project's fonts, the version's build output), never from a path the URL spells.
"""

from __future__ import annotations

import json
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

from .. import contain
from .state import Preview, build_dir, build_files

PAGE_TEMPLATE = Path(__file__).with_name("page.html.j2")
FONT_TYPES = {".ttf": "font/ttf", ".otf": "font/otf", ".woff": "font/woff", ".woff2": "font/woff2"}
PING_SECONDS = 10.0


class PreviewServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, preview: Preview, host: str = "127.0.0.1", port: int = 8000):
        self.preview = preview
        self.changed = threading.Condition()
        self.stopping = threading.Event()
        super().__init__((host, port), _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        assert isinstance(host, str)  # an IPv4/IPv6 address, never a Unix socket path
        return f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{port}/"

    def refresh(self) -> None:
        """Reload the project and wake every open page if anything changed."""
        before = self.preview.state.serial
        state = self.preview.refresh()
        if state.serial != before:
            with self.changed:
                self.changed.notify_all()

    def shutdown(self) -> None:
        self.stopping.set()
        with self.changed:
            self.changed.notify_all()
        super().shutdown()


class _Handler(BaseHTTPRequestHandler):
    server: PreviewServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args) -> None:  # the terminal shows changes, not requests
        pass

    def do_GET(self) -> None:
        path = unquote(urlparse(self.path).path)
        preview = self.server.preview
        if path == "/":
            self._send(HTTPStatus.OK, "text/html; charset=utf-8", _page(preview).encode("utf-8"))
        elif path == "/state.json":
            data = preview.state.to_json()
            data["files"] = build_files(preview.root, preview.state) if preview.state.game else []
            self._send(HTTPStatus.OK, "application/json", json.dumps(data).encode("utf-8"))
        elif path.startswith("/card/") and path.endswith(".svg"):
            svg = preview.svg(path[len("/card/"):-len(".svg")])
            if svg is None:
                self._send(HTTPStatus.NOT_FOUND, "text/plain", b"no such card")
            else:
                self._send(HTTPStatus.OK, "image/svg+xml", svg.encode("utf-8"))
        elif path.startswith("/fonts/"):
            self._file(preview.root / "fonts", path[len("/fonts/"):], FONT_TYPES)
        elif path.startswith("/files/") and preview.state.game:  # the built PDFs (state.build_files)
            self._file(build_dir(preview.root, preview.state), path[len("/files/"):], {".pdf": "application/pdf"})
        elif path == "/diff":
            self._send(HTTPStatus.OK, "text/plain; charset=utf-8", _diff_text(preview).encode("utf-8"))
        elif path == "/events":
            self._events()
        else:
            self._send(HTTPStatus.NOT_FOUND, "text/plain", b"not found")

    def _send(self, status: HTTPStatus, ctype: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _file(self, folder: Path, name: str, types: dict[str, str]) -> None:
        """Only a plain file name directly inside `folder` (after resolving links: a font linked to
        a file elsewhere is not served), with an allowed suffix."""
        target = folder / name
        if ("/" in name or name.startswith(".") or target.suffix.lower() not in types or not target.is_file()
                or not contain.is_inside(folder, target)):
            self._send(HTTPStatus.NOT_FOUND, "text/plain", b"not found")
            return
        self._send(HTTPStatus.OK, types[target.suffix.lower()], target.read_bytes())

    def _events(self) -> None:
        """Server-sent events: `update` with the new serial whenever the state changes."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        seen = -1
        try:
            while not self.server.stopping.is_set():
                serial = self.server.preview.state.serial
                if serial != seen:
                    seen = serial
                    self.wfile.write(f"event: update\ndata: {serial}\n\n".encode())
                else:
                    self.wfile.write(b": ping\n\n")
                self.wfile.flush()
                with self.server.changed:
                    self.server.changed.wait(PING_SECONDS)
        except (BrokenPipeError, ConnectionResetError):
            pass


def _page(preview: Preview) -> str:
    from jinja2 import Environment

    env = Environment(autoescape=True)
    return env.from_string(PAGE_TEMPLATE.read_text(encoding="utf-8")).render(fonts=_font_faces(preview.root))


def _font_faces(root: Path) -> list[dict[str, str]]:
    """@font-face rules for the project's fonts: the card SVGs name families, which the browser
    must find in the same files cairo uses for the print files."""
    from ..errors import CardgenError
    from ..render.fonts import FontSet

    try:
        faces = FontSet(root / "fonts").faces
    except CardgenError:
        return []
    return [{"url": f"/fonts/{face.path.name}", "family": face.family,
             "weight": "bold" if face.bold else "normal", "style": "italic" if face.italic else "normal"}
            for face in faces]


def _diff_text(preview: Preview) -> str:
    import click

    from ..data.project import load_project
    from ..data.versions import load_game, resolve
    from ..diff import diff_versions
    from ..diff.formats import as_text
    from ..errors import CardgenError

    state = preview.state
    if not state.previous:
        return "This is the first version: nothing to compare with."
    try:
        project = load_project(preview.root)
        game = load_game(project, state.game)
        diff = diff_versions(project, resolve(project, game, state.previous), resolve(project, game, state.version))
        return click.unstyle(as_text(diff))
    except CardgenError as exc:
        return "\n".join(exc.report_lines())
