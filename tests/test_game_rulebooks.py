"""Rulebooks of Way of the Blade, One True King and Knightfall: built through the pipeline,
their numbers, figures and the rules the seed leaves open taken from each game's data, A4 pages, fonts."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

import pikepdf
import pytest
from conftest import ROOT, developer_vocabulary, pdfium_pages, seed_rulebook_html

from cardgen.buildtypes import PAPER_SIZES, RenderedSet
from cardgen.cardstage import draw_cards
from cardgen.data.project import load_project
from cardgen.data.snapshot import Snapshot
from cardgen.data.versions import load_game, resolve
from cardgen.rulebook import rulebook_html
from cardgen.rulebook.helpers import FaceStore

GAMES = ["way-of-the-blade", "one-true-king", "knightfall"]
A4_PT = (595.28, 841.89)
PROJECT_FAMILIES = {"Cinzel", "Alegreya Sans"}


def _snapshot(root, game):
    project = load_project(root)
    return project, resolve(project, load_game(project, game), None)


def _figures(html: str) -> list[str]:
    return re.findall(r"<figure\b.*?</figure>", html, re.S)


@dataclass
class Book:
    snapshot: Snapshot
    pdf: Path
    text: str  # all pages, whitespace collapsed
    html: str  # what the PDF was laid out from
    cards: RenderedSet
    store: FaceStore
    warnings: list[str]  # weasyprint's remarks on the layout

    @property
    def rules(self) -> str:
        """The rules proper: before the appendices (which quote the version's notes)."""
        return self.text[:self.text.index("All cards Every card")]

    def figures(self) -> list[str]:
        return _figures(self.html)

    def draws(self, card_id: str) -> bool:
        """Whether the rulebook draws the card's rendered face (its SVG in the build cache)."""
        return self.store.url(self.cards.faces[card_id]) in self.html


@pytest.fixture(scope="module")
def books(seed_builds) -> dict[str, Book]:
    """Each game's A4 rulebook, built through the pipeline (the session's seed builds; the
    designer's notes of every game are read by tests/test_designer_notes.py)."""
    out = {}
    project = seed_builds.project
    for game in GAMES:
        seed = seed_builds.get(game)
        snapshot, result, output = seed.snapshot, seed.result, seed.outputs["rulebook-a4.pdf"]
        text = " ".join(pdfium_pages(output.path))
        html = seed_rulebook_html(project, seed)
        out[game] = Book(snapshot, output.path, text, html, result.cards,
                         FaceStore(project.cache_dir / "svg"), output.warnings)
    return out


# --- every game -------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_a4_pages_and_only_the_projects_fonts_embedded(books, game):
    assert books[game].warnings == []  # no CSS or markup weasyprint could not lay out
    with pikepdf.open(books[game].pdf) as pdf:
        assert 5 <= len(pdf.pages) <= 10
        for page in pdf.pages:
            box = [float(v) for v in page.mediabox]
            assert abs(box[2] - A4_PT[0]) < 0.5 and abs(box[3] - A4_PT[1]) < 0.5
        descriptors = [o for o in pdf.objects
                       if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/FontDescriptor"]
        assert descriptors
        for d in descriptors:
            assert any(k in d for k in ("/FontFile", "/FontFile2", "/FontFile3")), d.get("/FontName")
        assert {str(d["/FontFamily"]) for d in descriptors} == PROJECT_FAMILIES


# Every players' document the seed builds make: each game in its own language, and the two
# translations whose rulebooks are built (tests/conftest.py, SeedBuilds).
BOOKS = [("kings-blade", None), ("kings-blade", "nl"), ("way-of-the-blade", None), ("one-true-king", None),
         ("knightfall", None), ("kings-guild", None), ("kings-guild", "en")]


@pytest.mark.parametrize("game, lang", BOOKS)
def test_no_document_draws_a_character_its_fonts_lack(seed_builds, game, lang):
    """weasyprint has no remark on any rulebook, booklet or notes the seed builds lay out (rulebooks
    and booklets on both papers, the notes on A4; their Letter HTML differs only in the page size):
    one would be a box printed for a character the project fonts lack (The King's Guild's set-up
    figure drew "∞" under its unlimited supplies in a font without it, on Letter) or CSS it could
    not use."""
    seed = seed_builds.get(game, None, lang)
    assert {"rulebook-a4.pdf", "rulebook-letter.pdf"} <= set(seed.outputs)
    assert {name: o.warnings for name, o in seed.outputs.items() if o.warnings} == {}


@pytest.mark.parametrize("game", GAMES)
def test_the_players_read_rules_where_the_seed_is_open(books, game):
    """Where the seed leaves a rule open, the version decides it (an enum rule with its
    open_question) and the players' rulebook prints that rule's sentence: no "Open question" box,
    no designer's note. The question, the choice and the other answers are the designer's
    (notes.choices and notes-<paper>.pdf, tests/test_designer_notes.py)."""
    book = books[game]
    specs = book.snapshot.game.rule_specs
    open_rules = [key for key, spec in specs.items() if spec.open_question]
    assert len(open_rules) == 4, open_rules
    for key in open_rules:
        sentence = specs[key].values[book.snapshot.rules[key]]
        laid_out = " ".join(html.unescape(re.sub(r"<[^>]+>", "", book.html)).split())
        assert sentence in laid_out, (key, sentence)
        assert " ".join(sentence.split()[:8]) in book.rules, (key, sentence)  # printed (a page may break it)
        assert any(f"({key}: {book.snapshot.rules[key]})" in c for c in book.snapshot.info.notes.choices), key
    for said in ("Open question", "Designer's note", "open question", "this rulebook", "This rulebook"):
        assert said not in book.text, said
    assert "aside-question" not in book.html and "aside-note" not in book.html
    assert "Authoring choices" not in book.text


@pytest.mark.parametrize("game", GAMES)
def test_short_rulebook_lists_its_sections_on_the_cover(books, game):
    """The three short rulebooks put their contents on the cover, styled once in common/rulebook.css."""
    book = books[game]
    cover = book.html[book.html.index('<section class="cover'):book.html.index("</section>")]
    assert cover.startswith('<section class="cover with-contents">') and 'class="contents cover-contents"' in cover
    assert book.html.count('<nav class="contents') == 1  # no contents page besides the cover's list
    first = pdfium_pages(book.pdf)[0]
    sections = re.findall(r'<h2 id="[^"]+">([^<]+)</h2>', book.html)
    assert len(sections) >= 5 and "Contents" in first and all(s in first for s in sections[:4]), (sections, first)
    common = (ROOT / "templates" / "common" / "rulebook.css").read_text()
    assert ".with-contents .cover-art" in common and ".cover-contents h2" in common
    assert "cover-contents" not in (ROOT / "templates" / game / "rulebook.css").read_text()


@pytest.mark.parametrize("game", GAMES)
def test_players_rulebook_has_no_developer_vocabulary(books, game):
    book = books[game]
    assert len(book.text) > 3000
    assert developer_vocabulary(book.text, book.snapshot) == []


# --- Way of the Blade ----------------------------------------------------------------------------


def test_way_of_the_blade_deck_and_named_cards_come_from_the_data(books):
    book = books["way-of-the-blade"]
    rules = book.rules
    assert book.snapshot.deck_size("duel") == 44
    assert "The Way of the Blade deck: 44 cards. Each of the 4 suits" in rules
    assert "holds The Hag (A), 2, 3, 4, 5, 6, 7, 8, 9, 10 and The Tribune (J)" in rules
    assert "It is a standard deck without its queens and kings." in rules
    assert "every jack (J) is The Tribune and every ace (A) is The Hag. There are 4 of each" in rules
    # the real Tribune and Hag cards, drawn from their rendered faces
    assert book.draws("hearts-tribune") and book.draws("spades-hag")
    assert "The Tribune of Hearts The Hag of Spades" in rules


def test_way_of_the_blade_deal_and_feint_follow_the_rules(books):
    book = books["way-of-the-blade"]
    rules = book.rules
    assert book.snapshot.rules["first_deal"] == 5 and book.snapshot.rules["kept_on_feint"] == 1
    assert "Control shuffles the deck and deals 5 cards to each player." in rules
    assert "5, 4, 3, 2 and 1 cards, 5 hands in all" in rules
    assert "The feinting Duellist keeps 1 card from their hand for the next hand" in rules
    assert "after the hand of 1 card, the duel is over" in rules


def test_way_of_the_blade_seating_figure_labels_the_four_seats(books):
    book = books["way-of-the-blade"]
    seating = next(f for f in book.figures() if "Battlefield Table" in f)
    for seat in ("Challenger", "Challenged", "Challenger&#39;s second", "Challenged&#39;s second"):
        assert f">{seat}</text>" in seating, seat
    for seat in ("Challenger's second", "Challenged's second", "Battlefield Table"):
        assert seat in book.text
    assert seating.count("<circle") >= 4  # the play-order callouts 1-4


# --- One True King -------------------------------------------------------------------------------


def _setup_field(html: str) -> tuple[int, int, int]:
    """The set-up figure's field (backs = face down, cards = face up) and its spare pile's size."""
    setup = next(f for f in _figures(html) if 'class="setup-figure"' in f)
    field = re.search(r'<g class="setup-place" data-place="field".*?(?=<g class="setup-place"|$)', setup, re.S)
    spare = re.search(r'<g class="setup-place" data-place="deck" data-kind="deck" data-seat="" data-count="(\d+)"', setup)
    assert field and spare
    return field.group(0).count('class="setup-back"'), field.group(0).count('class="setup-card"'), int(spare.group(1))


def test_one_true_king_grid_figure_is_drawn_from_the_grid_rule(books):
    book = books["one-true-king"]
    grid, spare = book.snapshot.rules["grid"], book.snapshot.rules["spare_cards"]
    cells = "".join(grid)
    assert (len(cells), cells.count("D"), cells.count("U"), spare) == (35, 18, 17, 5)
    assert _setup_field(book.html) == (18, 17, 5)
    rules = book.rules
    assert "lay out a grid of 7 × 5 cards" in rules
    assert "18 face down and 17 face up. The 5 cards left over are the spare cards." in rules
    assert "If the difference between the two sums is greater than 10" in rules


def test_one_true_king_kings_start_on_the_edge_face_down_spaces(books):
    book = books["one-true-king"]
    placement = next(f for f in book.figures() if "king-space" in f)
    assert placement.count('class="king-space"') == 10 and "spare-card" not in placement
    assert book.draws("red-king") and book.draws("black-king")
    assert "there are 10 such spaces" in book.rules


def test_one_true_king_attack_examples_compute_with_real_cards(books):
    rules = books["one-true-king"].rules
    assert "the 3 of Diamonds fights for red, so it adds 3 to the attacker" in rules
    assert "7 + 3 = 10 against 5: the attacker wins." in rules
    assert "7 against 5 + 4 = 9: the attacker loses." in rules
    assert "the strongest black card left on the field is the 9 of Spades, the Red King has strength 9" in rules
    assert "A space holds at most 2 cards" in rules


# --- Knightfall ----------------------------------------------------------------------------------


def test_knightfall_materials_and_powers_come_from_the_data(books):
    book = books["knightfall"]
    rules = book.rules
    assert book.snapshot.deck_size("cards") == 52
    # the designer's "Jumbo cards *52" is a size, not a name: players read "cards" and the size in mm
    assert "52 cards (88 × 126 mm): 26 red and 26 black. 2 camp maps, 1 per player. 4 decision coins" in rules
    assert "jumbo" not in book.text.lower()
    assert book.snapshot.game.card_types["troop"].label == "Card"
    powers = " ".join(f"{label} = {n}" for n, label in enumerate(
        ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"], start=1))
    assert powers in rules  # A = 1 2 = 2 ... K = 13, in order
    assert "Each power is in the deck 4 times: 2 red and 2 black." in rules
    assert "Each player draws 5 cards and places them in their troop." in rules
    assert "Power 12 against 10 + 1 = 11 (the Knight's bonus)." in rules
    assert "Power 9 against 8 + 1 = 9 (the Knight's bonus). The powers are equal: both cards lose" in rules


def test_knightfall_troop_size_is_one_rule_for_the_players(books):
    """The seed gives the troop's size twice (10 cards, 8 positions): the players read one rule,
    the smaller, which the camp map enforces; the contradiction is the designer's."""
    book = books["knightfall"]
    rules = book.rules
    assert book.snapshot.rules["troop_positions"] == {"knight": 1, "archers": 3, "mages": 4}
    assert book.snapshot.rules["troop_limit"] == 10
    assert "1 Knight + 3 Archers + 4 Mages = 8 positions" in rules
    assert "Your troop holds at most 8 cards, one in each position of your camp map." in rules
    assert "A troop holds at most 8 cards." in rules
    assert "exceeds 10" not in rules and "(10 cards in total)" not in rules


# --- the text follows the data ---------------------------------------------------------------------


def _html(root, game):
    project, snapshot = _snapshot(root, game)
    rendered = draw_cards(project, snapshot, checks=False).faces()
    return rulebook_html(project, snapshot, rendered, "rulebook.html.j2", PAPER_SIZES["a4"]).html


def test_changed_data_changes_the_rulebooks(project_copy):
    """A troop limit that matches the layout drops the box; another grid draws another figure."""
    knightfall = project_copy / "versions/knightfall/1.yml"
    knightfall.write_text(knightfall.read_text().replace("troop_limit: 10 ", "troop_limit: 8 "))
    html = _html(project_copy, "knightfall")
    assert "If your troop exceeds 8 cards" in html
    assert "a troop of" not in html and "These rules follow the layout" not in html

    otk = project_copy / "versions/one-true-king/1.yml"
    otk.write_text(otk.read_text().replace("    - DUDUDUD\n    - UDUDUDU\n    - DUDUDUD\n    - UDUDUDU\n    - DUDUDUD\n",
                                           "    - DUDUDU\n    - UDUDUD\n    - DUDUDU\n    - UDUDUD\n    - DUDUDU\n")
                   .replace("spare_cards: 5", "spare_cards: 10"))
    html = _html(project_copy, "one-true-king")
    assert _setup_field(html) == (15, 15, 10)
    assert "6 × 5 cards" in html and "15 face down and 15 face up" in html


def test_way_of_the_blade_example_trick_is_played_out_from_the_cards(books):
    """The example of a trick (issue 22): worked out again here from the cards' suits and ranks,
    each player playing the lowest card that beats the trick; the Hag takes the Tribune and the
    winner sets aside the strongest card of the trick, the Hag counting as one."""
    book = books["way-of-the-blade"]
    by_id = {c.id: c for c in book.snapshot.cards}
    hands = [[by_id[i] for i in ids] for ids in (["hearts-7", "clubs-3"], ["hearts-9", "spades-2"],
                                                  ["hearts-tribune", "diamonds-4"], ["clubs-hag", "spades-6"])]
    lead = hands[0].pop(0)
    top, winner, passes, turn, played = lead, 0, 0, 1, [lead]
    while passes < 3:
        player = turn % 4
        beats = [c for c in hands[player]
                 if (c.fields["suit"] == lead.fields["suit"] and c.fields["rank"] > top.fields["rank"])
                 or (c.fields.get("face") == "hag" and top.fields.get("face") == "tribune")]
        if beats:
            top = min(beats, key=lambda c: c.fields["rank"])
            hands[player].remove(top)
            played.append(top)
            winner, passes = player, 0
        else:
            passes += 1
        turn += 1
    aside = max(played, key=lambda c: c.fields["rank"])
    assert (winner, aside.id, top.id) == (3, "hearts-tribune", "clubs-hag")
    text = book.rules
    assert "Example of a trick" in text
    assert f"The Challenged's Second beats the trick with {top.name}." in text
    assert f"The Challenger cannot beat {top.name} and passes." in text
    assert (f"The Challenged's Second wins the trick for the Challenged's team and sets aside {aside.name}, "
            f"the strongest card of the trick") in text
    assert f"The other {len(played) - 1} cards go back to Control." in text
    assert all(book.draws(c.id) for c in played)
