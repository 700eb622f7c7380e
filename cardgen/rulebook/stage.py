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
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pikepdf

from .. import cache as cache_mod
from ..atomic import write_bytes
from ..buildtypes import PAPER_SIZES, BuildOptions, FaceFiles, Output, RenderedSet
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..render.fonts import use_project_fonts
from .document import rulebook_html, write_rulebook_pdf

CODE_VERSION = "rulebook-1"  # bump when this package changes what a rulebook looks like


def build_rulebooks(project: Project, snapshot: Snapshot, rendered: RenderedSet, files: dict[str, FaceFiles],
                    options: BuildOptions, out_dir: Path, manifest: cache_mod.Manifest) -> list[Output]:
    """One rulebook PDF per paper in `options.papers`.

    Card pictures come from each face's SVG (vector) rather than from `files`, the cached
    PDF/PNG renders, which the rulebook does not need.
    """
    template = snapshot.game.file.rulebook
    if not template:
        return []
    outputs: dict[str, Output] = {}
    stale: dict[str, tuple[Path, str, object]] = {}
    templates = _templates_digest(project, snapshot)
    for paper in options.papers:
        doc = rulebook_html(project, snapshot, rendered, template, PAPER_SIZES[paper])
        out = out_dir / f"rulebook-{paper}.pdf"
        inputs = cache_mod.digest_of(CODE_VERSION, cache_mod.toolchain_version(), paper, doc.html, templates,
                                     cache_mod.folder_digest(str(project.fonts_dir)))
        if manifest.fresh(out, inputs):
            outputs[paper] = Output(out, f"rulebook, {paper.upper()}", _pages(out), rebuilt=False)
        else:
            stale[paper] = (out, inputs, doc)
    for paper, pdf in _lay_out(project, {p: doc for p, (_, _, doc) in stale.items()}, options.workers).items():
        out, inputs, _ = stale[paper]
        write_bytes(out, pdf.data)
        manifest.record(out, inputs)
        outputs[paper] = Output(out, f"rulebook, {paper.upper()}", pdf.pages, warnings=list(pdf.warnings))
    return [outputs[p] for p in options.papers]


def _lay_out(project: Project, docs: dict, workers: int | None) -> dict:
    """weasyprint's layout is the slowest step of a build: papers go to separate processes."""
    if len(docs) < 2 or workers == 1 or (os.cpu_count() or 1) < 2:
        return {paper: write_rulebook_pdf(project, doc) for paper, doc in docs.items()}
    context = multiprocessing.get_context("spawn")  # a fresh process sets up its own fonts
    with ProcessPoolExecutor(max_workers=min(len(docs), workers or os.cpu_count() or 1), mp_context=context,
                             initializer=use_project_fonts, initargs=(project.fonts_dir, _font_cache(project))) as pool:
        futures = {paper: pool.submit(write_rulebook_pdf, project, doc) for paper, doc in docs.items()}
        return {paper: future.result() for paper, future in futures.items()}


def _font_cache(project: Project) -> Path:
    return project.build_dir / ".cache" / "fontconfig"


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

