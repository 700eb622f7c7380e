"""A balance run from start to end: the plan checked before any game, the study opened (or
resumed), the version as it is and the candidates played, and the result as one document."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..files import study_journal
from ..simulate.runner import Experiment, Runner, simulation_for, snapshot_for
from . import search
from .plan import check_measurable, parse_target, parse_vary
from .proposal import changes

STUDY_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def make_plan(base: Experiment, vary_texts: list[str], target_texts: list[str]) -> tuple[search.Plan, Any]:
    """The plan, or one InputError: every mistake is found here, before any game is played."""
    if not vary_texts:
        raise InputError("--vary: expected at least one CARD.FIELD=LOW..HIGH")
    if not target_texts:
        raise InputError("--target: expected at least one of cards, strategies, seats, length:LOW..HIGH")
    sim = Runner(1).check(base)  # first: the game has a simulation, the bots exist
    snapshot = snapshot_for(base)
    vary = [parse_vary(snapshot, text) for text in vary_texts]
    paths = [v.path for v in vary]
    if len(set(paths)) < len(paths):
        raise InputError(f"--vary: {next(p for p in paths if paths.count(p) > 1)} is given twice")
    targets = [parse_target(text, base.players, base.bots) for text in target_texts]
    names = [t.name for t in targets]
    if len(set(names)) < len(names):
        raise InputError(f"--target: {next(n for n in names if names.count(n) > 1)} is given twice")
    check_measurable(targets, sim)
    plan = search.Plan(base, tuple(vary), tuple(targets))
    for end in ("low", "high"):  # the engine accepts the range's ends (it reads them as data)
        simulation_for(plan.experiment({v.path: getattr(v, end) for v in vary}))
    return plan, snapshot


def study_file(folder: Path, name: str | None) -> Path | None:
    if name is None:
        return None
    if not STUDY_NAME.match(name):
        raise InputError(f"--study {name}: expected letters, digits, '.', '_' and '-' (at most 64)")
    return study_journal(folder, name)


def run(plan: search.Plan, trials: int, player, journal: Path | None, study_name: str | None,
        progress) -> dict[str, Any]:
    study = search.open_study(plan, journal, study_name)
    done = len(search.finished(study))
    progress.start(trials, min(done, trials), plan.base.games * (max(trials - done, 0) + 1))
    progress.trial(min(done, trials), search.best_loss(study))
    try:
        try:
            base = search.baseline(study, plan, player, progress)
        except KeyboardInterrupt:
            raise search.Interrupted(done, trials) from None
        search.search(plan, study, trials, player, progress)
    finally:
        progress.stop()
    return document(plan, study, trials, base, study_name)


def document(plan: search.Plan, study, trials: int, base: dict[str, Any], study_name: str | None) -> dict[str, Any]:
    rows = search.history(study, trials)
    complete = [t for t in rows if t["state"] == "complete"]
    best = min(complete, key=lambda t: (t["loss"], t["trial"]))
    sim = simulation_for(plan.base)
    cards = plan.varied_cards()
    return {
        "game": plan.base.game,
        "game_name": snapshot_for(plan.base).game.name,
        "study": study_name,
        "settings": plan.settings(),
        "target_text": [t.describe() for t in plan.targets],
        "trials_done": len(rows),
        "baseline": {"values": plan.current, **base},
        "best": best,
        "trials": rows,
        "proposal": {"changes": changes(plan.current, best["values"])},
        "card_names": {c: sim.card_info.get(c, {}).get("name", c) for c in cards},
        "card_types": {c: sim.card_info.get(c, {}).get("type", "") for c in cards},
    }
