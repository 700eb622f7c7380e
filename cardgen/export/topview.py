"""A Tabletop Simulator save seen from above: every object's footprint, read back from the JSON.

`footprints(save, folder)` turns each object of a saved game into a rectangle in millimetres
(x to the east, y to the south), from its position and scale alone, the way TTS sizes it: a
card at scale 1 is a poker card, a custom board, tile or token is ttspieces.TTS_PIECE_MM across
its longer side (its image, found in `folder`, gives the other), a bag, a PDF and a notecard have
the footprints below (estimates, which ttstable lays out by). `overlaps` lists the pairs that lie on each other (a piece on a
board and a card in a hand zone are where they belong), and `render_png` draws the view:

    python -m cardgen.export.topview build/kings-guild/1/tts-table/kings-guild-1-4p.json out.png
"""

from __future__ import annotations

import io
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from .tts import TTS_CARD_MM
from .ttspieces import TTS_PIECE_MM

UNIT_MM = 25.4  # one TTS unit is about an inch
BAG_MM_AT_1 = 56.0  # a bag at scale 1 (an estimate)
PDF_MM = (216.0, 279.0)  # an in-game PDF's footprint at scale 1 (an estimate)
NOTE_MM = (140.0, 90.0)  # a notecard's footprint at scale 1 (an estimate)
HAND_Y = 3.0  # cards this high inside a hand zone are in the hand

PIECES = {"Custom_Board", "Custom_Tile", "Custom_Token"}
EPS = 0.05  # mm: rounding in the JSON


@dataclass
class Footprint:
    name: str  # the TTS object's Name
    label: str
    x: float
    y: float
    w: float
    h: float
    y_up: float  # posY: how high it lies
    round: bool = False
    colour: tuple[float, float, float] | None = None  # a hand zone's
    count: int = 1  # cards in a deck, objects in a bag
    face_down: bool = False

    @property
    def box(self) -> tuple[float, float, float, float]:
        return self.x - self.w / 2, self.y - self.h / 2, self.x + self.w / 2, self.y + self.h / 2

    def inside(self, other: Footprint) -> bool:
        a, b = self.box, other.box
        return a[0] >= b[0] - EPS and a[1] >= b[1] - EPS and a[2] <= b[2] + EPS and a[3] <= b[3] + EPS

    def meets(self, other: Footprint) -> bool:
        a, b = self.box, other.box
        return min(a[2], b[2]) - max(a[0], b[0]) > EPS and min(a[3], b[3]) - max(a[1], b[1]) > EPS


def image_size(url: str, folder: Path) -> tuple[int, int]:
    """An object image's pixel size: the file of the URL's name in `folder` (or the file:/// path)."""
    from PIL import Image

    name = Path(unquote(urlparse(url).path)).name
    path = folder / name
    if not path.is_file() and url.startswith("file:///"):
        path = Path(unquote(urlparse(url).path))
    with Image.open(path) as image:
        return image.size


def footprint(state: dict[str, Any], folder: Path) -> Footprint | None:
    name = state["Name"]
    t = state["Transform"]
    x, y = t["posX"] * UNIT_MM, -t["posZ"] * UNIT_MM
    sx, sz = t["scaleX"], t["scaleZ"]
    label = state.get("Nickname", "")
    if name in ("Card", "DeckCustom"):
        deck = next(iter(state["CustomDeck"].values()))
        circle = deck.get("Type") == 4
        w = sx * TTS_CARD_MM[0]
        h = w if circle else sz * TTS_CARD_MM[1]
        return Footprint(name, label, x, y, w, h, t["posY"], circle, count=len(state.get("DeckIDs", [0])),
                         face_down=t.get("rotZ") == 180)
    if name in PIECES:
        iw, ih = image_size(state["CustomImage"]["ImageURL"], folder)
        longer = sx * TTS_PIECE_MM
        w, h = (longer, longer * ih / iw) if iw >= ih else (longer * iw / ih, longer)
        circle = name == "Custom_Tile" and state["CustomImage"].get("CustomTile", {}).get("Type") == 2
        return Footprint(name, label, x, y, w, h, t["posY"], circle)
    if name in ("Bag", "Infinite_Bag"):
        size = sx * BAG_MM_AT_1
        return Footprint(name, label, x, y, size, size, t["posY"], True, count=len(state.get("ContainedObjects", [])))
    if name == "HandTrigger":
        c = state.get("ColorDiffuse", {})
        return Footprint(name, state.get("FogColor", ""), x, y, sx * UNIT_MM, sz * UNIT_MM, t["posY"],
                         colour=(c.get("r", 1), c.get("g", 1), c.get("b", 1)))
    if name == "Custom_PDF":
        return Footprint(name, label, x, y, PDF_MM[0] * sx, PDF_MM[1] * sz, t["posY"])
    if name == "Notecard":
        return Footprint(name, label, x, y, NOTE_MM[0] * sx, NOTE_MM[1] * sz, t["posY"])
    return None


def footprints(save: dict[str, Any], folder: Path) -> list[Footprint]:
    found = [footprint(state, folder) for state in save["ObjectStates"]]
    return [f for f in found if f is not None]


def in_hand(f: Footprint, hands: list[Footprint]) -> bool:
    return f.name != "HandTrigger" and f.y_up >= HAND_Y - 0.01 and any(f.inside(h) for h in hands)


def overlaps(prints: list[Footprint]) -> list[tuple[Footprint, Footprint]]:
    """Pairs that lie on each other: everything but a piece on a board it lies inside of and a card
    inside a hand zone (cards in one hand may fan over each other)."""
    hands = [f for f in prints if f.name == "HandTrigger"]
    table = [f for f in prints if not in_hand(f, hands)]
    found = []
    for i, a in enumerate(table):
        for b in table[i + 1:]:
            if not a.meets(b):
                continue
            board = a if a.name == "Custom_Board" else b if b.name == "Custom_Board" else None
            other = b if board is a else a
            if board is not None and other.name != "Custom_Board" and other.inside(board) and other.y_up > board.y_up:
                continue
            found.append((a, b))
    return found


COLOURS = {"Card": "#f2e8d5", "DeckCustom": "#c9b48a", "Custom_Board": "#e6dccb", "Custom_Tile": "#b98c5e",
           "Custom_Token": "#8fa3b8", "Bag": "#7a5a3a", "Infinite_Bag": "#3a7a5a", "Custom_PDF": "#ffffff",
           "Notecard": "#fff7b0"}


def render_png(save: dict[str, Any], folder: Path, size_px: int = 1600, labels: bool = True,
               title: str | None = None) -> bytes:
    """The table from above as PNG bytes (matplotlib, no timestamps)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Ellipse, Rectangle

    prints = footprints(save, folder)
    hands = [f for f in prints if f.name == "HandTrigger"]
    x0 = min(f.box[0] for f in prints) - 20
    y0 = min(f.box[1] for f in prints) - 20
    x1 = max(f.box[2] for f in prints) + 20
    y1 = max(f.box[3] for f in prints) + 20
    aspect = (y1 - y0) / (x1 - x0)
    inches = 10.0
    fig = plt.figure(figsize=(inches, inches * aspect), dpi=size_px / inches)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y1, y0)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.patch.set_facecolor("#5b4636")
    order = sorted(prints, key=lambda f: (f.name != "HandTrigger", f.name != "Custom_Board", f.y_up))
    for f in order:
        bx0, by0, bx1, by1 = f.box
        if f.name == "HandTrigger":
            ax.add_patch(Rectangle((bx0, by0), f.w, f.h, facecolor=(*(f.colour or (1, 1, 1)), 0.25),
                                   edgecolor=f.colour, linewidth=1.5, linestyle="--"))
            continue
        colour = "#8c7a5b" if f.name == "Card" and f.face_down else COLOURS.get(f.name, "#cccccc")
        held = in_hand(f, hands)
        patch: Any
        if f.round:
            patch = Ellipse((f.x, f.y), f.w, f.h, facecolor=colour, edgecolor="#222222", linewidth=0.6)
        else:
            patch = Rectangle((bx0, by0), f.w, f.h, facecolor=colour, edgecolor="#222222",
                              linewidth=1.2 if f.name == "DeckCustom" else 0.6, alpha=0.8 if held else 1)
        ax.add_patch(patch)
        if labels and f.label and f.name != "Custom_Board" and not held and not (f.name == "Card" and f.face_down):
            text = f.label if f.count <= 1 else f"{f.label} ({f.count})"
            size = max(3.0, min(7.0, f.w / 12))
            ax.text(f.x, f.y, textwrap.fill(text, max(4, int(f.w / size * 0.55)), break_long_words=False), ha="center", va="center",
                    fontsize=size, clip_on=True)
        elif labels and f.name == "Custom_Board":
            ax.text(bx0 + 4, by0 + 4, f.label, ha="left", va="top", fontsize=7, color="#4a3422")
    if title and labels:
        ax.text(x1 - 10, y0 + 10, title, ha="right", va="top", fontsize=10, color="white")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None}, facecolor=fig.get_facecolor())
    plt.close(fig)
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    """`python -m cardgen.export.topview SAVE.json OUT.png`: draw a saved table from above."""
    import json

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m cardgen.export.topview SAVE.json OUT.png", file=sys.stderr)
        return 2
    path = Path(args[0])
    save = json.loads(path.read_text(encoding="utf-8"))
    Path(args[1]).write_bytes(render_png(save, path.parent, title=save.get("SaveName")))
    for a, b in overlaps(footprints(save, path.parent)):
        print(f"overlap: {a.name} '{a.label}' and {b.name} '{b.label}'", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
