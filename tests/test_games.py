"""Issue 6: three more seed games as data, templates and plug-ins: Way of the Blade, One True King
and Knightfall. Deck composition, the games' own checks, and their print sheets."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import ROOT, pdfium_lines
from pypdf import PdfReader

from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.imposition.stage import sheet_groups
from cardgen.render.cards import CardRenderer

GAMES = ["way-of-the-blade", "one-true-king", "knightfall"]


def _snapshot(game: str, root=ROOT):
    project = load_project(root)
    return project, resolve(project, load_game(project, game))


def _printed(snapshot, deck: str, key) -> Counter:
    counts = Counter()
    for card in snapshot.cards_in_deck(deck):
        counts[key(card)] += card.count
    return counts


def _findings(cli, game: str, cwd=ROOT) -> tuple[int, list[dict]]:
    result = cli("validate", "--game", game, "--format", "json", cwd=cwd)
    return result.code, json.loads(result.out)["findings"]


# --- deck composition ---------------------------------------------------------------------------


def test_way_of_the_blade_is_a_44_card_deck_without_queens_and_kings():
    _, s = _snapshot("way-of-the-blade")
    assert s.deck_size("duel") == 44
    assert s.deck_size("reference") == 1
    ranks = _printed(s, "duel", lambda c: c.fields["rank"])
    assert ranks == {rank: 4 for rank in range(1, 12)}  # ace to ten and the jack, no 12 or 13
    assert _printed(s, "duel", lambda c: c.fields["suit"]) == {
        "hearts": 11, "diamonds": 11, "clubs": 11, "spades": 11}
    colours = _printed(s, "duel", lambda c: s.symbols[c.fields["suit"]].colour)
    assert colours == {"#b3261e": 22, "#1f1a17": 22}
    named = _printed(s, "duel", lambda c: (c.fields["rank"], c.fields.get("face")))
    assert named[(11, "tribune")] == 4 and named[(1, "hag")] == 4
    assert s.symbols["tribune"].name == "The Tribune" and s.symbols["hag"].name == "The Hag"


def test_one_true_king_has_40_number_cards_and_two_kings():
    _, s = _snapshot("one-true-king")
    assert s.deck_size("field") == 40
    assert _printed(s, "field", lambda c: c.fields["rank"]) == {rank: 4 for rank in range(1, 11)}
    armies = s.rules["armies"]
    assert _printed(s, "field", lambda c: armies[c.fields["suit"]]) == {"red": 20, "black": 20}
    assert _printed(s, "kings", lambda c: c.fields["army"]) == {"red": 1, "black": 1}


def test_one_true_king_keeps_the_set_up_grid_as_data():
    _, s = _snapshot("one-true-king")
    assert s.rules["grid"] == ["DUDUDUD", "UDUDUDU", "DUDUDUD", "UDUDUDU", "DUDUDUD"]
    assert s.rules["spare_cards"] == 5
    assert s.game.rule_specs["grid"].type == "list" and s.game.rule_specs["grid"].of == "str"


def test_knightfall_has_52_jumbo_cards_two_maps_and_four_coins():
    _, s = _snapshot("knightfall")
    assert s.deck_size("cards") == 52
    assert _printed(s, "cards", lambda c: c.fields["power"]) == {power: 4 for power in range(1, 14)}
    assert _printed(s, "cards", lambda c: c.fields["colour"]) == {"red": 26, "black": 26}
    assert s.deck_size("camps") == 2 and s.deck_size("coins") == 4
    size = s.game.size_of("troop")
    assert (size.width_mm, size.height_mm) == (88, 126)
    assert s.game.card_types["coin"].shape == "circle"
    assert s.rules["troop_positions"] == {"knight": 1, "archers": 3, "mages": 4}


# --- the games' own checks ----------------------------------------------------------------------


def test_way_of_the_blade_and_one_true_king_validate_clean(cli):
    for game in ("way-of-the-blade", "one-true-king"):
        result = cli("validate", "--game", game)
        assert result.code == 0, result.out
        assert "0 errors, 0 warnings" in result.out


def test_knightfall_reports_the_troop_size_contradiction(cli, tmp_path):
    code, findings = _findings(cli, "knightfall")
    assert code == 0  # a warning: the build goes on with the layout's reading
    assert [(f["severity"], f["code"]) for f in findings] == [("warning", "knightfall-troop-size")]
    finding = findings[0]
    assert finding["file"] == "versions/knightfall/1.yml"
    lines = (ROOT / finding["file"]).read_text().splitlines()
    assert lines[finding["line"] - 1].lstrip().startswith("troop_positions:")
    cited = re.search(r"at most 10 cards \(troop_limit, 1\.yml:(\d+):(\d+)\)", finding["message"])
    assert cited, finding["message"]
    assert lines[int(cited[1]) - 1][int(cited[2]) - 1:].startswith("10")  # the troop_limit's value
    assert "1 knight + 3 archers + 4 mages = 8 positions" in finding["message"]
    # the message (printed in the designer's notes) is the same wherever cardgen runs
    result = cli("--project", str(ROOT), "validate", "--game", "knightfall", "--format", "json", cwd=tmp_path)
    assert [f["message"] for f in json.loads(result.out)["findings"]] == [finding["message"]]


def test_one_true_king_grid_check_fails_when_a_card_is_missing(cli, project_copy):
    path = project_copy / "versions/one-true-king/1.yml"
    text = path.read_text()
    cut = re.sub(r"\n  - \{id: hearts-7,[^\n]*", "", text)
    assert cut != text
    path.write_text(cut)
    code, findings = _findings(cli, "one-true-king", cwd=project_copy)
    assert code == 1
    grid = [f for f in findings if f["code"] == "otk-grid-cards"]
    assert [f["message"] for f in grid] == [
        "the 7 x 5 grid (35 cards) plus 5 spare cards needs 40 number cards, but the field deck holds 39"]
    assert grid[0]["file"] == "versions/one-true-king/1.yml" and grid[0]["severity"] == "error"


def test_way_of_the_blade_first_deal_fails_when_the_deck_is_cut_down(cli, project_copy):
    path = project_copy / "versions/way-of-the-blade/1.yml"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not re.match(r"  - \{id: (diamonds|clubs|spades)-", line)))
    code, findings = _findings(cli, "way-of-the-blade", cwd=project_copy)
    assert code == 1
    deal = [f for f in findings if f["code"] == "wotb-first-deal"]
    assert [f["message"] for f in deal] == [
        "the first deal needs 4 players x 5 cards = 20 cards, but the duel deck holds only 11"]
    missing = [f["message"] for f in findings if f["code"] == "wotb-missing"]
    assert len(missing) == 33 and "the duel deck has no jack of Spades (every suit holds each rank of `ranks` once)" in missing


def test_way_of_the_blade_rejects_a_queen_naming_card_and_line(cli, project_copy):
    path = project_copy / "versions/way-of-the-blade/1.yml"
    path.write_text(path.read_text().replace(
        "\nclaims:", "\n  - {id: hearts-queen, type: number, name: Queen of Hearts, rank: 12, suit: hearts}\n\nclaims:"))
    code, findings = _findings(cli, "way-of-the-blade", cwd=project_copy)
    assert code == 1
    queen = [f for f in findings if f["code"] == "wotb-rank"]
    assert len(queen) == 1 and queen[0]["card"] == "hearts-queen"
    assert queen[0]["message"].startswith("'Queen of Hearts': a queen is not part of the Way of the Blade deck")
    line = path.read_text().splitlines()[queen[0]["line"] - 1]
    assert "hearts-queen" in line


# --- print sheets -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(seed_builds):
    """Each game built once, A4 and Letter, with duplex backs (no PNGs, no rulebook): the
    session's seed builds, which tests/test_printing.py reads too."""
    results = {}
    for game in GAMES:
        seed = seed_builds.sheets(game)
        results[game] = (seed.snapshot, seed.result, seed.out)
    return results


def page_texts(path: Path) -> list[str]:
    """Each page's text, lines kept (`conftest.pdfium_lines`, once a file): several tests look for
    the Knightfall sheets' footers."""
    return pdfium_lines(path)


def _pages(out, paper: str, mode: str = "duplex") -> int:
    path = out / f"sheets-{paper}-{mode}.pdf"
    return len(PdfReader(path).pages) if path.exists() else 0


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_sheet_page_counts(built, paper):
    # poker cards: 9 a sheet on A4 (3 x 3, 1 mm of bleed at every cut); on Letter 8 (4 x 2
    # landscape): three rows of 88 mm would keep 0.2 mm of outer bleed (issue 23)
    per = 9 if paper == "a4" else 8
    # 44 duel cards + 1 reference card: 5 sheets on A4, 6 on Letter, each front + back
    assert (_pages(built["way-of-the-blade"][2], paper), _pages(built["way-of-the-blade"][2], paper, "onesided")) == (
        2 * -(-45 // per), 0)
    # 40 + 2 kings = 42 cards: 5 sheets on A4, 6 on Letter
    assert _pages(built["one-true-king"][2], paper) == 2 * -(-42 // per)
    # 52 jumbo cards at 2 x 2 = 13 sheets (26 pages), the 4 coins and a card from the 13th sheet
    # on a 14th (2 pages): no free space on a jumbo sheet holds a 40 mm coin, and a sheet of 4
    # coins alone would be used 8 %; the 2 camp maps (382 x 498 mm with bleed) in their own
    # one-sided file: tiled 2 x 2 on both papers (two A4 widths less the printer's margins and
    # the marks' bands hold 380 mm + overlap)
    assert _pages(built["knightfall"][2], paper) == 26 + 2
    assert _pages(built["knightfall"][2], paper, "onesided") == 8


def test_knightfall_maps_are_tiled_and_coins_are_round(built):
    snapshot, result, out = built["knightfall"]
    groups = sheet_groups(snapshot, result.cards, result.files, paper="a4")
    summary = [(g.label, g.spec.shape, g.tiled, len(g.slots)) for g in groups]
    assert summary == [("cards", "rect", False, 52), ("Decision coin", "circle", False, 4),
                       ("Camp map", "rect", True, 2)]
    onesided = [text.splitlines()[-1] for text in page_texts(out / "sheets-a4-onesided.pdf")]
    tiles = [f for f in onesided if "'s camp · tile" in f and f.endswith("print one-sided")]
    assert len(tiles) == 8  # 4 pages per map, so each map spans more than one page
    assert sum("tile 1,1 of 2 x 2" in f for f in tiles) == 2
    # each map's pages say which map they are: the card's name, which names its player
    assert sum("Player 1's camp · tile" in f for f in tiles) == 4 and sum("Player 2's camp · tile" in f for f in tiles) == 4
    duplex = page_texts(out / "sheets-a4-duplex.pdf")
    assert "sheet 14/14, front" in duplex[26] and "sheet 14/14, back" in duplex[27]  # the coins' sheet


def test_no_card_overflows(built):
    for game, (_, result, _) in built.items():
        overflow = [w for w in result.warnings if "does not fit" in w]
        assert overflow == [], game


def test_colour_is_told_by_more_than_hue(built):
    """Black cards are dark and red cards light, and both name their colour in words."""
    for game, ids in (("knightfall", ("black-5", "red-5")), ("one-true-king", ("black-king", "red-king"))):
        faces = built[game][1].cards.faces
        dark, light = (faces[i].svg for i in ids)
        assert 'fill="#1f1a17"/>' in dark.split("\n")[2]  # the full-bleed background
        assert 'fill="#1f1a17"/>' not in light.split("\n")[2]
        assert ">BLACK<" in dark and ">RED<" in light


# --- core helper added for the games: paragraphs at one common size ---------------------------


def test_paragraphs_share_one_size_and_stack_in_order():
    project, snapshot = _snapshot("way-of-the-blade")
    renderer = CardRenderer(project, snapshot)
    items = ["A short line.", "A much longer paragraph that has to wrap over several lines in this box."]
    svg = str(renderer.paragraphs(items, 0, 0, 30, 40, size=4, min_size=2, gap=0.5, bullet="common/suit-diamonds"))
    sizes = set(re.findall(r'font-size="([\d.]+)"', svg))
    assert len(sizes) == 1 and float(sizes.pop()) <= 4
    baselines = [float(y) for y in re.findall(r'<tspan x="[\d.]+" y="([\d.]+)"', svg)]
    assert baselines == sorted(baselines) and len(set(baselines)) >= 3
    assert svg.count("<svg ") == 2  # one bullet per paragraph
    assert renderer.warnings == []
    renderer.paragraphs(items, 0, 0, 10, 3, size=4, min_size=3)
    assert renderer.warnings and "2 paragraphs do not fit their box even at 3 mm" in renderer.warnings[0]


# --- Knightfall components (issue 13) ----------------------------------------------------------


def test_knightfall_coins_hide_the_decision(built):
    """One Attack and one Defend coin per player, all with the same back: a coin laid face down
    says nothing (the seed's "facedown ... reveal them at the same time")."""
    snapshot, result, out = built["knightfall"]
    coins = {c.id: (c.fields["decision"], c.count) for c in snapshot.cards_of_type("coin")}
    assert coins == {"attack-coin": ("attack", 2), "defend-coin": ("defend", 2)}
    faces = {cid: result.cards.faces[cid].svg for cid in coins}
    assert ">A</tspan>" in faces["attack-coin"] and ">Attack</tspan>" in faces["attack-coin"]
    assert ">D</tspan>" in faces["defend-coin"] and ">Defend</tspan>" in faces["defend-coin"]
    assert "Defend" not in faces["attack-coin"] and "Attack" not in faces["defend-coin"]
    back = result.cards.backs["coins"].svg
    assert "<text" not in back  # no letter, no word: nothing tells the decision
    group = next(g for g in sheet_groups(snapshot, result.cards, result.files) if g.label == "Decision coin")
    assert [s.label for s in group.slots] == ["Attack coin"] * 2 + ["Defend coin"] * 2
    assert len({s.back.name for s in group.slots}) == 1
    # and on paper: the backs page draws one and the same piece four times (and a card's back)
    index = next(i for i, text in enumerate(page_texts(out / "sheets-a4-duplex.pdf"))  # the coins share the last sheet
                 if "sheet 14/14, back" in text)
    page = PdfReader(out / "sheets-a4-duplex.pdf").pages[index]
    content = page.get_contents().get_data().decode("latin-1")
    drawn = Counter(re.findall(r"/Piece\d+ Do", content))
    assert sorted(drawn.values()) == [1, 4]


def test_knightfall_coin_cut_lines_show_on_the_dark_coin(built, tmp_path):
    """Rasterised as a printer would: along the cut circle over the dark red coin there is both
    a black line and a white casing, so the cut shows on any colour."""
    import subprocess

    from PIL import Image

    _, _, out = built["knightfall"]
    reader = PdfReader(out / "sheets-a4-duplex.pdf")
    index = next(i for i, text in enumerate(page_texts(out / "sheets-a4-duplex.pdf")) if "sheet 14/14, front" in text)
    content = reader.pages[index].get_contents().get_data().decode("latin-1")
    m = re.search(r"n\n([\d.]+) ([\d.]+) m\n[\d. ]+ ([\d.]+) ([\d.]+) c", content)
    right_x, cy, cx, top = (float(v) for v in m.groups())  # the circle starts at its rightmost point
    r_pt = top - cy
    assert abs(r_pt - 40 / 2 * 72 / 25.4) < 0.01  # a 40 mm coin
    dpi = 300
    subprocess.run(["pdftoppm", "-r", str(dpi), "-f", str(index + 1), "-l", str(index + 1), "-gray", "-png",
                    str(out / "sheets-a4-duplex.pdf"), str(tmp_path / "coin")], check=True)
    image = Image.open(next(tmp_path.glob("coin*.png"))).convert("L")
    scale = dpi / 72
    page_h = float(reader.pages[index].mediabox.height)
    row = round((page_h - cy) * scale)
    # across the cut at the coin's leftmost point: the coin's own dark bleed outside (a piece in
    # free space keeps 1 mm all round), the dark coin inside
    start, end = round((cx - r_pt - 0.8 * 72 / 25.4) * scale), round((cx - r_pt + 0.8 * 72 / 25.4) * scale)
    levels = [image.getpixel((x, row)) for x in range(start, end + 1)]
    coin = image.getpixel((round((cx - r_pt + 3 * 72 / 25.4) * scale), row))
    assert coin < 90  # the coin itself is dark (#8e2a1f): a black line alone hardly shows on it
    # on the cut: a white casing (1 pt) with the black line (0.3 pt) in its middle
    whites = [i for i, v in enumerate(levels) if v > 200]
    assert whites and max(whites) - min(whites) <= 6, levels  # one casing, 0.35 mm wide
    assert abs((min(whites) + max(whites)) / 2 - len(levels) / 2) <= 3, levels  # on the trim circle
    assert min(levels[min(whites) + 1:max(whites)]) < 120, levels  # the line inside the casing
    assert levels[0] == levels[-1] == coin


def test_knightfall_camp_map_matches_its_positions_and_is_light_on_ink(built):
    import io

    import cairosvg
    from PIL import Image

    from cardgen.preflight.geometry import read_shapes
    from cardgen.render.fonts import FontSet, use_project_fonts

    snapshot, result, _ = built["knightfall"]
    face = result.cards.faces["camp-map-1"]
    shapes = read_shapes(face.svg, FontSet(ROOT / "fonts"))
    words = " ".join(s.text for s in shapes if s.kind == "text")
    positions = sum(snapshot.rules["troop_positions"].values())
    assert positions == 8
    assert f"A full troop fills all {positions} positions" in words
    assert "at most" not in words and str(snapshot.rules["troop_limit"]) + " cards" not in words
    frame = next(s for s in shapes if s.kind == "rect" and s.fill is None and s.width > 300)
    slots = [s for s in shapes if s.kind == "rect" and s.fill is None and 80 < s.width < 95]
    assert len(slots) == positions
    card = snapshot.game.size_of("troop")  # the map holds the real cards: slots at full size
    assert {(round(s.width - s.stroke_width, 2), round(s.height - s.stroke_width, 2)) for s in slots} == {
        (card.width_mm, card.height_mm)}
    gap = min(min(s.box[0] - frame.box[0], frame.box[2] - s.box[2]) for s in slots)
    assert gap >= 3  # the outer Mage slots keep clear of the frame
    use_project_fonts()
    png = cairosvg.svg2png(bytestring=face.svg.encode(), dpi=25)
    image = Image.open(io.BytesIO(png)).convert("L")
    inked = sum(1 for v in image.tobytes() if v < 245) / (image.width * image.height)
    assert inked < 0.12, inked  # was a full beige fill: every pixel inked


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_knightfall_camp_maps_keep_text_off_the_tile_seams_and_name_their_player(built, paper):
    """Issue 22 item 8: tiled 2 x 2, a map is cut and taped where neighbouring tiles overlap; no
    text (title, labels, rules, the slots' names) may lie across that strip or within 1 mm of it,
    and the vertical seam falls into a gutter between slots. The seams come from the tiling
    itself (the grid the sheets use for this paper), the text from the face as printed."""
    from cardgen.buildtypes import PAPER_SIZES
    from cardgen.imposition.pack import TILE_BAND_MM
    from cardgen.imposition.tiling import OVERLAP_MM, tile_grid
    from cardgen.preflight.geometry import read_shapes
    from cardgen.render.fonts import FontSet

    snapshot, result, _ = built["knightfall"]
    bleed = snapshot.game.file.bleed_mm
    fonts = FontSet(ROOT / "fonts")
    for player in (1, 2):
        face = result.cards.faces[f"camp-map-{player}"]
        grid = tile_grid(face.width_mm, face.height_mm, PAPER_SIZES[paper], OVERLAP_MM, 5.0 + TILE_BAND_MM)
        assert (grid.cols, grid.rows) == (2, 2)
        # the strip two tiles share, in the face's trim coordinates, widened by 1 mm for a miscut
        xs = [(c * (grid.tile_w - OVERLAP_MM) - bleed - 1, c * (grid.tile_w - OVERLAP_MM) + OVERLAP_MM - bleed + 1)
              for c in range(1, grid.cols)]
        ys = [(r * (grid.tile_h - OVERLAP_MM) - bleed - 1, r * (grid.tile_h - OVERLAP_MM) + OVERLAP_MM - bleed + 1)
              for r in range(1, grid.rows)]
        shapes = read_shapes(face.svg, fonts)
        texts = [s for s in shapes if s.kind == "text"]
        assert len(texts) > 12
        crossing = [(s.text, [round(v, 1) for v in s.box]) for s in texts
                    if any(s.box[0] < x1 and s.box[2] > x0 for x0, x1 in xs)
                    or any(s.box[1] < y1 and s.box[3] > y0 for y0, y1 in ys)]
        assert crossing == [], crossing
        slots = [s for s in shapes if s.kind == "rect" and s.fill is None and 80 < s.width < 95]
        assert len(slots) == 8 and not [s.box for s in slots if any(s.box[0] < x0 and s.box[2] > x1 for x0, x1 in xs)]
        words = " ".join(s.text for s in texts)
        assert f"Player {player}'s camp" in words and f"Player {3 - player}'s camp" not in words
        assert "Knightfall" in words and "Front line" in words and "Knight × 1" in words
