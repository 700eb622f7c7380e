"""The README's two set-up commands install pinned releases, and CI runs the README's test command.

A fresh install follows constraints.txt, so a new release of a dependency that breaks a promise is
seen when the file is refreshed (CONTRIBUTING.md), not inherited by every fresh clone."""

from __future__ import annotations

import re
import sys

from conftest import ROOT
from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli to Python 3.10
    import tomli as tomllib


def quick_start_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def pinned() -> dict[str, list[str]]:
    """Package name -> the `==` pins in constraints.txt (one per environment marker)."""
    pins: dict[str, list[str]] = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            assert [s.operator for s in req.specifier] == ["=="], line
            pins.setdefault(req.name.lower().replace("_", "-"), []).append(str(req.specifier))
    return pins


def test_the_quick_start_has_two_commands_both_installing_from_the_constraints():
    build, tests = quick_start_commands()
    assert build == "pip install -c constraints.txt -e . && cardgen build --version 3.1"
    assert tests == "pip install -c constraints.txt -e '.[test]' && python -m pytest"


def test_ci_runs_the_readmes_test_command_word_for_word():
    tests = quick_start_commands()[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert tests in ci.splitlines(), "the README's test command is not a line of .ci/run"
    # every pip install in CI follows the constraints
    installs = re.findall(r"pip install [^\n]*", ci)
    assert installs and all("-c constraints.txt" in line for line in installs), installs


def test_every_dependency_and_extra_is_pinned():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted += extra
    pins = pinned()
    missing = [r for r in wanted
               if Requirement(r).name.lower().replace("_", "-") not in pins]
    assert not missing, f"constraints.txt pins none of {missing}: refresh it (CONTRIBUTING.md)"
    for r in wanted:
        req = Requirement(r)
        for pin in pins[req.name.lower().replace("_", "-")]:
            assert req.specifier.contains(pin.removeprefix("=="), prereleases=True), (r, pin)
