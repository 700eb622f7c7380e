"""The rulebook as a saddle-stitched booklet: `cardgen build --booklet`.

The rulebook is laid out again on booklet pages (A5, or half-Letter for Letter paper) from the
same HTML, with the booklet stylesheet, then imposed two pages a side on the landscape sheet
in saddle-stitch order, padded with blank pages to a multiple of 4. Printed double-sided
(flip on the short edge; the PDF asks print dialogs for that), the stack of sheets is folded
once in the middle and stapled on the fold: the pages then read 1, 2, 3... Written beside the
normal rulebook as `rulebook-booklet-a4.pdf` / `rulebook-booklet-letter.pdf`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import pikepdf

from .. import cache as cache_mod
from ..atomic import write_bytes
from ..buildtypes import PAPER_SIZES, BuildOptions, FaceFiles, Output, Paper, RenderedSet
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..render.fonts import fonts_digest
from ..render.workers import Workers
from ..units import mm_to_pt
from .document import rulebook_html, with_cards, write_rulebook_pdf

CODE_VERSION = "booklet-2"  # bump when this module changes what a booklet looks like
HALVES = {"a4": Paper("A5", 148.0, 210.0), "letter": Paper("Half-Letter", 139.7, 215.9)}  # half of each sheet
# The booklet is laid out on a page 1/SCALE the size of its half sheet and printed at SCALE:
# the rulebook's own layout and figure widths then fit, its 10 pt text prints at 8.2 pt and
# its 16 mm margins at 13 mm, inside what a home printer can print.
SCALE = 0.82
PAGES = {paper: Paper(half.name, round(half.width_mm / SCALE, 2), round(half.height_mm / SCALE, 2))
         for paper, half in HALVES.items()}


@dataclass(frozen=True)
class Side:
    """One side of a printed sheet: the booklet pages on its left and right half (None: blank)."""

    left: int | None
    right: int | None


def padded(pages: int) -> int:
    """Booklet pages after padding: sheets of 4 pages each, at least one sheet."""
    return max(4, -(-pages // 4) * 4)


def saddle_stitch(pages: int) -> list[Side]:
    """The sides of the sheets, front then back of each, outermost sheet first (pages from 1).

    Sheet k (from 0) of an n-page booklet carries n-2k and 2k+1 on its front and 2k+2 and
    n-2k-1 on its back, so the folded stack reads in order. Pages past `pages` are blank.
    """
    n = padded(pages)
    sides = []
    for k in range(n // 4):
        sides.append(Side(n - 2 * k, 2 * k + 1))
        sides.append(Side(2 * k + 2, n - 2 * k - 1))
    return [Side(s.left if s.left <= pages else None, s.right if s.right <= pages else None)  # type: ignore[operator]
            for s in sides]  # every side is numbered here; None marks blanks only in the result


def impose(pdf_data: bytes, sheet: Paper) -> bytes:
    """Booklet pages (one per PDF page) -> landscape sheets in saddle-stitch order, two up."""
    width, height = mm_to_pt(sheet.height_mm), mm_to_pt(sheet.width_mm)  # landscape
    with pikepdf.open(io.BytesIO(pdf_data)) as src, pikepdf.new() as out:
        for side in saddle_stitch(len(src.pages)):
            page = out.add_blank_page(page_size=(width, height))
            for half, number in enumerate((side.left, side.right)):
                if number is None:
                    continue
                source = src.pages[number - 1]
                box = [float(v) for v in source.mediabox]
                w, h = (box[2] - box[0]) * SCALE, (box[3] - box[1]) * SCALE
                x = half * width / 2 + (width / 2 - w) / 2  # centred in its half (A5 is 0.5 mm short)
                y = (height - h) / 2
                page.add_overlay(source, pikepdf.Rectangle(x, y, x + w, y + h))
        out.Root.ViewerPreferences = pikepdf.Dictionary(Duplex=pikepdf.Name.DuplexFlipShortEdge)
        out.docinfo = out.make_indirect(pikepdf.Dictionary({k: v for k, v in src.docinfo.items()
                                                            if k in ("/Title", "/Author", "/Creator")}))
        buffer = io.BytesIO()
        out.save(buffer, deterministic_id=True, compress_streams=True)
        return buffer.getvalue()


def build_booklets(project: Project, snapshot: Snapshot, rendered: RenderedSet, options: BuildOptions,
                   out_dir: Path, manifest: cache_mod.Manifest,
                   files: dict[str, FaceFiles] | None = None) -> list[Output]:
    """One booklet per paper in `options.papers`, skipped when its inputs are unchanged.

    `files`: the build's card renders, whose PDFs are the card pictures (else rendered here).
    """
    template = snapshot.game.file.rulebook
    if not template:
        return []
    outputs = []
    for paper in options.papers:
        doc = rulebook_html(project, snapshot, rendered, template, PAGES[paper], extra={"booklet": True})
        out = out_dir / f"rulebook-booklet-{paper}.pdf"
        inputs = cache_mod.digest_of(CODE_VERSION, cache_mod.toolchain_version(), paper, doc.html,
                                     _templates_digest(project, snapshot), fonts_digest(project.fonts_dir))
        what = f"rulebook booklet, {HALVES[paper].name} pages on {paper.upper()}"
        if manifest.fresh(out, inputs):
            with pikepdf.open(out) as done:
                outputs.append(Output(out, what, len(done.pages), rebuilt=False))
            continue
        pdf = with_cards(project, _lay_out(project, doc), files or {})
        data = impose(pdf.data, PAPER_SIZES[paper])
        write_bytes(out, data)
        manifest.record(out, inputs)
        outputs.append(Output(out, what, len(saddle_stitch(pdf.pages)), warnings=list(pdf.warnings)))
    return outputs


def _templates_digest(project: Project, snapshot: Snapshot) -> str:
    """The templates and stylesheets of both folders, hashed afresh (people edit them between builds)."""
    import hashlib

    h = hashlib.sha256()
    folders = (project.templates_dir / snapshot.game.id, project.templates_dir / "common")
    for path in sorted(p for folder in folders for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(project.templates_dir)).encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def _lay_out(project: Project, doc):
    """weasyprint's layout with the project's fonts set up, as the rulebook stage does it."""
    with Workers(1, project.fonts_dir, project.cache_dir / "fontconfig") as workers:
        return workers.submit(write_rulebook_pdf, project, doc).result()
