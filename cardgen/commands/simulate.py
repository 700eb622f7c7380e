"""`cardgen simulate`: play thousands of games of a version with bots, from the same data as the cards."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import click

from ..console import progress_for
from ..data.versions import normalise_version
from ..errors import InputError, display_path
from ..words import counted
from .common import format_option, game_option, project_from, version_option


@click.command(name="simulate")
@game_option
@version_option
@click.option("--players", "-p", type=int, default=4, show_default=True, help="Players at the table.")
@click.option("--games", "-n", type=click.IntRange(1, 10_000_000), default=1000, show_default=True,
              help="Games to play.")
@click.option("--seed", type=int, default=1, show_default=True, help="Same seed, same games, same figures.")
@click.option("--bots", default=None,
              help="Comma-separated bots, dealt to the seats in turn and rotated every game (default: the "
                   "game's own mix; The King's Blade: greedy,rush,builder,saboteur).")
@click.option("--jobs", "-j", type=click.IntRange(1, 256), default=None,
              help="Worker processes (default: all cores). The figures do not depend on it.")
@click.option("--scheduler", default="local", show_default=True, metavar="local|tcp://HOST:PORT",
              help="Play on this machine's worker processes, or on a Dask distributed cluster (docs/balance.md).")
@format_option
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write a self-contained HTML report with plots to this file.")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also write every plot of the report as a PNG into this folder.")
@click.option("--compare", nargs=2, default=None, metavar="A B", help="Simulate two versions side by side.")
@click.option("--max-rounds", type=click.IntRange(1, 10_000), default=100, show_default=True,
              help="Turn cap: a game that has not ended after this many rounds counts as stalled.")
@click.option("--claims/--no-claims", default=True, show_default=True,
              help="Answer the designer's playtest claims (plays extra games for them).")
@click.option("--claim-games", type=click.IntRange(1, 1_000_000), default=2000, show_default=True,
              help="Games per extra run that a claim needs (at most --games).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.pass_context
def command(ctx, game, version, players, games, seed, bots, jobs, scheduler, fmt, report_path, plots_dir, compare,
            max_rounds, claims, claim_games, quiet):
    """Play many games of a version with bots: length, seat and strategy win rates, card strength, claims."""
    from ..data.versions import load_game
    from ..simulate.runner import Experiment, Runner, simulate
    from ..simulate.text import as_text, compare_text

    started = time.perf_counter()
    project = project_from(ctx)
    g = load_game(project, game)
    lo, hi = g.file.players.min, g.file.players.max
    if not lo <= players <= hi:
        span = f"{lo}" if lo == hi else f"{lo}-{hi}"
        raise InputError(f"--players {players}: {g.name} is for {span} players")
    versions = [normalise_version(v) for v in compare] if compare else [normalise_version(version or g.file.default_version)]
    if bots is None:  # the game's own mix
        from ..simulate.runner import default_bots

        bot_names = default_bots(Experiment(project=str(project.root), game=g.id, version=versions[0],
                                            players=players, bots=(), games=games))
    else:
        bot_names = tuple(b.strip() for b in bots.split(",") if b.strip())
    if not bot_names:
        raise InputError("--bots: expected at least one bot name")
    jobs = jobs or os.cpu_count() or 1
    if report_path is not None:  # before playing: never write over a source or a file of the user's
        from ..outputs import check_output_file

        check_output_file(project, report_path)
    if plots_dir is not None:
        from ..outputs import check_output_folder
        from ..simulate.report import plot_paths
        from ..simulate.runner import plot_names

        first = Experiment(project=str(project.root), game=g.id, version=versions[0], players=players, bots=bot_names,
                           games=games, seed=seed, max_rounds=max_rounds)
        check_output_folder(project, plots_dir, plot_paths(versions, plots_dir, plot_names(first)))
    results = []
    cluster = None
    if scheduler != "local":  # the same chunks, played by a Dask cluster: the same figures
        from ..balance.play import player_for

        cluster = player_for(scheduler, jobs)
    try:
        with Runner(jobs, progress_for(quiet or fmt == "json"), cluster.map if cluster else None) as runner:
            for v in versions:
                exp = Experiment(project=str(project.root), game=g.id, version=v, players=players, bots=bot_names,
                                 games=games, seed=seed, max_rounds=max_rounds)
                results.append(simulate(runner, exp, claims=claims, claim_games=claim_games))
    finally:
        if cluster is not None:
            cluster.close()
    elapsed = time.perf_counter() - started
    drawn = None
    if report_path is not None or plots_dir is not None:
        from ..simulate.report import draw_plots

        drawn = draw_plots(results)  # once: the report's SVGs and the PNGs are saved from the same figures
    if report_path is not None:
        from ..atomic import write_text
        from ..outputs import open_output_file
        from ..simulate.report import render_report

        with open_output_file(project, report_path, "simulate --report") as target:
            write_text(target, render_report(results, g.name, drawn))
    written = []
    if plots_dir is not None:
        from ..outputs import open_output
        from ..simulate.report import write_plots

        with open_output(project, plots_dir, "simulate --plots", force_option=None):
            written = write_plots(results, plots_dir, drawn=drawn)
    if fmt == "json":
        data = {"compare": results} if compare else results[0]
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        click.echo(compare_text(results[0], results[1], g.name) if compare else as_text(results[0], g.name))
        click.echo("")
        where = cluster.where if cluster else f"with {counted(jobs, 'job')}"
        click.echo(f"{counted(sum(r['games'] for r in results), 'game')} in {elapsed:.1f}s {where}")
    if report_path is not None and fmt != "json":
        click.echo(f"report: {display_path(report_path)}")
    if written and fmt != "json":
        click.echo(f"plots: {', '.join(display_path(p) for p in written)}")
