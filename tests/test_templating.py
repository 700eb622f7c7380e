"""Compiled templates are kept by what they are compiled from (render/templating.py): a moved or
copied project compiles nothing again, an edited template is compiled anew, errors name the
copy's own file and line, and code compiled for another kind of environment is never used."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jinja2
import pytest
from conftest import CACHE_ENV, copy_project
from conftest import MINI as MINI_SOURCE

from cardgen.render import templating

RULEBOOK = "templates/mini/rulebook.html.j2"
RULES_LINE = "<h2>Overview</h2>"


@pytest.fixture
def compiled(monkeypatch) -> list[str]:
    """The template files Jinja compiles from now on, in a process that kept no code yet (as a
    new `cardgen` command starts)."""
    files: list[str] = []
    compile_source = jinja2.Environment.compile

    def counting(env, source, name=None, filename=None, *args, **kwargs):
        if filename is not None:  # a template file (data.cardtext compiles the data's sentences)
            files.append(filename)
        return compile_source(env, source, name, filename, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    monkeypatch.setattr(templating, "_KEPT", {})
    return files


def validate(cli, project: Path) -> tuple[int, list[dict]]:
    result = cli("validate", "--format", "json", cwd=project)
    assert "Traceback" not in result.err, result.err
    return result.code, json.loads(result.out)["findings"]


def test_a_moved_project_compiles_nothing(cli, tmp_path, monkeypatch, compiled):
    """Its build/.cache moves with it: a new process at the new place loads every template's
    code from there (Jinja's own key, the file's absolute path, compiled them all again)."""
    monkeypatch.delenv(CACHE_ENV)  # the project's own build/.cache
    before = copy_project(MINI_SOURCE, tmp_path / "before")
    assert validate(cli, before) == (0, [])
    names = sorted(Path(file).name for file in compiled)
    assert names == ["back.svg.j2", "card.svg.j2", "coin.svg.j2", "notes.html.j2", "rulebook-base.html.j2",
                     "rulebook-macros.html.j2", "rulebook.html.j2"], names
    moved = tmp_path / "moved"
    shutil.move(before, moved)
    monkeypatch.setattr(templating, "_KEPT", {})  # a new process
    compiled.clear()
    assert validate(cli, moved) == (0, [])
    assert compiled == []


def test_one_process_compiles_a_template_once_for_every_copy(cli, mini, tmp_path, monkeypatch, compiled):
    """Two copies, each with a cache of its own: the second loads the first one's code."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache-1"))
    assert validate(cli, mini) == (0, [])
    assert len(compiled) == 7, compiled
    copy = copy_project(mini, tmp_path / "copy")
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache-2"))
    compiled.clear()
    assert validate(cli, copy) == (0, [])
    assert compiled == []


def test_an_edited_template_is_compiled_again(cli, mini, tmp_path, compiled):
    assert validate(cli, mini) == (0, [])
    copy = copy_project(mini, tmp_path / "copy")
    card = copy / "templates/mini/card.svg.j2"
    card.write_text(card.read_text().replace("</svg>", "<!-- edited --></svg>") + "{{ no_such_value }}\n")
    compiled.clear()
    code, findings = validate(cli, copy)
    assert compiled == [str(card)]
    assert code == 1 and {f["code"] for f in findings} == {"render"}
    assert "'no_such_value' is undefined" in findings[0]["message"], findings


def test_an_error_names_the_copys_file_and_line(cli, mini, tmp_path, compiled):
    """The code the copy loads was compiled for `mini`: the finding still names the copy's file."""
    rulebook = mini / RULEBOOK
    rulebook.write_text(rulebook.read_text().replace(RULES_LINE, RULES_LINE + "\n{{ no_such_value }}"))
    line = rulebook.read_text().splitlines().index("{{ no_such_value }}") + 1
    code, findings = validate(cli, mini)
    assert code == 1 and [(f["file"], f["line"]) for f in findings] == [(RULEBOOK, line)], findings
    copy = copy_project(mini, tmp_path / "copy")
    compiled.clear()
    code, findings = validate(cli, copy)
    assert compiled == []
    assert code == 1 and [(f["file"], f["line"]) for f in findings] == [(RULEBOOK, line)], findings
    assert "'no_such_value' is undefined" in findings[0]["message"], findings


def test_a_template_error_of_the_copy_names_the_copy_in_the_build(cli, mini, tmp_path, compiled):
    """`cardgen build`'s one line names the file by its path from where the command runs."""
    rulebook = mini / RULEBOOK
    rulebook.write_text(rulebook.read_text().replace(RULES_LINE, RULES_LINE + "\n{{ no_such_value }}"))
    line = rulebook.read_text().splitlines().index("{{ no_such_value }}") + 1
    assert validate(cli, mini)[0] == 1
    copy = copy_project(mini, tmp_path / "copy")
    compiled.clear()
    build = cli("build", "--no-png", "--paper", "a4", "--out", "o", cwd=copy)
    assert compiled == []
    assert build.code == 1 and build.err.startswith(f"error: {RULEBOOK}:{line}: "), build.err


def test_environments_with_other_settings_keep_their_own_code(mini):
    """The cards keep a template's last newline and the rulebook does not: one file loaded by
    both (playing-cards.j2 is) is compiled for each (they shared the first one's code)."""
    from cardgen.data.project import load_project

    (mini / "templates/common").mkdir()
    (mini / "templates/common/line.j2").write_text("a line\n")
    project = load_project(mini)
    cards = templating.template_environment(project, "mini", keep_trailing_newline=True)
    rulebook = templating.template_environment(project, "mini")
    assert cards.get_template("line.j2").render() == "a line\n"
    assert rulebook.get_template("line.j2").render() == "a line"
    assert templating.template_environment(project, "mini", keep_trailing_newline=True) \
        .get_template("line.j2").render() == "a line\n"


def test_code_compiled_without_the_sandbox_is_never_loaded(mini, monkeypatch):
    """An environment without the sandbox sharing the project's cache folder and keys (a later
    cardgen's mistake) leaves its code there: the project's environment compiles its own."""
    from jinja2.sandbox import SecurityError

    from cardgen.contain import ContainedLoader
    from cardgen.data.project import load_project

    (mini / "templates/common").mkdir()
    (mini / "templates/common/reach.j2").write_text("{{ ''.__class__.__name__ }}")
    project = load_project(mini)
    sandboxed = templating.template_environment(project, "mini")
    folders = [Path(folder) for folder in sandboxed.loader.searchpath]
    unsandboxed = jinja2.Environment(loader=ContainedLoader(folders, roots=folders),
                                     bytecode_cache=sandboxed.bytecode_cache)
    assert unsandboxed.get_template("reach.j2").render() == "str"
    with pytest.raises(SecurityError, match="access to attribute '__class__' of 'str' object is unsafe"):
        sandboxed.get_template("reach.j2").render()
    monkeypatch.setattr(templating, "_KEPT", {})  # and from the cache folder, in a new process
    with pytest.raises(SecurityError):
        templating.template_environment(project, "mini").get_template("reach.j2").render()
