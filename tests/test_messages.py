"""Issue 28: messages a user can act on. One line naming the file and line (or the card), what
was expected in the user's words (no class names), once per cause, counts in proper English,
and `serve` refusing a game, version or language that does not exist as every command does."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

# the fixture project tests/projects/mini (conftest's `mini`: a private copy)
GAME = "card_data/mini/game.yml"
V2 = "versions/mini/2.yml"


def edit(project: Path, rel: str, old: str, new: str) -> None:
    path = project / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


# --- what was expected, in the user's words -------------------------------------------------


@pytest.mark.parametrize("appended,where,expected", [
    ("notes: just a string\n", "notes", "notes: expected a mapping (key: value), found a string 'just a string'"),
    ("cards: [nope]\n", "cards", "cards[0]: expected a mapping (key: value), found a string 'nope'"),
    ("notes: {feedback: 3}\n", "notes", "notes.feedback: expected a mapping (key: value), found an integer 3"),
    ("symbols: {gold: 3}\n", "symbols", "symbols.gold: expected a mapping (key: value), found an integer 3"),
])
def test_type_errors_name_no_python_class(cli, mini, appended, where, expected):
    (mini / V2).write_text('extends: "1"\n' + appended)
    result = cli("validate", "-v", "2", cwd=mini)
    assert result.code == 2 and "Traceback" not in result.err
    [only] = result.err.splitlines()
    assert re.fullmatch(rf"error: {re.escape(V2)}:2:\d+: {re.escape(expected)}", only), only
    assert not re.search(r"instance of|Notes|CardEntry|Symbol\b|Feedback|dictionary", only)


@pytest.mark.parametrize("old,new,key,closest", [
    ("token: {width_mm: 30, height_mm: 30}", "token: {width_mm: 30, height_mm: 30, depth: 1}", "depth", None),
    ("    label: Number\n", "    labl: Number\n", "labl", "label"),
    ("colour: {type: symbol, of: colour, required: true, label: Colour}",
     "colour: {type: symbol, of: colour, requird: true, label: Colour}", "requird", "required"),
    ("    summary: Draw cards.\n", "    sumary: Draw cards.\n", "sumary", "summary"),
], ids=["sizes", "card_types", "fields", "effects"])
def test_unknown_key_in_a_named_entry_lists_the_valid_keys(cli, mini, old, new, key, closest):
    edit(mini, GAME, old, new)
    line = line_of(mini / GAME, key)
    result = cli("validate", cwd=mini)
    assert result.code == 2 and "Traceback" not in result.err
    [line_shown] = [x for x in result.err.splitlines() if f"unknown key '{key}'" in x]
    assert line_shown.startswith(f"error: {GAME}:{line}:")
    listed = re.search(r"expected one of: ([a-z_, ]+)", line_shown)
    assert listed and len(listed.group(1).split(", ")) >= 2, line_shown
    if closest:
        assert closest in listed.group(1).split(", ") and line_shown.endswith(f"did you mean '{closest}'?")


# --- once per cause, at the cause ------------------------------------------------------------


def test_a_card_template_error_is_one_finding_naming_every_card(cli, mini):
    template = mini / "templates/mini/card.svg.j2"
    lines = template.read_text().splitlines()
    lines.insert(2, "{{ card.fields.no_such_field }}")
    template.write_text("\n".join(lines) + "\n")
    result = cli("validate", "-v", "1", "--format", "json", cwd=mini)
    assert result.code == 1
    errors = [f for f in json.loads(result.out)["findings"] if f["severity"] == "error"]
    numbers = ["spark", "ember", "blaze"]  # every card drawn by card.svg.j2, in the data's order
    assert len(errors) == 1 and errors[0]["card"] == numbers[0]
    assert errors[0]["message"].startswith("template card.svg.j2:3 failed for card 'spark': ")
    assert errors[0]["message"].endswith(f"(the same for 2 more cards: {', '.join(numbers[1:])})")
    text = cli("validate", "-v", "1", cwd=mini)
    assert len([x for x in text.out.splitlines() if ": error: " in x]) == 1 and "1 error," in text.out
    build = cli("build", "-v", "1", "--out", "o", cwd=mini)
    assert build.code == 1 and build.err.count("card.svg.j2:3") == 1
    assert build.err.splitlines()[-1] == "error: 1 error in the game data; nothing was built"


def test_a_sentence_icon_is_reported_at_the_sentence_not_the_card(cli, mini):
    path = mini / GAME
    path.write_text(path.read_text().replace("{{ icon('common/suit-spades') }}", "{{ icon('common/no-spade') }}"))
    line = line_of(mini / GAME, "no-spade")
    result = cli("validate", cwd=mini)
    assert result.code == 1
    errors = [x for x in result.out.splitlines() if ": error: " in x]
    assert len(errors) == 1 and errors[0].startswith(f"{GAME}:{line}:"), errors
    assert "icon('common/no-spade') in the sentence of effect 'swap' (" in errors[0]
    assert "(missing-icon)" in errors[0]


# --- singular and plural ---------------------------------------------------------------------


def test_counts_are_singular_or_plural(cli, tmp_path):
    assert cli("new", "Dragon Race", cwd=tmp_path).code == 0
    root = tmp_path / "dragon-race"
    validate = cli("validate", cwd=root)
    assert "3 different cards, 9 printed; 0 errors, 0 warnings" in validate.out
    # nine poker cards: one A4 page a side
    build = cli("build", "--paper", "a4", "--no-png", "--no-rulebook", cwd=root)
    assert build.code == 0, build.err
    out = build.out
    assert re.search(r"sheets-a4-onesided\.pdf\s+print sheets, A4, one-sided, 1 page = 1 sheet of paper", out) \
        or re.search(r"print sheets, A4, duplex \(flip on long edge\), 2 pages = 1 sheet of paper", out), out
    assert "(s)" not in out and "1 pages" not in out and "1 sheets" not in out
    edit(root, "versions/dragon-race/1.yml", "value: 1,", "value: 100,")
    one = cli("validate", cwd=root)
    assert one.code == 1 and "; 1 error, 0 warnings" in one.out


# --- serve: a game, version or language that does not exist ----------------------------------


@pytest.mark.parametrize("args", [("--lang", "xx"), ("--lang", "de"), ("--version", "99"), ("--game", "nope")],
                         ids=["unknown-language", "no-translation", "no-version", "no-game"])
def test_serve_refuses_what_does_not_exist_before_serving(cli, mini, args):
    validate = cli("validate", *args, cwd=mini)
    assert validate.code == 2
    [expected] = validate.err.splitlines()
    proc = subprocess.run([sys.executable, "-m", "cardgen", "--project", str(mini), "serve", "--port", "0",
                           "--no-browser", *args], capture_output=True, text=True, timeout=120, cwd=mini,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(mini)})
    assert proc.returncode == 2 and "Serving" not in proc.stderr
    assert proc.stderr.splitlines() == [expected]
