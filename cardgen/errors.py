"""Errors and findings that carry a source location.

Every problem a user can cause is reported as one line `file:line:column: message`, never as a
traceback. `InputError` stops the pipeline (exit 2); `Finding`s are collected by the validator
(errors -> exit 1, warnings are allowed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .words import counted


@dataclass(frozen=True)
class Loc:
    """A place in a source file (1-based line and column; 0 means unknown).

    In a spreadsheet, `sheet` names the worksheet and line/column are its row and column, shown
    as a person finds them there: `cards.xlsx, sheet Hilts, D7`.
    """

    file: Path
    line: int = 0
    column: int = 0
    sheet: str | None = None

    def __str__(self) -> str:
        where = display_path(self.file)
        if self.sheet is not None:
            return f"{where}, sheet {self.sheet}, " + (
                f"{column_letter(self.column)}{self.line}" if self.column else f"row {self.line}"
            )
        if self.line:
            where += f":{self.line}"
            if self.column:
                where += f":{self.column}"
        return where

    @property
    def cited(self) -> str:
        """The place as a finding's message names it (`1.yml:11:16`): the file's name, not its
        path, which `str()` gives relative to the working directory, so the same data gives the
        same message (and the same designer's notes) wherever cardgen runs."""
        return ":".join(str(part) for part in (Path(self.file).name, self.line, self.column) if part)


def column_letter(column: int) -> str:
    """1 -> A, 27 -> AA: spreadsheet column names."""
    letters = ""
    while column > 0:
        column, rest = divmod(column - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def display_path(path: Path) -> str:
    """Paths relative to the working directory when possible: shorter and clickable."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


class CardgenError(Exception):
    """Base for errors shown to the user as one line, without a traceback."""

    exit_code = 2

    def __init__(self, message: str, loc: Loc | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc

    def __str__(self) -> str:
        return f"{self.loc}: {self.message}" if self.loc else self.message

    def report_lines(self) -> list[str]:
        """What the command line prints for this error, one problem per line."""
        return [f"error: {self}"]


class InputError(CardgenError):
    """Unusable input: the pipeline cannot go on (exit code 2)."""


class InputErrors(CardgenError):
    """Several independent input problems found in one pass (exit code 2)."""

    def __init__(self, errors: Sequence[CardgenError]):
        super().__init__(f"{counted(len(errors), 'problem')} in the input")
        self.errors = list(errors)

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)

    def report_lines(self) -> list[str]:
        return [f"error: {e}" for e in self.errors]


class BuildError(CardgenError):
    """A build step failed for a reason the user can fix (exit code 1)."""

    exit_code = 1


@dataclass(frozen=True)
class Finding:
    """One validator result."""

    severity: str  # "error" | "warning"
    code: str  # stable kebab-case identifier, e.g. "deck-count"
    message: str
    loc: Loc | None = None
    card: str | None = None
    extra: dict = field(default_factory=dict, compare=False)

    def __str__(self) -> str:
        where = f"{self.loc}: " if self.loc else ""
        card = f" [card {self.card}]" if self.card else ""
        return f"{where}{self.severity}: {self.message}{card} ({self.code})"

    def to_json(self) -> dict:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "file": display_path(self.loc.file) if self.loc else None,
            "line": self.loc.line if self.loc else None,
            "column": self.loc.column if self.loc else None,
            "sheet": self.loc.sheet if self.loc else None,
            "card": self.card,
        }


class RasterError(BuildError):
    """Rendering an SVG to PDF or PNG failed (or would have fetched from the network)."""
