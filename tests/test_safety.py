"""Issue 10: never lose a user's file, never read outside the project, never an internal error.

Each class of attack is tried with several spellings (relative, absolute, `..`, a symbolic
link); every failure must be one line naming the place, exit 1 or 2, and leave files alone.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MINI, ROOT, copy_project

from cardgen import atomic
from cardgen.errors import BuildError, InputError
from cardgen.files import LOCK, MANIFEST
from cardgen.outputs import open_output, open_output_file, remove_stale

V1 = "versions/kings-blade/1.yml"
V3 = "versions/kings-blade/3.yml"
GAME = "card_data/kings-blade/game.yml"
# the same places in tests/projects/mini, for the promises of the core
MINI_CARD = "templates/mini/card.svg.j2"
MINI_CARD_LINE = '{% set paper = "#f7f3ea" %}'
MINI_GAME = "card_data/mini/game.yml"
MINI_POINTS = 'text: {count: amount, one: "+{{ amount }} point", other: "+{{ amount }} points"}'


def one_line(result, code: int) -> str:
    """The result failed with `code` and said so in exactly one line, without a traceback."""
    assert result.code == code, (result.code, result.out, result.err)
    text = result.err.strip()
    assert "Traceback" not in result.err + result.out and "internal error" not in text, text
    lines = [ln for ln in text.splitlines() if ln.startswith("error")]
    assert lines, text
    return text


def edit(project: Path, rel: str, old: str, new: str) -> None:
    path = project / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def line_of(project: Path, rel: str, text: str) -> int:
    """The 1-based line of `rel` holding `text` (the data moves; the tests must not hard-code it)."""
    lines = (project / rel).read_text(encoding="utf-8").splitlines()
    return next(n for n, ln in enumerate(lines, 1) if text in ln)


def snapshot_of(root: Path):
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and "build" not in p.relative_to(root).parts}


# --- 1. data loss ---------------------------------------------------------------------------


def test_outputs_manifest_removes_only_recorded_files(tmp_path):
    out = tmp_path / "out"
    (out / "svg").mkdir(parents=True)
    (out / "svg" / "mine.svg").write_text("the user's own drawing")
    with open_output(None, out, "test") as folder:
        atomic.write_text(out / "svg" / "a.svg", "A")
        atomic.write_text(out / "svg" / "b.svg", "B")
    record = json.loads((out / MANIFEST).read_text())["files"]
    assert sorted(record) == ["svg/a.svg", "svg/b.svg"]
    (out / "svg" / "b.svg").write_text("edited by the user since")
    with open_output(None, out, "test"):
        atomic.write_text(out / "svg" / "a.svg", "A2")
        removed = remove_stale(out / "svg", keep={"a.svg"})
    assert removed == []  # b.svg was edited: no longer what cardgen wrote, so it stays
    assert sorted(p.name for p in (out / "svg").iterdir()) == ["a.svg", "b.svg", "mine.svg"]
    assert (out / "svg" / "mine.svg").read_text() == "the user's own drawing"
    with open_output(None, out, "test"):
        atomic.write_text(out / "svg" / "c.svg", "C")
    with open_output(None, out, "test"):
        assert remove_stale(out / "svg", keep={"a.svg"}) == [out / "svg" / "c.svg"]
    assert folder.root == out.resolve()


def test_unrecorded_file_is_never_replaced(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "sheets-a4.pdf").write_bytes(b"my own PDF")
    with pytest.raises(BuildError, match=r"sheets-a4\.pdf exists and was not written by cardgen"):
        with open_output(None, out, "test"):
            atomic.write_bytes(out / "sheets-a4.pdf", b"%PDF-")
    assert (out / "sheets-a4.pdf").read_bytes() == b"my own PDF"
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_lock_stops_a_second_writer_from_another_process(tmp_path, cli, mini_shared):
    """A real second process holds the folder; `cardgen build` into it stops with one line (the
    build is of the fixture project tests/projects/mini: the lock is the core's promise)."""
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys; from pathlib import Path; from cardgen.outputs import open_output\n"
         f"with open_output(None, Path({str(out)!r}), 'build --test'):\n"
         "    print('held', flush=True); sys.stdin.readline()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout.readline().strip() == "held"
        result = cli("build", "--version", "1", "--out", str(out), "--no-rulebook", "--paper", "a4", cwd=mini_shared)
        text = one_line(result, 1)
        assert re.search(r"is being written by `cardgen build --test` \(process \d+\); wait", text), text
        assert sorted(p.name for p in out.iterdir()) == [LOCK]  # nothing half-written
    finally:
        holder.communicate("\n", timeout=60)
    assert holder.returncode == 0


def test_same_process_second_open_is_refused(tmp_path):
    with open_output(None, tmp_path / "o", "first"):
        with pytest.raises(BuildError, match="being written by `cardgen first`"):
            with open_output(None, tmp_path / "o", "second"):
                pass
    with open_output(None, tmp_path / "o", "third"):  # released when the first one ended
        pass


@pytest.fixture(scope="module")
def built_twice(tmp_path_factory):
    """Build the fixture project mini (tests/projects/mini: what a build keeps and removes is the
    core's promise) into a folder holding the user's files: its version 2, again with --no-png,
    then its version 1."""
    from cardgen.cli import main

    project = copy_project(MINI, tmp_path_factory.mktemp("mini") / "mini")
    out = tmp_path_factory.mktemp("out") / "mini"
    for sub in ("svg", "png"):
        (out / sub).mkdir(parents=True)
        (out / sub / f"my-notes.{sub}").write_text("the user's file")
    (out / "README.txt").write_text("the user's readme")

    def run(*args):
        try:
            main(["--project", str(project), "build", *args, "--out", str(out), "--no-rulebook", "--paper", "a4", "-q"])
        except SystemExit as exc:
            assert exc.code in (0, None), exc.code

    run("--version", "2")
    first = {p.name for p in (out / "png").iterdir()}
    run("--version", "2", "--no-png")
    after_no_png = {p.name for p in (out / "png").iterdir()}
    run("--version", "1")
    return project, out, first, after_no_png


def test_build_keeps_the_users_files(built_twice):
    _, out, _, _ = built_twice
    assert (out / "svg" / "my-notes.svg").read_text() == "the user's file"
    assert (out / "png" / "my-notes.png").read_text() == "the user's file"
    assert (out / "README.txt").read_text() == "the user's readme"


def test_no_png_keeps_the_pngs(built_twice):
    _, _, first, after_no_png = built_twice
    assert len(first) == 6 + 1  # 4 cards and 2 backs of mini's version 2, and the user's file
    assert after_no_png == first


def test_later_build_removes_only_its_own_stale_files(built_twice):
    """Version 1 built over version 2: 2's extra card goes, the user's files and the PNGs stay."""
    from cardgen.data.project import load_project
    from cardgen.data.versions import load_game, resolve

    root, out, _, _ = built_twice
    project = load_project(root)
    game = load_game(project, None)
    v1 = {c.id for c in resolve(project, game, "1").cards}
    v2 = {c.id for c in resolve(project, game, "2").cards}
    assert v2 - v1  # version 2 has a card version 1 lacks
    svgs = {p.name for p in (out / "svg").iterdir()}
    cards = {n[len("card-"):-len(".svg")] for n in svgs if n.startswith("card-")}
    assert cards == v1
    assert "my-notes.svg" in svgs
    record = json.loads((out / MANIFEST).read_text())["files"]
    assert "svg/my-notes.svg" not in record and "README.txt" not in record
    assert {Path(k).name for k in record if k.startswith("svg/")} == svgs - {"my-notes.svg"}


SOURCE_SPELLINGS = [
    GAME,
    "./card_data/kings-blade/../kings-blade/game.yml",
    "cardgen.yml",
    V3,
    "templates/kings-blade/part.svg.j2",
    "icons/new.svg",
    "{root}/versions/kings-blade/2.yml",
    "link-to-game.md",
]


@pytest.mark.parametrize("target", SOURCE_SPELLINGS)
def test_diff_out_never_writes_a_source(cli, seed_copy, target):
    (seed_copy / "link-to-game.md").symlink_to(seed_copy / GAME)
    before = snapshot_of(seed_copy)
    result = cli("diff", "3", "3.1", "--out", target.format(root=seed_copy), cwd=seed_copy)
    text = one_line(result, 2)
    assert "refusing to write" in text and "holds your sources" in text
    assert snapshot_of(seed_copy) == before


def test_diff_out_writes_new_and_own_files_only(cli, mini):
    """On a copy of tests/projects/mini (its versions 1 and 2): the output guard is the core's promise."""
    first = cli("diff", "1", "2", "--out", "notes.md", "--format", "markdown", cwd=mini)
    assert first.code == 0, first.err
    written = (mini / "notes.md").read_text()
    assert written.startswith("#")
    again = cli("diff", "1", "2", "--out", "notes.md", cwd=mini)  # cardgen's own file: replaced
    assert again.code == 0, again.err
    assert (mini / "notes.md").read_text() != written  # by the text diff
    (mini / "mine.md").write_text("my release notes")
    refused = cli("diff", "1", "2", "--out", "mine.md", cwd=mini)
    assert "exists and was not written by cardgen" in one_line(refused, 2)
    assert not list(mini.glob(".cardgen-*"))  # its bookkeeping is under build/, not beside the file
    assert (mini / "mine.md").read_text() == "my release notes"


@pytest.mark.parametrize("out", ["card_data", "./versions/../templates/x", "{root}/icons", "link-dir", ".", "{root}"])
@pytest.mark.parametrize("command", [("build",), ("export", "tts"), ("export", "png", "--preset", "tgc")])
def test_no_command_writes_into_sources(cli, mini, out, command):
    """On a copy of tests/projects/mini: the output guard is the core's promise."""
    (mini / "link-dir").symlink_to(mini / "card_data")
    before = snapshot_of(mini)
    result = cli(*command, "--version", "1", "--out", out.format(root=mini), cwd=mini)
    assert "refusing to" in one_line(result, 2)
    assert snapshot_of(mini) == before


def test_unwritable_output_is_one_line(cli, mini, tmp_path, monkeypatch):
    """Builds and diffs a copy of tests/projects/mini: the output guard is the core's promise."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = cli("build", "--version", "1", "--out", str(blocker / "out"), "--no-rulebook", cwd=mini)
    assert re.match(r"error: cannot write .*a-file/out: Not a directory", one_line(result, 1))

    def read_only(src, dst):
        raise PermissionError(30, "Read-only file system", str(dst))

    monkeypatch.setattr(os, "replace", read_only)
    out = tmp_path / "ro"
    result = cli("diff", "1", "2", "--out", str(out / "d.txt"), cwd=mini)
    assert re.match(r"error: cannot write .*d\.txt: Read-only file system$", one_line(result, 1))
    assert [p.name for p in out.iterdir() if p.suffix == ".tmp"] == []


def test_single_output_file_is_recorded_in_build_not_beside_it(tmp_path):
    from cardgen.data.project import load_project
    from cardgen.files import FILES_RECORD

    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "cardgen.yml").write_text("build_dir: out\n")
    project = load_project(tmp_path / "p")
    target = tmp_path / "desk" / "x.txt"
    target.parent.mkdir()
    with open_output_file(project, target, "diff") as path:
        atomic.write_text(path, "hello")
    assert [p.name for p in target.parent.iterdir()] == ["x.txt"]
    assert json.loads((tmp_path / "p" / "out" / FILES_RECORD).read_text())["files"] == {
        str(target.resolve()): "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}
    with open_output_file(project, target, "diff") as path:  # its own, unchanged: replaced
        atomic.write_text(path, "hello again")
    target.write_text("the user's edit")
    with pytest.raises(InputError, match="x.txt exists and was not written by cardgen"):
        with open_output_file(project, target, "diff"):
            pass
    with pytest.raises(InputError, match="is a folder"):
        with open_output_file(project, target.parent, "diff"):
            pass


# --- 2. containment -------------------------------------------------------------------------


def findings_of(cli, project: Path, version: str = "1") -> tuple[int, list[dict]]:
    result = cli("validate", "-v", version, "--format", "json", cwd=project)
    assert "Traceback" not in result.err and "internal error" not in result.err, result.err
    if result.code == 2:
        return 2, [{"message": result.err}]
    return result.code, json.loads(result.out)["findings"]


ART_SPELLINGS = ["../../../../etc/hostname", "/etc/hostname", "kings-blade/../../../etc/hostname",
                 "kings-blade/outside", "..", "kings-blade\\..\\..\\x"]


@pytest.mark.parametrize("art", ART_SPELLINGS)
def test_art_paths_stay_inside_icons(cli, seed_copy, art):
    (seed_copy / "icons" / "kings-blade" / "outside.svg").symlink_to("/etc/hostname")
    art_line = line_of(seed_copy, V1, "art: kings-blade/art-sword")
    edit(seed_copy, V1, "art: kings-blade/art-sword", f"art: {json.dumps(art)}")
    code, findings = findings_of(cli, seed_copy)
    assert code == 1
    bad = [f for f in findings if f["severity"] == "error"]
    assert len(bad) == 1 and bad[0]["code"] == "outside-project", bad
    assert bad[0]["card"] == "arming-sword" and bad[0]["file"].endswith("1.yml") and bad[0]["line"] == art_line
    build = cli("build", "-v", "1", "--out", "out", cwd=seed_copy)
    assert "outside-project" in one_line(build, 1)
    assert not (seed_copy / "out").exists()


def test_symlinked_icon_leading_outside_is_refused_and_never_pasted(cli, seed_copy, tmp_path):
    secret = tmp_path / "secret.svg"
    secret.write_text('<svg xmlns="http://www.w3.org/2000/svg"><text>SECRET-CONTENT</text></svg>')
    icon = seed_copy / "icons" / "kings-blade" / "art-sword.svg"
    icon.unlink()
    icon.symlink_to(secret)
    code, findings = findings_of(cli, seed_copy)
    assert code == 1
    assert [f["code"] for f in findings if f["severity"] == "error"] == ["outside-project"]
    result = cli("build", "-v", "1", "--out", str(tmp_path / "out"), cwd=seed_copy)
    one_line(result, 1)
    leaked = [p for p in tmp_path.rglob("*.svg") if not p.is_symlink() and p != secret and "SECRET-CONTENT" in p.read_text()]
    assert leaked == []


@pytest.mark.parametrize("name", ["../../../etc/hostname", "/etc/hostname", "kings-blade/../../cardgen"])
def test_icon_in_a_sentence_stays_inside(cli, seed_copy, name):
    edit(seed_copy, GAME, 'text: {count: amount, one: "+{{ amount }} sword point", other: "+{{ amount }} sword points"}',
         f"text: \"+{{{{ amount }}}} {{{{ icon('{name}') }}}} sword\"")
    code, findings = findings_of(cli, seed_copy)
    assert code == 1
    errors = [f for f in findings if f["severity"] == "error"]
    assert errors and {f["code"] for f in errors} == {"outside-project"}
    # reported once, where the sentence is written (game.yml), not at every card that prints it
    assert len(errors) == 1 and errors[0]["file"].endswith("game.yml"), errors
    assert f"icon('{name}')" in errors[0]["message"]


@pytest.mark.parametrize("ref", [
    '<image href="file:///etc/hostname" width="1" height="1"/>',
    '<image xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="file:///etc/hostname" width="1" height="1"/>',
    "<image href='https://example.com/x.png' width='1' height='1'/>",
    '<image href="/etc/hostname" width="1" height="1"/>',
    '<rect style="fill: url(file:///etc/x.svg#a)" width="1" height="1"/>',
    '<style>@import "http://example.com/x.css";</style>',
])
def test_card_template_cannot_reach_files_or_network(cli, mini, ref):
    """On a copy of tests/projects/mini: the card templates' sandbox is the core's promise."""
    edit(mini, MINI_CARD, MINI_CARD_LINE, MINI_CARD_LINE + '\n' + ref)
    code, findings = findings_of(cli, mini)
    assert code == 1
    errors = [f for f in findings if f["severity"] == "error"]
    assert errors and {f["code"] for f in errors} == {"render"}
    assert "template card.svg.j2" in errors[0]["message"] and "refers to" in errors[0]["message"]


def test_card_template_may_use_a_file_of_the_project(cli, mini):
    url = (mini / "icons" / "common" / "suit-hearts.svg").as_uri()
    edit(mini, MINI_CARD, MINI_CARD_LINE, MINI_CARD_LINE + '\n<image href="' + url + '" width="1" height="1"/>')
    code, findings = findings_of(cli, mini)
    assert code == 0, findings


@pytest.mark.parametrize("payload", [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ card.__class__.__init__.__globals__ }}",
    "{{ icon.__self__.project }}",
    "{{ cycler.__init__.__globals__.os.system('touch /tmp/pwned') }}",
])
def test_card_templates_run_in_the_sandbox(cli, mini, payload):
    """On a copy of tests/projects/mini: the card templates' sandbox is the core's promise."""
    edit(mini, MINI_CARD, MINI_CARD_LINE, MINI_CARD_LINE + '\n' + payload)
    line = (mini / MINI_CARD).read_text().splitlines().index(payload) + 1
    code, findings = findings_of(cli, mini)
    assert code == 1
    errors = [f for f in findings if f["severity"] == "error"]
    assert errors and {f["code"] for f in errors} == {"render"}
    assert re.search(rf"template card\.svg\.j2:{line} failed for card '[a-z-]+'", errors[0]["message"]), errors[0]


def test_rulebook_template_runs_in_the_sandbox(seed_copy):
    from cardgen.buildtypes import PAPER_SIZES
    from cardgen.cardstage import draw_cards
    from cardgen.data.project import load_project
    from cardgen.data.versions import load_game, resolve
    from cardgen.rulebook import rulebook_html

    edit(seed_copy, "templates/kings-blade/rulebook.html.j2", "{% block cover %}",
         "{% block cover %}{{ ''.__class__.__mro__ }}")
    line = line_of(seed_copy, "templates/kings-blade/rulebook.html.j2", "__mro__")
    project = load_project(seed_copy)
    snapshot = resolve(project, load_game(project, None), "1")
    with pytest.raises(BuildError) as info:
        rulebook_html(project, snapshot, draw_cards(project, snapshot, checks=False).faces(), "rulebook.html.j2",
                      PAPER_SIZES["a4"])
    assert re.fullmatch(rf".*/templates/kings-blade/rulebook\.html\.j2:{line}: rulebook template failed: SecurityError: "
                        r"access to attribute '__class__' of 'str' object is unsafe\.", str(info.value)), str(info.value)


@pytest.mark.parametrize("how", ["symlink-template", "symlink-folder"])
def test_template_symlink_leading_outside_is_refused(cli, mini, tmp_path, how):
    """On a copy of tests/projects/mini: what a build may read is the core's promise."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "card.svg.j2").write_text("<text>OUTSIDE</text>")
    if how == "symlink-template":
        (mini / MINI_CARD).unlink()
        (mini / MINI_CARD).symlink_to(outside / "card.svg.j2")
    else:
        edit(mini, MINI_CARD, MINI_CARD_LINE, MINI_CARD_LINE + '\n{% include "ext/card.svg.j2" %}')
        (mini / "templates" / "mini" / "ext").symlink_to(outside)
    code, findings = findings_of(cli, mini)
    assert code == 1
    errors = [f for f in findings if f["severity"] == "error"]
    assert errors and "leads outside" in errors[0]["message"]


@pytest.mark.parametrize("plugin", ["../../evil.py", "/tmp/evil-cardgen-plugin.py", "linked.py", "../kings-blade/../../evil.py"])
def test_plugin_only_from_the_game_folder(cli, seed_copy, plugin):
    marker = seed_copy / "PLUGIN-RAN"
    code = f"open({str(marker)!r}, 'w').write('ran')\ndef check(snapshot, report):\n    pass\n"
    for path in (seed_copy / "evil.py", Path("/tmp/evil-cardgen-plugin.py")):
        path.write_text(code)
    (seed_copy / "card_data" / "kings-blade" / "linked.py").symlink_to(seed_copy / "evil.py")
    edit(seed_copy, GAME, "plugin: plugin.py", f"plugin: {plugin}")
    status, findings = findings_of(cli, seed_copy)
    assert status == 1
    errors = [f for f in findings if f["severity"] == "error"]
    assert [f["code"] for f in errors] == ["plugin"] and errors[0]["file"].endswith("game.yml")
    assert not marker.exists()


@pytest.mark.parametrize("content,expected", [
    (b"just some text\n", "not well-formed XML"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "is a PNG image, not SVG text"),
    (b"", "is empty"),
    (b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/hostname">]>'
     b'<svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>', "declares a DOCTYPE or entities"),
    (b'<html><body/></html>', "is not SVG (its root element is <html>"),
    (b'<svg xmlns="http://www.w3.org/2000/svg"><image href="file:///etc/hostname"/></svg>', "must be self-contained"),
])
def test_icons_must_really_be_svg(cli, seed_copy, content, expected):
    (seed_copy / "icons" / "kings-blade" / "art-sword.svg").write_bytes(content)
    code, findings = findings_of(cli, seed_copy)
    assert code == 1
    errors = [f for f in findings if f["severity"] == "error"]
    assert len(errors) == 1 and errors[0]["code"] == "bad-icon", errors
    assert expected in errors[0]["message"]
    assert "art-sword.svg" in (errors[0]["message"] + (errors[0]["file"] or ""))
    build = cli("build", "-v", "1", "--out", "out", cwd=seed_copy)
    assert expected in one_line(build, 1)


# --- 3. one-line errors ---------------------------------------------------------------------


def test_plugin_syntax_error_names_its_line(cli, project_copy):
    (project_copy / "card_data" / "kings-blade" / "plugin.py").write_text("def check(snapshot, report)\n    pass\n")
    code, findings = findings_of(cli, project_copy)
    assert code == 1
    f = [f for f in findings if f["severity"] == "error"][0]
    assert (f["code"], f["file"].endswith("plugin.py"), f["line"], f["column"]) == ("plugin", True, 1, 28)
    assert "syntax error" in f["message"]


def test_plugin_crash_names_its_line(cli, project_copy):
    (project_copy / "card_data" / "kings-blade" / "plugin.py").write_text(
        "def check(snapshot, report):\n    x = 1\n    return snapshot.no_such_thing\n")
    code, findings = findings_of(cli, project_copy)
    f = [f for f in findings if f["severity"] == "error"][0]
    assert (code, f["line"]) == (1, 3) and "AttributeError" in f["message"]


@pytest.mark.parametrize("sentence,expected", [
    ("+{{ amuont }} sword", "'amuont' is undefined"),
    ("{{ ''.__class__.__mro__ }}", "access to attribute '__class__'"),
    ("{{ amount.__class__ }}", "access to attribute '__class__'"),
    ("{{ 1 / 0 }}", "ZeroDivisionError"),
])
@pytest.mark.parametrize("command", ["show", "validate", "build"])
def test_bad_effect_sentence_is_one_line(cli, mini, sentence, expected, command):
    """On a copy of tests/projects/mini (its effect 'points', printed by Ember in version 1): the
    sentences' sandbox is the core's promise."""
    edit(mini, MINI_GAME, MINI_POINTS, f'text: "{sentence}"')
    result = cli(command, "-v", "1", *(["--out", "o"] if command == "build" else []), cwd=mini)
    assert result.code == 1 and "Traceback" not in result.err and "internal error" not in result.err
    text = result.out + result.err
    # validate and build list it as a finding; show (which shows data even with errors) stops on it
    finding = r"versions/mini/1\.yml:\d+:\d+: error: " if command != "show" else \
        r"^error: versions/mini/1\.yml:\d+:\d+: "
    assert re.search(finding + r"the sentence of effect 'points' \(game\.yml \d+:\d+\) fails: .*"
                     + re.escape(expected), text, re.M), text


@pytest.mark.parametrize("depth,opener", [(100, "["), (5000, "["), (3000, "{a: "), (300, "- ")])
def test_deep_yaml_is_one_line(cli, seed_copy, depth, opener):
    if opener == "- ":  # block lists: `- - - x`
        body = "\n    " + "- " * depth + "x"
    else:
        closer = "]" if opener == "[" else "}"
        body = opener * depth + closer * depth
    (seed_copy / V3).write_text("extends: \"2\"\nnotes:\n  changes: " + body + "\n")
    result = cli("validate", "-v", "3", cwd=seed_copy)
    text = one_line(result, 2)
    # The promise: one line, exit 2, the file and the place named. Which reader stops first (cardgen's
    # own nesting limit or libyaml's, PyYAML >= 6.0.4) and its wording are not the promise.
    assert re.match(r"error: versions/kings-blade/3\.yml:\d+:\d+: \S", text), text


def test_missing_glyph_names_card_and_line(cli, seed_copy):
    line = line_of(seed_copy, V1, "name: Arming Sword")
    edit(seed_copy, V1, "name: Arming Sword", "name: Arming Sword \u4e2d")
    code, findings = findings_of(cli, seed_copy)
    errors = [f for f in findings if f["severity"] == "error"]
    assert code == 1 and len(errors) == 1, errors
    f = errors[0]
    assert (f["card"], f["file"].endswith("1.yml"), f["line"]) == ("arming-sword", True, line)
    assert "has no glyph for '\u4e2d' (U+4E2D)" in f["message"] and "Cinzel" in f["message"]



def test_missing_glyph_in_an_effect_quotes_that_effect_not_the_whole_box(cli, seed_copy):
    """A box of effect rows (the Whetstone: a point row and the restock sentence) quotes the row
    holding the character, as a designer would search for it, not the rows run together."""
    sentence = "Once per turn you may restock the market before your action"
    line = line_of(seed_copy, GAME, sentence)
    edit(seed_copy, GAME, sentence, "Once per turn you may restock the market \u4e2d")
    code, findings = findings_of(cli, seed_copy)
    errors = [f for f in findings if f["severity"] == "error"]
    assert code == 1 and errors, errors
    f = errors[0]
    assert (f["file"].endswith("game.yml"), f["line"]) == (True, line)
    assert "in 'Once per turn you may restock the market \u4e2d'" in f["message"], f["message"]
    assert "sword point" not in f["message"]

WORKER_SCRIPT = """
import sys
from pathlib import Path
from cardgen.render.rasterise import RasterError, RasterJob, rasterise_jobs
if __name__ == "__main__":
    bad = '<svg xmlns="http://www.w3.org/2000/svg" width="10mm" height="10mm"><text>&undefined;</text></svg>'
    good = '<svg xmlns="http://www.w3.org/2000/svg" width="10mm" height="10mm"><rect width="5" height="5"/></svg>'
    out = Path(sys.argv[1])
    for workers in (1, 2):  # in this process, then in a worker process
        jobs = [RasterJob(good, out / f"a{workers}.pdf", None, key="card-good"),
                RasterJob(bad, out / f"b{workers}.pdf", None, key="card-bad")]
        try:
            rasterise_jobs(jobs, workers=workers)
        except RasterError as exc:
            print(exc)
"""


def test_worker_error_is_the_same_one_line(tmp_path):
    """A card that fails in a worker process reads exactly as when it fails in the main one.

    One real process (its stderr must stay empty: no worker traceback) renders with one worker,
    in itself, then with two, in worker processes."""
    script = tmp_path / "jobs.py"
    script.write_text(WORKER_SCRIPT)
    proc = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    messages = proc.stdout.strip().splitlines()
    assert len(messages) == 2 and messages[0] == messages[1], messages
    assert messages[0].startswith("rendering card-bad failed: ") and "undefined entity" in messages[0]
    assert "BrokenProcessPool" not in messages[0] and "\n" not in messages[0]



def test_worker_errors_keep_their_class_and_location(monkeypatch, tmp_path):
    """An error crossing from a render worker keeps its exit code (class) and its file:line as a
    location (for `--format json`), not only as text run into the message."""
    import pickle

    from cardgen.errors import Loc
    from cardgen.render import rasterise, svgconvert, workers
    from cardgen.render.fonts import FontError

    where = Loc(tmp_path / "cards.yml", 12, 5)

    def fails(svg, pdf, png, **options):
        raise InputError("icon 'x' is not SVG", where)

    monkeypatch.setattr(svgconvert, "svg_to_files", fails)
    with pytest.raises(rasterise.RasterError) as caught:
        rasterise._run_reporting(rasterise.RasterJob("<svg/>", tmp_path / "a.pdf", None, key="card-x"))
    error = pickle.loads(pickle.dumps(caught.value))  # as it reaches the main process
    assert (error.loc, error.message) == (where, "rendering card-x failed: icon 'x' is not SVG")
    assert str(error) == f"{where}: rendering card-x failed: icon 'x' is not SVG"

    monkeypatch.setattr(workers, "_setup_error", FontError("fonts/Bad.ttf is not a usable TrueType/OpenType font"))
    with pytest.raises(FontError) as caught_setup:  # not a bare CardgenError: exit 1 as with --jobs 1
        workers.run_guarded(print, "never runs")
    assert caught_setup.value.exit_code == 1 and "Bad.ttf" in str(caught_setup.value)

def test_ctrl_c_is_exit_130_and_one_line(cli, tmp_path, monkeypatch, mini_shared):
    """Builds tests/projects/mini (a promise of the core) into a folder of the test's own."""
    import cardgen.render.rasterise as rasterise

    def interrupted(*args, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(rasterise.Rasteriser, "publish", interrupted)
    out = tmp_path / "out"
    result = cli("build", "-v", "1", "--out", str(out), "--no-rulebook", "--paper", "a4",
                 "--project", str(mini_shared))
    assert result.code == 130, result.err
    assert result.err.strip() == "interrupted"
    assert not [p for p in out.rglob("*") if p.suffix in (".pdf", ".tmp")]


def test_a_ctrl_c_whose_interrupt_is_lost_still_stops_the_build(cli, tmp_path, monkeypatch, mini_shared):
    """CPython 3.11 can drop the KeyboardInterrupt a SIGINT handler raises (seen under load while
    the workers started: the build went on and ended 0), and a library may catch it: the build
    stops before its first output, says `interrupted` and ends 130."""
    import cardgen.cli as cli_module
    import cardgen.render.rasterise as rasterise

    wait = rasterise.Rasteriser.wait

    def ctrl_c_lost(*args, **kw):
        try:
            cli_module._on_sigint(signal.SIGINT, None)
        except KeyboardInterrupt:
            pass  # the interrupt lost, as the interpreter or a library may lose it
        return wait(*args, **kw)

    monkeypatch.setattr(rasterise.Rasteriser, "wait", ctrl_c_lost)
    out = tmp_path / "out"
    result = cli("build", "-v", "1", "--out", str(out), "--paper", "a4", "--project", str(mini_shared))
    assert (result.code, result.err.strip()) == (130, "interrupted")
    assert not [p for p in out.rglob("*") if p.suffix in (".pdf", ".png", ".svg", ".tmp")]


CTRL_C_SCRIPT = """
import os, signal, sys
from pathlib import Path
from cardgen.render.rasterise import RasterJob, rasterise_jobs
if __name__ == "__main__":
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="150mm" height="150mm">'
           + '<circle cx="5" cy="5" r="4"/>' * 1500 + '</svg>')  # about 0.2 s of drawing a job
    jobs = [RasterJob(svg, None, Path(sys.argv[1]) / f"{i}.png", dpi=100, key=f"card-{i}") for i in range(8)]
    sent = []
    def done(job):  # Ctrl-C reaches the whole process group, workers included, as in a terminal
        if not sent:
            sent.append(os.killpg(os.getpgrp(), signal.SIGINT))
    try:
        rasterise_jobs(jobs, workers=2, on_done=done)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
"""


def test_ctrl_c_in_workers_prints_no_tracebacks(tmp_path):
    """A real SIGINT to the process group while two workers render: the workers stay quiet, the
    main process stops them, and no half-written PNG is left."""
    script = tmp_path / "run.py"
    script.write_text(CTRL_C_SCRIPT)
    proc = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True)
    assert (proc.returncode, proc.stderr.strip()) == (130, "interrupted"), proc.stderr
    assert not list(tmp_path.glob("*.tmp"))
    assert 1 <= len(list(tmp_path.glob("*.png"))) < 8


# --- every command that writes goes through the output guard ---------------------------------


def test_single_file_outputs_leave_nothing_beside_them(cli, seed_copy, tmp_path):
    """diff --out, simulate --report and table export --to write one file into a folder of the
    user's: no lock or manifest is left there; what cardgen wrote is recorded under build/."""
    from cardgen.files import FILES_RECORD

    desk = tmp_path / "desk"
    desk.mkdir()
    (desk / "todo.txt").write_text("the user's own list")
    runs = [("diff", "3", "3.1", "--out", str(desk / "notes.md"), "--format", "markdown"),
            ("simulate", "--games", "4", "--jobs", "1", "--no-claims", "--report", str(desk / "report.html")),
            ("table", "export", "--version", "3.1", "--to", str(desk / "cards.csv"))]
    for _ in range(2):  # the second time each replaces its own file, without --force
        for args in runs:
            result = cli(*args, cwd=seed_copy)
            assert result.code == 0, (args, result.err)
    assert sorted(p.name for p in desk.iterdir()) == ["cards.csv", "notes.md", "report.html", "todo.txt"]
    assert (desk / "notes.md").read_text().startswith("#") and (desk / "cards.csv").read_text().startswith("id,")
    record = json.loads((seed_copy / "build" / FILES_RECORD).read_text())["files"]
    assert sorted(Path(k).name for k in record) == ["cards.csv", "notes.md", "report.html"]
    assert all(re.fullmatch(r"[0-9a-f]{64}", v) for v in record.values())
    (desk / "notes.md").write_text("edited by the user since")  # no longer what cardgen wrote
    for args in (runs[0], ("diff", "3", "3.1", "--out", str(desk / "todo.txt"))):
        text = one_line(cli(*args, cwd=seed_copy), 2)
        assert "exists and was not written by cardgen" in text, text
    assert (desk / "notes.md").read_text() == "edited by the user since"
    assert (desk / "todo.txt").read_text() == "the user's own list"


@pytest.mark.parametrize("out", ["card_data", "./versions/../templates/x", "{root}/icons", "link-dir", "."])
def test_calibrate_and_print_never_write_into_sources(cli, mini, out):
    """On a copy of tests/projects/mini: the output guard is the core's promise."""
    (mini / "link-dir").symlink_to(mini / "card_data")
    before = snapshot_of(mini)
    for command in (("calibrate", "--paper", "a4"), ("export", "print", "--version", "1")):
        result = cli(*command, "--out", out.format(root=mini), cwd=mini)
        assert "refusing to" in one_line(result, 2), command
    assert snapshot_of(mini) == before


def test_calibrate_keeps_a_users_sheet_and_records_its_own(cli, seed_copy, tmp_path):
    out = tmp_path / "cal"
    out.mkdir()
    (out / "calibration-a4.pdf").write_bytes(b"%PDF my own sheet")
    text = one_line(cli("calibrate", "--paper", "a4", "--out", str(out), cwd=seed_copy), 1)
    assert "calibration-a4.pdf exists and was not written by cardgen" in text, text
    assert (out / "calibration-a4.pdf").read_bytes() == b"%PDF my own sheet"
    assert cli("calibrate", "--paper", "letter", "--out", str(out), cwd=seed_copy).code == 0
    assert cli("calibrate", "--paper", "letter", "--out", str(out), cwd=seed_copy).code == 0  # its own again
    assert list(json.loads((out / MANIFEST).read_text())["files"]) == ["calibration-letter.pdf"]


def test_i18n_writes_catalogs_only_inside_the_game(cli, seed_copy, tmp_path):
    """A `locale` (or language) folder linked elsewhere is refused before anything is written."""
    import shutil

    locale = seed_copy / "card_data" / "kings-blade" / "locale"
    elsewhere = tmp_path / "elsewhere"
    shutil.move(str(locale), str(elsewhere))
    locale.symlink_to(elsewhere)
    before = {p: p.read_bytes() for p in elsewhere.rglob("*") if p.is_file()}
    for args in (("i18n", "extract"), ("i18n", "update", "--lang", "nl")):
        text = one_line(cli(*args, cwd=seed_copy), 2)
        assert "leads outside" in text and "card_data/kings-blade/" in text, text
    assert {p: p.read_bytes() for p in elsewhere.rglob("*") if p.is_file()} == before
    locale.unlink()
    shutil.move(str(elsewhere), str(locale))
    away = tmp_path / "away"
    away.mkdir()
    (locale / "de").symlink_to(away)  # one language linked out
    pots = {p: p.read_bytes() for p in locale.glob("*.pot")}
    text = one_line(cli("i18n", "update", "--lang", "de", cwd=seed_copy), 2)
    assert "leads outside" in text, text
    assert list(away.iterdir()) == [] and {p: p.read_bytes() for p in locale.glob("*.pot")} == pots
    assert cli("i18n", "update", "--lang", "nl", cwd=seed_copy).code == 0



def test_schema_write_replaces_only_its_own_schema_and_never_leaves_the_project(cli, seed_copy, tmp_path):
    """`schema --write` regenerates schema/: a file cardgen did not write, a link leading out of
    the project (the folder or one file) are refused with one line, and nothing is written."""
    import shutil

    schema = seed_copy / "schema"
    live = json.loads(cli("schema").out)
    assert cli("schema", "--write", cwd=seed_copy).code == 0  # cardgen's own files: replaced
    assert json.loads((schema / "game.schema.json").read_text()) == live["game"]

    (schema / "version.schema.json").write_text('{"mine": true}\n')
    text = one_line(cli("schema", "--write", cwd=seed_copy), 2)
    assert "version.schema.json exists and is not a schema cardgen wrote" in text, text
    assert (schema / "version.schema.json").read_text() == '{"mine": true}\n'

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(schema)
    schema.symlink_to(elsewhere)
    text = one_line(cli("schema", "--write", cwd=seed_copy), 2)
    assert "schema leads outside the project" in text and str(elsewhere) in text, text
    assert list(elsewhere.iterdir()) == []

    schema.unlink()
    schema.mkdir()
    victim = tmp_path / "victim.json"
    victim.write_text(json.dumps(live["game"]))  # even a schema-shaped file outside is not written
    (schema / "game.schema.json").symlink_to(victim)
    text = one_line(cli("schema", "--write", cwd=seed_copy), 2)
    assert "game.schema.json leads outside the project" in text, text
    assert victim.read_text() == json.dumps(live["game"]) and not (schema / "version.schema.json").exists()

@pytest.mark.parametrize("how", ["linked outside", "not a font", "empty"])
@pytest.mark.parametrize("command", ["validate", "build"])
def test_a_bad_font_file_is_one_line(cli, project_copy, how, command):
    font = project_copy / "fonts" / "Extra.ttf"
    if how == "linked outside":
        font.symlink_to("/etc/hostname")
    else:
        font.write_bytes(b"" if how == "empty" else b"<html>not a font</html>")
    # build: two workers, started early (a first build), so the worker set-up meets the font too
    result = cli(command, "-v", "1", *(["--out", "o", "-j", "2"] if command == "build" else []), cwd=project_copy)
    text = one_line(result, 1)
    expected = "leads outside" if how == "linked outside" else "is not a usable TrueType/OpenType font"
    assert "Extra.ttf" in text and expected in text, text
    assert not (project_copy / "o").exists()


BAD_FONTS_SCRIPT = """
import sys
from pathlib import Path
from cardgen.errors import CardgenError
from cardgen.render.rasterise import RasterError, RasterJob, rasterise_jobs
from cardgen.render.workers import Workers
if __name__ == "__main__":
    fonts = Path(sys.argv[1])
    good = '<svg xmlns="http://www.w3.org/2000/svg" width="10mm" height="10mm"><rect width="5" height="5"/></svg>'
    with Workers(2, fonts, None).start() as workers:  # started early, as a first build does
        try:
            workers.submit(len, "x").result()
        except CardgenError as exc:
            print(exc)
    try:
        rasterise_jobs([RasterJob(good, fonts.parent / f"{i}.pdf", None, key=f"card-{i}") for i in range(2)], workers=2,
                       fonts_dir=fonts)
    except RasterError as exc:
        print(exc)
"""


def test_a_bad_font_in_a_workers_set_up_is_one_line(tmp_path):
    """A worker that cannot set its fonts up prints no traceback (a pool initializer's exception
    would): its first job reports the problem as one line."""
    fonts = tmp_path / "fonts"
    fonts.mkdir()
    (fonts / "Bad.ttf").write_text("not a font")
    script = tmp_path / "pool.py"
    script.write_text(BAD_FONTS_SCRIPT)
    proc = subprocess.run([sys.executable, str(script), str(fonts)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 2, proc.stdout
    assert lines[0].startswith("fonts/Bad.ttf is not a usable TrueType/OpenType font") or \
        "Bad.ttf is not a usable TrueType/OpenType font" in lines[0], lines
    assert lines[1].startswith("rendering card-") and "Bad.ttf is not a usable" in lines[1], lines
