"""Bad input: one clear line per problem (file:line:column, what was expected), the right exit
code, no traceback, bounded memory (benchmarks/bench_bad_input.py times the refusals)."""

from __future__ import annotations

import re
from pathlib import Path

# on the fixture project tests/projects/mini (conftest's `mini`): version 2 extends version 1
V2 = "versions/mini/2.yml"
LOC = r"versions/mini/2\.yml:(\d+):(\d+): "


def _check_clean(result, code: int) -> None:
    assert result.code == code, (result.out, result.err)
    assert "Traceback" not in result.err and "Traceback" not in result.out
    assert "internal error" not in result.err


def _write(project: Path, rel: str, text: str | bytes) -> None:
    path = project / rel
    path.write_bytes(text if isinstance(text, bytes) else text.encode())


def test_yaml_syntax_error(cli, mini):
    _write(mini, V2, "extends: \"1\"\nrules:\n  hand_size: [3\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    assert re.search(LOC + "YAML syntax error", result.err)
    assert len(result.err.strip().splitlines()) == 1


def test_unknown_key_lists_the_expected_keys(cli, mini):
    _write(mini, V2, "extends: \"1\"\nruels:\n  hand_size: 3\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    m = re.search(LOC + r"unknown key 'ruels'; expected one of: .*rules", result.err)
    assert m and m.groups() == ("2", "1")


def test_wrong_type(cli, mini):
    _write(mini, V2, "extends: \"1\"\noverride:\n  - {id: ember, count: lots}\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    assert re.search(LOC + r"override\[0\]\.count: expected a valid integer.*'lots'", result.err)


def test_missing_field(cli, mini):
    _write(mini, V2, "extends: \"1\"\ncards:\n  - {id: new-card, type: number}\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    assert re.search(LOC + r"missing required key 'name'", result.err)


def test_missing_card_field_and_unknown_card_field(cli, mini):
    _write(mini, V2, "extends: \"1\"\ncards:\n  - {id: new-card, type: number, name: New, colour: red, vaule: 2}\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 1)
    assert re.search(LOC + r"error: unknown field 'vaule' for a Number card \(expected one of: colour, value\)", result.out)
    assert "Number card needs field 'value' [card new-card]" in result.out


def test_unknown_symbol_in_an_effect(cli, mini):
    _write(mini, V2, "extends: \"1\"\noverride:\n  - id: ember\n    effects: [{when: gold, do: points, amount: 1}]\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 1)
    assert re.search(LOC + r"error: effect 'points' is tied to 'gold', which is not defined .*\[card ember\]", result.out)


def test_dangling_extends(cli, mini):
    _write(mini, V2, "extends: \"2.5\"\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    assert re.search(LOC + r"extends '2.5', but there is no such version", result.err)


def test_extends_cycle(cli, mini):
    _write(mini, "versions/mini/1.yml",
           (mini / "versions/mini/1.yml").read_text().replace("title: Version 1", "extends: \"2\"\ntitle: Version 1"))
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    assert "'extends' makes a cycle: 2 -> 1 -> 2" in result.err


def test_override_of_a_card_that_does_not_exist(cli, mini):
    _write(mini, V2, "extends: \"1\"\noverride:\n  - {id: excalibur, value: 9}\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    assert re.search(LOC + r"override of unknown card 'excalibur'", result.err)


def test_duplicate_card_id(cli, mini):
    _write(mini, V2, "extends: \"1\"\ncards:\n  - {id: ember, type: number, name: Ember, value: 1, colour: red}\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    assert re.search(LOC + r"card id 'ember' is already defined \(at versions/mini/1\.yml:\d+:\d+\)", result.err)


def test_duplicate_key(cli, mini):
    _write(mini, V2, "extends: \"1\"\nrules:\n  hand_size: 3\n  hand_size: 4\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    assert re.search(LOC + r"duplicate key 'hand_size' \(first at line 3\)", result.err)


def test_empty_file(cli, mini):
    _write(mini, V2, "# nothing here\n\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    assert re.search(r"versions/mini/2\.yml:1:1: file is empty; expected a YAML mapping", result.err)


def test_non_utf8_file(cli, mini):
    _write(mini, V2, b"extends: \"1\"\ntitle: Versi\xf3n 2\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    assert re.search(r"versions/mini/2\.yml:2:13: file is not valid UTF-8 \(byte 0xf3\)", result.err)


# How long refusing these takes is measured by benchmarks/bench_bad_input.py (it prints figures):
# a time limit in a test fails on a busy machine. The tests prove the refusal itself.


def huge_file() -> str:
    """A version file over the 1,000,000-byte limit (2 MB of comment lines)."""
    return "extends: \"1\"\n" + "# padding\n" * 200_000


def alias_bomb() -> str:
    """A 1 kB version file whose aliases expand to 10**10 strings ("billion laughs")."""
    lines = ['extends: "1"', 'a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, 10):
        prev = f"*a{i-1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    lines.append("summary: *a9")
    return "\n".join(lines) + "\n"


def test_huge_file_is_refused(cli, mini):
    _write(mini, V2, huge_file())
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    assert re.search(LOC + r"file is 2,000,013 bytes; expected at most 1,000,000", result.err)
    assert len(result.err.strip().splitlines()) == 1


def test_alias_bomb_is_stopped(cli, mini):
    _write(mini, V2, alias_bomb())
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 2)
    assert re.search(LOC + r"document expands to more than 200,000 values", result.err)
    assert len(result.err.strip().splitlines()) == 1


def test_unknown_version_and_game(cli, mini):
    result = cli("validate", "-v", "7", cwd=mini)
    _check_clean(result, 2)
    assert "no version '7' of Mini (expected one of: 1, 2;" in result.err
    result = cli("validate", "--game", "monopoly", cwd=mini)
    _check_clean(result, 2)
    assert "no game 'monopoly'" in result.err


def test_outside_a_project(cli, tmp_path):
    result = cli("validate", cwd=tmp_path)
    _check_clean(result, 2)
    assert "no cardgen.yml found" in result.err


def test_bad_value_of_a_rule(cli, mini):
    _write(mini, V2, "extends: \"1\"\nrules:\n  end: take_all\n")
    result = cli("validate", "-v", "2", cwd=mini)
    _check_clean(result, 1)
    assert re.search(LOC + r"error: rule 'end': expected one of deck_empty, one_round, found 'take_all'", result.out)
