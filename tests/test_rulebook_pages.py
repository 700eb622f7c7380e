"""Issue 22 item 2, pages that look designed: every players' rulebook of every game, language and
paper, read back as the user gets it. Each page is rasterised (pdftoppm) and its fill measured
(how far down the text block its lowest ink reaches); each page's last text line (pdftotext) is
compared with the rulebook's headings; the booklet's sides are rasterised (pdfium) and read for
blank halves.

`python tests/test_rulebook_pages.py [game[:version[:lang]] ...]` prints the fill figures."""

from __future__ import annotations

import functools
import html
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image

sys.path.insert(0, str(Path(__file__).parent))
from conftest import ROOT, SeedBuilds, poppler, seed_rulebook_html  # noqa: E402

from cardgen.buildtypes import PAPER_SIZES  # noqa: E402

# (game, version, language): every players' rulebook the seeds print (None: the default)
BOOKS = [("kings-blade", "1", None), ("kings-blade", "2", None), ("kings-blade", "3", None),
         ("kings-blade", "3.1", None), ("kings-blade", "3.1", "nl"), ("kings-guild", None, None),
         ("kings-guild", None, "en"), ("way-of-the-blade", None, None), ("one-true-king", None, None),
         ("knightfall", None, None)]
PAPERS = ("a4", "letter")
DPI = 30
MARGIN_TOP_MM, MARGIN_BOTTOM_MM = 16.0, 19.0  # common/rulebook.css @page; the footer is below
INK = 170  # grey level under which a pixel is ink (panel tints are about 240)
FULL_ENOUGH = 2 / 3

# Pages allowed under two thirds, with why: a figure (or a section that must start a page) that
# needs the next page whole. Keyed by (game, version, language, paper) -> {page: reason}.
SHORT_PAGES: dict[tuple, dict[int, str]] = {}


def book_id(book: tuple) -> str:
    return "-".join(part for part in book if part)


@dataclass
class Page:
    number: int  # from 1
    fill: float  # lowest inked row, as a fraction of the text block's height (0: blank)
    last_line: str  # the last line of text above the footer, as pdftotext -layout reads it


def page_fills(pdf: Path, paper_height_mm: float) -> list[float]:
    """Each page's fill: how far down the text block (between the margins) its lowest ink is."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", str(pdf), f"{tmp}/p"], check=True)
        fills = []
        for png in sorted(Path(tmp).glob("p-*.pgm"), key=lambda p: int(p.stem.split("-")[-1])):
            image = Image.open(png)
            width, height = image.size
            px_per_mm = height / paper_height_mm
            top, bottom = round(MARGIN_TOP_MM * px_per_mm), height - round(MARGIN_BOTTOM_MM * px_per_mm)
            ink = image.crop((0, top, width, bottom)).point(lambda v: 255 if v < INK else 0).getbbox()
            fills.append(round(ink[3] / (bottom - top), 3) if ink else 0.0)  # ink[3]: below its lowest inked row
        return fills


def last_lines(pdf: Path, pages: int, paper_width_mm: float, paper_height_mm: float) -> list[str]:
    """Each page's last line of text above the bottom margin (the running footer is not read):
    one pdftotext of the whole document, cropped on every page alike, its pages split at the
    form feeds it ends each with."""
    pt = 72 / 25.4
    text = poppler("pdftotext", "-layout", "-f", "1", "-l", str(pages), "-x", "0", "-y", "0",
                   "-W", str(int(paper_width_mm * pt)), "-H", str(int((paper_height_mm - MARGIN_BOTTOM_MM) * pt)),
                   pdf, "-")
    sides = text.split("\f")
    assert len(sides) == pages + 1 and sides[-1] == "", (pdf, len(sides))  # a form feed ends every page
    lines = []
    for page in sides[:-1]:
        rows = [row.strip() for row in page.splitlines() if row.strip()]
        lines.append(rows[-1] if rows else "")
    return lines


def read_pages(pdf: Path, paper: str) -> list[Page]:
    size = PAPER_SIZES[paper]
    fills = page_fills(pdf, size.height_mm)
    lines = last_lines(pdf, len(fills), size.width_mm, size.height_mm)
    return [Page(n, fill, line) for n, (fill, line) in enumerate(zip(fills, lines, strict=True), start=1)]


def headings(doc_html: str) -> set[str]:
    """The h2 and h3 texts of the rulebook's HTML, as they print (tags dropped, spaces collapsed)."""
    found = re.findall(r"<h([23])\b[^>]*>(.*?)</h\1>", doc_html, re.S)
    return {" ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split()) for _, text in found}


def heading_at_foot(page: Page, titles: set[str]) -> str | None:
    """The heading that ends the page (alone, or as the last line of a column), if one does."""
    for segment in re.split(r"\s{3,}", page.last_line):
        if " ".join(segment.split()) in titles:
            return segment
    return None


class Shelf:
    """The rulebooks of the session's seed builds (conftest.SeedBuilds), each book's HTML and each
    PDF's pages read once for the module: the fill and the heading tests read the same pages."""

    def __init__(self, builds: SeedBuilds):
        self.builds = builds
        self.built: dict[tuple, tuple[dict[str, Path], str]] = {}
        self.names: dict[tuple, str] = {}  # each game's name, as its back cover prints it
        self.read: dict[tuple[Path, str], list[Page]] = {}

    def get(self, book: tuple) -> tuple[dict[str, Path], str]:
        if book not in self.built:
            seed = self.builds.get(*book)
            pdfs = {name: o.path for name, o in seed.outputs.items()}
            self.built[book] = pdfs, seed_rulebook_html(self.builds.project, seed)
            self.names[book] = seed.snapshot.game.name
        return self.built[book]

    def name(self, book: tuple) -> str:
        return self.names[book]

    def pages(self, book: tuple, paper: str) -> list[Page]:
        """The book's rulebook on `paper`, read back page by page (`read_pages`)."""
        pdf = self.get(book)[0][f"rulebook-{paper}.pdf"]
        if (pdf, paper) not in self.read:
            self.read[(pdf, paper)] = read_pages(pdf, paper)
        return self.read[(pdf, paper)]


@pytest.fixture(scope="module")
def shelf(seed_builds: SeedBuilds) -> Shelf:
    return Shelf(seed_builds)


CASES = [pytest.param(book, paper, id=f"{book_id(book)}-{paper}") for book in BOOKS for paper in PAPERS]


@pytest.mark.parametrize("book, paper", CASES)
def test_no_page_but_the_last_is_under_two_thirds_full(shelf, book, paper):
    pages = shelf.pages(book, paper)
    allowed = SHORT_PAGES.get((*book, paper), {})
    short = {p.number: p.fill for p in pages[:-1] if p.fill < FULL_ENOUGH and p.number not in allowed}
    assert not short, f"pages under two thirds full (page: fill): {short}"
    assert pages[-1].fill > 0.05  # the last page holds something


@pytest.mark.parametrize("book, paper", CASES)
def test_no_heading_at_the_foot_of_a_page(shelf, book, paper):
    _, doc_html = shelf.get(book)
    titles = headings(doc_html)
    assert len(titles) >= 4  # the headings were read
    pages = shelf.pages(book, paper)
    feet = {p.number: found for p in pages if (found := heading_at_foot(p, titles))}
    assert not feet, f"headings ending a page (page: heading): {feet}"


@functools.cache  # two tests read the King's Blade's booklets: rasterised once (seed builds are read only)
def sheet_halves_inked(pdf: Path) -> list[tuple[bool, bool]]:
    """For each imposed sheet side, whether its left and its right half hold any ink. pdfium
    renders the sides in the test's process at half pdftoppm's CPU; on every seed booklet (both
    papers, every game and language) it finds the halves pdftoppm finds. The page fills stay
    pdftoppm's (`page_fills`): pdfium's anti-aliasing moves a page's lowest inked row by up to
    0.065 of the text block, about a threshold of 2/3."""
    import pypdfium2

    doc = pypdfium2.PdfDocument(str(pdf))
    try:
        sides = []
        for page in doc:
            image = page.render(scale=DPI / 72, grayscale=True).to_pil()
            page.close()
            width, height = image.size
            sides.append(tuple(image.crop((lo, 0, hi, height)).getextrema()[0] < INK  # its darkest pixel
                               for lo, hi in ((0, width // 2), (width // 2, width))))
        return sides  # type: ignore[return-value]
    finally:
        doc.close()


# Games whose template has no {% block player_aid %} yet: their booklets may still pad with a
# blank side, so they are not held to the no-blank-side promise below (the next test keeps this
# list true: a game that gains a player aid must leave it, and is then tested).
NO_PLAYER_AID: set[str] = set()
BOOKLET_CASES = [pytest.param(book, paper, id=f"{book_id(book)}-{paper}")
                 for book in BOOKS for paper in PAPERS if book[0] not in NO_PLAYER_AID]


def test_the_games_without_a_player_aid_are_the_listed_ones():
    without = {folder.name for folder in (ROOT / "templates").iterdir()
               if (folder / "rulebook.html.j2").is_file()
               and "{% block player_aid %}" not in (folder / "rulebook.html.j2").read_text(encoding="utf-8")}
    assert without == NO_PLAYER_AID


@pytest.mark.parametrize("book, paper", BOOKLET_CASES)
def test_the_booklet_has_no_blank_side_and_ends_with_its_back_cover(shelf, book, paper):
    pdfs, _ = shelf.get(book)
    booklet = pdfs[f"rulebook-booklet-{paper}.pdf"]
    halves = sheet_halves_inked(booklet)
    blank = [f"sheet side {n} {'left' if not left else 'right'}"
             for n, (left, right) in enumerate(halves, start=1) if not (left and right)]
    assert not blank, f"blank booklet pages: {blank}"
    # the outer sheet's front: the back cover on the left (the last page), the cover on the right
    width = float(poppler("pdfinfo", booklet).split("Page size:")[1].split()[0])
    back = poppler("pdftotext", "-f", "1", "-l", "1", "-W", str(int(width / 2)), "-H", "2000", booklet, "-")
    name = " ".join(shelf.name(book).split())
    assert name.lower() in " ".join(back.split()).lower()


def booklet_page_text(booklet: Path, page: int, pages: int) -> str:
    """The text of booklet page `page` (from 1) of a `pages`-page booklet, from its half of its side."""
    from cardgen.rulebook.booklet import saddle_stitch

    side, half = next((n, half) for n, s in enumerate(saddle_stitch(pages), start=1)
                      for half, number in enumerate((s.left, s.right)) if number == page)
    size = poppler("pdfinfo", booklet)
    width, height = (float(v) for v in size.split("Page size:")[1].split()[0:3:2])
    return poppler("pdftotext", "-f", str(side), "-l", str(side), "-x", str(int(half * width / 2)), "-y", "0",
                   "-W", str(int(width / 2)), "-H", str(int(height) + 1), booklet, "-")


@pytest.mark.parametrize("lang, aid", [(None, ("Turn order", "End of the game")),
                                       ("nl", ("Spelverloop", "Einde van het spel"))])
@pytest.mark.parametrize("paper", PAPERS)
def test_the_kings_blade_booklet_has_its_player_aid_and_back_cover_on_both_papers_in_both_languages(
        shelf, paper, lang, aid):
    """Issue 22 item 2: the booklet's padding holds the player aid and the back cover. The Letter
    booklet (half-Letter pages are narrower than A5) once spilt the components' last line onto a
    page of its own and had room for the back cover only, and the Dutch ones for neither aid."""
    book = ("kings-blade", "3.1", lang)
    pdfs, _ = shelf.get(book)
    booklet = pdfs[f"rulebook-booklet-{paper}.pdf"]
    pages = 4 * len(sheet_halves_inked(booklet)) // 2
    back = " ".join(booklet_page_text(booklet, pages, pages).split())
    assert shelf.name(book).lower() in back.lower()  # the back cover ends the booklet
    before = [" ".join(booklet_page_text(booklet, pages - 1, pages).split())]
    if aid[0] not in before[0][:40]:  # the aid may be printed twice (a copy for each side of the table)
        before.append(" ".join(booklet_page_text(booklet, pages - 2, pages).split()))
    for text in before:
        assert text.startswith(aid[0]) and aid[1] in text, text[:200]


def main(args: list[str]) -> None:
    """Print each rulebook's page fills: the figures issue 22 asks for."""
    wanted = [tuple((arg.split(":") + [None, None])[:3]) for arg in args] or BOOKS
    wanted = [tuple(part or None for part in book) for book in wanted]
    with tempfile.TemporaryDirectory() as tmp:
        shelf = Shelf(SeedBuilds(Path(os.environ.get("PAGES_OUT") or tmp)))  # PAGES_OUT: keep the PDFs to look at
        for book in wanted:
            _, doc_html = shelf.get(book)
            titles = headings(doc_html)
            for paper in PAPERS:
                pages = shelf.pages(book, paper)
                figures = " ".join(f"{p.fill:.0%}" + ("!" if p.fill < FULL_ENOUGH and p is not pages[-1] else "")
                                   for p in pages)
                feet = [f"p{p.number} {found!r}" for p in pages if (found := heading_at_foot(p, titles))]
                print(f"{book_id(book):22} {paper:6} {len(pages):2}p  {figures}"
                      + (f"   heading at foot: {', '.join(feet)}" if feet else ""), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
