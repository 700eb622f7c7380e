"""The plug-in contract (cardgen.data.plugin): each seed game's plug-in keeps it, and a plug-in
that keeps none of it, or breaks, is one finding naming the file, not a traceback."""

from __future__ import annotations

import inspect

import pytest
from conftest import ROOT

from cardgen.data.plugin import HOOKS, GamePlugin, defined_hooks, load_plugin
from cardgen.data.project import load_project
from cardgen.data.validate import validate
from cardgen.data.versions import load_game, resolve

GAMES = ("kings-blade", "way-of-the-blade", "one-true-king", "knightfall", "kings-guild")
SIMULATED = ("kings-blade", "one-true-king", "kings-guild")  # games whose plug-in plays them


@pytest.mark.parametrize("game", GAMES)
def test_seed_plugins_keep_the_contract(game):
    module = load_plugin(ROOT / "card_data" / game / "plugin.py")
    hooks = defined_hooks(module)
    assert hooks == (["check", "simulation"] if game in SIMULATED else ["check"])
    for hook in hooks:  # same parameter names as the contract's
        want = list(inspect.signature(getattr(GamePlugin, hook)).parameters)[1:]
        assert list(inspect.signature(getattr(module, hook)).parameters) == want
    assert isinstance(module, GamePlugin) == (hooks == list(HOOKS))


def _findings(project_root, plugin_source: str):
    (project_root / "card_data/kings-blade/plugin.py").write_text(plugin_source)
    project = load_project(project_root)
    snapshot = resolve(project, load_game(project, "kings-blade"), "3.1")
    return [f for f in validate(project, snapshot) if f.code == "plugin"]


def test_a_plugin_without_hooks_is_one_error(project_copy):
    [finding] = _findings(project_copy, "def chek(snapshot, report):\n    pass\n")
    assert finding.severity == "error"
    assert "defines none of the hooks cardgen calls (check(), simulation()" in finding.message
    assert finding.loc.file.name == "game.yml" and finding.loc.line > 0


def test_a_failing_hook_is_one_error_naming_the_plugin(project_copy):
    [finding] = _findings(project_copy, "def check(snapshot, report):\n    raise KeyError('blade')\n")
    assert finding.severity == "error"
    assert finding.message == "plug-in plugin.py failed: KeyError: 'blade'"
    assert finding.loc.file.name == "plugin.py"
