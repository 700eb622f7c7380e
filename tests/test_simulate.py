"""Issue 15: `cardgen simulate`: the seeded runner, its statistics, the claims, the report, the CLI.

Game counts are small (tens to a few hundred) to keep the suite fast; figures are compared
between runs of the same size, never against numbers copied from a run.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from conftest import ROOT
from PIL import Image

from cardgen.simulate import stats
from cardgen.simulate.report import render_report
from cardgen.simulate.runner import (
    ClaimContext,
    Experiment,
    Runner,
    simulate,
    simulation_for,
)

MIX = ("greedy", "rush", "builder", "saboteur")


def experiment(version="3.1", games=60, root=ROOT, **kw) -> Experiment:
    kw.setdefault("players", 4)
    kw.setdefault("bots", MIX)
    return Experiment(project=str(root), game="kings-blade", version=version, games=games, **kw)


@pytest.fixture(scope="module")
def figures_31():
    with Runner(1) as runner:
        return runner.figures(experiment(games=120))


# --- statistics ----------------------------------------------------------------------------------


def test_wilson_interval_known_values():
    assert stats.wilson(5, 10) == [0.2366, 0.7634]
    assert stats.wilson(0, 10) == [0.0, 0.2775]
    assert stats.wilson(0, 0) is None


def test_holm_gives_statsmodels_figures():
    """`stats.holm` (written out: statsmodels' collects garbage on every call) rejects and adjusts
    as statsmodels' multipletests(method="holm") does: random families, ties, p-values exactly at a
    step's threshold (alpha over the tests left) and near 1."""
    import gc
    import random

    from statsmodels.stats.multitest import multipletests

    rng = random.Random(26)
    families = [[0.05 / 3, 0.05 / 2, 0.05], [0.01, 0.01, 0.2, 0.0125], [0.9, 0.8, 0.95], [0.001], [0.5]]
    families += [[rng.choice([rng.random(), rng.random() / 50, 0.01]) for _ in range(rng.randint(1, 12))]
                 for _ in range(300)]
    decided = set()
    gc.freeze()  # multipletests runs gc.collect() on every call: over a whole test process's objects, ~0.1 s each
    try:
        for family in families:
            reject, adjusted, _, _ = multipletests(family, alpha=0.05, method="holm")
            assert stats.holm(family, 0.05) == ([bool(r) for r in reject], [float(p) for p in adjusted]), family
            decided |= set(reject)
    finally:
        gc.unfreeze()
    assert decided == {True, False}
    assert stats.holm([0.05 / 3, 0.05 / 2, 0.05], 0.05)[0] == [True, True, True]  # each at its threshold
    assert stats.holm([0.01, 0.04, 0.03], 0.05) == ([True, False, False], [0.03, 0.06, 0.06])


def test_distribution_percentiles():
    d = stats.distribution(Counter({10: 1, 20: 8, 30: 1}))
    assert (d["n"], d["mean"], d["p10"], d["p50"], d["p90"]) == (10, 20.0, 10, 20, 20)
    assert d["ci"][0] < 20 < d["ci"][1]


def test_shared_wins_are_split_exactly():
    t = stats.Totals(3)
    record = {"seats": ["a", "b", "c"], "ended": True, "ender": 0, "stall": None, "turns": 9,
              "scores": [5, 5, 1], "winners": [0, 1], "parts": [("x", "blade", 0, True)],
              "series": {"mine": [50, 40, 30]}, "events": {"mine_empty": None}, "tallies": {"overflows": 2}}
    t.add(record)
    figs = stats.figures(t, {"x": {"name": "X", "type": "blade"}})
    t.add({**record, "tallies": {"overflows": 4}})
    assert t.per_game("overflows")["mean"] == 3.0
    lo, hi = t.per_game("overflows")["ci"]
    # a t interval: with 2 games (1 degree of freedom) the half-width is t(0.975, 1) * sd / sqrt(2) = 12.706
    assert lo < 3 < hi and abs((hi - 3) - 12.7062 * (2 ** 0.5) / (2 ** 0.5)) < 0.001
    assert [s["rate"] for s in figs["seat_win_rate"]] == [0.5, 0.5, 0.0]
    assert figs["cards"]["x"]["completer_win_rate"] == 0.5
    assert figs["series"]["mine"][2] == {"round": 3, "mean": 30.0, "games": 1}


# --- the runner ----------------------------------------------------------------------------------


def test_figures_have_every_key_the_issue_lists(figures_31):
    for key in ("games", "ended", "turns", "mine_exhausted", "seat_win_rate", "strategies", "cards"):
        assert key in figures_31
    assert figures_31["games"] == 120
    assert figures_31["ended"]["count"] + sum(figures_31["ended"]["stalled"].values()) == 120
    assert len(figures_31["seat_win_rate"]) == 4
    assert abs(sum(s["rate"] for s in figures_31["seat_win_rate"]) - 1) < 0.001
    assert {s: figures_31["strategies"][s]["seats"] for s in MIX} == {s: 120 for s in MIX}
    turns = figures_31["turns"]
    assert turns["p10"] <= turns["p50"] <= turns["p90"] and turns["ci"][0] < turns["mean"] < turns["ci"][1]
    assert sum(turns["histogram"].values()) == 120
    # every sword part of 3.1 is in the card table; metals are not cards one plays
    assert len(figures_31["cards"]) == 21 and "steel" not in figures_31["cards"]
    assert set(figures_31["card_ranking"]) == {"blade", "hilt", "upgrade"}
    mine = figures_31["series"]["mine"]
    assert mine[0]["mean"] < 60 - 12 + 1 and mine[0]["games"] == 120


def test_same_seed_same_figures_whatever_the_jobs():
    exp = experiment(games=64)
    with Runner(1) as one:
        a = one.figures(exp)
    with Runner(2) as two:
        b = two.figures(exp)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    with Runner(1) as one:
        c = one.figures(experiment(games=64, seed=2))
    assert c["turns"]["histogram"] != a["turns"]["histogram"]


def test_seats_rotate_so_every_bot_plays_every_seat():
    exp = experiment(bots=("greedy", "rush"), players=3)
    seats = [exp.seats(i) for i in range(4)]
    assert seats == [["greedy", "rush", "greedy"], ["rush", "greedy", "rush"]] * 2


def test_a_card_edit_changes_the_figures(project_copy):
    """Make the Katana Hilt worth 9 points in a copy of the data: bots take and complete it more,
    and the players who complete it win more, with no code touched."""
    exp_before = experiment(games=200, root=project_copy)
    with Runner(1) as runner:
        before = runner.figures(exp_before)["cards"]["katana-hilt"]
    v3 = project_copy / "versions" / "kings-blade" / "3.yml"
    text = v3.read_text()
    assert "  - id: katana-hilt\n    points: 3\n" in text
    v3.write_text(text.replace("  - id: katana-hilt\n    points: 3\n", "  - id: katana-hilt\n    points: 9\n"))
    with Runner(1) as runner:
        after = runner.figures(experiment(games=200, root=project_copy, seed=1))["cards"]["katana-hilt"]
    assert after["completer_win_rate"] > before["completer_win_rate"] + 0.2
    assert after["ci"][0] > before["ci"][1]
    assert after["taken_per_game"] > before["taken_per_game"]


def test_a_rule_override_changes_the_game():
    with Runner(1) as runner:
        fill = runner.figures(experiment(games=80, version="3"))
        take = runner.figures(experiment(games=80, version="3", rules=(("hand_limit", 4), ("mine_action", "take_one"))))
    assert take["rules_changed"] == {"hand_limit": 4, "mine_action": "take_one"}
    assert take["turns"]["rounds"]["mean"] > fill["turns"]["rounds"]["mean"]


# --- claims --------------------------------------------------------------------------------------


def _claims(version, games, claim_games=None):
    with Runner(1) as runner:
        result = simulate(runner, experiment(version=version, games=games), claims=True,
                          claim_games=claim_games or games)
    return {c["id"]: c for c in result["claims"]}, result


@pytest.fixture(scope="module")
def claims_v1():
    """Version 1's claims over 24 games, read by the tests of its verdicts and of what they rest on."""
    return _claims("1", 24)


def test_claims_v1(claims_v1):
    claims, result = claims_v1
    assert set(claims) == {"no-end", "overflow-loop", "rush", "katana", "fill-hand", "forge-token", "mine-runs-out"}
    assert claims["no-end"]["verdict"] == "true" and claims["no-end"]["figure"].startswith("0 of 24 games ended")
    assert claims["overflow-loop"]["verdict"] == "true"
    assert claims["overflow-loop"]["values"]["probe"] == ["mirror-hilt"]
    assert "Mirror Hilt" in claims["overflow-loop"]["detail"]
    assert claims["rush"]["verdict"] == "n/a" and claims["fill-hand"]["verdict"] == "n/a"
    stalled = result["ended"]["stalled"]
    assert sum(stalled.values()) == 24 and set(stalled) <= {"no end condition", "no legal action"}
    # the claim is quoted from the version's notes
    assert claims["overflow-loop"]["says"] == "One card (the Mirror Hilt) makes a loop with overflow."


def test_claims_31():
    claims, result = _claims("3.1", 80)
    assert claims["no-end"]["kind"] == "measured" and claims["no-end"]["verdict"] == "false"
    assert claims["no-end"]["evidence"]["test"] == "counterexample" and claims["no-end"]["evidence"]["effect"] > 0
    assert claims["overflow-loop"]["kind"] == "rule"
    assert claims["overflow-loop"]["verdict"] == "false" and claims["overflow-loop"]["values"]["probe"] == []
    fill = claims["fill-hand"]["values"]
    assert fill["other_rules"] == {"mine_action": "take_one", "hand_limit": 4}
    # paired on the same 80 seeds; the pairs are the games that finished under both rules
    assert fill["pairs"]["n"] == claims["fill-hand"]["evidence"]["n"] <= 80
    assert claims["fill-hand"]["evidence"]["test"] == "paired t-test on shared seeds (two-sided)"
    mine = claims["mine-runs-out"]
    assert mine["values"]["mine_exhausted"]["mine_size"] == 60
    if mine["values"]["mine_exhausted"]["games"]:
        assert mine["verdict"] == "false" and mine["evidence"]["test"] == "counterexample"
    else:  # 80 games cannot put the rate below 1% (that takes 299): never "true" from so few
        assert mine["verdict"] == "inconclusive" and mine["evidence"]["p"] > 0.05
    assert claims["katana"]["values"]["of"] == 7
    assert claims["katana"]["values"]["v2"]["of"] == 7  # and how it stood in V2
    forge = claims["forge-token"]["values"]
    assert forge["token_optional"] != forge["token_required"]
    assert "60 metal cards" in mine["says"]
    measured = [c for c in claims.values() if c["kind"] == "measured" and c["evidence"]["p"] is not None]
    for claim in measured:  # Holm over the run's measured claims: adjusted p never below the raw one
        assert claim["evidence"]["family"] == len(measured)
        assert claim["evidence"]["p_holm"] >= claim["evidence"]["p"]
        assert claim["verdict"] == ("inconclusive" if claim["evidence"]["p_holm"] >= 0.05 else
                                    "true" if claim["evidence"]["supports"] else "false")
    for claim in claims.values():
        assert claim["verdict"] in ("true", "false", "inconclusive", "n/a") and claim["figure"]


def test_verdicts_name_the_data_choices_they_rest_on(claims_v1):
    claims, _ = _claims("2", 30)
    katana = claims["katana"]
    assert [c["version"] for c in katana["rests_on"]] == ["2"]
    assert "Katana Hilt is made weak on purpose" in katana["rests_on"][0]["choice"]
    claims, _ = claims_v1
    loop = claims["overflow-loop"]
    assert loop["verdict"] == "true" and any("The loop card is the Mirror Hilt" in c["choice"] for c in loop["rests_on"])


def test_capped_games_decide_nothing(cli):
    """--max-rounds 2: no game finishes, so every claim that needs finished games is inconclusive."""
    result = cli("simulate", "--version", "3.1", "--games", "60", "--max-rounds", "2", "--jobs", "1",
                 "--format", "json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["ended"]["count"] == 0 and data["unfinished"]["games"] == 60
    assert data["turns"]["rounds"] is None  # no finished game: no length, and none made up from the cap
    assert data["unfinished"]["rounds"]["mean"] == 2
    verdicts = {c["id"]: (c["kind"], c["verdict"]) for c in data["claims"]}
    assert verdicts == {"no-end": ("measured", "inconclusive"), "overflow-loop": ("rule", "false"),
                        "rush": ("measured", "inconclusive"), "katana": ("measured", "inconclusive"),
                        "fill-hand": ("measured", "inconclusive"), "forge-token": ("measured", "inconclusive"),
                        "mine-runs-out": ("measured", "inconclusive")}
    assert all(s["rate"] is None for s in data["seat_win_rate"])


# --- the statistics behind the verdicts --------------------------------------------------------


def test_tests_decide_only_what_the_numbers_show():
    import random

    rng = random.Random(3)
    noise = [sum(rng.random() < 0.4 for _ in range(300)) for _ in range(2)]
    assert stats.two_rates(noise[0], 300, noise[1], 300)["p"] > 0.05
    planted = stats.two_rates(210, 300, 120, 300)
    assert planted["supports"] and planted["p"] < 1e-6 and planted["ci"][0] > 0.2 and planted["effect"] == 0.3
    assert stats.two_rates(5, 10, 1, 10)["p"] is None  # too small a sample: decides nothing
    assert stats.rate_against_share(50, 100, 0.25)["ci"] == [round(0.4038 - 0.25, 4), round(0.5962 - 0.25, 4)]
    assert stats.never(0, 298)["p"] > 0.05 and stats.never(0, 299)["p"] < 0.05  # 0.99^299 < 0.05
    assert stats.never(1, 10)["supports"] is False and stats.exists(0, 500)["p"] is None
    paired = stats.paired_means({"n": 40, "sum": 40, "squares": 40 + 39 * 4}, more=True)
    assert paired["effect"] == 1.0 and paired["p"] < 0.01
    claims = [{"kind": "measured", "evidence": {"p": p, "supports": s}} for p, s in
              ((0.01, True), (0.02, False), (0.04, True))]
    stats.decide(claims)
    # Holm: 0.01*3 = 0.03 rejects, 0.02*2 = 0.04 rejects, 0.04*1 = 0.04 rejects; at 0.03 each alone would too
    assert [c["verdict"] for c in claims] == ["true", "false", "true"]
    claims = [{"kind": "measured", "evidence": {"p": p, "supports": True}} for p in (0.03, 0.04)]
    stats.decide(claims)
    assert [c["verdict"] for c in claims] == ["inconclusive", "inconclusive"]  # 0.03*2 > 0.05


# --- a tiny game written only for this test, through the public contract ---------------------------

TOY_PLUGIN = """
from random import Random

from cardgen.simulate import stats


def simulation(snapshot):
    return Duel(snapshot)


class Duel:
    \"\"\"Each player is dealt one card and rolls a die: card value + roll, the highest wins.\"\"\"

    bots = ("roller",)
    plot_names = ("scores",)
    assumptions = []

    def __init__(self, snapshot):
        self.deck = [c.id for c in snapshot.cards for _ in range(c.count)]
        self.value = {c.id: int(c.fields["value"]) for c in snapshot.cards}
        self.card_info = {c.id: {"name": c.name, "type": c.type} for c in snapshot.cards}
        self.die = int(snapshot.rules["hand_size"]) * 4  # the die's size is a rule of the data

    def play(self, seed, seats, max_turns):
        rng = Random(seed)
        hands = rng.sample(self.deck, len(seats))
        scores = [self.value[c] + rng.randint(1, self.die) for c in hands]
        best = max(scores)
        return {"seats": seats, "ended": True, "ender": None, "stall": None, "turns": len(seats),
                "scores": scores, "winners": [i for i, s in enumerate(scores) if s == best],
                "parts": [(c, "card", i, True) for i, c in enumerate(hands)], "series": {"top": [best]},
                "events": {}, "tallies": {"ties": int(scores.count(best) > 1)}}

    def figures(self, totals, stats):
        return {"ties": totals.per_game("ties")}

    def summary(self, r):
        return [("ties", f"{r['ties']['mean']:.2f} per game")]

    def plots(self, r):
        return [{"name": "scores", "title": "Best score", "kind": "bar", "xlabel": "round", "ylabel": "score",
                 "points": [[p["round"], p["mean"]] for p in r["series"]["top"]]}]

    def claims(self, ask):
        cards = ask.run()["cards"]
        a, b = cards["spark"], cards["ember"]
        return [{"id": "spark-weak", "version": ask.version, "made_in": "1", "says": "Spark is weaker than Ember",
                 "kind": "measured", "figure": "", "detail": "", "rests_on": [], "values": {},
                 "evidence": stats.two_rates(b["completer_wins"], b["completers"], a["completer_wins"],
                                             a["completers"], more=True)}]
"""


@pytest.fixture
def toy(cli, tmp_path):
    assert cli("new", "toy-duel", cwd=tmp_path).code == 0
    root = tmp_path / "toy-duel"
    (root / "card_data" / "toy-duel" / "plugin.py").write_text(TOY_PLUGIN)
    game = root / "card_data" / "toy-duel" / "game.yml"
    game.write_text(game.read_text() + "plugin: plugin.py\n")
    return root


def _toy_values(root, spark, ember):
    v1 = root / "versions" / "toy-duel" / "1.yml"
    text = v1.read_text()
    text = re.sub(r"name: Spark, value: \d+", f"name: Spark, value: {spark}", text)
    v1.write_text(re.sub(r"name: Ember, value: \d+", f"name: Ember, value: {ember}", text))


def test_a_tiny_game_runs_through_the_contract(cli, toy):
    _toy_values(toy, 2, 2)  # Spark and Ember differ only by the die: noise
    result = cli("simulate", "--players", "2", "--games", "400", "--bots", "roller", "--jobs", "1", "--format", "json",
                 "--report", "r.html", "--plots", "plots", cwd=toy)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["game_summary"][0][0] == "ties" and data["claims"][0]["verdict"] == "inconclusive"
    html = (toy / "r.html").read_text()
    assert "Best score" in html and "Mine" not in html and "mine" not in html.lower().replace("determine", "")
    names = sorted(p.name for p in (toy / "plots").iterdir() if not p.name.startswith(".cardgen-"))
    assert names == ["simulate-cards-1.png", "simulate-length-1.png", "simulate-scores-1.png", "simulate-seats-1.png"]
    text = cli("simulate", "--players", "2", "--games", "50", "--bots", "roller", "--jobs", "1", cwd=toy)
    assert text.code == 0 and "ties" in text.out and "mine" not in text.out.lower()
    _toy_values(toy, 2, 6)  # planted: Ember is worth 4 more on a 12-sided die
    result = cli("simulate", "--players", "2", "--games", "400", "--bots", "roller", "--jobs", "1", "--format", "json",
                 cwd=toy)
    claim = json.loads(result.out)["claims"][0]
    assert claim["verdict"] == "true" and claim["evidence"]["ci"][0] > 0
    _toy_values(toy, 6, 2)  # and the other way round: the claim is refuted
    result = cli("simulate", "--players", "2", "--games", "400", "--bots", "roller", "--jobs", "1", "--format", "json",
                 cwd=toy)
    assert json.loads(result.out)["claims"][0]["verdict"] == "false"


def test_claim_runs_reuse_the_main_run_and_cap_their_games():
    with Runner(1) as runner:
        exp = experiment(games=30, players=2)
        ask = ClaimContext(runner, exp, claim_games=20)
        assert ask.run() is runner.figures(exp)
        assert ask.run(players=4)["games"] == 20


# --- the command and the report ------------------------------------------------------------------


def test_cli_json(cli):
    result = cli("simulate", "--version", "3.1", "--games", "30", "--players", "3", "--bots", "greedy,random",
                 "--jobs", "1", "--format", "json", "--no-claims")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["games"] == 30 and data["players"] == 3 and data["bots"] == ["greedy", "random"]
    assert data["claims"] == [] and data["assumptions"] == []  # 3.1 sets every rule the engine plays
    assert {"games", "ended", "turns", "mine_exhausted", "seat_win_rate", "strategies", "cards", "claims"} <= set(data)


def test_cli_text_compare_and_plots(cli, tmp_path):
    result = cli("simulate", "--compare", "2", "3", "--games", "30", "--jobs", "1", "--no-claims",
                 "--plots", str(tmp_path / "plots"))
    assert result.code == 0, result.err
    assert result.out.startswith("The King's Blade: 2 vs 3, 30 games each")
    assert re.search(r"game length\s+\d+\.\d rounds", result.out)
    assert "60 games in" in result.out
    names = sorted(p.name for p in (tmp_path / "plots").iterdir() if not p.name.startswith(".cardgen-"))  # not its bookkeeping
    assert names == ["simulate-cards-2.png", "simulate-cards-3.png", "simulate-length-2-3.png",
                     "simulate-mine-2-3.png", "simulate-seats-2-3.png"]
    with Image.open(tmp_path / "plots" / "simulate-seats-2-3.png") as im:
        assert im.size == (768, 336)  # 6.4 x 2.8 inches at 120 dpi


@pytest.mark.parametrize("args, message", [
    (("--bots", "greedy,cheater"), "unknown bot cheater (expected one of: random, greedy, rush, builder, saboteur)"),
    (("--players", "6"), "--players 6: The King's Blade is for 2-4 players"),
    (("--version", "9"), "version"),
])
def test_cli_bad_input_is_one_line(cli, args, message):
    result = cli("simulate", "--games", "5", "--jobs", "1", *args)
    assert result.code == 2
    assert message in result.err and len(result.err.strip().splitlines()) == 1
    assert "Traceback" not in result.err


def test_game_without_simulation_hook(cli):
    result = cli("simulate", "--game", "knightfall", "--players", "2", "--games", "5", "--jobs", "1")
    assert result.code == 2
    assert result.err.strip() == ("error: Knightfall cannot be simulated yet: nobody has written its rules for the "
                                  "simulator (docs/simulate.md shows how to add them to card_data/knightfall/)")


def test_report_is_self_contained_and_deterministic(cli, tmp_path, project_copy):
    path = tmp_path / "report.html"
    result = cli("simulate", "--compare", "3", "3.1", "--games", "40", "--claim-games", "20", "--jobs", "1",
                 "--format", "json", "--report", str(path), cwd=project_copy)
    assert result.code == 0, result.err
    html = path.read_text()
    # the same figures give the same bytes
    assert render_report(json.loads(result.out)["compare"], "The King's Blade") == html
    assert html.count("<svg") == 5  # length, seats+strategies, cards 3, cards 3.1, mine
    assert not re.search(r"""(src|href)=["']?(https?:|//|file:)""", html)
    assert "Game length" in html and "Card strength, version 3.1" in html and "Mine size over the rounds" in html
    assert html.count('class="verdict') == 14  # seven claims, two versions
    assert "Katana Hilt" in html
    # how the games were played, per version: both versions set the open table rules (from
    # version 1 on), so the engine states no reading of its own for either
    v3, v31 = html.split("<h3>Version 3</h3>")[1].split("<h3>Version 3.1</h3>")
    assert "the version leaves it open" not in v3 and "the version leaves it open" not in v31
    # the engine keeps no reading of its own: 3.1 sets every rule it plays, so nothing is listed
    assert "<li>" not in v31.split("</ul>")[0]


def test_simulation_for_is_cached_per_version():
    a = simulation_for(experiment())
    assert simulation_for(experiment(games=5)) is a
    assert simulation_for(experiment(version="3")) is not a


def test_outputs_never_overwrite_a_users_file(cli, toy):
    """The output guard, on the toy game (a promise of the core: its four small plots draw in a
    fraction of The King's Blade's time)."""
    run = ("simulate", "--players", "2", "--bots", "roller", "--games", "5", "--jobs", "1", "--no-claims")
    source = toy / "versions" / "toy-duel" / "1.yml"
    before = source.read_bytes()
    result = cli(*run, "--report", str(source), cwd=toy)
    assert result.code == 2 and "refusing to write" in result.err and "holds your sources" in result.err
    assert source.read_bytes() == before
    notes = toy / "notes.html"
    notes.write_text("<p>my own notes</p>")
    result = cli(*run, "--report", "notes.html", cwd=toy)
    assert result.code == 2 and "notes.html exists and was not written by cardgen" in result.err
    assert notes.read_text() == "<p>my own notes</p>"
    mine = toy / "plots" / "simulate-cards-1.png"
    mine.parent.mkdir()
    mine.write_bytes(b"\x89PNG not ours")
    result = cli(*run, "--plots", "plots", cwd=toy)
    assert result.code == 2 and "simulate-cards-1.png exists and was not written by cardgen" in result.err
    assert mine.read_bytes() == b"\x89PNG not ours"
    # a report cardgen wrote may be written again
    for _ in range(2):
        result = cli(*run, "--report", "report.html", "--plots", "out", cwd=toy)
        assert result.code == 0, result.err
    assert (toy / "out" / "simulate-seats-1.png").read_bytes()[:4] == b"\x89PNG"
