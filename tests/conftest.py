"""Shared fixtures: the repository is itself a cardgen project holding the seed games."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from cardgen.cli import main
from cardgen.data.project import CACHE_ENV, load_project

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session", autouse=True)
def session_cache(tmp_path_factory) -> Iterator[Path]:
    """The session's own render cache: tests neither read nor fill the repository's build/.cache."""
    folder = tmp_path_factory.mktemp("cache")
    patch = pytest.MonkeyPatch()
    patch.setenv(CACHE_ENV, str(folder))
    yield folder
    patch.undo()


@pytest.fixture
def project_copy(tmp_path: Path, monkeypatch) -> Path:
    """A private copy of the project's data (not its build output) that a test may break.

    Its builds start from an empty cache of their own (build/.cache in the copy), as a fresh
    checkout would, so a test can count what a build renders.
    """
    monkeypatch.delenv(CACHE_ENV)
    return load_project(ROOT).copy_sources(tmp_path / "project").root


class CliResult:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run `cardgen ARGS` in-process from a folder; returns exit code, stdout, stderr."""

    def run(*args: str, cwd: Path = ROOT) -> CliResult:
        monkeypatch.chdir(cwd)
        capsys.readouterr()
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run
