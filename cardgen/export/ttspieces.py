"""Tabletop Simulator: boards, tiles and tokens as saved objects (cards go to decks, tts.py).

A card type says what kind of component it is (`component:` in game.yml):
- board: `Custom_Board`, one image (a main board, a player board, a map);
- tile: `Custom_Tile`, a two-sided piece: the face on top, the deck's back underneath
  (square or round: `CustomTile.Type` 0 box, 2 circle);
- token: `Custom_Token`, a one-sided piece cut out of its image.
One saved object per deck: a deck of one piece is that piece; several copies of boards lie side
by side in one object; tiles and tokens go into a bag holding every printed copy (the supply
is limited, so the bag is not infinite). Images are the trimmed faces, at 300 DPI at most and
never more than 4096 px on a side, named after the card, so they are shared by its copies.

Size: TTS has no fixed unit, but one unit is about an inch and a custom tile, token or board at
scale 1 is about 2 units across its longer side (what the import dialogs produce); the
scales below make a piece as large on the table as it is printed. Check with a ruler tool in
TTS and adjust `TTS_PIECE_MM` if a future version of TTS changes it.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..buildtypes import Progress, RenderedSet
from ..data import cardtext
from ..data.project import Project
from ..data.snapshot import Card, Snapshot
from ..files import tts_back, tts_base, tts_object, tts_piece
from ..render.workers import Workers
from .images import Shot, file_word, rasterise_shots, trim_frame, write_if_changed

PIECES = ("board", "tile", "token")
TTS_PIECE_MM = 50.8  # the longer side of a custom tile, token or board at scale 1 (2 TTS units)
MAX_PX, DPI = 4096, 300
TILE_TYPES = {"rect": 0, "circle": 2}  # CustomTile.Type: 0 box, 1 hex, 2 circle, 3 rounded


@dataclass
class Piece:
    card: Card
    face_file: str
    back_file: str | None  # tiles: the deck's back; boards and tokens: one-sided


@dataclass
class PieceObject:
    deck_id: str
    name: str
    kind: str  # board, tile or token
    base: str
    size_mm: tuple[float, float]
    shape: str
    pieces: list[Piece] = field(default_factory=list)

    @property
    def file(self) -> str:
        return tts_object(self.base)

    @property
    def image_files(self) -> list[str]:
        files = {p.face_file for p in self.pieces} | {p.back_file for p in self.pieces if p.back_file}
        return sorted(files)

    @property
    def copies(self) -> int:
        return sum(p.card.count for p in self.pieces)


def component_of(snapshot: Snapshot, card: Card) -> str:
    return snapshot.game.card_types[card.type].component


def translated(snapshot: Snapshot) -> bool:
    return snapshot.language != snapshot.game.file.language


def deck_words(snapshot: Snapshot) -> dict[str, str]:
    """Each deck as it goes into file names. The data's ids are words of the game's own language
    ('gilde', 'missioni'), so a translated export names its files from the translated names
    instead ('guilds', 'missions'); an id stays where two names would give the same word."""
    decks = snapshot.game.decks
    if not translated(snapshot):
        return {deck_id: deck_id for deck_id in decks}
    words = {deck_id: file_word(deck.name, deck_id) for deck_id, deck in decks.items()}
    taken = list(words.values())
    return {deck_id: word if taken.count(word) == 1 else deck_id for deck_id, word in words.items()}


def plan_pieces(snapshot: Snapshot, stem: str) -> list[PieceObject]:
    game = snapshot.game
    objects = []
    words = deck_words(snapshot)
    for deck_id, deck in game.decks.items():
        cards = [c for c in snapshot.cards_in_deck(deck_id) if c.count > 0 and component_of(snapshot, c) in PIECES]
        if not cards:
            continue
        kind = component_of(snapshot, cards[0])
        size = game.size_of(cards[0].type)
        base = tts_base(stem, words[deck_id])
        obj = PieceObject(deck_id, deck.name, kind, base, (size.width_mm, size.height_mm),
                          game.card_types[cards[0].type].shape)
        back = tts_back(base) if kind == "tile" and deck.back else None
        names = [file_word(c.name, c.id) if translated(snapshot) else c.id for c in cards]
        for card, name in zip(cards, names):
            word = name if names.count(name) == 1 else card.id  # two pieces of one name keep their ids
            obj.pieces.append(Piece(card, tts_piece(base, word), back))
        objects.append(obj)
    return objects


def pixel_size(size_mm: tuple[float, float]) -> tuple[int, int]:
    w, h = size_mm
    scale = min(DPI / 25.4, MAX_PX / max(w, h))
    return max(1, math.floor(w * scale)), max(1, math.floor(h * scale))


def write_piece_images(project: Project, snapshot: Snapshot, rendered: RenderedSet, objects: list[PieceObject],
                       out_dir: Path, workers: Workers | int | None = None, progress: Progress | None = None) -> None:
    """The pieces' images, from the card stage's faces (`cardstage.draw_cards`)."""
    bleed = snapshot.game.file.bleed_mm
    shots, names = [], []
    for obj in objects:
        cell = pixel_size(obj.size_mm)
        for piece in obj.pieces:
            face = rendered.faces[piece.card.id]
            shots.append(Shot(face, trim_frame(face, bleed), cell))
            names.append(piece.face_file)
        if obj.pieces and obj.pieces[0].back_file:
            back = rendered.backs[obj.deck_id]
            shots.append(Shot(back, trim_frame(back, bleed), cell))
            names.append(obj.pieces[0].back_file)
    for name, path in zip(names, rasterise_shots(project, shots, workers, progress)):
        write_if_changed(out_dir / name, path.read_bytes())


def piece_object(obj: PieceObject, snapshot: Snapshot, url_for: Callable[[str], str]) -> dict:
    label = f"{snapshot.game.name} {snapshot.version}"
    copies = [(piece, n) for piece in obj.pieces for n in range(piece.card.count)]
    states = [one_piece(obj, snapshot, piece, url_for, _guid(obj.file, i + 1), i)
              for i, (piece, _) in enumerate(copies)]
    if obj.kind == "board" or len(states) == 1:
        objects = states  # boards lie side by side on the table
    else:
        objects = [{
            "Name": "Bag", "GUID": _guid(obj.file, 0), "Nickname": obj.name,
            "Description": f"{label}: {len(states)}", "Transform": _transform(0, 1, 1),
            "ColorDiffuse": {"r": 0.44, "g": 0.32, "b": 0.2}, "Locked": False, "Tooltip": True,
            "ContainedObjects": states,
        }]
    return {"SaveName": f"{label} - {obj.name}", "Date": "", "VersionNumber": "", "GameMode": "",
            "Note": "", "LuaScript": "", "LuaScriptState": "", "XmlUI": "", "ObjectStates": objects}


def one_piece(obj: PieceObject, snapshot: Snapshot, piece: Piece, url_for: Callable[[str], str], guid: str,
              index: int) -> dict:
    w, h = obj.size_mm
    scale = max(w, h) / TTS_PIECE_MM
    image = {"ImageURL": url_for(piece.face_file), "ImageSecondaryURL": "", "ImageScalar": 1.0,
             "WidthScale": 0.0}
    if obj.kind == "board":
        name = "Custom_Board"
    elif obj.kind == "tile":
        name = "Custom_Tile"
        image["ImageSecondaryURL"] = url_for(piece.back_file) if piece.back_file else image["ImageURL"]
        image["CustomTile"] = {"Type": TILE_TYPES.get(obj.shape, 0), "Thickness": 0.1, "Stackable": True,
                               "Stretch": True}
    else:
        name = "Custom_Token"
        image["CustomToken"] = {"Thickness": 0.1, "MergeDistancePixels": 15.0, "StandUp": False,
                                "Stackable": True}
    offset = index * (w / 25.4 + 0.5) if obj.kind == "board" else 0
    return {
        "Name": name, "GUID": guid, "Nickname": piece.card.name,
        "Description": cardtext.card_plain(snapshot, piece.card),
        "Transform": _transform(offset, 1, scale),
        "Locked": obj.kind == "board", "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True,
        "Tooltip": True, "CustomImage": image,
    }


def _transform(x: float, y: float, scale: float) -> dict:
    return {"posX": round(x, 3), "posY": y, "posZ": 0, "rotX": 0, "rotY": 180, "rotZ": 0,
            "scaleX": round(scale, 4), "scaleY": 1, "scaleZ": round(scale, 4)}


def _guid(file: str, n: int) -> str:
    return hashlib.sha1(f"{file}#{n}".encode()).hexdigest()[:6]
