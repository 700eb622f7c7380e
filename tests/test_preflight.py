"""The print preflight, read from the rendered cards' geometry: on the real games (clean) and on a
deliberately broken copy of tests/projects/mini (every kind of fault found, by card id, through the
findings channel)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cardgen.buildtypes import BuildOptions
from cardgen.cardstage import draw_cards
from cardgen.colour import contrast_ratio
from cardgen.data.project import load_project
from cardgen.data.versions import available_versions, load_game, resolve
from cardgen.pipeline import build
from cardgen.preflight import SAFE_MM, preflight
from cardgen.preflight.geometry import read_shapes
from cardgen.render.fonts import FontSet

ROOT = Path(__file__).resolve().parents[1]


def _all_versions(project):
    for game_id in project.game_ids():
        game = load_game(project, game_id)
        for version in available_versions(project, game):
            yield game_id, version, resolve(project, game, version)


@pytest.fixture(scope="module")
def rendered():
    """Every version of every game, rendered to SVG once: {(game, version): (snapshot, set)}."""
    project = load_project(ROOT)
    return {(g, v): (s, draw_cards(project, s, checks=False).faces()) for g, v, s in _all_versions(project)}


@pytest.fixture(scope="module")
def fonts():
    return FontSet(ROOT / "fonts")


def test_the_real_games_pass_the_preflight(rendered, fonts):
    assert len(rendered) == 8  # King's Blade 1, 2, 3, 3.1 and the four other games
    faces = 0
    for (game, version), (snapshot, result) in rendered.items():
        findings = preflight(snapshot, result, fonts)
        assert [str(f) for f in findings] == [], (game, version)
        faces += len(result.faces) + len(result.backs)
    assert faces > 150


def test_small_text_contrast_is_at_least_4_5_on_every_card(rendered, fonts):
    """WCAG 2 AA over every text block of every face and back, against the colours under it."""
    from cardgen.preflight import _backgrounds

    checked, worst = 0, 99.0
    for (game, version), (snapshot, result) in rendered.items():
        for key, face in list(result.faces.items()) + list(result.backs.items()):
            shapes = read_shapes(face.svg, fonts)
            for text in (s for s in shapes if s.kind == "text"):
                need = 4.5 if text.font_size < 6.35 else 3.0
                ratio = min(contrast_ratio(text.fill, bg) for bg in _backgrounds(text, shapes))
                assert ratio >= need, (game, version, key, text.text, round(ratio, 2))
                checked += 1
                worst = min(worst, ratio / need)
    assert checked > 800  # every title, label, index and effect row of 7 builds
    assert worst >= 1.0


def test_hilt_titles_are_dark_on_gold_and_metal_rarity_reads_on_any_colour(rendered, fonts):
    _, result = rendered[("kings-blade", "3.1")]
    shapes = read_shapes(result.faces["crossguard-hilt"].svg, fonts)
    title = next(s for s in shapes if s.kind == "text" and s.text == "Crossguard Hilt")
    assert title.fill == "#2a211b"  # white on #b8862b is 3.2:1, this is 5.3:1
    for metal in ("steel", "orcish-steel", "dwarvish-steel", "elvish-steel"):
        shapes = read_shapes(result.faces[metal].svg, fonts)
        rarity = next(s for s in shapes if s.kind == "text" and s.text in ("Common", "Uncommon", "Rare", "Legendary"))
        from cardgen.preflight import _backgrounds
        assert min(contrast_ratio(rarity.fill, bg) for bg in _backgrounds(rarity, shapes)) >= 4.5, metal


def test_nothing_but_bleed_lies_within_3_mm_of_the_trim(rendered, fonts):
    """Geometry read back from the SVG: every edge of every element is >= 3 mm inside the trim
    or reaches the bleed's outer edge (it bleeds off)."""
    for (game, version), (snapshot, result) in rendered.items():
        bleed = snapshot.game.file.bleed_mm
        for key, face in list(result.faces.items()) + list(result.backs.items()):
            if face.shape != "rect":
                continue
            w, h = face.width_mm - 2 * bleed, face.height_mm - 2 * bleed
            for s in read_shapes(face.svg, fonts):
                if s.kind == "icon" and s.opacity < 0.35:
                    continue  # the backs' faint lattice runs off like a tint
                for d in (s.box[0], s.box[1], w - s.box[2], h - s.box[3]):
                    assert d >= SAFE_MM - 0.01 or d <= -bleed + 0.01, (game, key, s.kind, s.box)


def test_backs_have_no_frame_no_upside_down_name_and_no_format_name(rendered, fonts):
    for (game, version), (snapshot, result) in rendered.items():
        for deck_id, back in result.backs.items():
            assert "rotate(180" not in back.svg, (game, deck_id)
            assert "Jumbo" not in back.svg
            h = back.height_mm - 2 * snapshot.game.file.bleed_mm
            shapes = read_shapes(back.svg, fonts)
            w = back.width_mm - 2 * snapshot.game.file.bleed_mm
            texts = [s.text for s in shapes if s.kind == "text"]
            if game == "kings-blade":  # three decks of one size: each back names its deck, upright
                deck = snapshot.game.decks[deck_id]
                assert texts in ([snapshot.game.name, deck.name], []), (deck_id, texts)
            elif game == "kings-guild":  # six poker decks (and the Room tiles): each names its deck
                deck = snapshot.game.decks[deck_id]
                assert texts in ([snapshot.game.name, deck.name], [deck.name], []), (deck_id, texts)
            else:  # told apart by colour and emblem: only the game's name, at the top
                assert texts == ([] if back.shape == "circle" else [snapshot.game.name]), (game, deck_id, texts)
                assert all(s.box[3] < h / 2 for s in shapes if s.kind == "text")
            for s in shapes:
                if s.kind in ("rect", "circle") and s.box[0] > -snapshot.game.file.bleed_mm + 0.01:
                    # nothing outlines the back: a 1.5 mm duplex shift would show as uneven borders
                    assert s.width < 0.6 * w or s.height < 0.6 * h, (game, deck_id, s.box)


def test_one_effect_text_size_per_card_and_crucible_title_at_full_size(rendered, fonts):
    sizes_seen = set()
    for version in ("1", "2", "3", "3.1"):
        snapshot, result = rendered[("kings-blade", version)]
        for card in snapshot.cards:
            if not card.effects:
                continue
            svg = result.faces[card.id].svg
            body = [float(m) for m in re.findall(r'font-family="Alegreya Sans" font-size="([\d.]+)"', svg)]
            assert len(body) >= len(card.effects), card.id
            assert len(set(body)) == 1, (version, card.id, sorted(set(body)))
            assert 2.4 <= body[0] <= 3.6
            sizes_seen.add(body[0])
    assert sizes_seen == {3.6}  # rows grow to fit their text, so every card keeps the full size
    snapshot, result = rendered[("kings-blade", "1")]
    assert snapshot.card("crucible").name == "Philosopher's Crucible"
    shapes = read_shapes(result.faces["crucible"].svg, fonts)
    title = next(s for s in shapes if s.kind == "text" and "Crucible" in s.text)
    short = next(s for s in read_shapes(result.faces["katana-hilt"].svg, fonts)
                 if s.kind == "text" and s.text == "Katana Hilt")
    # a long name takes two lines at the title's own size instead of shrinking (issue 22: no
    # title below 85 %), and stays in the header band beside the cost disc
    assert 0.85 * short.font_size <= title.font_size <= short.font_size
    assert 1.2 * title.font_size < title.height < 2.6 * title.font_size
    assert title.box[3] <= short.box[3] + 1.3 * title.font_size


def test_every_sword_part_has_art_of_its_own_and_v3_art_is_plainly_visible(rendered):
    icons = ROOT / "icons"
    for version in ("1", "2", "3", "3.1"):
        snapshot, _ = rendered[("kings-blade", version)]
        parts = [c for c in snapshot.cards if c.type in ("blade", "hilt", "upgrade")]
        arts = [c.art for c in parts]
        assert len(set(arts)) == len(arts), version
        drawings = {(icons / f"{a}.svg").read_bytes() for a in arts}
        assert len(drawings) == len(arts)
    v2 = rendered[("kings-blade", "2")][0].style["art_opacity"]
    v3 = rendered[("kings-blade", "3")][0].style["art_opacity"]
    assert v2 == 0.10 and v3 >= 0.45


def test_v3_art_shows_in_print_and_lies_beside_the_text_panel(rendered, fonts):
    """Rasterised, the art of a V3 card stands out from its paper several times more than V2's,
    and nothing covers it: the effects box lies below the art."""
    import io

    import cairosvg
    from PIL import Image

    from cardgen.render.fonts import use_project_fonts

    use_project_fonts()  # before cairo first draws text, as every render in cardgen does

    def art_contrast(version: str) -> float:
        _, result = rendered[("kings-blade", version)]
        face = result.faces["crossguard-hilt"]
        shapes = read_shapes(face.svg, fonts)
        art = next(s for s in shapes if s.kind == "icon" and 0.05 < s.opacity < 1)
        panel = next(s for s in shapes if s.kind == "rect" and s.fill == "#ffffff")
        assert art.box[3] <= panel.box[1], version  # the art is not under the text panel
        png = cairosvg.svg2png(bytestring=face.svg.encode(), dpi=150)
        image = Image.open(io.BytesIO(png)).convert("L")
        px = image.width / face.width_mm
        bleed = 3
        crop = image.crop(tuple(int((v + bleed) * px) for v in art.box))
        values = sorted(crop.tobytes())  # 8-bit grey levels
        return values[-len(values) // 20] - values[len(values) // 20]  # paper minus art, robustly

    v2, v3 = art_contrast("2"), art_contrast("3")
    assert v3 > 3 * v2, (v2, v3)
    assert v3 >= 40, (v2, v3)  # of 255 grey levels, on the lightest type colour (hilt gold)


# --- a deliberately broken copy of tests/projects/mini ---------------------------------------------

def _break(project_root: Path) -> None:
    card = project_root / "templates" / "mini" / "card.svg.j2"
    text = card.read_text(encoding="utf-8")
    # a panel 2.5 mm from the trim; the type label white on the paper; the title left-aligned at
    # x = 20 with a dark disc ending 0.2 mm before it (a near miss on every card), and on Spark a
    # second disc right on the title
    for old, new in [
        ('<rect x="3" y="3" width="{{ w - 6 }}" height="{{ h - 6 }}" rx="3" fill="{{ paper }}"/>',
         '<rect x="2.5" y="3" width="{{ w - 5 }}" height="{{ h - 6 }}" rx="3" fill="{{ paper }}"/>'),
        ('{{ textbox(ctype.label | upper, 8, h - 12, w - 16, 6, size=3.2, min_size=2.4, font="title", bold=True, '
         'align="center", valign="middle", fill=c) }}',
         '{{ textbox(ctype.label | upper, 8, h - 12, w - 16, 6, size=3.2, min_size=2.4, font="title", bold=True, '
         'align="center", valign="middle", fill="#ffffff") }}'),
        ('{{ textbox(card.name, 20, 4, w - 25, 11, size=5, min_size=3, font="title", bold=True, align="center", ',
         '<circle cx="17.8" cy="9.5" r="2" fill="#000000"/>\n'
         '{% if card.id == "spark" %}<circle cx="24" cy="9.5" r="2" fill="#000000"/>{% endif %}\n'
         '{{ textbox(card.name, 20, 4, w - 25, 11, size=5, min_size=3, font="title", bold=True, align="left", '),
    ]:
        assert old in text, old
        text = text.replace(old, new)
    card.write_text(text, encoding="utf-8")
    back = project_root / "templates" / "mini" / "back.svg.j2"
    back.write_text(back.read_text(encoding="utf-8") + '<rect x="3" y="3" width="{{ w - 6 }}" height="{{ h - 6 }}" '
                    'fill="none" stroke="#ffffff" stroke-width="0.8"/>\n', encoding="utf-8")


def test_the_preflight_finds_every_fault_of_a_broken_copy(mini, fonts):
    _break(mini)
    project = load_project(mini)
    snapshot = resolve(project, load_game(project, "mini"), "2")
    findings = preflight(snapshot, draw_cards(project, snapshot, checks=False).faces(), fonts)
    by = {(f.card, f.code) for f in findings}
    assert ("spark", "preflight-overlap") in by  # a disc on its title
    overlap = [f.message for f in findings if f.card == "spark" and f.code == "preflight-overlap"]
    assert any("'Spark' overlaps a circle" in m for m in overlap), overlap
    for cramped in ("ember", "flare"):  # the disc ends 0.2 mm before the title box, under 1 mm from the ink
        message = next(f.message for f in findings if f.card == cramped and f.code == "preflight-overlap")
        gap = float(re.search(r"is ([\d.]+) mm from a circle", message).group(1))
        assert 0 < gap < 1, message
    assert ("ember", "preflight-safe-zone") in by  # the panel's edge 2.5 mm from the trim
    assert "2.5 mm from the left" in next(f.message for f in findings
                                          if f.card == "ember" and f.code == "preflight-safe-zone")
    contrast = {f.card for f in findings if f.code == "preflight-contrast"}
    assert {"spark", "ember", "flare"} <= contrast  # white on the paper
    assert "coin" not in contrast  # its own template, light on dark: fine
    frames = {f.card for f in findings if f.code == "preflight-back-frame"}
    assert frames == {"back-main", "back-coins"}
    assert all(f.severity == "warning" and f.loc is not None for f in findings)
    # one line each, naming file:line:column and the card
    assert all(re.match(r"^\S*versions/mini/[\d.]+\.yml:\d+:\d+: warning: .+ \[card [a-z-]+\] \(preflight-[a-z-]+\)$",
                        str(f)) for f in findings if not f.card.startswith("back-"))


def test_build_warns_and_validate_lists_the_findings(mini, mini_shared, cli, tmp_path):
    _break(mini)
    project = load_project(mini)
    snapshot = resolve(project, load_game(project, "mini"), "2")
    result = build(project, snapshot, BuildOptions(papers=("a4",), png=False, rulebook=False, sheets=False,
                                                     out_dir=tmp_path / "out", workers=1))
    codes = [f.code for f in result.findings if f.code.startswith("preflight-")]
    assert codes and len(codes) == sum("(preflight-" in w for w in result.warnings)
    plain = cli("validate", "--version", "2", cwd=mini)
    assert plain.code == 0 and "[card spark]" in plain.out and "(preflight-overlap)" in plain.out
    strict = cli("validate", "--version", "2", "--strict", cwd=mini)
    assert strict.code == 1
    clean = cli("validate", "--version", "2", "--strict", cwd=mini_shared)  # the project unbroken
    assert clean.code == 0, clean.out


def test_validate_reports_text_that_does_not_fit(mini, cli):
    """What build warns about in the cards, validate lists too (and --strict fails on it)."""
    path = mini / "versions" / "mini" / "2.yml"
    text = path.read_text(encoding="utf-8")
    assert "name: Flare," in text
    path.write_text(text.replace("name: Flare,", "name: \"The Exceedingly Long And Ornately Named Philosopher's "
                                 "Crucible Of Ages\","), encoding="utf-8")
    result = cli("validate", "--version", "2", "--strict", cwd=mini)
    assert result.code == 1
    lines = [line for line in result.out.splitlines() if "(text-overflow)" in line]
    assert len(lines) == 1 and "card 'flare': text does not fit its box" in lines[0]


def test_geometry_follows_transforms_and_measures_text_ink(fonts):
    """A corner index turned 180 degrees about the card's centre lands bottom right; the text's
    box is its glyphs' ink, not its line box; a rim crowding text inside a disc is found."""
    from cardgen.buildtypes import Face
    from cardgen.preflight import check_face

    text = ('<g class="cg-text"><text xml:space="preserve" font-family="Alegreya Sans" font-size="4" fill="#1f1a17">'
            '<tspan x="4" y="9" font-weight="normal" font-style="normal">Ax</tspan></text></g>')
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="-3 -3 69 94">'
           '<rect x="-3" y="-3" width="69" height="94" fill="#ffffff"/>'
           f'<g transform="rotate(180 31.5 44)">{text}</g>'
           '<circle cx="31.5" cy="44" r="6" fill="#f4ead5" stroke="#1f1a17" stroke-width="0.6"/>'
           '<g class="cg-text"><text xml:space="preserve" font-family="Alegreya Sans" font-size="4" fill="#1f1a17">'
           '<tspan x="26" y="45.5" font-weight="normal" font-style="normal">Wider</tspan></text></g></svg>')
    shapes = read_shapes(svg, fonts)
    corner = shapes[1]
    assert corner.kind == "text" and corner.text == "Ax"
    ink_top = 9 - fonts.metrics("Alegreya Sans").ink("A")[3] * 4
    assert corner.box[3] == pytest.approx(88 - ink_top, abs=0.01)  # turned: its top is now the bottom
    assert corner.box[2] == pytest.approx(63 - 4 - fonts.metrics("Alegreya Sans").ink("A")[0] * 4, abs=0.01)
    assert corner.height < 4  # cap height and x-height, not the 4 mm em box plus descent
    findings = check_face(Face("card-test", svg, 69, 94), 3, fonts, card="test")
    assert [f.code for f in findings] == ["preflight-overlap"]  # the index is 4 mm in: safe
    wide = next(sh for sh in shapes if sh.text == "Wider")
    far = max(((x - 31.5) ** 2 + (y - 44) ** 2) ** 0.5 for x in wide.box[::2] for y in wide.box[1::2])
    assert 6.3 - 0.6 - 1 < far < 6.3 - 0.6  # on the disc, less than 1 mm inside its rim
    assert "text 'Wider' is " in findings[0].message and "from a circle (centre 31.5, 44.0; radius 6.3)" in findings[0].message
