"""The plain data that flows between the build's stages, and the paper list they share.

Every stage (render, rasterise, imposition, rulebook, export) imports its inputs and outputs
from here rather than from the stage that produced them or the pipeline that runs them, so no
stage depends on another stage's module and none on the pipeline.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import Finding

if TYPE_CHECKING:
    from .data.snapshot import Snapshot


@dataclass(frozen=True)
class Paper:
    name: str
    width_mm: float
    height_mm: float


PAPER_SIZES: dict[str, Paper] = {
    "a4": Paper("A4", 210.0, 297.0),
    "letter": Paper("Letter", 215.9, 279.4),
}
PAPER_NAMES: tuple[str, ...] = tuple(PAPER_SIZES)  # what `--paper both` builds, in this order
PRINT_MODES: tuple[str, ...] = ("duplex", "onesided")
CUTTER_NAMES: tuple[str, ...] = ("silhouette", "cricut")  # `build --cutter` (imposition.presets.CUTTERS)


@dataclass
class BuildOptions:
    papers: tuple[str, ...] = PAPER_NAMES
    duplex: bool = True
    png: bool = True
    dpi: int = 300
    out_dir: Path | None = None
    workers: int | None = None
    only_cards: set[str] | None = None  # update packs: print just these cards
    changed_since: Snapshot | None = None  # update packs: the cards whose face differs from this version's
    rulebook: bool = True
    notes: bool = True  # the designer's notes beside the rulebook
    notes_papers: tuple[str, ...] | None = None  # the notes' papers (None: the rulebook's, `papers`)
    booklet: bool = False  # the rulebook also as an A5 / half-Letter booklet, two up
    sheets: bool = True
    back_offset_mm: tuple[float, float] = (0.0, 0.0)  # duplex correction, see `cardgen calibrate`
    cuts: str = "forgiving"  # the home sheets' cut style (imposition.presets.CUT_STYLES)
    cutter: str | None = None  # also sheets and a cut file for this cutting machine (CUTTER_NAMES)
    strict: bool = False  # warnings stop the build too (CI of a game project)
    force: bool = False  # --force: replace outputs the user edited since cardgen wrote them

    @property
    def notes_on(self) -> tuple[str, ...]:
        """The papers the designer's notes are laid out on: `notes_papers`, else the rulebook's."""
        return self.papers if self.notes_papers is None else self.notes_papers


@dataclass(frozen=True)
class Face:
    """One distinct printable image: a card face or a deck back, as SVG text."""

    key: str  # unique, file-name safe: "card-arming-sword", "back-market"
    svg: str
    width_mm: float  # including bleed
    height_mm: float
    shape: str = "rect"

    @functools.cached_property
    def digest(self) -> str:
        """Hashed once per face: a rulebook places the same faces hundreds of times."""
        return hashlib.sha256(self.svg.encode("utf-8")).hexdigest()


@dataclass
class RenderedSet:
    """What the card renderer hands on: faces, backs, and which card uses which."""

    faces: dict[str, Face] = field(default_factory=dict)  # card id -> face
    backs: dict[str, Face] = field(default_factory=dict)  # deck id -> back (absent: blank back)
    warnings: list[str] = field(default_factory=list)
    shrunk: dict[str, float] = field(default_factory=dict)  # face -> smallest text size / its normal size


@dataclass
class FaceFiles:
    """Where a face's cached renders are: PDF for the sheets, PNG for exports."""

    face: Face
    pdf: Path
    png: Path | None


@dataclass
class Rasterised:
    """What the rasterise stage hands on: every face's files, and how many it had to render."""

    files: dict[str, FaceFiles]  # face key -> cached PDF/PNG
    rendered: int  # faces rasterised in this run (cache misses)


@dataclass
class Output:
    path: Path
    what: str
    pages: int = 0
    rebuilt: bool = True
    warnings: list[str] = field(default_factory=list)  # remarks of the tool that made it
    sheets: int | None = None  # sheets of paper it takes to print, where that differs from pages
    details: list[str] = field(default_factory=list)  # e.g. how the sheets are laid out


@dataclass
class Timing:
    """How long one stage took (`cardgen build --timings`); stages in workers overlap in time."""

    stage: str
    seconds: float
    detail: str = ""


@dataclass
class BuildResult:
    out_dir: Path
    outputs: list[Output] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # every warning as a line: findings, then remarks
    findings: list[Finding] = field(default_factory=list)  # the validator's and preflight's
    remarks: list[str] = field(default_factory=list)  # the output tools' (weasyprint...)
    replaced: list[str] = field(default_factory=list)  # outputs the user edited, replaced by --force
    rendered: int = 0  # card images rasterised in this run (cache misses)
    faces: int = 0
    cards: RenderedSet | None = None  # the SVG faces and backs
    files: dict[str, FaceFiles] = field(default_factory=dict)  # face key -> cached PDF/PNG
    shrunk: dict[str, float] = field(default_factory=dict)  # face -> text size used / normal size
    missing: list[str] = field(default_factory=list)  # messages the language's catalogs lack
    only_cards: set[str] | None = None  # the cards an update pack printed
    timings: list[Timing] = field(default_factory=list)

    @contextlib.contextmanager
    def timed(self, stage: str, detail: str = "") -> Iterator[None]:
        started = time.perf_counter()
        yield
        self.timings.append(Timing(stage, time.perf_counter() - started, detail))


class Progress:
    """What the stages report while they work; the CLI shows it as a progress bar."""

    def start(self, label: str, total: int) -> None: ...
    def advance(self, n: int = 1) -> None: ...
    def stop(self) -> None: ...

    @contextlib.contextmanager
    def stage(self, label: str) -> Iterator[None]:
        """A step with no countable parts (laying out a PDF): shown as a spinner."""
        yield
