"""Builds use the project's fonts only, embedded as subsets, whatever the machine has."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import cairosvg
import pikepdf
import pytest
from fontTools.ttLib import TTFont

from cardgen.render import fonts

SUBSET_NAME = re.compile(r"^/([A-Z]{6})\+(.+)$")


@pytest.fixture(scope="module", autouse=True)
def project_fonts():
    fonts.use_project_fonts()


def svg_with(*texts: str) -> bytes:
    """A 60 mm wide SVG with one <text> per attribute string in `texts`."""
    lines = "".join(
        f'<text x="2" y="{8 + 8 * i}" font-size="5" {attrs}>Quest 1</text>'
        for i, attrs in enumerate(texts)
    )
    height = 8 * len(texts) + 4
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="60mm" height="{height}mm"'
        f' viewBox="0 0 60 {height}">{lines}</svg>'
    ).encode()


def pdf_fonts(pdf_bytes: bytes) -> dict[str, set[str]]:
    """BaseFont -> keys of the font descriptor, for every font used on every page."""
    found = {}
    with pikepdf.open(io.BytesIO(pdf_bytes)) as pdf:
        for page in pdf.pages:
            for font in page.resources.get("/Font", {}).values():
                if "/DescendantFonts" in font:
                    descriptor = font.DescendantFonts[0].FontDescriptor
                else:
                    descriptor = font.FontDescriptor
                found[str(font.BaseFont)] = set(descriptor.keys())
    return found


def postscript_name(path: Path) -> str:
    return TTFont(path)["name"].getDebugName(6)


def test_pdf_fonts_are_embedded_project_subsets_even_for_system_families():
    svg = svg_with(
        'font-family="Cinzel" font-weight="bold"',
        'font-family="Alegreya Sans"',
        'font-family="DejaVu Sans"',
        'font-family="serif"',
        'font-family="monospace" font-weight="bold"',
        'font-family="No Such Font"',
    )
    found = pdf_fonts(cairosvg.svg2pdf(svg))

    names = set()
    for base_font, descriptor_keys in found.items():
        match = SUBSET_NAME.match(base_font)
        assert match, f"{base_font} is not a subset"
        names.add(match.group(2))
        assert descriptor_keys & {"/FontFile2", "/FontFile3"}, base_font
    assert names == {"Cinzel-Bold", "AlegreyaSans-Regular", "AlegreyaSans-Bold"}


@pytest.mark.parametrize("family", ["Cinzel", "Alegreya Sans"])
@pytest.mark.parametrize("bold", [False, True])
@pytest.mark.parametrize("italic", [False, True])
def test_fontset_picks_the_face_cairo_draws_with(family, bold, italic):
    """Styles a family lacks fall back the same way in FontSet and in fontconfig/cairo."""
    attrs = (
        f'font-family="{family}" font-weight="{"bold" if bold else "normal"}"'
        f' font-style="{"italic" if italic else "normal"}"'
    )
    [base_font] = pdf_fonts(cairosvg.svg2pdf(svg_with(attrs)))

    expected = postscript_name(fonts.FontSet().path(family, bold, italic))
    assert SUBSET_NAME.match(base_font).group(2) == expected


def test_fontset_finds_project_families():
    fontset = fonts.FontSet()
    assert fontset.families == ["Alegreya Sans", "Cinzel"]
    assert fontset.path("Cinzel", bold=True).name == "Cinzel-Bold.ttf"
    assert fontset.path("alegreya sans", italic=True).name == "AlegreyaSans-Italic.ttf"


def test_unknown_family_is_a_one_line_error():
    with pytest.raises(fonts.UnknownFamilyError) as error:
        fonts.FontSet().metrics("Comic Sans")
    message = str(error.value)
    assert "Comic Sans" in message and "Cinzel" in message and "\n" not in message


def test_missing_glyph_is_a_one_line_error():
    with pytest.raises(fonts.MissingGlyphError, match=r"U\+2192"):
        fonts.FontSet().metrics("Cinzel").advance("A→B")


def test_config_lists_only_the_project_folder(tmp_path):
    xml = fonts.fontconfig_xml(fonts.DEFAULT_FONTS_DIR, tmp_path)

    assert re.findall(r"<dir>(.*?)</dir>", xml) == [str(fonts.DEFAULT_FONTS_DIR.resolve())]  # the real folder, not a link
    [cachedir] = re.findall(r"<cachedir>(.*?)</cachedir>", xml)
    assert Path(cachedir).is_relative_to(tmp_path.resolve())
    assert "<include" not in xml
    for generic in ("serif", "sans-serif", "monospace"):
        assert f"<family>{generic}</family><prefer><family>Alegreya Sans</family>" in xml
    assert 'mode="append_last"' in xml


def test_use_project_fonts_is_idempotent_and_sets_the_environment():
    fonts.use_project_fonts()  # whichever cache folder an earlier test configured, this process keeps it
    conf = Path(os.environ["FONTCONFIG_FILE"])
    mtime = conf.stat().st_mtime_ns

    fonts.use_project_fonts()

    assert Path(os.environ["FONTCONFIG_FILE"]) == conf
    assert conf.name == "fonts.conf" and conf.is_file()
    assert conf.stat().st_mtime_ns == mtime  # unchanged content is not rewritten
    fonts.require_project_fonts()


def test_a_copy_of_the_same_fonts_is_accepted_other_fonts_are_refused(tmp_path):
    copy, other = tmp_path / "copy", tmp_path / "other"
    shutil.copytree(fonts.DEFAULT_FONTS_DIR, copy)
    other.mkdir()
    shutil.copy2(fonts.DEFAULT_FONTS_DIR / "Cinzel-Regular.ttf", other)
    before = os.environ["FONTCONFIG_FILE"]

    fonts.use_project_fonts(copy, tmp_path / "cache")  # e.g. a test's copy of the project
    assert os.environ["FONTCONFIG_FILE"] == before
    with pytest.raises(fonts.FontError, match="only one font set"):
        fonts.use_project_fonts(other, tmp_path / "cache")


def run_python(code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "FONTCONFIG_FILE"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )


TEXT_SVG = (
    "b'<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10mm\" height=\"10mm\">"
    "<text y=\"9\" font-family=\"serif\">x</text></svg>'"
)


def test_importing_cairosvg_does_not_initialise_fontconfig():
    result = run_python(
        "import cairosvg\n"
        "from cardgen.render import fonts\n"
        "fonts.use_project_fonts()\n"
        f"cairosvg.svg2pdf({TEXT_SVG})\n"
    )
    assert result.returncode == 0, result.stderr


def test_configuring_after_text_was_rendered_fails_loudly():
    """fontconfig is initialised by the first text drawn, and reads its config only then."""
    result = run_python(
        "import cairosvg\n"
        f"cairosvg.svg2pdf({TEXT_SVG})\n"
        "from cardgen.render import fonts\n"
        "fonts.use_project_fonts()\n"
    )
    assert result.returncode != 0
    assert "FontError: fontconfig was initialised before use_project_fonts()" in result.stderr


def test_text_still_prints_after_the_configured_fonts_folder_is_deleted(tmp_path):
    """fontconfig keeps the folder it was first given for the whole process: a test's project
    copy that is deleted later, or fonts/ moved while `cardgen serve` runs, must not make later
    cards come out without glyphs (they did, late in a full test run)."""
    copy = tmp_path / "project-fonts"
    shutil.copytree(fonts.DEFAULT_FONTS_DIR, copy)
    card = ("'<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40mm\" height=\"10mm\">"
            "<text y=\"9\" font-family=\"{family}\" font-weight=\"{weight}\">Dragon Lord</text></svg>'")
    result = run_python(
        "import shutil, sys, pikepdf\n"
        "from pathlib import Path\n"
        "from cardgen.render import fonts\n"
        "from cardgen.render.svgconvert import svg_to_pdf\n"
        f"fonts.use_project_fonts(Path({str(copy)!r}), Path({str(tmp_path / 'cache')!r}))\n"
        f"svg_to_pdf({card.format(family='Cinzel', weight='normal')}, Path({str(tmp_path / 'a.pdf')!r}))\n"
        f"shutil.rmtree({str(copy)!r})\n"
        # a face this process has not opened yet, after its folder is gone
        f"svg_to_pdf({card.format(family='Alegreya Sans', weight='bold')}, Path({str(tmp_path / 'b.pdf')!r}))\n"
    )
    assert result.returncode == 0, result.stderr
    embedded = subprocess.run(["pdffonts", tmp_path / "b.pdf"], capture_output=True, text=True,
                              check=True).stdout
    assert "AlegreyaSans-Bold" in embedded
    served = Path(os.environ["FONTCONFIG_FILE"]).read_text(encoding="utf-8")
    assert str(fonts.DEFAULT_FONTS_DIR.resolve()) not in served  # a snapshot in the cache, not the folder


def test_font_metrics_are_kept_by_content_and_read_back_exactly(tmp_path, monkeypatch):
    """The ink boxes of every glyph are measured once per font file content: a second process
    reads them from the cache, and what it reads equals a fresh measurement, number for number."""
    import json

    monkeypatch.setenv("CARDGEN_CACHE_DIR", str(tmp_path / "cache"))
    face = fonts.FontSet(fonts.DEFAULT_FONTS_DIR).resolve("Cinzel")
    fresh = fonts._measure(face.path)
    assert fonts._measured(face.path) == fresh  # measured, then written
    stored = list((tmp_path / "cache" / "fontmetrics").glob("*.json"))
    assert len(stored) == 1 and json.loads(stored[0].read_text()) == fresh
    metrics = fonts.FontMetrics(face)  # built from the stored file
    assert metrics.advance("Q") == fresh["advances"][str(ord("Q"))]
    assert metrics.ink_x("Q")[1] - metrics.advance("Q") > 0.4  # Cinzel's Q tail reaches past its advance
    assert metrics.ascent >= 0.7 and metrics.descent > 0
    copy = tmp_path / "Same.ttf"  # the same bytes elsewhere: the same entry
    shutil.copyfile(face.path, copy)
    assert fonts._measured(copy) == fresh and len(list(stored[0].parent.glob("*.json"))) == 1
    stored[0].write_text("{broken")  # a damaged entry is measured again, not trusted
    assert fonts._measured(face.path) == fresh and json.loads(stored[0].read_text()) == fresh
