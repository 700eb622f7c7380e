"""Issue 3: `cardgen build` on the real game (The King's Blade 3.1, its end-to-end test): images,
sheets, geometry, fonts, duplex; and the build's own promises (determinism, a rebuild renders only
what changed, escaping, text that cannot fit, where it writes) on tests/projects/mini."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pikepdf
import pytest
from conftest import MINI, ROOT
from PIL import Image, ImageCms
from pypdf import PdfReader

from cardgen.buildtypes import BuildOptions
from cardgen.data.folders import CACHE_ENV
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.imposition import PAPER_SIZES, SheetSpec, layout_for
from cardgen.pipeline import build
from cardgen.render.workers import RASTER_PRELOAD, Workers

A4 = (595.28, 841.89)
LETTER = (612.0, 792.0)


def _build(project_root: Path, out: Path, version: str = "3.1", **kw):
    project = load_project(project_root)
    snapshot = resolve(project, load_game(project, None), version)
    options = BuildOptions(out_dir=out, rulebook=False, **kw)
    return snapshot, build(project, snapshot, options)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("kb31")
    snapshot, result = _build(ROOT, out)
    return snapshot, result, out


def test_outputs_exist(built):
    snapshot, result, out = built
    names = {o.path.name for o in result.outputs}
    assert names == {"sheets-a4-duplex.pdf", "sheets-letter-duplex.pdf"}
    faces = len(snapshot.cards) + 4  # + one back per deck
    assert len(list((out / "svg").glob("*.svg"))) == faces
    assert len(list((out / "png").glob("*.png"))) == faces


def test_png_is_300_dpi_with_bleed(built):
    _, _, out = built
    img = Image.open(out / "png" / "card-shortsword-hilt.png")
    assert img.size == (815, 1110)  # (63 + 6) x (88 + 6) mm at 300 DPI
    assert img.mode == "RGB"
    assert img.info["dpi"] == pytest.approx((300, 300), abs=0.01)  # pHYs: 11811 px/m
    profile = ImageCms.ImageCmsProfile(io.BytesIO(img.info["icc_profile"]))
    assert ImageCms.getProfileDescription(profile).strip() == "sRGB built-in"
    token = Image.open(out / "png" / "card-forge-token.png")
    assert token.size == (425, 425)  # 30 + 6 mm


def _expected_pages(snapshot):
    cards = sum(c.count for c in snapshot.cards if c.type != "forge-token")
    tokens = sum(c.count for c in snapshot.cards if c.type == "forge-token")
    return cards, tokens


@pytest.mark.parametrize("paper,size,per", [("a4", A4, 9), ("letter", LETTER, 8)])
def test_page_size_and_count(built, paper, size, per):
    snapshot, _, out = built
    pdf = pikepdf.open(out / f"sheets-{paper}-duplex.pdf")
    cards, tokens = _expected_pages(snapshot)
    # 3 x 3 poker cards a page on A4; 4 x 2 on (landscape) Letter, where three rows would keep
    # only 0.2 mm of outer bleed (issue 23)
    card_pages = -(-cards // per)
    assert cards == 90 - 4 and card_pages == (10 if paper == "a4" else 11)
    # fronts + backs; the 4 forge tokens fill the last card sheet's empty cells
    assert len(pdf.pages) == 2 * card_pages
    for page in pdf.pages:
        box = [float(v) for v in page.mediabox]
        assert abs(sorted(box[2:])[0] - size[0]) < 0.5 and abs(sorted(box[2:])[1] - size[1]) < 0.5
        assert (box[2] > box[3]) == (paper == "letter")  # one orientation a file: Letter's is landscape


def test_fonts_embedded_and_only_project_fonts(built):
    _, _, out = built
    pdf = pikepdf.open(out / "sheets-a4-duplex.pdf")
    names = set()
    for obj in pdf.objects:
        if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/FontDescriptor":
            assert any(k in obj for k in ("/FontFile", "/FontFile2", "/FontFile3")), obj.get("/FontName")
            names.add(re.sub(r"^[A-Z]{6}\+", "", str(obj.FontName)[1:]))
    assert names and names <= {"Cinzel-Bold", "Cinzel-Regular", "AlegreyaSans-Regular", "AlegreyaSans-Bold",
                               "AlegreyaSans-Italic"}, names
    assert "Cinzel-Bold" in names and "AlegreyaSans-Regular" in names


def test_sheets_are_vector_and_cards_stored_once(built):
    snapshot, result, out = built
    pdf = pikepdf.open(out / "sheets-a4-duplex.pdf")
    forms, images = 0, 0
    for obj in pdf.objects:
        if isinstance(obj, pikepdf.Stream) and obj.get("/Type") == "/XObject":
            if obj.get("/Subtype") == "/Image":
                images += 1
            elif obj.get("/Subtype") == "/Form" and "/BBox" in obj:
                forms += 1
    assert images == 0
    distinct = len(snapshot.cards) + 4
    # one form per distinct face (cairo may nest a few forms inside a card, never per copy)
    assert distinct <= forms < 90, forms


def test_text_of_cards_is_in_the_pdf(built):
    _, _, out = built
    text = PdfReader(out / "sheets-a4-duplex.pdf").pages[0].extract_text()
    assert "Arming Sword" in text or "ARMING SWORD" in text.upper()


def _render(pdf_path: Path, page: int, dpi: int) -> Image.Image:
    import pypdfium2

    doc = pypdfium2.PdfDocument(str(pdf_path))
    try:
        return doc[page].render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
    finally:
        doc.close()


def _line_centres(values: list[int], threshold: int = 100) -> list[float]:
    """Centres (in pixels) of the dark runs along one row or column of pixels."""
    centres, run = [], []
    for i, v in enumerate(values):
        if v < threshold:
            run.append(i)
        elif run:
            centres.append(sum(run) / len(run))
            run = []
    if run:
        centres.append(sum(run) / len(run))
    return centres


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_card_measures_63_by_88_between_crop_marks(built, paper):
    """Scan the page margins at 600 DPI: the crop marks of each card lie 63.0 x 88.0 mm apart."""
    _, _, out = built
    dpi = 600
    img = _render(out / f"sheets-{paper}-duplex.pdf", 2, dpi)  # sheet 2: no notice above the grid
    layout = layout_for(SheetSpec(63, 88, 3), PAPER_SIZES[paper])
    art = layout.art_extent()
    px_mm = 25.4 / dpi
    w, h = img.size
    band_y = layout.page_h - (art.y1 + 0.5 + layout.y.mark / 2)  # from the top, through the marks' middle
    band_x = art.x - 0.5 - layout.x.mark / 2
    row = [img.getpixel((x, int(band_y / px_mm))) for x in range(w)]
    col = [img.getpixel((int(band_x / px_mm), y)) for y in range(h)]
    xs = [c * px_mm for c in _line_centres(row)]
    ys = [c * px_mm for c in _line_centres(col)]
    widths = [b - a for i, a in enumerate(xs) for b in xs[i + 1:] if abs(b - a - 63) < 1]
    heights = [b - a for i, a in enumerate(ys) for b in ys[i + 1:] if abs(b - a - 88) < 1]
    assert len(widths) >= layout.cols and len(heights) >= layout.rows, (xs, ys)
    assert all(abs(d - 63.0) <= 0.1 for d in widths), widths
    assert all(abs(d - 88.0) <= 0.1 for d in heights), heights


def test_crop_marks_stay_outside_the_cards(built):
    """The outer 5 mm stay blank; in the band above the grid the marks are thin lines."""
    _, _, out = built
    dpi = 300
    img = _render(out / "sheets-a4-duplex.pdf", 2, dpi)
    px_mm = 25.4 / dpi
    edge = int(4.9 / px_mm)
    for box in ((0, 0, img.width, edge), (0, img.height - edge, img.width, img.height),
                (0, 0, edge, img.height), (img.width - edge, 0, img.width, img.height)):
        assert img.crop(box).getextrema() == (255, 255), box
    band = img.crop((0, int(5.2 / px_mm), img.width, int(8.5 / px_mm)))
    dark = sum(1 for v in band.tobytes() if v < 200)
    # 4 marks x 3.3 mm x ~2 px wide: a card edge in the band would add thousands of pixels
    assert 0 < dark < 600, dark


def test_duplex_backs_line_up_behind_their_faces(built):
    """The last card page is half full: mirrored left-right, its back page covers exactly its fronts."""
    snapshot, _, out = built
    pdf = pikepdf.open(out / "sheets-a4-duplex.pdf")
    cards, _ = _expected_pages(snapshot)
    last_front = 2 * (-(-cards // 9) - 1)
    assert cards % 9 != 0  # a partly filled page, so a wrong mirror cannot pass by symmetry
    dpi = 100
    front = _render(out / "sheets-a4-duplex.pdf", last_front, dpi)
    back = _render(out / "sheets-a4-duplex.pdf", last_front + 1, dpi).transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    # compare inside the cards' cells: the back keeps more outer bleed and carries no marks, and
    # the forge tokens in the empty cells keep more bleed on the back than on the front
    layout = layout_for(SheetSpec(63, 88, 3), PAPER_SIZES["a4"])
    k = dpi / 25.4
    f_mask, b_mask = [], []
    for i in range(cards % 9):
        cell = layout.trim_rect(i % 3, i // 3)
        box = (int(cell.x * k), int((297 - cell.y1) * k), int(cell.x1 * k), int((297 - cell.y) * k))
        f_mask += [v < 245 for v in front.crop(box).tobytes()]
        b_mask += [v < 245 for v in back.crop(box).tobytes()]
    covered = sum(f_mask)
    assert covered > 0.2 * len(f_mask)
    mismatch = sum(1 for a, b in zip(f_mask, b_mask) if a != b)
    assert mismatch / covered < 0.01, mismatch / covered
    assert len(pdf.pages) % 2 == 0


def test_fronts_only_has_no_back_pages(tmp_path):
    snapshot, result = _build(ROOT, tmp_path, papers=("a4",), duplex=False, png=False)
    assert not (tmp_path / "sheets-a4-duplex.pdf").exists()
    pdf = pikepdf.open(tmp_path / "sheets-a4-onesided.pdf")
    cards, tokens = _expected_pages(snapshot)
    assert len(pdf.pages) == -(-cards // 9)  # the tokens fit in the last sheet's empty cells


@pytest.fixture
def fresh_mini(mini: Path, monkeypatch) -> Path:
    """A copy of tests/projects/mini whose builds start from an empty cache of their own."""
    monkeypatch.delenv(CACHE_ENV)
    return mini


def test_build_is_deterministic_across_caches(mini_build, fresh_mini, tmp_path):
    out, _ = mini_build  # built with the session's shared cache
    _build(fresh_mini, tmp_path / "again", version="2")
    for name in ("sheets-a4-duplex.pdf", "sheets-letter-duplex.pdf", "png/card-ember.png", "svg/card-ember.svg",
                 "png/card-coin.png"):
        assert (out / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


def test_rebuild_renders_only_what_changed(fresh_mini, tmp_path, monkeypatch):
    started = []  # the workers a build starts before it has jobs: only for a first build into a folder
    start = Workers.start
    monkeypatch.setattr(Workers, "start", lambda self: started.append(self.preload) or start(self))
    _, first = _build(fresh_mini, tmp_path, version="2", papers=("a4",))
    assert first.rendered == first.faces == 6  # 4 cards and 2 backs
    assert started == [RASTER_PRELOAD]  # no rulebook here: weasyprint is not imported
    assert not [m for m in RASTER_PRELOAD if m.startswith("weasyprint") or m.startswith("cardgen.rulebook")]
    _, noop = _build(fresh_mini, tmp_path, version="2", papers=("a4",))
    assert noop.rendered == 0 and not any(o.rebuilt for o in noop.outputs)
    assert len(started) == 1
    path = fresh_mini / "versions/mini/2.yml"
    path.write_text(path.read_text().replace("  - {id: ember, value: 4}", "  - {id: ember, value: 7}"))
    _, changed = _build(fresh_mini, tmp_path, version="2", papers=("a4",))
    assert changed.rendered == 1
    assert [o.rebuilt for o in changed.outputs] == [True]


def test_card_text_is_escaped(mini, tmp_path):
    path = mini / "versions/mini/2.yml"
    path.write_text(path.read_text().replace("  - {id: ember, value: 4}",
                                             "  - {id: ember, value: 4, name: 'F & <C> \"Q\"'}"))  # on one line
    _build(mini, tmp_path, version="2", papers=("a4",), png=False)
    svg = (tmp_path / "svg" / "card-ember.svg").read_text()
    assert "F &amp; &lt;C&gt; &quot;Q&quot;" in svg or "F &amp; &lt;C&gt; \"Q\"" in svg
    text = "".join(p.extract_text() for p in PdfReader(tmp_path / "sheets-a4-duplex.pdf").pages[:1])
    assert 'F & <C> "Q"' in text


def test_text_that_cannot_fit_is_reported_naming_the_card(mini, tmp_path):
    path = mini / "versions/mini/2.yml"
    path.write_text(path.read_text().replace("  - {id: ember, value: 4}",
                                             "  - {id: ember, value: 4, name: " + "Very " * 30 + "Long}"))
    _, result = _build(mini, tmp_path, version="2", papers=("a4",), png=False, sheets=False)
    assert any("card 'ember': text does not fit" in w for w in result.warnings), result.warnings
    assert [(f.code, f.card) for f in result.findings if f.code == "text-overflow"] == [("text-overflow", "ember")]


def test_build_refuses_to_write_over_sources(cli):
    result = cli("build", "--out", "card_data", cwd=MINI)  # the fixture project itself: nothing is written
    assert result.code == 2 and "holds your sources" in result.err


def test_cli_build_reports_where_the_pdfs_are(cli, mini):
    result = cli("build", "-v", "2", "--no-rulebook", "--paper", "a4", cwd=mini)
    assert result.code == 0, result.err
    assert "build/mini/2/sheets-a4-duplex.pdf" in result.out
    assert (mini / "build/mini/2/sheets-a4-duplex.pdf").is_file()
