"""Issue 16: cards kept in a spreadsheet (`cardgen table export`, a version's `table:`).

What an export of The King's Blade holds, and the simulator reading its table, are checked on the
seed project; editing a table and building from it, and a bad cell's one-line error, are the
core's promises and run on a copy of tests/projects/mini (`mini`), whose version 3 (written here,
over version 2) reads the table."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

import pytest
from conftest import ROOT
from openpyxl import load_workbook
from pypdf import PdfReader

from cardgen.data.describe import describe
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve


def _rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def _version(project: Path, name: str, table: str, extends: str = "3.1", game: str = "kings-blade") -> None:
    (project / "versions" / game / f"{name}.yml").write_text(
        f'extends: "{extends}"\ntitle: Version {name}\ntable: {table}\n', encoding="utf-8")


MINI_TABLES = "versions/mini"


def _mini_version(project: Path, table: str) -> None:
    """Version 3 of mini, over version 2, reading `table` (in versions/mini/)."""
    _version(project, "3", table, extends="2", game="mini")


def _show(cli, project: Path, version: str) -> dict:
    result = cli("show", "--version", version, "--format", "json", cwd=project)
    assert result.code == 0, result.err
    return {c["id"]: c for c in json.loads(result.out)["cards"]}


@pytest.fixture(scope="module")
def snapshot31():
    project = load_project(ROOT)
    return resolve(project, load_game(project, "kings-blade"), "3.1")


def test_csv_export_has_one_row_per_card_with_every_field_and_effects(cli, project_copy, snapshot31):
    result = cli("table", "export", "--version", "3.1", "--to", "cards.csv", cwd=project_copy)
    assert result.code == 0, result.err
    rows = _rows(project_copy / "cards.csv")
    assert len(rows) == len(snapshot31.cards) == 26
    header = list(rows[0])
    assert header[:4] == ["id", "type", "name", "count"]
    for field in ("points", "needs", "metal", "effects"):
        assert field in header
    by_id = {r["id"]: r for r in rows}
    assert sum(int(r["count"]) for r in rows) == sum(c.count for c in snapshot31.cards) == 90
    katana = snapshot31.card("katana-hilt")
    assert by_id["katana-hilt"]["points"] == str(katana.fields["points"])
    assert by_id["katana-hilt"]["effects"] == "orcish: extra_pour 1; elvish: points 2"
    assert by_id["battle-axe"]["effects"] == "orcish: points 1; dwarvish: mine_bonus 1; elvish: overflow_guard"
    assert by_id["steel"]["metal"] == "steel" and by_id["steel"]["count"] == "20"


def test_xlsx_export_has_a_sheet_per_deck_and_is_deterministic(cli, project_copy, snapshot31):
    for name in ("a.xlsx", "b.xlsx"):
        assert cli("table", "export", "--version", "3.1", "--to", name, cwd=project_copy).code == 0
    a, b = (project_copy / "a.xlsx").read_bytes(), (project_copy / "b.xlsx").read_bytes()
    assert hashlib.sha256(a).digest() == hashlib.sha256(b).digest()
    book = load_workbook(project_copy / "a.xlsx")
    decks = snapshot31.game.decks
    assert book.sheetnames == [d.name for d in decks.values()]
    mine = book["The Mine"]
    header = [c.value for c in mine[1]]
    assert header == ["id", "type", "name", "count", "metal"]
    assert [[c.value for c in row] for row in mine.iter_rows(min_row=2)] == [
        [c.id, "metal", c.name, c.count, c.fields["metal"]] for c in snapshot31.cards_of_type("metal")
    ]
    market = book["Market"]
    assert market.max_row - 1 == len(snapshot31.cards_in_deck("market"))


def test_csv_round_trip_edit_one_cell_then_build(cli, mini):
    assert cli("table", "export", "--version", "2", "--to", f"{MINI_TABLES}/cards.csv", cwd=mini).code == 0
    table = mini / MINI_TABLES / "cards.csv"
    text = table.read_text(encoding="utf-8")
    assert "spark,number,Spark," in text
    table.write_text(text.replace("spark,number,Spark,", "spark,number,Flash,"), encoding="utf-8")
    _mini_version(mini, "cards.csv")
    cards = _show(cli, mini, "3")
    assert cards["spark"]["name"] == "Flash"
    assert cli("validate", "--version", "3", cwd=mini).code == 0
    result = cli("build", "--version", "3", "--paper", "a4", "--fronts-only", "--no-png", "--no-rulebook",
                 "-q", cwd=mini)
    assert result.code == 0, result.err
    out = mini / "build/mini/3"
    assert "Flash" in (out / "svg/card-spark.svg").read_text(encoding="utf-8")
    sheets = next(out.glob("sheets-a4*.pdf"))
    text = "".join(page.extract_text() for page in PdfReader(sheets).pages)
    assert "Flash" in text and "Spark" not in text
    diff = cli("diff", "2", "3", cwd=mini)
    assert "Spark -> Flash" in diff.out
    assert f"[{MINI_TABLES}/cards.csv:" in diff.out


def test_xlsx_round_trip_blank_inherits_count_zero_removes_and_new_rows_add(cli, mini):
    path = mini / MINI_TABLES / "cards.xlsx"
    assert cli("table", "export", "--version", "2", "--to", str(path), cwd=mini).code == 0
    book = load_workbook(path)
    main = book["Main deck"]
    header = [c.value for c in main[1]]
    col = {name: i + 1 for i, name in enumerate(header)}
    rows = {main.cell(r, 1).value: r for r in range(2, main.max_row + 1)}
    main.cell(rows["spark"], col["value"]).value = 5
    main.cell(rows["spark"], col["name"]).value = None  # blank: keeps "Spark"
    main.cell(rows["ember"], col["count"]).value = 0  # removes the card
    new = main.max_row + 1
    for name, value in {"id": "glow", "type": "number", "name": "Glow", "count": 2, "value": 2,
                        "colour": "blue", "effects": "blue: points 1"}.items():
        main.cell(new, col[name]).value = value
    book.save(path)
    _mini_version(mini, "cards.xlsx")
    cards = _show(cli, mini, "3")
    assert cards["spark"]["name"] == "Spark"
    assert cards["spark"]["fields"]["value"] == 5
    assert "ember" not in cards
    assert cards["glow"]["count"] == 2
    assert [e["text"] for e in cards["glow"]["effects"]] == ["[Blue] +1 point"]
    diff = cli("diff", "2", "3", "--format", "json", cwd=mini)
    data = json.loads(diff.out)
    changed = {c["id"]: c for c in data["cards"]["changed"]}
    assert changed["spark"]["source"] == f"{MINI_TABLES}/cards.xlsx, sheet Main deck, row {rows['spark']}"
    assert [c["id"] for c in data["cards"]["removed"]] == ["ember"]
    assert [c["id"] for c in data["cards"]["added"]] == ["glow"]


@pytest.mark.parametrize("column,value,expected", [
    ("value", "three", 'expected an integer, found "three"'),
    ("value", "0x11", 'expected an integer, found "0x11"'),
    ("count", "yes", 'expected an integer, found "yes"'),
    ("count", 20000, "expected a count from 0 to 10000, found 20000"),
    ("effects", "red: pointz 1", "unknown effect 'pointz'"),
    ("effects", "red: points 1 2", "effect 'points' takes 1 value (amount), found '2'"),
    ("type", "sword", "unknown card type 'sword'"),
])
def test_bad_cells_name_file_sheet_and_cell(cli, mini, column, value, expected):
    path = mini / MINI_TABLES / "cards.xlsx"
    assert cli("table", "export", "--version", "2", "--to", str(path), cwd=mini).code == 0
    book = load_workbook(path)
    sheet = book["Main deck"]
    header = [c.value for c in sheet[1]]
    sheet.cell(2, header.index(column) + 1).value = value
    book.save(path)
    _mini_version(mini, "cards.xlsx")
    letter = "ABCDEFGHIJ"[header.index(column)]
    for command in ("validate", "build"):
        result = cli(command, "--version", "3", cwd=mini)
        assert result.code == 2
        lines = result.err.strip().splitlines()
        assert lines == [f"error: {MINI_TABLES}/cards.xlsx, sheet Main deck, {letter}2: {expected}"
                         + lines[0].split(expected, 1)[1]]
        assert "Traceback" not in result.err
    assert not (mini / "build/mini/3").exists()


def test_csv_header_and_row_problems(cli, project_copy):
    table = project_copy / "versions/kings-blade/cards.csv"
    _version(project_copy, "3.2", "cards.csv")
    cases = {
        "id,name,pointz\nkatana-hilt,K,3\n": "cards.csv:2:3: 'pointz' is not a field of Hilt cards",
        "name,count\nK,3\n": "cards.csv:1:1: header row has no 'id' column",
        "id,id\nx,y\n": "cards.csv:1:2: column 'id' appears twice",
        "id,name\nBad Id,x\n": 'cards.csv:2:1: expected a card id (lower-case letters, digits and -), found "Bad Id"',
        "id,name\nnew-card,x\n": "cards.csv:2:1: new card 'new-card' needs a type",
        "id,count\nsteel,3\nsteel,4\n": "cards.csv:3:1: card 'steel' has a second row (first at",
    }
    for content, expected in cases.items():
        table.write_text(content, encoding="utf-8")
        result = cli("validate", "--version", "3.2", cwd=project_copy)
        assert result.code == 2, content
        assert expected in result.err, (content, result.err)
        assert len(result.err.strip().splitlines()) == 1


def test_table_outside_the_project_is_refused(cli, project_copy, tmp_path):
    outside = tmp_path / "elsewhere.csv"
    outside.write_text("id,count\nsteel,3\n", encoding="utf-8")
    for spelling in (str(outside), "../../../elsewhere.csv"):
        _version(project_copy, "3.2", spelling)
        result = cli("validate", "--version", "3.2", cwd=project_copy)
        assert result.code == 2
        assert "lies outside the project" in result.err and "3.2.yml:" in result.err


def test_export_never_overwrites_a_source_or_an_existing_file(cli, project_copy):
    source = project_copy / "versions/kings-blade/cards.csv"
    assert cli("table", "export", "--version", "3", "--to", str(source), cwd=project_copy).code == 0
    source.write_text(source.read_text(encoding="utf-8") + "designer-only-row,hilt,Mine,1,1,1,,,,\n",
                      encoding="utf-8")
    before = source.read_bytes()
    for target in ("versions/kings-blade/cards.csv", str(source), "card_data/../versions/kings-blade/cards.csv"):
        result = cli("table", "export", "--version", "3.1", "--to", target, "--force", cwd=project_copy)
        assert result.code == 2 and "is a project source" in result.err
    assert source.read_bytes() == before
    (project_copy / "mine.csv").write_text("my own notes\n", encoding="utf-8")
    result = cli("table", "export", "--version", "3.1", "--to", "mine.csv", cwd=project_copy)
    assert result.code == 2 and "pass --force" in result.err
    assert (project_copy / "mine.csv").read_text(encoding="utf-8") == "my own notes\n"
    assert cli("table", "export", "--version", "3.1", "--to", "mine.csv", "--force", cwd=project_copy).code == 0
    assert len(_rows(project_copy / "mine.csv")) == 26


def test_describe_of_a_table_backed_version_matches_yaml(cli, project_copy, snapshot31):
    """Exporting 3.1 and reading it back unchanged resolves to the same cards (a true round trip)."""
    for name in ("cards.csv", "cards.xlsx"):
        assert cli("table", "export", "--version", "3.1", "--to", f"versions/kings-blade/{name}",
                   cwd=project_copy).code == 0
        _version(project_copy, "3.2", name)
        project = load_project(project_copy)
        table = resolve(project, load_game(project, "kings-blade"), "3.2")
        expected = describe(snapshot31)["cards"]
        got = describe(table)["cards"]
        assert got == expected


def test_simulate_reads_a_table_backed_version(cli, project_copy):
    """The simulator plays what the table says: a 9-point Katana Hilt wins for whoever completes it.
    40 games a version (seeded: the same games every run) show it as plainly as 120 did: the
    completer's win rate 0.37 -> 1.00 (0.55 -> 0.98 over 120); the figure's precision is not the
    promise. Without the claims: they play games of their own and never change the main run's figures."""
    assert cli("table", "export", "--version", "3.1", "--to", "versions/kings-blade/cards.csv",
               cwd=project_copy).code == 0
    table = project_copy / "versions/kings-blade/cards.csv"
    rows = _rows(table)
    katana = next(r for r in rows if r["id"] == "katana-hilt")
    old_line = ",".join(katana.values())
    katana["points"] = "9"
    table.write_text(table.read_text(encoding="utf-8").replace(old_line, ",".join(katana.values())),
                     encoding="utf-8")
    _version(project_copy, "3.2", "cards.csv")
    figures = {}
    for version in ("3.1", "3.2"):
        result = cli("simulate", "--version", version, "--players", "4", "--games", "40", "--seed", "7",
                     "--jobs", "1", "--format", "json", "--no-claims", cwd=project_copy)
        assert result.code == 0, result.err
        figures[version] = json.loads(result.out)["cards"]["katana-hilt"]
    assert figures["3.2"]["completer_win_rate"] > figures["3.1"]["completer_win_rate"] + 0.2
