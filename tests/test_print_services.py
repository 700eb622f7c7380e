"""Issue 23: print-shop files are what their names and the listing say, from one table of services.

A small game (`cardgen new`) whose card template is given translucent art (a group at an
opacity, a translucent panel with a dashed translucent stroke over near-black text, a
translucent line across an opaque one) is exported for one service per test. Every CMYK file
is read back: operators, fonts, boxes, OutputIntent and version with pikepdf, the inks of every
pixel from Ghostscript's CMYK rendering (tiff32nc), and the look from its RGB rendering.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pikepdf
import pytest
from conftest import ROOT
from PIL import Image

from cardgen.cli import main
from cardgen.data.project import load_project
from cardgen.export.printpng import PRESETS, image_size
from cardgen.export.services import INCH_MM, Service, service, services
from cardgen.units import mm_to_px, pt_to_mm

pytestmark = pytest.mark.skipif(shutil.which("gs") is None, reason="Ghostscript renders the separations")

ART = """
<g opacity="0.35"><circle cx="{{ w / 2 }}" cy="{{ h / 2 }}" r="18" fill="#b0302a"/>
<rect x="{{ w / 2 - 6 }}" y="{{ h / 2 - 24 }}" width="12" height="48" fill="#203080"/></g>
<line x1="6" y1="30" x2="{{ w - 6 }}" y2="62" stroke="#2a211b" stroke-width="1.2"/>
<line x1="{{ w - 6 }}" y1="30" x2="6" y2="62" stroke="#0a6040" stroke-width="1.6" stroke-opacity="0.5"/>
"""
PANEL = """
<rect x="6" y="{{ h / 2 + 6 }}" width="{{ w - 12 }}" height="9" fill="#ffffff" fill-opacity="0.6"
 stroke="#1f1a17" stroke-opacity="0.5" stroke-width="0.6" stroke-dasharray="1 0.8"/>
"""


def _run(*args: str) -> None:
    try:
        main(list(args))
    except SystemExit as exc:
        assert exc.code in (0, None), args


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> Path:
    """A project holding `dragon-race` with translucent art over its cards' near-black text."""
    root = load_project(ROOT).copy_sources(tmp_path_factory.mktemp("services") / "project").root
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        _run("new", "dragon-race")
    template = root / "templates/dragon-race/card.svg.j2"
    text = template.read_text(encoding="utf-8")
    anchor = '<rect x="3" y="3" width="{{ w - 6 }}" height="13" rx="3" fill="{{ c }}"/>\n'
    assert anchor in text
    text = text.replace(anchor, anchor + ART)
    template.write_text(text + PANEL, encoding="utf-8")  # the panel over the card's text
    return root


def export(root: Path, out: Path, *args: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        _run("export", "print", "--game", "dragon-race", "--out", str(out), *args)


@pytest.fixture(scope="module")
def dtc(game, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dtc")
    export(game, out, "--service", "drivethrucards", "--cmyk")
    return out


def _forms(pdf: pikepdf.Pdf):
    seen = {}
    for page in pdf.pages:
        for form in page.Resources.get("/XObject", {}).values():
            seen[form.objgen] = form
    return list(seen.values())


def _separations(path: Path, tmp: Path, dpi: int = 150, page: int | None = None) -> list[np.ndarray]:
    """Every page (or only page `page`, counted from 1) as CMYK ink values 0..255 per pixel, as
    Ghostscript separates it."""
    only = [] if page is None else [f"-dFirstPage={page}", f"-dLastPage={page}"]
    run = subprocess.run(["gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=tiff32nc", f"-r{dpi}", *only,
                          f"-sOutputFile={tmp / 'sep-%03d.tif'}", str(path)], check=True, capture_output=True, text=True)
    assert run.stdout + run.stderr == ""  # Ghostscript reads every page without an error
    pages = []
    for file in sorted(tmp.glob("sep-*.tif")):
        with Image.open(file) as image:
            assert image.mode == "CMYK"
            pages.append(np.asarray(image).astype(int))
        file.unlink()
    return pages


def _rgb_page(path: Path, tmp: Path, stem: str, page: int, dpi: int = 100) -> np.ndarray:
    """Page `page` (counted from 1) as RGB values 0..255 per pixel, as Ghostscript draws it."""
    png = tmp / f"{stem}.png"
    subprocess.run(["gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=png16m", f"-r{dpi}",
                    f"-dFirstPage={page}", f"-dLastPage={page}", f"-sOutputFile={png}", str(path)], check=True)
    with Image.open(png) as image:
        return np.asarray(image.convert("RGB")).astype(int)


# --- the CMYK file is PDF/X-1a for DriveThruCards ------------------------------------------------


def test_cmyk_pages_are_vector_cmyk_with_fonts_and_an_output_intent(dtc):
    rgb, cmyk = dtc / "main.pdf", dtc / "main-cmyk.pdf"
    with pikepdf.open(rgb) as a, pikepdf.open(cmyk) as b:
        assert len(a.pages) == len(b.pages) == 18  # 9 cards, each after its back (DriveThruCards)
        assert b.pdf_version == "1.4"
        assert str(b.docinfo["/GTS_PDFXVersion"]) == "PDF/X-1a:2003"
        assert str(b.docinfo["/Trapped"]) == "/False" and str(b.docinfo["/Title"]) == str(a.docinfo["/Title"])
        assert b"<pdfx:GTS_PDFXVersion>PDF/X-1a:2003</pdfx:GTS_PDFXVersion>" in b.Root.Metadata.read_bytes()
        (intent,) = b.Root.OutputIntents
        assert intent.S == "/GTS_PDFX" and str(intent.OutputConditionIdentifier) == "CGATS TR 001"
        profile = intent.DestOutputProfile.read_bytes()
        assert int(intent.DestOutputProfile.N) == 4 and profile[36:40] == b"acsp" and profile[16:20] == b"CMYK"
        # nothing translucent, nothing RGB, no image: every object of the file
        for obj in b.objects:
            if isinstance(obj, (pikepdf.Dictionary, pikepdf.Stream)):
                assert obj.get("/Subtype") != "/Image"
                assert "/SMask" not in obj and "/Group" not in obj and "/ExtGState" not in obj
                assert float(obj.get("/CA", 1)) == 1 and float(obj.get("/ca", 1)) == 1
        faces = _forms(b)
        assert len(faces) == 3 + 1  # each distinct face once: 3 cards (9 copies) and the back
        fonts = set()
        for form in faces:
            ops = [str(op) for _, op in pikepdf.parse_content_stream(form)]
            assert not set(ops) & {"rg", "RG", "g", "G", "sc", "scn", "SC", "SCN", "cs", "CS", "sh", "BI", "gs"}
            assert {"k", "f", "m", "l", "h"} <= set(ops)  # vector shapes in CMYK
            for font in form.Resources.get("/Font", {}).values():
                descriptor = font.get("/FontDescriptor") or font.DescendantFonts[0].FontDescriptor
                assert "/FontFile2" in descriptor or "/FontFile3" in descriptor or "/FontFile" in descriptor
                fonts.add(str(font.BaseFont).split("+")[-1])
            assert "BT" in ops and {"Tj", "TJ"} & set(ops)  # text stays text (every face has some)
        assert fonts == {"Cinzel-Bold", "AlegreyaSans-Regular", "AlegreyaSans-Italic"}, fonts
        assert fonts == {str(o.FontName).split("+")[-1] for o in a.objects
                         if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/FontDescriptor"}
        for pa, pb in zip(a.pages, b.pages):
            for box in ("/MediaBox", "/TrimBox", "/BleedBox"):
                assert [float(v) for v in pb.obj[box]] == pytest.approx([float(v) for v in pa.obj[box]], abs=0.01)


def test_total_ink_stays_within_the_service_limit(dtc, tmp_path):
    limit = service("drivethrucards").ink_limit
    assert limit == 240
    highest = 0
    for page in _separations(dtc / "main-cmyk.pdf", tmp_path):
        highest = max(highest, int(page.sum(axis=2).max()))
    assert highest <= limit * 255 / 100 + 2  # 8-bit rounding of four inks
    assert highest > 200 * 255 / 100  # the dark card colour does use ink near the limit


def test_black_text_prints_in_black_ink_only(dtc, tmp_path):
    """The cards' body text (#1f1a17) and its dark line: 0/0/0/100, in the operators and in pixels."""
    with pikepdf.open(dtc / "main-cmyk.pdf") as pdf:
        text_colours, colour = set(), None
        for form in _forms(pdf):
            for operands, op in pikepdf.parse_content_stream(form):
                if str(op) == "k":
                    colour = tuple(float(v) for v in operands)
                elif str(op) in ("Tj", "TJ") and colour is not None:
                    text_colours.add(colour)
    dark = {c for c in text_colours if c[3] >= 0.9}
    assert dark == {(0.0, 0.0, 0.0, 1.0)}  # near-black text: black ink alone
    # pixels: where a page is fully black, no other ink is under it (the first front; every page is
    # separated without an error in test_total_ink_stays_within_the_service_limit)
    (page,) = _separations(dtc / "main-cmyk.pdf", tmp_path, dpi=300, page=2)
    black = page[..., 3] == 255
    assert black.sum() > 1000  # the text and the dark line
    assert page[black][:, :3].max() == 0


def test_flattened_cmyk_looks_like_the_rgb_design(dtc, tmp_path):
    """Blending done by cardgen in RGB: the CMYK page, read back through the profile, matches the
    RGB page drawn with real transparency; translucent areas included."""
    with pikepdf.open(dtc / "main.pdf") as rgb, pikepdf.open(dtc / "main-cmyk.pdf") as cmyk:
        assert len(rgb.pages) == len(cmyk.pages) == 18
    a, b = (_rgb_page(dtc / name, tmp_path, stem, page=2) for name, stem in  # the first front
            (("main.pdf", "rgb"), ("main-cmyk.pdf", "cmyk")))
    h, w = a.shape[:2]
    blocks = lambda img: img[: h // 8 * 8, : w // 8 * 8].reshape(h // 8, 8, w // 8, 8, 3).mean(axis=(1, 3))  # noqa: E731
    diff = np.abs(blocks(a) - blocks(b)).max(axis=2)
    assert np.percentile(diff, 99) < 14, np.percentile(diff, 99)
    # inside the art's circle (red #b0302a at 35 % over the paper #f7f3ea), clear of the rest
    y, x = h // 2 - round(8 / 25.4 * 100), w // 2 - round(12 / 25.4 * 100)
    spot = lambda img: img[y - 3:y + 3, x - 3:x + 3].reshape(-1, 3).mean(axis=0)  # noqa: E731
    blend = 0.35 * np.array([0xb0, 0x30, 0x2a]) + 0.65 * np.array([0xf7, 0xf3, 0xea])
    assert np.abs(spot(a) - blend).max() < 4  # the RGB file, as a viewer blends it
    assert np.abs(spot(b) - blend).max() < 12  # the CMYK file, blended by cardgen, through the profile


def test_cmyk_file_is_the_same_bytes_again(dtc, game, tmp_path):
    export(game, tmp_path, "--service", "drivethrucards", "--cmyk")
    assert (tmp_path / "main-cmyk.pdf").read_bytes() == (dtc / "main-cmyk.pdf").read_bytes()


def test_pdfx4_where_the_service_allows_transparency(game, tmp_path):
    assert service("printninja").pdfx == "PDF/X-4"
    export(game, tmp_path, "--service", "printninja", "--cmyk")
    with pikepdf.open(tmp_path / "main-cmyk.pdf") as pdf:
        assert pdf.pdf_version == "1.6"
        assert str(pdf.docinfo["/GTS_PDFXVersion"]) == "PDF/X-4"
        assert b"<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>" in pdf.Root.Metadata.read_bytes()
        assert pdf.Root.OutputIntents[0].S == "/GTS_PDFX"
        assert len(pdf.pages) == 18 and service("printninja").page_order == "front-back"


# --- the listing names every file as it is --------------------------------------------------------


def test_listing_names_each_file_as_it_is(cli, game, tmp_path):
    result = cli("export", "print", "--game", "dragon-race", "--service", "drivethrucards", "--cmyk",
                 "--out", str(tmp_path), cwd=game)
    assert result.code == 0, result.err
    listed = re.findall(r"^  (\S+\.pdf)  (.+?): (\d+) cards", result.out, re.M)
    assert [Path(p).name for p, _, _ in listed] == ["main.pdf", "main-cmyk.pdf"]
    assert sorted(p.name for p in tmp_path.glob("*.pdf")) == ["main-cmyk.pdf", "main.pdf"]
    for path, what, _ in listed:
        with pikepdf.open(path) as pdf:
            ops = {str(op) for form in _forms(pdf) for _, op in pikepdf.parse_content_stream(form)}
            if path.endswith("-cmyk.pdf"):
                assert what == "CMYK PDF/X-1a:2003 (CGATS TR 001, total ink at most 240 %)"
                assert str(pdf.docinfo["/GTS_PDFXVersion"]) == "PDF/X-1a:2003" and "rg" not in ops
            else:  # the RGB file is never called CMYK or PDF/X, and it is not one
                assert what == "RGB PDF" and "rg" in ops and "/OutputIntents" not in pdf.Root
    without = cli("export", "print", "--game", "dragon-race", "--service", "drivethrucards",
                  "--out", str(tmp_path / "rgb"), cwd=game)
    assert "CMYK" not in without.out.replace("asks for CMYK", "") and "PDF/X" not in without.out.split(":\n", 1)[1]


# --- one table --------------------------------------------------------------------------------------


def test_pdf_bleed_and_png_size_for_makeplayingcards_agree(game, tmp_path):
    """Both exports read services.yml: MPC's PDF bleed is the bleed its 822 x 1122 px images have."""
    mpc = service("mpc")
    assert PRESETS["mpc"] is mpc
    export(game, tmp_path / "pdf", "--service", "mpc")
    with pikepdf.open(tmp_path / "pdf" / "main.pdf") as pdf:
        media = [pt_to_mm(float(v)) for v in pdf.pages[0].obj.MediaBox]
        trim = [pt_to_mm(float(v)) for v in pdf.pages[0].obj.TrimBox]
    bleed_mm = trim[0] - media[0]
    assert bleed_mm == pytest.approx(mpc.bleed_in * INCH_MM, abs=0.01) == pytest.approx(3.048, abs=0.01)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(game)
        _run("export", "png", "--game", "dragon-race", "--preset", "mpc", "--out", str(tmp_path / "png"))
    with Image.open(next((tmp_path / "png" / "main").glob("001-*.png"))) as card:
        size = card.size
    poker_in = (2.5, 3.5)  # the product a 63 x 88 mm card is printed as
    assert size == (822, 1122)
    assert size == tuple(round((side + 2 * bleed_mm / INCH_MM) * mpc.dpi) for side in poker_in)
    # a size with no fixed product: trim + the same bleed at the same DPI
    assert image_size(mpc, (30, 30), 3.0) == (mm_to_px(30 + 2 * bleed_mm, 300),) * 2 == (426, 426)


def test_the_table_checks_itself():
    rows = services()
    assert set(rows) == {"generic", "drivethrucards", "mpc", "tgc", "printninja"}
    for row in rows.values():
        for product in row.products:
            for axis in (0, 1):
                assert product.image_px[axis] == round((product.trim_in[axis] + 2 * row.bleed_in) * row.dpi)
    bad = dict(rows["mpc"].model_dump(), bleed_in=0.13)  # the old PNG preset's figure
    with pytest.raises(ValueError, match="822 x 1122 px"):
        Service.model_validate(bad)


def test_numbers_in_the_drawing_are_pdf_numbers():
    """A rotated drawing's matrix holds values like 6e-17: PDF has no exponent notation."""
    from cardgen.export.flatten import mat, num

    text = mat((6.123233995736766e-17, 1.0, -1.0, 6.123233995736766e-17, 1e-9, 123.456789))
    assert text == "0 1 -1 0 0 123.456789"
    assert num(-1e-7) == "0" and num(2.5) == "2.5"


def test_a_blank_back_page_reads_without_error(tmp_path):
    """A deck without a back template gets blank back pages: still a readable PDF/X page."""
    from cardgen.export import pdfx
    from cardgen.export.separation import Separation, output_profile

    out = tmp_path / "blank.pdf"
    pdfx.write_pdfx([pdfx.Page(69.35, 94.35, (3.175, 3.175, 63, 88), [])], out, title="blank",
                    flavour="PDF/X-1a:2003", separation=Separation(output_profile(), 240), names={})
    assert pdfx.pdfx_problems(out, "PDF/X-1a:2003") == []
    (page,) = _separations(out, tmp_path)  # Ghostscript reads it without an error
    assert page.max() == 0  # and it is blank: no ink


def test_what_cannot_be_flattened_stops_with_one_line(cli, project_copy, tmp_path):
    """A raster image (here a translucent PNG) is not redrawn as something else: the command
    names the card and exits 1, with no traceback."""
    import base64
    import io

    assert cli("new", "dragon-race", cwd=project_copy).code == 0
    buffer = io.BytesIO()
    Image.new("RGBA", (8, 8), (200, 30, 30, 128)).save(buffer, "PNG")
    uri = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    template = project_copy / "templates/dragon-race/card.svg.j2"
    template.write_text(template.read_text() + f'<image x="10" y="30" width="20" height="20" href="{uri}"/>\n')
    result = cli("export", "print", "--game", "dragon-race", "--service", "drivethrucards", "--cmyk",
                 "--out", str(tmp_path), cwd=project_copy)
    assert result.code == 1 and "Traceback" not in result.err
    (line,) = result.err.strip().splitlines()
    assert line.startswith("error: card spark draws an image, which cardgen cannot put into a CMYK print file")
    assert not (tmp_path / "main-cmyk.pdf").exists()
