"""Card text is measured exactly, wraps inside its box, shrinks to fit, and renders as measured."""

from __future__ import annotations

import random
from pathlib import Path
from xml.etree import ElementTree

import cairocffi
import pytest
from fontTools.ttLib import TTFont
from PIL import Image
from pypdf import PdfReader

from cardgen.render import fonts, svgconvert
from cardgen.render.textfit import Icon, PlacedIcon, Span, Text, fit_text, layout_to_svg

BODY = "Alegreya Sans"
DPI = 600
MM_PER_PX = 25.4 / DPI
FONTSET = fonts.FontSet()


@pytest.fixture(scope="module", autouse=True)
def project_fonts():
    fonts.use_project_fonts()


def red_square(name: str, x: float, y: float, size: float) -> str:
    return f'<rect x="{x}" y="{y}" width="{size}" height="{size}" fill="#ff0000"/>'


def render(fragment: str, tmp_path: Path, width: float = 120, height: float = 30) -> Image.Image:
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}mm" height="{height}mm"'
        f' viewBox="0 0 {width} {height}">{fragment}</svg>'
    )
    out = tmp_path / "render.png"
    svgconvert.svg_to_png(svg, out, dpi=DPI)
    return Image.open(out)


def ink_columns_mm(image: Image.Image, colour: str) -> tuple[float, float]:
    """Left and right edge (mm) of the pixels that are clearly black text or red icons."""
    r, g, b = image.split()
    if colour == "black":
        mask = Image.eval(r, lambda v: 255 if v < 128 else 0)
    else:
        mask = Image.merge("RGB", (r, g, b)).convert("HSV").split()[1]  # saturation
        mask = Image.eval(mask, lambda v: 255 if v > 128 else 0)
    left, _, right, _ = mask.getbbox()
    return left * MM_PER_PX, right * MM_PER_PX


def text_of(line) -> str:
    return "".join(item.text for item in line.items if isinstance(item, Span))


def one_line(runs, family=BODY, size=5.0, width=110.0):
    layout = fit_text(runs, width, 20, family=family, max_size=size, min_size=size)
    assert len(layout.lines) == 1 and not layout.overflow
    return layout


def expected_ink_mm(layout, x0: float, family: str, bold=False, italic=False):
    """Ink edges predicted from the font's own glyph bounds at the measured positions."""
    [line] = layout.lines
    spans = [item for item in line.items if isinstance(item, Span)]
    metrics = FONTSET.metrics(family, bold, italic)
    first, last = spans[0], spans[-1]
    left = x0 + first.x + metrics.ink_x(first.text[0])[0] * layout.size
    last_origin = last.x + metrics.advance(last.text[:-1]) * layout.size
    right = x0 + last_origin + metrics.ink_x(last.text[-1])[1] * layout.size
    return left, right


@pytest.mark.parametrize(
    ("family", "bold", "italic"),
    [(BODY, False, False), (BODY, False, True), (BODY, True, False), ("Cinzel", True, False)],
)
def test_measured_width_matches_cairo_ink(tmp_path, family, bold, italic):
    runs = [Text("Hamburgefonstiv quick brown fox 1234", bold, italic)]
    layout = one_line(runs, family, size=4)
    fragment = layout_to_svg(layout, 5, 5, family=family, fill="#000", icon_svg=red_square)

    left, right = ink_columns_mm(render(fragment, tmp_path), "black")

    assert right - left == pytest.approx(layout.lines[0].width, rel=0.02)
    want_left, want_right = expected_ink_mm(layout, 5, family, bold, italic)
    assert left == pytest.approx(want_left, abs=2 * MM_PER_PX)
    assert right == pytest.approx(want_right, abs=2 * MM_PER_PX)


def gpos_pair_adjustment(font: TTFont, first: str, second: str) -> int:
    """XAdvance of a GPOS pair (kerning) adjustment, 0 if none."""
    cmap = font.getBestCmap()
    left, right = cmap[ord(first)], cmap[ord(second)]
    for lookup in font["GPOS"].table.LookupList.Lookup:
        for sub in lookup.SubTable if lookup.LookupType == 2 else ():
            if left not in sub.Coverage.glyphs:
                continue
            if sub.Format == 1:
                pairs = sub.PairSet[sub.Coverage.glyphs.index(left)].PairValueRecord
                value = next((p.Value1 for p in pairs if p.SecondGlyph == right), None)
            else:
                class1 = sub.ClassDef1.classDefs.get(left, 0)
                class2 = sub.ClassDef2.classDefs.get(right, 0)
                value = sub.Class1Record[class1].Class2Record[class2].Value1
            if value is not None and getattr(value, "XAdvance", 0):
                return value.XAdvance
    return 0


def test_cairo_does_not_kern(tmp_path):
    """Cinzel kerns AV/VA hard in GPOS; cairo's toy API (and so cairosvg) ignores it."""
    font = TTFont(FONTSET.path("Cinzel"))
    kern_em = gpos_pair_adjustment(font, "A", "V") / font["head"].unitsPerEm
    assert kern_em < -0.05

    text = "AVAVAVAVAVAVAVAVAVAV"
    options = cairocffi.FontOptions(
        hint_style=cairocffi.HINT_STYLE_NONE, hint_metrics=cairocffi.HINT_METRICS_OFF
    )
    scaled = cairocffi.ScaledFont(
        cairocffi.ToyFontFace("Cinzel"), cairocffi.Matrix(xx=1, yy=1), cairocffi.Matrix(), options
    )
    assert scaled.text_extents(text)[4] == pytest.approx(FONTSET.metrics("Cinzel").advance(text))

    layout = one_line([Text(text)], "Cinzel")
    fragment = layout_to_svg(layout, 5, 5, family="Cinzel", fill="#000", icon_svg=red_square)
    left, right = ink_columns_mm(render(fragment, tmp_path), "black")
    unkerned = layout.lines[0].width
    kerned = unkerned + kern_em * (len(text) - 1) * layout.size
    assert right - left == pytest.approx(unkerned, rel=0.02)
    assert abs((right - left) - kerned) > 0.1 * unkerned


LONG = "When this creature enters, draw two cards, then discard a card. " * 3


def test_long_text_shrinks_to_the_largest_size_that_fits():
    layout = fit_text([Text(LONG)], 59, 25, family=BODY, max_size=5, min_size=2)

    assert 2 < layout.size < 5 and not layout.overflow
    assert ((5 - layout.size) / 0.25).is_integer()
    assert layout.height <= 25
    one_up = layout.size + 0.25
    assert fit_text([Text(LONG)], 59, 25, family=BODY, max_size=one_up, min_size=one_up).overflow


def test_short_text_keeps_max_size():
    layout = fit_text([Text("Draw a card.")], 59, 25, family=BODY, max_size=5, min_size=2)
    assert layout.size == 5 and not layout.overflow


def test_absurd_text_stops_at_min_size_with_overflow():
    layout = fit_text([Text(LONG * 30)], 59, 25, family=BODY, max_size=5, min_size=2.1)

    assert layout.size == 2.1 and layout.overflow
    assert layout.height > 25


@pytest.mark.parametrize("width", [8.0, 17.3, 25.0, 40.0, 59.0])
@pytest.mark.parametrize("family", [BODY, "Cinzel"])
def test_wrapped_lines_never_exceed_the_box_and_keep_every_word(width, family):
    rng = random.Random(f"{width}{family}")
    vocabulary = "a of the QUEST Quill fief shield Dragon's wyvern, (and) deal 10 damage.".split()
    words = [rng.choice(vocabulary) for _ in range(60)]
    layout = fit_text(
        [Text(" ".join(words))], width, 500, family=family, max_size=4, min_size=4
    )

    assert not layout.overflow
    assert all(line.width <= width + 1e-9 for line in layout.lines)
    printed = " ".join(text_of(line) for line in layout.lines)
    metrics = FONTSET.metrics(family)
    if all(metrics.advance(word) * 4 < width for word in words):
        assert printed == " ".join(words)
    else:  # some words had to be split
        assert printed.replace(" ", "") == "".join(words)


def test_word_wider_than_the_box_is_broken_by_characters():
    word = "Supercalifragilisticexpialidocious"
    layout = fit_text([Text(f"a {word} b")], 15, 100, family=BODY, max_size=5, min_size=5)

    lines = [text_of(line) for line in layout.lines]
    assert lines[0] == "a" and lines[-1].endswith("b")
    assert "".join(lines[1:]).removesuffix(" b") == word
    assert all(line.width <= 15 for line in layout.lines)


def test_newlines_force_breaks_and_spaces_collapse():
    runs = [Text("One  \t two\n\nthree\r\nfour")]
    layout = fit_text(runs, 100, 100, family=BODY, max_size=5, min_size=5)

    assert [text_of(line) for line in layout.lines] == ["One two", "", "three", "four"]
    pitches = {round(b.baseline - a.baseline, 9) for a, b in zip(layout.lines, layout.lines[1:])}
    assert pitches == {round(5 * 1.15, 9)}


def test_no_break_space_glues_words():
    measure = FONTSET.metrics(BODY)
    width = measure.advance("2 gold.") * 5 + 0.1
    layout = fit_text([Text("Gain 2\u00a0gold.")], width, 100, family=BODY, max_size=5, min_size=5)
    assert [text_of(line) for line in layout.lines] == ["Gain", "2\u00a0gold."]


def test_icons_sit_inline_between_text():
    size = 5
    layout = one_line([Text("Gain 2"), Icon("coin"), Text(".")], size=size)
    before, icon, after = layout.lines[0].items

    assert isinstance(icon, PlacedIcon) and icon.name == "coin"
    assert icon.x == pytest.approx(before.x + before.width + 0.15 * size)
    assert after.x == pytest.approx(icon.x + 1.15 * size)
    assert icon.size == size
    assert icon.y == pytest.approx(layout.lines[0].baseline - 0.8 * size)


def test_icon_sticks_to_adjacent_punctuation():
    size, metrics = 5, FONTSET.metrics(BODY)
    fits_icon_only = (metrics.advance("aaaa bbbb ") + 1.3 + metrics.advance(".") / 2) * size
    runs = [Text("aaaa bbbb "), Icon("coin"), Text(". cc")]
    layout = fit_text(runs, fits_icon_only, 100, family=BODY, max_size=size, min_size=size)

    first, second = layout.lines[:2]
    assert text_of(first) == "aaaa bbbb"
    assert isinstance(second.items[0], PlacedIcon) and second.items[1].text.startswith(".")


def test_an_icon_between_spaces_never_stands_alone_on_a_line():
    """'+1 point per <icon>' in a box that holds the words but not the icon: the icon takes the
    word before it to the next line instead of making a line of its own; an icon that starts a
    paragraph stays with the word after it."""
    size, metrics = 5, FONTSET.metrics(BODY)
    holds_the_words = (metrics.advance("aaaa bbbb") + 0.5) * size
    layout = fit_text([Text("aaaa bbbb "), Icon("coin")], holds_the_words, 100, family=BODY,
                      max_size=size, min_size=size)
    assert [text_of(line).strip() for line in layout.lines] == ["aaaa", "bbbb"]
    assert isinstance(layout.lines[1].items[-1], PlacedIcon) and not layout.overflow

    layout = fit_text([Icon("coin"), Text(" aaaa bbbb")], holds_the_words, 100, family=BODY,
                      max_size=size, min_size=size)
    assert isinstance(layout.lines[0].items[0], PlacedIcon) and text_of(layout.lines[0]).strip() == "aaaa"
    assert text_of(layout.lines[1]).strip() == "bbbb"
    for line in layout.lines:
        assert any(not isinstance(item, PlacedIcon) for item in line.items)


def test_icons_render_where_measured(tmp_path):
    runs = [Text("Gain 2"), Icon("coin"), Text(", then draw.")]
    layout = one_line(runs)
    fragment = layout_to_svg(layout, 5, 5, family=BODY, fill="#000", icon_svg=red_square)
    image = render(fragment, tmp_path)
    icon = layout.lines[0].items[1]

    red_left, red_right = ink_columns_mm(image, "red")
    assert red_left == pytest.approx(5 + icon.x, abs=MM_PER_PX)
    assert red_right == pytest.approx(5 + icon.x + icon.size, abs=MM_PER_PX)
    before = ink_columns_mm(image.crop((0, 0, int((5 + icon.x) / MM_PER_PX), image.height)), "black")
    assert before[1] < red_left


def test_center_alignment_is_symmetric():
    layout = fit_text(
        [Text("mum\nmum mum")], 50, 100, family=BODY, max_size=5, min_size=5, align="center"
    )
    for line in layout.lines:
        start = line.items[0].x
        end = line.items[-1].x + line.items[-1].width
        assert start == pytest.approx(50 - end)


def test_vertical_offset_places_block_in_box():
    layout = fit_text([Text("Draw.")], 50, 30, family=BODY, max_size=5, min_size=5)
    free = 30 - layout.height
    assert layout.vertical_offset("top") == 0
    assert layout.vertical_offset("middle") == pytest.approx(free / 2)
    assert layout.vertical_offset("bottom") == pytest.approx(free)
    with pytest.raises(ValueError):
        layout.vertical_offset("centre")


def test_first_baseline_leaves_room_for_the_tallest_glyph():
    layout = fit_text([Text("ÅÉ")], 50, 30, family=BODY, max_size=5, min_size=5)
    tallest = max(FONTSET.metrics(BODY, b, i).ascent for b in (0, 1) for i in (0, 1))
    assert layout.lines[0].baseline == pytest.approx(tallest * 5)


def test_markup_escapes_text_which_prints_as_written(tmp_path):
    written = "Tom & Jerry <3 \"quotes\" 'single' >_<"
    layout = fit_text([Text(written)], 100, 20, family=BODY, max_size=4, min_size=4)
    fragment = layout_to_svg(layout, 2, 2, family=BODY, fill="#000", icon_svg=red_square)
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="104mm" height="24mm"'
        f' viewBox="0 0 104 24">{fragment}</svg>'
    )
    [text_element] = ElementTree.fromstring(svg)
    assert "".join(text_element.itertext()) == written

    svgconvert.svg_to_pdf(svg, tmp_path / "escaped.pdf")
    extracted = PdfReader(tmp_path / "escaped.pdf").pages[0].extract_text()
    assert extracted.replace(" ", "") == written.replace(" ", "")


def test_invalid_arguments_are_rejected():
    with pytest.raises(ValueError):
        fit_text([Text("x")], 10, 10, family=BODY, max_size=2, min_size=3)
    with pytest.raises(ValueError):
        fit_text([Text("x")], 10, 10, family=BODY, max_size=3, min_size=2, align="right")
    with pytest.raises(fonts.UnknownFamilyError):
        fit_text([Text("x")], 10, 10, family="Papyrus", max_size=3, min_size=2)


def test_a_layout_kept_from_an_earlier_box_is_the_one_fitting_again_would_make():
    """fit_text keeps its layouts (a build fits the same labels on many cards): each kept one is
    the layout a fresh fit makes, for every argument it depends on, and a box that differs in
    any one of them gets its own."""
    from cardgen.render import textfit

    base = dict(width=30.0, height=9.0, family=BODY, max_size=3.0, min_size=2.0, line_height=1.15,
                align="left")
    runs = [Text("Forge a blade of "), Icon("steel"), Text(" steel, then", bold=True), Text(" temper it.")]
    variants = [base, {**base, "width": 22.0}, {**base, "height": 5.0}, {**base, "max_size": 2.5},
                {**base, "min_size": 1.5, "height": 3.0}, {**base, "line_height": 1.4}, {**base, "align": "center"},
                {**base, "family": "Cinzel"}]
    layouts = []
    for kw in variants:
        args = {k: v for k, v in kw.items() if k != "family"}
        kept = [fit_text(runs, fonts=FONTSET, family=kw["family"], **args) for _ in range(2)]
        fresh_measure = textfit._Measure(dict(zip(textfit._STYLES, (FONTSET.metrics(kw["family"], *style)
                                                                    for style in textfit._STYLES))))
        fresh = textfit._fit(runs, kw["width"], kw["height"], kw["max_size"], kw["min_size"], kw["line_height"],
                             kw["align"], fresh_measure)
        assert kept[0] is kept[1] and kept[0] == fresh, kw
        layouts.append(fresh)
    assert len({(lay.size, lay.lines, lay.height, lay.box_width, lay.box_height) for lay in layouts}) == len(variants)
    # bold and italic runs of the same words are other text
    assert fit_text([Text("temper it")], fonts=FONTSET, **base) != fit_text(
        [Text("temper it", italic=True)], fonts=FONTSET, **base)
