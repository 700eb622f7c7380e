"""One PNG per card at the exact pixel size a print service asks for (docs/print-services.md).

Services fix the image size, not the artwork: The Game Crafter wants 825 x 1125 px for a
poker card, MakePlayingCards 822 x 1122 px, each cutting at its own line with its own bleed.
We keep the artwork inside the trim at true size (300 DPI, centred, never stretched: the cut
lands where the designer drew it) and make the card's own bleed reach the service's edge: the
whole face, bleed included, is rendered stretched to the image size as a background, and the
trim is rendered undistorted on top of it. Only the bleed band is stretched (by a few percent),
and it is cut off anyway.

Card sizes a service has no fixed product for are derived at its DPI: trim + the service's
bleed on every side (e.g. a 30 mm token for TGC: 354 + 2 x 37.5 px = 429 px square).

File names keep the counts for the service's bulk upload: The Game Crafter sets a quantity per
card, so one file per card with the count in its name (`001-steel-x20.png`);
MakePlayingCards fills one card slot per uploaded image, so one file per printed copy
(`001-steel-01of20.png`, hard links of one image). Backs are `back-<deck>.png`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from .. import cache as cache_mod
from ..buildtypes import Face, Progress, RenderedSet
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..files import print_png_back, print_png_cards, print_png_owned
from ..units import mm_to_px
from .images import Shot, bleed_frame, png_bytes, rasterise_shots, remove_stale, trim_frame, write_if_changed
from .services import Service, for_export

SIZE_TOLERANCE_MM = 1.0  # 63 x 88 mm matches a 2.5 x 3.5 in product

# `--preset NAME`: the table's services that take PNG images, and `plain` (the generic row:
# 300 DPI with the game's own bleed), under the name this command has always used for it
PRESETS: dict[str, Service] = {("plain" if key == "generic" else key): s for key, s in for_export("png").items()}


@dataclass
class Exported:
    deck: str
    files: list[Path]
    size: tuple[int, int]  # of the deck's back (cards of other sizes are listed per file)


def image_size(preset: Service, trim_mm: tuple[float, float], game_bleed_mm: float) -> tuple[int, int]:
    """The service's pixel size for a card of this trim size: a product's fixed size, or else
    trim + the service's bleed on every side at its DPI (both from the one table)."""
    w, h = trim_mm
    for product in preset.products:
        pw, ph = product.trim_mm
        if abs(w - pw) <= SIZE_TOLERANCE_MM and abs(h - ph) <= SIZE_TOLERANCE_MM:
            return product.image_px
        if abs(w - ph) <= SIZE_TOLERANCE_MM and abs(h - pw) <= SIZE_TOLERANCE_MM:  # landscape
            return product.image_px[1], product.image_px[0]
    bleed = preset.bleed_mm(game_bleed_mm)
    return mm_to_px(w + 2 * bleed, preset.dpi), mm_to_px(h + 2 * bleed, preset.dpi)


@dataclass(frozen=True)
class _Image:
    path: Path
    face: Face | None  # None: a blank back (the deck has no back template)
    trim_mm: tuple[float, float]


def export_png(project: Project, snapshot: Snapshot, rendered: RenderedSet, preset: Service, out_dir: Path, *,
               workers: int | None = None, progress: Progress | None = None) -> list[Exported]:
    """The service's images, from the card stage's faces (`cardstage.draw_cards`)."""
    game = snapshot.game
    images: list[_Image] = []
    names: dict[str, list[str]] = {}  # deck -> its file names
    copies: list[tuple[Path, Path]] = []  # (image, extra copy) for one-file-per-copy services
    for deck_id in game.decks:
        cards = [c for c in snapshot.cards_in_deck(deck_id) if c.count > 0]
        if not cards:
            continue
        folder = out_dir / deck_id
        names[deck_id] = []
        for number, card in enumerate(cards, start=1):
            files = _file_names(preset, number, card.id, card.count)
            images.append(_Image(folder / files[0], rendered.faces[card.id], _trim(snapshot, card.type)))
            copies += [(folder / files[0], folder / extra) for extra in files[1:]]
            names[deck_id] += files
        back = print_png_back(deck_id)
        names[deck_id].append(back)
        images.append(_Image(folder / back, rendered.backs.get(deck_id), _trim(snapshot, cards[0].type)))
    _render(project, preset, game.file.bleed_mm, images, workers, progress)
    for source, target in copies:
        cache_mod.place(source, target)
    results = []
    for deck_id, files in names.items():
        remove_stale(out_dir / deck_id, set(files), print_png_owned)
        with Image.open(out_dir / deck_id / files[-1]) as back:
            results.append(Exported(deck_id, [out_dir / deck_id / f for f in files], back.size))
    return results


def _trim(snapshot: Snapshot, type_id: str) -> tuple[float, float]:
    size = snapshot.game.size_of(type_id)
    return size.width_mm, size.height_mm


def _file_names(preset: Service, number: int, card_id: str, count: int) -> list[str]:
    return print_png_cards(preset.png_naming, number, card_id, count)


def _render(project: Project, preset: Service, bleed: float, images: list[_Image],
            workers: int | None, progress: Progress | None) -> None:
    """Each image from two cached renders: the whole face stretched, the trim at true size on top."""
    shots = []
    for image in images:
        if image.face is not None:
            trim = trim_frame(image.face, bleed)
            shots.append(Shot(image.face, bleed_frame(image.face, bleed), image_size(preset, image.trim_mm, bleed)))
            shots.append(Shot(image.face, trim, (mm_to_px(trim.w, preset.dpi), mm_to_px(trim.h, preset.dpi))))
    renders = iter(rasterise_shots(project, shots, workers, progress))
    for image in images:
        size = image_size(preset, image.trim_mm, bleed)
        if image.face is None:
            write_if_changed(image.path, png_bytes(Image.new("RGB", size, "white")))
            continue
        with Image.open(next(renders)) as full, Image.open(next(renders)) as trim:
            picture = full.convert("RGB")
            picture.paste(trim.convert("RGB"), ((size[0] - trim.width) // 2, (size[1] - trim.height) // 2))
        write_if_changed(image.path, png_bytes(picture))
