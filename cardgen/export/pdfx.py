"""Print-shop PDFs in CMYK: PDF/X-1a:2003 or PDF/X-4, written by cardgen itself.

Each distinct face is flattened once (`flatten`: opaque pieces, vector paths, text in its
embedded fonts) and separated into DeviceCMYK (`separation`: littleCMS, ink limit, black text
in black ink), and stored once as a Form XObject; pages draw it like the RGB file does (the
true-size face over a stretched copy that fills a larger bleed), on a white ground. The file
carries what PDF/X asks for: an OutputIntent naming the printing condition with its ICC profile
embedded, GTS_PDFXVersion in the document information and the XMP metadata, Trapped, fixed
dates, a TrimBox and BleedBox on every page, a trailer ID; no transparency, no RGB.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

import pikepdf

from ..atomic import atomic_path
from ..units import mm_to_pt
from .flatten import Flattener, instructions, render
from .separation import CONDITION, CONDITION_ID, REGISTRY, Separation

FIXED_EPOCH = 946684800  # 2000-01-01: PDF/X wants dates; the same cards give the same bytes
PDF_VERSION = {"PDF/X-1a:2003": "1.4", "PDF/X-4": "1.6"}


@dataclass(frozen=True)
class Draw:
    """Face `source` drawn with its lower-left corner at (x, y) mm, scaled, shown within `clip`
    (x, y, w, h in mm); `ground`: white under the clip first (the design lies on white paper)."""

    source: Path
    x_mm: float
    y_mm: float
    clip: tuple[float, float, float, float]
    sx: float = 1.0
    sy: float = 1.0
    ground: bool = False


@dataclass
class Page:
    w_mm: float
    h_mm: float
    trim: tuple[float, float, float, float]  # x, y, w, h in mm
    draws: list[Draw]


def _date() -> dt.datetime:
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", FIXED_EPOCH))
    return dt.datetime.fromtimestamp(epoch, dt.timezone.utc)


def _pt(v: float) -> str:
    return f"{mm_to_pt(v):.4f}".rstrip("0").rstrip(".")


def write_pdfx(pages: list[Page], out: Path, *, title: str, flavour: str, separation: Separation,
               names: dict[Path, str]) -> None:
    """Write `pages` as a CMYK PDF/X file of `flavour` to `out`, atomically and reproducibly.
    `names`: a face's source PDF -> what the messages call it (its card)."""
    pdf = pikepdf.new()
    forms: dict[Path, pikepdf.Object] = {}
    flattener = Flattener("")
    for page in pages:
        for draw in page.draws:
            if draw.source not in forms:
                forms[draw.source] = _face_form(pdf, draw.source, flattener, names.get(draw.source, draw.source.name),
                                                separation)
    for page in pages:
        resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary())
        content = []
        for draw in page.draws:
            key = f"/Face{list(forms).index(draw.source)}"
            resources.XObject[key] = forms[draw.source]
            x, y, w, h = draw.clip
            rect = f"{_pt(x)} {_pt(y)} {_pt(w)} {_pt(h)} re"
            content.append(f"q {rect} W n")
            if draw.ground:
                content.append(f"0 0 0 0 k {rect} f")
            content.append(f"{draw.sx:.6f} 0 0 {draw.sy:.6f} {_pt(draw.x_mm)} {_pt(draw.y_mm)} cm {key} Do Q")
        media = [0, 0, float(_pt(page.w_mm)), float(_pt(page.h_mm))]
        x, y, w, h = page.trim
        new = pikepdf.Dictionary(
            Type=pikepdf.Name.Page, MediaBox=media, BleedBox=media,
            TrimBox=[float(_pt(x)), float(_pt(y)), float(_pt(x + w)), float(_pt(y + h))],
            # a blank back still gets a content stream: an empty one, compressed, is one readers reject
            Resources=resources, Contents=pdf.make_stream("\n".join(content or ["q Q"]).encode("latin-1")))
        pdf.pages.append(pikepdf.Page(new))
    _identify(pdf, title, flavour, separation)
    with atomic_path(out) as target:
        pdf.save(target, deterministic_id=True, compress_streams=True, force_version=PDF_VERSION[flavour],
                 object_stream_mode=pikepdf.ObjectStreamMode.disable)


def _face_form(pdf: pikepdf.Pdf, source: Path, flattener: Flattener, where: str,
               separation: Separation) -> pikepdf.Object:
    flattener.where = where
    with pikepdf.open(source) as face:
        page = face.pages[0]
        if "/Rotate" in page.obj and int(page.obj.Rotate) % 360:
            raise flattener.fail("a rotated page")
        layer = flattener.page(page)
        content = render(layer, separation.cmyk)
        fonts = pikepdf.Dictionary()
        for name, font in list(flattener.fonts.values()):
            if name not in fonts:
                fonts[name] = pdf.copy_foreign(font)
        flattener.fonts.clear()
        box = [float(v) for v in page.mediabox]
    return pdf.make_stream(content.encode("latin-1"), Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Form,
                           BBox=box, Resources=pikepdf.Dictionary(Font=fonts))


def _identify(pdf: pikepdf.Pdf, title: str, flavour: str, separation: Separation) -> None:
    when = _date()
    pdf_date = when.strftime("D:%Y%m%d%H%M%S+00'00'")
    xmp_date = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    info = pdf.make_indirect(pikepdf.Dictionary(
        Title=pikepdf.String(title), Creator=pikepdf.String("cardgen"), Producer=pikepdf.String("cardgen"),
        CreationDate=pikepdf.String(pdf_date), ModDate=pikepdf.String(pdf_date), Trapped=pikepdf.Name("/False"),
        GTS_PDFXVersion=pikepdf.String(flavour)))
    pdf.trailer.Info = info
    profile = separation.profile
    icc = pdf.make_stream(profile.data, N=4)
    pdf.Root.OutputIntents = pikepdf.Array([pikepdf.Dictionary(
        Type=pikepdf.Name.OutputIntent, S=pikepdf.Name.GTS_PDFX,
        OutputConditionIdentifier=pikepdf.String(CONDITION_ID), OutputCondition=pikepdf.String(CONDITION),
        RegistryName=pikepdf.String(REGISTRY), Info=pikepdf.String(profile.description),
        DestOutputProfile=icc)])
    version = (f"<pdfxid:GTS_PDFXVersion>{flavour}</pdfxid:GTS_PDFXVersion>" if flavour == "PDF/X-4"
               else f"<pdfx:GTS_PDFXVersion>{flavour}</pdfx:GTS_PDFXVersion>")
    xmp = f"""<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
 xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:pdfx="http://ns.adobe.com/pdfx/1.3/"
 xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/">
<dc:format>application/pdf</dc:format>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{escape(title)}</rdf:li></rdf:Alt></dc:title>
<xmp:CreateDate>{xmp_date}</xmp:CreateDate>
<xmp:ModifyDate>{xmp_date}</xmp:ModifyDate>
<xmp:MetadataDate>{xmp_date}</xmp:MetadataDate>
<xmp:CreatorTool>cardgen</xmp:CreatorTool>
<pdf:Producer>cardgen</pdf:Producer>
<pdf:Trapped>False</pdf:Trapped>
{version}
</rdf:Description>
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>"""
    pdf.Root.Metadata = pdf.make_stream(xmp.encode("utf-8"), Type=pikepdf.Name.Metadata, Subtype=pikepdf.Name.XML)


def pdfx_problems(path: Path, flavour: str) -> list[str]:
    """What keeps `path` from being a CMYK PDF/X file of `flavour`, read back from the file:
    the OutputIntent and version, every colour operator and colour space, transparency, fonts."""
    problems = []
    with pikepdf.open(path) as pdf:
        intents = pdf.Root.get("/OutputIntents", [])
        if not any(i.get("/S") == "/GTS_PDFX" and int(i.DestOutputProfile.get("/N", 0)) == 4 for i in intents):
            problems.append("no PDF/X OutputIntent with a CMYK profile")
        if str(pdf.docinfo.get("/GTS_PDFXVersion", "")) != flavour:
            problems.append(f"GTS_PDFXVersion is not {flavour}")
        for obj in pdf.objects:
            if not isinstance(obj, (pikepdf.Dictionary, pikepdf.Stream)):
                continue
            if obj.get("/Subtype") == "/Image":
                problems.append(f"an image in {obj.get('/ColorSpace')}")
            if "/SMask" in obj and str(obj.SMask) != "/None":
                problems.append("a soft mask")
            for key in ("/CA", "/ca"):
                if key in obj and float(obj[key]) < 1:
                    problems.append(f"an opacity ({key} {float(obj[key])})")
            if obj.get("/S") == "/Transparency":
                problems.append("a transparency group")
            if obj.get("/Type") == "/FontDescriptor" and not any(k in obj for k in ("/FontFile", "/FontFile2", "/FontFile3")):
                problems.append(f"a font that is not embedded ({obj.get('/FontName')})")
        seen: set = set()  # a face drawn on many pages is read once
        for page in pdf.pages:
            for stream, resources in _streams(page.obj, seen):
                if resources.get("/ColorSpace"):
                    problems.append("a colour space other than DeviceCMYK")
                for _, op in instructions(stream):
                    if op in ("rg", "RG", "sc", "SC", "scn", "SCN", "cs", "CS", "sh"):
                        problems.append(f"a colour that is not DeviceCMYK ({op})")
    return sorted(set(problems))


def _streams(obj, seen=None):
    seen = set() if seen is None else seen
    resources = obj.get("/Resources", pikepdf.Dictionary())
    yield obj, resources
    for form in resources.get("/XObject", {}).values():
        if form.objgen not in seen and form.get("/Subtype") == "/Form":
            seen.add(form.objgen)
            yield from _streams(form, seen)
