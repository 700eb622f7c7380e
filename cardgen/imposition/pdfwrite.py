"""Writing imposed pages: base pages by reportlab, vector pieces placed by pikepdf.

reportlab draws what belongs to the sheet (crop marks, cut circles, alignment triangles, scale
bars, page text in an embedded TrueType font). pikepdf then puts each distinct input PDF into the output
ONCE, as a Form XObject, and draws it wherever it is needed with a `cm` matrix under a clip,
so 20 copies of a card cost 20 short content-stream snippets, not 20 copies of the card, and
nothing is ever rasterised. The pieces are drawn BEFORE the reportlab content, so cut circles
stay visible on top of the art while crop marks and footer (outside the art) are unaffected.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path

import pikepdf
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from ..atomic import atomic_path
from ..units import mm_to_pt, pt_to_mm
from .geometry import Label, Mark, Rect
from .marks import ALIGN_HALF_MM, SCALE_TICK_MM

DEFAULT_FONT = Path(__file__).resolve().parents[2] / "fonts" / "AlegreyaSans-Regular.ttf"
LINE_PT = 0.3        # crop marks: thin, but a home printer's 600 DPI still draws them solid
CUT_CASING_PT = 1.0  # white casing under a cut line drawn over art
SIZE_TOLERANCE_MM = 0.1


@dataclass(frozen=True)
class Draw:
    """Draw source `key` with its lower-left corner at (x_mm, y_mm), scaled by (sx, sy),
    showing only `clip`."""

    key: str
    x_mm: float
    y_mm: float
    clip: Rect
    sx: float = 1.0
    sy: float = 1.0


@dataclass
class PagePlan:
    w_mm: float
    h_mm: float
    marks: list[Mark] = field(default_factory=list)
    draws: list[Draw] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    trim_box: Rect | None = None   # for print shops: the cut
    bleed_box: Rect | None = None  # and what is printed beyond it


@dataclass(frozen=True)
class _Source:
    form: pikepdf.Object  # Form XObject of the page, still in the source PDF
    llx_pt: float  # lower-left corner of the page as drawn (MediaBox after /Rotate etc.)
    lly_pt: float
    w_mm: float
    h_mm: float


class SourceLibrary(contextlib.AbstractContextManager):
    """The distinct input PDFs, keyed by content hash; keeps them open until the output is saved
    (pikepdf copies foreign stream data lazily, at save time)."""

    def __init__(self) -> None:
        self._stack = contextlib.ExitStack()
        self._sources: dict[str, _Source] = {}
        self.pdf_version = "1.4"  # transparency groups, as cairo writes them, need 1.4

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def add(self, path: Path, size_mm: tuple[float, float] | None = None) -> str:
        """Validate `path` (exists, one page, `size_mm` if given) and return its content key."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except OSError as err:
            raise ValueError(f"{path}: cannot read piece PDF ({err.strerror})") from err
        key = hashlib.sha256(data).hexdigest()
        if key not in self._sources:
            self._sources[key] = self._open(path, data)
        source = self._sources[key]
        if size_mm is not None and not _same_size((source.w_mm, source.h_mm), size_mm):
            raise ValueError(
                f"{path}: page is {source.w_mm:.2f} x {source.h_mm:.2f} mm, "
                f"expected {size_mm[0]:.2f} x {size_mm[1]:.2f} mm (trim + bleed on each side)")
        return key

    def size_mm(self, key: str) -> tuple[float, float]:
        source = self._sources[key]
        return source.w_mm, source.h_mm

    def _open(self, path: Path, data: bytes) -> _Source:
        try:
            pdf = self._stack.enter_context(pikepdf.open(io.BytesIO(data)))
        except pikepdf.PdfError as err:
            raise ValueError(f"{path}: not a readable PDF ({err})") from err
        if len(pdf.pages) != 1:
            raise ValueError(f"{path}: expected a one-page PDF, found {len(pdf.pages)} pages")
        self.pdf_version = max(self.pdf_version, pdf.pdf_version)
        form = _form_of(pdf.pages[0])
        llx, lly, urx, ury = _drawn_box(form)
        return _Source(form, llx, lly, pt_to_mm(urx - llx), pt_to_mm(ury - lly))

    def install(self, target: pikepdf.Pdf, keys: list[str]) -> dict[str, tuple[pikepdf.Name, pikepdf.Object]]:
        """Copy each source in `keys` into `target` once; names follow first use, so stable."""
        installed: dict[str, tuple[pikepdf.Name, pikepdf.Object]] = {}
        for key in keys:
            if key not in installed:
                form = target.copy_foreign(self._sources[key].form)
                installed[key] = (pikepdf.Name(f"/Piece{len(installed)}"), form)
        return installed

    def origin_pt(self, key: str) -> tuple[float, float]:
        source = self._sources[key]
        return source.llx_pt, source.lly_pt


def _form_of(page: pikepdf.Page) -> pikepdf.Object:
    """The page as a Form XObject showing the whole MediaBox: a TrimBox in the input must not
    cut away the bleed that imposition relies on."""
    form = page.as_form_xobject()
    form.BBox = pikepdf.Array(page.mediabox)
    return form


def _drawn_box(form: pikepdf.Object) -> tuple[float, float, float, float]:
    """Form BBox mapped through its /Matrix (set for /Rotate pages): what is drawn, in points."""
    x0, y0, x1, y1 = (float(v) for v in form.BBox)
    a, b, c, d, e, f = (float(v) for v in form.get("/Matrix", [1, 0, 0, 1, 0, 0]))
    xs, ys = [], []
    for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
        xs.append(a * x + c * y + e)
        ys.append(b * x + d * y + f)
    return min(xs), min(ys), max(xs), max(ys)


def _same_size(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return abs(a[0] - b[0]) <= SIZE_TOLERANCE_MM and abs(a[1] - b[1]) <= SIZE_TOLERANCE_MM


def register_font(font_path: Path | None) -> str:
    """Register the footer TTF with reportlab (which embeds a subset) and return its name.
    There is deliberately no fallback to a base-14 font: those are never embedded."""
    path = Path(font_path) if font_path is not None else DEFAULT_FONT
    if not path.is_file():
        raise ValueError(f"{path}: footer font not found")
    name = "cardgen-" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    if name not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(name, str(path)))
    return name


def write_sheet_pdf(plans: list[PagePlan], library: SourceLibrary, out: Path, *, font: str, title: str) -> None:
    """Render `plans` into `out`, atomically and byte-for-byte reproducibly."""
    base = _base_pages(plans, font)
    with pikepdf.open(io.BytesIO(base)) as pdf:
        installed = library.install(pdf, [d.key for plan in plans for d in plan.draws])
        for page, plan in zip(pdf.pages, plans):
            if plan.draws:
                _place(pdf, page, plan.draws, installed, library)
            for name, box in (("/TrimBox", plan.trim_box), ("/BleedBox", plan.bleed_box)):
                if box is not None:
                    page.obj[name] = pikepdf.Array([_box_number(mm_to_pt(v)) for v in (box.x, box.y, box.x1, box.y1)])
        _fix_metadata(pdf, title)
        with atomic_path(out) as tmp:
            pdf.save(tmp, deterministic_id=True, compress_streams=True,
                     min_version=library.pdf_version)


def _base_pages(plans: list[PagePlan], font: str) -> bytes:
    buf = io.BytesIO()
    # initialFontName: otherwise reportlab references (unembedded) Helvetica on every page.
    canvas = Canvas(buf, invariant=1, pageCompression=1, initialFontName=font, initialFontSize=6)
    for plan in plans:
        canvas.setPageSize((mm_to_pt(plan.w_mm), mm_to_pt(plan.h_mm)))
        canvas.setLineWidth(LINE_PT)
        canvas.setStrokeColorRGB(0, 0, 0)
        canvas.setFillColorRGB(0, 0, 0)
        for mark in plan.marks:
            _draw_mark(canvas, mark)
        for label in plan.labels:
            canvas.saveState()
            canvas.setFont(font, label.size_pt)
            canvas.translate(mm_to_pt(label.x_mm), mm_to_pt(label.y_mm))
            if label.angle:
                canvas.rotate(label.angle)
            canvas.drawString(0, 0, label.text)
            canvas.restoreState()
        canvas.showPage()
    canvas.save()
    return buf.getvalue()


def _draw_mark(canvas: Canvas, mark: Mark) -> None:
    p = mm_to_pt
    if mark.kind == "crop":
        canvas.line(p(mark.x0), p(mark.y0), p(mark.x1), p(mark.y1))
    elif mark.kind == "circle":
        # printed over the piece's colour: a black line in a white casing shows on any colour
        canvas.saveState()
        canvas.setStrokeColorRGB(1, 1, 1)
        canvas.setLineWidth(CUT_CASING_PT)
        canvas.circle(p(mark.x0), p(mark.y0), p(mark.x1 - mark.x0), stroke=1, fill=0)
        canvas.restoreState()
        canvas.circle(p(mark.x0), p(mark.y0), p(mark.x1 - mark.x0), stroke=1, fill=0)
    elif mark.kind == "outline":  # over the art, like a cut circle: cased in white
        canvas.saveState()
        canvas.setStrokeColorRGB(1, 1, 1)
        canvas.setLineWidth(CUT_CASING_PT)
        canvas.rect(p(mark.x0), p(mark.y0), p(mark.x1 - mark.x0), p(mark.y1 - mark.y0), stroke=1, fill=0)
        canvas.restoreState()
        canvas.rect(p(mark.x0), p(mark.y0), p(mark.x1 - mark.x0), p(mark.y1 - mark.y0), stroke=1, fill=0)
    elif mark.kind == "bar":
        canvas.rect(p(min(mark.x0, mark.x1)), p(min(mark.y0, mark.y1)), p(abs(mark.x1 - mark.x0)),
                    p(abs(mark.y1 - mark.y0)), stroke=0, fill=1)
    elif mark.kind == "scale":
        # a baseline with a tall tick at both ends and a short one every 10 mm; ticks point up
        # from a horizontal bar and left from a vertical one
        length = mark.length
        ux, uy = (mark.x1 - mark.x0) / length, (mark.y1 - mark.y0) / length
        tx, ty = (0.0, 1.0) if uy == 0 else (-1.0, 0.0)
        canvas.line(p(mark.x0), p(mark.y0), p(mark.x1), p(mark.y1))
        for i in range(int(round(length / 10)) + 1):
            d = min(10.0 * i, length)
            tick = SCALE_TICK_MM if i == 0 or d >= length - 1e-6 else SCALE_TICK_MM / 2
            x, y = mark.x0 + ux * d, mark.y0 + uy * d
            canvas.line(p(x), p(y), p(x + tx * tick), p(y + ty * tick))
    elif mark.kind == "align":
        # base perpendicular to the axis (axes are horizontal or vertical)
        ux, uy = (mark.x1 - mark.x0) / mark.length, (mark.y1 - mark.y0) / mark.length
        nx, ny = -uy * ALIGN_HALF_MM, ux * ALIGN_HALF_MM
        path = canvas.beginPath()
        path.moveTo(p(mark.x0 + nx), p(mark.y0 + ny))
        path.lineTo(p(mark.x0 - nx), p(mark.y0 - ny))
        path.lineTo(p(mark.x1), p(mark.y1))
        path.close()
        canvas.drawPath(path, stroke=0, fill=1)
    else:
        raise ValueError(f"unknown mark kind {mark.kind!r}")


def _place(pdf: pikepdf.Pdf, page: pikepdf.Page, draws: list[Draw],
           installed: dict[str, tuple[pikepdf.Name, pikepdf.Object]], library: SourceLibrary) -> None:
    """Prepend one q/clip/cm/Do/Q group per draw and give the page its own XObject dict."""
    ops = []
    for draw in draws:
        name, _ = installed[draw.key]
        llx, lly = library.origin_pt(draw.key)
        c = draw.clip
        ops.append(
            f"q {_n(mm_to_pt(c.x))} {_n(mm_to_pt(c.y))} {_n(mm_to_pt(c.w))} {_n(mm_to_pt(c.h))} re W n "
            f"{_n(draw.sx)} 0 0 {_n(draw.sy)} {_n(mm_to_pt(draw.x_mm) - llx * draw.sx)} "
            f"{_n(mm_to_pt(draw.y_mm) - lly * draw.sy)} cm {name} Do Q")
    page.contents_add(pikepdf.Stream(pdf, "\n".join(ops).encode() + b"\n"), prepend=True)
    resources = pikepdf.Dictionary({k: v for k, v in page.obj.Resources.items()})
    resources.XObject = pikepdf.Dictionary({str(installed[d.key][0]): installed[d.key][1] for d in draws})
    page.obj.Resources = resources


def _box_number(value: float) -> float:
    return float(_n(value))


def _n(value: float) -> str:
    """Fixed-precision number for content streams (1/10000 pt), no '-0'."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _fix_metadata(pdf: pikepdf.Pdf, title: str) -> None:
    """Replace reportlab's /Info (dates, producer) with fixed, meaningful entries only."""
    info = pikepdf.Dictionary(Creator=pikepdf.String("cardgen imposition"))
    if title:
        info.Title = pikepdf.String(title)
    pdf.trailer.Info = pdf.make_indirect(info)
