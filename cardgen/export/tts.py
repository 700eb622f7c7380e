"""Tabletop Simulator: one saved object per deck, with its deck sheet images.

A TTS custom deck shows its cards from a "deck sheet": one image holding a grid of at most
10 x 7 card faces, and a back image. A card in the saved object names its face by
`CardID` = sheet key x 100 + index, counted row by row on that sheet, so copies (20 Steel)
are 20 entries with the same CardID but a single cell on the sheet. Sheets are RGB PNGs at
most 4096 px on a side (the texture size TTS handles well): cards are drawn smaller when ten
columns would not fit, and a deck with more than 69 different cards gets several sheets (the
last cell of a full sheet stays empty: TTS uses it as the hidden-card image when "Back is
Hidden" is switched off). Every card of a deck has the deck's back, so one back image serves
all (UniqueBack false).

Sheet keys are derived from the sheet's images, so two versions of a game (or two games)
loaded side by side never share a key for different pictures, and the same export gives the
same bytes every time. The format reference is docs/tts.md.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from ..buildtypes import Face, Progress, RenderedSet
from ..data import cardtext
from ..data.project import Project
from ..data.snapshot import Card, Snapshot
from ..files import tts_back, tts_base, tts_faces, tts_object, tts_owned, tts_stem, tts_thumbnail
from ..render.workers import Workers, own_pool
from .images import Shot, png_bytes, rasterise_shots, remove_stale, trim_frame, write_if_changed
from .ttspieces import PieceObject, deck_words, piece_object, plan_pieces, write_piece_images

MAX_COLS, MAX_ROWS = 10, 7
PER_SHEET = MAX_COLS * MAX_ROWS - 1
MAX_PX = 4096
DPI = 300  # cards are never drawn larger than this
THUMB_PX = 256
TTS_SHAPES = {"rect": 0, "circle": 4}  # CustomDeck "Type": 0 rounded rectangle, 4 circle
TTS_CARD_MM = (63.5, 88.9)  # a TTS card at scale 1 is a poker card


@dataclass
class Sheet:
    key: int  # the CustomDeck key (set once the sheet's image exists)
    cards: list[Card]  # different cards, row by row
    cols: int
    rows: int
    cell: tuple[int, int]  # pixels per card
    face_file: str


@dataclass
class DeckObject:
    """One saved object: a deck of the game (or the part of it with one card size)."""

    deck_id: str
    name: str
    size_mm: tuple[float, float]
    shape: str
    base: str  # file names start with it: "kings-blade-3.1-mine"
    sheets: list[Sheet] = field(default_factory=list)

    @property
    def file(self) -> str:
        return tts_object(self.base)

    @property
    def thumbnail_file(self) -> str:
        """Same name as the JSON: TTS shows it in the Saved Objects browser."""
        return tts_thumbnail(self.base)

    @property
    def back_file(self) -> str:
        return tts_back(self.base)

    @property
    def image_files(self) -> list[str]:
        return [s.face_file for s in self.sheets] + [self.back_file, self.thumbnail_file]

    @property
    def copies(self) -> list[tuple[Sheet, int, Card]]:
        """Every printed card in deck order: (sheet, index on the sheet, card)."""
        return [(s, i, c) for s in self.sheets for i, c in enumerate(s.cards) for _ in range(c.count)]


def grid(n: int) -> tuple[int, int]:
    """Columns and rows for n different cards: as wide as allowed, then as many rows as needed."""
    cols = min(MAX_COLS, n)
    return cols, math.ceil(n / cols)


def cell_size(size_mm: tuple[float, float], cols: int, rows: int) -> tuple[int, int]:
    """Pixels per card: 300 DPI at most, smaller so that the sheet stays within 4096 px."""
    w_mm, h_mm = size_mm
    scale = min(DPI / 25.4, MAX_PX / (cols * w_mm), MAX_PX / (rows * h_mm))  # px per mm
    return max(1, math.floor(w_mm * scale)), max(1, math.floor(h_mm * scale))


def export_tts(project: Project, snapshot: Snapshot, rendered: RenderedSet, out_dir: Path, *,
               workers: Workers | int | None = None, progress: Progress | None = None) -> list[DeckObject | PieceObject]:
    """Write the deck sheets, back images and thumbnails, and the images of boards, tiles and
    tokens (ttspieces.py), from the card stage's faces (`cardstage.draw_cards`); return the
    objects for `write_objects`. Every deck renders in the same worker processes (the command's
    `workers`, or a pool of that many for the export)."""
    stem = export_stem(snapshot)
    decks = plan_objects(snapshot, stem)
    pieces = plan_pieces(snapshot, stem)
    with own_pool(project, workers) as pool:
        for deck in decks:
            write_deck_images(project, snapshot, rendered, deck, out_dir, pool, progress)
        write_piece_images(project, snapshot, rendered, pieces, out_dir, pool, progress)
    objects: list[DeckObject | PieceObject] = list(decks)
    objects += pieces
    remove_stale(out_dir, {name for o in objects for name in (o.file, *o.image_files)}, owned_by(stem))
    return objects


def export_stem(snapshot: Snapshot) -> str:
    """Every file of a version's export starts with it, so versions (and languages) can share a folder."""
    return tts_stem(snapshot.game.id, snapshot.version, snapshot.language, snapshot.game.file.language)


def owned_by(stem: str) -> Callable[[str], bool]:
    """Which files in a folder an export of `stem` wrote (and may replace or delete)."""
    return tts_owned(stem)


def write_objects(objects: list, snapshot: Snapshot, folder: Path, url_for: Callable[[str], str]) -> None:
    """One saved-object JSON per deck in `folder`, its images addressed through `url_for(file name)`."""
    for obj in objects:
        if isinstance(obj, PieceObject):
            data = piece_object(obj, snapshot, url_for)
        else:
            data = saved_object(obj, snapshot, url_for)
        write_if_changed(folder / obj.file, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def write_deck_images(project: Project, snapshot: Snapshot, rendered: RenderedSet, obj: DeckObject, out_dir: Path,
                      workers: Workers, progress: Progress | None) -> None:
    """The object's sheets, back and thumbnail; sets each sheet's key from its pictures."""
    bleed = snapshot.game.file.bleed_mm
    shots = []
    for sheet in obj.sheets:
        for card in sheet.cards:
            face = rendered.faces[card.id]
            shots.append(Shot(face, trim_frame(face, bleed), sheet.cell))
    back_cell = cell_size(obj.size_mm, 1, 1)
    back_face: Face | None = rendered.backs.get(obj.deck_id)
    if back_face is not None:
        shots.append(Shot(back_face, trim_frame(back_face, bleed), back_cell))
    paths = iter(rasterise_shots(project, shots, workers, progress))
    sheet_images = [_compose(sheet, [next(paths) for _ in sheet.cards]) for sheet in obj.sheets]
    # a deck without a back template has blank backs
    back = _open_rgb(next(paths)) if back_face else Image.new("RGB", back_cell, "white")
    back_png = png_bytes(back)
    for sheet, image in zip(obj.sheets, sheet_images):
        face_png = png_bytes(image)
        sheet.key = _sheet_key(face_png, back_png)
        write_if_changed(out_dir / sheet.face_file, face_png)
    write_if_changed(out_dir / obj.back_file, back_png)
    write_if_changed(out_dir / obj.thumbnail_file, png_bytes(_thumbnail(sheet_images[0], obj.sheets[0], back)))


def plan_objects(snapshot: Snapshot, stem: str) -> list[DeckObject]:
    """Decks split by card size and shape (a TTS deck has one), then into sheets of 69 cards."""
    game = snapshot.game
    objects: list[DeckObject] = []
    words = deck_words(snapshot)
    for deck_id, deck in game.decks.items():
        groups: dict[tuple, list[Card]] = {}
        for card in snapshot.cards_in_deck(deck_id):
            if card.count > 0 and game.card_types[card.type].component == "card":
                size = game.size_of(card.type)
                groups.setdefault((size.width_mm, size.height_mm, game.card_types[card.type].shape), []).append(card)
        for n, ((w, h, shape), cards) in enumerate(groups.items(), start=1):
            several = len(groups) > 1
            base = tts_base(stem, words[deck_id], n if several else None)
            obj = DeckObject(deck_id, f"{deck.name} ({n})" if several else deck.name, (w, h), shape, base)
            for i in range(0, len(cards), PER_SHEET):
                chunk = cards[i:i + PER_SHEET]
                cols, rows = grid(len(chunk))
                obj.sheets.append(Sheet(0, chunk, cols, rows, cell_size((w, h), cols, rows),
                                        tts_faces(base, i // PER_SHEET + 1)))
            objects.append(obj)
    return objects


def _open_rgb(path: Path) -> Image.Image:
    with Image.open(path) as image:
        return image.convert("RGB")


def _compose(sheet: Sheet, paths: list[Path]) -> Image.Image:
    cw, ch = sheet.cell
    image = Image.new("RGB", (sheet.cols * cw, sheet.rows * ch), "white")
    for index, path in enumerate(paths):
        image.paste(_open_rgb(path), ((index % sheet.cols) * cw, (index // sheet.cols) * ch))
    return image


def _sheet_key(face_png: bytes, back_png: bytes) -> int:
    """A CustomDeck key from the pictures themselves: 10000-99999, so CardIDs stay 7 digits."""
    digest = hashlib.sha256(face_png + back_png).digest()
    return 10000 + int.from_bytes(digest[:4], "big") % 90000


def _thumbnail(sheet_image: Image.Image, sheet: Sheet, back: Image.Image) -> Image.Image:
    """256 x 256 for the Saved Objects browser: the deck's back with its first card fanned over it."""
    cw, ch = sheet.cell
    thumb = Image.new("RGB", (THUMB_PX, THUMB_PX), (58, 58, 58))
    for card, dx, dy in ((back, -1, -1), (sheet_image.crop((0, 0, cw, ch)), 1, 1)):
        card = card.copy()
        card.thumbnail((THUMB_PX * 11 // 20, THUMB_PX * 17 // 20), Image.Resampling.LANCZOS)
        x = (THUMB_PX - card.width) // 2 + dx * card.width // 5
        y = (THUMB_PX - card.height) // 2 + dy * THUMB_PX // 32
        thumb.paste(card, (x, y))
    return thumb


# --- the saved object -------------------------------------------------------------------------


def saved_object(obj: DeckObject, snapshot: Snapshot, url_for: Callable[[str], str]) -> dict:
    entries = {s.key: custom_deck(obj, s, url_for) for s in obj.sheets}
    copies = obj.copies
    label = f"{snapshot.game.name} {snapshot.version}"
    if len(copies) == 1:
        sheet, index, card = copies[0]
        state = card_object(obj, snapshot, sheet, index, card, entries, guid=_guid(obj.file, 0))
    else:
        state = {
            **object_base("DeckCustom", obj, _guid(obj.file, 0), obj.name, f"{label}: {len(copies)} cards", hands=False),
            "DeckIDs": [sheet.key * 100 + index for sheet, index, _ in copies],
            "CustomDeck": {str(k): v for k, v in entries.items()},
            "ContainedObjects": [
                card_object(obj, snapshot, sheet, index, card, entries, guid=_guid(obj.file, n + 1))
                for n, (sheet, index, card) in enumerate(copies)
            ],
        }
    return {"SaveName": f"{label} - {obj.name}", "Date": "", "VersionNumber": "", "GameMode": "",
            "Note": "", "LuaScript": "", "LuaScriptState": "", "XmlUI": "", "ObjectStates": [state]}


def card_object(obj: DeckObject, snapshot: Snapshot, sheet: Sheet, index: int, card: Card, entries: dict,
                guid: str) -> dict:
    return {
        **object_base("Card", obj, guid, card.name, cardtext.card_plain(snapshot, card), hands=True),
        "CardID": sheet.key * 100 + index,
        "CustomDeck": {str(sheet.key): entries[sheet.key]},
    }


def custom_deck(obj: DeckObject, sheet: Sheet, url_for: Callable[[str], str]) -> dict:
    return {
        "FaceURL": url_for(sheet.face_file),
        "BackURL": url_for(obj.back_file),
        "NumWidth": sheet.cols,
        "NumHeight": sheet.rows,
        "BackIsHidden": True,
        "UniqueBack": False,
        "Type": TTS_SHAPES.get(obj.shape, 0),
    }


def object_base(kind: str, obj: DeckObject, guid: str, nickname: str, description: str, hands: bool) -> dict:
    """What decks and cards share: lying face down, sized like the printed card (TTS's card is poker)."""
    w, h = obj.size_mm
    scale_x = w / TTS_CARD_MM[0]
    scale_z = scale_x if obj.shape != "rect" else h / TTS_CARD_MM[1]
    return {
        "Name": kind,
        "GUID": guid,
        "Nickname": nickname,
        "Description": description,
        "Transform": {"posX": 0, "posY": 1, "posZ": 0, "rotX": 0, "rotY": 180, "rotZ": 180,
                      "scaleX": round(scale_x, 4), "scaleY": 1, "scaleZ": round(scale_z, 4)},
        "Locked": False, "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True, "Tooltip": True,
        "Hands": hands,
        "SidewaysCard": w > h,
        "HideWhenFaceDown": True,
    }


def _guid(file: str, n: int) -> str:
    """TTS object GUIDs are 6 hex digits; deterministic ones keep exports byte-identical."""
    return hashlib.sha1(f"{file}#{n}".encode()).hexdigest()[:6]

