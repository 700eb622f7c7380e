"""A YAML file is parsed once per process for as long as its bytes stay the same
(cardgen.data.yamlsource.load): an edit is always read again, a file reports its own path
whatever other file has its bytes, a caller's change to the data never reaches the next load,
and `cardgen serve`'s refresh after an edit parses only the edited file.

Every file written here holds its test's own folder in a comment, so its bytes are new to the
process (another test cannot have parsed them already)."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest
from conftest import MINI, copy_project

from cardgen.data import model, yamlsource
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.errors import InputError, Loc
from cardgen.preview.state import Preview


@pytest.fixture
def parses(monkeypatch) -> list[Path]:
    """The files yamlsource parses from now on, in order."""
    parsed: list[Path] = []
    real = yamlsource.parse

    def counting(text: str, file: Path) -> yamlsource.YamlDocument:
        parsed.append(Path(file))
        return real(text, file)

    monkeypatch.setattr(yamlsource, "parse", counting)
    return parsed


def test_a_file_is_parsed_once_and_an_edit_is_read_again_at_the_same_size_and_time(tmp_path, parses):
    file = tmp_path / "1.yml"
    file.write_text(f"# {tmp_path}\ntitle: First\ncards:\n  - {{id: a, count: 3}}\n", encoding="utf-8")
    first = yamlsource.load(file)
    again = yamlsource.load(file)
    assert parses == [file]
    assert again.data == first.data == {"title": "First", "cards": [{"id": "a", "count": 3}]}
    assert again.loc("cards", 0, "count") == first.loc("cards", 0, "count") == Loc(file, 4, 20)

    before = file.stat()
    file.write_text(f"# {tmp_path}\ntitle: First\ncards:\n  - {{id: a, count: 4}}\n", encoding="utf-8")
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))  # as an editor that keeps the time
    after = file.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert yamlsource.load(file).data["cards"][0]["count"] == 4
    assert parses == [file, file]


def test_the_cache_keeps_the_files_used_last_within_its_bound(tmp_path, parses, monkeypatch):
    one, two, three = (tmp_path / f"{n}.yml" for n in (1, 2, 3))
    for n, file in enumerate((one, two, three)):
        file.write_text(f"# {tmp_path}\nn: {n}\n", encoding="utf-8")
    monkeypatch.setattr(yamlsource, "CACHE_BYTES", 2 * one.stat().st_size)  # room for two of them
    for file in (one, two, one, three, one, two):
        yamlsource.load(file)
    assert parses == [one, two, three, two]  # three pushed out two, the one used least recently
    assert yamlsource._parsed_bytes == sum(map(len, yamlsource._parsed)) <= yamlsource.CACHE_BYTES


def test_files_with_the_same_bytes_report_their_own_paths(tmp_path, parses):
    text = f"# {tmp_path}\ntitle: Two\nremove: 5\n"
    one, two = tmp_path / "a" / "2.yml", tmp_path / "b" / "2.yml"
    for file in (one, two):
        file.parent.mkdir()
        file.write_text(text, encoding="utf-8")
    errors = []
    for file in (one, two):
        doc = yamlsource.load(file)
        assert doc.loc("title") == Loc(file, 2, 8)
        with pytest.raises(InputError) as caught:
            model.parse_model(model.VersionFile, doc)
        errors.append(caught.value)
    assert parses == [one]  # the second file's bytes were known
    assert [(e.loc.file, e.loc.line, e.loc.column) for e in errors] == [(one, 3, 9), (two, 3, 9)]
    assert [e.message for e in errors] == ["remove: expected a valid list, found an integer 5"] * 2


def test_a_broken_file_names_its_own_path_every_time(tmp_path, parses):
    """Errors are not kept: each load of a broken file parses it and names the file it read."""
    text = f"# {tmp_path}\ntitle: One\ntitle: Two\n"
    one, two = tmp_path / "1.yml", tmp_path / "2.yml"
    for file in (one, two, one):
        file.write_text(text, encoding="utf-8")
        with pytest.raises(InputError) as caught:
            yamlsource.load(file)
        assert (caught.value.loc.file, caught.value.loc.line, caught.value.loc.column) == (file, 3, 1)
        assert caught.value.message == "duplicate key 'title' (first at line 2)"
    assert parses == [one, two, one]


def test_the_cli_reports_the_path_of_the_copy_it_validates(cli, mini, tmp_path):
    """Two copies of one project with the same broken card: each names its own file."""
    other = copy_project(MINI, tmp_path / "other" / "mini")
    for root in (mini, other):
        path = root / "versions/mini/2.yml"
        text = path.read_text(encoding="utf-8").replace("{id: ember, value: 4}", "{id: ember, count: lots}")
        path.write_text(f"# {tmp_path}\n{text}", encoding="utf-8")
    for root in (mini, other):
        result = cli("validate", "--version", "2", "--project", str(root), cwd=tmp_path)
        assert (result.code, result.err) == (2, f"error: {root.relative_to(tmp_path)}/versions/mini/2.yml:11:24: "
                                                 "override[0].count: expected a valid integer, found a string 'lots'\n")


def test_a_change_to_loaded_data_does_not_reach_the_next_load(tmp_path):
    file = tmp_path / "1.yml"
    file.write_text(f"# {tmp_path}\nstyle:\n  palette: [red, blue]\n  frame: {{width: 2}}\n", encoding="utf-8")
    first = yamlsource.load(file)
    first.data["style"]["palette"].append("green")
    first.data["style"]["frame"]["width"] = 9
    del first.data["style"]
    second = yamlsource.load(file)
    assert second.data == {"style": {"palette": ["red", "blue"], "frame": {"width": 2}}}
    second.data["style"]["palette"].clear()
    assert yamlsource.load(file).data["style"]["palette"] == ["red", "blue"]
    # the positions and raw scalars one parse gives every load of those bytes cannot be changed
    with pytest.raises(TypeError):
        second.positions[("style",)] = (9, 9)  # type: ignore[index]
    with pytest.raises(TypeError):
        second.raw[("style", "frame", "width")] = "9"  # type: ignore[index]
    assert yamlsource.load(file).loc("style", "frame", "width") == Loc(file, 4, 18)
    # a document goes to worker processes with its snapshot: it pickles, and stays read-only there
    sent = pickle.loads(pickle.dumps(second))
    assert sent.loc("style", "frame", "width") == Loc(file, 4, 18) and sent.raw == second.raw
    with pytest.raises(TypeError):
        sent.positions.clear()


def test_a_change_to_a_resolved_version_does_not_reach_the_next_resolve(mini):
    """Resolution hands a version's values on as they were parsed (a style's lists, a card's
    fields): changing one snapshot leaves the next one as the files say."""
    path = mini / "versions/mini/1.yml"
    text = path.read_text(encoding="utf-8")
    path.write_text(f"# {mini}\n{text}style:\n  palette: [red, blue]\n", encoding="utf-8")
    project = load_project(mini)
    first = resolve(project, load_game(project, "mini"), "2")
    first.style["palette"].append("green")
    first.rules["hand_size"] = 9
    first.cards[0].fields["value"] = 99
    second = resolve(project, load_game(project, "mini"), "2")
    assert second.style == {"palette": ["red", "blue"]}
    assert second.rules["hand_size"] == 4
    assert second.cards[0].id == "spark" and second.cards[0].fields["value"] == 1


def test_a_serve_refresh_parses_only_the_edited_file(mini, parses):
    preview = Preview(mini, "mini", "2")
    assert preview.refresh().error is None
    parses.clear()
    assert preview.refresh().error is None
    assert parses == []  # nothing changed: nothing parsed
    path = mini / "versions/mini/2.yml"
    text = path.read_text(encoding="utf-8").replace("name: Flare", "name: Flash")
    path.write_text(f"# {mini}\n{text}", encoding="utf-8")
    state = preview.refresh()
    assert state.error is None and "Flash" in [card.name for card in state.cards]
    assert parses == [path]
