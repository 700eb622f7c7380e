"""Issue 10: validate says what build will say; silent acceptance of wrong data; docs a newcomer
follows; and property-based tests: any input to the YAML loader and the data model ends in exit
0, 1 or 2, never an internal error.

The core's promises run on copies of tests/projects/mini (`mini`, `mini_shared`); the seed project
is read where the promise is about its files (every real YAML file read alike by both parsers, the
docs' names) or needs more than mini has (a sentence printed by more than three cards)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MINI, ROOT, copy_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgen.data import model, yamlsource
from cardgen.errors import CardgenError

GAME = "card_data/kings-blade/game.yml"
MINI_GAME = "card_data/mini/game.yml"
MINI_V1 = "versions/mini/1.yml"
MINI_V3 = "versions/mini/3.yml"  # a version 3 over tests/projects/mini's version 2, written by a test


def edit(project: Path, rel: str, old: str, new: str) -> None:
    path = project / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def validate_json(cli, project: Path, *args: str):
    result = cli("validate", "--format", "json", *args, cwd=project)
    assert "Traceback" not in result.err and "internal error" not in result.err, result.err
    return result.code, json.loads(result.out) if result.out.strip().startswith("{") else result.err


# --- 4. validate runs the build's render checks -----------------------------------------------


def test_new_game_with_an_optional_field_left_out(cli, mini):
    """The `cardgen new` skeleton reads an optional field; a card without it must build, and a
    template that reads it carelessly must fail in validate exactly as in build."""
    assert cli("new", "Dragon Race", cwd=mini).code == 0
    version = mini / "versions/dragon-race/1.yml"
    text = version.read_text()
    assert ", text: Draw a card." in text
    version.write_text(text.replace(", text: Draw a card.", ""))  # the first card has no text
    code, report = validate_json(cli, mini, "--game", "dragon-race")
    assert code == 0 and report["errors"] == 0, report

    card = mini / "templates/dragon-race/card.svg.j2"
    card.write_text(card.read_text().replace('{% if card.fields.get("text") %}', "{% if card.fields.text %}"))
    code, report = validate_json(cli, mini, "--game", "dragon-race")
    assert code == 1
    [finding] = [f for f in report["findings"] if f["severity"] == "error"]
    assert finding["code"] == "render" and finding["card"]
    assert re.match(r"template card\.svg\.j2:12 failed for card '[a-z-]+': .*'dict object' has no attribute 'text'",
                    finding["message"]), finding
    build = cli("build", "--game", "dragon-race", cwd=mini)
    assert build.code == 1 and finding["message"] in build.err and "Traceback" not in build.err


def test_validate_reports_a_missing_sentence_icon(cli, project_copy):
    """Once, at the sentence in game.yml that writes the icon, naming the cards that print it."""
    edit(project_copy, GAME, 'text: {count: amount, one: "+{{ amount }} sword point", other: "+{{ amount }} sword points"}',
         "text: \"+{{ amount }} {{ icon('kings-blade/no-such-icon') }} sword\"")
    line = line_of(project_copy / GAME, "no-such-icon")
    code, report = validate_json(cli, project_copy, "-v", "1")
    assert code == 1
    [error] = [f for f in report["findings"] if f["severity"] == "error"]
    assert (error["code"], error["file"], error["line"]) == ("missing-icon", GAME, line)
    users = [c.id for c in _snapshot(project_copy, "1").cards if any(e.do == "points" for e in c.effects)]
    assert len(users) > 3 and error["card"] == users[0]
    assert f"in the sentence of effect 'points' ({len(users)} cards: {', '.join(users[:3])} and " \
           f"{len(users) - 3} more)" in error["message"]


def line_of(path: Path, text: str) -> int:
    """The 1-based line of `path` holding `text` (the one a message must name)."""
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


def _snapshot(project: Path, version: str, game: str = "kings-blade"):
    from cardgen.data.project import load_project
    from cardgen.data.versions import load_game, resolve

    loaded = load_project(project)
    return resolve(loaded, load_game(loaded, game), version)


def errors_of(result) -> list[str]:
    return [line for line in (result.out + result.err).splitlines() if ": error: " in line]


# --- issue 28: a face too large, and the rulebook's templates, are found by validate ----------

@pytest.mark.parametrize("old,new,where", [  # on mini's coin (a named 30 mm size) and its card type
    ("token: {width_mm: 30, height_mm: 30}", "token: {width_mm: 3000, height_mm: 3000}", "token: {"),
    ("token: {width_mm: 30, height_mm: 30}", "token: {width_mm: 30, height_mm: 3000}", "token: {"),
    ("size: token", "size: {width_mm: 40, height_mm: 3000}", "size: {width_mm: 40, height_mm: 3000}"),
], ids=["size-hundred-times", "size-tall", "inline-size"])
def test_a_face_too_large_fails_validate_and_build_at_its_size(cli, mini, old, new, where):
    edit(mini, MINI_GAME, old, new)
    line = line_of(mini / MINI_GAME, where)
    validate = cli("validate", cwd=mini)
    assert validate.code == 1 and "Traceback" not in validate.err
    [error] = errors_of(validate)
    assert re.match(rf"{re.escape(MINI_GAME)}:{line}:\d+: error: card type '[a-z-]+' measures .* more than the limit "
                    r"of 1,200 mm a side; .*\(too-large\)$", error), error
    build = cli("build", "--out", "o", cwd=mini)
    assert build.code == 1 and error in build.err and "CAIRO" not in build.err and "Traceback" not in build.err
    assert not (mini / "o").exists()


def test_face_limit_is_set_in_cardgen_yml_and_capped_at_what_cairo_draws(cli, mini):
    config = mini / "cardgen.yml"
    config.write_text(config.read_text() + "limits: {face_mm: 80}\n")
    code, report = validate_json(cli, mini, "-v", "1")
    assert code == 1
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert {(f["code"], f["file"], f["line"]) for f in errors} == {
        ("too-large", MINI_GAME, line_of(mini / MINI_GAME, "card_size:"))}
    assert "94 mm with bleed" in errors[0]["message"] and "set limits.face_mm" in errors[0]["message"]
    config.write_text(config.read_text().replace("face_mm: 80", "face_mm: 3000"))
    result = cli("validate", "-v", "1", cwd=mini)
    assert result.code == 2
    assert re.fullmatch(r"error: cardgen\.yml:\d+:\d+: limits\.face_mm: .*\b2774\b.*\n", result.err), result.err


def _renamed_deck_project(cli, tmp_path: Path) -> Path:
    """A `cardgen new` project whose deck 'main' is renamed 'draw' everywhere but the rulebook."""
    assert cli("new", "Dragon Race", cwd=tmp_path).code == 0
    root = tmp_path / "dragon-race"
    game = root / "card_data/dragon-race/game.yml"
    game.write_text(game.read_text().replace("deck: main", "deck: draw").replace("  main: {name", "  draw: {name"))
    edit(root, "versions/dragon-race/1.yml", "{deck: main,", "{deck: draw,")
    return root


def test_rulebook_template_error_fails_validate_as_it_fails_build(cli, tmp_path):
    root = _renamed_deck_project(cli, tmp_path)
    rulebook = "templates/dragon-race/rulebook.html.j2"
    line = line_of(root / rulebook, 'deck("main").name')
    validate = cli("validate", cwd=root)
    assert validate.code == 1, validate.out
    [error] = errors_of(validate)
    assert error == (f"{rulebook}:{line}: error: rulebook mentions deck 'main', which the game does not declare "
                     "(expected one of: draw) (rulebook)")
    assert "1 error, 0 warnings" in validate.out
    code, report = validate_json(cli, root)
    assert code == 1 and [(f["code"], f["file"], f["line"]) for f in report["findings"]] == [("rulebook", rulebook, line)]
    build = cli("build", "--no-png", "--paper", "a4", "--out", "o", cwd=root)
    assert build.code == 1 and build.err.strip() == f"error: {rulebook}:{line}: rulebook mentions deck 'main', " \
        "which the game does not declare (expected one of: draw)"
    assert not [p for p in (root / "o").rglob("*.pdf")]
    # the fix makes both clean
    edit(root, rulebook, 'deck("main").name', 'deck("draw").name')
    assert cli("validate", cwd=root).code == 0


@pytest.mark.parametrize("template,block", [
    ("notes.html.j2", "{% block cover %}"),
    ("rulebook.html.j2", "{% block rules %}"),
])
def test_every_document_template_is_rendered_by_validate(cli, tmp_path, template, block):
    """The designer's notes (a game's own notes.html.j2) and the rulebook: an error in either is
    one finding at the template's line, in validate as in build."""
    from cardgen.builtin import TEMPLATES_DIR

    assert cli("new", "Dragon Race", cwd=tmp_path).code == 0
    root = tmp_path / "dragon-race"
    path = root / "templates/dragon-race" / template
    lines = (path.read_text() if path.exists() else (TEMPLATES_DIR / template).read_text()).splitlines()
    line = lines.index(block) + 2
    lines.insert(line - 1, "{{ no_such_value.attribute }}")
    path.write_text("\n".join(lines) + "\n")
    code, report = validate_json(cli, root)
    assert code == 1, report
    [finding] = report["findings"]
    assert (finding["code"], finding["file"], finding["line"]) == ("rulebook", f"templates/dragon-race/{template}", line)
    build = cli("build", "--no-png", "--paper", "a4", cwd=root)
    assert build.code == 1 and build.err.strip() == f"error: templates/dragon-race/{template}:{line}: {finding['message']}"


def test_validate_imports_no_pdf_library_and_no_pool(mini_shared):
    """`validate` fills the documents' templates but lays out, reads and writes no PDF and
    starts no process: in a fresh process (as a user runs it) neither pikepdf, PIL, weasyprint
    nor the worker pool is imported."""
    code = ("import sys\nfrom cardgen.cli import main\n"
            "try:\n    main(['validate'])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "print(sorted(m for m in ('pikepdf', 'PIL', 'weasyprint', 'cardgen.render.workers', 'multiprocessing')"
            " if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=mini_shared, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert "0 errors" in proc.stdout and proc.stdout.splitlines()[-1] == "[]", proc.stdout

def test_a_template_reading_the_paper_is_checked_on_every_paper(cli, tmp_path, monkeypatch):
    """A template may branch on `paper`: one failing on Letter alone (here in a macro file
    imported without context, which reads the paper from the globals) is a finding of validate
    as it is an error of build. A document none of whose templates names `paper` is filled once
    for both papers (the page's size and name are put in afterwards)."""
    from cardgen.rulebook import document

    assert cli("new", "Dragon Race", cwd=tmp_path).code == 0
    root = tmp_path / "dragon-race"
    fills: list[str] = []
    filled = document._filled
    monkeypatch.setattr(document, "_filled", lambda *args: fills.append(args[4].name) or filled(*args))
    assert cli("validate", cwd=root).code == 0
    assert fills == ["A4", "A5", "A4"]  # the rulebook, its booklet's pages, then the notes
    (root / "templates/dragon-race/letter.j2").write_text(
        '{% macro note() %}\n{% if paper.name == "Letter" %}{{ deck("main-deck").name }}{% endif %}\n'
        "{% endmacro %}\n")
    rulebook = root / "templates/dragon-race/rulebook.html.j2"
    lines = rulebook.read_text().splitlines()
    lines.insert(lines.index("{% block rules %}") + 1, '{% import "letter.j2" as letter %}{{ letter.note() }}')
    rulebook.write_text("\n".join(lines) + "\n")
    fills.clear()
    code, report = validate_json(cli, root)
    assert code == 1 and fills == ["A4", "Letter"], (fills, report)  # the first failure ends the check
    [finding] = report["findings"]
    assert (finding["code"], finding["file"], finding["line"]) == ("rulebook", "templates/dragon-race/letter.j2", 2)
    assert "mentions deck 'main-deck', which the game does not declare" in finding["message"]
    build = cli("build", "--no-png", "--paper", "letter", cwd=root)
    assert build.code == 1 and build.err.strip() == f"error: templates/dragon-race/letter.j2:2: {finding['message']}"


def test_a_template_failing_in_the_booklet_alone_is_a_finding_of_validate(cli, tmp_path):
    """The blocks only a booklet prints (its player aid, its back cover) are filled by validate
    too: one asking for a deck the game lacks fails `build --booklet` and is validate's finding,
    while a build without the booklet still works."""
    assert cli("new", "Dragon Race", cwd=tmp_path).code == 0
    root = tmp_path / "dragon-race"
    rulebook = root / "templates/dragon-race/rulebook.html.j2"
    rulebook.write_text(rulebook.read_text() + '{% block player_aid %}\n{{ deck("no-such-deck").name }}\n{% endblock %}\n')
    code, report = validate_json(cli, root)
    assert code == 1, report
    [finding] = report["findings"]
    assert finding["code"] == "rulebook" and finding["file"] == "templates/dragon-race/rulebook.html.j2"
    assert rulebook.read_text().splitlines()[finding["line"] - 1] == '{{ deck("no-such-deck").name }}'
    build = cli("build", "--no-png", "--paper", "a4", "--booklet", cwd=root)
    where = f"templates/dragon-race/rulebook.html.j2:{finding['line']}"
    assert build.code == 1 and build.err.strip() == f"error: {where}: {finding['message']}"
    assert cli("build", "--no-png", "--paper", "a4", cwd=root).code == 0

# --- issue 28: claims merge over versions, and diff shows them -------------------------------
# On a copy of tests/projects/mini: its version 3, written here over version 2, makes claims of
# each kind (a deck's total, a symbol's count and share) besides version 1's nine cards; each
# test writes a version 4 over it.

MINI_CLAIMS = ('extends: "2"\ntitle: Version 3\nclaims:\n  - {deck: coins, total: 2}\n'
               "  - {symbol: red, deck: main, count: 7, share: 7/9}\n"
               "  - {symbol: blue, deck: main, count: 2, share: 2/9}\n")
MINI_V4 = "versions/mini/4.yml"


def claims_of(project: Path, version: str) -> dict:
    from cardgen.data.model import claim_key

    snapshot = _snapshot(project, version, "mini")
    return {claim_key(c): (c, loc.line) for c, loc in zip(snapshot.claims, snapshot.claim_locs)}


@pytest.fixture
def claims_mini(mini: Path) -> Path:
    """`mini` with version 3 making the claims above (version 4 is the test's)."""
    (mini / MINI_V3).write_text(MINI_CLAIMS, encoding="utf-8")
    return mini


def test_a_version_with_claims_keeps_the_inherited_ones(cli, claims_mini):
    project = claims_mini
    inherited = claims_of(project, "3")
    assert len(inherited) == 4
    (project / MINI_V4).write_text('extends: "3"\nclaims:\n  - {deck: coins, total: 3, says: "3 coins"}\n'
                                   '  - {id: reds, deck: main, total: 8}\n')
    merged = claims_of(project, "4")
    assert list(merged) == list(inherited) + ["reds"]
    assert merged["deck coins"][0].total == 3 and merged["deck coins"][1] == 3
    assert merged["deck main"][1] == inherited["deck main"][1]  # still checked, at 1.yml's line
    validate = cli("validate", "-v", "4", cwd=project)
    assert validate.code == 1
    assert errors_of(validate) == [
        f"{MINI_V4}:3:5: error: deck 'coins' should hold 3 cards but holds 2 (\"3 coins\") (deck-count)",
        f"{MINI_V4}:4:5: error: deck 'main' should hold 8 cards but holds 9 (deck-count)"]
    # an inherited claim the new version breaks is reported at the line that makes it
    (project / MINI_V4).write_text('extends: "3"\nclaims:\n  - {deck: coins, total: 2}\n'
                                   "override:\n  - {id: flare, count: 3}\n")
    broken = cli("validate", "-v", "4", cwd=project)
    assert broken.code == 1
    assert f"{MINI_V1}:{inherited['deck main'][1]}:5: error: deck 'main' should hold 9 cards but holds 10" \
        in "\n".join(errors_of(broken))


def test_withdrawn_and_replace_claims(cli, claims_mini):
    project = claims_mini
    (project / MINI_V4).write_text('extends: "3"\nclaims:\n  - {symbol: blue, deck: main, withdrawn: true}\n')
    assert "deck main, symbol blue" not in claims_of(project, "4") and len(claims_of(project, "4")) == 3
    (project / MINI_V4).write_text('extends: "3"\nreplace_claims: true\nclaims:\n  - {deck: main, total: 9}\n')
    assert list(claims_of(project, "4")) == ["deck main"]
    (project / MINI_V4).write_text('extends: "3"\nreplace_claims: true\n')
    assert claims_of(project, "4") == {}
    assert cli("validate", "-v", "4", cwd=project).code == 0


@pytest.mark.parametrize("claims,line,message", [
    ("  - {deck: coins, total: 2}\n  - {deck: coins, total: 3}\n", 4,
     "a second claim about deck coins in this file (first at line 3); give each its own id"),
    ("  - {symbol: gold, withdrawn: true}\n", 3, "withdraws the claim about symbol gold, which no earlier version makes"),
    ("  - {says: nothing counted}\n", 3, "a claim needs a deck or a symbol to count (or an id naming it)"),
])
def test_claims_that_cannot_merge_are_one_line(cli, claims_mini, claims, line, message):
    project = claims_mini
    (project / MINI_V4).write_text('extends: "3"\nclaims:\n' + claims)
    for args in (("validate", "-v", "4"), ("build", "-v", "4", "--out", "o")):
        result = cli(*args, cwd=project)
        assert result.code == 2 and "Traceback" not in result.err
        [only] = result.err.splitlines()
        assert only.startswith(f"error: {MINI_V4}:{line}:5: {message}"), only
    assert not (project / "o").exists()


def test_diff_shows_claims_added_removed_and_changed(cli, claims_mini):
    project = claims_mini
    (project / MINI_V4).write_text(
        'extends: "3"\nclaims:\n  - {deck: coins, total: 2, says: "two"}\n'
        '  - {symbol: blue, deck: main, withdrawn: true}\n  - {id: reds, deck: main, total: 7}\n')
    result = cli("diff", "3", "4", "--format", "json", cwd=project)
    assert result.code == 0, result.err
    claims = {c["key"]: (c["detail"], c["old"], c["new"]) for c in json.loads(result.out)["claims"]}
    assert claims == {
        "deck coins": ("changed", {"deck": "coins", "total": 2},
                       {"deck": "coins", "total": 2, "says": "two"}),
        "deck main, symbol blue": ("removed", claims["deck main, symbol blue"][1], None),
        "reds": ("added", None, {"id": "reds", "deck": "main", "total": 7}),
    }
    assert claims["deck main, symbol blue"][1]["count"] == 2
    text = cli("diff", "3", "4", cwd=project).out
    section = text[text.index("Claims"):]
    assert "deck coins: Coins: 2 cards -> Coins: 2 cards (\"two\") (changed)" in section
    assert "deck main, symbol blue: Blue: 2 cards, 2/9 of Main deck" in section and "(removed)" in section
    assert "reds: (none) -> Main deck: 7 cards (added)" in section
    same = cli("diff", "4", "4", "--format", "json", cwd=project)
    assert json.loads(same.out)["claims"] == []


def test_validate_and_build_fail_alike_on_text_overflow_with_strict(cli, mini):
    edit(mini, MINI_V1, "name: Blaze", "name: " + "Very " * 30 + "Long Blaze")
    code, report = validate_json(cli, mini, "-v", "1")
    assert code == 0
    overflow = [f for f in report["findings"] if f["code"] == "text-overflow"]
    assert len(overflow) == 1 and overflow[0]["card"] == "blaze" and overflow[0]["severity"] == "warning"
    strict = cli("validate", "-v", "1", "--strict", cwd=mini)
    assert strict.code == 1 and "(text-overflow)" in strict.out
    build = cli("build", "-v", "1", "--strict", "--out", "o", cwd=mini)
    assert build.code == 1 and "--strict; nothing was built" in build.err
    assert not (mini / "o").exists()


@pytest.mark.parametrize("written,expected", [
    ("yes", "'yes'"), ("no", "'no'"), ("on", "'on'"), ("017", "'017'"), ("0x11", "'0x11'"),
    ("1_000", "'1_000'"), ("1:30", "'1:30'"), ("3.0", "3.0"), ('"3"', "'3'"),
])
def test_count_refuses_yaml_1_1_numbers_and_booleans(cli, mini, written, expected):
    (mini / MINI_V3).write_text(f'extends: "2"\noverride:\n  - id: ember\n    count: {written}\n')
    result = cli("validate", "-v", "3", cwd=mini)
    assert result.code == 2 and "Traceback" not in result.err
    assert re.fullmatch(r"error: versions/mini/3\.yml:4:12: override\[0\]\.count: expected a valid integer, "
                        rf"found (a string|a number) {re.escape(expected)}", result.err.strip()), result.err


@pytest.mark.parametrize("written", ["yes", "On", "0x03", "03"])
def test_card_fields_refuse_yaml_1_1_scalars(cli, mini, written):
    (mini / MINI_V3).write_text(f'extends: "2"\noverride:\n  - id: ember\n    value: {written}\n')
    code, report = validate_json(cli, mini, "-v", "3")
    assert code == 1
    [f] = [f for f in report["findings"] if f["severity"] == "error"]
    assert (f["code"], f["line"], f["card"]) == ("bad-value", 4, "ember")
    assert f"expected a whole number, found '{written}'" in f["message"]


def test_override_twice_and_override_then_remove_warn(cli, mini):
    (mini / MINI_V3).write_text(
        'extends: "2"\noverride:\n  - {id: ember, value: 5}\n  - {id: ember, value: 4}\n'
        '  - {id: spark, value: 2}\nremove: [spark, spark]\n')
    code, report = validate_json(cli, mini, "-v", "3")
    warnings = {(f["code"], f["line"], f["card"]) for f in report["findings"] if f["severity"] == "warning"}
    assert {("override-twice", 4, "ember"), ("override-and-remove", 6, "spark"),
            ("remove-twice", 6, "spark")} <= warnings
    text = cli("validate", "-v", "3", cwd=mini).out
    assert re.search(r"versions/mini/3\.yml:4:\d+: warning: card 'ember' is overridden twice in this "
                     r"file \(first at line 3\)", text)


@pytest.mark.parametrize("file,asked", [("Final.yml", "Final"), ("Final.yml", "final"), ("V4.yml", "4"),
                                        ("V4.yml", "v4")])
def test_every_listed_version_can_be_asked_for(cli, mini, file, asked):
    (mini / "versions/mini" / file).write_text('extends: "2"\ntitle: Last\n')
    result = cli("validate", "--version", asked, cwd=mini)
    assert result.code == 0, result.err
    assert re.search(r"Mini (final|4): 4 different cards", result.out)


def test_two_files_naming_one_version_is_an_error(cli, mini):
    (mini / MINI_V3).write_text('extends: "2"\n')
    (mini / "versions/mini/v3.yml").write_text('extends: "2"\n')
    result = cli("validate", "-v", "3", cwd=mini)
    assert result.code == 2
    assert re.fullmatch(r"error: versions/mini/v3\.yml: versions '3\.yml' and 'v3\.yml' both name version '3'; "
                        r"rename one", result.err.strip()), result.err


@pytest.mark.parametrize("count,limit,code", [(10000, None, 1), (400, None, 0), (400, 300, 1)])
def test_size_limits_before_work_starts(cli, mini, count, limit, code):
    if limit:
        (mini / "cardgen.yml").write_text(f"default_game: mini\nlimits: {{printed_cards: {limit}}}\n")
    # the coins: a deck no claim counts, so the limit is the only error
    (mini / MINI_V3).write_text(f'extends: "2"\noverride:\n  - {{id: coin, count: {count}}}\n')
    status, report = validate_json(cli, mini, "-v", "3")
    assert status == code
    big = [f for f in report["findings"] if f["code"] == "too-large"]
    assert len(big) == code
    if big:
        assert (big[0]["line"], big[0]["card"]) == (3, "coin")
        assert f"more than the limit of {limit or 5000:,}" in big[0]["message"]
        build = cli("build", "-v", "3", "--out", "o", cwd=mini)
        assert build.code == 1 and "(too-large)" in build.err and not (mini / "o").exists()


# --- 5. the command line a newcomer reads -----------------------------------------------------


@pytest.mark.parametrize("args", [
    ("--project", "{p}", "validate", "-v", "1"),
    ("validate", "--project", "{p}", "-v", "1"),
    ("validate", "-v", "1", "--project", "{p}"),
    ("show", "--project", "{p}", "-v", "1"),
    ("diff", "1", "2", "--project", "{p}"),
    ("schema", "--project", "{p}", "--kind", "game"),
])
def test_project_option_before_or_after_the_command(cli, mini_shared, tmp_path, args):
    result = cli(*(a.format(p=mini_shared) for a in args), cwd=tmp_path)
    assert result.code == 0, result.err
    assert result.out.strip()


def test_export_subcommands_take_project_too(cli, tmp_path):
    result = cli("export", "png", "--project", str(ROOT), "--help", cwd=tmp_path)
    assert result.code == 0 and "--project" in result.out


def test_docs_name_only_what_a_new_project_has(cli, tmp_path):
    """docs/games.md's step 4 uses icon("common/crown") and playing-cards.j2: a new project has
    the icons (copied) and finds the macros (cardgen's built-in common templates)."""
    from cardgen.builtin import TEMPLATES_DIR

    assert cli("new", "Dragon Race", cwd=tmp_path).code == 0
    root = tmp_path / "dragon-race"
    games = (ROOT / "docs/games.md").read_text()
    for icon in set(re.findall(r'icon\("(common/[a-z-]+)"', games)):
        assert (root / "icons" / f"{icon}.svg").is_file(), icon
    for name in set(re.findall(r'import "([a-z-]+\.j2)"', games)):
        assert not (root / "templates/common" / name).exists() and (TEMPLATES_DIR / name).is_file(), name
    card = root / "templates/dragon-race/card.svg.j2"
    card.write_text(card.read_text() + '{% import "playing-cards.j2" as pc %}\n'
                    '{{ icon("common/crown", 52, 17.5, 4) }}{{ pc.rank_label(12) }}\n')
    result = cli("validate", cwd=root)
    assert result.code == 0 and "0 errors, 0 warnings" in result.out, result.out + result.err


def test_template_reference_names_every_helper():
    from cardgen.data.project import load_project
    from cardgen.data.versions import load_game, resolve
    from cardgen.render.cards import CardRenderer as Renderer
    from cardgen.rulebook.helpers import FaceStore, Helpers

    doc = (ROOT / "docs/templates.md").read_text()
    project = load_project(ROOT)
    snapshot = resolve(project, load_game(project, None), "1")
    renderer = Renderer(project, snapshot)
    names = set(renderer.env.globals) - {"range", "dict", "lipsum", "cycler", "joiner", "namespace"}
    names |= set(Helpers(project, snapshot, None, FaceStore(project.build_dir / ".cache" / "svg")).globals())
    names |= {"plural", "effect_runs", "textbox", "paragraphs"}
    missing = sorted(n for n in names if f"`{n}" not in doc)
    assert missing == []


# --- property-based: any input, exit 0, 1 or 2 -----------------------------------------------

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=False),
                     st.text(max_size=12),
                     st.sampled_from(["yes", "no", "on", "017", "0x1f", "1_000", "1:30", "~", "!!binary", "&a",
                                      "*a", "<<", "- x", "{", "]", "'", '"', "\t", "\x00", "\ufeff", "%TAG"]))
_keys = st.sampled_from(["id", "type", "name", "count", "effects", "do", "when", "cards", "override",
                         "remove", "extends", "rules", "symbols", "claims", "notes", "style", "points", "x"])
_data = st.recursive(_scalars, lambda children: st.one_of(
    st.lists(children, max_size=4), st.dictionaries(_keys, children, max_size=5)), max_leaves=25)


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_yaml_loader_any_text(text):
    """Any text is a Document or an InputError with a location, never another exception."""
    try:
        doc = yamlsource.parse(text, Path("x.yml"))
    except CardgenError as exc:
        assert exc.exit_code == 2 and exc.loc is not None and exc.loc.line >= 1
    else:
        assert isinstance(doc.data, dict)


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=200))
def test_yaml_loader_any_bytes(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("y") / "x.yml"
    path.write_bytes(data)
    try:
        yamlsource.load(path)
    except CardgenError as exc:
        assert exc.exit_code == 2 and exc.loc is not None


@settings(max_examples=150, deadline=3000, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_keys, _data, max_size=6))
def test_data_model_any_structure(data):
    """Any mapping, dumped as YAML and read back, is a version file or one InputError(s)."""
    import yaml

    text = yaml.safe_dump(data, allow_unicode=True)
    try:
        doc = yamlsource.parse(text, Path("v.yml"))
        model.parse_model(model.VersionFile, doc)
    except CardgenError as exc:
        assert exc.exit_code == 2
        assert all(line.startswith("error: ") for line in exc.report_lines())


# a version 2 of the fixture project tests/projects/mini, over its version 1
_version_files = st.fixed_dictionaries({}, optional={
    "override": st.lists(st.fixed_dictionaries({"id": st.sampled_from(["ember", "spark", "nope"])},
                                               optional={"count": _scalars, "value": _scalars,
                                                         "effects": st.lists(_data, max_size=2)}), max_size=3),
    "remove": st.lists(st.sampled_from(["ember", "spark", "nope", ""]), max_size=3),
    "rules": st.dictionaries(st.sampled_from(["hand_size", "end", "x"]), _scalars, max_size=2),
    "cards": st.lists(st.fixed_dictionaries({"id": st.sampled_from(["new-one", "Bad Id", "ember"]),
                                             "type": st.sampled_from(["number", "coin", "nope"]),
                                             "name": _scalars}, optional={"count": _scalars, "value": _scalars}),
                      max_size=2),
})


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A copy of tests/projects/mini whose version 2 the examples rewrite."""
    return copy_project(MINI, tmp_path_factory.mktemp("hyp") / "mini")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(version=_version_files)
def test_validate_any_version_file_exits_0_1_or_2(cli, scratch, version):
    """The real CLI on a version file built from hostile pieces: exit 0, 1 or 2, one line per problem."""
    import yaml

    (scratch / "versions/mini/2.yml").write_text(yaml.safe_dump({"extends": "1", **version}, allow_unicode=True))
    result = cli("validate", "-v", "2", "--format", "json", cwd=scratch)
    assert result.code in (0, 1, 2), result.err
    assert "Traceback" not in result.err and "internal error" not in result.err, result.err
    if result.code == 2:
        assert result.err.startswith("error: ") and "2.yml" in result.err
    else:  # exit 1 exactly when there are errors
        assert (json.loads(result.out)["errors"] > 0) == (result.code == 1)


def _both_parsers(text: str, monkeypatch) -> list:
    """What yamlsource.parse gives for `text` with libyaml and with PyYAML's own parser."""
    results = []
    for parser in (yamlsource._PARSER, yamlsource.Loader):
        monkeypatch.setattr(yamlsource, "_PARSER", parser)
        try:
            doc = yamlsource.parse(text, Path("x.yml"))
            results.append((doc.data, doc.positions, doc.raw))  # both of x.yml: line, column
        except CardgenError as exc:
            results.append(("error", exc.loc))
    return results


def test_libyaml_reads_every_real_file_as_the_python_parser_does(monkeypatch):
    """The fast parser (libyaml) gives the same data, raw scalars and file:line:column for every
    value of every game's files; a few constructs the real files lack are checked as well."""
    assert yamlsource._PARSER is not yamlsource.Loader  # PyYAML here is built with libyaml
    files = sorted(ROOT.glob("card_data/*/game.yml")) + sorted(ROOT.glob("versions/*/*.yml"))
    assert len(files) >= 13
    tricky = [
        "base: &b {a: 1, b: [x, y]}\nthen:\n  <<: *b\n  c: 017\n",
        "name: Épée à deux mains\nnote: \"ç\" \ncount: 3\n",      # columns after non-ASCII text
        "text: |\n  line one\n  line two\nflag: yes\nn: 1_000\nf: 3.10\nd: 2026-11-23\n",
        "a: [1, {b: 2}, [3]]\n",
    ]
    for text in [f.read_text(encoding="utf-8") for f in files] + tricky:
        fast, slow = _both_parsers(text, monkeypatch)
        assert fast == slow, text[:60]


@settings(max_examples=150, deadline=2000, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.sampled_from(list("ab:-[]{}, \n#&*!|>'\"0123é")), max_size=120))
def test_libyaml_agrees_with_the_python_parser_on_any_text(monkeypatch, text):
    """Both parsers accept the same texts and give the same data and locations; where they
    refuse, both refuse with a location (libyaml's wording of a syntax error may differ)."""
    fast, slow = _both_parsers(text, monkeypatch)
    if fast[0] == "error" or slow[0] == "error":
        assert fast[0] == slow[0] == "error" and fast[1] is not None and slow[1] is not None, (text, fast, slow)
    else:
        assert fast == slow, text
