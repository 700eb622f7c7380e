"""Rasterise stage: every face's SVG -> vector PDF (for sheets) and PNG (for people and exports).

Renders are cached by content under build/.cache/faces (keyed by the SVG, the fonts and the
renderer versions), so a rebuild renders only faces that changed, in parallel processes. The
conversion of one SVG lives in `svgconvert` (cairosvg), imported only when something must be
rendered: a no-op rebuild never loads cairo.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from .. import cache as cache_mod
from ..atomic import write_if_changed
from ..buildtypes import BuildOptions, Face, FaceFiles, Progress, Rasterised, RenderedSet
from ..data.project import Project
from ..errors import CardgenError, RasterError
from ..files import BuildFiles
from ..outputs import remove_stale
from . import fonts
from .workers import RASTER_PRELOAD, Workers, worker_count


@dataclass(frozen=True)
class RasterJob:
    """One SVG to render to a PDF and/or a PNG; `key` names it in errors (e.g. the card id)."""

    svg: str
    pdf: Path | None
    png: Path | None
    dpi: int = 300
    size_px: tuple[int, int] | None = None
    key: str = ""


class Rasteriser:
    """SVG -> vector PDF (for sheets) and PNG (for people and exports), cached by content."""

    def __init__(self, project: Project, options: BuildOptions, progress: Progress, workers: Workers | None = None):
        """`workers`: the command's pool (None: `run` starts one of `options.workers` when it has jobs)."""
        self.project = project
        self.options = options
        self.progress = progress
        self.workers = workers
        self.cache = cache_mod.Cache(project.cache_dir / "faces")
        self.salt = cache_mod.digest_of(cache_mod.toolchain_version(),
                                        fonts.fonts_digest(project.fonts_dir))
        self._offered: dict[str, tuple[FaceFiles, RasterJob | None]] = {}  # by face key, see `offer`
        self._held: list[RasterJob] = []  # offered before the workers were ready
        self._queued: dict[Future, RasterJob] = {}

    def key(self, face: Face) -> str:
        return cache_mod.digest_of(self.salt, face.digest)

    def run(self, rendered: RenderedSet, out_dir: Path | None) -> Rasterised:
        """Render what the cache lacks (in the command's workers); publish every face into
        `out_dir` (None: don't, e.g. for an export that only needs the cached files)."""
        files, jobs = self.plan(rendered)
        self.wait(jobs, None)
        if out_dir is not None:
            self.publish(files, out_dir)
        return Rasterised(files, rendered=len(jobs))

    def plan(self, rendered: RenderedSet) -> tuple[dict[str, FaceFiles], list[RasterJob]]:
        """Where every face's PDF/PNG is cached, and the jobs for those not there yet (the
        faces `offer`ed already keep the job planned then)."""
        faces = list(rendered.faces.values()) + list(rendered.backs.values())
        files: dict[str, FaceFiles] = {}
        jobs = []
        for face in faces:
            offered = self._offered.get(face.key)
            ff, job = offered if offered is not None and offered[0].face is face else self._plan_face(face)
            files[face.key] = ff
            if job is not None:
                jobs.append(job)
        return files, jobs

    def _plan_face(self, face: Face) -> tuple[FaceFiles, RasterJob | None]:
        key = self.key(face)
        pdf = self.cache.path(key, ".pdf")
        png = self.cache.path(f"{key}-{self.options.dpi}", ".png") if self.options.png else None
        need_pdf = not pdf.is_file()
        need_png = png is not None and not png.is_file()
        job = (RasterJob(svg=face.svg, pdf=pdf if need_pdf else None, png=png if need_png else None,
                         dpi=self.options.dpi, key=face.key) if need_pdf or need_png else None)
        return FaceFiles(face, pdf, png), job

    def offer(self, face: Face, workers: Workers) -> None:
        """Queue one face's render as soon as it is drawn (the card stage's `on_face`), while the
        next is drawn, once the command's workers are ready (until then, queuing would wait for
        them to be made: the faces offered meanwhile are queued with the next one offered after,
        or by `submit`). `plan` and `submit` take the faces offered into account."""
        if not workers.parallel:
            return
        planned = self._offered[face.key] = self._plan_face(face)
        if planned[1] is not None:
            self._held.append(planned[1])
        if workers.ready:
            for job in self._held:
                self._queued[cast(Future, workers.submit(_run, job))] = job
            self._held.clear()

    def submit(self, jobs: list[RasterJob], workers: Workers) -> dict[Future, RasterJob] | None:
        """Queue the jobs (those not `offer`ed and queued already) in a build's shared workers,
        beside its other work; `wait` collects them. With one worker nothing is queued: `wait`
        renders them here."""
        if not jobs or not workers.parallel:
            return None
        queued = {id(job) for job in self._queued.values()}
        for job in jobs:
            if id(job) not in queued:
                self._queued[cast(Future, workers.submit(_run, job))] = job  # parallel: always a Future
        self._held.clear()
        return dict(self._queued)

    def wait(self, jobs: list[RasterJob], queued: dict[Future, RasterJob] | None) -> None:
        """Render the jobs (or wait for the queued ones), showing a progress bar."""
        if not jobs:
            return
        self.progress.start("Rendering cards", len(jobs))
        try:
            if queued is None:
                rasterise_jobs(jobs, workers=self.workers or self.options.workers,
                               on_done=lambda job: self.progress.advance(),
                               fonts_dir=self.project.fonts_dir, cache_dir=self.project.cache_dir / "fontconfig")
            else:
                try:
                    _collect(dict(queued), lambda job: self.progress.advance())
                except BaseException:
                    for future in queued:  # the first failure stops the renders not yet started
                        future.cancel()
                    raise
        finally:
            self.progress.stop()

    def publish(self, files: dict[str, FaceFiles], out_dir: Path) -> None:
        """Copy SVG and PNG of every face into the output folder; remove ones no longer built."""
        names = BuildFiles(out_dir)
        svg_dir, png_dir = names.svg_dir, names.png_dir
        wanted_svg, wanted_png = set(), set()
        for key, ff in sorted(files.items()):
            svg_path = names.face_svg(key)
            wanted_svg.add(svg_path.name)
            write_if_changed(svg_path, ff.face.svg.encode("utf-8"))
            if ff.png is not None:
                png_path = names.face_png(key)
                wanted_png.add(png_path.name)
                cache_mod.place(ff.png, png_path, link=False)  # a copy: editing it must not edit the cache
        # only files an earlier build wrote and recorded go: a user's own files stay, and so do
        # the PNGs of a `--no-png` build (it did not touch png/ at all)
        remove_stale(svg_dir, wanted_svg)
        if self.options.png:
            remove_stale(png_dir, wanted_png)


def rasterise_jobs(
    jobs: list[RasterJob],
    *,
    workers: Workers | int | None = None,
    on_done: Callable[[RasterJob], None] | None = None,
    fonts_dir: Path = fonts.DEFAULT_FONTS_DIR,
    cache_dir: Path | None = None,
) -> None:
    """Render all jobs, in the command's worker processes (`workers`: its `Workers`, or a number
    of them to start for these jobs alone) unless there is one worker or one job.

    Workers point fontconfig at `fonts_dir` before their first job (a given `Workers` at its own
    fonts). `on_done` runs in this process as each job finishes, in completion order. The first
    failure cancels the jobs not yet started and raises RasterError naming the job's key.
    """
    if not isinstance(workers, Workers):
        count = max(1, min(worker_count(workers), len(jobs)))
        with Workers(count, fonts_dir, cache_dir, RASTER_PRELOAD) as own:
            rasterise_jobs(jobs, workers=own, on_done=on_done)
        return
    if not workers.parallel or len(jobs) <= 1:
        if jobs:
            workers.set_up_here()
        for job in jobs:
            _run_reporting(job)
            if on_done:
                on_done(job)
        return
    pending: dict[Future, RasterJob] = {cast(Future, workers.submit(_run, job)): job for job in jobs}
    try:
        _collect(dict(pending), on_done)
    except BaseException:
        for future in pending:  # the first failure stops the renders not yet started
            future.cancel()
        raise


def _collect(pending: dict[Future, RasterJob], on_done: Callable[[RasterJob], None] | None):
    """Wait for futures as they complete; report each, raise on the first failure."""
    while pending:
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            job = pending.pop(future)
            error = future.exception()
            if isinstance(error, BrokenProcessPool):
                raise RasterError(f"{job.key or 'a render job'}: a render process ended abruptly (out of memory, "
                                  "or killed); run again with --jobs 1 to see the card's own error") from None
            if error is not None:
                raise _job_error(job, error) from None
            if on_done:
                on_done(job)


def _run_reporting(job: RasterJob) -> None:
    try:
        _run(job)
    except RasterError as error:
        raise _job_error(job, error) from None


def _job_error(job: RasterJob, error: BaseException) -> RasterError:
    """The one line the user sees, the same whether the job ran here or in a worker."""
    if isinstance(error, CardgenError):  # keeps its location as a location, for --format json
        return RasterError(f"rendering {job.key or 'a card'} failed: {error.message}", error.loc)
    return RasterError(f"rendering {job.key or 'a card'} failed: {type(error).__name__}: {error}")


def _run(job: RasterJob) -> None:
    """Top-level (picklable) worker entry point. Any failure comes back as a plain RasterError
    (always picklable), never as an exception object the main process cannot rebuild."""
    from .svgconvert import svg_to_files

    try:
        svg_to_files(job.svg, job.pdf, job.png, dpi=job.dpi, size_px=job.size_px)
    except CardgenError as exc:
        raise RasterError(exc.message, exc.loc) from None
    except Exception as exc:
        raise RasterError(f"{type(exc).__name__}: {exc}") from None
