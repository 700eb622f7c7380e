"""`export print`: print-shop PDFs, one card per page, TrimBox and BleedBox on every page.

One PDF per deck (a print shop makes a deck, or a set of tokens, as one product). Every page
is the card plus the service's bleed (MediaBox = BleedBox), with TrimBox at the card's cut.
Cards repeat by count. Backs follow the service's habit (SERVICES): after every front, or
once at the end of the file.

When a service wants more bleed than the design has (1/8 inch = 3.175 mm against 3 mm), the
face is drawn a second time underneath, stretched just enough for its bleed to reach the page
edge, and the true-size face on top: the cut stays where the designer drew it and only the
band that is cut off anyway is stretched (as the PNG export does, `printpng`).

With `cmyk`, Ghostscript also converts each file to PDF/X-3 (`<deck>-cmyk.pdf`) with a CMYK
OutputIntent (its own default CMYK profile); the result is read back and refused unless every
colour is DeviceCMYK. A Ghostscript that fails, or leaves a file cut short, is one line
(BuildError); every file is made in a temporary folder first and published only when all are
made, so a failed export leaves the output folder as it was. PDF/X-3 (like the PDF/X-1a some shops ask for) allows no transparency,
so the cards' translucent art is flattened: each page becomes one image (see `to_cmyk`), as
prepress tools do; the RGB file stays vector. Ghostscript 10.0 writes no PDF/X-4, which
would keep the transparency.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pikepdf
from PIL import Image

from ..atomic import atomic_path
from ..buildtypes import BuildOptions, Progress
from ..cache import place
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..errors import BuildError
from ..imposition.geometry import Rect
from ..imposition.pdfwrite import Draw, PagePlan, SourceLibrary, register_font, write_sheet_pdf
from ..outputs import keeps, remove_stale
from ..render.cards import CardRenderer
from ..render.rasterise import Rasteriser

INCH_MM = 25.4
OWNED = re.compile(r"[a-z0-9][a-z0-9-]*(-cmyk)?\.pdf")  # the deck files an export writes (and may remove)


@dataclass(frozen=True)
class Service:
    label: str
    bleed_mm: float | None  # None: the game's own bleed
    backs: str              # "each": a back after every front; "end": the deck's back once, last
    note: str


SERVICES = {
    "generic": Service("any print shop", None, "each",
                       "the game's bleed; every front followed by its back"),
    "printninja": Service("PrintNinja", 0.125 * INCH_MM, "each",
                          "1/8 in bleed; every front followed by its back"),
    "drivethrucards": Service("DriveThruCards", 0.125 * INCH_MM, "end",
                              "1/8 in bleed; all fronts, then the deck's back once as the last page; "
                              "the shop asks for PDF/X-1a: use --cmyk"),
    "mpc": Service("MakePlayingCards", 0.12 * INCH_MM, "end",
                   "0.12 in bleed (822 x 1122 px at 300 DPI for poker); all fronts, then the back once"),
}


@dataclass
class PrintFile:
    deck: str
    path: Path
    pages: int
    cards: int
    trim_mm: tuple[float, float]
    bleed_mm: float
    cmyk: bool


def export_print(project: Project, snapshot: Snapshot, service: Service, out_dir: Path, *, cmyk: bool = False,
                 workers: int | None = None, progress: Progress | None = None) -> list[PrintFile]:
    game = snapshot.game
    rendered = CardRenderer(project, snapshot).render_all()
    files = Rasteriser(project, BuildOptions(png=False, workers=workers), progress or Progress()).run(
        rendered, None).files
    font = register_font(project.fonts_dir / "AlegreyaSans-Regular.ttf")
    results, made = [], {}
    with tempfile.TemporaryDirectory(prefix="cardgen-print-") as tmp:
        for deck_id, deck in game.decks.items():
            cards = [c for c in snapshot.cards_in_deck(deck_id) if c.count > 0]
            if not cards:
                continue
            names = [f"{deck_id}.pdf"] + ([f"{deck_id}-cmyk.pdf"] if cmyk else [])
            kept = [keeps(out_dir / name) for name in names]  # refuses a file of the user's before any work
            made.update(dict.fromkeys(names))  # a deck's files are never stale, even when kept
            if all(kept):  # the user edited every file of this deck since cardgen wrote them
                continue
            size = game.size_of(cards[0].type)
            trim = (size.width_mm, size.height_mm)
            bleed = game.file.bleed_mm if service.bleed_mm is None else service.bleed_mm
            back_face = rendered.backs.get(deck_id)
            back = files[back_face.key].pdf if back_face else None
            pages: list[Path | None] = []  # None: a blank back
            for card in cards:
                front = files[rendered.faces[card.id].key].pdf
                for _ in range(card.count):
                    pages.append(front)
                    if service.backs == "each":
                        pages.append(back)
            if service.backs == "end":
                pages.append(back)
            title = f"{game.name} {snapshot.version} - {deck.name} - {service.label}"
            _write(pages, trim, game.file.bleed_mm, bleed, Path(tmp) / names[0], title, font, cmyk)
            made.update({name: Path(tmp) / name for name in names})
            results.append(PrintFile(deck_id, out_dir / names[0], len(pages), sum(c.count for c in cards), trim,
                                     bleed, cmyk))
        for name, path in made.items():  # every deck made: now publish (a user's edit stays)
            if path is not None:
                place(path, out_dir / name)
    remove_stale(out_dir, set(made), OWNED.fullmatch)
    return results


def _write(pages: list[Path | None], trim: tuple[float, float], design_bleed: float, bleed: float,
           out: Path, title: str, font: str, cmyk: bool) -> None:
    w, h = trim
    page_w, page_h = w + 2 * bleed, h + 2 * bleed
    trim_box = Rect(bleed, bleed, w, h)
    page_box = Rect(0, 0, page_w, page_h)
    plans = []
    with SourceLibrary() as library:
        for source in pages:
            plan = PagePlan(page_w, page_h, trim_box=trim_box, bleed_box=page_box)
            if source is not None:
                key = library.add(source, (w + 2 * design_bleed, h + 2 * design_bleed))
                offset = bleed - design_bleed
                if offset > 1e-6:  # stretched underlay so the art reaches the service's bleed
                    plan.draws.append(Draw(key, 0, 0, page_box, sx=page_w / (w + 2 * design_bleed),
                                           sy=page_h / (h + 2 * design_bleed)))
                plan.draws.append(Draw(key, offset, offset, trim_box.expanded(*(min(bleed, design_bleed),) * 4)))
            plans.append(plan)
        write_sheet_pdf(plans, library, out, font=font, title=title)
    if cmyk:
        to_cmyk(out, out.with_name(out.stem + "-cmyk.pdf"), title)


def ghostscript() -> str:
    exe = shutil.which("gs")
    if exe is None:
        raise BuildError("--cmyk needs Ghostscript (`gs`), which is not installed "
                         "(Debian/Ubuntu: apt-get install ghostscript; macOS: brew install ghostscript)")
    return exe


def _cmyk_profile(gs: str) -> Path:
    """Ghostscript's own default CMYK profile, next to its lib folder on its search path."""
    run = subprocess.run([gs, "-h"], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise BuildError(f"Ghostscript ({gs}) failed to start (exit {run.returncode}): {_last_line(run)}")
    listing = run.stdout
    for folder in re.findall(r"(/[^\s:]+)", listing.split("Search path:")[-1]):
        candidate = Path(folder).parent / "iccprofiles" / "default_cmyk.icc"
        if candidate.is_file():
            return candidate
    raise BuildError("Ghostscript's default_cmyk.icc was not found next to its library folders")


PDFX_DEF = """%!
% PDF/X-3 for cardgen: a CMYK OutputIntent with Ghostscript's default CMYK profile.
[ /GTS_PDFXVersion (PDF/X-3:2002) /Title ({title}) /Trapped /False /DOCINFO pdfmark
[/_objdef {{icc_PDFX}} /type /stream /OBJ pdfmark
[{{icc_PDFX}} << /N 4 >> /PUT pdfmark
[{{icc_PDFX}} ({profile}) (r) file /PUT pdfmark
[/_objdef {{OutputIntent_PDFX}} /type /dict /OBJ pdfmark
[{{OutputIntent_PDFX}} <<
  /Type /OutputIntent /S /GTS_PDFX
  /OutputCondition (Ghostscript default CMYK) /OutputConditionIdentifier (Custom)
  /RegistryName (http://www.color.org) /Info (Ghostscript default_cmyk.icc)
  /DestOutputProfile {{icc_PDFX}}
>> /PUT pdfmark
[{{Catalog}} <</OutputIntents [ {{OutputIntent_PDFX}} ]>> /PUT pdfmark
"""


def to_cmyk(rgb: Path, out: Path, title: str) -> None:
    """`rgb` as PDF/X-3 in DeviceCMYK with an OutputIntent, written atomically to `out`.

    PDF/X-3 allows no transparency, and Ghostscript's pdfwrite flattens translucent art in
    CMYK, where it blends differently from the RGB design (a faint watermark comes out strong).
    So Ghostscript first renders each page in RGB, as any viewer shows it, at RASTER_DPI; those
    images, in pages with the same boxes, are what it then converts to CMYK.
    """
    gs = ghostscript()
    with tempfile.TemporaryDirectory(prefix="cardgen-cmyk-") as tmp, _ghostscript_output(out):
        profile = _cmyk_profile(gs)
        flat = Path(tmp) / "flat.pdf"
        _flatten(gs, rgb, flat, Path(tmp))
        definition = Path(tmp) / "pdfx.ps"
        definition.write_text(PDFX_DEF.format(title=_ps_string(title), profile=_ps_string(str(profile))))
        converted = Path(tmp) / "cmyk.pdf"
        # SOURCE_DATE_EPOCH: the dates PDF/X requires are fixed, so the same cards give the same bytes
        env = dict(os.environ, SOURCE_DATE_EPOCH="946684800")
        run = subprocess.run(
            [gs, "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=pdfwrite", "-dPDFX",
             "-sColorConversionStrategy=CMYK", "-sProcessColorModel=DeviceCMYK",
             "-dAutoFilterColorImages=false", "-sColorImageFilter=FlateEncode",
             "-dDownsampleColorImages=false", f"--permit-file-read={profile}",
             f"-sOutputFile={converted}", str(definition), str(flat)],
            capture_output=True, text=True, env=env, check=False)
        _check(run, converted, out)
        problems = cmyk_problems(converted)
        if problems:
            raise BuildError(f"{out.name}: the CMYK conversion left {problems[0]}")
        with pikepdf.open(converted) as pdf, atomic_path(out) as target:
            del pdf.trailer["/ID"]  # Ghostscript's changes with every run; qpdf keeps an old first half
            pdf.save(target, deterministic_id=True)


RASTER_DPI = 300  # what print shops ask images to have


def _flatten(gs: str, rgb: Path, out: Path, tmp: Path) -> None:
    """`rgb` with each page replaced by its RGB rendering (one image a distinct page), boxes kept."""
    run = subprocess.run([gs, "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=png16m",
                          f"-r{RASTER_DPI}", "-dTextAlphaBits=4", "-dGraphicsAlphaBits=4",
                          f"-sOutputFile={tmp / 'page-%05d.png'}", str(rgb)],
                         capture_output=True, text=True, check=False)
    _check(run, tmp / "page-00001.png", out)
    with pikepdf.open(rgb) as pdf:
        images: dict[bytes, pikepdf.Object] = {}
        for index, page in enumerate(pdf.pages, start=1):
            with Image.open(tmp / f"page-{index:05d}.png") as picture:
                picture = picture.convert("RGB")
                raw = picture.tobytes()
                if raw not in images:
                    images[raw] = pdf.make_stream(zlib.compress(raw, 6), Type=pikepdf.Name.XObject,
                                                  Subtype=pikepdf.Name.Image, Width=picture.width,
                                                  Height=picture.height, ColorSpace=pikepdf.Name.DeviceRGB,
                                                  BitsPerComponent=8, Filter=pikepdf.Name.FlateDecode)
            x0, y0, x1, y1 = (float(v) for v in page.mediabox)
            page.obj.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im0=images[raw]))
            page.obj.Contents = pdf.make_stream(f"q {x1 - x0:.4f} 0 0 {y1 - y0:.4f} {x0:.4f} {y0:.4f} cm /Im0 Do Q".encode())
            if "/Group" in page.obj:
                del page.obj["/Group"]
        pdf.remove_unreferenced_resources()
        pdf.save(out, deterministic_id=True)


def _check(run: subprocess.CompletedProcess, expected: Path, out: Path) -> None:
    if run.returncode != 0 or not expected.is_file():
        raise BuildError(f"Ghostscript could not convert {out.name} to CMYK: {_last_line(run)}")


def _last_line(run: subprocess.CompletedProcess) -> str:
    last = (run.stderr or run.stdout or "").strip().splitlines()[-1:] or ["no output"]
    return last[0]


# What reading a file Ghostscript cut short (or could not be run to write) raises: from the
# subprocess, the file system, pikepdf (a damaged PDF, or a missing key read as an attribute),
# Pillow (a truncated PNG: OSError, or SyntaxError for a broken chunk) and zlib.
GHOSTSCRIPT_OUTPUT_ERRORS = (OSError, subprocess.SubprocessError, pikepdf.PdfError, AttributeError, KeyError,
                             IndexError, TypeError, ValueError, SyntaxError, zlib.error)


@contextlib.contextmanager
def _ghostscript_output(out: Path) -> Iterator[None]:
    """One line, not an internal error, when Ghostscript fails or leaves a broken file."""
    try:
        yield
    except GHOSTSCRIPT_OUTPUT_ERRORS as exc:
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[-1][:200]
        if isinstance(exc, (OSError, subprocess.SubprocessError)) and getattr(exc, "errno", None) is not None:
            reason = detail  # it could not be run, or wrote nowhere: the system says why
        else:
            reason = f"it left a damaged or incomplete file ({detail})"
        raise BuildError(f"Ghostscript could not convert {out.name} to CMYK: {reason}") from None


def _ps_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def cmyk_problems(path: Path) -> list[str]:
    """What keeps `path` from being a CMYK file with an OutputIntent, read back from the file:
    every colour operator and colour space in every content stream, form and image."""
    problems = []
    with pikepdf.open(path) as pdf:
        intents = pdf.Root.get("/OutputIntents", [])
        if not any(i.get("/S") == "/GTS_PDFX" and int(i.DestOutputProfile.get("/N", 0)) == 4 for i in intents):
            problems.append("no PDF/X OutputIntent with a CMYK profile")
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") == "/Image":
                space = obj.get("/ColorSpace")
                if str(space) not in ("/DeviceCMYK", "/DeviceGray") and not _is_cmyk_space(space):
                    problems.append(f"an image in {space}")
        for page in pdf.pages:
            for name, space in page.Resources.get("/ColorSpace", {}).items():
                if not _is_cmyk_space(space):
                    problems.append(f"colour space {name} = {space}")
            for form in _forms(page.obj.Resources):
                problems += _rgb_ops(pikepdf.parse_content_stream(form))
            problems += _rgb_ops(pikepdf.parse_content_stream(page))
    return problems


def _forms(resources, seen=None):
    seen = seen if seen is not None else set()
    for obj in resources.get("/XObject", {}).values():
        if obj.get("/Subtype") == "/Form" and obj.objgen not in seen:
            seen.add(obj.objgen)
            yield obj
            yield from _forms(obj.get("/Resources", pikepdf.Dictionary()), seen)


def _rgb_ops(ops) -> list[str]:
    return [f"an RGB colour ({op})" for _, op in ops if str(op) in ("rg", "RG")]


def _is_cmyk_space(space) -> bool:
    if isinstance(space, pikepdf.Name):
        return str(space) in ("/DeviceCMYK", "/DeviceGray", "/Pattern")
    if isinstance(space, pikepdf.Array) and len(space) > 1:
        kind = str(space[0])
        if kind == "/ICCBased":
            return int(space[1].get("/N", 0)) in (1, 4)
        if kind in ("/Separation", "/DeviceN"):
            return _is_cmyk_space(space[2])
        if kind == "/Indexed":
            return _is_cmyk_space(space[1])
        if kind == "/Pattern":
            return True
    return False
