"""Issue 25: `cardgen balance`: values varied through the data, checked before any game, searched
on paired seeds, the same figures on one process, two, or a Dask cluster, resumable, reported.

Sizes are small (a few trials of tens of games) to keep the file well under a minute on two
shared cores; figures are compared between runs, never against numbers copied from a run.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
from pathlib import Path

import pytest
from conftest import ROOT

from cardgen.balance import play
from cardgen.cli import main
from cardgen.data.cardvalues import current_value, parse_path, with_values
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.simulate.runner import Experiment, Runner

# --no-report: only test_the_report_has_a_plot_per_value_and_the_history reads the report, whose
# plots cost about a second of CPU a run (this search: 3.0-3.4 s with them, 2.1-2.3 s without)
SMALL = ("--version", "3.1", "--vary", "katana-hilt.points=1..6", "--target", "cards", "--no-report", "--trials", "4",
         "--games", "60", "--seed", "3", "--jobs", "1", "--format", "json")


def _sources(root: Path) -> dict[str, str]:
    """Every file of the project but its build output, by content."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "build" not in p.relative_to(root).parts}


def _doc(result) -> dict:
    assert result.code == 0, result.err
    return json.loads(result.out)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """One small search (SMALL, one worker) in a project copy of its own, shared by the tests
    that compare other runs with it: (project folder, its sources before, stdout)."""
    root = load_project(ROOT).copy_sources(tmp_path_factory.mktemp("balance") / "project").root
    before = _sources(root)
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), pytest.raises(SystemExit) as done:
            main(["balance", *SMALL])
    finally:
        os.chdir(cwd)
    assert done.value.code == 0, err.getvalue()
    return root, before, out.getvalue()


@pytest.fixture
def count_games(monkeypatch):
    """Counts the chunks of games played in this process (jobs=1 plays them here)."""
    calls = []
    real = play.play_chunk

    def counted(exp, start, stop):
        calls.append((start, stop))
        return real(exp, start, stop)

    monkeypatch.setattr(play, "play_chunk", counted)
    return calls


# --- values through the data ---------------------------------------------------------------------


def test_a_value_changes_a_copy_of_the_snapshot_never_the_data(project_copy):
    project = load_project(project_copy)
    snapshot = resolve(project, load_game(project, "kings-blade"), "3.1")
    before = _sources(project_copy)
    changed = with_values(snapshot, [("katana-hilt.points", 6), ("crossguard-hilt.effects.1.amount", 2)])
    assert changed.card("katana-hilt").fields["points"] == 6
    assert changed.card("crossguard-hilt").effects[0].params["amount"] == 2
    assert snapshot.card("katana-hilt").fields["points"] == 3  # the resolved version is untouched
    assert current_value(snapshot, parse_path(snapshot, "crossguard-hilt.effects.1.amount")) == 1
    assert changed.card("royal-hilt") is snapshot.card("royal-hilt")  # unchanged cards are shared
    assert _sources(project_copy) == before


def test_an_overridden_value_plays_as_the_same_edit_in_the_yaml(project_copy):
    """Experiment.values and an edit of the version file give the very same games."""
    base = dict(project=str(project_copy), game="kings-blade", version="3.1", players=4,
                bots=("greedy", "rush", "builder", "saboteur"), games=80, seed=5)
    with Runner(1) as runner:
        overridden = runner.figures(Experiment(**base, values=(("katana-hilt.points", 6),)))
    v3 = project_copy / "versions" / "kings-blade" / "3.yml"
    text = v3.read_text()
    assert "  - id: katana-hilt\n    points: 3\n" in text
    v3.write_text(text.replace("  - id: katana-hilt\n    points: 3\n", "  - id: katana-hilt\n    points: 6\n"))
    with Runner(1) as runner:
        edited = runner.figures(Experiment(**base))
    overridden.pop("values_changed")
    assert json.dumps(overridden, sort_keys=True) == json.dumps(edited, sort_keys=True)


# --- errors: one line, exit 2, before any game -----------------------------------------------------


@pytest.mark.parametrize("args, where, says", [
    (["--vary", "katana-hilts.points=1..6"], None, "no card 'katana-hilts'"),
    (["--vary", "katana-hilt.pionts=1..6"], "versions/kings-blade/1.yml:", "expected one of katana-hilt.points"),
    (["--vary", "katana-hilt.effects.3.amount=1..2"], "versions/kings-blade/3.yml:", "has 2 effects"),
    (["--vary", "katana-hilt.points=0..12"], "card_data/kings-blade/game.yml:", "lies in 0..9"),
    (["--vary", "katana-hilt.points=1.5..4"], "card_data/kings-blade/game.yml:", "whole number"),
    (["--vary", "katana-hilt.points=4..2"], None, "expected LOW below HIGH"),
    (["--vary", "katana-hilt.points"], None, "expected CARD.FIELD=LOW..HIGH"),
    (["--vary", "katana-hilt.points=1..6", "--target", "fun"], None, "expected one of cards, strategies"),
    (["--vary", "katana-hilt.points=1..6", "--target", "length"], None, "length:LOW..HIGH"),
    (["--vary", "katana-hilt.points=1..6", "--target", "strategies", "--bots", "rush"], None, "2 different bots"),
    (["--vary", "katana-hilt.points=1..6", "--study", "../x"], None, "--study ../x"),
    (["--vary", "katana-hilt.points=1..6", "--scheduler", "mars"], None, "tcp://HOST:PORT"),
])
def test_bad_input_is_one_line_before_any_game(cli, project_copy, count_games, args, where, says):
    argv = ["balance", "--version", "3.1", "--games", "20", "--trials", "2", "--jobs", "1", "-q"]
    if "--target" not in args:
        argv += ["--target", "cards"]
    result = cli(*argv, *args, cwd=project_copy)
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.err
    assert says in lines[0]
    if where:
        assert where in lines[0] and lines[0].split(where, 1)[1].split(":", 1)[0].isdigit()  # file:line named
    assert count_games == []
    assert not (project_copy / "build" / "balance").exists()


def test_a_game_without_a_simulation_cannot_be_balanced(cli, project_copy, count_games):
    result = cli("balance", "--game", "knightfall", "--vary", "red-1.power=1..2", "--target", "cards",
                 "--players", "2", "-q", cwd=project_copy)
    assert result.code == 2
    [line] = result.err.strip().splitlines()
    assert "Knightfall cannot be simulated yet" in line
    assert count_games == []


def test_an_unreachable_scheduler_is_one_line(cli, project_copy, monkeypatch):
    monkeypatch.setattr(play, "CONNECT_TIMEOUT", 0.5)  # nothing listens there: no need to wait longer
    result = cli("balance", *SMALL, "--scheduler", "tcp://127.0.0.1:9", cwd=project_copy)
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "cannot reach a Dask scheduler" in lines[0]


# --- the search --------------------------------------------------------------------------------------


def test_paired_seeds_same_figures_for_one_or_two_workers(cli, small):
    project_copy, _, one = small
    two = cli("balance", *SMALL[:-4], "--jobs", "2", "--format", "json", cwd=project_copy)
    assert two.out == one
    doc = json.loads(one)
    # every candidate plays the seeds `cardgen simulate` plays: the version as it is scores the same
    exp = Experiment(project=str(project_copy), game="kings-blade", version="3.1", players=4,
                     bots=("greedy", "rush", "builder", "saboteur"), games=60, seed=3)
    with Runner(1) as runner:
        katana = runner.figures(exp)["cards"]["katana-hilt"]
    assert doc["baseline"]["cards"]["katana-hilt"]["rate"] == katana["completer_win_rate"]
    assert doc["baseline"]["cards"]["katana-hilt"]["ci"] == katana["ci"]
    assert doc["trials"][0]["values"] == {"katana-hilt.points": 3}  # the version as it is is tried first
    assert len(doc["trials"]) == 4 and all(1 <= t["values"]["katana-hilt.points"] <= 6 for t in doc["trials"])
    best = min(t["loss"] for t in doc["trials"] if t["state"] == "complete")
    assert doc["best"]["loss"] == best
    # a stronger Katana Hilt wins more for those who complete it: the figures follow the values
    rates = {t["values"]["katana-hilt.points"]: t["cards"]["katana-hilt"]["rate"] for t in doc["trials"]
             if t["state"] == "complete"}
    assert len(rates) >= 2
    low, high = min(rates), max(rates)
    assert rates[high] > rates[low]


def test_an_interrupted_study_resumes_to_the_same_figures(cli, project_copy, monkeypatch, small):
    whole = json.loads(small[2])  # the same search run whole (in a copy of the same project)
    real, played = play.play_chunk, []

    def interrupt(exp, start, stop):
        played.append(start)
        if len(played) == 9:  # Ctrl-C in the middle of the third trial's games
            raise KeyboardInterrupt
        return real(exp, start, stop)

    monkeypatch.setattr(play, "play_chunk", interrupt)
    stopped = cli("balance", *SMALL, "--study", "cut", cwd=project_copy)
    assert stopped.code == 130
    assert stopped.err.strip().splitlines()[-1].startswith("interrupted after ")
    assert "resume study 'cut'" in stopped.err
    monkeypatch.setattr(play, "play_chunk", real)
    resumed = _doc(cli("balance", *SMALL, "--study", "cut", cwd=project_copy))
    for key in ("baseline", "best", "trials", "proposal"):
        assert resumed[key] == whole[key] or key == "proposal" and resumed[key]["changes"] == whole[key]["changes"]
    assert (project_copy / "build" / "balance" / "kings-blade" / "study-cut.journal").is_file()
    # the study remembers its settings: another plan under the same name is refused
    other = cli("balance", *SMALL[:-6], "--games", "70", "--seed", "3", "--jobs", "1", "--study", "cut", cwd=project_copy)
    assert other.code == 2 and "games differ" in other.err


def test_the_report_has_a_plot_per_value_and_the_history(cli, project_copy):
    result = cli("balance", "--version", "3.1", "--vary", "katana-hilt.points=1..6", "--vary",
                 "crossguard-hilt.effects.1.amount=1..3", "--target", "cards", "--target", "length:10..16",
                 "--trials", "3", "--games", "40", "--jobs", "1", "-q", cwd=project_copy)
    assert result.code == 0, result.err
    report = project_copy / "build" / "balance" / "kings-blade" / "3.1-balance.html"
    page = report.read_text()
    captions = [part.split("</figcaption>")[0] for part in page.split("<figcaption>")[1:]]
    assert captions == ["katana-hilt.points", "crossguard-hilt.effects.1.amount", "Search history"]
    assert page.count("<svg") == 3
    assert "best (trial" in result.out and "length" in result.out
    assert f"report: {report.relative_to(project_copy).as_posix()}" in result.out
    # --no-report draws none and takes away the earlier run's, which would be read as this one's
    again = cli("balance", "--version", "3.1", "--vary", "katana-hilt.points=1..6", "--target", "cards",
                "--trials", "1", "--games", "20", "--jobs", "1", "-q", "--no-report", cwd=project_copy)
    assert again.code == 0, again.err
    assert not report.exists() and "report:" not in again.out


def test_the_proposal_extends_the_version_validates_and_is_written_only_when_asked(cli, small):
    project_copy, before, out = small
    assert _sources(project_copy) == before  # the search touched no project source
    doc = json.loads(out)
    assert doc["report"] is None and not list((project_copy / "build" / "balance").rglob("*.html"))  # --no-report
    changes = doc["proposal"]["changes"]
    proposal = project_copy / doc["proposal"]["file"]
    assert proposal.parent == project_copy / "build" / "balance" / "kings-blade"
    text = proposal.read_text()
    assert 'extends: "3.1"' in text
    assert text.count("  - id: ") == len(changes) == 1 and text.count("\n    - ") == 1  # one override, one choice
    assert f"    points: {changes[0]['to']}\n" in text
    target = project_copy / "versions" / "kings-blade" / "3.2.yml"
    written = cli("balance", *SMALL, "--write", "versions/kings-blade/3.2.yml", cwd=project_copy)
    assert written.code == 0, written.err
    assert target.read_text() == text
    checked = cli("validate", "--version", "3.2", "--format", "json", cwd=project_copy)
    assert checked.code == 0, checked.out
    assert not [f for f in json.loads(checked.out)["findings"] if f["severity"] == "error"]
    shown = cli("show", "--version", "3.2", "--format", "json", cwd=project_copy)
    assert '"katana-hilt"' in shown.out
    again = cli("balance", *SMALL, "--write", "versions/kings-blade/3.2.yml", cwd=project_copy)
    assert again.code == 2 and len(again.err.strip().splitlines()) == 1 and "3.2.yml" in again.err
    assert target.read_text() == text  # never over an existing file
    outside = cli("balance", *SMALL, "--write", "card_data/kings-blade/x.yml", cwd=project_copy)
    assert outside.code == 2 and "expected a new version file" in outside.err
    # a run whose best is the version as it is proposes nothing, and no earlier proposal is left as its own
    same = _doc(cli("balance", "--version", "3.1", "--vary", "katana-hilt.points=3..4", "--target", "cards",
                    "--trials", "1", "--games", "20", "--jobs", "1", "--no-report", "--format", "json",
                    cwd=project_copy))
    assert same["proposal"]["changes"] == [] and "file" not in same["proposal"]
    assert not proposal.exists()


def test_a_dask_cluster_gives_the_local_figures(cli, small):
    """balance and simulate on a LocalCluster of two worker processes: the local run's bytes."""
    import distributed  # here, not with the module: collecting it in every worker cost half a second

    project_copy, _, local = small
    simulate = ("simulate", "--version", "3.1", "--games", "90", "--no-claims", "--format", "json")
    local_sim = cli(*simulate, "--jobs", "1", cwd=project_copy)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None,
                                  processes=True) as cluster:
        remote = cli("balance", *SMALL, "--scheduler", cluster.scheduler_address, cwd=project_copy)
        remote_sim = cli(*simulate, "--scheduler", cluster.scheduler_address, cwd=project_copy)
    assert remote.code == 0, remote.err
    assert remote.out == local
    assert remote_sim.code == 0, remote_sim.err
    assert json.loads(remote_sim.out)["games"] == 90
    assert remote_sim.out == local_sim.out
