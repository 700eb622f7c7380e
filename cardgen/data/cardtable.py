"""Cards kept in a spreadsheet: a version's `table:` (CSV or XLSX) read into typed card rows.

Many designers keep their cards in a spreadsheet (Squib's `qty` column, nanDECK's linked sheet).
A version file may name one: `table: cards.xlsx`. Its rows add or override cards by `id` over
what the version extends, `count: 0` removes a card, and a blank cell keeps the inherited value.
Every cell keeps its location (`cards.xlsx, sheet Hilts, D7`), so the validator, `show` and the
diff point at the cell a designer has to fix.

This module only reads and types cells; applying the rows to a version is `versions`' job, and
writing a version out as a table is `tablewrite`'s.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError, Loc
from ..words import counted
from . import xlsxsource
from .model import ValueSpec

MAX_TABLE_BYTES = 5_000_000
MAX_ROWS = 10_000
ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
INT_RE = re.compile(r"^[+-]?[0-9]+$")  # decimal only: "017" is 17, "0x11", "yes" and "1e3" are refused
NUMBER_RE = re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$")
# Columns every card has; each card type adds its own fields.
BUILTIN_COLUMNS = ("id", "type", "name", "count", "art", "flavour", "note", "effects")
SCALAR_TYPES = ("int", "number", "bool")  # item types a list or map cell converts
NO_EFFECTS = "none"  # an effects cell saying "none" clears the inherited effects


@dataclass(frozen=True)
class Cell:
    value: Any  # str, int, float or bool as the file holds it; never None (blank cells are left out)
    loc: Loc


@dataclass(frozen=True)
class Row:
    cells: dict[str, Cell]  # column name (lower case) -> non-blank cell
    loc: Loc  # the row as a whole (its first cell)

    def text(self, column: str) -> str | None:
        cell = self.cells.get(column)
        return None if cell is None else cell_text(cell.value)


def read_table(path: Path, loc: Loc | None = None) -> list[Row]:
    """Every non-blank row of every sheet, header names lower-cased; errors name the cell."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"table not found: {path.name} ({exc.strerror})", loc) from None
    if size > MAX_TABLE_BYTES:
        raise InputError(f"table is {size:,} bytes; expected at most {MAX_TABLE_BYTES:,}", Loc(path))
    suffix = path.suffix.lower()
    if suffix == ".csv":
        rows = _read_csv(path)
    elif suffix == ".xlsx":
        rows = _read_xlsx(path)
    else:
        raise InputError(f"table '{path.name}': expected a .csv or .xlsx file", loc)
    if len(rows) > MAX_ROWS:
        raise InputError(f"table has {len(rows):,} rows; expected at most {MAX_ROWS:,}", Loc(path))
    return rows


def _read_csv(path: Path) -> list[Row]:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError("not UTF-8 text (save the sheet as 'CSV UTF-8')", Loc(path, line)) from None
    # strict: a quote left open to the end of the file is an error, not one long last cell
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[Row] = []
    header: list[str] | None = None
    end = 0
    for record in _records(reader, path):
        # a record may span lines (a quoted cell holding line breaks): it is found at its first
        line, end = end + 1, reader.line_num
        if header is None:
            if any(v.strip() for v in record):
                header = _header(record, lambda col, line=line: Loc(path, line, col))
            continue
        cells = {}
        for col, value in enumerate(record, start=1):
            if col > len(header):
                if value.strip():
                    raise InputError("value in a column without a header", Loc(path, line, col))
                continue
            if header[col - 1] and value.strip():
                cells[header[col - 1]] = Cell(value.strip(), Loc(path, line, col))
        if cells:
            rows.append(Row(cells, Loc(path, line, 1)))
    return rows


def _records(reader, path: Path) -> Iterator[list[str]]:
    """The reader's records; what the csv module cannot read (an open quote, a cell longer than
    its field limit) is one line at the line where reading stopped."""
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(f"not readable as CSV ({exc}); save the sheet as 'CSV UTF-8' again",
                             Loc(path, reader.line_num)) from None
        yield record


def _read_xlsx(path: Path) -> list[Row]:
    rows: list[Row] = []
    for sheet in xlsxsource.read_workbook(path, MAX_ROWS + 1):  # a header row and the cards
        header: list[str] | None = None
        for r, record in sheet.rows:
            def at(col: int, r: int = r, name: str = sheet.title) -> Loc:
                return Loc(path, r, col, sheet=name)

            if header is None:
                if any(cell_text(v) for v in record):
                    header = _header([cell_text(v) for v in record], at)
                continue
            cells = {}
            for col, value in enumerate(record, start=1):
                if value is None or (isinstance(value, str) and not value.strip()):
                    continue
                if col > len(header) or not header[col - 1]:
                    raise InputError("value in a column without a header", at(col))
                cells[header[col - 1]] = Cell(value.strip() if isinstance(value, str) else value, at(col))
            if cells:
                rows.append(Row(cells, at(1)))
    return rows


def _header(names: list[str], at) -> list[str]:
    header = [str(n).strip().lower() for n in names]
    while header and not header[-1]:
        header.pop()
    seen: dict[str, int] = {}
    for col, name in enumerate(header, start=1):
        if name in seen:
            raise InputError(f"column '{name}' appears twice (also column {seen[name]})", at(col))
        if name:
            seen[name] = col
    if "id" not in seen:
        raise InputError("header row has no 'id' column (every row names the card it adds or changes)", at(1))
    return header


def cell_text(value: Any) -> str:
    """A cell as text: spreadsheets hold 3 as 3.0, which a person wrote as "3"."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def typed(cell: Cell, spec: ValueSpec) -> Any:
    """A cell converted to a field's declared type, or one error naming the cell."""
    value = cell.value
    kind = spec.type
    if kind == "int":
        if isinstance(value, bool) or not (
            isinstance(value, int) or (isinstance(value, float) and value.is_integer())
            or (isinstance(value, str) and INT_RE.match(value))
        ):
            raise _expected(cell, "an integer")
        return int(value)
    if kind == "number":
        if isinstance(value, bool) or not (
            isinstance(value, (int, float)) or (isinstance(value, str) and NUMBER_RE.match(value))
        ):
            raise _expected(cell, "a number")
        number = float(value)
        return int(number) if number.is_integer() else number
    if kind == "bool":
        if isinstance(value, bool):
            return value
        text = cell_text(value).lower()
        if text in ("true", "false"):
            return text == "true"
        raise _expected(cell, "TRUE or FALSE")
    if kind == "list":
        items = [line.strip() for line in cell_text(value).splitlines() if line.strip()]
        return [_item(cell, item, spec.of, f"item {i}") for i, item in enumerate(items, start=1)]
    if kind == "map":
        return _map(cell, spec.of)
    return cell_text(value)


def _map(cell: Cell, of: str | None) -> dict[str, Any]:
    """A map cell holds one `key: value` per line."""
    result = {}
    for line in cell_text(cell.value).splitlines():
        if not line.strip():
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.strip():
            raise _expected(cell, "one 'key: value' per line")
        result[key.strip()] = _item(cell, value.strip(), of, f"'{key.strip()}'")
    return result


def _item(cell: Cell, text: str, of: str | None, which: str) -> Any:
    """An item of a list or map cell typed as the field declares its items (`of: int`), as YAML
    would have read it: `legno: 2` is the number 2, not the text "2"."""
    if of not in SCALAR_TYPES:
        return text  # symbols, enums and text stay as written
    try:
        return typed(Cell(text, cell.loc), ValueSpec(type=of))
    except InputError as exc:
        raise InputError(f"{which}: {exc.message}", cell.loc) from None


def _expected(cell: Cell, what: str) -> InputError:
    return InputError(f'expected {what}, found "{cell_text(cell.value)}"', cell.loc)


# --- effects in one cell ------------------------------------------------------------------------


@dataclass(frozen=True)
class EffectCell:
    do: str
    when: str | None
    params: dict[str, Any]


def parse_effects(cell: Cell, kinds: dict) -> list[EffectCell]:
    """`orcish: points 1; elvish: points 3` -> effects; parameters by position or `name=value`.

    `kinds` is the game's effect vocabulary (game.yml `effects`); positional values follow the
    order in which each effect declares its parameters.
    """
    text = cell_text(cell.value)
    if text.lower() == NO_EFFECTS:
        return []
    effects = []
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        when: str | None = None
        head, sep, rest = part.partition(":")
        if sep and " " not in head.strip() and "=" not in head:
            when, part = head.strip(), rest.strip()
        words = part.split()
        if not words:
            raise _expected(cell, f"an effect after '{when}:'")
        do, args = words[0], words[1:]
        if do not in kinds:
            raise InputError(
                f"unknown effect '{do}' (expected one of: {', '.join(sorted(kinds))})", cell.loc
            )
        effects.append(EffectCell(do, when, _effect_params(cell, do, args, kinds[do].params)))
    return effects


def _effect_params(cell: Cell, do: str, args: list[str], specs: dict[str, ValueSpec]) -> dict[str, Any]:
    names = list(specs)
    params: dict[str, Any] = {}
    for i, arg in enumerate(args):
        name, sep, raw = arg.partition("=")
        if not sep:
            if i >= len(names):
                raise InputError(
                    f"effect '{do}' takes {counted(len(names), 'value')} ({', '.join(names) or 'none'}), found '{arg}'",
                    cell.loc,
                )
            name, raw = names[i], arg
        if name not in specs:
            raise InputError(
                f"effect '{do}' has no parameter '{name}' (expected one of: {', '.join(names) or 'none'})",
                cell.loc,
            )
        params[name] = typed(Cell(raw, cell.loc), specs[name])
    return params


def format_effects(effects, kinds: dict) -> str:
    """The inverse of `parse_effects`: positional values in declared order, `name=value` after a gap."""
    parts = []
    for effect in effects:
        names = list(kinds[effect.do].params) if effect.do in kinds else []
        args, gap = [], False
        for name in names:
            if name not in effect.params:
                gap = True
                continue
            value = cell_text(effect.params[name])
            args.append(f"{name}={value}" if gap else value)
        words = " ".join([effect.do, *args])
        parts.append(f"{effect.when}: {words}" if effect.when else words)
    return "; ".join(parts)
