"""Rulebook stage: the game's Jinja2 HTML template + print stylesheet -> PDF, per paper size.

The entry template is named by game.yml (`rulebook:`) and lives in templates/<game>/; it
usually extends templates/common/rulebook-base.html.j2, which sets up the pages, fonts,
contents, footer and the generic appendices. Templates read the version's data only through
the helpers in `helpers.py`, which fail the build on any id the data lacks, so a rulebook
cannot contradict its version. weasyprint loads files only from the project (`fetch.py`).

Output is `rulebook-a4.pdf` / `rulebook-letter.pdf`, byte-identical for identical inputs, and
skipped when the hash of its inputs (the rendered HTML, the template folders, the fonts, the
toolchain) matches the output folder's manifest: the per-paper work is `papers.start_papers`,
shared with the booklet and the designer's notes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .. import cache as cache_mod
from ..buildtypes import BuildOptions, FaceFiles, Output, RenderedSet
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..files import rulebook_name
from .papers import PaperDocument, PendingPdfs, build_papers, start_papers

if TYPE_CHECKING:  # the build's pool, which `validate` never starts
    from ..render.workers import Workers

CODE_VERSION = "rulebook-2"  # bump when this package changes what a rulebook looks like


def rulebook_document(snapshot: Snapshot) -> PaperDocument:
    """The players' rulebook, on the paper itself."""
    return PaperDocument("rulebook", "rulebook", snapshot.game.file.rulebook or "", CODE_VERSION,
                         file=rulebook_name)


def build_rulebooks(project: Project, snapshot: Snapshot, rendered: RenderedSet, files: dict[str, FaceFiles],
                    options: BuildOptions, out_dir: Path, manifest: cache_mod.Manifest) -> list[Output]:
    """One rulebook PDF per paper in `options.papers`, each paper in its own process.

    Card pictures are the faces' vector PDFs in `files` (the rasterise stage's renders);
    faces missing there are rendered first. The pipeline uses `start_rulebooks` instead, to
    lay the rulebooks out while the cards are still rendering.
    """
    return build_papers(project, snapshot, rendered, rulebook_document(snapshot), options.papers, out_dir, manifest,
                        files, jobs=options.workers)


def start_rulebooks(project: Project, snapshot: Snapshot, rendered: RenderedSet, options: BuildOptions,
                    out_dir: Path, manifest: cache_mod.Manifest, workers: Workers) -> PendingPdfs:
    """Render each paper's HTML here (cheap, and it decides whether the PDF is stale) and hand
    the stale ones to `workers` for weasyprint's layout, the slow part."""
    return start_papers(project, snapshot, rendered, rulebook_document(snapshot), options.papers, out_dir, manifest,
                        workers)


def has_rulebook_words(snapshot: Snapshot) -> bool:
    """A rulebook is printed in the snapshot's language only if the game has its rulebook
    catalog (the source language always has)."""
    translation = snapshot.translation
    return translation is None or "rulebook" in translation.domains
