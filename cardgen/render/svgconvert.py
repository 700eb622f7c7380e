"""One SVG -> vector PDF or PNG with cairosvg, reproducibly (the rasterise stage runs it in parallel).

Reproducible means the same SVG gives byte-identical files on every run, so rebuilt cards
that did not change show no diff and caches can compare bytes. What cairo 1.16 does:
- PDF: it writes /CreationDate with the current time and ignores SOURCE_DATE_EPOCH, so we
  drop /CreationDate and /ModDate with pikepdf and let qpdf write a /ID derived from the
  content (deterministic_id). Font subset tags ("XGIDSP+Cinzel-Bold") are a hash of the font
  name and the glyphs used, so they are identical between runs and between processes.
- PNG: cairo's rendering is deterministic; cairo draws onto an opaque white surface and Pillow
  encodes its pixels, writing no time or text chunks.

PNG text is drawn with unhinted glyph metrics, like the PDF, so it lands where
`cardgen.render.textfit` measured it. cairo's image surfaces default to hinted metrics, which round
every advance to whole pixels (a 61 mm line of 3.5 mm text came out 0.47 mm too wide at
300 dpi). The only switch cairosvg offers, text-rendering="geometricPrecision", also selects
ANTIALIAS_BEST, which cairo 1.16 renders as garbled glyphs on image surfaces; so we set the
metrics default in cairosvg's own lookup table while rendering (`_unhinted_text`). Glyph
origins are still rounded to whole pixels by cairo 1.16's image backend (at most half a pixel,
not accumulating).

Text only comes out in the project fonts if `cardgen.render.fonts.use_project_fonts` ran first in
the process; `svg_to_pdf` and `svg_to_png` refuse to render otherwise, and `rasterise.rasterise_jobs`
sets it up in every worker.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

from . import libraries  # noqa: F401  # before cairocffi, which looks its C library up when imported

# isort: split
import cairocffi
import cairosvg
import cairosvg.parser
import cairosvg.surface
import pikepdf
from PIL import Image

from .. import atomic
from ..errors import RasterError
from ..pngmeta import png_bytes
from ..units import mm_to_px
from . import fonts

_MM_LENGTH = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*mm\s*")


def offline_fetch(url: str, resource_type: str) -> bytes:
    """cairosvg's fetcher, minus the network: a build never downloads anything.

    Inline data: URLs and local files (an <image> of painted art) load as usual; any other
    scheme fails the render instead of being fetched.
    """
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme not in ("data", "file"):
        raise RasterError(f"refusing to fetch {url}: builds never use the network (embed the file in the project)")
    return cairosvg.url.fetch(url, resource_type)


def svg_to_files(svg: str, pdf: Path | None, png: Path | None, *, dpi: int = 300,
                 size_px: tuple[int, int] | None = None) -> None:
    """`svg_to_pdf` and `svg_to_png` of one SVG (either may be None), parsing it once.

    The same bytes as the two calls: drawing the PDF leaves cairosvg's tree as it was, and
    the PNG only changes the root's preserveAspectRatio, after the PDF is drawn.
    """
    fonts.require_project_fonts()
    tree = _tree(svg)
    if pdf is not None:
        atomic.write_bytes(pdf, _pdf_bytes(tree))
    if png is not None:
        atomic.write_bytes(png, png_bytes(_rgb(tree, dpi, size_px or _size_px(svg, dpi)), dpi))


def svg_to_pdf(svg: str, out: Path) -> None:
    """Vector PDF, page size taken from the SVG's width/height, byte-for-byte reproducible."""
    fonts.require_project_fonts()
    atomic.write_bytes(out, _pdf_bytes(_tree(svg)))


def _tree(svg: str) -> cairosvg.parser.Tree:
    return cairosvg.parser.Tree(bytestring=svg.encode("utf-8"), url_fetcher=offline_fetch)


def _pdf_bytes(tree: cairosvg.parser.Tree) -> bytes:
    output = io.BytesIO()
    cairosvg.surface.PDFSurface(tree, output, 96).finish()  # what svg2pdf does, with our fetcher
    return _reproducible_pdf(output.getvalue())


def _reproducible_pdf(raw: bytes) -> bytes:
    """Remove what cairo makes different on each run: the creation date (and so the /ID)."""
    with pikepdf.open(io.BytesIO(raw)) as pdf:
        for key in ("/CreationDate", "/ModDate"):
            if key in pdf.docinfo:
                del pdf.docinfo[key]
        out = io.BytesIO()
        pdf.save(out, deterministic_id=True)
    return out.getvalue()


def svg_to_png(
    svg: str, out: Path, *, dpi: int = 300, size_px: tuple[int, int] | None = None
) -> None:
    """Opaque RGB PNG of exactly mm_to_px(width/height, dpi) pixels, or exactly `size_px`.

    The drawing is stretched to fill the pixel grid exactly (preserveAspectRatio="none"):
    for `size_px` that is the point (print services ask for e.g. 825 x 1125 px), and at a
    plain dpi it avoids a half-covered last row/column from rounding the size to whole pixels.
    """
    fonts.require_project_fonts()
    atomic.write_bytes(out, png_bytes(render_rgb(svg, dpi, size_px or _size_px(svg, dpi)), dpi))


def _size_px(svg: str, dpi: int) -> tuple[int, int]:
    width_mm, height_mm = svg_size_mm(svg)
    return mm_to_px(width_mm, dpi), mm_to_px(height_mm, dpi)


def render_rgb(svg: str, dpi: int, size_px: tuple[int, int]) -> Image.Image:
    """The SVG drawn over white into an RGB image of `size_px`, stretched to fill it.

    cairo draws straight onto an opaque white surface, whose pixels become the image: no PNG
    is written, read back and flattened in between (that took half the time of a PNG).
    svg2png offers no way to stretch, so we build its Tree and surface ourselves (this is
    what `Surface.convert` does) and override the root's preserveAspectRatio in between.
    """
    return _rgb(_tree(svg), dpi, size_px)


def _rgb(tree: cairosvg.parser.Tree, dpi: int, size_px: tuple[int, int]) -> Image.Image:
    tree["preserveAspectRatio"] = "none"
    width, height = size_px
    with _unhinted_text():
        surface = _OpaqueSurface(tree, None, dpi, output_width=width, output_height=height,
                                 background_color="white")
    surface.cairo.flush()
    image = _OpaqueSurface.image_of(surface.cairo)
    surface.finish()
    return image


class _OpaqueSurface(cairosvg.surface.PNGSurface):
    """cairosvg's raster surface without an alpha channel (cairo's RGB24 format)."""

    def _create_surface(self, width: float, height: float):
        width, height = int(round(width)), int(round(height))
        return cairocffi.ImageSurface(cairocffi.FORMAT_RGB24, width, height), width, height

    @staticmethod
    def image_of(surface: cairocffi.ImageSurface) -> Image.Image:
        """RGB24 pixels are 32-bit native-endian words 0xXXRRGGBB: BGRX bytes on little-endian.

        Decoding them to RGB copies them, so the image is read straight from cairo's memory and
        keeps nothing of it (the surface may be finished after)."""
        raw = "BGRX" if sys.byteorder == "little" else "XRGB"
        size = (surface.get_width(), surface.get_height())
        return Image.frombuffer("RGB", size, surface.get_data(), "raw", raw, surface.get_stride(), 1)


@contextlib.contextmanager
def _unhinted_text() -> Iterator[None]:
    """Make cairosvg draw text without a text-rendering attribute unhinted (see module doc).

    cairosvg looks the attribute up with `TABLE.get(node.get("text-rendering"), DEFAULT)`, so
    an entry for None replaces the default for such text, and only for it.
    """
    tables = (
        (cairosvg.surface.TEXT_HINT_METRICS, cairocffi.HINT_METRICS_OFF),
        (cairosvg.surface.TEXT_HINT_STYLE, cairocffi.HINT_STYLE_NONE),
    )
    for table, value in tables:
        table[None] = value
    try:
        yield
    finally:
        for table, _ in tables:
            del table[None]


def svg_size_mm(svg: str) -> tuple[float, float]:
    """The root element's width and height, which cardgen always gives in millimetres."""
    root = ElementTree.fromstring(svg)
    sizes = []
    for attribute in ("width", "height"):
        value = root.get(attribute, "")
        match = _MM_LENGTH.fullmatch(value)
        if not match:
            raise ValueError(f"SVG {attribute} must be in mm (like '69mm'), got {value!r}")
        sizes.append(float(match.group(1)))
    return sizes[0], sizes[1]
