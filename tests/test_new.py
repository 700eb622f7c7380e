"""Issue 6: `cardgen new NAME` starts a game that validates and builds at once, rulebook included."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import ROOT
from pypdf import PdfReader

from cardgen.builtin import FONTS_DIR
from cardgen.commands.new import slug
from cardgen.data.project import check_out_dir, load_project
from cardgen.errors import InputError


def _text(pdf) -> str:
    return " ".join(" ".join(page.extract_text().split()) for page in PdfReader(pdf).pages)


def test_name_becomes_a_game_id():
    assert slug("Dragon Race!") == "dragon-race"
    assert slug("  Knights & Knaves 2 ") == "knights-knaves-2"


def test_new_game_inside_a_project_validates_and_builds(cli, project_copy):
    result = cli("new", "Dragon Race", cwd=project_copy)
    assert result.code == 0, result.err
    assert "Next: cardgen build --game dragon-race" in result.out
    for path in ("card_data/dragon-race/game.yml", "versions/dragon-race/1.yml",
                 "templates/dragon-race/card.svg.j2", "templates/dragon-race/back.svg.j2",
                 "templates/dragon-race/rulebook.html.j2"):
        assert (project_copy / path).is_file(), path
    assert 'name: "Dragon Race"' in (project_copy / "card_data/dragon-race/game.yml").read_text()
    assert not (project_copy / "dragon-race").exists()  # no nested project

    result = cli("validate", "--game", "dragon-race", cwd=project_copy)
    assert result.code == 0 and "3 different cards, 9 printed; 0 errors, 0 warnings" in result.out

    result = cli("build", "--game", "dragon-race", "--no-png", "--paper", "a4", cwd=project_copy)
    assert result.code == 0, result.err
    assert result.err == ""  # no warnings: nothing overflows
    sheets = project_copy / "build/dragon-race/1/sheets-a4-duplex.pdf"
    assert len(PdfReader(sheets).pages) == 2  # 9 cards on one sheet, front and back
    rules = _text(project_copy / "build/dragon-race/1/rulebook-a4.pdf")  # from the data
    assert "Components Main deck: 9 cards" in rules
    assert "Shuffle the main deck and deal 3 cards to each player." in rules
    assert "Card list" in rules and "Blaze" in rules


def test_new_outside_a_project_makes_one(cli, tmp_path):
    result = cli("new", "dragon-race", cwd=tmp_path)
    assert result.code == 0, result.err
    root = tmp_path / "dragon-race"
    assert "default_game: dragon-race" in (root / "cardgen.yml").read_text()
    assert (root / ".gitignore").read_text() == "build/\n"
    assert sorted(p.name for p in (root / "fonts").glob("*.ttf")) == [
        "AlegreyaSans-Bold.ttf", "AlegreyaSans-Italic.ttf", "AlegreyaSans-Regular.ttf",
        "Cinzel-Bold.ttf", "Cinzel-Regular.ttf"]
    assert (root / "schema/game.schema.json").is_file()
    assert list((root / "templates/common").iterdir()) == []  # cardgen's own are found without copies
    assert "Dragon Race" in (root / "card_data/dragon-race/game.yml").read_text()

    result = cli("validate", cwd=root)  # the new project's default game
    assert result.code == 0 and "0 errors, 0 warnings" in result.out
    shutil.rmtree(root / "fonts")  # a project without fonts of its own builds with cardgen's
    result = cli("build", "--no-png", "--paper", "letter", cwd=root)
    assert result.code == 0, result.err
    assert (root / "build/dragon-race/1/sheets-letter-duplex.pdf").is_file()
    rulebook = _text(root / "build/dragon-race/1/rulebook-letter.pdf")
    assert "Main deck: 9 cards" in rulebook
    assert "Cards (9)" in rulebook and "Card cards" not in rulebook
    # the designer's notes come from cardgen's own template: the project has none of its own
    notes = _text(root / "build/dragon-race/1/notes-letter.pdf")
    assert "Designer's notes".upper() in notes.upper() and "Dragon Race" in notes
    assert "Check results" in notes and "The first version: nothing to compare with." in notes
    embedded = subprocess.run(["pdffonts", root / "build/dragon-race/1/rulebook-letter.pdf"],
                              capture_output=True, text=True, check=True).stdout
    assert "Cinzel" in embedded and "Alegreya-Sans" in embedded  # weasyprint names the family so


def test_output_guard_protects_a_projects_sources_not_every_tests_folder(cli, tmp_path):
    assert cli("new", "dragon-race", cwd=tmp_path).code == 0
    project = load_project(tmp_path / "dragon-race")
    assert check_out_dir(project, project.root / "tests" / "out") == project.root / "tests" / "out"
    for source in ("card_data", "versions/x", "templates", "icons", "fonts", "schema"):
        with pytest.raises(InputError, match="holds your sources"):
            check_out_dir(project, project.root / source)
    with pytest.raises(InputError, match="holds your sources"):  # cardgen's own files
        check_out_dir(project, FONTS_DIR.parent / "out")
    with pytest.raises(InputError, match="project folder itself"):
        check_out_dir(project, project.root)


def test_output_guard_protects_the_folders_cardgen_yml_lists(cli):
    result = cli("build", "-v", "3.1", "--out", "tests/out")  # this repository lists tests/ as protected
    assert result.code == 2 and "holds your sources" in result.err
    assert not (ROOT / "tests/out").exists()


def test_new_refuses_an_existing_game(cli, project_copy):
    result = cli("new", "kings-blade", cwd=project_copy)
    assert result.code == 2
    assert "game 'kings-blade' already exists" in result.err
    assert cli("new", "!!!", cwd=project_copy).code == 2


def test_new_never_overwrites_a_template_left_from_an_earlier_game(cli, project_copy):
    mine = project_copy / "templates" / "dragon-race" / "card.svg.j2"
    mine.parent.mkdir(parents=True)
    mine.write_text("my own drawing")
    result = cli("new", "Dragon Race", cwd=project_copy)
    assert result.code == 2 and "card.svg.j2 already exists; refusing to overwrite it" in result.err, result.err
    assert mine.read_text() == "my own drawing"
    assert not (project_copy / "card_data" / "dragon-race").exists()  # nothing half-made
    assert sorted(p.name for p in mine.parent.iterdir()) == ["card.svg.j2"]
