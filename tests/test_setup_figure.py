"""Issue 27.2: the rulebook's set-up figure is drawn from the set-up data (`rb.setup_figure`), for the
player count the rulebook shows, with the real pictures: its components read back from the HTML the
stage lays out, and from the PDF, compared with `deal(...)`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT, SeedBuilds, pdfium_pages, seed_rulebook_html
from pypdf import PdfReader

from cardgen.buildtypes import PAPER_SIZES
from cardgen.cardstage import draw_cards
from cardgen.data.project import load_project
from cardgen.data.setup import deal
from cardgen.data.versions import load_game, resolve
from cardgen.i18n.localise import localise
from cardgen.preflight.geometry import read_shapes
from cardgen.render.fonts import FontSet
from cardgen.rulebook import rulebook_html
from cardgen.rulebook.cardpdf import faces_dir
from cardgen.rulebook.helpers import FaceStore, Helpers

# each game's rulebook and the player count its set-up figure shows
SHOWN = {"kings-blade": 4, "kings-guild": 2, "knightfall": 2, "one-true-king": 2, "way-of-the-blade": 4}
PLACE = re.compile(r'<g class="setup-place" data-place="([^"]*)" data-kind="([^"]*)" data-seat="([^"]*)" '
                   r'data-count="(\d+)">(.*)', re.S)


def _snapshot(root: Path, game: str, lang: str | None = None):
    project = load_project(root)
    snapshot = resolve(project, load_game(project, game), None)
    return project, localise(snapshot, lang) if lang else snapshot


def _rulebook(root: Path, game: str, lang: str | None = None):
    project, snapshot = _snapshot(root, game, lang)
    rendered = draw_cards(project, snapshot, checks=False).faces()
    html = rulebook_html(project, snapshot, rendered, "rulebook.html.j2", PAPER_SIZES["a4"]).html
    return project, snapshot, rendered, html


def _seed_rulebook(seed_builds: SeedBuilds, game: str, lang: str | None = None):
    """The repository's `game` (its default version) in `lang` as the session's seed build drew and
    rendered it: the same as `_rulebook(ROOT, game, lang)`, its cards drawn and its HTML rendered
    once for the session's readers (`conftest.seed_rulebook_html`)."""
    seed = seed_builds.get(game, None, lang)
    return seed_builds.project, seed.snapshot, seed.result.cards, seed_rulebook_html(seed_builds.project, seed)


def _figure(html: str) -> tuple[int, int, str]:
    [found] = re.findall(r'<figure class="setup-figure" data-players="(\d+)" data-seats="(\d+)".*?</figure>', html, re.S)
    players, seats = (int(n) for n in found)
    return players, seats, re.search(r'<figure class="setup-figure".*?</figure>', html, re.S).group(0)


def drawn(figure: str) -> dict[tuple[str, int | None], tuple[str, int, list[str]]]:
    """Each place the figure draws: (place, seat) -> (kind, components, face-up cards drawn)."""
    return {(place, int(seat) if seat else None): (kind, int(count), re.findall(r'class="setup-card" data-card="([^"]+)"', body))
            for part in figure.split('<g class="setup-place"')[1:]
            for place, kind, seat, count, body in PLACE.findall('<g class="setup-place"' + part)}


def dealt(snapshot, players: int, seats: int):
    """The same, from `deal`: every place on the table (boxes hold what is not used)."""
    table = deal(snapshot, players)
    places = list(table.shared) + [p for s in table.seats[:seats] for p in s]
    return {(p.id, p.seat): p for p in places if p.kind != "box" and p.cards}


def shown_face_up(placed) -> list[str]:
    """The cards a figure must show face up: every face-up card of a row, a hand, the cards in front
    of a player or a board, a hand (as its player sees it); a pile its top card when face up; a supply or a stack each different piece."""
    if placed.kind == "deck":
        return [placed.cards[0].id] if placed.face_up else []
    if placed.kind == "supply" or (placed.kind == "pieces" and not placed.grid_rows):
        return [c.id for c in placed.different]
    if placed.kind == "hand":  # as its player sees it
        return [c.id for c in placed.cards]
    return [c.id for c, up in zip(placed.cards, placed.faces_up()) if up]


@pytest.mark.parametrize("game", sorted(SHOWN))
def test_the_set_up_figure_draws_what_the_data_deals(seed_builds, game):
    project, snapshot, rendered, html = _seed_rulebook(seed_builds, game)
    players, seats, figure = _figure(html)
    assert players == SHOWN[game] and seats == players  # every player's area
    got, want = drawn(figure), dealt(snapshot, players, seats)
    assert set(got) == set(want)
    store = FaceStore(faces_dir(project))
    for key, placed in want.items():
        kind, count, cards = got[key]
        assert (kind, count) == (placed.kind, len(placed.cards)), key
        expected = shown_face_up(placed)
        if placed.kind in ("supply", "pieces"):  # one small stack per different piece
            assert list(dict.fromkeys(cards)) == expected, key
        else:
            assert cards == expected, key
        for card_id in expected:  # the real rendered face
            assert store.url(rendered.faces[card_id]) in figure
    # face-down piles show their deck's back
    for key, placed in want.items():
        if placed.kind == "deck" and not placed.face_up:
            back = rendered.backs[snapshot.game.card_types[placed.cards[0].type].deck]
            assert store.url(back) in figure
    # the words: one frame per player
    for seat in range(players):
        assert f">Player {seat + 1}<" in figure or f">Giocatore {seat + 1}<" in figure


def test_the_hand_drawn_set_up_figures_are_gone():
    templates = ROOT / "templates"
    assert not (templates / "kings-blade/rulebook-figures.html.j2").read_text().count("macro setup(")
    for game in SHOWN:
        assert "rb.setup_figure(" in (templates / game / "rulebook.html.j2").read_text(), game


def test_a_changed_set_up_changes_the_figure(project_copy):
    """Five cards face up in the market and a hand of four: the figure follows the data."""
    game = project_copy / "card_data/kings-blade/game.yml"
    text = game.read_text(encoding="utf-8")
    text = text.replace("      from: market\n      count: market_face_up\n", "      from: market\n      count: 5\n", 1)
    text = text.replace("      from: mine\n      count: starting_hand\n", "      from: mine\n      count: 4\n", 1)
    game.write_text(text, encoding="utf-8")
    _, snapshot, _, html = _rulebook(project_copy, "kings-blade")
    got = drawn(_figure(html)[2])
    assert got[("market-row", None)][:2] == ("row", 5) and len(got[("market-row", None)][2]) == 5
    assert got[("storage", 0)][:2] == ("hand", 4) and got[("storage", 1)][:2] == ("hand", 4)
    assert got[("mine", None)][1] == 60 - 4 * 4  # four players, four metals each


def test_the_figure_speaks_the_build_language(seed_builds):
    """The King's Blade in Dutch: the players' frames, the hand and the caption in Dutch, the places'
    labels from the game's own catalog."""
    _, snapshot, _, html = _seed_rulebook(seed_builds, "kings-blade", "nl")
    figure = _figure(html)[2]
    assert ">Speler 1<" in figure and ">Speler 2<" in figure and ">Player" not in figure
    assert "De opzet voor 4 spelers." in figure
    labels = re.findall(r'font-weight="bold"[^>]*>([^<]+)</text>', figure)
    assert snapshot.setup.shared[0].label in labels  # the market's label, as the Dutch catalog gives it
    assert "Market" not in labels


def test_the_pdf_shows_the_set_up(seed_builds):
    """Through the pipeline (the session's build of the seed's documents): the set-up page of The
    King's Blade prints the players' frames and the caption, and the figure's cards are real card
    pictures in the PDF (not placeholders)."""
    seed = seed_builds.get("kings-blade")
    snapshot, output = seed.snapshot, seed.outputs["rulebook-a4.pdf"]
    pages = pdfium_pages(output.path)
    [page] = [n for n, text in enumerate(pages) if "The set-up for 4 players." in text]
    assert all(f"Player {n}" in pages[page] for n in (1, 2, 3, 4))
    reader = PdfReader(output.path)
    xobjects = reader.pages[page]["/Resources"].get("/XObject") or {}
    table = deal(snapshot, 4)
    shown = sum(len(p.cards) for p in table.places() if p.kind in ("row", "cards", "hand"))
    assert len(xobjects) >= shown  # at least one drawing per card shown


def _plate(tag) -> tuple[float, float, float, float]:
    """A count's plate as the template draws it (`Tag.plate_box`): left, top, right, bottom."""
    left, top, w, h = tag.plate_box
    return left, top, left + w, top + h


def _box(pictures) -> tuple[float, float, float, float]:
    return (min(p.x for p in pictures), min(p.y for p in pictures),
            max(p.x + p.w for p in pictures), max(p.y + p.h for p in pictures))


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_counts_on_a_board_stay_on_it_and_off_the_other_places(seed_builds):
    """The King's Guild's main board holds decks, the resources and the coin bank. Each count there
    is on a plate (legible over the board's printed art), within the board and over no other place's
    pieces; a deck's count inside the deck. Below a deck it ran into the next place or off the board's
    edge (the Missions' ×22 over the Specialists' row, the treasure decks' ×12 under the board)."""
    project, snapshot, rendered, _ = _seed_rulebook(seed_builds, "kings-guild")  # its own language
    figure = Helpers(project, snapshot, rendered, FaceStore(faces_dir(project))).setup_layout(SHOWN["kings-guild"])
    [board] = [p for p in figure.places if p.kind == "board" and p.seat is None]
    on_board = [p for p in figure.places if p.on_board]
    counted = [(p, t) for p in on_board for t in p.tags]
    assert {p.id for p, _ in counted} >= {"missioni", "stanze", "tesori-rossi", "riserva", "banca"}
    for place, tag in counted:
        assert tag.plate, (place.id, tag.text)
        plate = _plate(tag)
        inside = _box(board.pictures)
        assert inside[0] <= plate[0] and plate[2] <= inside[2] and inside[1] <= plate[1] and plate[3] <= inside[3], \
            (place.id, tag.text, plate)
        others = [pic for other in on_board if other is not place for pic in other.pictures]
        assert not any(_overlap(plate, _box([pic])) for pic in others), (place.id, tag.text, plate)
        if place.kind == "deck":
            pile = _box(place.pictures)
            assert pile[0] <= plate[0] and plate[2] <= pile[2] and pile[1] <= plate[1] and plate[3] <= pile[3], \
                (place.id, tag.text)


@pytest.mark.parametrize("game", sorted(SHOWN))
def test_nothing_on_a_board_covers_its_printed_words(seed_builds, game):
    """The board's own words (its slots' names, counts and notes, read back from the rendered face
    with their ink boxes) stay readable under the set-up: a piece hides a word wholly (a card on
    the slot it names) or not at all, and a count's plate hides none that is in view. The King's
    Guild's coin bank had its two ∞ plates over "Banca delle monete", the resource tokens half over
    their names, and the rare resources' ×10 over "solo con la sua Stanza"."""
    project, snapshot, rendered, _ = _seed_rulebook(seed_builds, game)
    figure = Helpers(project, snapshot, rendered, FaceStore(faces_dir(project))).setup_layout(SHOWN[game])
    checked = 0
    for board in (p for p in figure.places if p.kind == "board"):
        [sheet] = board.pictures
        inside = _box([sheet])
        on_it = [p for p in figure.places if p is not board and p.pictures and _overlap(_box(p.pictures), inside)]
        if not on_it:
            continue
        scale = sheet.w / sheet.face.width
        words = [(s.text, (sheet.x + s.box[0] * scale, sheet.y + s.box[1] * scale,
                           sheet.x + s.box[2] * scale, sheet.y + s.box[3] * scale))
                 for s in read_shapes(sheet.face.face.svg, sheet.face.fonts or FontSet()) if s.kind == "text"]
        pieces = [_box([pic]) for place in on_it for pic in place.pictures]
        for text, word in words:
            for piece in pieces:
                assert _within(word, piece) or not _overlap(word, piece), (board.id, text, word, piece)
        in_view = [(text, word) for text, word in words if not any(_within(word, piece) for piece in pieces)]
        for place in on_it:
            for tag in place.tags:
                assert tag.plate, (place.id, tag.text)
                checked += 1
                covered = [text for text, word in in_view if _overlap(_plate(tag), word)]
                assert not covered, (board.id, place.id, tag.text, covered)
    if game == "kings-guild":  # the bank's two ∞, the six resources, the decks on the main board
        assert checked == 2 + 6 + 5


def _within(a, b) -> bool:
    return b[0] <= a[0] and a[2] <= b[2] and b[1] <= a[1] and a[3] <= b[3]
