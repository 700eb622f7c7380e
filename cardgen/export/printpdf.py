"""`export print`: print-shop PDFs, one card per page, TrimBox and BleedBox on every page.

One PDF per deck (a print shop makes a deck, or a set of tokens, as one product). Every page
is the card plus the service's bleed (MediaBox = BleedBox), with TrimBox at the card's cut.
Cards repeat by count. The service's row of the one table (services.yml: bleed, page order,
the PDF/X flavour and ink limit of its CMYK file) says the rest.

When a service wants more bleed than the design has (1/8 inch = 3.175 mm against 3 mm), the
face is drawn a second time underneath, stretched just enough for its bleed to reach the page
edge, and the true-size face on top: the cut stays where the designer drew it and only the
band that is cut off anyway is stretched (as the PNG export does, `printpng`).

`<deck>.pdf` is RGB, as cairo draws the cards (vector, translucency kept). With `cmyk`,
`<deck>-cmyk.pdf` is also written: the same pages in DeviceCMYK as the service's PDF/X flavour
(`pdfx`: transparency flattened by cardgen, text and paths kept as vectors, colours separated
by littleCMS within the service's ink limit); it is read back and refused unless it is what
its name says. Every deck file is made in a temporary folder first
and published only when all are made, so a failed export leaves the output folder as it was; a
file the user edited since cardgen wrote it stays (cardgen.outputs), and only deck files cardgen
wrote are ever removed.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..buildtypes import BuildOptions, Progress, RenderedSet
from ..cache import place
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..errors import BuildError
from ..files import PRINT_PDF_OWNED, print_pdf_names
from ..imposition.geometry import Rect
from ..imposition.pdfwrite import Draw, PagePlan, SourceLibrary, register_font, write_sheet_pdf
from ..outputs import keeps, remove_stale
from ..render.rasterise import Rasteriser
from . import pdfx
from .separation import CONDITION_ID, Separation, ghostscript, output_profile
from .services import Service, for_export

SERVICES: dict[str, Service] = for_export("pdf")

__all__ = ["SERVICES", "PrintFile", "export_print", "ghostscript"]


@dataclass
class PrintFile:
    deck: str
    path: Path
    pages: int
    cards: int
    trim_mm: tuple[float, float]
    bleed_mm: float
    what: str  # what the file is, as the listing says it: "RGB PDF" or "CMYK PDF/X-1a:2003, ..."
    cmyk: bool = False


def export_print(project: Project, snapshot: Snapshot, rendered: RenderedSet, service: Service, out_dir: Path, *,
                 cmyk: bool = False, workers: int | None = None, progress: Progress | None = None) -> list[PrintFile]:
    """One RGB PDF per deck, and with `cmyk` its CMYK PDF/X twin, from the card stage's faces
    (`cardstage.draw_cards`): every file listed as it is."""
    game = snapshot.game
    files = Rasteriser(project, BuildOptions(png=False, workers=workers), progress or Progress()).run(
        rendered, None).files
    font = register_font(project.fonts_dir / "AlegreyaSans-Regular.ttf")
    separation = Separation(output_profile(), service.ink_limit) if cmyk else None
    results: list[PrintFile] = []
    made: dict[str, Path | None] = {}
    with tempfile.TemporaryDirectory(prefix="cardgen-print-") as tmp:
        for deck_id, deck in game.decks.items():
            cards = [c for c in snapshot.cards_in_deck(deck_id) if c.count > 0]
            if not cards:
                continue
            rgb_name, cmyk_name = print_pdf_names(deck_id)
            names = [rgb_name] + ([cmyk_name] if cmyk else [])
            kept = [keeps(out_dir / name) for name in names]  # refuses a file of the user's before any work
            made.update(dict.fromkeys(names))  # a deck's files are never stale, even when kept
            if all(kept):  # the user edited every file of this deck since cardgen wrote them
                continue
            size = game.size_of(cards[0].type)
            trim = (size.width_mm, size.height_mm)
            bleed = service.bleed_mm(game.file.bleed_mm)
            back_face = rendered.backs.get(deck_id)
            back = files[back_face.key].pdf if back_face else None
            what = {back: f"the back of {deck.name}"} if back is not None else {}
            pages: list[Path | None] = []  # None: a blank back
            for card in cards:
                front = files[rendered.faces[card.id].key].pdf
                what[front] = f"card {card.id}"
                order: dict[str, list[Path | None]] = {"front-back": [front, back], "back-front": [back, front],
                                                       "fronts-then-back": [front]}
                pages += order[service.page_order] * card.count
            if service.page_order == "fronts-then-back":
                pages.append(back)
            title = f"{game.name} {snapshot.version} - {deck.name} - {service.label}"
            count = sum(c.count for c in cards)
            _write(pages, trim, game.file.bleed_mm, bleed, Path(tmp) / rgb_name, title, font)
            made[rgb_name] = Path(tmp) / rgb_name
            results.append(PrintFile(deck_id, out_dir / rgb_name, len(pages), count, trim, bleed, "RGB PDF"))
            if separation is not None:
                _write_cmyk(pages, trim, game.file.bleed_mm, bleed, Path(tmp) / cmyk_name, title, service,
                            separation, what)
                made[cmyk_name] = Path(tmp) / cmyk_name
                results.append(PrintFile(deck_id, out_dir / cmyk_name, len(pages), count, trim, bleed,
                                         cmyk_label(service), True))
        for name, path in made.items():  # every deck made: now publish (a user's edit stays)
            if path is not None:
                place(path, out_dir / name, link=False)
    remove_stale(out_dir, set(made), PRINT_PDF_OWNED.fullmatch)
    return results


def cmyk_label(service: Service) -> str:
    limit = f"total ink at most {service.ink_limit} %" if service.ink_limit else "the profile's own ink limit"
    return f"CMYK {service.pdfx_name} ({CONDITION_ID}, {limit})"


def _write(pages: list[Path | None], trim: tuple[float, float], design_bleed: float, bleed: float,
           out: Path, title: str, font: str) -> None:
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


def _write_cmyk(pages: list[Path | None], trim: tuple[float, float], design_bleed: float, bleed: float,
                out: Path, title: str, service: Service, separation: Separation, names: dict) -> None:
    """The same pages as `_write`, in CMYK as the service's PDF/X flavour, read back after."""
    w, h = trim
    page_w, page_h = w + 2 * bleed, h + 2 * bleed
    shown = min(bleed, design_bleed)
    plans = []
    for source in pages:
        draws = []
        if source is not None:
            offset = bleed - design_bleed
            if offset > 1e-6:
                draws.append(pdfx.Draw(source, 0, 0, (0, 0, page_w, page_h), sx=page_w / (w + 2 * design_bleed),
                                       sy=page_h / (h + 2 * design_bleed)))
            draws.append(pdfx.Draw(source, offset, offset, (bleed - shown, bleed - shown, w + 2 * shown, h + 2 * shown),
                                   ground=True))
        plans.append(pdfx.Page(page_w, page_h, (bleed, bleed, w, h), draws))
    pdfx.write_pdfx(plans, out, title=title, flavour=service.pdfx_name, separation=separation, names=names)
    problems = pdfx.pdfx_problems(out, service.pdfx_name)
    if problems:
        out.unlink()
        raise BuildError(f"{out.name}: the CMYK file would not be {service.pdfx_name}: {problems[0]}")
