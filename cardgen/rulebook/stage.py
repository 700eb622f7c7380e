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

import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import pikepdf

from .. import cache as cache_mod
from ..atomic import write_bytes
from ..buildtypes import PAPER_SIZES, BuildOptions, FaceFiles, Output, RenderedSet, Timing
from ..builtin import TEMPLATES_DIR
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..outputs import keeps
from ..render.fonts import fonts_digest
from ..render.workers import Later, Workers
from .document import Pdf, RulebookDocument, rulebook_html, with_cards, write_rulebook_pdf

CODE_VERSION = "rulebook-2"  # bump when this package changes what a rulebook looks like


def build_rulebooks(project: Project, snapshot: Snapshot, rendered: RenderedSet, files: dict[str, FaceFiles],
                    options: BuildOptions, out_dir: Path, manifest: cache_mod.Manifest) -> list[Output]:
    """One rulebook PDF per paper in `options.papers`, each paper in its own process.

    Card pictures are the faces' vector PDFs in `files` (the rasterise stage's renders);
    faces missing there are rendered first. The pipeline uses `start_rulebooks` instead, to
    lay the rulebooks out while the cards are still rendering.
    """
    count = options.workers if len(options.papers) > 1 else 1  # one paper: no process to start
    with Workers(count, project.fonts_dir, _font_cache(project)) as workers:
        return start_rulebooks(project, snapshot, rendered, options, out_dir, manifest, workers).finish(files)


@dataclass
class _Layout:
    out: Path
    inputs: str
    future: Future | Later
    html_s: float


class PendingPdfs:
    """Documents (a rulebook, the designer's notes) being laid out in the build's workers, one
    per paper; `finish` waits for them, puts the cards in and writes them.

    `shape`: what becomes of a laid-out document before it is written, per paper (the booklet
    imposes its pages two up): the bytes to write and the page count to report.
    """

    def __init__(self, project: Project, name: str, what: str, papers: tuple[str, ...],
                 manifest: cache_mod.Manifest, shape: Callable[[str, Pdf], tuple[bytes, int]] | None = None,
                 labels: dict[str, str] | None = None):
        self.project = project
        self.name = name  # the --timings stage: "rulebook", "notes"
        self.what = what  # the build summary's words: "rulebook", "designer's notes"
        self.papers = papers
        self.manifest = manifest
        self.shape = shape
        self.labels = labels or {}  # a paper's own words in the summary, if not "<what>, <PAPER>"
        self.fresh: dict[str, Output] = {}
        self.layouts: dict[str, _Layout] = {}
        self.html: dict[str, str] = {}  # each paper's HTML, up to date or not
        self.timings: list[Timing] = []  # complete once finish() returns

    def up_to_date(self, paper: str, out: Path, html_s: float) -> None:
        self.fresh[paper] = Output(out, self._label(paper), _pages(out), rebuilt=False)
        self.timings.append(Timing(f"{self.name} {paper.upper()}", html_s, "HTML only: the PDF is up to date"))

    def lay_out(self, paper: str, out: Path, inputs: str, doc: RulebookDocument, workers: Workers,
                html_s: float) -> None:
        if keeps(out):  # the user edited it since cardgen wrote it: it stays (and is said so), unmade
            self.timings.append(Timing(f"{self.name} {paper.upper()}", html_s, "HTML only: the PDF is kept"))
            return
        self.layouts[paper] = _Layout(out, inputs, workers.submit(write_rulebook_pdf, self.project, doc), html_s)

    def finish(self, files: dict[str, FaceFiles]) -> list[Output]:
        """Wait for the layouts; `files`: the build's card renders (the cards' PDFs)."""
        outputs = dict(self.fresh)
        for paper, job in self.layouts.items():
            pdf: Pdf = with_cards(self.project, job.future.result(), files)
            shaped = time.perf_counter()
            data, pages = self.shape(paper, pdf) if self.shape else (pdf.data, pdf.pages)
            shape_s = time.perf_counter() - shaped
            write_bytes(job.out, data)
            self.manifest.record(job.out, job.inputs)
            outputs[paper] = Output(job.out, self._label(paper), pages, warnings=list(pdf.warnings))
            total = job.html_s + pdf.layout_s + pdf.write_s + pdf.cards_s + shape_s
            self.timings.append(Timing(f"{self.name} {paper.upper()}", total,
                                       f"HTML {job.html_s:.2f} s, layout {pdf.layout_s:.2f} s, "
                                       f"PDF {pdf.write_s:.2f} s, cards {pdf.cards_s:.2f} s, {pdf.pages} pages"
                                       + (f", imposed {shape_s:.2f} s" if self.shape else "")))
        return [outputs[p] for p in self.papers if p in outputs]

    def _label(self, paper: str) -> str:
        return self.labels.get(paper, f"{self.what}, {paper.upper()}")


def start_rulebooks(project: Project, snapshot: Snapshot, rendered: RenderedSet, options: BuildOptions,
                    out_dir: Path, manifest: cache_mod.Manifest, workers: Workers) -> PendingPdfs:
    """Render each paper's HTML here (cheap, and it decides whether the PDF is stale) and hand
    the stale ones to `workers` for weasyprint's layout, the slow part."""
    pending = PendingPdfs(project, "rulebook", "rulebook", options.papers, manifest)
    template = snapshot.game.file.rulebook
    if not template:
        return pending
    templates = templates_digest(project, snapshot)
    for paper in options.papers:
        started = time.perf_counter()
        doc = rulebook_html(project, snapshot, rendered, template, PAPER_SIZES[paper])
        pending.html[paper] = doc.html
        out = out_dir / f"rulebook-{paper}.pdf"
        inputs = cache_mod.digest_of(CODE_VERSION, cache_mod.toolchain_version(), paper, doc.html, templates,
                                     fonts_digest(project.fonts_dir))
        html_s = time.perf_counter() - started
        if manifest.fresh(out, inputs):
            pending.up_to_date(paper, out, html_s)
        else:
            pending.lay_out(paper, out, inputs, doc, workers, html_s)
    return pending


def has_rulebook_words(snapshot: Snapshot) -> bool:
    """A rulebook is printed in the snapshot's language only if the game has its rulebook
    catalog (the source language always has)."""
    translation = snapshot.translation
    return translation is None or "rulebook" in translation.domains


def _font_cache(project: Project) -> Path:
    return project.cache_dir / "fontconfig"


def templates_digest(project: Project, snapshot: Snapshot) -> str:
    """Everything the HTML pulls in besides itself: stylesheets and templates of both folders.

    Hashed afresh on every build (not cached per process like fonts): templates are what
    people edit between two builds.
    """
    folders = (project.templates_dir / snapshot.game.id, project.templates_dir / "common")
    digest = cache_mod.tree_digest(project.templates_dir, *folders)
    if TEMPLATES_DIR.resolve() != folders[1].resolve():  # the built-ins are not the project's own
        digest = cache_mod.digest_of(digest, cache_mod.tree_digest(TEMPLATES_DIR, TEMPLATES_DIR))
    return digest


def _pages(path: Path) -> int:
    with pikepdf.open(path) as pdf:
        return len(pdf.pages)

