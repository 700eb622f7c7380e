"""The build pipeline: load -> resolve -> validate -> render SVG -> rasterise -> impose (-> rulebook).

Each stage reads plain data from the one before; rasterised cards are cached by content, and
whole output files are skipped when their inputs are unchanged (see cache.py).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from . import cache as cache_mod
from .atomic import write_text
from .errors import BuildError, Finding
from .outputs import open_output, refuse_sources, remove_stale
from .project import Project
from .render import Face, RenderedSet
from .snapshot import Snapshot
from .validate import check, validate  # noqa: F401  (validate: re-exported for callers)

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
    rulebook: bool = True
    sheets: bool = True
    strict: bool = False  # warnings stop the build too (CI of a game project)


@dataclass
class Output:
    path: Path
    what: str
    pages: int = 0
    rebuilt: bool = True
    warnings: list[str] = field(default_factory=list)  # remarks of the tool that made it


@dataclass
class BuildResult:
    out_dir: Path
    outputs: list[Output] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # every warning as a line: findings, then remarks
    findings: list[Finding] = field(default_factory=list)  # the validator's (card, file:line:column)
    remarks: list[str] = field(default_factory=list)  # the output tools' (weasyprint...)
    rendered: int = 0  # card images rasterised in this run (cache misses)
    faces: int = 0
    cards: RenderedSet | None = None  # the SVG faces and backs
    files: dict[str, "FaceFiles"] = field(default_factory=dict)  # face key -> cached PDF/PNG


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
    """Never write over the user's sources: refuse the project root and its source folders
    (compared after resolving symbolic links; see cardgen.outputs)."""
    return refuse_sources(project, out_dir, "build")


def build(project: Project, snapshot: Snapshot, options: BuildOptions | None = None,
          progress: Progress | None = None) -> BuildResult:
    options = options or BuildOptions()
    progress = progress or Progress()
    out_dir = check_out_dir(project, options.out_dir or default_out_dir(project, snapshot))
    # the validator renders every card to SVG (so validate and build fail alike); build goes on
    # with those faces
    findings, rendered = check(project, snapshot)
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        raise ValidationFailed(errors)
    warnings = [f for f in findings if f.severity == "warning"]
    if options.strict and warnings:
        raise ValidationFailed(warnings, strict=True)
    result = BuildResult(out_dir, findings=findings)
    result.warnings += [str(f) for f in findings]
    result.faces = len(rendered.faces) + len(rendered.backs)
    with open_output(project, out_dir, "build"):
        manifest = cache_mod.Manifest(out_dir)
        files = Rasteriser(project, options, progress).run(rendered, out_dir, result)
        result.cards, result.files = rendered, files

        if options.sheets:
            from .sheets import build_sheets

            with progress.stage("Imposing print sheets"):
                result.outputs += build_sheets(project, snapshot, rendered, files, options, out_dir, manifest)
        if options.rulebook and snapshot.game.file.rulebook:
            from .rulebook import build_rulebooks

            with progress.stage("Laying out the rulebook"):
                result.outputs += build_rulebooks(project, snapshot, rendered, files, options, out_dir, manifest)
        result.remarks += [f"{o.path.name}: {w}" for o in result.outputs for w in o.warnings]
        result.warnings += result.remarks
        manifest.forget_missing()
        manifest.save()
    return result


class ValidationFailed(BuildError):
    def __init__(self, errors: list[Finding], strict: bool = False, what: str = "built"):
        kind = "warning(s) and --strict" if strict else "error(s) in the game data"
        super().__init__(f"{len(errors)} {kind}; nothing was {what}")
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
        self.cache = cache_mod.Cache(project.build_dir / ".cache" / "faces")
        self.salt = cache_mod.digest_of(cache_mod.toolchain_version(),
                                        cache_mod.folder_digest(str(project.fonts_dir)))

    def key(self, face: Face) -> str:
        return cache_mod.digest_of(self.salt, face.digest)

    def run(self, rendered: RenderedSet, out_dir: Path, result: BuildResult) -> dict[str, FaceFiles]:
        from .rasterise import RenderJob, render_jobs

        faces = list(rendered.faces.values()) + list(rendered.backs.values())
        files: dict[str, FaceFiles] = {}
        jobs = []
        for face in faces:
            key = self.key(face)
            pdf = self.cache.path(key, ".pdf")
            png = self.cache.path(f"{key}-{self.options.dpi}", ".png") if self.options.png else None
            files[face.key] = FaceFiles(face, pdf, png)
            need_pdf = not pdf.is_file()
            need_png = png is not None and not png.is_file()
            if need_pdf or need_png:
                jobs.append(RenderJob(svg=face.svg, pdf=pdf if need_pdf else None,
                                      png=png if need_png else None, dpi=self.options.dpi, key=face.key))
        if jobs:
            self.progress.start("Rendering cards", len(jobs))
            try:
                render_jobs(jobs, workers=self.options.workers, on_done=lambda job: self.progress.advance(),
                            fonts_dir=self.project.fonts_dir,
                            cache_dir=self.project.build_dir / ".cache" / "fontconfig")
            finally:
                self.progress.stop()
        result.rendered = len(jobs)
        self._publish(files, out_dir)
        return files

    def _publish(self, files: dict[str, FaceFiles], out_dir: Path) -> None:
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
        # only files an earlier build wrote and recorded go: a user's own files stay, and so do
        # the PNGs of a `--no-png` build (it did not touch png/ at all)
        remove_stale(svg_dir, wanted_svg)
        if self.options.png:
            remove_stale(png_dir, wanted_png)
