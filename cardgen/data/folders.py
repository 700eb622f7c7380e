"""Where a project's files are, known from its root alone: no file is read and nothing heavy is
imported, so that `cardgen build` can tell that nothing changed before it loads anything
(cardgen.buildstamp). `data.project.Project` answers the same questions through these."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_FILE = "cardgen.yml"
CACHE_ENV = "CARDGEN_CACHE_DIR"
DEFAULT_BUILD_DIR = "build"  # cardgen.yml `build_dir` when it names none


def project_root(start: Path | None = None) -> Path | None:
    """The nearest folder at or above `start` holding cardgen.yml, or None."""
    start = Path(start or Path.cwd()).resolve()
    if start.is_file():
        start = start.parent
    for folder in (start, *start.parents):
        if (folder / PROJECT_FILE).is_file():
            return folder
    return None


def source_paths(root: Path) -> list[Path]:
    """What the designer writes: never built over, and all a copy of the project needs."""
    return [root / PROJECT_FILE, root / "card_data", root / "versions", root / "templates", root / "icons",
            root / "fonts", root / "schema"]


def cache_dir(build_dir: Path) -> Path:
    """Renders shared by every build of the project, by content (see cache.py).

    <build_dir>/.cache/ unless CARDGEN_CACHE_DIR names another folder: a test session keeps its
    own there, so it neither reuses nor fills the cache of the designer's builds.
    """
    folder = os.environ.get(CACHE_ENV)
    return Path(folder).resolve() if folder else build_dir / ".cache"
