"""The King's Guild under `cardgen simulate`: its own bots, figures, plots and claims, and the
engine's rules checked on games set by hand. Few games (the machine is shared)."""

from __future__ import annotations

import importlib
import json
from random import Random

import pytest

from cardgen.simulate.runner import Experiment, SimulationError, simulation_for


def kg(**kw) -> Experiment:
    base = {"project": str(__import__("pathlib").Path(__file__).resolve().parent.parent), "game": "kings-guild",
            "version": "1", "players": 4, "bots": ("greedy", "builder"), "games": 20, "seed": 1}
    return Experiment(**{**base, **kw})


def engine_of(exp: Experiment):
    sim = simulation_for(exp)
    package = type(sim).__module__.rsplit(".", 1)[0]
    return sim, importlib.import_module(package + ".engine"), importlib.import_module(package + ".bots")


def new_game(players=4, rules=None):
    sim, engine, bots = engine_of(kg(players=players, rules=tuple(sorted((rules or {}).items()))))
    return engine.Game(sim.table, Random(0), [bots.make_bot("greedy") for _ in range(players)]), sim.table


def test_kings_guild_simulates_with_its_own_figures(cli):
    result = cli("simulate", "--game", "kings-guild", "--players", "4", "--games", "40", "--jobs", "1",
                 "--format", "json", "--quiet", "--no-claims")
    assert result.code == 0, result.err
    r = json.loads(result.out)
    assert r["bots"] == ["greedy", "builder"] and r["games"] == 40
    finished = r["ended"]["count"]
    assert finished >= 20  # most games reach the Offering
    assert sum(s["wins"] for s in r["seat_win_rate"]) == pytest.approx(finished)
    assert set(r["points"]) == {"Charms", "Charms majority", "Relics", "Treasures face down", "Missions",
                                "Specialists", "Rooms", "Offering's Seal"}
    assert r["points"]["Missions"]["per_player"] > 1  # one point per Mission card held
    assert sum(g["wins"] for g in r["guild_wins"].values()) == pytest.approx(finished)
    assert sum(g["games"] for g in r["guild_wins"].values()) == 4 * finished
    # every finished game drew the Funeral (it lies before the middle); a locked game may not have
    assert finished <= r["funeral"]["won"] + r["funeral"]["nobody"] <= 40
    assert [p["name"] for p in r["game_plots"]] == ["sources", "guilds", "missions"]
    # the Mission deck: 26 cards less the face-up 4 and the Funeral drawn, shrinking round by round
    deck = [p["mean"] for p in r["series"]["missions"]]
    assert deck[0] <= 26 - 4 and deck[-1] < deck[0]


@pytest.mark.parametrize("players", [2, 6])
def test_every_player_count_plays(cli, players):
    result = cli("simulate", "--game", "kings-guild", "--players", str(players), "--games", "10", "--jobs", "1",
                 "--format", "json", "--quiet", "--no-claims")
    assert result.code == 0, result.err
    r = json.loads(result.out)
    assert len(r["seat_win_rate"]) == players
    assert sum(g["games"] for g in r["guild_wins"].values()) == players * r["ended"]["count"]


def test_report_draws_the_games_own_plots(cli, tmp_path, project_copy):
    report = tmp_path / "kg.html"
    result = cli("simulate", "--game", "kings-guild", "--players", "3", "--games", "30", "--jobs", "1",
                 "--report", str(report), "--claim-games", "30", cwd=project_copy)
    assert result.code == 0, result.err
    html = report.read_text()
    assert "Points per player, by scoring source" in html and "Win rate by Guild" in html
    assert "Mission deck left" in html and "metal" not in html.lower()
    assert "The Gilda dei Mercanti wins no more than its share (1/3)." in result.out
    assert "Playing first gives no advantage." in result.out


def test_price_drop_to_the_right_and_discard_at_zero():
    game, t = new_game()
    p = game.players[0]
    p.coins = 50
    row = game.spec_row
    before = [(s["id"], d) for s, d in row]
    game.hire(p, 1)
    assert [d for _, d in row[2:]] == [d + t["drop"] for _, d in before[2:]]  # right of it: cheaper
    assert row[0][1] == before[0][1]  # left of it: unchanged
    assert row[1][1] == 0  # the new one in its place: full price
    paid = p.coins
    game.hire(p, 3)  # bought with a drop: not full price, nothing to its right changes
    assert row[4][1] == t["drop"] and p.coins < paid


def test_a_specialist_reaching_zero_is_discarded():
    game, t = new_game()
    p = game.players[0]
    p.coins = 99
    game.spec_row[4][1] = game.spec_row[4][0]["costo"] - t["drop"]
    gone = game.spec_row[4][0]
    game.spec_row[0][1] = 0
    game.hire(p, 0)
    assert game.spec_row[4][0] is not gone and game.spec_row[4][1] == 0
    assert game.tallies["specialists_dropped"] == 1


def test_funeral_tie_gives_nobody_the_statue_and_the_highest_bid_pays():
    game, t = new_game(players=2)
    for p in game.players:
        p.coins = 4
    game.bots[0].bid = lambda g, p: 3
    game.bots[1].bid = lambda g, p: 3
    game.funeral()
    assert not any(p.statue for p in game.players) and all(p.coins == 4 for p in game.players)
    game.bots[1].bid = lambda g, p: 2
    game.funeral()
    winner = game.players[0]
    assert winner.statue and winner.coins == 1 and game.players[1].coins == 4
    assert t["statue"] in winner.rooms.values()


def test_scoring_reads_the_data():
    game, t = new_game(players=2)
    a, b = game.players
    charm = next(c for cards in t["treasures"].values() for c in cards if c["set"] == "charms")
    relic = next(c for cards in t["treasures"].values() for c in cards if c["set"] == "reliquia")
    a.hand = [charm, charm]
    b.hand = [charm, relic]
    a.face_down = 3
    a.missions = t["missions"][:2]
    b.offering = True
    b.res = dict.fromkeys(b.res, 0) | {"legno": 5}
    sa, sb = game.score()
    assert sa["charms"] == 2 * charm["punti"] and sa["charms_majority"] == t["charms_bonus"]
    assert sb["charms_majority"] == 0 and sb["relics"] == relic["punti"]
    assert sa["treasures"] == 3 and sa["missions"] == 2 * t["per_mission"]
    assert sb["offering"] == t["offering"]["punti"] + 5 // t["offering"]["per_punto"]


def test_gather_respects_the_supply_storage_and_precious_rooms():
    game, t = new_game()
    p = game.players[0]
    assert not game.can_gather(p, "magia")
    game.supply["legno"] = 2
    game.gather(p, {"legno": t["same"]}, {})
    assert p.res["legno"] == 2 and game.supply["legno"] == 0


def test_rules_come_from_the_data():
    game, t = new_game(rules={"monete_iniziali": 7, "missioni_scoperte": 3})
    assert all(p.coins == 7 for p in game.players) and len(game.row) == 3


def test_an_effect_the_engine_cannot_play_is_one_line(monkeypatch):
    sim, engine, _ = engine_of(kg())
    monkeypatch.setattr(engine, "PASSIVE", engine.PASSIVE - {"sblocca"})
    with pytest.raises(engine.RuleError, match=r"card magic-arcaneum \(Magic Arcaneum\): effect 'sblocca' cannot be "
                                                r"played by a Room yet"):
        engine.compile_table(__import__("cardgen.simulate.runner", fromlist=["x"]).snapshot_for(kg()))


def test_a_deck_without_the_offering_last_is_an_error():
    with pytest.raises(SimulationError, match="posizione_offerta"):
        simulation_for(kg(rules=(("posizione_offerta", 20),)))
