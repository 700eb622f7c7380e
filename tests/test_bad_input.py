"""Bad input: one clear line per problem (file:line:column, what was expected), the right exit
code, no traceback, bounded memory (benchmarks/bench_bad_input.py times the refusals)."""

from __future__ import annotations

import re
from pathlib import Path

V3 = "versions/kings-blade/3.yml"
LOC = r"versions/kings-blade/3\.yml:(\d+):(\d+): "


def _check_clean(result, code: int) -> None:
    assert result.code == code, (result.out, result.err)
    assert "Traceback" not in result.err and "Traceback" not in result.out
    assert "internal error" not in result.err


def _write(project: Path, rel: str, text: str | bytes) -> None:
    path = project / rel
    path.write_bytes(text if isinstance(text, bytes) else text.encode())


def test_yaml_syntax_error(cli, project_copy):
    _write(project_copy, V3, "extends: \"2\"\nrules:\n  hand_limit: [3\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 2)
    assert re.search(LOC + "YAML syntax error", result.err)
    assert len(result.err.strip().splitlines()) == 1


def test_unknown_key_lists_the_expected_keys(cli, project_copy):
    _write(project_copy, V3, "extends: \"2\"\nruels:\n  hand_limit: 3\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 2)
    m = re.search(LOC + r"unknown key 'ruels'; expected one of: .*rules", result.err)
    assert m and m.groups() == ("2", "1")


def test_wrong_type(cli, project_copy):
    _write(project_copy, V3, "extends: \"2\"\noverride:\n  - {id: rapier, count: lots}\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 2)
    assert re.search(LOC + r"override\[0\]\.count: expected a valid integer.*'lots'", result.err)


def test_missing_field(cli, project_copy):
    _write(project_copy, V3, "extends: \"2\"\ncards:\n  - {id: new-hilt, type: hilt}\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 2)
    assert re.search(LOC + r"missing required key 'name'", result.err)


def test_missing_card_field_and_unknown_card_field(cli, project_copy):
    _write(project_copy, V3, "extends: \"2\"\ncards:\n  - {id: new-hilt, type: hilt, name: New, pionts: 2}\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 1)
    assert re.search(LOC + r"error: unknown field 'pionts' for a Hilt card \(expected one of: needs, points\)", result.out)
    assert "Hilt card needs field 'points' [card new-hilt]" in result.out


def test_unknown_metal_in_an_effect(cli, project_copy):
    _write(project_copy, V3, "extends: \"2\"\noverride:\n  - id: rapier\n    effects: [{when: gold, do: points, amount: 1}]\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 1)
    assert re.search(LOC + r"error: effect 'points' is tied to 'gold', which is not defined .*\[card rapier\]", result.out)


def test_dangling_extends(cli, project_copy):
    _write(project_copy, V3, "extends: \"2.5\"\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 2)
    assert re.search(LOC + r"extends '2.5', but there is no such version", result.err)


def test_extends_cycle(cli, project_copy):
    _write(project_copy, "versions/kings-blade/1.yml",
           (project_copy / "versions/kings-blade/1.yml").read_text().replace("title: Version 1", "extends: \"3\"\ntitle: Version 1"))
    result = cli("validate", "-v", "3.1", cwd=project_copy)
    _check_clean(result, 2)
    assert "'extends' makes a cycle: 3 -> 2 -> 1 -> 3" in result.err


def test_override_of_a_card_that_does_not_exist(cli, project_copy):
    _write(project_copy, V3, "extends: \"2\"\noverride:\n  - {id: excalibur, points: 9}\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 2)
    assert re.search(LOC + r"override of unknown card 'excalibur'", result.err)


def test_duplicate_card_id(cli, project_copy):
    _write(project_copy, V3, "extends: \"2\"\ncards:\n  - {id: rapier, type: blade, name: Rapier, points: 1, needs: 2}\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 2)
    assert re.search(LOC + r"card id 'rapier' is already defined \(at versions/kings-blade/1\.yml:\d+:\d+\)", result.err)


def test_duplicate_key(cli, project_copy):
    _write(project_copy, V3, "extends: \"2\"\nrules:\n  hand_limit: 3\n  hand_limit: 4\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 2)
    assert re.search(LOC + r"duplicate key 'hand_limit' \(first at line 3\)", result.err)


def test_empty_file(cli, project_copy):
    _write(project_copy, V3, "# nothing here\n\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 2)
    assert re.search(r"versions/kings-blade/3\.yml:1:1: file is empty; expected a YAML mapping", result.err)


def test_non_utf8_file(cli, project_copy):
    _write(project_copy, V3, b"extends: \"2\"\ntitle: Versi\xf3n 3\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 2)
    assert re.search(r"versions/kings-blade/3\.yml:2:13: file is not valid UTF-8 \(byte 0xf3\)", result.err)


# How long refusing these takes is measured by benchmarks/bench_bad_input.py (it prints figures):
# a time limit in a test fails on a busy machine. The tests prove the refusal itself.


def huge_file() -> str:
    """A version file over the 1,000,000-byte limit (2 MB of comment lines)."""
    return "extends: \"2\"\n" + "# padding\n" * 200_000


def alias_bomb() -> str:
    """A 1 kB version file whose aliases expand to 10**10 strings ("billion laughs")."""
    lines = ['extends: "2"', 'a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, 10):
        prev = f"*a{i-1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    lines.append("summary: *a9")
    return "\n".join(lines) + "\n"


def test_huge_file_is_refused(cli, project_copy):
    _write(project_copy, V3, huge_file())
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 2)
    assert re.search(LOC + r"file is 2,000,013 bytes; expected at most 1,000,000", result.err)
    assert len(result.err.strip().splitlines()) == 1


def test_alias_bomb_is_stopped(cli, project_copy):
    _write(project_copy, V3, alias_bomb())
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 2)
    assert re.search(LOC + r"document expands to more than 200,000 values", result.err)
    assert len(result.err.strip().splitlines()) == 1


def test_unknown_version_and_game(cli):
    result = cli("validate", "-v", "7")
    _check_clean(result, 2)
    assert "no version '7' of The King's Blade (expected one of: 1, 2, 3, 3.1" in result.err
    result = cli("validate", "--game", "monopoly")
    _check_clean(result, 2)
    assert "no game 'monopoly'" in result.err


def test_outside_a_project(cli, tmp_path):
    result = cli("validate", cwd=tmp_path)
    _check_clean(result, 2)
    assert "no cardgen.yml found" in result.err


def test_bad_value_of_a_rule(cli, project_copy):
    _write(project_copy, V3, "extends: \"2\"\nrules:\n  mine_action: take_all\n")
    result = cli("validate", "-v", "3", cwd=project_copy)
    _check_clean(result, 1)
    assert re.search(LOC + r"error: rule 'mine_action': expected one of take_one, fill_hand, found 'take_all'", result.out)
