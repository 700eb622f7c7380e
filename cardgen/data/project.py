"""Finding a cardgen project and its games, the way MkDocs finds mkdocs.yml.

A project is a folder with a `cardgen.yml`; it holds one or more games under `card_data/`,
their versions under `versions/`, and shared `templates/`, `icons/` and `fonts/`. Fonts and
common templates a project lacks come from cardgen's built-ins (`cardgen.builtin`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, StrictInt, field_validator

from ..builtin import FONTS_DIR
from ..errors import InputError, Loc
from ..outputs import refuse_sources
from . import model, yamlsource
from .folders import DEFAULT_BUILD_DIR, PROJECT_FILE, project_root
from .folders import cache_dir as cache_dir_of
from .folders import source_paths as source_paths_of

MAX_DUPLEX_OFFSET_MM = 10.0  # more than this is not a printer's misregistration but a wrong setting


# a number written as one: not `true` (a 1 in lax parsing), not "1.5", not .nan or .inf
Millimetres = Annotated[float, Field(strict=True, allow_inf_nan=False)]


class PrinterFile(model.Strict):
    duplex_offset_mm: tuple[Millimetres, Millimetres] = Field(
        (0.0, 0.0), description="Shift of every duplex back page, [x, y] in mm as you look at the back "
        "(x right, y up), as read from `cardgen calibrate`.")

    @field_validator("duplex_offset_mm", mode="before")
    @classmethod
    def _two(cls, value: Any) -> Any:
        """A list of another length would be reported as a missing tuple item ('1')."""
        if isinstance(value, (list, tuple)) and len(value) != 2:
            raise ValueError(f"expected two numbers [x, y] in mm (this list has {len(value)})")
        return value

    @field_validator("duplex_offset_mm")
    @classmethod
    def _small(cls, value: tuple[float, float]) -> tuple[float, float]:
        if any(abs(v) > MAX_DUPLEX_OFFSET_MM for v in value):
            raise ValueError(f"each offset must lie within +-{MAX_DUPLEX_OFFSET_MM:g} mm")
        return value


# cairo's largest image is 32767 pixels a side: 2774 mm at the build's 300 DPI
MAX_FACE_MM = 2774


class Limits(model.Strict):
    """Checked by `validate` (and so before `build` starts work): a typo such as `count: 10000`
    should not run for minutes and fill the disk."""

    printed_cards: StrictInt = Field(5000, ge=1, description="Most cards a version may print (all copies).")
    different_cards: StrictInt = Field(2000, ge=1, description="Most different cards in a version.")
    face_mm: StrictInt = Field(
        1200, ge=10, le=MAX_FACE_MM,
        description="Longest side of a card, tile or board, bleed included, in mm. Its 300 DPI image "
                    f"can be no larger than {MAX_FACE_MM} mm (cairo draws at most 32767 pixels a side).")


class ProjectFile(model.Strict):
    default_game: str | None = Field(None, description="Game used when --game is left out.")
    build_dir: str = DEFAULT_BUILD_DIR
    protected: list[str] = Field(
        default_factory=list,
        description="More folders of the project (besides card_data, versions, templates, icons, fonts, "
                    "schema) that a build must never write into, e.g. [tests, docs].")
    printer: PrinterFile = Field(default_factory=PrinterFile, description="Your home printer, for print sheets.")
    limits: Limits = Field(default_factory=Limits, description="Size limits checked before a build starts.")


@dataclass(frozen=True)
class Project:
    root: Path
    config: ProjectFile

    @property
    def card_data(self) -> Path:
        return self.root / "card_data"

    @property
    def versions_dir(self) -> Path:
        return self.root / "versions"

    @property
    def templates_dir(self) -> Path:
        return self.root / "templates"

    @property
    def icons_dir(self) -> Path:
        return self.root / "icons"

    @property
    def own_fonts_dir(self) -> Path:
        return self.root / "fonts"

    @property
    def fonts_dir(self) -> Path:
        """The project's fonts/ when it holds a font, else cardgen's built-in fonts.

        One folder, never a mix: the fonts a build may use are exactly those of this folder."""
        own = self.own_fonts_dir
        if own.is_dir() and any(p.suffix.lower() in (".ttf", ".otf") for p in own.iterdir()):
            return own
        return FONTS_DIR

    @property
    def build_dir(self) -> Path:
        return self.root / self.config.build_dir

    @property
    def cache_dir(self) -> Path:
        """Renders shared by every build of the project, by content (see data.folders.cache_dir)."""
        return cache_dir_of(self.build_dir)

    @property
    def source_paths(self) -> list[Path]:
        """What the designer writes: never built over, and all a copy of the project needs."""
        return source_paths_of(self.root)

    def copy_sources(self, dest: Path) -> Project:
        """Copy the project's sources (not its build output) to `dest`, e.g. for a scratch build."""
        import shutil

        dest.mkdir(parents=True, exist_ok=True)
        for src in self.source_paths:
            if src.is_dir():
                shutil.copytree(src, dest / src.name)
            elif src.is_file():
                shutil.copy2(src, dest / src.name)
        return load_project(dest)

    def game_ids(self) -> list[str]:
        if not self.card_data.is_dir():
            return []
        return sorted(p.parent.name for p in self.card_data.glob("*/game.yml"))

    def game_dir(self, game_id: str | None) -> Path:
        game_id = game_id or self.config.default_game
        games = self.game_ids()
        if game_id is None:
            if len(games) == 1:
                game_id = games[0]
            else:
                raise InputError(
                    f"no --game given and no default_game in {PROJECT_FILE}; games: {', '.join(games) or 'none'}"
                )
        if game_id not in games:
            raise InputError(
                f"no game '{game_id}' in {self.card_data} (expected one of: {', '.join(games) or 'none'})"
            )
        return self.card_data / game_id



def find_project(start: Path | None = None) -> Project:
    """The project at or above `start` (see `project_root`); an error when there is none."""
    root = project_root(start)
    if root is not None:
        return load_project(root)
    start = Path(start or Path.cwd()).resolve()
    raise InputError(
        f"no {PROJECT_FILE} found in {start} or any folder above it "
        "(run inside a cardgen project, pass --project PATH, or start one with `cardgen new NAME`)"
    )


def load_project(root: Path) -> Project:
    root = Path(root).resolve()
    file = root / PROJECT_FILE
    if not file.is_file():
        raise InputError(f"not a cardgen project: {file} does not exist", Loc(file))
    doc = yamlsource.load(file)
    config = model.parse_model(ProjectFile, doc)
    return Project(root, config)


def check_out_dir(project: Project, out_dir: Path) -> Path:
    """Never write over the user's sources: refuse the project root and its source folders
    (compared after resolving symbolic links; see cardgen.outputs)."""
    return refuse_sources(project, out_dir, "build")
