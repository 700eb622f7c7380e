"""A rulebook's inline SVG pictures reach weasyprint as images (cardgen/rulebook/pictures.py),
drawn as the document's CSS says: one that still selects `svg` by name keeps them inline."""

from __future__ import annotations

import base64
import re

import pypdfium2
import pytest
from conftest import ROOT

from cardgen.rulebook import pictures
from cardgen.rulebook.layout import Places, RulebookDocument, lay_out
from cardgen.rulebook.pictures import as_images, selects_svg

ICON = ('<svg class="icon" style="color:red" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
        '<circle cx="5" cy="5" r="4" fill="#a03020"/></svg>')


def test_an_inline_picture_becomes_an_image_of_the_same_svg_with_its_class_and_style():
    html = f"<p>before {ICON} after</p>"
    swapped = as_images(html)
    image = re.fullmatch(r'<p>before <img class="icon" style="color:red" src="data:image/svg\+xml;base64,([^"]+)"> '
                         r"after</p>", swapped)
    assert image, swapped
    assert base64.b64decode(image.group(1)).decode() == ICON


@pytest.mark.parametrize("svg", [
    '<svg viewBox="0 0 10 10"><image href="art/lion.png" width="10" height="10"/></svg>',  # relative URL
    '<svg width="20" height="20" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>',  # its own size
    '<svg viewBox="0 0 10 10"><text>a&nbsp;b</text></svg>',  # an HTML entity: not XML
])
def test_a_picture_that_would_read_differently_as_an_image_stays_inline(svg):
    assert as_images(f"<div>{svg}</div>") == f"<div>{svg}</div>"


@pytest.mark.parametrize("css, selects", [
    ("svg.icon { width: 1em }", True),
    (".legend svg { width: 7mm }", True),
    ("@media print { .a > SVG { color: red } }", True),
    (".x:not(svg) { color: red }", True),
    (":is(svg, img).icon { width: 1em }", False),
    (".legend dt :where(img, svg).icon { width: 7mm }", False),
    (".svg-row, #svg, img { color: red } /* svg.icon */", False),
    ("@page { size: A4 } @font-face { font-family: x }", False),
    (":is(svg, img).a, svg.b { color: red }", True),  # the element named beside the allowed spelling
    (r"sv\67 .icon { width: 1em }", True),  # an escape spells it
    (":IS( img , SVG ).icon { width: 1em }", False),
])
def test_stylesheets_that_select_svg_by_name(css, selects):
    assert selects_svg(css) is selects


def _pixels(tmp_path, css: str) -> bytes:
    """The first page of a one-picture document laid out with `css`, as RGB pixels at 36 dpi."""
    (tmp_path / "doc.css").write_text(css)
    doc = RulebookDocument(tmp_path / "doc.html.j2", f'<html><head><link rel="stylesheet" href="doc.css"></head>'
                           f'<body style="margin:0">{ICON}</body></html>', tmp_path.as_uri() + "/")
    places = Places(tmp_path, tmp_path / "build", tmp_path / "cache", ROOT / "fonts")
    page = pypdfium2.PdfDocument(lay_out(places, doc).data)[0]
    return page.render(scale=0.5).to_pil().convert("RGB").tobytes()


def test_a_project_stylesheet_naming_svg_still_sizes_its_pictures(tmp_path, monkeypatch):
    plain = _pixels(tmp_path, "@page { size: 60mm 60mm; margin: 5mm }")
    by_class = _pixels(tmp_path, "@page { size: 60mm 60mm; margin: 5mm } :is(svg, img).icon { width: 40mm; height: 40mm }")
    by_name = _pixels(tmp_path, "@page { size: 60mm 60mm; margin: 5mm } svg.icon { width: 40mm; height: 40mm }")
    assert by_class != plain  # the rule sizes the picture...
    assert by_name == by_class  # ...whether it names the element or not
    monkeypatch.setattr(pictures, "selects_svg", lambda css: False)  # had the pictures been swapped anyway
    assert _pixels(tmp_path, "@page { size: 60mm 60mm; margin: 5mm } svg.icon { width: 40mm; height: 40mm }") != by_class


@pytest.mark.parametrize("url", [
    re.search(r'src="([^"]+)"', as_images(ICON)).group(1),  # a picture as_images handed over: read by cardgen
    "data:image/svg+xml;base64,PHN2Zy8%2B",  # a %-escape: weasyprint's own reading
    "data:image/svg+xml;charset=utf-8;base64,PHN2Zy8+",
])
def test_the_fetcher_serves_a_picture_as_weasyprints_own_fetcher_does(url, tmp_path):
    from weasyprint.urls import URLFetcher

    from cardgen.rulebook.layout import project_fetcher

    ours = project_fetcher(Places(tmp_path, tmp_path, tmp_path, tmp_path)).fetch(url)
    theirs = URLFetcher().fetch(url)
    assert (ours.url, ours.content_type, ours.charset, ours.read()) == \
        (theirs.url, theirs.content_type, theirs.charset, theirs.read())
