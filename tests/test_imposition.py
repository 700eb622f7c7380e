"""Imposition: layout, vector dedupe, crop marks, duplex registration, tiling, determinism.

Card PDFs are made here with cairosvg from tiny SVGs: one colour over the whole bleed area, a
distinct colour over the trim area and a label, so rendered pages can be measured by colour.
"""

from __future__ import annotations

import colorsys
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import cairosvg
import pikepdf
import pytest
from PIL import Image, ImageChops, ImageOps
from pypdf import PdfReader

from cardgen.errors import BuildError
from cardgen.imposition import CUT_STYLES, PAPER_SIZES, Paper, Rect, SheetSpec, Slot, grid_for, impose, layout_for, tile
from cardgen.imposition.layout import fit_axis
from cardgen.imposition.marks import mark_bounds
from cardgen.units import mm_to_pt, pt_to_mm

FONTS = Path(__file__).resolve().parents[1] / "fonts"
POKER = SheetSpec(63, 88, bleed_mm=3)
DENSE = CUT_STYLES["dense"]
BLEED_RGB = (40, 60, 200)
BACK_BLEED_RGB = (60, 60, 60)
A4, LETTER = PAPER_SIZES["a4"], PAPER_SIZES["letter"]


# ---------------------------------------------------------------- helpers

def hue(i: int, n: int, s: float = 0.9, v: float = 0.95) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb((i / n) * 0.8 + 0.05, s, v)
    return int(r * 255), int(g * 255), int(b * 255)


def make_card(path: Path, trim_rgb, bleed_rgb=BLEED_RGB, w=63.0, h=88.0, bleed=3.0, label="") -> Path:
    W, H = w + 2 * bleed, h + 2 * bleed
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}mm" height="{H}mm" viewBox="0 0 {W} {H}">'
           f'<rect width="{W}" height="{H}" fill="rgb{tuple(bleed_rgb)}"/>'
           f'<rect x="{bleed}" y="{bleed}" width="{w}" height="{h}" fill="rgb{tuple(trim_rgb)}"/>'
           f'<text x="{W / 2}" y="{H / 2}" font-size="6" text-anchor="middle" '
           f'font-family="DejaVu Sans">{label}</text></svg>')
    cairosvg.svg2pdf(bytestring=svg.encode(), write_to=str(path))
    return path


@pytest.fixture
def deck(tmp_path):
    """n poker slots with distinct front/back trim colours; backs listed in `no_back` are None."""
    def build(n: int, no_back=(), spec: SheetSpec = POKER):
        w, h, b = spec.trim_w_mm, spec.trim_h_mm, spec.bleed_mm
        slots = []
        for i in range(n):
            front = make_card(tmp_path / f"front{i}.pdf", hue(i, n), w=w, h=h, bleed=b, label=f"F{i}")
            back = None if i in no_back else make_card(
                tmp_path / f"back{i}.pdf", hue(i, n, 0.5, 0.6), BACK_BLEED_RGB, w=w, h=h, bleed=b, label=f"B{i}")
            slots.append(Slot(front, back, f"card{i}"))
        return slots
    return build


def render(pdf: Path, page: int, dpi: int, crop_px: tuple[int, int, int, int] | None = None) -> Image.Image:
    """Page `page` (0-based) as RGB; crop_px = (x, y, w, h) from the top-left, in pixels."""
    args = ["pdftoppm", "-r", str(dpi), "-f", str(page + 1), "-l", str(page + 1), "-png", "-singlefile"]
    if crop_px:
        args += ["-x", str(crop_px[0]), "-y", str(crop_px[1]), "-W", str(crop_px[2]), "-H", str(crop_px[3])]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "page"
        subprocess.run(args + [str(pdf), str(root)], check=True, capture_output=True)
        with Image.open(root.with_suffix(".png")) as img:
            return img.convert("RGB")


def colour_mask(img: Image.Image, rgb, tol: int = 8) -> Image.Image:
    bands = [band.point(lambda v, t=t: 255 if abs(v - t) <= tol else 0) for band, t in zip(img.split(), rgb)]
    return ImageChops.multiply(ImageChops.multiply(bands[0], bands[1]), bands[2])


def px_box(rect: Rect, page_h_mm: float, dpi: int) -> tuple[float, float, float, float]:
    """A page rect (mm, bottom-left origin) as (left, top, right, bottom) pixels from top-left."""
    k = dpi / 25.4
    return rect.x * k, (page_h_mm - rect.y1) * k, rect.x1 * k, (page_h_mm - rect.y) * k


def content_lines(page: pikepdf.Page) -> set[tuple[float, ...]]:
    """Every `x y m x y l` segment in the page content stream, in mm rounded to 0.01.

    Only valid because every `cm` outside a q/Q group is the identity (asserted here).
    """
    lines, start, depth = set(), None, 0
    for operands, op in pikepdf.parse_content_stream(page):
        op = str(op)
        depth += {"q": 1, "Q": -1}.get(op, 0)
        if op == "cm" and depth == 0:
            assert [float(v) for v in operands] == [1, 0, 0, 1, 0, 0]
        if op == "m":
            start = [float(v) for v in operands]
        elif op == "l":
            end = [float(v) for v in operands]
            lines.add(tuple(round(pt_to_mm(v), 2) for v in (*start, *end)))
            start = end
    return lines


def dark_run_centres(pixels: list[int], threshold: int = 160) -> list[float]:
    """Darkness-weighted centres of runs of dark pixels along one pixel line."""
    centres, run = [], []
    for i, v in enumerate(pixels + [255]):
        if v < threshold:
            run.append((i, 255 - v))
        elif run:
            centres.append(sum(i * w for i, w in run) / sum(w for _, w in run))
            run = []
    return centres


# ---------------------------------------------------------------- layout

@pytest.mark.parametrize("paper, style, grid", [(A4, None, (3, 3, False)), (LETTER, None, (4, 2, True)),
                                                 (LETTER, DENSE, (3, 3, False))], ids=["a4", "letter", "letter-dense"])
def test_poker_grid_is_centred_and_inside_margin(deck, tmp_path, paper, style, grid):
    """Forgiving cuts keep 9-up on A4; on Letter three rows would keep 0.2 mm of outer bleed, so
    the forgiving layout is 4 x 2 landscape and 3 x 3 stays as the dense option."""
    kw = {"style": style} if style else {}
    cols, rows, landscape = grid
    assert grid_for(POKER, paper, **kw) == (cols, rows)
    result = impose(deck(cols * rows), POKER, paper, tmp_path / "out.pdf", duplex=False, **kw)
    assert (result.cols, result.rows, result.per_page, result.landscape) == (cols, rows, cols * rows, landscape)
    layout = layout_for(POKER, paper, **kw)
    paper = Paper(paper.name, result.page_w_mm, result.page_h_mm)
    trims = [p.rect for p in result.placements]
    left = min(r.x for r in trims)
    right = paper.width_mm - max(r.x1 for r in trims)
    bottom = min(r.y for r in trims)
    top = paper.height_mm - max(r.y1 for r in trims)
    assert left == pytest.approx(right, abs=1e-6)
    assert bottom == pytest.approx(top, abs=1e-6)
    art = layout.art_extent()
    assert art.x >= POKER.margin_mm - 1e-6 and art.y >= POKER.margin_mm - 1e-6
    assert art.x1 <= paper.width_mm - POKER.margin_mm + 1e-6
    assert art.y1 <= paper.height_mm - POKER.margin_mm + 1e-6


def test_gutter_rule_values_for_poker():
    a4, letter = layout_for(POKER, A4), layout_for(POKER, LETTER)
    # A4 width: 200 printable - 2 x 2.5 mm mark bands = 195 for 189 of trim: the 6 mm left give
    # every cut 1 mm of bleed (outer edges and both sides of two 2 mm gutters), marks at 2 mm
    assert (a4.x.gutter, a4.x.outer_bleed, a4.x.mark) == pytest.approx((2.0, 1.0, 2.0))
    assert (a4.y.gutter, a4.y.outer_bleed, a4.y.mark) == pytest.approx((4.0, 3.0, 4.0))  # 287 printable
    # Letter, forgiving: three rows of 88 leave 0.4 mm for two outer bleeds, so the page turns
    # landscape, 4 x 2, with 1.5 mm of bleed at every cut or more
    assert letter.landscape and (letter.cols, letter.rows) == (4, 2)
    assert (letter.x.gutter, letter.x.outer_bleed) == pytest.approx((3.0, 1.5))
    assert (letter.y.gutter, letter.y.outer_bleed) == pytest.approx((6.0, 3.0))
    # the dense style keeps the old layouts: butted columns on A4, butted rows and 0.2 mm on Letter
    a4_dense, letter_dense = layout_for(POKER, A4, DENSE), layout_for(POKER, LETTER, DENSE)
    assert (a4_dense.x.gutter, a4_dense.x.outer_bleed, a4_dense.x.mark) == pytest.approx((0.0, 1.5, 3.5))
    assert (letter_dense.x.gutter, letter_dense.x.outer_bleed) == pytest.approx((3.0, 1.5))
    assert (letter_dense.y.gutter, letter_dense.y.outer_bleed, letter_dense.y.mark) == pytest.approx((0.0, 0.2, 2.0))
    assert min(a4.x.least_bleed, a4.y.least_bleed) == pytest.approx(1.0)
    assert letter_dense.y.least_bleed == 0.0  # butted rows: neighbours share a cut
    # bleed kept towards a neighbour is half the gutter, none where the cut is shared
    clip, trim = a4.clip_rect(1, 1), a4.trim_rect(1, 1)
    assert trim.x - clip.x == pytest.approx(1.0)
    assert trim.y - clip.y == pytest.approx(2.0)
    dense_clip, dense_trim = a4_dense.clip_rect(1, 1), a4_dense.trim_rect(1, 1)
    assert dense_trim.x - dense_clip.x == pytest.approx(0.0)


def test_forgiving_cuts_cost_a_column_where_dense_ones_would_share_cuts():
    # 5 x 38 = 190 of 195 - 5 for marks: dense butts them, forgiving keeps 1 mm at every cut (4 fit)
    exact = fit_axis(page_len=205, margin=5, trim=38, bleed=3, style=DENSE)
    assert (exact.count, exact.gutter, exact.outer_bleed, exact.mark, exact.start) == (5, 0.0, 0.0, 2.0, 7.5)
    kept = fit_axis(page_len=205, margin=5, trim=38, bleed=3)
    assert kept.count == 4 and kept.least_bleed >= 1.0 and (kept.gutter, kept.outer_bleed) == (6.0, 3.0)
    roomy = fit_axis(page_len=297, margin=5, trim=88, bleed=3)
    assert (roomy.count, roomy.gutter, roomy.outer_bleed, roomy.mark, roomy.start) == (3, 4.0, 3.0, 4.0, 12.5)
    # dense gutters are all or nothing: never 1.5 mm of bleed on some cuts and 0 on others
    tight = fit_axis(page_len=210, margin=5, trim=63, bleed=3, style=DENSE)
    assert (tight.count, tight.gutter) == (3, 0.0)
    # round pieces cannot share a cut: they keep bleed all round in either style
    for style in (CUT_STYLES["forgiving"], DENSE):
        coins = fit_axis(page_len=210, margin=5, trim=30, bleed=3, band=0.0, shared_cuts=False, style=style)
        assert (coins.count, coins.gutter, coins.outer_bleed) == pytest.approx((6, 3.0, 2.5))
    # a compact axis starts at the margin with the least spacing and leaves the rest free
    compact = fit_axis(page_len=297, margin=5, trim=250, bleed=3, compact=True)
    assert (compact.count, compact.outer_bleed, compact.mark, compact.start) == (1, 1.0, 2.0, 8.5)


def test_landscape_only_when_it_holds_more():
    """The page orientation of a grid alone (`layout_for`); a print file picks one for all its pieces."""
    mini = SheetSpec(41, 63, bleed_mm=3)  # portrait A4: 4 x 4 = 16; landscape: 6 x 3 = 18
    layout = layout_for(mini, A4)
    assert layout.landscape and (layout.page_w, layout.page_h) == (297.0, 210.0)
    assert grid_for(mini, A4) == (6, 3)
    tarot = SheetSpec(70, 120, bleed_mm=3)  # 2 x 2 either way: stays portrait
    assert not layout_for(tarot, A4).landscape and grid_for(tarot, A4) == (2, 2)
    assert grid_for(SheetSpec(250, 100), A4) == (1, 1)  # a landscape piece gets a landscape page
    assert grid_for(SheetSpec(300, 100), A4) == (0, 0)


def test_piece_bigger_than_paper_is_rejected(tmp_path):
    big = make_card(tmp_path / "big.pdf", (200, 0, 0), w=300, h=100)
    with pytest.raises(ValueError, match="tile"):
        impose([Slot(big, None)], SheetSpec(300, 100), A4, tmp_path / "out.pdf")


@pytest.mark.parametrize("paper", [LETTER, A4], ids=["letter", "a4"])
def test_bleed_never_paints_a_neighbours_trim(deck, tmp_path, paper):
    spec = SheetSpec(63, 88, bleed_mm=3)
    result = impose(deck(9), spec, paper, tmp_path / "out.pdf", duplex=False)
    dpi = 150
    img = render(result.path, 0, dpi)
    page_h = result.page_h_mm
    bleed = colour_mask(img, BLEED_RGB)
    for p in result.placements:
        left, top, right, bottom = px_box(p.rect, page_h, dpi)
        inside = bleed.crop((math.ceil(left) + 1, math.ceil(top) + 1, math.floor(right) - 1, math.floor(bottom) - 1))
        assert inside.getbbox() is None, f"bleed painted inside trim of slot {p.slot}"
    if layout_for(spec, paper).x.gutter > 0:  # every column keeps bleed now  # the gutter itself is bleed, not paper
        first, second = result.placements[0].rect, result.placements[1].rect
        k = dpi / 25.4
        x = (first.x1 + second.x) / 2 * k
        y = (page_h - (first.y + first.h / 2)) * k
        assert bleed.getpixel((int(x), int(y))) == 255


# ---------------------------------------------------------------- vector + dedupe

def _form_xobjects(pdf: pikepdf.Pdf) -> list[pikepdf.Object]:
    return [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Form"]


def test_copies_of_one_card_share_one_xobject(tmp_path):
    card = make_card(tmp_path / "card.pdf", (220, 30, 30), label="Same")
    two = impose([Slot(card, None)] * 2, POKER, A4, tmp_path / "two.pdf", duplex=False)
    many = impose([Slot(card, None)] * 18, POKER, A4, tmp_path / "many.pdf", duplex=False)
    assert many.path.stat().st_size < 1.3 * two.path.stat().st_size
    with pikepdf.open(many.path) as pdf:
        assert len(_form_xobjects(pdf)) == 1
        for page in pdf.pages:
            xobjects = page.obj.Resources.XObject
            assert list(xobjects.keys()) == ["/Piece0"]
            ops = [str(op) for _, op in pikepdf.parse_content_stream(page)]
            assert ops.count("Do") == 9 and ops.count("cm") >= 9


def test_each_distinct_content_is_one_xobject_and_nothing_is_rasterised(tmp_path):
    a = make_card(tmp_path / "a.pdf", (220, 30, 30), label="A")
    b = make_card(tmp_path / "b.pdf", (30, 220, 30), label="B")
    a_copy = tmp_path / "a-copy.pdf"
    a_copy.write_bytes(a.read_bytes())  # same content, other path: still one XObject
    slots = [Slot(a, b), Slot(a_copy, b), Slot(b, a), Slot(a, None)]
    result = impose(slots, POKER, A4, tmp_path / "out.pdf")
    with pikepdf.open(result.path) as pdf:
        assert len(_form_xobjects(pdf)) == 2
        images = [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image"]
        assert images == []


# ---------------------------------------------------------------- crop marks

def test_crop_marks_never_cross_a_trim_box(deck, tmp_path):
    result = impose(deck(11), POKER, LETTER, tmp_path / "out.pdf")
    layout = layout_for(POKER, LETTER)
    cells = [layout.trim_rect(c, r) for r in range(layout.rows) for c in range(layout.cols)]
    assert result.marks and {m.kind for m in result.marks} == {"crop", "scale"}
    for mark in (m for m in result.marks if m.kind == "crop"):
        bounds = mark_bounds(mark)
        for trim in cells + [p.rect for p in result.placements if p.page == mark.page]:
            assert not bounds.intersects(trim), (mark, trim)
        assert not bounds.intersects(layout.art_extent())
    # every trim line of the grid has marks at both ends
    for page in range(result.pages):
        marks = [m for m in result.marks if m.page == page and m.kind == "crop"]
        if page % 2:  # backs carry no marks: you cut from the front
            assert marks == []
            continue
        xs = {round(m.x0, 4) for m in marks if m.x0 == m.x1}
        ys = {round(m.y0, 4) for m in marks if m.y0 == m.y1}
        assert xs == {round(v, 4) for c in cells for v in (c.x, c.x1)}
        assert ys == {round(v, 4) for c in cells for v in (c.y, c.y1)}
        assert len(marks) == 2 * (len(xs) + len(ys))  # one at each end of each line


def test_recorded_marks_are_what_the_content_stream_draws(deck, tmp_path):
    result = impose(deck(9), POKER, A4, tmp_path / "out.pdf", title="Deck")
    with pikepdf.open(result.path) as pdf:
        for index, page in enumerate(pdf.pages):
            recorded = {tuple(round(v, 2) for v in (m.x0, m.y0, m.x1, m.y1))
                        for m in result.marks if m.page == index and m.kind == "crop"}
            bars = [mark_bounds(m).expanded(0.01, 0.01, 0.01, 0.01)
                    for m in result.marks if m.page == index and m.kind == "scale"]
            drawn = content_lines(page)
            assert recorded <= drawn
            for x0, y0, x1, y1 in drawn - recorded:  # the rest is the scale bar and its ticks
                assert any(b.contains(x0, y0) and b.contains(x1, y1) for b in bars), (x0, y0, x1, y1)


@pytest.mark.parametrize("paper", [A4, LETTER], ids=["a4", "letter"])
def test_crop_marks_measure_63_by_88_at_600_dpi(deck, tmp_path, paper):
    # the second sheet: no notice or scale bar above its grid
    layout = layout_for(POKER, paper)
    result = impose(deck(layout.cols * layout.rows + 1), POKER, paper, tmp_path / "out.pdf", duplex=False)
    page_w, page_h = result.page_w_mm, result.page_h_mm
    art = layout.art_extent()
    dpi, k = 600, 600 / 25.4
    cards = [p.rect for p in result.placements if p.page == 1]
    # a horizontal strip through the top band, 1.5 mm above the art: vertical marks
    y = int((page_h - art.y1 - 1.5) * k)
    strip = render(result.path, 1, dpi, (0, y, int(page_w * k), 1)).convert("L")
    xs = [px / k for px in dark_run_centres(list(strip.tobytes()))]
    assert len(xs) == len(layout.cut_xs())  # 6 on A4 (3 x 3), 8 on Letter (4 x 2): two cuts a column
    for c in range(layout.cols):  # every column's cuts are 63.0 mm apart
        left = min(xs, key=lambda x: abs(x - layout.trim_rect(c, 0).x))
        right = min(xs, key=lambda x: abs(x - layout.trim_rect(c, 0).x1))
        assert right - left == pytest.approx(63.0, abs=0.1)
    assert xs[0] == pytest.approx(cards[0].x, abs=0.1)
    # a vertical strip through the left band: horizontal marks
    x = int((art.x - 1.5) * k)
    strip = render(result.path, 1, dpi, (x, 0, 1, int(page_h * k))).convert("L")
    ys = [page_h - px / k for px in dark_run_centres(list(strip.tobytes()))]
    assert len(ys) == len(layout.cut_ys())
    for r in range(layout.rows):
        top = min(ys, key=lambda y: abs(y - layout.trim_rect(0, r).y1))
        bottom = min(ys, key=lambda y: abs(y - layout.trim_rect(0, r).y))
        assert top - bottom == pytest.approx(88.0, abs=0.1)


def test_circle_pieces_get_a_cut_circle_instead_of_crop_marks(tmp_path):
    spec = SheetSpec(25, 25, bleed_mm=2, shape="circle")
    token = make_card(tmp_path / "token.pdf", (250, 200, 0), w=25, h=25, bleed=2, label="T")
    back = make_card(tmp_path / "token-back.pdf", (90, 90, 90), w=25, h=25, bleed=2)
    result = impose([Slot(token, back)] * 10, spec, A4, tmp_path / "out.pdf")
    fronts = [m for m in result.marks if m.page == 0 and m.kind == "circle"]
    assert {m.kind for m in result.marks} == {"circle", "scale"}
    assert [m for m in result.marks if m.page == 1] == []  # cut lines lie on the art: fronts only
    assert len(fronts) == 10
    for mark, placement in zip(fronts, [p for p in result.placements if p.page == 0]):
        assert mark.x1 - mark.x0 == pytest.approx(12.5)
        assert (mark.x0, mark.y0) == pytest.approx((placement.x_mm + 12.5, placement.y_mm + 12.5))
    with pikepdf.open(result.path) as pdf:
        ops = [str(op) for _, op in pikepdf.parse_content_stream(pdf.pages[0])]
        assert ops.count("c") == 2 * 4 * 10  # each circle twice: white casing, black line (the bar: lines)
    with pytest.raises(ValueError):
        SheetSpec(25, 30, shape="circle")


# ---------------------------------------------------------------- duplex

@pytest.mark.parametrize("paper", [A4, LETTER], ids=["a4", "letter"])
def test_duplex_backs_sit_exactly_behind_their_fronts(deck, tmp_path, paper):
    layout = layout_for(POKER, paper)
    n, dpi = layout.cols * layout.rows, 150
    slots = deck(n, no_back={4})
    result = impose(slots, POKER, paper, tmp_path / "out.pdf")
    assert result.pages == 2
    page_h = result.page_h_mm
    front_img = render(result.path, 0, dpi)
    # what you see holding it to the light: a long-edge flip turns a portrait page left-right,
    # a landscape one top-bottom
    turn = ImageOps.flip if result.landscape else ImageOps.mirror
    back_img = turn(render(result.path, 1, dpi))
    for i in range(n):
        expected = px_box(result.placements[i].rect, page_h, dpi)
        front_box = colour_mask(front_img, hue(i, n)).getbbox()
        assert front_box == pytest.approx(expected, abs=1.5)
        back_box = colour_mask(back_img, hue(i, n, 0.5, 0.6)).getbbox()
        if i == 4:
            assert back_box is None
            continue
        assert back_box == pytest.approx(front_box, abs=1)
    blank = px_box(result.placements[4].rect, page_h, dpi)  # slot 4's cell, seen from the back
    inset = (2, 2, -2, -2)  # neighbours' bleed reaches up to 1 mm from the cut
    cell = back_img.crop(tuple(int(v) + d for v, d in zip(blank, inset))).convert("L")
    assert cell.getextrema() == (255, 255)


def test_back_placements_mirror_columns_on_portrait(deck, tmp_path):
    result = impose(deck(9), POKER, A4, tmp_path / "out.pdf")
    fronts = {p.slot: p for p in result.placements if p.side == "front"}
    backs = {p.slot: p for p in result.placements if p.side == "back"}
    assert all(p.page == 1 for p in backs.values())
    for slot, front in fronts.items():
        back = backs[slot]
        assert back.x_mm == pytest.approx(A4.width_mm - front.x_mm - front.w_mm)
        assert back.y_mm == pytest.approx(front.y_mm)
    assert backs[0].x_mm == pytest.approx(fronts[2].x_mm)  # column 0 -> column 2


def test_landscape_sheets_flip_top_to_bottom(tmp_path):
    spec = SheetSpec(41, 63, bleed_mm=3)
    slots = [Slot(make_card(tmp_path / f"f{i}.pdf", hue(i, 3), w=41, h=63),
                  make_card(tmp_path / f"b{i}.pdf", hue(i, 3, 0.4), w=41, h=63)) for i in range(3)]
    result = impose(slots, spec, A4, tmp_path / "out.pdf")
    assert result.landscape and (result.page_w_mm, result.page_h_mm) == (297.0, 210.0)
    fronts = {p.slot: p for p in result.placements if p.side == "front"}
    for back in (p for p in result.placements if p.side == "back"):
        front = fronts[back.slot]
        assert back.x_mm == pytest.approx(front.x_mm)
        assert back.y_mm == pytest.approx(result.page_h_mm - front.y_mm - front.h_mm)


def test_without_duplex_only_fronts(deck, tmp_path):
    result = impose(deck(9), POKER, A4, tmp_path / "out.pdf", duplex=False)
    assert result.pages == 1 and {p.side for p in result.placements} == {"front"}
    assert len(PdfReader(result.path).pages) == 1


# ---------------------------------------------------------------- pages, footer, fonts

@pytest.mark.parametrize("duplex, pages", [(True, 6), (False, 3)])
def test_pages_fill_row_by_row(tmp_path, duplex, pages):
    card = make_card(tmp_path / "card.pdf", (10, 120, 10))
    back = make_card(tmp_path / "back.pdf", (120, 10, 10))
    result = impose([Slot(card, back)] * 20, POKER, A4, tmp_path / "out.pdf", duplex=duplex)
    assert result.pages == pages == math.ceil(20 / 9) * (2 if duplex else 1)
    assert len(PdfReader(result.path).pages) == pages
    fronts = [p for p in result.placements if p.side == "front"]
    step = 2 if duplex else 1
    # 9 + 9 + 2 would leave the last sheet 18 % used: it takes a card from the one before, so
    # no sheet is used less than a quarter (3 cards: 27 %)
    assert [p.page for p in fronts] == [0] * 9 + [step] * 8 + [2 * step] * 3
    assert min(result.used) >= 0.25 and result.used[2] == pytest.approx(3 * 63 * 88 / (210 * 297))
    assert [p.slot for p in fronts] == list(range(20))
    first_page = fronts[:9]
    assert [round(p.x_mm, 3) for p in first_page[:3]] == sorted(round(p.x_mm, 3) for p in first_page[:3])
    assert first_page[0].y_mm == first_page[2].y_mm > first_page[3].y_mm > first_page[6].y_mm
    assert len([p for p in fronts if p.page == step * 2]) == 3  # last sheet partly filled


@pytest.mark.parametrize("paper, size_pt", [(A4, (595.28, 841.89)), (LETTER, (612.0, 792.0))],
                         ids=["a4", "letter"])
def test_page_size_is_exact(deck, tmp_path, paper, size_pt):
    result = impose(deck(2), POKER, paper, tmp_path / "out.pdf")
    with pikepdf.open(result.path) as pdf:
        for page in pdf.pages:
            x0, y0, x1, y1 = (float(v) for v in page.mediabox)
            assert (x0, y0) == (0, 0)
            assert sorted((x1, y1)) == pytest.approx(size_pt, abs=0.005)  # portrait or landscape


def test_footer_text_is_set_in_an_embedded_font(deck, tmp_path):
    result = impose(deck(11), POKER, A4, tmp_path / "out.pdf", title="Dragon Deck")
    reader = PdfReader(result.path)
    texts = [page.extract_text() for page in reader.pages]
    assert "Dragon Deck · sheet 1/2, front · A4 · print duplex, flip on long edge" in texts[0]
    assert "Dragon Deck · sheet 1/2, back · A4 · print duplex, flip on long edge" in texts[1]
    assert "sheet 2/2, front" in texts[2] and "sheet 2/2, back" in texts[3]
    assert "Print at 100 % / actual size" in texts[0] and "50 mm" in texts[0]
    assert "Print at 100 %" not in texts[1] + texts[2] + texts[3]
    fonts = subprocess.run(["pdffonts", str(result.path)], check=True, capture_output=True, text=True).stdout
    rows = fonts.splitlines()[2:]
    assert any("AlegreyaSans-Regular" in row for row in rows)
    assert "Helvetica" not in fonts
    for row in rows:
        assert re.search(r"\s(yes)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+$", row), row  # emb == yes


def test_footer_font_can_be_chosen_and_text_stays_clear_of_marks(deck, tmp_path):
    result = impose(deck(2), SheetSpec(63, 88), A4, tmp_path / "out.pdf",
                    title="A long title that runs across a crop mark",
                    font_path=FONTS / "Cinzel-Regular.ttf")
    with pikepdf.open(result.path) as pdf:
        names = {str(f.BaseFont) for f in pdf.pages[0].obj.Resources.Font.values()}
    assert any(n.endswith("+Cinzel-Regular") for n in names)
    footer = next(lb for lb in result.labels if lb.page == 0 and "sheet 1/1" in lb.text)
    # too long for the gap between two column marks: a shorter wording reads across the page
    # (the whole text once ran up the side instead)
    assert footer.angle == 0 and (footer.box.w > 63 or "A long title" not in footer.text), footer
    for label in result.labels:
        for mark in (m for m in result.marks if m.page == label.page):
            assert not mark_bounds(mark).intersects(label.box), (label.text, mark)
        assert min(label.box.x, label.box.y) >= 5 - 1e-6
        assert label.box.x1 <= A4.width_mm - 5 + 1e-6 and label.box.y1 <= A4.height_mm - 5 + 1e-6


def test_small_pieces_put_the_scale_bar_beyond_the_ends_of_the_marks(deck, tmp_path):
    """25 mm squares on Letter put a crop mark every 25 mm along every band: no gap between marks
    holds the 50 mm bar, so it goes into the band's outer strip, past the marks' ends."""
    spec = SheetSpec(25, 25, bleed_mm=0)
    result = impose(deck(3, spec=spec), spec, LETTER, tmp_path / "out.pdf", font_path=FONTS / "AlegreyaSans-Regular.ttf")
    [bar] = [m for m in result.marks if m.kind == "scale" and m.page == 0]
    assert abs(abs(bar.x1 - bar.x0) + abs(bar.y1 - bar.y0) - 50) < 1e-6
    page = [m for m in result.marks if m.page == 0 and m.kind != "scale"]
    box = mark_bounds(bar)
    assert all(not mark_bounds(m).intersects(box) for m in page)
    crops = [mark_bounds(m) for m in page if mark_bounds(m).x <= box.x1 and box.x <= mark_bounds(m).x1]
    assert crops and (box.y > max(c.y1 for c in crops) or box.y1 < min(c.y for c in crops))  # beyond them
    for label in (lb for lb in result.labels if lb.page == 0):
        assert all(not mark_bounds(m).intersects(label.box) for m in page + [bar]), label.text
        assert min(label.box.x, label.box.y) >= 5 - 1e-6
        assert label.box.x1 <= LETTER.width_mm - 5 + 1e-6 and label.box.y1 <= LETTER.height_mm - 5 + 1e-6
    assert any(lb.text.startswith("Print at 100 %") for lb in result.labels if lb.page == 0)


def test_page_text_that_fits_nowhere_is_one_line_naming_paper_and_layout(deck, tmp_path):
    spec = SheetSpec(20, 20, bleed_mm=3)
    with pytest.raises(BuildError) as caught:
        impose(deck(3, spec=spec), spec, LETTER, tmp_path / "out.pdf", font_path=FONTS / "AlegreyaSans-Regular.ttf")
    message = str(caught.value)
    assert message.startswith("Letter print sheet 1, front: 20 x 20 mm pieces 9 x 12 a sheet leave no room for "
                              "'50 mm' between the 5 mm margin and the pieces")
    assert "\n" not in message and not (tmp_path / "out.pdf").exists()


def test_missing_font_is_an_error(deck, tmp_path):
    with pytest.raises(ValueError, match="nope.ttf"):
        impose(deck(1), POKER, A4, tmp_path / "out.pdf", font_path=tmp_path / "nope.ttf")


# ---------------------------------------------------------------- packing: free space, a quarter, one orientation

def _cut_lines(result, page):
    """The x of every vertical and the y of every horizontal crop mark on a page."""
    crops = [m for m in result.marks if m.page == page and m.kind == "crop"]
    return ({round(m.x0, 4) for m in crops if m.x0 == m.x1}, {round(m.y0, 4) for m in crops if m.y0 == m.y1})


def _placed_forms(page: pikepdf.Page) -> list[tuple[float, float, float, float]]:
    """(x, y, w, h) in mm of every Form XObject a page draws, from the `cm` before each `Do`."""
    placed, matrix = [], None
    for operands, op in pikepdf.parse_content_stream(page):
        if str(op) == "cm":
            matrix = [float(v) for v in operands]
        elif str(op) == "Do":
            x0, y0, x1, y1 = (float(v) for v in page.obj.Resources.XObject[operands[0]].BBox)
            assert matrix is not None and matrix[:4] == [1, 0, 0, 1]
            placed.append((pt_to_mm(matrix[4] + x0), pt_to_mm(matrix[5] + y0), pt_to_mm(x1 - x0), pt_to_mm(y1 - y0)))
    return placed


def test_four_coins_share_a_sheet_and_no_sheet_is_under_a_quarter(tmp_path):
    """52 jumbo cards fill 13 A4 sheets exactly; 4 coins alone would use a 14th sheet at 8 %.
    The coins go loose (with their cut circles) onto a sheet that takes a jumbo card from the
    sheet before, so every sheet is used at least a quarter."""
    jumbo = SheetSpec(88, 126, bleed_mm=3)
    coin = SheetSpec(40, 40, bleed_mm=3, shape="circle")
    card = make_card(tmp_path / "jumbo.pdf", (200, 40, 40), w=88, h=126)
    back = make_card(tmp_path / "jumbo-back.pdf", (40, 40, 40), w=88, h=126)
    face = make_card(tmp_path / "coin.pdf", (230, 200, 40), w=40, h=40)
    coin_back = make_card(tmp_path / "coin-back.pdf", (90, 90, 90), w=40, h=40)
    from cardgen.imposition import PieceGroup, impose_groups

    result = impose_groups([PieceGroup(jumbo, [Slot(card, back)] * 52), PieceGroup(coin, [Slot(face, coin_back)] * 4)],
                           A4, tmp_path / "out.pdf")
    assert result.pages == 28 and len(result.used) == 14
    assert min(result.used) >= 0.25, result.used
    last = 26  # the 14th sheet's front
    on_last = [p for p in result.placements if p.page == last]
    assert sorted(round(p.w_mm) for p in on_last) == [40, 40, 40, 40, 88]
    circles = [m for m in result.marks if m.page == last and m.kind == "circle"]
    assert len(circles) == 4  # each coin carries its cut line
    for p in on_last:  # every piece keeps 1 mm or more of bleed from its neighbours: never overlapping
        for q in on_last:
            if p is not q:
                assert not p.rect.expanded(1, 1, 1, 1).intersects(q.rect.expanded(1, 1, 1, 1))
    with pikepdf.open(result.path) as pdf:
        assert len({tuple(float(v) for v in page.mediabox) for page in pdf.pages}) == 1


def test_small_pieces_beside_a_landscape_board_and_one_orientation_for_the_file(tmp_path):
    """A 250 x 180 mm board only fits A4 landscape, so the whole file is landscape, its tiles
    too; the 16 mm tokens fill the strip beside the board (laid out from the left margin) and
    never cross one of its cut lines."""
    from cardgen.imposition import PieceGroup, TiledComponent, impose_groups

    board = SheetSpec(250, 180, bleed_mm=3)
    token = SheetSpec(16, 16, bleed_mm=3)
    board_pdf = make_card(tmp_path / "board.pdf", (200, 180, 120), w=250, h=180)
    token_pdf = make_card(tmp_path / "token.pdf", (60, 60, 60), w=16, h=16)
    big = _map(tmp_path, 466, 342, bleed=3)
    result = impose_groups([PieceGroup(board, [Slot(board_pdf, None)] * 2), PieceGroup(token, [Slot(token_pdf, None)] * 18)],
                           A4, tmp_path / "out.pdf", duplex=False, tiled=[TiledComponent(Slot(big, None), 3.0, "map")])
    assert result.landscape and result.pages == 2 + 4  # two boards, the map on 2 x 2 landscape tiles
    with pikepdf.open(result.path) as pdf:
        assert {tuple(round(float(v), 2) for v in page.mediabox) for page in pdf.pages} == {
            (0, 0, round(mm_to_pt(297), 2), round(mm_to_pt(210), 2))}
    tokens = [p for p in result.placements if round(p.w_mm) == 16]
    assert len(tokens) == 18 and result.pages == 6  # all in free space: no sheet of their own
    for page in {p.page for p in tokens}:
        xs, ys = _cut_lines(result, page)
        for t in (p for p in tokens if p.page == page):
            clip = t.rect.expanded(1, 1, 1, 1)
            assert not any(clip.x < x < clip.x1 for x in xs) and not any(clip.y < y < clip.y1 for y in ys)
            assert clip.x >= 5 and clip.x1 <= 297 - 5 and clip.y >= 5 and clip.y1 <= 210 - 5
    boards = [p for p in result.placements if round(p.w_mm) == 250]
    assert all(p.x_mm == pytest.approx(5 + 2.5 + 1) for p in boards)  # compact: the strip is on the right
    assert min(result.used) >= 0.25


def test_dense_cuts_keep_the_old_butted_layout(deck, tmp_path):
    forgiving = impose(deck(9), POKER, LETTER, tmp_path / "f.pdf", duplex=False)
    dense = impose(deck(9), POKER, LETTER, tmp_path / "d.pdf", duplex=False, style=DENSE)
    assert (forgiving.pages, forgiving.landscape, forgiving.least_bleed) == (2, True, 1.5)
    assert (dense.pages, dense.landscape, dense.least_bleed) == (1, False, 0.0)
    assert any("rows butted (shared cuts)" in line for line in dense.layouts)


# ---------------------------------------------------------------- determinism, atomicity

BUILD_SCRIPT = """
import sys
import tempfile
from pathlib import Path
from cardgen.imposition import PAPER_SIZES, SheetSpec, Slot, impose
d = Path(sys.argv[1])
slots = [Slot(d / f"front{i}.pdf", d / f"back{i}.pdf" if i != 1 else None) for i in range(5)]
impose(slots, SheetSpec(63, 88), PAPER_SIZES["letter"], Path(sys.argv[2]), title="Det")
"""


def test_same_input_gives_identical_bytes(deck, tmp_path):
    slots = deck(5, no_back={1})
    first = impose(slots, POKER, LETTER, tmp_path / "one.pdf", title="Det")
    second = impose(slots, POKER, LETTER, tmp_path / "two.pdf", title="Det")
    assert first.path.read_bytes() == second.path.read_bytes()
    env = dict(os.environ, PYTHONHASHSEED="12345")
    subprocess.run([sys.executable, "-c", BUILD_SCRIPT, str(tmp_path), str(tmp_path / "three.pdf")],
                   check=True, env=env)
    assert (tmp_path / "three.pdf").read_bytes() == first.path.read_bytes()
    with pikepdf.open(first.path) as pdf:
        assert set(pdf.docinfo.keys()) == {"/Title", "/Creator"}
    data = first.path.read_bytes()
    assert b"CreationDate" not in data and b"ModDate" not in data and b"Producer" not in data


def test_failed_build_leaves_no_output(deck, tmp_path):
    out = tmp_path / "out" / "sheets.pdf"
    slots = deck(2) + [Slot(tmp_path / "missing.pdf", None)]
    with pytest.raises(ValueError):
        impose(slots, POKER, A4, out)
    assert not out.exists()
    assert not out.parent.exists() or list(out.parent.iterdir()) == []


# ---------------------------------------------------------------- validation

def test_missing_front_names_the_path(tmp_path):
    missing = tmp_path / "no-such-card.pdf"
    with pytest.raises(ValueError, match=re.escape(str(missing))):
        impose([Slot(missing, None)], POKER, A4, tmp_path / "out.pdf")


def test_multi_page_front_names_the_path(tmp_path):
    single = make_card(tmp_path / "one.pdf", (1, 2, 3))
    two_pages = tmp_path / "two-pages.pdf"
    with pikepdf.open(single) as src, pikepdf.new() as pdf:
        pdf.pages.extend([src.pages[0], src.pages[0]])
        pdf.save(two_pages)
    with pytest.raises(ValueError, match=re.escape(str(two_pages)) + ".*2 pages"):
        impose([Slot(two_pages, None)], POKER, A4, tmp_path / "out.pdf")


def test_not_a_pdf_or_wrong_size_names_the_path(tmp_path):
    junk = tmp_path / "junk.pdf"
    junk.write_text("not a pdf")
    with pytest.raises(ValueError, match=re.escape(str(junk))):
        impose([Slot(junk, None)], POKER, A4, tmp_path / "out.pdf")
    no_bleed = make_card(tmp_path / "no-bleed.pdf", (1, 2, 3), bleed=0)
    with pytest.raises(ValueError, match=re.escape(str(no_bleed)) + ".*69.00 x 94.00"):
        impose([Slot(no_bleed, None)], POKER, A4, tmp_path / "out.pdf")
    good = make_card(tmp_path / "good.pdf", (1, 2, 3))
    with pytest.raises(ValueError, match=re.escape(str(tmp_path / "gone.pdf"))):
        impose([Slot(good, tmp_path / "gone.pdf")], POKER, A4, tmp_path / "out.pdf")


# ---------------------------------------------------------------- tile

def _map(tmp_path: Path, w: float, h: float, bleed: float = 0.0) -> Path:
    return make_card(tmp_path / f"map-{w}x{h}.pdf", (120, 200, 120), (40, 120, 40),
                     w=w - 2 * bleed, h=h - 2 * bleed, bleed=bleed, label="MAP")


def _assert_tiles_cover(result, comp_w: float, comp_h: float, overlap: float) -> None:
    sources = {(p.source.x, p.source.y): p.source for p in result.placements}
    xs = sorted({s.x for s in sources.values()})
    ys = sorted({s.y for s in sources.values()})
    assert len(xs) == result.cols and len(ys) == result.rows
    assert min(s.x for s in sources.values()) == pytest.approx(0)
    assert min(s.y for s in sources.values()) == pytest.approx(0)
    assert max(s.x1 for s in sources.values()) == pytest.approx(comp_w)
    assert max(s.y1 for s in sources.values()) == pytest.approx(comp_h)
    tile_w, tile_h = next(iter(sources.values())).w, next(iter(sources.values())).h
    for a, b in zip(xs, xs[1:]):
        assert a + tile_w - b == pytest.approx(overlap)  # neighbours overlap exactly
    for a, b in zip(ys, ys[1:]):
        assert a + tile_h - b == pytest.approx(overlap)


def test_tile_map_300x200_on_a4(tmp_path):
    result = tile(_map(tmp_path, 300, 200), A4, tmp_path / "map.pdf", title="World")
    assert (result.pages, result.cols, result.rows, result.landscape) == (2, 2, 1, False)
    _assert_tiles_cover(result, 300, 200, 4.0)
    for p in result.placements:
        assert p.x_mm >= 5 - 1e-6 and p.x_mm + p.w_mm <= 205 + 1e-6  # inside the margins
        assert p.x_mm == pytest.approx((210 - p.w_mm) / 2) and p.y_mm == pytest.approx((297 - p.h_mm) / 2)
    texts = [page.extract_text() for page in PdfReader(result.path).pages]
    assert "World · tile 1,1 of 1 x 2 · A4" in texts[0] and "tile 1,2 of 1 x 2" in texts[1]


def test_tile_alignment_marks_point_at_the_neighbours_edge(tmp_path):
    result = tile(_map(tmp_path, 420, 420), A4, tmp_path / "board.pdf", overlap_mm=12)
    assert (result.cols, result.rows) == (3, 2) and result.pages == 6
    _assert_tiles_cover(result, 420, 420, 12.0)
    by_page = {p.page: p for p in result.placements}
    for page, p in by_page.items():
        row, col = divmod(page, result.cols)
        to_source_x = lambda x, p=p: x - p.x_mm + p.source.x  # noqa: E731
        to_source_y = lambda y, p=p: y - p.y_mm + p.source.y  # noqa: E731
        align = [m for m in result.marks if m.page == page and m.kind == "align"]
        vertical = {round(to_source_x(m.x1), 6) for m in align if m.x0 == m.x1}
        horizontal = {round(to_source_y(m.y1), 6) for m in align if m.y0 == m.y1}
        expected_x = set()
        if col > 0:
            expected_x.add(round(by_page[page - 1].source.x1, 6))  # left neighbour ends here
        if col < result.cols - 1:
            expected_x.add(round(by_page[page + 1].source.x, 6))   # right neighbour starts here
        expected_y = set()
        if row > 0:
            expected_y.add(round(by_page[page - result.cols].source.y, 6))
        if row < result.rows - 1:
            expected_y.add(round(by_page[page + result.cols].source.y1, 6))
        assert vertical == expected_x and horizontal == expected_y
        for mark in (m for m in result.marks if m.page == page):
            assert not mark_bounds(mark).intersects(p.rect)  # all marks stay in the margin


def test_tile_chooses_the_orientation_with_fewer_pages(tmp_path):
    result = tile(_map(tmp_path, 550, 180), A4, tmp_path / "strip.pdf")  # portrait 3, landscape 2
    assert result.landscape and result.pages == 2 and (result.cols, result.rows) == (2, 1)
    with pikepdf.open(result.path) as pdf:
        assert [float(v) for v in pdf.pages[0].mediabox][2:] == pytest.approx([mm_to_pt(297), mm_to_pt(210)])
    _assert_tiles_cover(result, 550, 180, 4.0)


def test_tile_is_clipped_to_its_region(tmp_path):
    result = tile(_map(tmp_path, 300, 200), A4, tmp_path / "map.pdf")
    dpi, k = 100, 100 / 25.4
    for p in result.placements:
        img = render(result.path, p.page, dpi)
        left, top, right, bottom = px_box(p.rect, A4.height_mm, dpi)
        art = colour_mask(img, (120, 200, 120)).getbbox()
        assert art[0] >= left - 1 and art[2] <= right + 1  # nothing outside the region
        assert art[2] - art[0] >= (p.w_mm - 1) * k


def test_small_component_is_one_centred_page_with_crop_marks(tmp_path):
    result = tile(_map(tmp_path, 150, 100, bleed=3), A4, tmp_path / "small.pdf", bleed_mm=3)
    assert (result.pages, result.cols, result.rows) == (1, 1, 1)
    (p,) = result.placements
    assert (p.x_mm, p.y_mm) == pytest.approx(((210 - 150) / 2, (297 - 100) / 2))
    crops = [m for m in result.marks if m.kind == "crop"]
    assert len(crops) == 8
    xs = sorted({m.x0 for m in crops if m.x0 == m.x1})
    ys = sorted({m.y0 for m in crops if m.y0 == m.y1})
    assert xs[1] - xs[0] == pytest.approx(144) and ys[1] - ys[0] == pytest.approx(94)
    assert xs[0] == pytest.approx(p.x_mm + 3)


# ---------------------------------------------------------------- cutting machines

def _svg_outlines(text: str) -> list[tuple[float, float, float, float, float]]:
    """(x0, y0, x1, y1, corner radius) of every path in a cut SVG, in page mm from the
    BOTTOM-left (the SVG's y runs down): read from the path data, not from cardgen's geometry."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(text)
    assert root.get("width", "").endswith("mm") and root.get("height", "").endswith("mm")
    page_h = float(root.get("height")[:-2])
    assert root.get("viewBox") == f"0 0 {root.get('width')[:-2]} {root.get('height')[:-2]}"  # 1 unit = 1 mm
    shapes = []
    for path in root.iter("{http://www.w3.org/2000/svg}path"):
        numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", path.get("d"))]
        commands = re.findall(r"[MHVAZ]", path.get("d"))
        assert commands == ["M", "H", "A", "V", "A", "H", "A", "V", "A", "Z"], commands
        xs, ys, radii = [], [], []
        i, x, y = 0, 0.0, 0.0
        for c in commands:
            if c == "M":
                x, y = numbers[i], numbers[i + 1]
                i += 2
            elif c == "H":
                x = numbers[i]
                i += 1
            elif c == "V":
                y = numbers[i]
                i += 1
            elif c == "A":
                radii.append(numbers[i])
                x, y = numbers[i + 5], numbers[i + 6]
                i += 7
            if c != "Z":
                xs.append(x)
                ys.append(y)
        shapes.append((min(xs), page_h - max(ys), max(xs), page_h - min(ys), radii[0]))
    return shapes


@pytest.mark.parametrize("name", ["silhouette", "cricut"])
@pytest.mark.parametrize("paper", [A4, LETTER], ids=["a4", "letter"])
def test_cutter_marks_lie_where_the_machine_reads_them_and_cards_keep_clear(tmp_path, name, paper):
    from cardgen.imposition import CUTTERS
    from cardgen.imposition.cutter import cut_area, cutter_layout, registration_marks

    cutter = CUTTERS[name]
    layout = cutter_layout(POKER, paper, cutter)
    w, h = layout.page_w, layout.page_h
    marks = registration_marks(0, cutter, w, h)
    boxes = [mark_bounds(m) for m in marks]
    for box in boxes:  # a home printer prints them: at least 5 mm inside the paper
        assert box.x >= 5 and box.y >= 5 and box.x1 <= w - 5 and box.y1 <= h - 5
    painted = layout.art_extent()
    for box in boxes:
        assert not painted.expanded(1, 1, 1, 1).intersects(box)  # the cards keep clear of every mark
    if name == "silhouette":
        # Silhouette Studio's three marks: a filled square at the top-left corner, an L at the
        # top-right and one at the bottom-left; each mark's corner 10 mm in from both edges (on
        # the middle of its 1 mm line), the L's arms 5 mm long
        square, *arms = boxes
        assert (square.w, square.h) == pytest.approx((5, 5))
        assert (square.x + square.w / 2, square.y + square.h / 2) == pytest.approx((10, h - 10))
        top_right, bottom_left = arms[:2], arms[2:]
        for pair, corner in ((top_right, (w - 10, h - 10)), (bottom_left, (10, 10))):
            x0, y0 = min(a.x for a in pair), min(a.y for a in pair)
            x1, y1 = max(a.x1 for a in pair), max(a.y1 for a in pair)
            assert (x1 - x0, y1 - y0) == pytest.approx((5.5, 5.5))  # 5 mm arms from the line's middle
            assert all(min(a.w, a.h) == pytest.approx(1.0) for a in pair)
            outer = (x1 - 0.5, y1 - 0.5) if corner[0] > w / 2 else (x0 + 0.5, y0 + 0.5)
            assert outer == pytest.approx(corner)
    else:
        # Cricut's Print Then Cut: a black frame around the print area, which is at most
        # 6.75 x 9.25 in (Cricut's help page), the cards inside it
        area = cut_area(cutter, w, h)
        assert sorted((area.w, area.h)) == pytest.approx(sorted((6.75 * 25.4, 9.25 * 25.4)))
        outer_x0, outer_y0 = min(b.x for b in boxes), min(b.y for b in boxes)
        outer_x1, outer_y1 = max(b.x1 for b in boxes), max(b.y1 for b in boxes)
        assert len(boxes) == 4 and all(min(b.w, b.h) == pytest.approx(1.0) for b in boxes)
        assert (outer_x0 + outer_x1) / 2 == pytest.approx(w / 2) and (outer_y0 + outer_y1) / 2 == pytest.approx(h / 2)
        assert outer_x0 < painted.x and painted.x1 < outer_x1 and outer_y0 < painted.y and painted.y1 < outer_y1
        assert area.x <= painted.x and painted.x1 <= area.x1 and area.y <= painted.y and painted.y1 <= area.y1


@pytest.mark.parametrize("name", ["silhouette", "cricut"])
def test_cut_file_outlines_coincide_with_the_cards_on_every_page(deck, tmp_path, name):
    """The cutter sheets put every card in the same cells on every page, and the cut file's
    outlines lie on those cards' trim within 0.1 mm (both read back: the PDF's content stream,
    the SVG's path data)."""
    from cardgen.imposition import CUTTERS
    from cardgen.imposition.cutter import cut_svg, cutter_layout, registration_marks
    from cardgen.imposition.impose import PieceGroup, impose_cells

    cutter = CUTTERS[name]
    layout = cutter_layout(POKER, A4, cutter)
    per = layout.cols * layout.rows
    token = SheetSpec(30, 30, bleed_mm=3, shape="circle")
    tokens = [Slot(make_card(tmp_path / "t.pdf", (250, 120, 0), w=30, h=30), None)] * 3
    result = impose_cells([PieceGroup(POKER, deck(per + 2)), PieceGroup(token, tokens)], layout, 0, A4,
                          tmp_path / "cut.pdf", page_marks=lambda page: registration_marks(page, cutter, layout.page_w,
                                                                                          layout.page_h))
    outlines = _svg_outlines(cut_svg(layout, 3.0, "test"))
    assert len(outlines) == per and {o[4] for o in outlines} == {3.0}
    with pikepdf.open(result.path) as pdf:
        for index in range(0, len(pdf.pages), 2):  # every front page, read from its content stream
            cards = [f for f in _placed_forms(pdf.pages[index]) if round(f[2]) == 69]
            assert cards, index
            for x, y, _, _ in cards:  # the form includes 3 mm of bleed round the 63 x 88 trim
                assert any(abs(x + 3 - o[0]) < 0.1 and abs(y + 3 - o[1]) < 0.1 and abs(x + 66 - o[2]) < 0.1
                           and abs(y + 91 - o[3]) < 0.1 for o in outlines), (index, x, y)
    fronts = [p for p in result.placements if p.side == "front" and round(p.w_mm) == 63]
    assert len(fronts) == per + 2
    for p in fronts:  # every card of every page on an outline
        assert any(abs(p.x_mm - o[0]) < 0.1 and abs(p.y_mm - o[1]) < 0.1 and abs(p.x_mm + p.w_mm - o[2]) < 0.1
                   and abs(p.y_mm + p.h_mm - o[3]) < 0.1 for o in outlines), p
    # the tokens sit in the second page's empty cells, inside a cell's outline, with their own cut line
    for t in (p for p in result.placements if p.side == "front" and round(p.w_mm) == 30):
        assert any(o[0] + 1 <= t.x_mm and t.x_mm + 30 <= o[2] - 1 and o[1] + 1 <= t.y_mm and t.y_mm + 30 <= o[3] - 1
                   for o in outlines)
    assert len([m for m in result.marks if m.kind == "circle"]) == 3
    assert not [m for m in result.marks if m.kind == "crop"]  # the machine cuts: no crop marks
