"""The rulebook as a saddle-stitched booklet: `cardgen build --booklet`.

The rulebook is laid out again on booklet pages (A5, or half-Letter for Letter paper) from the
same HTML, with the booklet stylesheet, then imposed two pages a side on the landscape sheet
in saddle-stitch order, padded to a multiple of 4. The padding is not blank: the booklet's HTML
ends with spare pages (rulebook-base.html.j2: a player aid and a back cover, each
marked by its id), laid out once with the rest, and those that fill the padding exactly are
kept; the back cover always ends the booklet when there is room for it. Printed double-sided
(flip on the short edge; the PDF asks print dialogs for that), the stack of sheets is folded
once in the middle and stapled on the fold: the pages then read 1, 2, 3... Written beside the
normal rulebook as `rulebook-booklet-a4.pdf` / `rulebook-booklet-letter.pdf`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import cache as cache_mod
from ..buildtypes import PAPER_SIZES, BuildOptions, FaceFiles, Output, Paper, RenderedSet
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..files import booklet_name
from ..units import mm_to_pt
from .document import Pdf
from .papers import PaperDocument, PendingPdfs, build_papers, start_papers

if TYPE_CHECKING:  # `validate` fills the booklet's HTML (booklet_document) and reads no PDF
    import pikepdf

    from ..render.workers import Workers

CODE_VERSION = "booklet-4"  # bump when this module changes what a booklet looks like
HALVES = {"a4": Paper("A5", 148.0, 210.0), "letter": Paper("Half-Letter", 139.7, 215.9)}  # half of each sheet
# The booklet is laid out on a page 1/SCALE the size of its half sheet and printed at SCALE:
# the rulebook's own layout and figure widths then fit, its 10 pt text prints at 8.2 pt and
# its 16 mm margins at 13 mm, inside what a home printer can print.
SCALE = 0.82
PAGES = {paper: Paper(half.name, round(half.width_mm / SCALE, 2), round(half.height_mm / SCALE, 2))
         for paper, half in HALVES.items()}


# The spare pages the booklet's HTML ends with (ids in rulebook-base.html.j2), in their order, and
# which of them fill 0, 1, 2, 3... padding pages, the first whose pages add up to the padding.
# The aid may be printed twice: a copy for each side of the table.
SPARES = ("booklet-aid", "booklet-back")
SPARE_CHOICES = (("booklet-aid", "booklet-aid", "booklet-back"), ("booklet-aid", "booklet-back"),
                 ("booklet-back",), ())


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


def spare_pages(pdf: pikepdf.Pdf) -> dict[str, range]:
    """The spare pages at the end of a laid-out booklet, by id: where each starts (its named
    destination) up to the next one's start or the end. Absent when the template left it out."""
    names = pdf.Root.get("/Names")
    if names is None or "/Dests" not in names:
        return {}
    import pikepdf

    dests = pikepdf.NameTree(names.Dests)
    index = {_objgen(page.obj): n for n, page in enumerate(pdf.pages)}
    starts = {name: index[_objgen(dests[name][0])] for name in SPARES if name in dests}
    ends = sorted(starts.values()) + [len(pdf.pages)]
    return {name: range(start, ends[ends.index(start) + 1]) for name, start in starts.items()}


def _objgen(obj: pikepdf.Object) -> tuple[int, int]:
    """A page object's number and generation: how a destination names its page."""
    number, generation = obj.objgen
    return number, generation


def booklet_order(pdf: pikepdf.Pdf) -> list[int]:
    """The laid-out pages (from 0) the booklet prints: the rules, then the spare pages that fill
    its last sheet exactly (blank pages only when no choice does)."""
    spares = spare_pages(pdf)
    body = min((r.start for r in spares.values()), default=len(pdf.pages))
    free = padded(body) - body
    for choice in SPARE_CHOICES:
        if all(name in spares for name in choice) and sum(len(spares[name]) for name in choice) == free:
            return list(range(body)) + [n for name in choice for n in spares[name]]
    return list(range(body))


def impose(pdf_data: bytes, sheet: Paper) -> bytes:
    """Booklet pages (one per PDF page) -> landscape sheets in saddle-stitch order, two up; of the
    spare pages at the end (`spare_pages`), only those `booklet_order` chooses."""
    import pikepdf

    width, height = mm_to_pt(sheet.height_mm), mm_to_pt(sheet.width_mm)  # landscape
    with pikepdf.open(io.BytesIO(pdf_data)) as src, pikepdf.new() as out:
        order = booklet_order(src)
        for side in saddle_stitch(len(order)):
            page = out.add_blank_page(page_size=(width, height))
            for half, number in enumerate((side.left, side.right)):
                if number is None:
                    continue
                source = src.pages[order[number - 1]]
                box = [float(v) for v in source.mediabox]
                w, h = (box[2] - box[0]) * SCALE, (box[3] - box[1]) * SCALE
                x = half * width / 2 + (width / 2 - w) / 2  # centred in its half (A5 is 0.5 mm short)
                y = (height - h) / 2
                _place(page, source, number, pikepdf.Rectangle(x, y, x + w, y + h))
        out.Root.ViewerPreferences = pikepdf.Dictionary(Duplex=pikepdf.Name.DuplexFlipShortEdge)
        out.docinfo = out.make_indirect(pikepdf.Dictionary({k: v for k, v in src.docinfo.items()
                                                            if k in ("/Title", "/Author", "/Creator")}))
        buffer = io.BytesIO()
        out.save(buffer, deterministic_id=True, compress_streams=True)
        return buffer.getvalue()


def _place(page: pikepdf.Page, source: pikepdf.Page, number: int, rect: pikepdf.Rectangle) -> None:
    """`source` drawn into `rect` of `page` as a form XObject named after its page number.

    Not `page.add_overlay`: that names the XObject at random, and the same rulebook would
    make different bytes on every build.
    """
    import pikepdf

    form = source.as_form_xobject()
    name = page.add_resource(form, pikepdf.Name.XObject, pikepdf.Name(f"/Page{number}"))
    page.contents_add(b"q\n" + page.calc_form_xobject_placement(form, name, rect) + b"Q\n")


def booklet_document(snapshot: Snapshot) -> PaperDocument:
    """The rulebook on booklet pages, from the rulebook's own template with `booklet` set, imposed
    two pages a side of the paper."""
    return PaperDocument("booklet", "rulebook booklet", snapshot.game.file.rulebook or "", CODE_VERSION,
                         file=booklet_name, page=PAGES.__getitem__,
                         extra=lambda: {"booklet": True}, shape=_imposed,
                         label=lambda paper: f"rulebook booklet, {HALVES[paper].name} pages on {paper.upper()}")


def build_booklets(project: Project, snapshot: Snapshot, rendered: RenderedSet, options: BuildOptions,
                   out_dir: Path, manifest: cache_mod.Manifest,
                   files: dict[str, FaceFiles] | None = None) -> list[Output]:
    """One booklet per paper in `options.papers`, skipped when its inputs are unchanged.

    `files`: the build's card renders, whose PDFs are the card pictures (else rendered here).
    The pipeline uses `start_booklets` instead, to lay them out beside the cards and the rulebook.
    """
    return build_papers(project, snapshot, rendered, booklet_document(snapshot), options.papers, out_dir, manifest,
                        files or {}, jobs=1)


def start_booklets(project: Project, snapshot: Snapshot, rendered: RenderedSet, options: BuildOptions,
                   out_dir: Path, manifest: cache_mod.Manifest, workers: Workers) -> PendingPdfs:
    """Render each paper's booklet HTML here and queue the stale ones' layout in `workers`;
    `finish` imposes the laid-out pages two up and writes the booklets."""
    return start_papers(project, snapshot, rendered, booklet_document(snapshot), options.papers, out_dir, manifest,
                        workers)


def _imposed(paper: str, pdf: Pdf) -> tuple[bytes, int]:
    """The laid-out booklet pages on the paper's sheets, and the count of printed sides."""
    import pikepdf

    with pikepdf.open(io.BytesIO(pdf.data)) as laid_out:
        printed = len(booklet_order(laid_out))
    return impose(pdf.data, PAPER_SIZES[paper]), len(saddle_stitch(printed))
