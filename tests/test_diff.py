"""Issue 5: `cardgen diff` between versions of The King's Blade, and update packs.

Expected changes are computed from the data where that is sensible (describe(), snapshot
counts, game.yml labels) rather than copied from the diff code.

What The King's Blade's versions change is read from the seed project. The command's exit codes,
the HTML page and the update pack are the core's promises and run on tests/projects/mini: its
version 2 over version 1 (a rule changed, a card changed, one removed, one added) and, written
here, a version 3 that changes one rule only.
"""

from __future__ import annotations

import base64
import copy
import io
import json
import math
import re

import pytest
from conftest import ROOT
from PIL import Image
from pypdf import PdfReader

from cardgen.data import cardtext
from cardgen.data.describe import describe
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.diff import changed_card_ids, diff_versions
from cardgen.diff.formats import as_markdown, as_text
from cardgen.diff.html import as_html
from cardgen.render.cards import CardRenderer

MINI_RULE_ONLY = 'extends: "2"\ntitle: Version 3\nrules:\n  hand_size: 5\n'  # mini's version 3: one rule changed


def _with_rule_only_version(mini) -> None:
    (mini / "versions/mini/3.yml").write_text(MINI_RULE_ONLY, encoding="utf-8")


@pytest.fixture(scope="module")
def mini_versions(mini_shared):
    """tests/projects/mini (the session's shared copy, read only) and its versions 1 and 2."""
    project = load_project(mini_shared)
    game = load_game(project, "mini")
    return project, {v: resolve(project, game, v) for v in ("1", "2")}


@pytest.fixture(scope="module")
def kb():
    project = load_project(ROOT)
    game = load_game(project, "kings-blade")
    return project, {v: resolve(project, game, v) for v in ("1", "2", "3", "3.1")}


def _diff(kb, a, b):
    project, snaps = kb
    return diff_versions(project, snaps[a], snaps[b])


def _cards(snapshot):
    return {c["id"]: c for c in describe(snapshot)["cards"]}


def test_3_to_31_changes_the_forge_rule(kb):
    """3.1 changes one rule; the table rules the document leaves open are answered from version 1
    on (the players' rulebook of every version prints them as rules), so 3.1 does not restate them."""
    _, snaps = kb
    diff = _diff(kb, "3", "3.1")
    spec = snaps["3.1"].game.rule_specs["forge"]
    assert [(c.key, c.old, c.new) for c in diff.rules] == [("forge", "token_optional", "token_required")]
    answered = {"blade_deal": "deal_random", "market_refill": "immediately", "market_runs_out": "reshuffle",
                "metal_discard": "mine_bottom", "mine_runs_out": "take_what_is_left", "metal_order": "row"}
    assert {key: snaps["3"].rules[key] for key in answered} == answered == {key: snaps["3.1"].rules[key] for key in answered}
    rule = diff.rules[0]
    assert rule.label == spec.label
    assert (rule.old_text, rule.new_text) == (spec.values["token_optional"], spec.values["token_required"])
    assert not (diff.added or diff.removed or diff.changed or diff.style or diff.symbols)
    assert not (diff.deck_counts or diff.symbol_counts or diff.reprint)
    assert changed_card_ids(snaps["3"], snaps["3.1"]) == set()
    assert diff.notes == [("3.1", snaps["3.1"].info.notes.changes)]


def test_2_to_3_rules_and_style(kb):
    _, snaps = kb
    diff = _diff(kb, "2", "3")
    old, new = describe(snaps["2"])["rules"], describe(snaps["3"])["rules"]
    assert {c.key: (c.old, c.new) for c in diff.rules} == {k: (old[k], new[k]) for k in new if old[k] != new[k]}
    by_key = {c.key: c for c in diff.rules}
    assert (by_key["hand_limit"].old, by_key["hand_limit"].new) == (4, 3)
    assert (by_key["mine_action"].old, by_key["mine_action"].new) == ("take_one", "fill_hand")
    assert by_key["end_condition"].new == ["blade", "hilt", "upgrade"]
    assert by_key["end_condition"].new_text == "Blade, Hilt, Upgrade"  # card-type labels from game.yml
    assert by_key["end_condition"].detail == "adds Upgrade"
    assert by_key["mine_action"].label == "Mine action"
    assert [(c.key, c.old, c.new) for c in diff.style] == [("art_opacity", 0.10, 0.5)]


def test_2_to_3_card_changes_match_the_data(kb):
    _, snaps = kb
    diff = _diff(kb, "2", "3")
    old, new = _cards(snaps["2"]), _cards(snaps["3"])
    keys = ("name", "count", "art", "fields", "effects")
    expected = {cid for cid in new if cid in old and any(old[cid][k] != new[cid][k] for k in keys)}
    assert {c.id for c in diff.changed} == expected == {
        "katana-hilt", "crossguard-hilt", "forge-bellows", "greatsword", "rapier"}
    changes = {c.id: c for c in diff.changed}
    for cid, card in changes.items():  # every changed field, as the data says
        got = {f.key: (f.old, f.new) for f in card.fields}
        want = {k: (old[cid]["fields"][k], v) for k, v in new[cid]["fields"].items() if old[cid]["fields"][k] != v}
        assert got == want, cid
    katana = changes["katana-hilt"]
    assert {f.label: (f.old, f.new) for f in katana.fields} == {"Sword points": (1, 3), "Metals needed": (4, 3)}
    old_texts = [e["text"] for e in old["katana-hilt"]["effects"]]
    new_texts = [e["text"] for e in new["katana-hilt"]["effects"]]
    assert [(r.change, r.old_text, r.new_text) for r in katana.effects] == [
        ("changed", old_texts[0], new_texts[0]),  # the Orcish row now pours
        ("added", None, new_texts[1]),  # a new Elvish row
    ]
    assert new_texts[1] == "[Elvish Steel] +2 sword points"
    for cid in ("crossguard-hilt", "forge-bellows"):
        rows = changes[cid].effects
        assert [r.change for r in rows] == ["changed"] and not changes[cid].fields
        i = next(i for i, (a, b) in enumerate(zip(old[cid]["effects"], new[cid]["effects"])) if a != b)
        assert (rows[0].old_text, rows[0].new_text) == (old[cid]["effects"][i]["text"], new[cid]["effects"][i]["text"])
    assert [(f.key, f.old, f.new) for f in changes["greatsword"].fields] == [("needs", 6, 5)]
    assert [(f.key, f.old, f.new) for f in changes["rapier"].fields] == [("points", 2, 3)]


def test_1_to_2_added_removed_and_counts(kb):
    _, snaps = kb
    diff = _diff(kb, "1", "2")
    v1, v2 = snaps["1"], snaps["2"]
    assert {c.id for c in diff.removed} == {"mirror-hilt", "dragon-hilt", "crucible"}
    assert {c.id for c in diff.added} == {c.id for c in v2.cards} - {c.id for c in v1.cards}
    bellows = next(c for c in diff.added if c.id == "forge-bellows")
    assert bellows.count == 2
    assert bellows.effects == [cardtext.effect_plain(v2, e) for e in v2.card("forge-bellows").effects]
    counts = {c.id: (c.old, c.new) for c in diff.symbol_counts}
    assert counts == {s: (v1.symbol_count(s), v2.symbol_count(s)) for s in v2.symbols
                      if v1.symbol_count(s) != v2.symbol_count(s)}
    assert counts["steel"] == (26, 20) and counts["elvish"] == (5, 10)
    steel = next(c for c in diff.changed if c.id == "steel")
    assert [(f.label, f.old, f.new) for f in steel.fields] == [("Copies", 26, 20)]
    decks = {d.id: d for d in diff.deck_counts}
    assert set(decks) == {d for d in v2.game.decks if (v1.deck_size(d), len(v1.cards_in_deck(d)))
                          != (v2.deck_size(d), len(v2.cards_in_deck(d)))}
    assert (decks["market"].old_cards, decks["market"].new_cards) == (v1.deck_size("market"), v2.deck_size("market"))
    symbols = {s.id: {f.key: (f.old, f.new) for f in s.fields} for s in diff.symbols}
    assert symbols["orcish"] == {"colour": ("#8c8c8c", "#3f8f3a")}
    assert symbols["steel"] == {"inert": (None, True)}
    arming = next(c for c in diff.changed if c.id == "arming-sword")
    assert [(r.change, r.old_text, r.new_text) for r in arming.effects] == [
        ("changed", "[Steel] +1 sword point", "[Orcish Steel] +1 sword point")]


def test_changed_card_ids_compare_printed_faces(kb):
    project, snaps = kb
    parts = {"blade", "hilt", "upgrade"}
    # V3 made the background art more visible: every sword part prints differently, metals do not
    assert changed_card_ids(snaps["2"], snaps["3"]) == {c.id for c in snaps["3"].cards if c.type in parts}
    v1_to_v2 = changed_card_ids(snaps["1"], snaps["2"], project)
    assert {c.id for c in snaps["2"].cards} - {c.id for c in snaps["1"].cards} <= v1_to_v2  # new cards
    assert "forge-token" in v1_to_v2  # the forge token is new in V2
    recount = copy.deepcopy(snaps["3.1"])
    recount.card("steel").count = 7
    assert changed_card_ids(snaps["3.1"], recount) == set()  # a count is not printed
    renamed = copy.deepcopy(snaps["3.1"])
    renamed.card("steel").name = "Iron"
    assert changed_card_ids(snaps["3.1"], renamed) == {"steel"}


def test_json_is_stable_and_sorted(cli):
    first = cli("diff", "2", "3", "--format", "json")
    second = cli("diff", "v2", "V3", "--format", "json")
    assert first.code == 0 and first.out == second.out
    data = json.loads(first.out)
    assert first.out == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert (data["old"]["version"], data["new"]["version"], data["identical"]) == ("2", "3", False)
    katana = next(c for c in data["cards"]["changed"] if c["id"] == "katana-hilt")
    assert [f["key"] for f in katana["fields"]] == ["points", "needs"]
    assert [r["change"] for r in katana["effects"]] == ["changed", "added"]
    assert katana["effects"][1]["new"] == {"when": "elvish", "do": "points", "amount": 2}
    assert set(data) == {"game", "name", "old", "new", "identical", "rules", "style", "symbols", "cards",
                         "counts", "claims", "reprint", "notes"}
    assert data["claims"] == []  # 3 inherits 2's claims unchanged


def test_markdown_reads_as_release_notes(kb):
    _, snaps = kb
    md = as_markdown(_diff(kb, "1", "2"))
    for heading in ("## Rules", "## Cards added", "## Cards removed", "## Cards changed", "## Deck counts"):
        assert f"\n{heading}\n" in md
    for note in snaps["2"].info.notes.changes:
        assert f"> - {note}\n" in md
    assert "- **Hand limit**: none → 4" in md
    assert "\x1b[" not in md


def test_text_is_coloured_only_for_a_terminal(kb, cli):
    assert "\x1b[" in as_text(_diff(kb, "2", "3"))  # styled; click strips it when not wanted
    result = cli("diff", "2", "3")
    assert result.code == 0 and "\x1b[" not in result.out  # captured output is not a terminal
    assert "Hand limit: 4 -> 3" in result.out
    assert "Katana Hilt (Hilt)" in result.out


def test_exit_code(cli, mini):
    _with_rule_only_version(mini)
    assert cli("diff", "1", "2", "--exit-code", cwd=mini).code == 1
    assert cli("diff", "2", "v2", "--exit-code", cwd=mini).code == 0
    assert cli("diff", "2", "3", "--exit-code", cwd=mini).code == 1  # a rule alone is a difference
    assert cli("diff", "1", "2", cwd=mini).code == 0  # without the flag a difference is not a failure
    missing = cli("diff", "2", "9", cwd=mini)
    assert missing.code == 2 and "no version '9'" in missing.err


def test_html_is_self_contained_with_both_renders(mini_versions, mini_shared, tmp_path, cli):
    out = tmp_path / "diff.html"
    assert cli("diff", "1", "2", "--format", "html", "--out", str(out), cwd=mini_shared).code == 0
    page = out.read_text(encoding="utf-8")
    assert "http://" not in page and "https://" not in page
    sources = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert sources and all(s.startswith("data:image/png;base64,") for s in sources)
    section = re.search(r'<section class="card" id="card-ember">(.*?)</section>', page, re.S).group(1)
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', section)
    assert len(images) == 2 and images[0] != images[1]
    for data in images:
        with Image.open(io.BytesIO(base64.b64decode(data))) as img:
            assert img.size == (372, 520)  # the trimmed 63 x 88 mm card at 150 DPI
    assert "Value" in section  # the changed field's label
    project, snaps = mini_versions
    assert page == as_html(project, diff_versions(project, snaps["1"], snaps["2"]))  # deterministic


def test_update_pack_prints_only_changed_cards(mini, cli, tmp_path, monkeypatch):
    _with_rule_only_version(mini)
    project = load_project(mini)
    snaps = {v: resolve(project, load_game(project, "mini"), v) for v in ("1", "2")}
    rendered = []
    render_card = CardRenderer.render_card
    monkeypatch.setattr(CardRenderer, "render_card",
                        lambda self, card: rendered.append(card) or render_card(self, card))
    result = cli("build", "--version", "2", "--only-changed-since", "1", "--paper", "a4", "--no-png",
                 "--out", str(tmp_path), "--timings", cwd=mini)
    assert result.code == 0, result.err
    assert len(rendered) == len(snaps["1"].cards) + len(snaps["2"].cards)  # each version's cards once
    timings = result.out[result.out.index("stage times:"):].splitlines()[1:]
    assert [line.split()[0] for line in timings] == ["load", "validate", "render", "preflight", "compare",
                                                     "rasterise", "export", "sheets", "total"]
    seconds = [float(re.search(r"(\d+\.\d+) s", line).group(1)) for line in timings]
    # printed to 0.01 s: mini's few faces may render in under 0.005 s (0.00), so the render stage is
    # read by what it says it did; `rendered` above counts its faces
    assert all(s >= 0 for s in seconds) and "card faces and backs as SVG" in timings[2]
    assert sum(seconds[:-1]) <= seconds[-1] + 0.05  # without a rulebook every stage runs in this process
    changed = changed_card_ids(snaps["1"], snaps["2"])
    assert changed  # ember changed, flare added
    printed = sum(c.count for c in snaps["2"].cards if c.id in changed)
    pages = len(PdfReader(tmp_path / "update-sheets-a4-duplex.pdf").pages)
    assert pages == 2 * math.ceil(printed / 9)  # 3 x 3 poker cards a page, each front with its back page
    assert f"{len(changed)} new or changed card{'' if len(changed) == 1 else 's'}: " in result.out
    nothing = cli("build", "--version", "3", "--only-changed-since", "2", "--paper", "a4", "--no-png",
                  "--out", str(tmp_path / "none"), cwd=mini)
    assert nothing.code == 0 and not (tmp_path / "none" / "update-sheets-a4-duplex.pdf").exists()
