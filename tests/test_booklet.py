"""Issue 13: `cardgen build --booklet`, the rulebook as a saddle-stitched booklet: A5 pages two
up on A4 landscape (half-Letter on Letter), padded to a multiple of 4, in saddle-stitch order."""

from __future__ import annotations

import io
import subprocess

import pikepdf
import pytest
from reportlab.lib.units import mm
from reportlab.pdfgen import canvas

from cardgen.buildtypes import PAPER_SIZES as PAPERS
from cardgen.rulebook.booklet import (
    HALVES,
    PAGES,
    SCALE,
    Side,
    impose,
    padded,
    saddle_stitch,
)


def _numbered(pages: int, width_mm: float, height_mm: float) -> bytes:
    """A PDF whose page n shows only the word 'page<n>'."""
    buffer = io.BytesIO()
    c = canvas.Canvas(buffer, pagesize=(width_mm * mm, height_mm * mm))
    for n in range(1, pages + 1):
        c.setFont("Helvetica", 30)
        c.drawCentredString(width_mm * mm / 2, height_mm * mm / 2, f"page{n}")
        c.showPage()
    c.save()
    return buffer.getvalue()


def _halves(pdf_path, sheet_index: int, width_pt: float, height_pt: float) -> tuple[str, str]:
    """The text of the left and right half of one sheet side, read with pdftotext."""
    texts = []
    for x in (0, width_pt / 2):
        out = subprocess.run(["pdftotext", "-f", str(sheet_index + 1), "-l", str(sheet_index + 1),
                              "-x", str(int(x)), "-y", "0", "-W", str(int(width_pt / 2)), "-H", str(int(height_pt)),
                              str(pdf_path), "-"], capture_output=True, text=True, check=True).stdout
        texts.append(" ".join(out.split()))
    return texts[0], texts[1]


def test_pages_are_padded_to_whole_sheets():
    assert [padded(n) for n in (1, 4, 5, 8, 9, 10, 12, 13)] == [4, 4, 8, 8, 12, 12, 12, 16]


def test_saddle_stitch_order_of_an_eight_page_booklet():
    assert saddle_stitch(8) == [Side(8, 1), Side(2, 7), Side(6, 3), Side(4, 5)]


def test_a_ten_page_booklet_gets_two_blank_pages_at_the_end():
    sides = saddle_stitch(10)
    assert sides == [Side(None, 1), Side(2, None), Side(10, 3), Side(4, 9), Side(8, 5), Side(6, 7)]
    printed = sorted(p for s in sides for p in (s.left, s.right) if p is not None)
    assert printed == list(range(1, 11))


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_imposed_sheets_are_landscape_and_read_in_order_when_folded(tmp_path, paper):
    layout = PAGES[paper]
    data = impose(_numbered(10, layout.width_mm, layout.height_mm), PAPERS[paper])
    path = tmp_path / "booklet.pdf"
    path.write_bytes(data)
    sheet = PAPERS[paper]
    width, height = sheet.height_mm / 25.4 * 72, sheet.width_mm / 25.4 * 72
    with pikepdf.open(path) as pdf:
        assert len(pdf.pages) == 6  # 12 booklet pages, 2 a side
        for page in pdf.pages:
            box = [float(v) for v in page.mediabox]
            assert abs(box[2] - width) < 0.5 and abs(box[3] - height) < 0.5
        assert pdf.Root.ViewerPreferences.Duplex == pikepdf.Name.DuplexFlipShortEdge
    read = [_halves(path, i, width, height) for i in range(6)]
    assert read == [("", "page1"), ("page2", ""), ("page10", "page3"), ("page4", "page9"),
                    ("page8", "page5"), ("page6", "page7")]
    # each booklet page fills its half: A5 (or half-Letter) at full size
    half = HALVES[paper]
    assert abs(layout.width_mm * SCALE - half.width_mm) < 0.05
    assert abs(layout.height_mm * SCALE - half.height_mm) < 0.05


def test_the_same_pages_impose_to_the_same_bytes():
    """pikepdf's add_overlay names what it places at random: a booklet made twice must not differ."""
    pages = _numbered(6, PAGES["a4"].width_mm, PAGES["a4"].height_mm)
    first, second = impose(pages, PAPERS["a4"]), impose(pages, PAPERS["a4"])
    assert first == second
    with pikepdf.open(io.BytesIO(first)) as pdf:
        assert sorted(str(k) for k in pdf.pages[0].Resources.XObject.keys()) == ["/Page1"]  # Side(None, 1)
        assert sorted(str(k) for k in pdf.pages[2].Resources.XObject.keys()) == ["/Page3", "/Page6"]


@pytest.mark.parametrize("args, message", [
    (("--no-rulebook",), "error: --booklet needs the rulebook: drop --no-rulebook (or --booklet)"),
    (("--only-changed-since", "3"), "error: --booklet: an update pack (--only-changed-since 3) prints only cards"),
])
def test_booklet_without_a_rulebook_is_a_one_line_usage_error(cli, project_copy, args, message):
    result = cli("build", "-v", "3.1", "--booklet", *args, cwd=project_copy)
    assert result.code == 2 and result.err.startswith(message), result.err
    assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err
    assert not (project_copy / "build").exists()  # refused before anything was written
