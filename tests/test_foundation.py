"""Issue 2: the King's Blade data, version resolution, validate/show/schema on the real data."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT

import cardgen.commands.validate as validate_command
import cardgen.rulebook.check as rulebook_check


@pytest.fixture(scope="module", autouse=True)
def seed_versions_checked_once():
    """`cardgen validate` of a version of the seed project (ROOT, which no test here edits) draws
    and checks it once in this module: the text and JSON reports of 1, 2, 3 and 3.1, and of the
    names v1 and V3, are about 10 validates of 4 versions. Each test still runs the command on its
    version (the name resolved, the report written, the exit code); the card stage's result
    (`draw_cards`) and the findings (`build_findings`) of a version already checked are reused.
    A copy of the project (`seed_copy`, edited by a test) is checked afresh every time."""
    drawn: dict[tuple[str, str, str], object] = {}
    found: dict[tuple[str, str, str], list] = {}
    draw, findings = validate_command.draw_cards, rulebook_check.build_findings

    def key(project, snapshot) -> tuple[str, str, str] | None:
        seed = project.root.resolve() == ROOT
        return (snapshot.game.id, snapshot.version, snapshot.language) if seed else None

    def draw_once(project, snapshot, *args, **kwargs):
        k = key(project, snapshot)
        if k is None or args or kwargs:
            return draw(project, snapshot, *args, **kwargs)
        if k not in drawn:
            drawn[k] = draw(project, snapshot)
        return drawn[k]

    def findings_once(project, snapshot, cards):
        k = key(project, snapshot)
        if k is None or drawn.get(k) is not cards:
            return findings(project, snapshot, cards)
        if k not in found:
            found[k] = findings(project, snapshot, cards)
        return list(found[k])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(validate_command, "draw_cards", draw_once)
        patch.setattr(rulebook_check, "build_findings", findings_once)
        yield


@pytest.mark.parametrize("version", ["1", "2", "3", "3.1", "v1", "V3"])
def test_every_version_validates(cli, version):
    result = cli("validate", "--version", version)
    assert result.code == 0, result.out + result.err
    assert "0 errors" in result.out


def test_v1_warns_about_the_end_and_the_overflow_loop(cli):
    result = cli("validate", "--version", "1", "--format", "json")
    data = json.loads(result.out)
    codes = {f["code"]: f for f in data["findings"]}
    assert data["errors"] == 0 and data["warnings"] == 2
    assert "no way to end the game" in codes["empty-rule"]["message"]
    assert codes["empty-rule"]["file"].endswith("versions/kings-blade/1.yml")
    loop = codes["overflow-loop"]
    assert loop["card"] == "mirror-hilt" and loop["severity"] == "warning"
    assert loop["line"] > 0 and loop["column"] > 0


def test_later_versions_have_no_warnings(cli):
    for version in ("2", "3", "3.1"):
        data = json.loads(cli("validate", "-v", version, "--format", "json").out)
        assert data["findings"] == [], version


def test_show_lists_metal_counts(cli):
    data = json.loads(cli("show", "--version", "3.1", "--format", "json").out)
    metals = {s["name"]: s["count"] for s in data["symbols"].values() if s.get("kind") == "metal" and not s.get("any")}
    assert metals == {"Steel": 20, "Orcish Steel": 17, "Dwarvish Steel": 13, "Elvish Steel": 10}
    assert data["decks"]["mine"]["cards"] == 60
    assert data["rules"]["hand_limit"] == 3
    assert data["rules"]["end_condition"] == ["blade", "hilt", "upgrade"]


def test_show_text_has_generated_effect_text(cli):
    out = cli("show", "-v", "3.1").out
    assert "Shortsword Hilt" in out
    assert "[Orcish Steel] +1 sword point" in out
    assert "Steel x20" in out


def test_versions_resolve_changes_in_order(cli):
    v1 = json.loads(cli("show", "-v", "1", "--format", "json").out)
    v2 = json.loads(cli("show", "-v", "2", "--format", "json").out)
    v3 = json.loads(cli("show", "-v", "3", "--format", "json").out)
    cards1 = {c["id"]: c for c in v1["cards"]}
    cards2 = {c["id"]: c for c in v2["cards"]}
    cards3 = {c["id"]: c for c in v3["cards"]}
    assert "mirror-hilt" in cards1 and "mirror-hilt" not in cards2
    assert cards1["shortsword-hilt"]["fields"]["needs"] == 3 == cards3["shortsword-hilt"]["fields"]["needs"]
    # the Katana Hilt is weak in V2 and changed in V3
    assert cards2["katana-hilt"]["fields"] == {"points": 1, "needs": 4}
    assert cards3["katana-hilt"]["fields"] == {"points": 3, "needs": 3}
    assert len(cards2["katana-hilt"]["effects"]) == 1 and len(cards3["katana-hilt"]["effects"]) == 2
    # steel has effects only in V1
    steel_v1 = [e for c in v1["cards"] for e in c["effects"] if e["when"] == "steel"]
    steel_later = [e for v in (v2, v3) for c in v["cards"] for e in c["effects"] if e["when"] == "steel"]
    assert steel_v1 and not steel_later
    assert v1["rules"]["hand_limit"] is None and v2["rules"]["hand_limit"] == 4 and v3["rules"]["hand_limit"] == 3


def test_market_and_blades_suffice_for_four_players(cli):
    data = json.loads(cli("show", "-v", "3.1", "--format", "json").out)
    assert data["decks"]["blades"]["cards"] >= 4
    assert data["decks"]["market"]["cards"] >= 4 * 4  # four restocks' worth at least
    assert data["decks"]["tokens"]["cards"] == 4


def test_changed_metal_count_is_an_error_naming_file_and_card(cli, seed_copy):
    path = seed_copy / "versions/kings-blade/2.yml"
    path.write_text(path.read_text().replace("{id: steel, count: 20}", "{id: steel, count: 21}"))
    result = cli("validate", "--version", "3.1", cwd=seed_copy)
    assert result.code == 1
    assert re.search(r"versions/kings-blade/2\.yml:\d+:\d+: error: Steel: 21 cards, expected 20", result.out)
    assert "[card steel]" in result.out
    assert "deck 'mine' should hold 60 cards but holds 61" in result.out


def test_effect_on_undefined_metal_is_an_error_naming_file_and_card(cli, seed_copy):
    path = seed_copy / "versions/kings-blade/3.yml"
    text = path.read_text().replace("{when: elvish, do: points, amount: 2}", "{when: mithril, do: points, amount: 2}", 1)
    path.write_text(text)
    result = cli("validate", "-v", "3.1", cwd=seed_copy)
    assert result.code == 1
    line = next(ln for ln in result.out.splitlines() if "mithril" in ln)
    assert re.match(r"versions/kings-blade/3\.yml:\d+:\d+: error: effect 'points' is tied to 'mithril'", line)
    assert "[card katana-hilt]" in line


def test_grey_metal_effect_from_v2_on_is_an_error(cli, seed_copy):
    path = seed_copy / "versions/kings-blade/3.yml"
    path.write_text(path.read_text().replace("{when: orcish, do: extra_pour, amount: 1}", "{when: steel, do: extra_pour, amount: 1}"))
    result = cli("validate", "-v", "3", cwd=seed_copy)
    assert result.code == 1
    assert "tied to Steel, which has no effects in version 3" in result.out


def test_schema_covers_both_file_kinds(cli):
    data = json.loads(cli("schema").out)
    assert set(data) == {"game", "version"}
    assert {"card_types", "decks", "effects", "rules"} <= set(data["game"]["properties"])
    assert {"extends", "cards", "override", "remove", "claims", "notes"} <= set(data["version"]["properties"])
    assert data["version"]["additionalProperties"] is False


def test_committed_schema_is_current_and_yaml_files_point_to_it(cli):
    live = json.loads(cli("schema").out)
    for kind in ("game", "version"):
        committed = json.loads((ROOT / "schema" / f"{kind}.schema.json").read_text())
        assert committed == live[kind], f"schema/{kind}.schema.json is stale: run `cardgen schema --write`"
    for path in list((ROOT / "versions").rglob("*.yml")) + list((ROOT / "card_data").rglob("game.yml")):
        first = path.read_text().splitlines()[0]
        kind = "game" if path.name == "game.yml" else "version"
        assert first.startswith("# yaml-language-server: $schema=") and first.endswith(f"{kind}.schema.json"), path
        target = (path.parent / first.split("=", 1)[1]).resolve()
        assert target == (ROOT / "schema" / f"{kind}.schema.json").resolve(), path


def test_data_files_validate_against_the_json_schema():
    """As an editor's YAML 1.2 schema check sees them: `on`, `yes`, `no` are text (cardgen reads
    them so too, docs/data-format.md), not PyYAML's YAML 1.1 booleans."""
    import jsonschema
    import yaml

    from cardgen.data.yamlsource import Loader

    def checker(kind: str):
        """`jsonschema.validate(doc, schema)` with the schema checked and compiled once, not per
        file: raises the same error (the best match) when a file does not conform."""
        schema = json.loads((ROOT / "schema" / f"{kind}.schema.json").read_text())
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = cls(schema)

        def check(doc) -> None:
            error = jsonschema.exceptions.best_match(validator.iter_errors(doc))
            if error is not None:
                raise error

        return check

    version, game = checker("version"), checker("game")
    for path in (ROOT / "versions").rglob("*.yml"):
        version(yaml.load(path.read_text(), Loader=Loader))
    for path in (ROOT / "card_data").rglob("game.yml"):
        game(yaml.load(path.read_text(), Loader=Loader))
