"""Issue 28: spreadsheet tables are never misread, never hang and round-trip.

Every seed game reads back its own `table export`; a formula without a saved result, an error
cell, a date or a wrong type is one line naming the sheet and cell; a hostile workbook (a cell
at XFD1048576, a zip bomb) is refused before it is read; a finding caused by a table row names
that row. Workbooks are made here with openpyxl, the hostile ones by editing the zip.

The seed games' round trip is a promise about their data and reads the seed project, as does the
map field of The King's Guild (mini has none); every other promise is the core's and runs on a
copy of tests/projects/mini, whose version 3 (written here, over mini's version 2) reads the
workbook or CSV a test makes.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import zipfile
from pathlib import Path

import pytest
from conftest import MINI, ROOT, copy_project
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from openpyxl import Workbook, load_workbook

from cardgen.data.project import load_project
from cardgen.data.validate import validate as validate_data
from cardgen.data.versions import available_versions, load_game, resolve
from cardgen.errors import InputError

SEEDS = load_project(ROOT)
GAME_VERSIONS = [(g, v) for g in SEEDS.game_ids() for v in available_versions(SEEDS, load_game(SEEDS, g))]


def _table_version(project: Path, game: str, name: str, table: str, extends: str) -> None:
    (project / "versions" / game / f"{name}.yml").write_text(
        f'extends: "{extends}"\ntitle: Version {name}\ntable: {table}\n', encoding="utf-8")


def _show_cards(cli, project: Path, game: str, version: str) -> list[dict]:
    result = cli("show", "--game", game, "--version", version, "--format", "json", cwd=project)
    assert result.code == 0, result.err
    return json.loads(result.out)["cards"]


# --- round trip: every game reads back its own export ------------------------------------------


def _filled_cells(table: Path) -> set[tuple[str, str]]:
    """(card id, column) of every non-blank cell but the id, read with the csv module or openpyxl."""
    if table.suffix == ".csv":
        records = list(csv.DictReader(io.StringIO(table.read_text(encoding="utf-8"))))
    else:
        book = load_workbook(table)
        records = []
        for sheet in book.worksheets:
            rows = list(sheet.iter_rows(values_only=True))
            records += [dict(zip(rows[0], row)) for row in rows[1:]]
    return {(r["id"], k) for r in records for k, v in r.items() if k != "id" and v not in ("", None)}


def test_every_seed_game_and_version_is_covered():
    assert len(GAME_VERSIONS) >= 8
    assert {"kings-guild", "knightfall", "one-true-king", "way-of-the-blade", "kings-blade"} <= {g for g, _ in GAME_VERSIONS}


@pytest.mark.parametrize("game,version", GAME_VERSIONS)
def test_export_then_read_back_gives_the_same_cards(cli, seed_copy, game, version):
    """`show` of a version reading the exported table equals `show` of the version itself, and
    every non-blank cell of the table was read (its location is the card's source for that field).

    The version itself is shown and validated in the copy before the test writes anything into
    it: the seed project's sources as they are (`seed_copy` is put back after each test), read
    from the same folder as version 99, so its templates are compiled once, not once for ROOT
    and again for the copy. The copy then holds the table and the version 99 reading it."""
    expected = _show_cards(cli, seed_copy, game, version)
    assert expected, f"{game} {version} has no cards"
    before = cli("validate", "--game", game, "--version", version, cwd=seed_copy)  # the version itself
    for ext in ("xlsx", "csv"):
        table = seed_copy / "versions" / game / f"round-trip.{ext}"
        result = cli("table", "export", "--game", game, "--version", version, "--to", str(table), cwd=seed_copy)
        assert result.code == 0, result.err
        _table_version(seed_copy, game, "99", table.name, version)
        assert _show_cards(cli, seed_copy, game, "99") == expected, ext
        project = load_project(seed_copy)
        snapshot = resolve(project, load_game(project, game), "99")
        from_table = {(c.id, key) for c in snapshot.cards for key, loc in c.field_locs.items()
                      if loc.file == table}
        assert from_table == _filled_cells(table)
        validate = cli("validate", "--game", game, "--version", "99", cwd=seed_copy)
        assert validate.code == before.code, validate.err
        (seed_copy / "versions" / game / "99.yml").unlink()


def test_map_and_list_items_take_the_declared_item_type(cli, seed_copy):
    """The King's Guild's `risorse: {type: map, of: int}`: `legno: 2` in a cell is the number 2;
    `legno: due` is one error naming the cell and the item."""
    game = "kings-guild"
    table = seed_copy / "versions" / game / "cards.csv"
    assert cli("table", "export", "--game", game, "--version", "1", "--to", str(table), cwd=seed_copy).code == 0
    _table_version(seed_copy, game, "2", "cards.csv", "1")
    cards = {c["id"]: c for c in _show_cards(cli, seed_copy, game, "2")}
    assert cards["m-ponte"]["fields"]["risorse"] == {"legno": 2, "pietra": 1}
    lines = table.read_text(encoding="utf-8").splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("m-ponte,"))
    lines[row] = lines[row].replace("legno: 2", "legno: due")
    table.write_text("\n".join(lines) + "\n", encoding="utf-8")
    header = lines[0].split(",")
    result = cli("validate", "--game", game, "--version", "2", cwd=seed_copy)
    assert result.code == 2
    assert result.err.strip().splitlines() == [
        f"error: versions/kings-guild/cards.csv:{row + 1}:{header.index('risorse') + 1}: "
        "'legno': expected an integer, found \"due\""]


# --- workbooks made here: what a cell may hold ---------------------------------------------------

MV = "versions/mini"
HEADER = ["id", "type", "name", "count", "value", "colour"]


def _workbook(project: Path, rows: list[list], title: str = "Main deck") -> Path:
    """cards.xlsx with one sheet: the header above, then `rows`; and version 3 reading it."""
    book = Workbook()
    sheet = book.active
    sheet.title = title
    sheet.append(HEADER)
    for row in rows:
        sheet.append(row)
    path = project / MV / "cards.xlsx"
    book.save(path)
    _table_version(project, "mini", "3", "cards.xlsx", "2")
    return path


def _rezip(path: Path, edit=None, add: dict[str, bytes] | None = None) -> None:
    """Rewrite the workbook's zip: `edit(name, data) -> data` on every part, then `add` parts."""
    with zipfile.ZipFile(path) as src:
        parts = [(i.filename, src.read(i.filename)) for i in src.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for name, data in parts:
            dst.writestr(name, edit(name, data) if edit else data)
        for name, data in (add or {}).items():
            dst.writestr(name, data)


def _sheet_xml(name: str, data: bytes, old: bytes, new: bytes) -> bytes:
    if name != "xl/worksheets/sheet1.xml":
        return data
    assert old in data, (old, data[:600])
    return data.replace(old, new)


def _one_error_everywhere(cli, project: Path, expected: str) -> None:
    """validate, build and show each stop with exit 2 and the one line `error: <expected>`; no
    traceback, nothing built."""
    for args in (("validate",), ("build", "--paper", "a4", "--no-png"), ("show",)):
        result = cli(*args, "--version", "3", cwd=project)
        assert result.code == 2, (args, result.err)
        assert result.err.strip().splitlines() == [f"error: {expected}"], args
    assert not (project / "build/mini/3").exists()


SPARK = ["spark", "number", "Spark", 4, 1, "red"]


def test_a_formula_with_a_saved_result_reads_as_that_result(cli, mini):
    path = _workbook(mini, [["spark", "number", "Spark", 4, "=2+3", "red"]])
    _rezip(path, lambda n, d: _sheet_xml(n, d, b"<f>2+3</f>", b"<f>2+3</f><v>5</v>"))
    cards = {c["id"]: c for c in _show_cards(cli, mini, "mini", "3")}
    assert cards["spark"]["fields"]["value"] == 5


@pytest.mark.parametrize("formula,cell", [("=2+3", "E2"), ("=SUM(E1:E1)", "E2"), ('=UPPER("spark")', "C2")])
def test_a_formula_without_a_saved_result_is_an_error_not_a_blank(cli, mini, formula, cell):
    """openpyxl saves a formula without its result, as a script or an unsaved sheet would."""
    row = list(SPARK)
    row["ABCDEF".index(cell[0])] = formula
    _workbook(mini, [row, ["coin", "coin", "Coin", 2]])
    _one_error_everywhere(cli, mini, f"{MV}/cards.xlsx, sheet Main deck, {cell}: a formula with no saved "
                          f"value ({formula}); open and save the file in a spreadsheet program, or type the value")


@pytest.mark.parametrize("value,cell,expected", [
    ("#DIV/0!", "E2", "expected a value, found the spreadsheet error #DIV/0!"),
    ("#N/A", "C2", "expected a value, found the spreadsheet error #N/A"),
    (datetime.date(2024, 1, 2), "C2", "expected text or a number, found the date or time 2024-01-02 00:00:00; "
                                      "format the cell as Text and type the value again"),
    (True, "E2", 'expected an integer, found "TRUE"'),
    (2.5, "E2", 'expected an integer, found "2.5"'),
    ("3 points", "E2", 'expected an integer, found "3 points"'),
    (-1, "D2", "expected a count from 0 to 10000, found -1"),
])
def test_a_wrong_value_in_a_cell_names_sheet_and_cell(cli, mini, value, cell, expected):
    row = list(SPARK)
    row["ABCDEF".index(cell[0])] = value
    _workbook(mini, [row])
    _one_error_everywhere(cli, mini, f"{MV}/cards.xlsx, sheet Main deck, {cell}: {expected}")


def test_a_saved_error_result_of_a_formula_is_an_error(cli, mini):
    path = _workbook(mini, [["spark", "number", "Spark", 4, "=1/0", "red"]])
    _rezip(path, lambda n, d: _sheet_xml(n, d, b'<c r="E2"><f>1/0</f>', b'<c r="E2" t="e"><f>1/0</f><v>#DIV/0!</v>'))
    _one_error_everywhere(cli, mini, f"{MV}/cards.xlsx, sheet Main deck, E2: expected a value, found the "
                                             "spreadsheet error #DIV/0!")


# --- hostile workbooks: refused before they are read ---------------------------------------------


def _never_read(monkeypatch):
    """Reading a sheet's rows fails the test: the refusal must come from the sizes alone."""
    from openpyxl.worksheet._read_only import ReadOnlyWorksheet

    def refuse(*args, **kwargs):
        raise AssertionError("rows were read before the sizes were checked")

    monkeypatch.setattr(ReadOnlyWorksheet, "_cells_by_row", refuse)


def test_one_cell_at_xfd1048576_is_refused_before_reading(cli, mini, monkeypatch):
    """The 8 kB workbook that kept validate busy for more than 50 s."""
    book = Workbook()
    sheet = book.active
    sheet.title = "Main deck"
    sheet.append(HEADER)
    sheet.append(SPARK)
    sheet.cell(1048576, 16384).value = "x"
    path = mini / MV / "cards.xlsx"
    book.save(path)
    assert path.stat().st_size < 10_000
    _table_version(mini, "mini", "3", "cards.xlsx", "2")
    _never_read(monkeypatch)
    _one_error_everywhere(cli, mini, f"{MV}/cards.xlsx, sheet Main deck, row 1: sheet spans 16,384 columns "
                          "(A to XFD); expected at most 200 (delete the columns after the last one used)")


@pytest.mark.parametrize("dimension,expected", [
    (b"A1:F1048576", "sheet spans 1,048,576 rows; expected at most 10,001 (delete the rows after the last card)"),
    (b"A1:GR5000", "sheet spans 5,000 rows by 200 columns, 1,000,000 cells; expected at most 250,000"),
])
def test_a_declared_extent_too_large_is_refused_before_reading(cli, mini, monkeypatch, dimension, expected):
    path = _workbook(mini, [SPARK])
    _rezip(path, lambda n, d: _sheet_xml(n, d, b'<dimension ref="A1:F2"/>', b'<dimension ref="%s"/>' % dimension))
    _never_read(monkeypatch)
    _one_error_everywhere(cli, mini, f"{MV}/cards.xlsx, sheet Main deck, row 1: {expected}")


def _cell(ref: str, text: str) -> bytes:
    return f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>'.encode()


@pytest.mark.parametrize("dimension,extra,expected", [
    # no extent declared, a cell far out: the row is refused as soon as it is met
    (b"", _cell("XFD3", "x"), "XFD3: row has cells beyond column GR; expected at most 200 columns"),
    # an extent that lies: the cell outside it is read (and refused), not silently dropped
    (b'<dimension ref="A1:F2"/>', _cell("XFD3", "x"),
     "XFD3: row has cells beyond column GR; expected at most 200 columns"),
    (b'<dimension ref="A1:F2"/>', _cell("H3", "stray"), "H3: value in a column without a header"),
    (b"", _cell("A20000", "x"), "row 10002: sheet has cells beyond row 10,001; expected at most 10,001 rows "
                                 "(delete the rows after the last card)"),
])
def test_cells_outside_what_the_sheet_declares_are_found(cli, mini, dimension, extra, expected):
    path = _workbook(mini, [SPARK])
    row = extra.split(b'r="')[1].split(b'"')[0].lstrip(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")

    def edit(name, data):
        data = _sheet_xml(name, data, b'<dimension ref="A1:F2"/>', dimension)
        return data.replace(b"</sheetData>", b'<row r="%s">%s</row></sheetData>' % (row, extra))

    _rezip(path, edit)
    _one_error_everywhere(cli, mini, f"{MV}/cards.xlsx, sheet Main deck, {expected}")


def test_many_cells_without_a_declared_extent_stop_at_the_cell_limit(cli, mini):
    path = _workbook(mini, [SPARK])
    rows = b"".join(b'<row r="%d"><c r="GP%d"><v>1</v></c></row>' % (r, r) for r in range(3, 2003))
    _rezip(path, lambda n, d: _sheet_xml(n, d, b'<dimension ref="A1:F2"/>', b"").replace(
        b"</sheetData>", rows + b"</sheetData>") if n == "xl/worksheets/sheet1.xml" else d)
    # rows 1 and 2 are 6 cells wide, every later one 198 (padded out to GP)
    first_over = 2 + (250_000 - 2 * 6) // 198 + 1
    _one_error_everywhere(cli, mini, f"{MV}/cards.xlsx, sheet Main deck, row {first_over}: workbook has more than "
                          "250,000 cells (counting blanks inside each sheet's extent); expected fewer")


def test_a_zip_bomb_is_refused_from_the_zip_directory(cli, mini, monkeypatch):
    path = _workbook(mini, [SPARK])
    _rezip(path, add={"xl/media/padding.bin": bytes(30_000_000)})
    assert path.stat().st_size < 100_000
    _never_read(monkeypatch)
    with zipfile.ZipFile(path) as archive:
        unpacked = sum(i.file_size for i in archive.infolist())
    assert unpacked > 30_000_000
    _one_error_everywhere(cli, mini, f"{MV}/cards.xlsx: workbook unpacks to {unpacked:,} bytes (largest "
                          "part xl/media/padding.bin: 30,000,000); expected at most 25,000,000")


@pytest.mark.parametrize("content,expected", [
    (b"PK\x03\x04 not really a zip", "not a readable .xlsx workbook (BadZipFile)"),
    (b"id,name\nspark,K\n", "not a readable .xlsx workbook (BadZipFile)"),
])
def test_a_file_that_is_not_a_workbook(cli, mini, content, expected):
    path = _workbook(mini, [SPARK])
    path.write_bytes(content)
    _one_error_everywhere(cli, mini, f"{MV}/cards.xlsx: {expected}; save it again as 'Excel Workbook (.xlsx)'")


def test_broken_xml_inside_the_workbook(cli, mini):
    path = _workbook(mini, [SPARK])
    _rezip(path, lambda n, d: _sheet_xml(n, d, b"</sheetData>", b"<row></sheetData>"))
    result = cli("validate", "--version", "3", cwd=mini)
    assert result.code == 2
    assert result.err.strip().splitlines() == [
        f"error: {MV}/cards.xlsx: not a readable .xlsx workbook (ParseError); save it again as 'Excel Workbook (.xlsx)'"]


# --- findings caused by a table point at the table -----------------------------------------------


def _findings(cli, project: Path, *args: str) -> list[dict]:
    result = cli("validate", "--version", "3", "--format", "json", *args, cwd=project)
    return json.loads(result.out)["findings"]


def _where(finding: dict) -> tuple:
    return finding["file"], finding["sheet"], finding["line"], finding["column"]


def test_text_overflow_from_a_cell_names_the_cell_and_preflight_the_row(cli, mini):
    _workbook(mini, [["spark", "number", "Spark " * 60, 4, 1, "red"]])
    findings = _findings(cli, mini)
    overflow = [f for f in findings if f["code"] == "text-overflow"]
    assert [(_where(f), f["card"]) for f in overflow] == [((f"{MV}/cards.xlsx", "Main deck", 2, 3), "spark")]
    preflight = [f for f in findings if f["code"].startswith("preflight-") and f["card"] == "spark"]
    assert preflight and {_where(f) for f in preflight} == {(f"{MV}/cards.xlsx", "Main deck", 2, 1)}
    for args in (("validate",), ("build", "--paper", "a4", "--no-png", "--no-rulebook", "-q")):
        result = cli(*args, "--version", "3", cwd=mini)
        assert result.code == 0, result.err
        lines = [ln for ln in (result.out + result.err).splitlines() if "(text-overflow)" in ln]
        assert len(lines) == 1 and lines[0].startswith(f"{MV}/cards.xlsx, sheet Main deck, C2: warning: card "
                                                      "'spark': text does not fit its box"), result


def test_text_overflow_from_a_yaml_override_names_the_overriding_key(cli, mini):
    """The same class in YAML: the finding points at the text that overflows, not where the card began."""
    path = mini / MV / "3.yml"
    path.write_text('extends: "2"\ntitle: V\noverride:\n  - id: ember\n    name: ' + "Very " * 30 + "Long\n",
                    encoding="utf-8")
    overflow = [f for f in _findings(cli, mini) if f["code"] == "text-overflow"]
    assert [(_where(f), f["card"]) for f in overflow] == [((f"{MV}/3.yml", None, 5, 11), "ember")]


def test_a_claim_broken_by_a_table_row_points_at_its_count_cell(cli, mini):
    """Version 3 claims (besides version 1's nine cards) 7 red cards, a 7/9 share of red and a 2/9
    share of blue; the table makes spark, a red card, 5 (row 3 of sheet Sparks)."""
    _workbook(mini, [["coin", "coin", "Coin", 2], ["spark", "number", "Spark", 5]], title="Sparks")
    with (mini / MV / "3.yml").open("a", encoding="utf-8") as version:
        version.write("claims:\n  - {symbol: red, deck: main, count: 7, share: 7/9}\n"
                      "  - {symbol: blue, deck: main, share: 2/9}\n")
    findings = [f for f in _findings(cli, mini) if f["code"] in ("deck-count", "deck-share")]
    assert len(findings) == 4  # the deck total, red's count, red's share and blue's share
    assert {(_where(f), f["card"]) for f in findings} == {((f"{MV}/cards.xlsx", "Sparks", 3, 4), "spark")}
    for args in (("validate",), ("build", "--paper", "a4", "--no-png", "--no-rulebook", "-q")):
        result = cli(*args, "--version", "3", cwd=mini)
        assert result.code == 1
        said = result.out + result.err
        claims = [ln for ln in said.splitlines() if "(deck-" in ln]
        assert len(claims) == 4 and all(ln.startswith(f"{MV}/cards.xlsx, sheet Sparks, D3: error: ")
                                        for ln in claims), said
        assert "deck 'main' should hold 9 cards but holds 10" in said
    assert not (mini / "build/mini/3").exists()


# --- any cells: read, or one located error -------------------------------------------------------

_text = st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=24)
_cells = st.one_of(
    st.none(), _text, st.integers(-10**15, 10**15), st.floats(), st.booleans(),
    st.datetimes(min_value=datetime.datetime(1901, 1, 1), max_value=datetime.datetime(2100, 1, 1)),
    st.sampled_from(["=1+2", "=A1", "#DIV/0!", "#N/A", "none", "3", "0", " ", "TRUE", "red: points 1",
                     "blue: pointz", "number", "coin", "sword", "red\nblue", "a: 1\nb", "spark"]),
)
_ids = st.sampled_from(["spark", "coin", "ember", "new-card", "Bad Id", "", None])


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """One copy of tests/projects/mini for the module's random tables: version 3 reads
    cards.xlsx, version 4 cards.csv, each rewritten by every example."""
    project = copy_project(MINI, tmp_path_factory.mktemp("tables") / "mini")
    _table_version(project, "mini", "3", "cards.xlsx", "2")
    _table_version(project, "mini", "4", "cards.csv", "2")
    return project


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(header=st.lists(st.sampled_from([*HEADER, "effects", "", "Value", "bogus"]), min_size=1, max_size=8),
       rows=st.lists(st.tuples(_ids, st.lists(_cells, max_size=8)), max_size=6),
       title=st.sampled_from(["Main deck", "Coins", "Sheet 1"]))
def test_any_cells_are_read_or_give_one_located_error(scratch, header, rows, title):
    """Random values and types in random columns: resolving and validating the version either
    works or stops with one error naming the table (and, for a cell, its sheet and cell)."""
    book = Workbook()
    sheet = book.active
    sheet.title = title
    sheet.append(["id", *header])
    for card_id, cells in rows:
        sheet.append([card_id, *cells])
    path = scratch / MV / "cards.xlsx"
    book.save(path)
    project = load_project(scratch)
    try:
        snapshot = resolve(project, load_game(project, "mini"), "3")
    except InputError as exc:
        assert "\n" not in str(exc)
        assert exc.loc is not None and exc.loc.file == path, str(exc)
        assert exc.loc.sheet in (title, None)
        assert exc.loc.sheet is None or exc.loc.line >= 1
        event("refused: " + ("a cell" if exc.loc.column else "a row" if exc.loc.line else "the file"))
        return
    event("read")
    for finding in validate_data(project, snapshot):
        assert finding.loc is not None and "\n" not in finding.message


@pytest.mark.parametrize("content", [
    'id,name\nspark,"' + "x" * 200_000 + '"\n',  # longer than the csv module's field limit
    'id,name\nspark,"never closed\n',  # was read silently as one long last cell
    'id,name\nspark,"closed"then more\n',
])
def test_a_csv_the_csv_module_cannot_read_is_one_line(cli, mini, content):
    (mini / MV / "cards.csv").write_text(content, encoding="utf-8")
    _table_version(mini, "mini", "3", "cards.csv", "2")
    for args in (("validate",), ("build", "--paper", "a4", "--no-png"), ("show",)):
        result = cli(*args, "--version", "3", cwd=mini)
        assert result.code == 2, (args, result.err)
        lines = result.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {MV}/cards.csv:2: not readable as CSV"), lines


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(text=st.lists(st.sampled_from([*'id,name,count,value,"\n\r 3x-é\t;:', "spark", "coin", "id,count\n"]),
                    max_size=60).map("".join))
def test_any_csv_text_is_read_or_gives_one_located_error(scratch, text):
    path = scratch / MV / "cards.csv"
    path.write_text(text, encoding="utf-8")
    project = load_project(scratch)
    try:
        resolve(project, load_game(project, "mini"), "4")
    except InputError as exc:
        assert "\n" not in str(exc)
        assert exc.loc is not None and exc.loc.file == path and exc.loc.line >= 1, str(exc)
        event("refused")
        return
    event("read")
