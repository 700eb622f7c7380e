"""Issue 13: the designer's notes, notes-<paper>.pdf beside the players' rulebook, built from
the same data: change log, feedback with translations, choices, open questions, findings."""

from __future__ import annotations

import re
from pathlib import Path

import pikepdf
import pytest
from conftest import ROOT, pdfium_prose_pages

from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve

A4_PT = (595.28, 841.89)
VERSIONS = [("kings-blade", "1"), ("kings-blade", "2"), ("kings-blade", "3"), ("kings-blade", "3.1"),
            ("way-of-the-blade", "1"), ("one-true-king", "1"), ("knightfall", "1"), ("kings-guild", "1")]


def _snapshot(root: Path, game: str, version: str):
    project = load_project(root)
    return project, resolve(project, load_game(project, game), version)


def _text(pdf: Path) -> str:
    return " ".join(pdfium_prose_pages(pdf))


def _body(text: str) -> str:
    """The notes after their list of contents (which names every section once already)."""
    return text[text.index("At a glance", text.index("At a glance") + 1):]


@pytest.fixture(scope="module")
def notes(seed_builds):
    """The A4 notes of every version of every game, as the pipeline's notes stage writes them
    (the session's seed builds)."""
    found = {}
    for game, version in VERSIONS:
        seed = seed_builds.get(game, version)
        output = seed.outputs["notes-a4.pdf"]
        assert output.path == seed.out / "notes-a4.pdf" and output.warnings == []
        found[(game, version)] = (seed.snapshot, output, _text(output.path))
    return found


@pytest.mark.parametrize("game, version", VERSIONS)
def test_every_version_has_notes_on_a4_pages(notes, game, version):
    snapshot, output, text = notes[(game, version)]
    with pikepdf.open(output.path) as pdf:
        assert len(pdf.pages) == output.pages >= 1
        for page in pdf.pages:
            box = [float(v) for v in page.mediabox]
            assert abs(box[2] - A4_PT[0]) < 0.5 and abs(box[3] - A4_PT[1]) < 0.5
    # cardgen's words in the game's language (The King's Guild is written in Italian)
    label, version_word = {"en": ("DESIGNER'S NOTES", "Version"), "it": ("NOTE DELL'AUTORE", "Versione")}[
        snapshot.language]
    title = snapshot.info.title or f"{version_word} {snapshot.version}"
    assert text.startswith(f"{label} {snapshot.game.name} · {title}")  # the label is set in capitals
    for line in snapshot.info.notes.choices:
        assert " ".join(line.split())[:60] in text


def test_notes_hold_the_change_log_of_the_whole_chain(notes):
    _, _, text = notes[("kings-blade", "3.1")]
    assert "The Forge Token must now always be on a sword part." in text  # 3.1
    assert "Changed the maximum metal cards in your hand from 4 to 3." in text  # 3
    assert "Added a maximum of 4 metals in your hand (storage)." in text  # 2
    # computed from the data against version 3: only the forge rule changed
    body = _body(text)
    changed = body[body.index("What the data changes since Version 3"):body.index("Authoring choices")]
    assert "Forge: Place your forge token on one of your sword parts; it must always be on one." in changed
    assert "(was: Place your forge token on one of your sword parts, or leave it off.)" in changed


def test_feedback_is_printed_beside_its_translation(notes):
    snapshot, _, text = notes[("kings-blade", "2")]
    fb = snapshot.info.notes.feedback
    assert fb.language == "nl" and "Received in Dutch, translated into English." in text
    for said, meant in zip(fb.negative, fb.translation.negative):
        assert f"{said} {meant}" in text  # one table row: the line as received, then its translation
    assert "De katana hilt lijkt niet erg sterk vergeleken met de andere hilt" in text
    assert "The katana hilt does not seem very strong compared with the other hilts." in text


def test_validator_findings_are_listed_with_their_place(notes):
    _, _, text = notes[("kings-blade", "1")]
    findings = _body(text)[_body(text).index("Check results"):]
    assert "(0 errors, 2 warnings)" in findings
    assert re.search(r"there is no way to end the game \(no end_condition\) versions/kings-blade/1\.yml:\d+:\d+ · "
                     r"empty-rule", findings)
    assert "overflow-loop" in findings
    _, _, clean = notes[("kings-blade", "3.1")]
    assert "cardgen validate finds no errors and no warnings in this version." in clean


def test_the_rules_the_seed_leaves_open_are_the_designers(notes):
    """The players' rulebook prints one answer as a rule; the notes ask the question and give the
    version's answer and every other answer the data offers."""
    snapshot, _, text = notes[("knightfall", "1")]
    body = _body(text)
    asked = body[body.index("Rules the design leaves open"):body.index("Open questions")]
    specs = snapshot.game.rule_specs
    for key in ("both_defend", "strong_weak_display", "linked_cards", "reversed_battle"):
        spec = specs[key]
        assert spec.open_question in asked, key
        chosen = snapshot.rules[key]
        assert f"This version: {chosen}: {spec.values[chosen]}" in asked, key
        for value, sentence in spec.values.items():
            if value != chosen:
                assert f"Other answer: {value}: {sentence}" in asked, (key, value)
    assert "None: the rulebook answers everything it asks." in body


@pytest.mark.parametrize("game, version", [("kings-blade", "1"), ("kings-blade", "2"), ("kings-blade", "3")])
def test_the_kings_blade_answers_its_open_table_rules_from_version_1(notes, game, version):
    """Versions 1-3 used to ask the players 'which blade?', 'where does the metal go?' and 'the
    market and the mine' in boxes: now each version answers them in its data (version 1, and 2
    for the metals' order) and the notes carry the questions with every answer."""
    snapshot, _, text = notes[(game, version)]
    body = _body(text)
    asked = body[body.index("Rules the design leaves open"):body.index("Open questions")]
    for key in ("blade_deal", "market_refill", "market_runs_out", "metal_discard", "mine_runs_out"):
        spec = snapshot.game.rule_specs[key]
        assert snapshot.rules[key] == spec.default, key
        assert spec.open_question in asked and f"This version: {snapshot.rules[key]}:" in asked, key
    if version == "1":  # pourer-chooses overflow: the order of the metals does not matter yet
        assert snapshot.rules.get("metal_order") is None and "Not decided by this version." in asked


def test_a_players_rulebook_template_asking_for_a_question_box_stops(cli, project_copy):
    """The box macro is gone for players: a template asking for one stops validate and build
    with one line saying what to do instead."""
    template = project_copy / "templates/way-of-the-blade/rulebook.html.j2"
    text = template.read_text(encoding="utf-8")
    assert "{% block rules %}" in text
    template.write_text(text.replace("{% block rules %}", '{% block rules %}\n{% call rb.aside("question", "who deals?") %}<p>x</p>{% endcall %}', 1),
                        encoding="utf-8")
    for command in (("validate", "--game", "way-of-the-blade"),
                    ("build", "--game", "way-of-the-blade", "--paper", "a4", "--no-png", "--out", "o")):
        result = cli(*command, cwd=project_copy)
        assert result.code == 1, (command, result.out, result.err)
        said = result.out + result.err
        errors = [line for line in said.splitlines() if ": error" in line or line.startswith("error")]
        assert len(errors) == 1 and "asks for a box of kind 'question': a players' rulebook holds rules only" in errors[0]
        assert re.search(r"templates/common/rulebook-macros\.html\.j2:\d+: ", errors[0]) and "Traceback" not in said


def test_numbers_in_the_choices_are_the_datas(notes):
    """The V2 choice once said 'the market keeps 19 cards' against its own 8 + 12 = 20."""
    snapshot, _, text = notes[("kings-blade", "2")]
    m = re.search(r"the market keeps (\d+) cards \((\d+) hilts, (\d+) upgrades; V1 had (\d+)\)", text)
    assert m
    market, hilts, upgrades, before = map(int, m.groups())
    assert market == snapshot.deck_size("market") == hilts + upgrades
    assert hilts == sum(c.count for c in snapshot.cards_of_type("hilt"))
    assert upgrades == sum(c.count for c in snapshot.cards_of_type("upgrade"))
    _, v1 = _snapshot(ROOT, "kings-blade", "1")
    assert before == v1.deck_size("market")


def test_a_translation_with_a_line_missing_is_one_error_line(cli, project_copy):
    path = project_copy / "versions/kings-blade/2.yml"
    text = path.read_text()
    path.write_text(text.replace("        - Good use of symbols.\n", "", 1))
    result = cli("validate", "--version", "2", cwd=project_copy)
    assert result.code in (1, 2)
    lines = [line for line in (result.out + result.err).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert re.match(r".*versions/kings-blade/2\.yml:\d+:\d+: .*feedback\.translation\.positive has 2 lines but "
                    r"feedback\.positive has 3", lines[0])
