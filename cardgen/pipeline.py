"""The build pipeline: load -> resolve -> validate -> render SVG -> rasterise -> impose (-> rulebook).

Each stage reads plain data from the one before; rasterised cards are cached by content, and
whole output files are skipped when their inputs are unchanged (see cache.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from . import cache as cache_mod
from .atomic import write_text
from .errors import BuildError, Finding, InputError
from .project import Project
from .render import Face, RenderedSet, Renderer
from .snapshot import Snapshot
from .validate import validate
from .workers import Workers

PAPERS = ("a4", "letter")


@dataclass
class BuildOptions:
    papers: tuple[str, ...] = PAPERS
    duplex: bool = True
    png: bool = True
    dpi: int = 300
    out_dir: Path | None = None
    workers: int | None = None
    only_cards: set[str] | None = None  # update packs: print just these cards
    changed_since: Snapshot | None = None  # update packs: print the cards whose face differs from this version's
    rulebook: bool = True
    sheets: bool = True


@dataclass
class Output:
    path: Path
    what: str
    pages: int = 0
    rebuilt: bool = True
    warnings: list[str] = field(default_factory=list)  # remarks of the tool that made it


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
    warnings: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    rendered: int = 0  # card images rasterised in this run (cache misses)
    faces: int = 0
    cards: RenderedSet | None = None  # the SVG faces and backs
    files: dict[str, "FaceFiles"] = field(default_factory=dict)  # face key -> cached PDF/PNG
    only_cards: set[str] | None = None  # the cards an update pack printed
    timings: list[Timing] = field(default_factory=list)

    @contextlib.contextmanager
    def timed(self, stage: str, detail: str = "") -> Iterator[None]:
        started = time.perf_counter()
        yield
        self.timings.append(Timing(stage, time.perf_counter() - started, detail))


class Progress:
    """What the pipeline reports while it works; the CLI shows it as a progress bar."""

    def start(self, label: str, total: int) -> None: ...
    def advance(self, n: int = 1) -> None: ...
    def stop(self) -> None: ...

    @contextlib.contextmanager
    def stage(self, label: str) -> Iterator[None]:
        """A step with no countable parts (laying out a PDF): shown as a spinner."""
        yield


def default_out_dir(project: Project, snapshot: Snapshot) -> Path:
    return project.build_dir / snapshot.game.id / snapshot.version


def check_out_dir(project: Project, out_dir: Path) -> Path:
    """Never write over the user's sources: refuse the project root and its source folders."""
    out = out_dir.resolve()
    protected = [p for p in project.source_paths if p.suffix != ".yml"]
    protected += [project.root / "tests", project.root / "cardgen"]
    if out == project.root:
        raise InputError(f"refusing to build into the project folder itself ({out}); use build/ or a new folder")
    for folder in protected:
        folder = folder.resolve()
        if out == folder or folder in out.parents:
            raise InputError(f"refusing to build into {folder}: it holds your sources")
    return out


def build(project: Project, snapshot: Snapshot, options: BuildOptions | None = None,
          progress: Progress | None = None) -> BuildResult:
    """Validate, render, then rasterise the cards, impose the sheets and lay out the rulebook.

    The slow steps share one pool of worker processes (`workers.py`): card renders are queued
    first, the rulebooks behind them, so a core that runs out of cards moves on to a rulebook
    while this process imposes the sheets as soon as the cards are done.
    """
    options = options or BuildOptions()
    progress = progress or Progress()
    out_dir = check_out_dir(project, options.out_dir or default_out_dir(project, snapshot))
    result = BuildResult(out_dir)
    with result.timed("validate"):
        findings = validate(project, snapshot)
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        raise ValidationFailed(errors)
    result.findings = findings
    result.warnings += [str(f) for f in findings]

    with result.timed("render", "card faces and backs as SVG"):
        rendered = Renderer(project, snapshot).render_all()
    result.warnings += rendered.warnings
    result.faces = len(rendered.faces) + len(rendered.backs)
    if options.changed_since is not None:
        from .diff.faces import card_faces, changed_between

        with result.timed("compare", f"faces of version {options.changed_since.version}"):
            only = changed_between(card_faces(project, options.changed_since), rendered.faces)
        options = dataclasses.replace(options, only_cards=only, rulebook=False)
    result.only_cards = options.only_cards
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest = cache_mod.Manifest(out_dir)
    rasteriser = Rasteriser(project, options, progress)
    with Workers(options.workers, project.fonts_dir, project.cache_dir / "fontconfig") as workers:
        started = time.perf_counter()
        files, jobs = rasteriser.plan(rendered)
        queued = rasteriser.submit(jobs, workers)
        planned = time.perf_counter()
        rulebooks = None
        if options.rulebook and snapshot.game.file.rulebook:
            from .rulebook import start_rulebooks

            rulebooks = start_rulebooks(project, snapshot, rendered, options, out_dir, manifest, workers)
        waited = time.perf_counter()
        rasteriser.wait(jobs, queued)
        result.timings.append(Timing("rasterise", planned - started + time.perf_counter() - waited,
                                     f"{len(jobs)} of {len(files)} faces rendered to PDF/PNG, the rest cached"))
        result.rendered = len(jobs)
        result.cards, result.files = rendered, files
        with result.timed("export", "SVG and PNG of every face into the output folder"):
            rasteriser.publish(files, out_dir)

        if options.sheets:
            from .sheets import build_sheets

            with progress.stage("Imposing print sheets"):
                for paper in options.papers:
                    one = dataclasses.replace(options, papers=(paper,))
                    with result.timed(f"sheets {paper.upper()}"):
                        result.outputs += build_sheets(project, snapshot, rendered, files, one, out_dir, manifest)
        if rulebooks is not None:
            with progress.stage("Laying out the rulebook"):
                result.outputs += rulebooks.finish()
            result.timings += rulebooks.timings
    result.warnings += [f"{o.path.name}: {w}" for o in result.outputs for w in o.warnings]
    manifest.forget_missing()
    manifest.save()
    return result


class ValidationFailed(BuildError):
    def __init__(self, errors: list[Finding]):
        super().__init__(f"{len(errors)} error(s) in the game data; nothing was built")
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join([str(e) for e in self.errors] + [self.message])

    def report_lines(self) -> list[str]:
        return [str(e) for e in self.errors] + [f"error: {self.message}"]


@dataclass
class FaceFiles:
    """Where a face's cached renders are: PDF for the sheets, PNG for exports."""

    face: Face
    pdf: Path
    png: Path | None


class Rasteriser:
    """SVG -> vector PDF (for sheets) and PNG (for people and exports), cached by content."""

    def __init__(self, project: Project, options: BuildOptions, progress: Progress):
        self.project = project
        self.options = options
        self.progress = progress
        self.cache = cache_mod.Cache(project.cache_dir / "faces")
        self.salt = cache_mod.digest_of(cache_mod.toolchain_version(),
                                        cache_mod.folder_digest(str(project.fonts_dir)))

    def key(self, face: Face) -> str:
        return cache_mod.digest_of(self.salt, face.digest)

    def plan(self, rendered: RenderedSet) -> tuple[dict[str, FaceFiles], list]:
        """Where every face's PDF/PNG is cached, and the render jobs for those not there yet."""
        faces = list(rendered.faces.values()) + list(rendered.backs.values())
        files: dict[str, FaceFiles] = {}
        missing = []
        for face in faces:
            key = self.key(face)
            pdf = self.cache.path(key, ".pdf")
            png = self.cache.path(f"{key}-{self.options.dpi}", ".png") if self.options.png else None
            files[face.key] = FaceFiles(face, pdf, png)
            need_pdf = not pdf.is_file()
            need_png = png is not None and not png.is_file()
            if need_pdf or need_png:
                missing.append((face, pdf if need_pdf else None, png if need_png else None))
        if not missing:
            return files, []  # a no-op rebuild does not even import cairo
        from .rasterise import RenderJob

        return files, [RenderJob(svg=face.svg, pdf=pdf, png=png, dpi=self.options.dpi, key=face.key)
                       for face, pdf, png in missing]

    def submit(self, jobs: list, workers: Workers) -> dict | None:
        """Queue the jobs in the build's workers; with one worker they run in `wait` instead."""
        if not jobs or not workers.parallel:
            return None
        from .rasterise import submit_jobs

        return submit_jobs(jobs, workers)

    def wait(self, jobs: list, queued: dict | None) -> None:
        """Render (or wait for) the jobs, showing a progress bar."""
        if not jobs:
            return
        from .rasterise import collect_jobs, render_jobs

        self.progress.start("Rendering cards", len(jobs))
        try:
            if queued is not None:
                collect_jobs(queued, on_done=lambda job: self.progress.advance())
            else:
                render_jobs(jobs, workers=1, on_done=lambda job: self.progress.advance(),
                            fonts_dir=self.project.fonts_dir, cache_dir=self.project.cache_dir / "fontconfig")
        finally:
            self.progress.stop()

    def publish(self, files: dict[str, FaceFiles], out_dir: Path) -> None:
        """Copy SVG and PNG of every face into the output folder; remove ones no longer built."""
        svg_dir, png_dir = out_dir / "svg", out_dir / "png"
        wanted_svg, wanted_png = set(), set()
        for key, ff in sorted(files.items()):
            svg_path = svg_dir / f"{key}.svg"
            wanted_svg.add(svg_path.name)
            if not svg_path.is_file() or svg_path.read_text(encoding="utf-8") != ff.face.svg:
                write_text(svg_path, ff.face.svg)
            if ff.png is not None:
                png_path = png_dir / f"{key}.png"
                wanted_png.add(png_path.name)
                cache_mod.place(ff.png, png_path)
        for folder, wanted in ((svg_dir, wanted_svg), (png_dir, wanted_png)):
            if folder.is_dir():
                for stale in folder.iterdir():
                    if stale.is_file() and stale.name not in wanted:
                        stale.unlink()

