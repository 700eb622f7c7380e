"""`cardgen balance`: search the card values that balance a version, with the game's simulation."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from ..errors import InputError, display_path
from ..files import Files, balance_proposal, balance_report
from ..words import counted
from .common import format_option, game_option, project_from, version_option

DEFAULT_BOTS = "greedy,rush,builder,saboteur"


class BarProgress:
    """A rich progress bar: trials done, the best loss so far, the time left (games to play)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        self._bar = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[best]}"),
                             TimeRemainingColumn(), console=Console(stderr=True), transient=True)
        self._task: Any = None  # a rich TaskID while the bar runs
        self._trials = 0

    def start(self, trials: int, done: int, games: int) -> None:
        self._trials = trials
        self._bar.start()
        self._task = self._bar.add_task(f"trials {done}/{trials}", total=games, best="")

    def games(self, n: int) -> None:
        if self._task is not None:
            self._bar.advance(self._task, n)

    def trial(self, done: int, best: float | None) -> None:
        if self._task is not None:
            self._bar.update(self._task, description=f"trials {done}/{self._trials}",
                             best="" if best is None else f"best loss {best:.3f}")

    def stop(self) -> None:
        self._bar.stop()
        self._task = None


@click.command(name="balance")
@game_option
@version_option
@click.option("--vary", "vary", multiple=True, metavar="CARD.FIELD=LOW..HIGH",
              help="A value to search, e.g. katana-hilt.points=1..6 or crossguard-hilt.effects.1.amount=1..3 "
                   "(repeat for more).")
@click.option("--target", "targets", multiple=True, metavar="NAME[:BAND]",
              help="cards[:PP], strategies[:PP], seats[:PP] (band in percentage points, default 5) or "
                   "length:LOW..HIGH (mean rounds); repeat for more.")
@click.option("--trials", type=click.IntRange(1, 10_000), default=30, show_default=True,
              help="Candidates to try (a resumed --study runs only the missing ones).")
@click.option("--games", "-n", type=click.IntRange(1, 10_000_000), default=1000, show_default=True,
              help="Games per candidate, on the same seeds for every candidate.")
@click.option("--seed", type=int, default=1, show_default=True, help="Same seed, same search, same figures.")
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players at the table.")
@click.option("--bots", default=DEFAULT_BOTS, show_default=True, help="Comma-separated bots, rotated every game.")
@click.option("--max-rounds", type=click.IntRange(1, 10_000), default=100, show_default=True,
              help="Turn cap: a game not ended after this many rounds counts as stalled.")
@click.option("--scheduler", default="local", show_default=True, metavar="local|tcp://HOST:PORT",
              help="Play on this machine's worker processes, or on a Dask distributed cluster.")
@click.option("--jobs", "-j", type=click.IntRange(1, 256), default=None,
              help="Local worker processes (default: all cores). The figures do not depend on it.")
@click.option("--study", "study_name", default=None, metavar="NAME",
              help="Keep the search in build/balance/<game>/ under this name; the same name resumes it.")
@click.option("--write", "write_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the proposed version into the project, as this new file "
                   "(versions/<game>/<new>.yml; never over an existing file).")
@click.option("--report/--no-report", default=True, show_default=True,
              help="Write the HTML report (a plot per value and the search history; drawing it takes about a "
                   "second). --no-report removes the report an earlier run left for this version or study.")
@format_option
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.pass_context
def command(ctx, game, version, vary, targets, trials, games, seed, players, bots, max_rounds, scheduler, jobs,
            study_name, write_path, report, fmt, quiet):
    """Search card values towards balance targets: candidates played by bots on paired seeds."""
    from ..balance.play import player_for
    from ..balance.run import make_plan, study_file
    from ..balance.search import Interrupted, NoProgress
    from ..console import interactive
    from ..data.versions import load_game, normalise_version
    from ..outputs import check_output_file, check_output_folder
    from ..simulate.runner import Experiment

    started = time.perf_counter()
    project = project_from(ctx)
    g = load_game(project, game)
    lo, hi = g.file.players.min, g.file.players.max
    if not lo <= players <= hi:
        raise InputError(f"--players {players}: {g.name} is for {lo if lo == hi else f'{lo}-{hi}'} players")
    bot_names = tuple(b.strip() for b in bots.split(",") if b.strip())
    if not bot_names:
        raise InputError("--bots: expected at least one bot name")
    v = normalise_version(version or g.file.default_version)
    base = Experiment(project=str(project.root), game=g.id, version=v, players=players, bots=bot_names,
                      games=games, seed=seed, max_rounds=max_rounds)
    plan, snapshot = make_plan(base, list(vary), list(targets))
    folder = Files(Path(project.build_dir)).balance(g.id)
    journal = study_file(folder, study_name)
    tag = f"{v}-{study_name}" if study_name else v
    proposal_path, report_path = balance_proposal(folder, tag), balance_report(folder, tag)
    check_output_folder(project, folder, [p for p in (journal, proposal_path, report_path) if p is not None])
    if write_path is not None:
        _check_write(project, g, write_path)
        check_output_file(project, write_path, new_in_data=True)
    player = player_for(scheduler, jobs or os.cpu_count() or 1)
    progress = BarProgress() if interactive(quiet or fmt == "json") else NoProgress()
    try:
        doc = _search(project, folder, plan, trials, player, journal, study_name, progress)
    except Interrupted as stop:
        kept = (f"run the same command to resume study '{study_name}'" if study_name
                else "nothing was kept: pass --study NAME to make a search resumable")
        click.echo(f"interrupted after {stop.done} of {stop.total} trials; {kept}", err=True)
        sys.exit(130)
    finally:
        player.close()
    _write_outputs(project, folder, snapshot, doc, proposal_path, report_path, write_path, report)
    if fmt == "json":
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return
    from ..balance.text import as_text

    click.echo(as_text(doc))
    click.echo(f"\n{counted(doc['trials_done'], 'trial')} in {time.perf_counter() - started:.1f}s {player.where}")
    for what, path in (("proposal", doc["proposal"].get("file")), ("written", doc["proposal"].get("written")),
                       ("report", doc["report"])):
        if path:
            click.echo(f"{what}: {path}")


def _search(project, folder, plan, trials, player, journal, study_name, progress):
    from ..balance.run import run
    from ..outputs import open_output

    with open_output(project, folder, "balance", force_option=None) as out:
        if journal is not None:
            out.refuse_foreign(journal)  # a study file cardgen did not write is never appended to
            journal.touch()
            out.record(journal)
            out.save()  # known as cardgen's at once: a run killed outright can still be resumed
        try:
            return run(plan, trials, player, journal, study_name, progress)
        finally:
            if journal is not None and journal.is_file():
                out.record(journal)


def _check_write(project, g, path: Path) -> None:
    from ..data.versions import VERSION_RE, normalise_version, version_dir

    folder = version_dir(project, g).resolve()
    name = normalise_version(path.stem)
    if path.suffix != ".yml" or Path(os.path.abspath(path)).parent.resolve() != folder or not VERSION_RE.match(name):
        raise InputError(f"--write {path}: expected a new version file in {display_path(folder)}/ "
                         f"(e.g. versions/{g.id}/3.2.yml)")


def _write_outputs(project, folder, snapshot, doc, proposal_path, report_path, write_path, report) -> None:
    from ..atomic import write_text
    from ..balance.proposal import version_text
    from ..balance.report import render_report
    from ..outputs import open_output, open_output_file

    found = doc["proposal"]["changes"]

    def rel(path: Path) -> str:  # relative to the project: the same document on every machine
        return Path(os.path.relpath(path, project.root)).as_posix()

    doc["report"] = rel(report_path) if report else None
    text = None
    if found:
        s = doc["settings"]
        by = (f"`cardgen balance` (study {doc['study'] or '-'}, seed {s['seed']}, {counted(doc['trials_done'], 'trial')} "
              f"of {counted(s['games'], 'game')}, targets {', '.join(t['name'] for t in s['targets'])})")
        why = f"loss {doc['baseline']['loss']:.3f} as it is, {doc['best']['loss']:.3f} proposed"
        text = version_text(snapshot, found, by, why)
        doc["proposal"]["file"] = rel(proposal_path)
    with open_output(project, folder, "balance", force_option=None) as out:
        if text is not None:
            write_text(proposal_path, text)
        elif out.owns(proposal_path):  # an earlier run's proposal: this run proposes no change
            proposal_path.unlink()
            out.forget(proposal_path)
        if report:
            write_text(report_path, render_report(doc))
        elif out.owns(report_path):  # an earlier run's report: it would be taken for this run's
            report_path.unlink()
            out.forget(report_path)
    if write_path is not None:
        if text is None:
            raise InputError(f"--write {write_path}: nothing to write, the values as they are scored best")
        with open_output_file(project, write_path, "balance --write", new_in_data=True) as target:
            write_text(target, text)
        doc["proposal"]["written"] = rel(write_path)
