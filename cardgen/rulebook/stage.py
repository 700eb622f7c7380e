"""Rulebook stage: the game's Jinja2 HTML template + print stylesheet -> PDF, per paper size.

The entry template is named by game.yml (`rulebook:`) and lives in templates/<game>/; it
usually extends templates/common/rulebook-base.html.j2, which sets up the pages, fonts,
contents, footer and the generic appendices. Templates read the version's data only through
the helpers in `helpers.py`, which fail the build on any id the data lacks, so a rulebook
cannot contradict its version. weasyprint loads files only from the project (`fetch.py`).

Output is `rulebook-a4.pdf` / `rulebook-letter.pdf`, byte-identical for identical inputs, and
skipped when the hash of its inputs (the rendered HTML, the template folders, the fonts, the
toolchain) matches the output folder's manifest.
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import pikepdf

from .. import cache as cache_mod
from ..atomic import write_bytes
from ..buildtypes import PAPER_SIZES, BuildOptions, FaceFiles, Output, RenderedSet, Timing
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..workers import Later, Workers
from .document import Pdf, rulebook_html, write_rulebook_pdf

CODE_VERSION = "rulebook-1"  # bump when this package changes what a rulebook looks like


def build_rulebooks(project: Project, snapshot: Snapshot, rendered: RenderedSet, files: dict[str, FaceFiles],
                    options: BuildOptions, out_dir: Path, manifest: cache_mod.Manifest) -> list[Output]:
    """One rulebook PDF per paper in `options.papers`, each paper in its own process.

    Card pictures come from each face's SVG (vector) rather than from `files`, the cached
    PDF/PNG renders, which the rulebook does not need. The pipeline uses `start_rulebooks`
    instead, to lay the rulebooks out while the cards are still rendering.
    """
    count = options.workers if len(options.papers) > 1 else 1  # one paper: no process to start
    with Workers(count, project.fonts_dir, _font_cache(project)) as workers:
        return start_rulebooks(project, snapshot, rendered, options, out_dir, manifest, workers).finish()


@dataclass
class _Layout:
    out: Path
    inputs: str
    future: Future | Later
    html_s: float


class PendingRulebooks:
    """Rulebooks being laid out in the build's workers; `finish` waits and writes them."""

    def __init__(self, papers: tuple[str, ...], manifest: cache_mod.Manifest):
        self.papers = papers
        self.manifest = manifest
        self.fresh: dict[str, Output] = {}
        self.layouts: dict[str, _Layout] = {}
        self.timings: list[Timing] = []  # complete once finish() returns

    def finish(self) -> list[Output]:
        outputs = dict(self.fresh)
        for paper, job in self.layouts.items():
            pdf: Pdf = job.future.result()
            write_bytes(job.out, pdf.data)
            self.manifest.record(job.out, job.inputs)
            outputs[paper] = Output(job.out, f"rulebook, {paper.upper()}", pdf.pages, warnings=list(pdf.warnings))
            self.timings.append(Timing(f"rulebook {paper.upper()}", job.html_s + pdf.layout_s + pdf.write_s,
                                       f"HTML {job.html_s:.2f} s, layout {pdf.layout_s:.2f} s, "
                                       f"PDF {pdf.write_s:.2f} s, {pdf.pages} pages"))
        return [outputs[p] for p in self.papers if p in outputs]


def start_rulebooks(project: Project, snapshot: Snapshot, rendered: RenderedSet, options: BuildOptions,
                    out_dir: Path, manifest: cache_mod.Manifest, workers: Workers) -> PendingRulebooks:
    """Render each paper's HTML here (cheap, and it decides whether the PDF is stale) and hand
    the stale ones to `workers` for weasyprint's layout, the slow part."""
    pending = PendingRulebooks(options.papers, manifest)
    template = snapshot.game.file.rulebook
    if not template:
        return pending
    templates = _templates_digest(project, snapshot)
    for paper in options.papers:
        started = time.perf_counter()
        doc = rulebook_html(project, snapshot, rendered, template, PAPER_SIZES[paper])
        out = out_dir / f"rulebook-{paper}.pdf"
        inputs = cache_mod.digest_of(CODE_VERSION, cache_mod.toolchain_version(), paper, doc.html, templates,
                                     cache_mod.folder_digest(str(project.fonts_dir)))
        html_s = time.perf_counter() - started
        if manifest.fresh(out, inputs):
            pending.fresh[paper] = Output(out, f"rulebook, {paper.upper()}", _pages(out), rebuilt=False)
            pending.timings.append(Timing(f"rulebook {paper.upper()}", html_s, "HTML only: the PDF is up to date"))
        else:
            pending.layouts[paper] = _Layout(out, inputs, workers.submit(write_rulebook_pdf, project, doc), html_s)
    return pending


def _font_cache(project: Project) -> Path:
    return project.cache_dir / "fontconfig"


def _templates_digest(project: Project, snapshot: Snapshot) -> str:
    """Everything the HTML pulls in besides itself: stylesheets and templates of both folders.

    Hashed afresh on every build (not cached per process like fonts): templates are what
    people edit between two builds.
    """
    h = hashlib.sha256()
    folders = (project.templates_dir / snapshot.game.id, project.templates_dir / "common")
    for path in sorted(p for folder in folders for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(project.templates_dir)).encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def _pages(path: Path) -> int:
    with pikepdf.open(path) as pdf:
        return len(pdf.pages)

