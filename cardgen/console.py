"""Terminal output: a progress bar when a person watches, silence in CI or with -q."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator

from .buildtypes import Progress


def interactive(quiet: bool) -> bool:
    return not quiet and not os.environ.get("CI") and sys.stderr.isatty()


class RichProgress(Progress):
    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import Progress as Bar

        self._console = Console(stderr=True)
        self._bar = Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=self._console, transient=True)
        self._task = None

    @contextlib.contextmanager
    def stage(self, label: str) -> Iterator[None]:
        with self._console.status(label):
            yield

    def start(self, label: str, total: int) -> None:
        self._bar.start()
        self._task = self._bar.add_task(label, total=total)

    def advance(self, n: int = 1) -> None:
        if self._task is not None:
            self._bar.advance(self._task, n)

    def stop(self) -> None:
        self._bar.stop()
        self._task = None


def progress_for(quiet: bool) -> Progress:
    return RichProgress() if interactive(quiet) else Progress()
