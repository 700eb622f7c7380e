"""Issue 27: the set-up as data (game.yml `setup:`), dealt for every player count, and validated."""

from __future__ import annotations

import functools
import json
from collections import Counter
from pathlib import Path

import pytest

from cardgen.data.project import load_project
from cardgen.data.setup import deal, default_setup
from cardgen.data.versions import load_game, resolve

ROOT = Path(__file__).resolve().parents[1]
KB_GAME = "card_data/kings-blade/game.yml"


def snapshot(root: Path, game: str, version: str | None = None):
    project = load_project(root)
    return resolve(project, load_game(project, game), version)


@functools.cache
def seed_snapshot(game: str, version: str | None = None):
    """A seed game's version resolved once in this module (ROOT, which no test edits): the
    dealing tests only read it, and The King's Blade 3.1 alone is dealt from in five tests."""
    return snapshot(ROOT, game, version)


def line_of(path: Path, text: str, after: int = 0) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if i > after and text in line)


def validate_json(cli, root: Path, *args: str):
    result = cli("validate", "--format", "json", *args, cwd=root)
    return result.code, json.loads(result.out)


def setup_errors(report) -> list[dict]:
    return [f for f in report["findings"] if f["severity"] == "error" and f["code"] == "setup"]


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# --- dealing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_kings_blade_3_1_deals_what_its_rulebook_says(players):
    s = seed_snapshot("kings-blade", "3.1")
    table = deal(s, players)
    row = table.place("market-row")
    assert len(row.cards) == s.rules["market_face_up"] == 4 and row.face_up
    assert {c.type for c in row.cards} <= {"hilt", "upgrade"}
    market = table.place("market")
    assert not market.face_up and len(market.cards) == s.deck_size("market") - 4
    mine = table.place("mine")
    assert len(mine.cards) == 60 - 3 * players and not mine.face_up
    for seat in table.seats:
        got = {p.id: p for p in seat}
        assert [c.type for c in got["blade"].cards] == ["blade"] and got["blade"].face_up
        assert [c.id for c in got["forge-token"].cards] == ["forge-token"]
        assert len(got["storage"].cards) == s.rules["starting_hand"] == 3
        assert {c.type for c in got["storage"].cards} == {"metal"} and got["storage"].kind == "hand"
    # every printed card lies somewhere exactly once
    printed = Counter({c.id: c.count for c in s.cards})
    laid = Counter(c.id for p in table.places() for c in p.cards)
    assert laid == printed
    assert len(table.place("blades").cards) == 6 - players  # the rest of the blades, in the box


def test_dealing_is_the_same_every_time_and_differs_by_player_count():
    s = seed_snapshot("kings-blade", "3.1")
    ids = [[c.id for c in p.cards] for p in deal(s, 3).places()]
    assert ids == [[c.id for c in p.cards] for p in deal(s, 3).places()]
    assert [c.id for c in deal(s, 3, seed=1).place("mine").cards] != [c.id for c in deal(s, 3, seed=2).place("mine").cards]


def test_version_1_has_no_forge_tokens_and_no_place_for_them():
    """V1 lists the tokens deck under unused_decks: its places (and the players' token) are left out."""
    table = deal(seed_snapshot("kings-blade", "1"), 4)
    assert "forge-tokens" not in {p.id for p in table.shared}
    assert [p.id for p in table.seats[0]] == ["blade", "storage"]


def test_a_player_count_the_game_does_not_allow_is_one_line(cli):
    from cardgen.errors import InputError

    with pytest.raises(InputError) as err:
        deal(seed_snapshot("kings-blade", "3.1"), 5)
    assert "played by 2-4 players, not 5" in err.value.message
    assert err.value.loc is not None and err.value.loc.line == line_of(ROOT / KB_GAME, "players: {min: 2, max: 4}")


def test_a_game_without_a_setup_gets_one_from_its_data(cli, seed_copy):
    """`cardgen new`'s game declares no set-up: its decks are shuffled face down, each per_player type dealt."""
    assert cli("new", "Dragon Race", cwd=seed_copy).code == 0
    s = snapshot(seed_copy, "dragon-race")
    made = default_setup(s)
    assert made.shared and all(p.kind in {"deck", "board", "supply", "box"} for p in made.shared)
    table = deal(s, s.game.file.players.min)
    printed = Counter({c.id: c.count for c in s.cards if c.count})
    assert Counter(c.id for p in table.places() for c in p.cards) == printed


# --- validation -------------------------------------------------------------------------------


def test_the_seed_games_set_ups_validate(cli):
    for game, version in [("kings-blade", "1"), ("kings-blade", "2"), ("kings-blade", "3"), ("kings-blade", "3.1"),
                          ("kings-guild", "1"), ("knightfall", "1"), ("one-true-king", "1"), ("way-of-the-blade", "1")]:
        code, report = validate_json(cli, ROOT, "--game", game, "--version", version)
        assert setup_errors(report) == [], (game, version)
        assert [f for f in report["findings"] if f["code"] == "setup"] == [], (game, version)  # no warning either


def test_two_places_printing_the_same_name_are_a_warning_at_the_second(cli, seed_copy):
    """The market's drawing pile and its face-up row both named "Market": a player could not tell
    them apart in the rulebook's figure or on the virtual table."""
    edit(seed_copy, KB_GAME, "      label: Market drawing pile\n", "      label: Market\n")
    code, report = validate_json(cli, seed_copy, "--version", "3.1")
    assert code == 0
    [warning] = [f for f in report["findings"] if f["code"] == "setup"]
    assert warning["severity"] == "warning"
    assert warning["file"] == KB_GAME and warning["line"] == line_of(seed_copy / KB_GAME, "- id: market-row")
    assert "places 'market' and 'market-row' both print the name 'Market'" in warning["message"]


def test_too_few_metals_for_four_players_is_found_at_its_place(cli, seed_copy):
    edit(seed_copy, KB_GAME, "      count: starting_hand\n", "      count: 16\n")
    code, report = validate_json(cli, seed_copy, "--version", "3.1")
    assert code == 1
    [error] = setup_errors(report)
    assert error["file"] == KB_GAME and error["line"] == line_of(seed_copy / KB_GAME, "- id: storage")
    assert "needs 16 from 'mine' at 4 players, but only 12 are left there" in error["message"]


def test_a_component_without_a_place_is_found(cli, seed_copy):
    edit(seed_copy, KB_GAME, "      types: [hilt, upgrade]\n", "      types: [hilt]\n")
    code, report = validate_json(cli, seed_copy, "--version", "3.1")
    errors = setup_errors(report)
    assert code == 1 and errors
    assert all("has no place in the set-up" in e["message"] for e in errors)
    s = snapshot(seed_copy, "kings-blade", "3.1")
    assert sorted(e["card"] for e in errors) == sorted(c.id for c in s.cards_of_type("upgrade"))
    assert errors[0]["file"] == KB_GAME


def test_a_place_whose_components_lie_in_an_earlier_place_is_found(cli, seed_copy):
    """A component lies in the first place that selects it; a later place left with nothing is a mistake."""
    edit(seed_copy, KB_GAME, "      deck: blades\n", "      types: [hilt]\n")
    code, report = validate_json(cli, seed_copy, "--version", "3.1")
    errors = setup_errors(report)
    assert code == 1 and len(errors) == 1 + 6, errors  # the place, and the 6 blades without one
    [place] = [e for e in errors if "holds nothing" in e["message"]]
    assert place["line"] == line_of(seed_copy / KB_GAME, "- id: blades")
    assert "every component it selects lies in an earlier place (market)" in place["message"]


@pytest.mark.parametrize("old,new,says", [
    ("      from: mine\n", "      from: mines\n", "deals from 'mines', which is not an earlier place of the shared area"),
    ("      count: starting_hand\n", "      count: hand_size\n", "'hand_size' is not a rule of the game"),
    ("      count: starting_hand\n", "      count: {2: 3, 3: 3}\n", "no number for 4 players (given for: 2, 3)"),
    ("      deck: mine\n", "      deck: mines\n", "unknown deck 'mines'"),
    ("    - id: forge-token\n      kind: cards\n", "    - id: forge-token\n      kind: pieces\n",
     "a pieces place cannot hold card components"),
])
def test_bad_setup_names_are_one_line_at_the_place(cli, seed_copy, old, new, says):
    edit(seed_copy, KB_GAME, old, new)
    result = cli("validate", "--version", "3.1", cwd=seed_copy)
    assert result.code == 1 and "Traceback" not in result.err
    lines = [line for line in (result.out + result.err).splitlines() if says in line]
    assert len(lines) == 1, result.out + result.err
    assert lines[0].startswith(f"{KB_GAME}:") and ": error: " in lines[0]


def test_a_wrongly_typed_setup_is_a_located_input_error(cli, seed_copy):
    edit(seed_copy, KB_GAME, "      kind: row\n", "      kind: pile\n")
    result = cli("validate", "--version", "3.1", cwd=seed_copy)
    assert result.code == 2 and "Traceback" not in result.err
    [line] = [x for x in result.err.splitlines() if "kind" in x]
    assert line.startswith(f"error: {KB_GAME}:{line_of(seed_copy / KB_GAME, 'kind: pile')}:")
    assert "expected 'board', 'deck', 'row'" in line


def test_a_version_changes_the_setup_place_by_place(cli, seed_copy):
    (seed_copy / "versions/kings-blade/3.2.yml").write_text(
        'extends: "3.1"\nsetup:\n  shared:\n    - {id: market-row, kind: row, from: market, count: {2: 3, 3: 4, 4: 5}}\n'
        "  players:\n    - {id: forge-token, withdrawn: true, kind: cards}\n", encoding="utf-8")
    s = snapshot(seed_copy, "kings-blade", "3.2")
    assert [len(deal(s, n).place("market-row").cards) for n in (2, 3, 4)] == [3, 4, 5]
    assert [p.id for p in deal(s, 2).seats[0]] == ["blade", "storage"]
    code, report = validate_json(cli, seed_copy, "--version", "3.2")
    assert setup_errors(report) == []


def test_the_published_schema_describes_the_setup():
    from cardgen.data.model import json_schemas

    schemas = json_schemas()
    place = schemas["game"]["$defs"]["SetupPlace"]
    assert {"kind", "from", "count", "positions", "matching", "unlimited"} <= set(place["properties"])
    assert "setup" in schemas["version"]["properties"]


# --- the other seed games -----------------------------------------------------------------------

GAMES = ["kings-blade", "kings-guild", "knightfall", "one-true-king", "way-of-the-blade"]


@pytest.mark.parametrize("game", GAMES)
def test_every_seed_game_declares_a_setup_that_places_every_component_at_every_count(game):
    s = seed_snapshot(game)
    assert s.setup is not None and s.setup.shared
    printed = Counter({c.id: c.count for c in s.cards if c.count})
    for players in range(s.game.file.players.min, s.game.file.players.max + 1):
        table = deal(s, players)
        assert len(table.seats) == players
        laid = Counter(c.id for p in table.places() for c in p.cards)
        unlimited = {c.id for p in table.shared if p.place.unlimited for c in p.different}
        # an unlimited supply may hand out more than was printed; everything else lies once
        assert {k: v for k, v in laid.items() if k not in unlimited} == \
               {k: v for k, v in printed.items() if k not in unlimited}, players


def test_kings_guild_seats_get_their_own_guilds_seals_and_the_mission_deck_is_ordered():
    s = seed_snapshot("kings-guild")
    for players in (2, 6):
        table = deal(s, players)
        guilds = []
        for seat in table.seats:
            got = {p.id: p for p in seat}
            [guild] = got["gilda"].cards
            guilds.append(guild.fields["gilda"])
            assert [c.fields["gilda"] for c in got["sigilli"].cards] == [guild.fields["gilda"]] * 2
            assert [c.id for c in got["monete"].cards] == ["moneta-1"] * s.rules["monete_iniziali"]
            assert [c.id for c in got["plancia"].cards] == ["plancia"]
        assert len(set(guilds)) == players
        row = table.place("missioni-scoperte").cards
        deck = table.place("missioni").cards
        full = row + deck  # the row was dealt from the top of the deck as built
        assert full[s.rules["posizione_funerale"] - 1].id == "funerale-del-re"
        assert full[-1].id == "offerta-al-concilio" and len(full) == s.rules["posizione_offerta"]
        assert len(table.place("stanze-in-vendita").cards) == s.rules["stanze_in_vendita"]
        assert len(table.place("specialisti-in-fila").cards) == s.rules["specialisti_in_fila"]
        assert [c.id for c in table.place("statua").cards] == ["statua-del-re"]
        assert table.place("banca").place.unlimited and not table.place("riserva").place.unlimited
        assert len(table.place("gilde").cards) == 6 - players


def test_one_true_king_lays_its_grid_rule():
    s = seed_snapshot("one-true-king")
    table = deal(s, 2)
    field = table.place("field")
    assert field.grid_rows == s.rules["grid"] and len(field.cards) == 35
    assert field.faces_up()[:7] == [False, True, False, True, False, True, False]
    assert len(table.place("deck").cards) == s.rules["spare_cards"] == 5
    assert sorted(c.fields["army"] for seat in table.seats for c in seat[0].cards) == ["black", "red"]


def test_way_of_the_blade_deals_four_first_hands():
    s = seed_snapshot("way-of-the-blade")
    table = deal(s, 4)
    assert [len(seat[0].cards) for seat in table.seats] == [s.rules["first_deal"]] * 4
    assert all(seat[0].kind == "hand" for seat in table.seats)
    assert len(table.place("duel").cards) == 44 - 4 * 5


def test_kings_guild_7_players_is_refused():
    from cardgen.errors import InputError

    with pytest.raises(InputError, match="played by 2-6 players, not 7"):
        deal(seed_snapshot("kings-guild"), 7)
