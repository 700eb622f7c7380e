"""The generic simulation runner: seeded games spread over processes, counted into figures.

Game i of a run is played from the seed string "<seed>:<i>" with the seating rotated by i (so every
bot sits in every seat equally often); each worker counts its games into integer `Totals`, and the
totals merge exactly. The figures for a seed are therefore the same for any --jobs.

A worker process (of the command's one pool, cardgen.render.workers) receives only plain data (an
`Experiment`: project folder, game, version, rule overrides) and resolves the version and loads the
game's plug-in itself, once per experiment, so it works with any process start method.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import contain
from ..data.cardvalues import with_values
from ..data.plugin import load_plugin
from ..data.project import load_project
from ..data.snapshot import Snapshot
from ..data.versions import available_versions, load_game, normalise_version, resolve
from ..errors import InputError
from ..render.workers import Workers, background_thread
from . import stats
from .stats import Totals


@dataclass(frozen=True)
class Experiment:
    """One batch of games: everything that decides their outcome, as plain data."""

    project: str
    game: str
    version: str
    players: int
    bots: tuple[str, ...]
    games: int
    seed: int = 1
    max_rounds: int = 100
    rules: tuple[tuple[str, Any], ...] = ()  # rule overrides, e.g. (("mine_action", "take_one"),)
    values: tuple[tuple[str, Any], ...] = ()  # card value overrides (data.cardvalues paths), e.g. (("katana-hilt.points", 2),)

    def seats(self, index: int) -> list[str]:
        return [self.bots[(seat + index) % len(self.bots)] for seat in range(self.players)]

    @property
    def table_key(self) -> tuple:
        return (self.project, self.game, self.version, self.rules, self.values)


class SimulationError(InputError):
    """The game cannot be simulated as asked (unknown bot, no simulation hook, ...)."""


# --- loading the game's simulation ------------------------------------------------------------

_SIMULATIONS: dict[tuple, Any] = {}
_RESOLVED: dict[tuple, tuple[Snapshot, Any]] = {}  # (project, game, version, files) -> (snapshot, game)
KEEP_RESOLVED = 8  # versions resolved and kept per process (the claims of a run ask for a few)
KEEP_SIMULATIONS = 32  # experiments' simulations kept per process


def snapshot_for(exp: Experiment) -> Snapshot:
    return _snapshot_for(exp, _fingerprint(exp))


def _snapshot_for(exp: Experiment, files: tuple) -> Snapshot:
    """The experiment's snapshot: its version resolved once per process while the data is
    unchanged (a balance search asks a worker for one experiment per trial, each differing from
    the version only in a few card values), then its rules and values applied."""
    key = (exp.project, exp.game, exp.version, files)
    if key not in _RESOLVED:
        project = load_project(Path(exp.project))
        game = load_game(project, exp.game)
        while len(_RESOLVED) >= KEEP_RESOLVED:
            del _RESOLVED[next(iter(_RESOLVED))]
        _RESOLVED[key] = (resolve(project, game, exp.version), game)
    snapshot, game = _RESOLVED[key]
    if exp.rules:
        unknown = [k for k, _ in exp.rules if k not in game.rule_specs]
        if unknown:
            raise SimulationError(f"no rule named {', '.join(unknown)} in {game.id}'s game.yml")
        snapshot = dataclasses.replace(snapshot, rules={**snapshot.rules, **dict(exp.rules)})
    return with_values(snapshot, exp.values)


def _fingerprint(exp: Experiment) -> tuple:
    """The game's data and plug-in files as they are now: an edit makes a new simulation."""
    root = Path(exp.project)
    files = []
    for folder in (root / "card_data" / exp.game, root / "versions" / exp.game):
        for path in sorted(folder.rglob("*")) if folder.is_dir() else ():
            if path.is_file() and "__pycache__" not in path.parts:
                st = path.stat()
                files.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(files)


def simulation_for(exp: Experiment):
    """The game plug-in's simulation of this version (cached per process while the data is unchanged)."""
    files = _fingerprint(exp)
    key = (exp.table_key, files)
    if key not in _SIMULATIONS:
        snapshot = _snapshot_for(exp, files)
        name = snapshot.game.file.plugin
        # a plug-in is code: only from the game's own folder (validate says the same, earlier)
        path = contain.inside(snapshot.game.dir, name, "plug-in", snapshot.game.source.loc("plugin")) if name else None
        module = load_plugin(path) if path is not None else None
        hook: Callable | None = getattr(module, "simulation", None)
        if hook is None:
            raise SimulationError(f"{snapshot.game.name} cannot be simulated yet: nobody has written its rules "
                                  f"for the simulator (docs/simulate.md shows how to add them to "
                                  f"card_data/{snapshot.game.id}/)")
        while len(_SIMULATIONS) >= KEEP_SIMULATIONS:  # a long balance search makes one per trial
            del _SIMULATIONS[next(iter(_SIMULATIONS))]
        try:
            _SIMULATIONS[key] = hook(snapshot)
        except Exception as exc:  # the game's data cannot be played: one line, no traceback
            raise SimulationError(f"{snapshot.game.id} {snapshot.version} cannot be simulated: {exc}") from None
    return _SIMULATIONS[key]


def play_chunk(exp: Experiment, start: int, stop: int) -> Totals:
    """Games start..stop-1 of the experiment, counted (the unit of work a pool or a cluster runs)."""
    sim = simulation_for(exp)
    totals = Totals(exp.players)
    max_turns = exp.max_rounds * exp.players
    for index in range(start, stop):
        totals.add(sim.play(f"{exp.seed}:{index}", exp.seats(index), max_turns))
    return totals


def measure(record: dict[str, Any], players: int, name: str) -> int:
    """A number of one game that paired runs compare: "rounds", "turns" or one of its tallies."""
    if name == "rounds":
        return math.ceil(record["turns"] / players)
    if name == "turns":
        return record["turns"]
    return record["tallies"].get(name, 0)


def _play_paired_chunk(a: Experiment, b: Experiment, measures: tuple[str, ...], start: int,
                       stop: int) -> tuple[Totals, Totals, dict[str, list[int]]]:
    """Games start..stop of two experiments on the same seeds and seats, and for each measure the
    count, sum and sum of squares of the differences a - b over the pairs in which both games
    finished (integers: they merge exactly, and memory stays flat)."""
    sim_a, sim_b = simulation_for(a), simulation_for(b)
    ta, tb = Totals(a.players), Totals(b.players)
    pairs = {m: [0, 0, 0] for m in measures}
    for index in range(start, stop):
        ra = sim_a.play(f"{a.seed}:{index}", a.seats(index), a.max_rounds * a.players)
        rb = sim_b.play(f"{b.seed}:{index}", b.seats(index), b.max_rounds * b.players)
        ta.add(ra)
        tb.add(rb)
        if ra["ended"] and rb["ended"]:
            for m in measures:
                d = measure(ra, a.players, m) - measure(rb, b.players, m)
                row = pairs[m]
                row[0] += 1
                row[1] += d
                row[2] += d * d
    return ta, tb, pairs


# --- running ----------------------------------------------------------------------------------


# what a simulation's workers import before their first game
PRELOAD = ("cardgen.simulate.runner",)


def simulation_workers(jobs: int | None) -> Workers:
    """A pool for playing games (no fonts: the simulator draws nothing; it writes nothing either,
    so Ctrl-C stops the games being played at once)."""
    return Workers(jobs, preload=PRELOAD, writes=False)


CHUNKS = 32  # chunks per worker: the workers finish together (the last chunk is short), and a
# chunk's cost to send and count (about a millisecond) stays far below its games' (a second or more)


def chunk_size(games: int, jobs: int) -> int:
    """Games per chunk: CHUNKS per worker, at least 25 (the figures do not depend on it)."""
    return max(25, math.ceil(games / (jobs * CHUNKS)))


class Runner:
    """Runs experiments on a pool of worker processes; remembers each experiment's figures."""

    def __init__(self, jobs: int = 1, progress=None, play_tasks: Callable[[list[tuple]], Iterable[Totals]] | None = None,
                 workers: Workers | None = None):
        """`workers`: the command's pool (None: one of `jobs` processes, started at the first games
        and stopped with the runner)."""
        self.jobs = workers.count if workers is not None else max(1, jobs)
        self.progress = progress
        # plays (exp, start, stop) chunks elsewhere (a Dask cluster) and yields their totals in order
        self.play_tasks = play_tasks
        self._own = workers is None
        self.workers = workers if workers is not None else simulation_workers(self.jobs)
        self._figures: dict[Experiment, dict[str, Any]] = {}
        self._pairs: dict[tuple, dict[str, dict[str, int]]] = {}

    def __enter__(self) -> Runner:
        if self._own and self.play_tasks is None:
            self.workers.start()  # the workers start (the fork server imports) while this process loads the game
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._own:
            self.workers.close(cancel=exc_type is not None)

    def check(self, exp: Experiment):
        """Fail early, in this process, on anything wrong with the experiment."""
        sim = simulation_for(exp)
        if exp.players < 1:
            raise SimulationError("--players must be at least 1")
        unknown = [b for b in exp.bots if b not in sim.bots]
        if unknown:
            raise SimulationError(f"unknown bot {', '.join(unknown)} (expected one of: {', '.join(sim.bots)})")
        return sim

    def totals(self, exp: Experiment, label: str = "") -> Totals:
        self.check(exp)
        chunk = chunk_size(exp.games, self.jobs)
        tasks = [(exp, start, min(start + chunk, exp.games)) for start in range(0, exp.games, chunk)]
        totals = Totals(exp.players)
        if self.progress:
            self.progress.start(label or f"simulating {exp.version}", exp.games)
        try:
            if self.play_tasks is not None:
                results = iter(self.play_tasks(tasks))
            else:
                results = self.workers.map(play_chunk, tasks)
                if self.workers.parallel and len(tasks) > 1:
                    # the tasks are queued: while the workers play, this process loads what the figures
                    # need next (not after the last game). In a thread: Ctrl-C interrupts the main
                    # thread only, never an import half done (CPython then ends by SIGINT, not 130)
                    background_thread(stats.load_libraries, "cardgen-stats-import")
            for (_, start, stop), part in zip(tasks, results):
                totals.merge(part)
                if self.progress:
                    self.progress.advance(stop - start)
        finally:
            if self.progress:
                self.progress.stop()
        return totals

    def figures(self, exp: Experiment, label: str = "") -> dict[str, Any]:
        """The experiment's figures (generic and the game's own), computed once per experiment."""
        if exp not in self._figures:
            self.check(exp)
            self._figures[exp] = figures_from(exp, self.totals(exp, label))
        return self._figures[exp]

    def paired(self, a: Experiment, b: Experiment, measures: tuple[str, ...] = ("rounds",),
               label: str = "") -> tuple[dict[str, Any], dict[str, Any], dict[str, dict[str, int]]]:
        """Two experiments played on the same seeds and seatings (game i of each from "<seed>:<i>"):
        the figures of each, and per measure the differences a - b over the pairs in which both
        games finished ({"n", "sum", "squares"}: what stats.paired_means tests)."""
        if (a.seed, a.games, a.players, a.bots) != (b.seed, b.games, b.players, b.bots):
            raise ValueError("paired experiments need the same seed, games, players and bots")
        key = (a, b, measures)
        if key not in self._pairs:
            self.check(a)
            self.check(b)
            chunk = chunk_size(a.games, self.jobs)
            tasks = [(a, b, measures, start, min(start + chunk, a.games)) for start in range(0, a.games, chunk)]
            ta, tb = Totals(a.players), Totals(b.players)
            pairs = {m: [0, 0, 0] for m in measures}
            if self.progress:
                self.progress.start(label or f"paired runs of {a.version}", a.games)
            try:
                results = self.workers.map(_play_paired_chunk, tasks)
                for (_, _, _, start, stop), (pa, pb, pp) in zip(tasks, results):
                    ta.merge(pa)
                    tb.merge(pb)
                    for m, row in pp.items():
                        pairs[m] = [x + y for x, y in zip(pairs[m], row)]
                    if self.progress:
                        self.progress.advance(stop - start)
            finally:
                if self.progress:
                    self.progress.stop()
            for exp, totals in ((a, ta), (b, tb)):  # the first figures of an experiment are the ones
                if exp not in self._figures:      # kept: none computed only to be dropped
                    self._figures[exp] = figures_from(exp, totals)
            self._pairs[key] = {m: {"n": n, "sum": total, "squares": sq} for m, (n, total, sq) in pairs.items()}
        return self._figures[a], self._figures[b], self._pairs[key]


def figures_from(exp: Experiment, totals: Totals) -> dict[str, Any]:
    """The figures (generic and the game's own) of games counted into `totals`."""
    sim = simulation_for(exp)
    result = {
        "game": exp.game,
        "version": exp.version,
        "players": exp.players,
        "bots": list(exp.bots),
        "seed": exp.seed,
        "max_rounds": exp.max_rounds,
        "rules_changed": dict(exp.rules),
    }
    if exp.values:
        result["values_changed"] = dict(exp.values)
    result.update(stats.figures(totals, sim.card_info))
    own = getattr(sim, "figures", None)  # the game's own figures, where its plug-in has any
    if own is not None:
        result.update(own(totals, stats))
    return result


class ClaimContext:
    """What a game's claims may ask for: figures of other experiments, notes of other versions."""

    def __init__(self, runner: Runner, exp: Experiment, claim_games: int):
        self.runner, self.exp = runner, exp
        self.version = exp.version
        self.games = min(exp.games, claim_games)
        self.players = exp.players

    def run(self, version: str | None = None, players: int | None = None, bots: tuple[str, ...] | None = None,
            rules: dict[str, Any] | None = None) -> dict[str, Any]:
        """Figures of this version (or another) with other players, bots or rules."""
        exp = self.experiment(version, players, bots, rules)
        what = f"claims: {exp.version}, {exp.players} players" + (", other rules" if exp.rules else "")
        return self.runner.figures(exp, what)

    def experiment(self, version: str | None = None, players: int | None = None,
                   bots: tuple[str, ...] | None = None, rules: dict[str, Any] | None = None) -> Experiment:
        """The experiment run() plays for these arguments."""
        exp = dataclasses.replace(
            self.exp,
            version=normalise_version(version) if version else self.exp.version,
            players=players or self.exp.players,
            bots=tuple(bots) if bots else self.exp.bots,
            rules=tuple(sorted((rules or {}).items())),
        )
        return exp if exp == self.exp else dataclasses.replace(exp, games=self.games)

    def paired(self, a: dict[str, Any], b: dict[str, Any], measures: tuple[str, ...] = ("rounds",)):
        """Two runs on the same seeds (each given as run()'s keyword arguments), both of the claim
        games' size: (figures a, figures b, differences a - b per measure over finished pairs)."""
        ea = dataclasses.replace(self.experiment(**a), games=self.games)
        eb = dataclasses.replace(self.experiment(**b), games=self.games)
        return self.runner.paired(ea, eb, tuple(measures), f"claims: {ea.version} paired runs")

    def snapshot(self, version: str | None = None) -> Snapshot:
        return snapshot_for(dataclasses.replace(self.exp, version=normalise_version(version or self.exp.version), rules=()))

    def versions(self) -> list[str]:
        project = load_project(Path(self.exp.project))
        return available_versions(project, load_game(project, self.exp.game))

    def simulation(self, version: str | None = None):
        return simulation_for(dataclasses.replace(self.exp, version=normalise_version(version or self.exp.version), rules=()))


def simulate(runner: Runner, exp: Experiment, claims: bool = True, claim_games: int = 2000) -> dict[str, Any]:
    """The main experiment's figures, and the claims answered for its version."""
    result = dict(runner.figures(exp, f"simulating {exp.game} {exp.version}"))
    sim = simulation_for(exp)
    result["assumptions"] = list(getattr(sim, "assumptions", []))
    summary = getattr(sim, "summary", None)
    result["game_summary"] = [list(row) for row in summary(result)] if summary else []
    game_plots = getattr(sim, "plots", None)
    result["game_plots"] = list(game_plots(result)) if game_plots else []
    answer = getattr(sim, "claims", None)
    result["claims"] = stats.decide(answer(ClaimContext(runner, exp, claim_games))) if claims and answer else []
    return result


def plot_names(exp: Experiment) -> tuple[str, ...]:
    """The names of the game's own plots (its simulation's `plot_names`), known before any game."""
    return tuple(getattr(simulation_for(exp), "plot_names", ()))


def default_bots(exp: Experiment) -> tuple[str, ...]:
    """The bots a run plays when none are named: the simulation's `default_bots`, or all its bots."""
    sim = simulation_for(exp)
    return tuple(getattr(sim, "default_bots", None) or sim.bots)
