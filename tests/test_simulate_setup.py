"""Issue 27.5: the simulator starts its games from the set-up data (game.yml `setup:`), the same
the rulebook's figure and the Tabletop Simulator table are dealt from: a changed set-up in a copy
of the project changes the simulated first position."""

from __future__ import annotations

import importlib
from pathlib import Path
from random import Random

from conftest import ROOT

from cardgen.simulate.runner import Experiment, simulation_for


def _engine(root: Path, game: str, version: str, players: int, bots: tuple[str, ...]):
    exp = Experiment(project=str(root), game=game, version=version, players=players, bots=bots, games=1, seed=1)
    sim = simulation_for(exp)
    package = type(sim).__module__.rsplit(".", 1)[0]
    return sim, importlib.import_module(package + ".engine"), importlib.import_module(package + ".bots")


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


# --- The King's Blade ----------------------------------------------------------------------------


def _kings_blade_start(root: Path, players: int):
    sim, engine, bots = _engine(root, "kings-blade", "3.1", players, ("greedy",))
    table = engine.Table(sim.table, sim.cards, Random(5), [bots.make_bot("greedy") for _ in range(players)])
    return table


def test_kings_blade_starts_from_the_set_up():
    for players in (2, 3, 4):
        table = _kings_blade_start(ROOT, players)
        assert [len(p.hand) for p in table.players] == [3] * players  # storage: count starting_hand
        assert [len(p.parts) for p in table.players] == [1] * players  # a blade each
        assert {p.parts[0].card.type for p in table.players} == {"blade"}
        assert len(table.market) == 4  # market-row: count market_face_up
        assert len(table.mine) == 60 - 3 * players


def test_a_changed_kings_blade_set_up_changes_the_first_position(project_copy):
    game = "card_data/kings-blade/game.yml"
    _edit(project_copy, game, "      from: mine\n      count: starting_hand\n", "      from: mine\n      count: 5\n")
    _edit(project_copy, game, "      from: market\n      count: market_face_up\n",
          "      from: market\n      count: {2: 6, 3: 5, 4: 4}\n")
    for players, row in ((2, 6), (3, 5), (4, 4)):
        table = _kings_blade_start(project_copy, players)
        assert [len(p.hand) for p in table.players] == [5] * players
        assert len(table.market) == row
        assert len(table.mine) == 60 - 5 * players


# --- The King's Guild ----------------------------------------------------------------------------


def _kings_guild_start(root: Path, players: int):
    sim, engine, bots = _engine(root, "kings-guild", "1", players, ("greedy", "builder"))
    return engine.Game(sim.table, Random(5), [bots.make_bot("greedy") for _ in range(players)])


def _funeral_in_deck(game) -> int:
    return next(i for i, card in enumerate(game.deck) if card.get("funeral"))


def test_kings_guild_starts_from_the_set_up():
    for players in (2, 4, 6):
        game = _kings_guild_start(ROOT, players)
        assert [p.coins for p in game.players] == [3] * players  # monete: count monete_iniziali of 1-coins
        assert [p.seals for p in game.players] == [2] * players  # the Guild's Seals
        assert (len(game.row), len(game.room_row), len(game.spec_row)) == (4, 4, 5)
        assert _funeral_in_deck(game) == 11 - 1 - 4  # 11th from the top, 4 came off for the row
        assert game.deck[-1].get("offering")


def test_a_changed_kings_guild_set_up_changes_the_first_position(project_copy):
    game_yml = "card_data/kings-guild/game.yml"
    _edit(project_copy, game_yml, "      count: monete_iniziali\n", "      count: {2: 5, 3: 4, 4: 4, 5: 3, 6: 3}\n")
    _edit(project_copy, game_yml, "      count: missioni_scoperte\n", "      count: 3\n")
    _edit(project_copy, game_yml, "positions: {funerale-del-re: posizione_funerale,", "positions: {funerale-del-re: 8,")
    _edit(project_copy, game_yml, "      count: stanze_in_vendita\n", "      count: 2\n")
    for players, coins in ((2, 5), (4, 4), (6, 3)):
        game = _kings_guild_start(project_copy, players)
        assert [p.coins for p in game.players] == [coins] * players
        assert (len(game.row), len(game.room_row), len(game.spec_row)) == (3, 2, 5)
        assert _funeral_in_deck(game) == 8 - 1 - 3


# --- One True King -------------------------------------------------------------------------------


def _one_true_king_start(root: Path):
    sim, engine, bots = _engine(root, "one-true-king", "1", 2, ("greedy",))
    game = engine.Game(sim.table, Random(5), [bots.make_bot("greedy") for _ in range(2)])
    game.set_up()
    return sim, game


def test_one_true_king_lays_out_the_set_up_grid():
    sim, game = _one_true_king_start(ROOT)
    assert (sim.table["rows"], sim.table["cols"], sim.table["spare"]) == (5, 7, 5)
    assert len(game.board) == 35 and len(game.face_down) == 18  # DUDUDUD / UDUDUDU ...


def test_a_changed_one_true_king_set_up_changes_the_field(project_copy):
    """The set-up's own grid, six wide with more face-down cards: ten spare cards are left."""
    rows = ["DDDDDD", "UDUDUD", "DUDUDU", "UDUDUD", "DDDDDD"]
    _edit(project_copy, "card_data/one-true-king/game.yml", "      grid: grid\n", f"      grid: [{', '.join(rows)}]\n")
    sim, game = _one_true_king_start(project_copy)
    assert (sim.table["grid"], sim.table["rows"], sim.table["cols"], sim.table["spare"]) == (rows, 5, 6, 10)
    assert len(game.board) == 30 and len(game.face_down) == sum(r.count("D") for r in rows) == 21
