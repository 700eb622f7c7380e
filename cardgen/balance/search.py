"""The search: an Optuna study over the varied values, every candidate played on the same seeds.

Trial k is sampled by a TPE sampler seeded from (--seed, k) and the finished trials before it, so
a study that was interrupted and resumed proposes what an uninterrupted one would have. Each trial
reports its loss after every quarter of its games; a median pruner stops hopeless ones. A trial
whose values were already played takes that trial's figures (same values, same seeds, same games).
"""

from __future__ import annotations

import dataclasses
import hashlib
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..simulate.runner import Experiment, figures_from
from .plan import Target, Vary
from .play import chunks, play_steps
from .targets import measure

PRUNE_AFTER_TRIALS = 4  # the pruner compares with this many finished trials at least
FINISHED = ("COMPLETE", "PRUNED")


class Interrupted(Exception):
    """Ctrl-C: the trial being played was dropped; the finished ones are kept in the study."""

    def __init__(self, done: int, total: int):
        super().__init__(f"{done} of {total} trials")
        self.done, self.total = done, total


@dataclass(frozen=True)
class Plan:
    base: Experiment  # the version as it is, with the run's players, bots, games, seed and cap
    vary: tuple[Vary, ...]
    targets: tuple[Target, ...]

    def settings(self) -> dict[str, Any]:
        """Everything that decides the figures (stored with a study; a resumed study must match)."""
        b = self.base
        return {"game": b.game, "version": b.version, "players": b.players, "bots": list(b.bots), "games": b.games,
                "seed": b.seed, "max_rounds": b.max_rounds, "vary": [v.as_dict() for v in self.vary],
                "targets": [t.as_dict() for t in self.targets]}

    def experiment(self, values: dict[str, Any]) -> Experiment:
        return dataclasses.replace(self.base, values=tuple((v.path, values[v.path]) for v in self.vary))

    @property
    def current(self) -> dict[str, Any]:
        return {v.path: v.current for v in self.vary}

    def varied_cards(self) -> list[str]:
        return sorted({v.path.split(".", 1)[0] for v in self.vary})


def _optuna():
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def _sampler(optuna, seed: int, k: int, trials: int):
    digest = hashlib.sha256(f"{seed}:{k}".encode()).digest()
    startup = max(3, min(10, trials // 3))  # random trials first, then TPE learns from them
    return optuna.samplers.TPESampler(seed=int.from_bytes(digest[:4], "big"), n_startup_trials=startup)


def open_study(plan: Plan, journal: Path | None, name: str | None):
    """A new study, or the stored one of this name (which must have been made for the same plan)."""
    optuna = _optuna()
    storage = None
    if journal is not None:
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # optuna marks some storages experimental
            storage = JournalStorage(JournalFileBackend(str(journal)))
    pruner = optuna.pruners.MedianPruner(n_startup_trials=PRUNE_AFTER_TRIALS, n_warmup_steps=1)
    study = optuna.create_study(storage=storage, study_name=name or "balance", direction="minimize",
                                pruner=pruner, load_if_exists=True)
    settings = plan.settings()
    stored = study.user_attrs.get("settings")
    if stored is None:
        study.set_user_attr("settings", settings)
    elif stored != settings:
        differ = ", ".join(k for k in settings if stored.get(k) != settings[k])
        raise InputError(f"--study {name}: that study was made with other settings ({differ} differ); "
                         "use the same options to resume it, or another --study name")
    return study


def _distributions(optuna, plan: Plan) -> dict[str, Any]:
    d = optuna.distributions
    return {v.path: d.IntDistribution(int(v.low), int(v.high)) if v.integer else d.FloatDistribution(v.low, v.high)
            for v in plan.vary}


def finished(study) -> list:
    return [t for t in study.get_trials(deepcopy=False) if t.state.name in FINISHED]


def _key(values: dict[str, Any]) -> tuple:
    return tuple(sorted(values.items()))


def baseline(study, plan: Plan, player, progress) -> dict[str, Any]:
    """The version as it is, played on the same seeds (stored with the study: played once)."""
    stored = study.user_attrs.get("baseline")
    if stored is not None:
        progress.games(plan.base.games)
        return stored
    score = _play(plan, plan.current, player, progress, trial=None)
    study.set_user_attr("baseline", score)
    return score


def _play(plan: Plan, values: dict[str, Any], player, progress, trial) -> dict[str, Any]:
    """Play a candidate step by step; with a trial, report each step's loss and stop if pruned."""
    exp = plan.experiment(values)
    played = 0
    score: dict[str, Any] = {}
    last = len(chunks(exp.games)) - 1
    for step, (games, totals) in enumerate(play_steps(player, exp)):
        progress.games(games - played)
        played = games
        score = measure(list(plan.targets), figures_from(exp, totals), plan.varied_cards())
        if trial is not None:
            trial.report(score["loss"], step)
            if step < last and trial.should_prune():  # at the last step the games are played anyway
                progress.games(exp.games - played)  # the bar counts the games the trial no longer needs
                score["pruned"] = True
                break
    return score


def search(plan: Plan, study, trials: int, player, progress) -> None:
    """Run trials until the study holds `trials` finished ones."""
    optuna = _optuna()
    dists = _distributions(optuna, plan)
    in_range = all(v.low <= v.current <= v.high for v in plan.vary)
    while (k := len(finished(study))) < trials:
        played = {_key(t.params): t for t in finished(study) if t.state.name == "COMPLETE"}
        study.sampler = _sampler(optuna, plan.base.seed, k, trials)
        if k == 0 and in_range and not study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.WAITING,)):
            study.enqueue_trial(plan.current)  # the version as it is is the first candidate
        trial = study.ask(dists)
        try:
            values = {v.path: trial.params[v.path] for v in plan.vary}
            earlier = played.get(_key(values))
            if earlier is not None:
                score = dict(earlier.user_attrs["score"])
                progress.games(plan.base.games)
            elif _key(values) == _key(plan.current) and "baseline" in study.user_attrs:
                score = dict(study.user_attrs["baseline"])
                progress.games(plan.base.games)
            else:
                score = _play(plan, values, player, progress, trial)
        except KeyboardInterrupt:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            raise Interrupted(len(finished(study)), trials) from None
        except BaseException:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            raise
        trial.set_user_attr("score", score)
        if score.get("pruned"):
            study.tell(trial, state=optuna.trial.TrialState.PRUNED)
        else:
            study.tell(trial, score["loss"])
        progress.trial(len(finished(study)), best_loss(study))


def best_loss(study) -> float | None:
    done = [t for t in finished(study) if t.state.name == "COMPLETE"]
    return min(t.value for t in done) if done else None


def history(study, trials: int) -> list[dict[str, Any]]:
    """The first `trials` finished trials, in order: values, state and scores."""
    rows: list[dict[str, Any]] = []
    for t in finished(study)[:trials]:
        score = t.user_attrs.get("score", {})
        rows.append({"trial": len(rows) + 1, "state": t.state.name.lower(), "values": dict(t.params), **score})
    for row in rows:
        row.pop("pruned", None)
    return rows


class NoProgress:
    """What search() tells a progress display (nothing, here: -q, CI, JSON)."""

    def start(self, trials: int, done: int, games: int) -> None: ...

    def games(self, n: int) -> None: ...

    def trial(self, done: int, best: float | None) -> None: ...

    def stop(self) -> None: ...
