"""Cards become vector PDFs and exact-size RGB PNGs, byte-identical on every run."""

from __future__ import annotations

import zlib
from pathlib import Path

import pikepdf
import pytest
from PIL import Image
from pypdf import PdfReader

from cardgen.errors import RasterError
from cardgen.render import fonts
from cardgen.render.rasterise import RasterJob, rasterise_jobs
from cardgen.render.svgconvert import svg_to_pdf, svg_to_png
from cardgen.units import mm_to_pt

PROJECT_FONTS = Path(__file__).resolve().parents[1] / "fonts"


@pytest.fixture(scope="module", autouse=True)
def project_fonts():
    fonts.use_project_fonts()


def card_svg(title: str = "Dragon Lord") -> str:
    """A 69 x 94 mm card with a full-bleed red background, a title and body text."""
    return f"""<svg xmlns="http://www.w3.org/2000/svg" width="69mm" height="94mm" viewBox="0 0 69 94">
<rect x="0" y="0" width="69" height="94" fill="#c00000"/>
<rect x="3" y="3" width="63" height="88" fill="#ffffff"/>
<text x="6" y="14" font-family="Cinzel" font-weight="bold" font-size="6">{title}</text>
<text x="6" y="30" font-family="Alegreya Sans" font-size="3.5">Gain 2 gold, then draw a card.</text>
</svg>"""


def test_pdf_is_vector_with_extractable_text(tmp_path):
    out = tmp_path / "card.pdf"
    svg_to_pdf(card_svg(), out)

    with pikepdf.open(out) as pdf:
        streams = [obj for obj in pdf.objects if isinstance(obj, pikepdf.Stream)]
        assert streams and all(obj.get("/Subtype") != "/Image" for obj in streams)
    text = PdfReader(out).pages[0].extract_text()
    assert "Dragon" in text and "gold" in text


def test_pdf_page_size_is_the_svg_size(tmp_path):
    out = tmp_path / "card.pdf"
    svg_to_pdf(card_svg(), out)

    box = PdfReader(out).pages[0].mediabox
    assert float(box.width) == pytest.approx(mm_to_pt(69), abs=0.01)
    assert float(box.height) == pytest.approx(mm_to_pt(94), abs=0.01)
    assert (float(box.width), float(box.height)) == pytest.approx((195.59, 266.46), abs=0.01)


def test_pdf_has_no_dates_and_is_reproducible(tmp_path):
    first, second = tmp_path / "a.pdf", tmp_path / "b.pdf"
    svg_to_pdf(card_svg(), first)
    svg_to_pdf(card_svg(), second)

    assert first.read_bytes() == second.read_bytes()
    with pikepdf.open(first) as pdf:
        assert "/CreationDate" not in pdf.docinfo and "/ModDate" not in pdf.docinfo
        assert "/ID" in pdf.trailer


def test_png_at_300_dpi_is_exact_rgb_size_and_fully_covered(tmp_path):
    out = tmp_path / "card.png"
    svg_to_png(card_svg(), out)

    with Image.open(out) as image:
        assert image.size == (815, 1110) and image.mode == "RGB"
        assert image.getpixel((814, 1109)) == (192, 0, 0)  # no half-transparent edge


def test_png_size_px_is_exact_and_stretches_without_letterboxing(tmp_path):
    out = tmp_path / "card.png"
    svg_to_png(card_svg(), out, size_px=(825, 1125))

    with Image.open(out) as image:
        assert image.size == (825, 1125) and image.mode == "RGB"
        for corner in [(0, 0), (824, 0), (0, 1124), (824, 1124)]:
            assert image.getpixel(corner) == (192, 0, 0)


def test_transparent_areas_become_white(tmp_path):
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10mm" height="10mm" viewBox="0 0 10 10">'
        '<rect x="5" y="0" width="5" height="10" fill="#000" fill-opacity="0.5"/></svg>'
    )
    out = tmp_path / "half.png"
    svg_to_png(svg, out, dpi=254)

    with Image.open(out) as image:
        assert image.getpixel((10, 50)) == (255, 255, 255)
        assert image.getpixel((90, 50)) in [(127, 127, 127), (128, 128, 128)]


def test_png_is_reproducible_without_metadata_chunks(tmp_path):
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    svg_to_png(card_svg(), first)
    svg_to_png(card_svg(), second)

    assert first.read_bytes() == second.read_bytes()
    with Image.open(first) as image:  # no date or text chunks: only what a print service needs
        assert set(image.info) == {"dpi", "icc_profile"}
        assert image.info["dpi"] == pytest.approx((300, 300), abs=0.01)
    data = first.read_bytes()
    assert b"tIME" not in data and b"tEXt" not in data and b"pHYs" in data and b"iCCP" in data


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    found, at = [], 8
    while at < len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        found.append((data[at + 4:at + 8], data[at + 8:at + 8 + length]))
        at += 12 + length
    return found


def test_png_encoding_keeps_pillows_pixels_and_chunks(tmp_path):
    """cardgen encodes its PNGs itself (every row filtered Up, zlib level 4: faster than
    Pillow's encoder); what a reader sees is what Pillow would have written."""
    import io

    from cardgen.pngmeta import png_bytes, srgb_profile
    from cardgen.render.svgconvert import render_rgb

    card = render_rgb(card_svg(), 300, (815, 1110))
    noise = Image.frombytes("RGB", (37, 23), bytes((i * 7919) % 251 for i in range(37 * 23 * 3)))
    for image in (card, noise):
        ours = png_bytes(image, 300)
        pillows = io.BytesIO()
        image.save(pillows, format="PNG", dpi=(300, 300), icc_profile=srgb_profile())
        with Image.open(io.BytesIO(ours)) as decoded:
            assert decoded.mode == "RGB" and decoded.size == image.size
            assert decoded.tobytes() == image.tobytes()
        assert [kind for kind, _ in _chunks(ours)] == [b"IHDR", b"iCCP", b"pHYs", b"IDAT", b"IEND"]
        assert [c for c in _chunks(ours) if c[0] != b"IDAT"] == \
               [c for c in _chunks(pillows.getvalue()) if c[0] != b"IDAT"]
        idat = b"".join(data for kind, data in _chunks(ours) if kind == b"IDAT")
        rows = zlib.decompress(idat)
        assert rows[::image.width * 3 + 1] == b"\x02" * image.height  # every row filtered Up


def test_one_parse_for_both_files_gives_the_same_bytes(tmp_path):
    from cardgen.render.svgconvert import svg_to_files

    svg_to_files(card_svg(), tmp_path / "one.pdf", tmp_path / "one.png", dpi=150)
    svg_to_pdf(card_svg(), tmp_path / "two.pdf")
    svg_to_png(card_svg(), tmp_path / "two.png", dpi=150)
    assert (tmp_path / "one.pdf").read_bytes() == (tmp_path / "two.pdf").read_bytes()
    assert (tmp_path / "one.png").read_bytes() == (tmp_path / "two.png").read_bytes()


def test_png_needs_mm_sizes(tmp_path):
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="200px" height="100px"></svg>'
    with pytest.raises(ValueError, match="mm"):
        svg_to_png(svg, tmp_path / "x.png")


def jobs_for(directory: Path) -> list[RasterJob]:
    return [
        RasterJob(
            svg=card_svg(title),
            pdf=directory / f"{i}.pdf",
            png=directory / f"{i}.png",
            dpi=150,
            key=f"card-{i}",
        )
        for i, title in enumerate(["Dragon Lord", "Quiet Queen", "Wyvern", "Ogre"])
    ]


def outputs(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


def test_parallel_rendering_matches_serial_bytes(tmp_path):
    """Also shows that font subset tags are the same in another process."""
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    done_serial, done_parallel = [], []

    # the project's fonts folder, as a build passes it (project.fonts_dir), in both modes
    rasterise_jobs(jobs_for(serial), workers=1, on_done=done_serial.append, fonts_dir=PROJECT_FONTS)
    rasterise_jobs(jobs_for(parallel), workers=2, on_done=done_parallel.append, fonts_dir=PROJECT_FONTS)

    assert outputs(serial) == outputs(parallel)
    assert len(outputs(serial)) == 8
    assert sorted(job.key for job in done_parallel) == [f"card-{i}" for i in range(4)]
    assert [job.key for job in done_serial] == [f"card-{i}" for i in range(4)]


def test_render_jobs_output_equals_direct_calls(tmp_path):
    [job] = jobs_for(tmp_path / "jobs")[:1]
    rasterise_jobs([job])
    svg_to_pdf(job.svg, tmp_path / "direct.pdf")
    svg_to_png(job.svg, tmp_path / "direct.png", dpi=job.dpi)

    assert job.pdf.read_bytes() == (tmp_path / "direct.pdf").read_bytes()
    assert job.png.read_bytes() == (tmp_path / "direct.png").read_bytes()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_job_names_its_key(tmp_path, workers):
    jobs = jobs_for(tmp_path)[:2] + [
        RasterJob(svg="<svg", pdf=tmp_path / "broken.pdf", png=None, key="card-broken")
    ]
    with pytest.raises(RasterError, match="card-broken"):
        rasterise_jobs(jobs, workers=workers)
    assert not (tmp_path / "broken.pdf").exists()


def test_a_remote_image_is_refused_not_fetched(tmp_path):
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
           'width="10mm" height="10mm" viewBox="0 0 10 10">'
           '<image x="0" y="0" width="10" height="10" xlink:href="https://example.org/art.png"/></svg>')
    with pytest.raises(RasterError, match="refusing to fetch https://example.org/art.png"):
        svg_to_pdf(svg, tmp_path / "a.pdf")
    with pytest.raises(RasterError, match="refusing to fetch"):
        svg_to_png(svg, tmp_path / "a.png")
    assert not (tmp_path / "a.pdf").exists() and not (tmp_path / "a.png").exists()
