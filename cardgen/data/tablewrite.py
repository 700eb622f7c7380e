"""A version's cards written out as a spreadsheet (CSV or XLSX) that `table:` reads back.

The columns are the ones `cardtable` reads: id, type, name, count, each field the card types
declare, art, flavour, note and the effects in the compact cell syntax, so exporting, editing a
cell and building is a round trip. XLSX gets one sheet per deck; CSV holds every card.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path

from .cardtable import cell_text, format_effects
from .snapshot import Card, Snapshot

FIXED_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # same cards, same bytes: no timestamps in the workbook
W3CDTF = re.compile(rb'(xsi:type="dcterms:W3CDTF">)[^<]*<')


def columns_for(snapshot: Snapshot, type_ids: list[str]) -> list[str]:
    """Built-in columns first, then each type's fields in their declared order."""
    game = snapshot.game
    columns = ["id", "type", "name", "count"]
    for type_id in type_ids:
        for name in game.card_types[type_id].fields:
            if name not in columns:
                columns.append(name)
    cards = [c for c in snapshot.cards if c.type in type_ids]
    for name in ("art", "flavour", "note"):
        if any(c.value(name) for c in cards):
            columns.append(name)
    if any(game.card_types[t].effects for t in type_ids):
        columns.append("effects")
    return columns


def card_row(snapshot: Snapshot, card: Card, columns: list[str]) -> list[str | int | float]:
    row: list[str | int | float] = []
    for column in columns:
        if column == "effects":
            row.append(format_effects(card.effects, snapshot.game.effect_kinds))
            continue
        value = card.value(column)
        if isinstance(value, list):
            row.append("\n".join(cell_text(v) for v in value))
        elif isinstance(value, dict):
            row.append("\n".join(f"{k}: {cell_text(v)}" for k, v in value.items()))
        elif isinstance(value, bool) or value is None:
            row.append("" if value is None else cell_text(value))
        else:
            row.append(value)
    return row


def groups(snapshot: Snapshot) -> list[tuple[str, list[str]]]:
    """(sheet title, card types) per deck that holds cards, in the game's deck order."""
    result = []
    for deck_id, deck in snapshot.game.decks.items():
        types = [t for t, spec in snapshot.game.card_types.items() if spec.deck == deck_id]
        if any(c.type in types for c in snapshot.cards):
            result.append((_sheet_title(deck.name, [t for t, _ in result]), types))
    return result


def _sheet_title(name: str, taken: list[str]) -> str:
    """Excel allows 31 characters and none of []:*?/\\ in a sheet name."""
    title = "".join("-" if ch in "[]:*?/\\" else ch for ch in name)[:31] or "Cards"
    base, n = title, 2
    while title in taken:
        title = f"{base[:28]} {n}"
        n += 1
    return title


def csv_bytes(snapshot: Snapshot) -> bytes:
    types = [t for _, ts in groups(snapshot) for t in ts]
    columns = columns_for(snapshot, types)
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    for type_id in types:
        for card in snapshot.cards_of_type(type_id):
            writer.writerow(card_row(snapshot, card, columns))
    return out.getvalue().encode("utf-8")


def xlsx_bytes(snapshot: Snapshot) -> bytes:
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    book = Workbook()
    book.remove(book.active)
    for title, types in groups(snapshot):
        sheet = book.create_sheet(title)
        columns = columns_for(snapshot, types)
        sheet.append(columns)
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        for type_id in types:
            for card in snapshot.cards_of_type(type_id):
                sheet.append(card_row(snapshot, card, columns))
        sheet.freeze_panes = "B2"
        for col, name in enumerate(columns, start=1):
            width = max(len(str(c.value or "")) for c in sheet[get_column_letter(col)])
            sheet.column_dimensions[get_column_letter(col)].width = min(60, max(8, width + 2))
            if name in ("effects", "note", "flavour"):
                for cell in sheet[get_column_letter(col)][1:]:
                    cell.alignment = Alignment(wrap_text=True, vertical="top")
    book.properties.creator = "cardgen"
    raw = io.BytesIO()
    book.save(raw)
    return _without_timestamps(raw.getvalue())


def _without_timestamps(data: bytes) -> bytes:
    """Re-pack the workbook with fixed times: openpyxl stamps the current time on the zip entries
    and on the document's created/modified properties when it saves."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            content = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                content = W3CDTF.sub(rb"\g<1>2000-01-01T00:00:00Z<", content)
            entry = zipfile.ZipInfo(info.filename, FIXED_ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(entry, content)
    return out.getvalue()


def table_bytes(snapshot: Snapshot, path: Path) -> bytes:
    return xlsx_bytes(snapshot) if path.suffix.lower() == ".xlsx" else csv_bytes(snapshot)
