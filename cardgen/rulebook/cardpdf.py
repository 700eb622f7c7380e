"""Card pictures in a rulebook PDF: the card's own vector PDF, drawn once per document.

weasyprint draws an SVG <image> by walking the SVG tree in Python every time the image is
used (a card list of 30 faces plus the figures took 60 % of writing the PDF), and writes each
use out again. So a rulebook is laid out with a tiny placeholder image standing for each face
(served by `fetch.ProjectFetcher` instead of the face's SVG), and `place_cards` then swaps
every placeholder for the face's vector PDF, the one the rasterise stage made for the print
sheets, as a form XObject: drawn by cairo exactly as the cards print, stored once per
document however often it is shown, and still vector (text stays text).

A placeholder is a 12 x 1 RGB image: a marker pixel, then the 32 bytes of the face's SVG
digest, so the swap needs nothing from weasyprint beyond the pixels it was given.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..buildtypes import BuildOptions, Face, FaceFiles, Progress, RenderedSet
from ..cache import Cache

if TYPE_CHECKING:  # a worker laying a document out imports this module, and none of the data model
    import pikepdf

    from ..data.project import Project

MARKER = (0xCA, 0x4D, 0x67)  # "cardgen" in the first pixel
WIDTH = 12  # the marker + 11 pixels = 33 bytes for a 32-byte digest (one byte of padding)


def placeholder_png(digest: str) -> bytes:
    """The placeholder image standing for the face whose SVG has this sha256 digest."""
    from PIL import Image  # here, like pikepdf below: filling a template (`validate`) needs neither

    data = bytes(MARKER) + bytes.fromhex(digest) + b"\0"
    image = Image.frombytes("RGB", (WIDTH, 1), data)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def placeholder_digest(obj: pikepdf.Object) -> str | None:
    """The face digest a placeholder image XObject stands for; None for any other object."""
    import pikepdf

    if not isinstance(obj, pikepdf.Stream) or obj.get("/Subtype") != "/Image":
        return None
    if obj.get("/Width") != WIDTH or obj.get("/Height") != 1:
        return None
    pixels = _rgb_pixels(obj)
    if pixels is None:
        try:
            pixels = pikepdf.PdfImage(obj).as_pil_image().convert("RGB").tobytes()
        except Exception:  # an image of the user's that pikepdf cannot decode is not ours
            return None
    if pixels[:3] != bytes(MARKER):
        return None
    return pixels[3:35].hex()


def _rgb_pixels(obj: pikepdf.Stream) -> bytes | None:
    """An 8-bit RGB image's pixels as qpdf decodes its stream (weasyprint stores a PNG as Flate
    with PNG predictors, which qpdf undoes): a hundredth of the time of decoding it through
    PIL, which a document with many card pictures felt. None for any other image."""
    if obj.get("/ColorSpace") != "/DeviceRGB" or obj.get("/BitsPerComponent") != 8 or "/SMask" in obj:
        return None
    try:
        pixels = obj.read_bytes()
    except Exception:  # a filter qpdf does not decode: PIL's turn
        return None
    return pixels if len(pixels) == 3 * WIDTH else None


def faces_dir(project: Project) -> Path:
    """Where `helpers.FaceStore` keeps the faces' SVG for the rulebook, by digest."""
    return project.cache_dir / "svg"


def face_svg_path(project: Project, digest: str) -> Path:
    return Cache(faces_dir(project)).path(digest, ".svg")


def card_pdfs(project: Project, digests: Iterable[str], files: dict[str, FaceFiles]) -> dict[str, Path]:
    """The vector PDF of each face: the build's own renders (`files`), else rendered here.

    In a build every face the rulebook shows has been rasterised already; a rulebook laid
    out on its own (tests, a face only the rulebook draws) renders the rest into the same
    cache, so they are made once.
    """
    from ..render.rasterise import Rasteriser  # imported here: cairo loads only when a face is missing

    known = {ff.face.digest: ff.pdf for ff in files.values() if ff.pdf.is_file()}
    missing = {d: Face(d, face_svg_path(project, d).read_text(encoding="utf-8"), 0, 0)
               for d in sorted(set(digests)) if d not in known}
    if missing:
        rasteriser = Rasteriser(project, BuildOptions(png=False, workers=1), Progress())
        rendered, jobs = rasteriser.plan(RenderedSet(faces=missing))
        rasteriser.wait(jobs, None)
        known.update({d: rendered[d].pdf for d in missing})
    return known


def place_cards(data: bytes, pdfs: dict[str, Path]) -> bytes:
    """Swap every placeholder image in the PDF for the form XObject of its face's PDF."""
    import pikepdf

    with pikepdf.open(io.BytesIO(data)) as doc, contextlib.ExitStack() as sources:
        forms: dict[str, pikepdf.Object] = {}
        for obj in list(doc.objects):
            resources = obj.get("/Resources") if isinstance(obj, (pikepdf.Dictionary, pikepdf.Stream)) else None
            xobjects = resources.get("/XObject") if isinstance(resources, pikepdf.Dictionary) else None
            if not isinstance(xobjects, pikepdf.Dictionary):
                continue
            for name in list(xobjects.keys()):
                digest = placeholder_digest(xobjects[name])
                if digest is None:
                    continue
                if digest not in forms:
                    card = sources.enter_context(pikepdf.open(pdfs[digest]))
                    forms[digest] = doc.copy_foreign(_unit_form(card))
                xobjects[name] = forms[digest]
        if not forms:
            return data
        out = io.BytesIO()
        doc.save(out, deterministic_id=True)  # qpdf copies the cards' streams while saving
    return out.getvalue()


def _unit_form(card: pikepdf.Pdf) -> pikepdf.Object:
    """The card's page as a form drawn into the unit square, where an image XObject draws."""
    import pikepdf

    page = card.pages[0]
    form = page.as_form_xobject()
    x0, y0, x1, y1 = (float(v) for v in page.mediabox)
    w, h = x1 - x0, y1 - y0
    form.Matrix = pikepdf.Array([1 / w, 0, 0, 1 / h, -x0 / w, -y0 / h])
    return form
