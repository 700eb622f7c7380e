"""An XLSX workbook read safely: sizes bounded before reading, every cell a plain value or an error.

An .xlsx file is a zip of XML parts. Like YAML input (yamlsource), a workbook is measured before
it is parsed, so a hostile one is refused in a moment with one line instead of hanging:

- the zip's central directory states each part's unpacked size, and Python's zipfile never
  unpacks more than that (a part that lies about its size fails its CRC check), so the
  directory bounds the work of a zip bomb before anything is unpacked;
- each sheet's declared extent (`<dimension ref="A1:XFD1048576"/>`, one cell in an 8 kB file)
  is checked before its rows are read, since openpyxl pads every row out to that extent;
- the rows are then read by what the sheet holds rather than what it declares, so an extent
  that lies neither hides a cell nor lets padding run away (a running count of cells stops it).

A cell is only ever what a person sees in the spreadsheet: a formula gives the result the
spreadsheet program saved with it, and a formula without one, an error (#DIV/0!), a date or a
number that is not finite is an error naming the sheet and cell, never an empty cell or a
guess. Turning the values into cards is `cardtable`'s job.
"""

from __future__ import annotations

import contextlib
import datetime
import math
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CardgenError, InputError, Loc, column_letter

MAX_UNPACKED_BYTES = 25_000_000  # all parts together; a 10,000-card table is a few MB of XML
MAX_PARTS = 1_000
MAX_SHEETS = 100
MAX_COLUMNS = 200  # the built-in columns and every field of a game, with room to spare
MAX_CELLS = 250_000  # in all sheets, blanks inside a sheet's extent included: the reading work


@dataclass(frozen=True)
class SheetRows:
    title: str
    rows: list[tuple[int, list[Any]]]  # (row number, cell values by column from A; None = blank)


def read_workbook(path: Path, max_rows: int) -> list[SheetRows]:
    """Every sheet's rows of plain values (str, int, float, bool); at most `max_rows` per sheet."""
    _check_zip(path)
    from openpyxl import load_workbook

    with _readable(path):
        book = load_workbook(path, read_only=True, data_only=False)
        try:
            sheets = book.worksheets
            if len(sheets) > MAX_SHEETS:
                raise InputError(f"workbook has {len(sheets):,} sheets; expected at most {MAX_SHEETS}", Loc(path))
            for sheet in sheets:
                _check_extent(path, sheet, max_rows)
            budget = _Budget(path)
            result = [_read_sheet(path, sheet, max_rows, budget) for sheet in sheets]
        finally:
            book.close()
    return result


def _check_zip(path: Path) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise InputError(f"not a readable .xlsx workbook ({type(exc).__name__}); save it again as "
                         "'Excel Workbook (.xlsx)'", Loc(path)) from None
    if len(parts) > MAX_PARTS:
        raise InputError(f"workbook holds {len(parts):,} parts; expected at most {MAX_PARTS:,}", Loc(path))
    unpacked = sum(p.file_size for p in parts)
    if unpacked > MAX_UNPACKED_BYTES:
        largest = max(parts, key=lambda p: p.file_size)
        raise InputError(f"workbook unpacks to {unpacked:,} bytes (largest part {largest.filename}: "
                         f"{largest.file_size:,}); expected at most {MAX_UNPACKED_BYTES:,}", Loc(path))


@contextlib.contextmanager
def _readable(path: Path) -> Iterator[None]:
    """Whatever openpyxl raises on a malformed part (bad XML, a missing part, an entity bomb
    refused by the XML parser, a bad CRC) becomes one line naming the file; our own errors pass."""
    try:
        yield
    except CardgenError:
        raise
    except Exception as exc:
        raise InputError(f"not a readable .xlsx workbook ({type(exc).__name__}); save it again as "
                         "'Excel Workbook (.xlsx)'", Loc(path)) from None


class _Budget:
    """Cells read so far in the whole workbook (blank ones a row is padded with included)."""

    def __init__(self, path: Path):
        self.path, self.used = path, 0

    def spend(self, cells: int, sheet: str, row: int) -> None:
        self.used += cells
        if self.used > MAX_CELLS:
            raise InputError(f"workbook has more than {MAX_CELLS:,} cells (counting blanks inside each "
                             f"sheet's extent); expected fewer", Loc(self.path, row, 0, sheet=sheet))


def _check_extent(path: Path, sheet, max_rows: int) -> None:
    """The extent a sheet declares, before its rows are read (a sheet may declare none)."""
    rows, columns = sheet.max_row, sheet.max_column
    where = Loc(path, 1, 0, sheet=sheet.title)
    if columns is not None and columns > MAX_COLUMNS:
        raise InputError(f"sheet spans {columns:,} columns (A to {column_letter(columns)}); expected at most "
                         f"{MAX_COLUMNS} (delete the columns after the last one used)", where)
    if rows is not None and rows > max_rows:
        raise InputError(f"sheet spans {rows:,} rows; expected at most {max_rows:,} (delete the rows after "
                         "the last card)", where)
    if rows is not None and columns is not None and rows * columns > MAX_CELLS:
        raise InputError(f"sheet spans {rows:,} rows by {columns:,} columns, {rows * columns:,} cells; "
                         f"expected at most {MAX_CELLS:,}", where)
    sheet.reset_dimensions()  # from here on, read the cells the sheet holds, not the extent it claims


def _read_sheet(path: Path, sheet, max_rows: int, budget: _Budget) -> SheetRows:
    rows: list[tuple[int, list[Any]]] = []
    formulas: dict[tuple[int, int], str] = {}
    for r, record in enumerate(sheet.iter_rows(), start=1):
        if r > max_rows:
            raise InputError(f"sheet has cells beyond row {max_rows:,}; expected at most {max_rows:,} rows "
                             "(delete the rows after the last card)", Loc(path, r, 0, sheet=sheet.title))
        if len(record) > MAX_COLUMNS:
            raise InputError(f"row has cells beyond column {column_letter(MAX_COLUMNS)}; expected at most "
                             f"{MAX_COLUMNS} columns", Loc(path, r, len(record), sheet=sheet.title))
        budget.spend(max(1, len(record)), sheet.title, r)
        values: list[Any] = []
        for c, cell in enumerate(record, start=1):
            if getattr(cell, "data_type", None) == "f":
                formulas[(r, c)] = str(getattr(cell.value, "text", cell.value))
                values.append(None)  # the saved result is filled in below
            else:
                values.append(_plain(cell, Loc(path, r, c, sheet=sheet.title)))
        rows.append((r, values))
    if formulas:
        _saved_results(path, sheet.title, rows, formulas)
    return SheetRows(sheet.title, [(r, v) for r, v in rows if any(x is not None for x in v)])


def _saved_results(path: Path, title: str, rows: list[tuple[int, list[Any]]],
                   formulas: dict[tuple[int, int], str]) -> None:
    """A formula's cell holds what the spreadsheet program computed when it saved the file
    (openpyxl computes nothing); a second, read-only pass over the sheet fetches those results."""
    from openpyxl import load_workbook

    by_row = dict(rows)
    book = load_workbook(path, read_only=True, data_only=True)
    try:
        sheet = book[title]
        sheet.reset_dimensions()
        last = max(r for r, _ in formulas)
        for r, record in enumerate(sheet.iter_rows(max_row=last), start=1):
            for c, cell in enumerate(record, start=1):
                if (r, c) not in formulas:
                    continue
                loc = Loc(path, r, c, sheet=title)
                if cell.value is None:
                    raise InputError(f"a formula with no saved value ({formulas[(r, c)][:40]}); open and save "
                                     "the file in a spreadsheet program, or type the value", loc)
                by_row[r][c - 1] = _plain(cell, loc)
    finally:
        book.close()


def _plain(cell, loc: Loc) -> Any:
    """A cell's value as a person reads it: text, a number or TRUE/FALSE; None when blank."""
    value, kind = cell.value, getattr(cell, "data_type", "n")
    if value is None:
        return None
    if kind == "e":
        raise InputError(f"expected a value, found the spreadsheet error {value}", loc)
    if isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
        raise InputError(f"expected text or a number, found the date or time {value}; format the cell as "
                         "Text and type the value again", loc)
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"expected a finite number, found {value}", loc)
    if isinstance(value, (str, int, float, bool)):
        return value
    raise InputError(f"expected text or a number, found {type(value).__name__}", loc)
