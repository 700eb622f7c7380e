"""Watch a project's sources (data, versions, templates, icons, fonts) and call back on changes."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

DEBOUNCE_MS = 80  # editors save in bursts (write, rename, chmod): one refresh per burst
ARMED_PROBE_MS = 250


def source_filter(sources: list[Path]) -> Callable[[object, str], bool]:
    """Only changes inside the project's sources count: never build/ (the preview's own output
    would wake it again), .git or an editor's swap files."""
    roots = [str(p.resolve()) for p in sources]

    def accept(change: object, path: str) -> bool:
        name = Path(path).name
        if name.startswith(".") or name.endswith(("~", ".swp", ".tmp")):
            return False
        return any(path == r or path.startswith(r + "/") for r in roots)

    return accept


def watch_sources(root: Path, sources: list[Path], on_change: Callable[[set], None],
                  stop: threading.Event, ready: threading.Event | None = None) -> None:
    """Block until `stop` is set, calling `on_change(changes)` after each burst of edits.

    `ready` is set once the operating system's watches are in place: a save before that moment
    is not seen, so the caller refreshes once more after it.
    """
    from watchfiles import watch

    # yield_on_timeout: the first (empty) yield tells that the watcher is armed
    for changes in watch(root, watch_filter=source_filter(sources), stop_event=stop, debounce=DEBOUNCE_MS,
                         step=20, rust_timeout=ARMED_PROBE_MS, yield_on_timeout=True, raise_interrupt=False):
        if ready is not None and not ready.is_set():
            ready.set()
        if changes:
            on_change(changes)
