"""The contract between cardgen and a game's plug-in: `card_data/<game>/plugin.py`.

A game's own rules (what the generic validator cannot know) live in a Python file beside its
data, named by `plugin:` in game.yml. cardgen loads it as a module and calls the hooks it
defines, by name; every hook is optional, a plug-in must define at least one. `GamePlugin`
spells the hooks out, so a plug-in can be type-checked against it:

    from cardgen.data.plugin import GamePlugin, Reporter
    from cardgen.data.snapshot import Snapshot

    def check(snapshot: Snapshot, report: Reporter) -> None:
        if not snapshot.cards_of_type("blade"):
            report("error", "no-blades", "a version needs blades to forge")

Hooks:
- `check(snapshot, report)`: the game's validation rules, run by `cardgen validate` and before
  every build; `report(severity, code, message, card=, loc=)` records a finding ("error" stops
  the build, "warning" is shown). Return nothing; an exception is reported as an error.
- `simulation(snapshot)`: the game played by bots for `cardgen simulate`; returns an object
  with the members of `cardgen.simulate.contract.Simulation` (see docs/simulate.md).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import types
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, Protocol, runtime_checkable

from ..errors import Loc
from .snapshot import Card, Snapshot

HOOKS = ("check", "simulation")  # every hook name cardgen calls; a plug-in defines one or more


class Reporter(Protocol):
    """What a `check` hook is given to record findings with (validate.Report)."""

    def __call__(self, severity: Literal["error", "warning"], code: str, message: str, *,
                 card: Card | str | None = None, loc: Loc | None = None) -> None: ...


@runtime_checkable
class GamePlugin(Protocol):
    """A plug-in module with every hook; real plug-ins define a subset (see HOOKS)."""

    def check(self, snapshot: Snapshot, report: Reporter) -> None: ...

    def simulation(self, snapshot: Snapshot) -> Any:
        """An object keeping `cardgen.simulate.contract.Simulation` (typed there: the simulator
        is a layer above the data, so this contract does not import it)."""
        ...


def load_plugin(path: Path) -> ModuleType | None:
    """Import a game's plug-in as `<package>.<stem>` of a package made of its folder, or None if
    there is no such file.

    The package lets a plug-in split its work into sibling modules (`from . import engine`), and
    its name is a digest of the folder, the same in every process, so worker processes that load
    the plug-in again get the same module names.
    """
    if not path.is_file():
        return None
    folder = path.resolve().parent
    package = "cardgen_plugin_" + hashlib.sha1(str(folder).encode()).hexdigest()[:12]
    mod_name = f"{package}.{path.stem}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    if package not in sys.modules:
        pkg = types.ModuleType(package)
        pkg.__path__ = [str(folder)]
        sys.modules[package] = pkg
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[mod_name]
        raise
    return module


def defined_hooks(module: ModuleType) -> list[str]:
    """The hooks of HOOKS that the plug-in defines as functions."""
    return [name for name in HOOKS if callable(getattr(module, name, None))]
