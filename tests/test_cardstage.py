"""Issue 26 (1, 5): one card stage for build, validate, serve and the exports, and a Snapshot
that is immutable plain data.

The same broken data goes through `cardgen validate`, `cardgen build` and the preview's state:
all three report the same findings, preflight included, because all three run
`cardstage.draw_cards`.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import importlib.util
import pickle
from pathlib import Path

import pytest
from conftest import ROOT

import cardgen
from cardgen.cardstage import FaceCache, draw_cards
from cardgen.data.project import load_project
from cardgen.data.snapshot import Snapshot
from cardgen.data.translator import Translation, translator_of
from cardgen.data.versions import load_game, resolve
from cardgen.i18n.localise import localise
from cardgen.preview.state import Preview
from cardgen.render.cards import CardRenderer

PACKAGE = Path(cardgen.__file__).parent
V1 = "versions/kings-blade/1.yml"
LONG = "Katana Hilt of the Extraordinarily Long and Winding Name That Never Ends"


def _edit(project: Path, rel: str, old: str, new: str) -> None:
    path = project / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _validate_lines(cli, project: Path) -> tuple[int, list[str]]:
    result = cli("validate", "--version", "3.1", cwd=project)
    lines = result.out.splitlines()
    assert lines[-1].startswith("The King's Blade 3.1: "), result.out + result.err
    return result.code, lines[:-1]


def _build_lines(cli, project: Path, out: Path) -> tuple[int, list[str]]:
    result = cli("build", "--version", "3.1", "--paper", "a4", "--no-png", "--no-rulebook", "--out", str(out),
                 cwd=project)
    assert "Traceback" not in result.err
    return result.code, [line for line in result.err.splitlines() if not line.startswith("error: ")
                         or ": error: " in line]


def test_overflow_and_preflight_warnings_are_the_same_in_validate_build_and_serve(cli, seed_copy, tmp_path):
    _edit(seed_copy, V1, "name: Katana Hilt", f"name: {LONG}")
    code, validated = _validate_lines(cli, seed_copy)
    assert code == 0
    assert any("text-overflow" in line and "card katana-hilt" in line for line in validated), validated
    assert all(": warning: " in line for line in validated)

    state = Preview(seed_copy, "kings-blade", "3.1").refresh()
    assert state.error is None
    assert state.findings == validated

    code, built = _build_lines(cli, seed_copy, tmp_path / "out")
    assert code == 0
    assert built == validated

    # the preview's cache keeps each face's findings: nothing changed, nothing drawn, same findings
    preview = Preview(seed_copy, "kings-blade", "3.1")
    first = preview.refresh()
    again = preview.refresh()
    assert first.rendered == len(first.cards) and again.rendered == 0
    assert again.findings == validated
    # another card edited: that one card is drawn again, the katana's warning stays listed
    _edit(seed_copy, V1, "name: Arming Sword", "name: Broad Sword")
    edited = preview.refresh()
    assert edited.rendered == 1
    assert edited.findings == validated


def test_render_errors_are_the_same_in_validate_build_and_serve(cli, seed_copy, tmp_path):
    # a template reading a field its cards lack, and a template drawing an icon that is missing
    _edit(seed_copy, "templates/kings-blade/metal.svg.j2", "{% set m = symbol(card.fields.metal) %}",
          "{% set m = symbol(card.fields.metal) %}{{ card.fields.lustre.shade }}")
    _edit(seed_copy, "templates/kings-blade/forge-token.svg.j2", '{{ icon(card.art,',
          '{{ icon("kings-blade/no-such-icon", 1, 1, 2) }}{{ icon(card.art,')
    code, validated = _validate_lines(cli, seed_copy)
    assert code == 1
    errors = [line for line in validated if ": error: " in line]
    assert len(errors) == 2, validated
    assert any("metal.svg.j2" in line and "lustre" in line and "more card" in line for line in errors), errors
    assert any("no-such-icon" in line and "[card forge-token]" in line for line in errors), errors

    state = Preview(seed_copy, "kings-blade", "3.1").refresh()
    assert state.findings == validated
    assert state.error == "\n".join(errors)

    code, built = _build_lines(cli, seed_copy, tmp_path / "out")
    assert code == 1
    assert built == errors  # a build that stops says its errors
    assert not (tmp_path / "out").exists()


def test_a_document_template_error_is_the_same_in_validate_build_and_serve(cli, tmp_path):
    """The rulebook's template is rendered by validate and by the preview as build renders it:
    an error there is one finding at its line in all three (the cards themselves are fine)."""
    assert cli("new", "Dragon Race", cwd=tmp_path).code == 0
    root = tmp_path / "dragon-race"
    rulebook = "templates/dragon-race/rulebook.html.j2"
    lines = (root / rulebook).read_text(encoding="utf-8").splitlines()
    line = lines.index("{% block rules %}") + 2
    lines.insert(line - 1, "{{ no_such_value.attribute }}")
    (root / rulebook).write_text("\n".join(lines) + "\n", encoding="utf-8")

    result = cli("validate", cwd=root)
    assert result.code == 1
    validated = result.out.splitlines()[:-1]
    assert len(validated) == 1 and validated[0].startswith(f"{rulebook}:{line}: error: "), validated

    state = Preview(root, None, None).refresh()
    assert state.findings == validated
    assert state.error == validated[0]
    assert state.cards  # the cards are drawn: only the rulebook is broken

    build = cli("build", "--no-png", "--paper", "a4", "--out", "o", cwd=root)
    assert build.code == 1
    assert build.err.strip() == f"error: {rulebook}:{line}: " + validated[0].split(": error: ", 1)[1].rsplit(" (", 1)[0]
    assert not (root / "o").exists()


def test_one_card_stage_and_the_old_loops_are_gone():
    assert importlib.util.find_spec("cardgen.render.checks") is None
    assert not hasattr(CardRenderer, "render_all")
    defined, calls = set(), {}
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defined.add(node.name)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "CardRenderer":
                calls.setdefault(path.relative_to(PACKAGE).as_posix(), 0)
                calls[path.relative_to(PACKAGE).as_posix()] += 1
    assert {"render_all", "render_checks", "render_stage"} & defined == set()
    assert "draw_cards" in defined
    assert calls == {"cardstage.py": 1}  # the one place faces are drawn


@pytest.fixture(scope="module")
def dutch():
    project = load_project(ROOT)
    source = resolve(project, load_game(project, "kings-blade"), "3.1")
    return project, source, localise(source, "nl")


def test_the_snapshot_is_frozen_plain_data_with_one_language_name(dutch):
    _, source, snapshot = dutch
    names = {f.name for f in dataclasses.fields(Snapshot)}
    assert "language" in names and "lang" not in names and "translator" not in names
    assert source.language == "en" and source.translation is None
    assert snapshot.language == "nl" and isinstance(snapshot.translation, Translation)
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.language = "de"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.translation = None  # type: ignore[misc]
    with pytest.raises(TypeError):
        snapshot.translation.messages["Forge"] = ("x",)  # type: ignore[index]
    # plain data: it goes to worker processes and is copied whole
    assert pickle.loads(pickle.dumps(snapshot)).translation == snapshot.translation
    assert copy.deepcopy(snapshot).translation.messages == snapshot.translation.messages


def test_missing_translations_are_returned_not_written_into_the_snapshot(dutch):
    project, _, snapshot = dutch
    translation = snapshot.translation
    words = dict(translation.messages)
    some = next(iter(words))
    smaller = dataclasses.replace(snapshot, translation=dataclasses.replace(
        translation, messages={k: v for k, v in words.items() if k != "Forge"}))
    drawn = draw_cards(project, smaller, checks=False)
    assert drawn.errors == []
    assert "Forge" in drawn.missing  # the forge token's template string
    [finding] = [f for f in drawn.findings if f.code == "untranslated-template"]
    assert finding.message.startswith("1 template string not translated into 'nl', printed in the source "
                                      "language: 'Forge'")
    # nothing was left behind: the snapshot and a new translator know nothing of it
    assert smaller.translation.missing == translation.missing and "Forge" not in translation.missing
    assert translator_of(smaller).missing == {}
    assert dict(snapshot.translation.messages) == words and some in words


def test_the_cache_draws_a_face_again_only_when_its_inputs_change(dutch):
    project, source, _ = dutch
    cache = FaceCache()
    first = draw_cards(project, source, cache, checks=False)
    again = draw_cards(project, source, cache)
    assert first.drawn == len(first.rendered.faces) + len(first.rendered.backs) and again.drawn == 0
    assert again.rendered.faces == first.rendered.faces  # the same faces, now preflighted too
    assert [t.stage for t in again.timings] == ["validate", "render", "preflight"]
    card = source.cards[0]
    renamed = dataclasses.replace(source, cards=[dataclasses.replace(card, name="Renamed")] + source.cards[1:])
    assert draw_cards(project, renamed, cache).drawn == 1


def test_a_face_whose_svg_changed_is_judged_again(mini):
    """A process keeps each face's preflight findings and well-formedness by its SVG (`serve`
    redraws unchanged faces after most edits): a back moved into the trim margin between two
    draws is found there, back in place it is clean again, and a template broken after a good
    draw fails at once."""
    def drawn():
        project = load_project(mini)
        return draw_cards(project, resolve(project, load_game(project, None), "1"))

    def margin(result) -> list[str]:
        return [f.card for f in result.findings if f.code == "preflight-safe-zone"]

    first = drawn()
    assert not first.errors and "back-main" not in margin(first)
    back = "templates/mini/back.svg.j2"
    _edit(mini, back, "textbox(deck.name, 8, h / 2 + 4,", "textbox(deck.name, 8, h - 5,")
    assert {"back-main", "back-coins"} <= set(margin(drawn()))
    _edit(mini, back, "textbox(deck.name, 8, h - 5,", "textbox(deck.name, 8, h / 2 + 4,")
    assert drawn().findings == first.findings
    _edit(mini, back, "valign=\"middle\", fill=paper) }}\n{{ textbox(deck.name",
          "valign=\"middle\", fill=paper) }}\n<g><rect></g>\n{{ textbox(deck.name")
    assert any("is not well-formed SVG" in f.message for f in drawn().errors)


def test_an_icon_edited_between_two_passes_is_drawn_anew(mini):
    """A card stage reads each icon once for all its faces (contain.Icons); the next pass, as
    `cardgen serve` makes after an edit, reads the edited file: its faces show the new drawing."""
    template = mini / "templates" / "mini" / "card.svg.j2"  # every number card prints the symbol's icon
    template.write_text(template.read_text(encoding="utf-8") + "{{ icon(symbol(card.fields.colour).icon, 1, 1, 5) }}\n", encoding="utf-8")
    project = load_project(mini)
    snapshot = resolve(project, load_game(project, None), "1")
    cache = FaceCache()
    first = draw_cards(project, snapshot, cache)
    old_path = "M50 91 C 45 84"
    users = sorted(name for name, face in first.rendered.faces.items() if old_path in face.svg)
    assert len(users) >= 2  # one reading served several faces
    _edit(mini, "icons/common/suit-hearts.svg", old_path, "M50 95 C 45 84")
    again = draw_cards(project, snapshot, cache)
    assert sorted(name for name, face in again.rendered.faces.items() if "M50 95 C 45 84" in face.svg) == users
    assert not any(old_path in face.svg for face in again.rendered.faces.values())
