"""The seed games beyond The King's Blade that `cardgen simulate` plays: One True King.

Few games each (the machine is shared); the engine's rules are checked on boards laid by hand.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections import Counter
from pathlib import Path
from random import Random

import pytest

from cardgen.simulate.runner import Experiment, Runner, SimulationError, simulate, simulation_for

ROOT = Path(__file__).resolve().parent.parent


def otk(games=60, **kw) -> Experiment:
    base = {"project": str(ROOT), "game": "one-true-king", "version": "1", "players": 2,
            "bots": ("greedy", "random"), "games": games, "seed": 1}
    return Experiment(**{**base, **kw})


def engine_of(exp: Experiment):
    sim = simulation_for(exp)
    package = type(sim).__module__.rsplit(".", 1)[0]
    return sim, importlib.import_module(package + ".engine"), importlib.import_module(package + ".bots")


def blank_game(rules=None):
    """A game of version 1 (or with rule overrides) whose board the test lays by hand."""
    exp = otk(rules=tuple(sorted((rules or {}).items())))
    sim, engine, bots = engine_of(exp)
    game = engine.Game(sim.table, Random(0), [bots.RandomBot(), bots.RandomBot()])
    game.board = [[] for _ in range(game.rows * game.cols)]
    game.player_army = [0, 1]  # player 0 plays the first army (red), player 1 the second (black)
    return game, sim.table


def card(table, card_id):
    return table["ids"].index(card_id)


# --- through the command line ---------------------------------------------------------------------


def test_one_true_king_simulates_with_its_own_bots_and_figures(cli):
    result = cli("simulate", "--game", "one-true-king", "--players", "2", "--games", "80", "--jobs", "1",
                 "--format", "json", "--quiet")
    assert result.code == 0, result.err
    r = json.loads(result.out)
    assert r["game"] == "one-true-king" and r["players"] == 2
    assert r["bots"] == ["greedy", "random"]  # the game's own mix, without --bots
    assert r["games"] == 80 and r["ended"]["count"] == 80  # a King always falls within 100 rounds
    assert sum(s["wins"] for s in r["seat_win_rate"]) == pytest.approx(80)
    # the greedy attacker beats the random mover: measured, not assumed
    assert r["strategies"]["greedy"]["ci"][0] > 0.5 > r["strategies"]["random"]["ci"][1]
    ends = sum(e["games"] for e in r["endings"].values())
    assert ends == 80
    assert set(r["army_wins"]) == {"Red", "Black"}
    assert sum(a["wins"] for a in r["army_wins"].values()) == 80
    assert r["set_up"]["limit"] == 10 and r["set_up"]["spare_cards"] == 5
    assert 0 <= r["set_up"]["start_difference"]["mean"] <= 10 + 10
    assert [p["name"] for p in r["game_plots"]] == ["advantage", "field"]
    assert r["series"]["field"][0]["mean"] <= 35
    assert {c["id"] for c in r["claims"]} == {"first-player-fair", "spares-enough"}
    assert all(c["verdict"] in ("true", "false", "inconclusive") for c in r["claims"])
    assert len(r["cards"]) == 40


def test_one_true_king_report_draws_its_own_plots(cli, tmp_path, project_copy):
    report = tmp_path / "otk.html"
    result = cli("simulate", "--game", "one-true-king", "--players", "2", "--games", "40", "--jobs", "1",
                 "--bots", "cautious,random", "--report", str(report), "--no-claims", cwd=project_copy)
    assert result.code == 0, result.err
    html = report.read_text()
    assert "Win rate of the player with the advantage" in html and "Cards still fighting" in html
    assert "Mine" not in html and "metal" not in html.lower()
    assert "One True King 1: 40 games, 2 players, bots cautious, random" in result.out
    assert "how games end" in result.out and "wins by army" in result.out


def test_capped_games_are_unfinished_and_decide_nothing():
    with Runner(1) as runner:
        r = simulate(runner, otk(games=40, max_rounds=1), claim_games=40)
    assert r["ended"]["count"] < 40 and r["ended"]["stalled"]["turn cap"] == 40 - r["ended"]["count"]
    fair = next(c for c in r["claims"] if c["id"] == "first-player-fair")
    assert fair["verdict"] == "inconclusive" and fair["evidence"]["p"] is None


def test_a_rule_the_engine_cannot_play_is_one_line():
    exp = otk(rules=(("overwrite", "burn"),))
    with pytest.raises(SimulationError, match=r"rule overwrite: 'burn' cannot be played \(the simulator plays "
                                              r"replace_face_up, cover\)"):
        simulation_for(exp)


def test_the_game_says_so_without_a_hook(cli):
    result = cli("simulate", "--game", "knightfall", "--players", "2", "--games", "5", "--jobs", "1")
    assert result.code == 2
    assert "cannot be simulated yet" in result.err and "docs/simulate.md" in result.err


# --- the rules, on boards laid by hand ---------------------------------------------------------------


def test_attacker_wins_ties_and_takes_the_space():
    game, t = blank_game()
    h5, c5 = card(t, "hearts-5"), card(t, "clubs-5")
    game.board[0] = [h5]
    game.board[1] = [c5]
    assert sorted(game.moves(0)) == [(0, 1), (0, 7)]
    assert game.apply(0, (0, 1)) is None
    assert game.board[0] == [] and game.board[1] == [h5]


def test_a_flipped_card_adds_to_its_colour_and_leaves_play():
    game, t = blank_game()
    h7, c5, d3, s4 = (card(t, x) for x in ("hearts-7", "clubs-5", "diamonds-3", "spades-4"))
    game.board[0], game.board[1] = [h7], [d3, c5]
    game.face_down = {d3}
    game.apply(0, (0, 1))  # 7 + 3 (red, flipped) beats 5
    assert game.board[1] == [h7] and d3 not in game.face_down
    game.board[2] = [s4, card(t, "clubs-3")]
    game.face_down = {s4}
    game.apply(0, (1, 2))  # 7 against 3 + 4 (black, flipped): a tie, the attacker wins
    assert game.board[2] == [h7]
    game.board[3] = [card(t, "spades-5"), card(t, "clubs-2")]
    game.face_down = {card(t, "spades-5")}
    game.apply(0, (2, 3))  # 7 against 2 + 5 + ... = 7: wins again
    assert game.board[3] == [h7]
    game.board[4] = [card(t, "spades-6"), card(t, "clubs-4")]
    game.face_down = {card(t, "spades-6")}
    game.apply(0, (3, 4))  # 7 against 4 + 6: the attacker is removed, so is the flipped card
    assert game.board[3] == [] and game.board[4] == [card(t, "clubs-4")]


@pytest.mark.parametrize("rule, left", [("both_removed", []), ("top_removed", ["clubs-2"])])
def test_a_pair_of_defenders_loses_as_the_rule_says(rule, left):
    game, t = blank_game({"pair_defeated": rule})
    h9 = card(t, "hearts-9")
    game.board[0], game.board[1] = [h9], [card(t, "clubs-2"), card(t, "spades-6")]
    game.apply(0, (0, 1))  # 9 against 2 + 6: wins
    assert [t["ids"][c] for c in game.board[1] if c != h9] == left
    assert (h9 in game.board[1]) == (rule == "both_removed")  # it takes the space only when it is empty


def test_kings_strength_moves_and_king_kills_king():
    game, t = blank_game()
    red_king, black_king = game.kings
    game.board[0] = [red_king]
    game.board[1] = [card(t, "hearts-4")]  # one of red's face-up cards: the red King cannot move onto it
    game.board[7] = [card(t, "spades-2"), black_king]
    game.board[20] = [card(t, "clubs-8")]
    game.face_down = {card(t, "spades-2")}
    assert game.strength(red_king) == 8 and game.strength(black_king) == 4  # the opponent's strongest card
    assert (0, 1) not in game.moves(0) and (0, 7) in game.moves(0)
    assert game.apply(0, (0, 7)) == 0  # King against King, whatever the strength


def test_stack_limit_and_a_card_taking_the_king():
    game, t = blank_game()
    h3, h6 = card(t, "hearts-3"), card(t, "hearts-6")
    game.board[0], game.board[1] = [h3], [card(t, "spades-1"), h6]
    game.face_down = {card(t, "spades-1")}
    assert (0, 1) not in game.moves(0)  # two cards already: a face-down card and the 6
    game.board[8] = [game.kings[1]]
    game.board[20] = [card(t, "clubs-9")]
    assert game.strength(game.kings[1]) == 6
    assert game.apply(0, (1, 8)) == 0  # the 6 ties the black King's 6: the King leaves the board


def _set_up(rules, seed):
    game, t = blank_game(rules)
    game.rng = Random(seed)
    adv = game.set_up()
    return game, t, adv


def test_set_up_sums_decide_which_cards_count():
    seen = Counter()
    for seed in range(40):
        face_up, _, _ = _set_up({"set_up_sums": "face_up"}, seed)
        every, _, _ = _set_up({"set_up_sums": "all_cards"}, seed)
        seen[face_up.tallies["overwrites"], every.tallies["overwrites"]] += 1
        assert len(face_up.counted()) == 17 and len(every.counted()) == 35
    assert any(a != b for a, b in seen)  # the same deals, overwritten differently


@pytest.mark.parametrize("rule", ["replace_face_up", "cover"])
def test_overwrite_replaces_or_covers(rule):
    for seed in range(200):
        game, t, adv = _set_up({"overwrite": rule}, seed)
        if game.tallies["overwrites"]:
            break
    assert game.tallies["overwrites"] > 0
    stacks = [s for s in game.board if len(s) == 2]
    if rule == "replace_face_up":
        assert stacks == [] and not game.covered and len(game.spares) == 5 - game.tallies["overwrites"]
    else:
        assert len(stacks) == game.tallies["overwrites"] == len(game.covered)
        assert all(s[0] in game.covered and s[1] not in game.face_down for s in stacks)


def test_equal_sums_follow_the_rule():
    for seed in range(500):
        game, t, adv = _set_up({"equal_sums": "spare_card_decides"}, seed)
        if game.tallies.get("equal_sums"):
            break
    else:
        pytest.fail("no equal sums in 500 deals")
    assert game.tallies["overwrites"] == 0 and adv == t["army"][game.spares[0]]
    _, _, adv_black = _set_up({"equal_sums": "black_advantage"}, seed)
    assert adv_black == t["armies"].index("black")


def test_same_seed_same_game():
    sim = simulation_for(otk())
    a = sim.play("7:3", ["greedy", "random"], 200)
    b = sim.play("7:3", ["greedy", "random"], 200)
    assert a == b and a["ended"] and a["seats"] == ["greedy", "random"]


def test_a_rule_override_changes_the_figures():
    with Runner(1) as runner:
        a = runner.figures(otk(games=40))
        b = runner.figures(dataclasses.replace(otk(games=40), rules=(("set_up_sums", "all_cards"),)))
    assert a["set_up"]["overwrites_per_game"] != b["set_up"]["overwrites_per_game"]
