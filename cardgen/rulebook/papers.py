"""The one stage for documents laid out per paper: the rulebook, its booklet, the designer's notes.

Each of them is a `PaperDocument`: a template, what the output file is called for a paper, the
page it is laid out on and what becomes of the laid-out pages. `start_papers` does for each
paper what every such document needs: fill the template (here, cheap, and it decides whether
the PDF is stale), hash its inputs (`paper_inputs`: the HTML, `templates_digest`, the fonts, the
toolchain), skip the paper when the output folder's manifest holds that hash, and otherwise hand
weasyprint's layout, the slow part, to the build's workers. `PendingPdfs.finish` waits for the
layouts, puts the cards in, shapes and writes the PDFs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import cache as cache_mod
from ..atomic import write_bytes
from ..buildtypes import PAPER_SIZES, FaceFiles, Output, Paper, RenderedSet, Timing
from ..builtin import TEMPLATES_DIR
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..outputs import keeps
from ..render.fonts import fonts_digest
from .document import rulebook_html, with_cards
from .layout import Pdf, Places, RulebookDocument, lay_out

if TYPE_CHECKING:  # the pool is the caller's; `validate` imports this package and starts none
    from concurrent.futures import Future

    from ..render.workers import Later, Workers


def _standard_page(paper: str) -> Paper:
    return PAPER_SIZES[paper]


@dataclass(frozen=True)
class PaperDocument:
    """One kind of document laid out once per paper."""

    name: str  # the --timings stage: "rulebook", "booklet", "notes"
    what: str  # the build summary's words: "rulebook", "designer's notes"
    template: str  # the entry template, looked up in templates/<game>/, then templates/common/
    code_version: str  # part of the inputs hash: bumped when the code changes what the document looks like
    file: Callable[[str], str]  # the output file's name for a paper
    page: Callable[[str], Paper] = _standard_page  # the page laid out for a paper
    extra: Callable[[], dict] | None = None  # more values for the template, made once for all papers
    # what becomes of the laid-out pages before they are written (the booklet imposes them two
    # up): the bytes to write and the page count to report
    shape: Callable[[str, Pdf], tuple[bytes, int]] | None = None
    label: Callable[[str], str] | None = None  # a paper's own words in the summary, if not "<what>, <PAPER>"


@dataclass
class _Layout:
    out: Path
    inputs: str
    future: Future | Later
    html_s: float


class PendingPdfs:
    """A document being laid out in the build's workers, one layout per paper; `finish` waits
    for them, puts the cards in, shapes and writes them."""

    def __init__(self, project: Project, document: PaperDocument, papers: tuple[str, ...],
                 manifest: cache_mod.Manifest):
        self.project = project
        self.document = document
        self.papers = papers
        self.manifest = manifest
        self.fresh: dict[str, Output] = {}
        self.layouts: dict[str, _Layout] = {}
        self.html: dict[str, str] = {}  # each paper's HTML, up to date or not
        self.missing: dict[str, None] = {}  # strings the catalogs lacked, in the order first met
        self.timings: list[Timing] = []  # complete once finish() returns

    def up_to_date(self, paper: str, out: Path, html_s: float) -> None:
        self.fresh[paper] = Output(out, self._label(paper), _pages(out), rebuilt=False)
        self.timings.append(Timing(self._stage(paper), html_s, "HTML only: the PDF is up to date"))

    def lay_out(self, paper: str, out: Path, inputs: str, doc: RulebookDocument, workers: Workers,
                html_s: float) -> None:
        if keeps(out):  # the user edited it since cardgen wrote it: it stays (and is said so), unmade
            self.timings.append(Timing(self._stage(paper), html_s, "HTML only: the PDF is kept"))
            return
        self.layouts[paper] = _Layout(out, inputs, workers.submit(lay_out, Places.of(self.project), doc), html_s)

    def finish(self, files: dict[str, FaceFiles]) -> list[Output]:
        """Wait for the layouts; `files`: the build's card renders (the cards' PDFs)."""
        shape = self.document.shape
        outputs = dict(self.fresh)
        for paper, job in self.layouts.items():
            pdf: Pdf = with_cards(self.project, job.future.result(), files)
            shaped = time.perf_counter()
            data, pages = shape(paper, pdf) if shape else (pdf.data, pdf.pages)
            shape_s = time.perf_counter() - shaped
            write_bytes(job.out, data)
            self.manifest.record(job.out, job.inputs)
            outputs[paper] = Output(job.out, self._label(paper), pages, warnings=list(pdf.warnings))
            total = job.html_s + pdf.layout_s + pdf.write_s + pdf.cards_s + shape_s
            self.timings.append(Timing(self._stage(paper), total,
                                       f"HTML {job.html_s:.2f} s, layout {pdf.layout_s:.2f} s, "
                                       f"PDF {pdf.write_s:.2f} s, cards {pdf.cards_s:.2f} s, {pdf.pages} pages"
                                       + (f", imposed {shape_s:.2f} s" if shape else "")
                                       + (f"; columns balanced by weasyprint alone: {pdf.columns}"
                                          if pdf.columns else "")))
        return [outputs[p] for p in self.papers if p in outputs]

    def _stage(self, paper: str) -> str:
        return f"{self.document.name} {paper.upper()}"

    def _label(self, paper: str) -> str:
        label = self.document.label
        return label(paper) if label else f"{self.document.what}, {paper.upper()}"


def start_papers(project: Project, snapshot: Snapshot, rendered: RenderedSet, document: PaperDocument,
                 papers: tuple[str, ...], out_dir: Path, manifest: cache_mod.Manifest,
                 workers: Workers) -> PendingPdfs:
    """Fill `document`'s template for each paper here and queue the stale papers' layout in
    `workers`; the caller `finish`es the returned `PendingPdfs` once the cards are rendered."""
    pending = PendingPdfs(project, document, papers, manifest)
    if not document.template:  # the game has no rulebook
        return pending
    started = time.perf_counter()
    extra = document.extra() if document.extra else None  # timed with the first paper
    templates = templates_digest(project, snapshot)
    for paper in papers:
        doc = rulebook_html(project, snapshot, rendered, document.template, document.page(paper), extra=extra)
        pending.html[paper] = doc.html
        pending.missing.update(dict.fromkeys(doc.missing))
        out = out_dir / document.file(paper)
        inputs = paper_inputs(project, document, paper, doc.html, templates)
        html_s = time.perf_counter() - started
        if manifest.fresh(out, inputs):
            pending.up_to_date(paper, out, html_s)
        else:
            pending.lay_out(paper, out, inputs, doc, workers, html_s)
        started = time.perf_counter()
    return pending


def build_papers(project: Project, snapshot: Snapshot, rendered: RenderedSet, document: PaperDocument,
                 papers: tuple[str, ...], out_dir: Path, manifest: cache_mod.Manifest,
                 files: dict[str, FaceFiles], jobs: int | None = None) -> list[Output]:
    """`start_papers` and `finish` in one, in a pool of its own (the pipeline shares the build's).

    `files`: the build's card renders, whose PDFs are the card pictures (faces missing there are
    rendered first). `jobs`: processes for two papers or more (one paper lays out here).
    """
    from ..render.workers import Workers

    count = jobs if len(papers) > 1 else 1  # one paper: no process to start
    with Workers(count, project.fonts_dir, font_cache(project)) as workers:
        return start_papers(project, snapshot, rendered, document, papers, out_dir, manifest, workers).finish(files)


def paper_inputs(project: Project, document: PaperDocument, paper: str, html: str, templates: str) -> str:
    """The hash of everything a paper's PDF is made from; `templates`: `templates_digest`."""
    return cache_mod.digest_of(document.code_version, cache_mod.toolchain_version(), paper, html, templates,
                               fonts_digest(project.fonts_dir))


def templates_digest(project: Project, snapshot: Snapshot) -> str:
    """Everything the HTML pulls in besides itself: stylesheets and templates of the game's
    folder, the project's common one and cardgen's built-in one.

    Hashed afresh on every build (not cached per process like fonts): templates are what
    people edit between two builds.
    """
    folders = (project.templates_dir / snapshot.game.id, project.templates_dir / "common")
    digest = cache_mod.tree_digest(project.templates_dir, *folders)
    if TEMPLATES_DIR.resolve() != folders[1].resolve():  # the built-ins are not the project's own
        digest = cache_mod.digest_of(digest, cache_mod.tree_digest(TEMPLATES_DIR, TEMPLATES_DIR))
    return digest


def font_cache(project: Project) -> Path:
    """fontconfig's cache for the project fonts, shared by every layout of the project."""
    return project.cache_dir / "fontconfig"


def _pages(path: Path) -> int:
    import pikepdf  # here: `validate` imports this module and reads no PDF

    with pikepdf.open(path) as pdf:
        return len(pdf.pages)
