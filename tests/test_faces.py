"""Issue 22 item 7: faces with something to look at. Every King's Guild Treasure and Specialist
draws its own emblem, a single Mission's middle is filled by its content (not a watermark), and
Way of the Blade's number cards have a frame and the classic pip count. Read from the face SVGs a
build writes, and from the pixels of a rasterised face."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT
from PIL import Image

from cardgen.buildtypes import BuildOptions
from cardgen.contain import read_icon
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.i18n.localise import localise
from cardgen.pipeline import build
from cardgen.render.svgconvert import svg_to_pdf

EMBLEMS = ROOT / "icons" / "kings-guild" / "emblemi"
BLANK_LIMIT = 0.78  # measured at 100 dpi: 0.90-0.91 with the old watermark layout, 0.67-0.69 now (it, en)


def _build(game: str, out: Path, lang: str | None = None):
    project = load_project(ROOT)
    snapshot = resolve(project, load_game(project, game))
    if lang:
        snapshot = localise(snapshot, lang)
    # the faces' SVGs are what these tests read: no sheets, PNGs or rulebook to make
    build(project, snapshot, BuildOptions(papers=("a4",), out_dir=out, png=False, sheets=False, rulebook=False))
    return snapshot, out / "svg"


@pytest.fixture(scope="module", params=["it", "en"])
def guild(request, tmp_path_factory):
    return _build("kings-guild", tmp_path_factory.mktemp(f"faces-kg-{request.param}"), request.param)


@pytest.fixture(scope="module")
def blade(tmp_path_factory):
    return _build("way-of-the-blade", tmp_path_factory.mktemp("faces-wotb"))


def _icon_pattern(name: str) -> re.Pattern:
    """An icon's body as inlined on a face, whatever colour it was tinted."""
    _, body = read_icon(ROOT / "icons", name)
    return re.compile(re.escape(body).replace("currentColor", "#[0-9a-fA-F]{6}"))


def test_every_treasure_and_specialist_draws_its_own_emblem(guild):
    snapshot, svg_dir = guild
    patterns = {f"kings-guild/emblemi/{p.stem}": _icon_pattern(f"kings-guild/emblemi/{p.stem}")
                for p in sorted(EMBLEMS.glob("*.svg"))}
    cards = [c for c in snapshot.cards if c.type.startswith("tesoro-") or c.type == "specialista"]
    assert len(cards) == 45
    drawn = {}
    for card in cards:
        face = (svg_dir / f"card-{card.id}.svg").read_text()
        found = [name for name, pattern in patterns.items() if pattern.search(face)]
        assert found == [card.fields["emblema"]], card.id
        drawn[card.id] = found[0]
    assert len(set(drawn.values())) == len(cards)  # no two cards share an emblem
    # the old shared pictures are gone (a chest may still stand small in a sentence: "draw a Treasure")
    chest, figure = _icon_pattern("kings-guild/tesoro"), _icon_pattern("kings-guild/specialista")
    for card in cards:
        face = (svg_dir / f"card-{card.id}.svg").read_text()
        assert not figure.search(face), card.id
        sizes = [float(ICON_BOX.findall(face[:m.start()])[-1][2]) for m in chest.finditer(face)]
        assert all(size < 8 for size in sizes), (card.id, sizes)


def blank_fraction(svg: str, tmp: Path, dpi: int = 100) -> float:
    """Share of the middle band (under the name banner, above the reward bar, inside the panel)
    of near-background pixels: parchment, or the panels' pale fill."""
    svg_to_pdf(svg, tmp / "face.pdf")
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", "-singlefile", str(tmp / "face.pdf"), str(tmp / "face")],
                   check=True)
    im = Image.open(tmp / "face.png").convert("RGB")
    mm = dpi / 25.4
    bleed, w, h = 3, 63, 88
    box = [round((bleed + v) * mm) for v in (4.5, 16, w - 4.5, h - 16.5)]
    band = im.crop(box)
    backgrounds = [(0xf3, 0xe7, 0xcf), (250, 245, 236)]
    raw = band.tobytes()
    pixels = [tuple(raw[i:i + 3]) for i in range(0, len(raw), 3)]
    blank = sum(1 for p in pixels if any(max(abs(a - b) for a, b in zip(p, bg)) < 24 for bg in backgrounds))
    return blank / len(pixels)


def test_single_missions_are_filled_with_their_content(guild, tmp_path):
    snapshot, svg_dir = guild
    singles = [c for c in snapshot.cards if c.type == "missione" and not c.fields.get("risorse2")]
    assert len(singles) == 18
    for card in singles[:3] + singles[-3:]:
        fraction = blank_fraction((svg_dir / f"card-{card.id}.svg").read_text(), tmp_path)
        assert fraction < BLANK_LIMIT, (card.id, fraction)


PIPS = {2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9, 10: 10}
RECT = re.compile(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"[^>]*stroke="(#[0-9a-f]{6})"')
ICON_BOX = re.compile(r'<svg x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"')


def test_number_cards_have_a_frame_and_the_classic_pip_count(blade):
    snapshot, svg_dir = blade
    numbers = [c for c in snapshot.cards if c.type == "number"]
    assert sorted({c.fields["rank"] for c in numbers}) == list(PIPS)
    for card in numbers:
        suit = snapshot.symbols[card.fields["suit"]]
        face = (svg_dir / f"card-{card.id}.svg").read_text()
        suit_icon = _icon_pattern(suit.icon)
        icons = [m.start() for m in suit_icon.finditer(face)]
        assert len(icons) == PIPS[card.fields["rank"]] + 2, card.id  # the pips and two corner indices
        frames = [tuple(map(float, m.groups()[:4])) for m in RECT.finditer(face) if m.group(5) == suit.colour.lower()]
        assert frames, card.id
        x, y, fw, fh = frames[0]
        assert x >= 3 and y >= 3 and x + fw <= 60 and y + fh <= 85  # inside the safe zone
        pips = [tuple(map(float, m.groups())) for m in ICON_BOX.finditer(face) if float(m.group(3)) > 8]
        assert len(pips) == PIPS[card.fields["rank"]]
        for px, py, pw, ph in pips:  # every pip inside the frame
            assert x < px and px + pw < x + fw and y < py and py + ph < y + fh, card.id
