"""Issue 14: The King's Guild as data (authored in Italian), its plug-in checks, its boards, tiles
and tokens, and its cards and rulebook in Italian and English."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import ROOT, developer_vocabulary, pdfium_lines, poppler, seed_tts_export
from pypdf import PdfReader

from cardgen.buildtypes import PAPER_NAMES
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.i18n.localise import localise
from cardgen.imposition.stage import sheet_groups

GAME = "kings-guild"
VERSION_FILE = "versions/kings-guild/1.yml"


def _snapshot(root=ROOT):
    project = load_project(root)
    return project, resolve(project, load_game(project, GAME))


def _text(path: Path) -> str:
    """The PDF's text as a reader sees it, words hyphenated at a line end joined again."""
    raw = poppler("pdftotext", path, "-")
    return " ".join(re.sub(r"(\w)-\n(\w)", r"\1\2", raw).split())


def _text_of_page(path: Path, index: int) -> str:
    raw = poppler("pdftotext", "-f", str(index + 1), "-l", str(index + 1), path, "-")
    return " ".join(re.sub(r"(\w)-\n(\w)", r"\1\2", raw).split())


def _findings(cli, cwd) -> tuple[int, list[dict]]:
    result = cli("validate", "--game", GAME, "--format", "json", cwd=cwd)
    return result.code, json.loads(result.out)["findings"]


# --- composition --------------------------------------------------------------------------------


def test_guilds_seals_and_players():
    _, s = _snapshot()
    assert (s.game.file.players.min, s.game.file.players.max) == (2, 6)
    assert s.game.file.language == "it"
    guilds = [sid for sid, sym in s.symbols.items() if sym.kind == "gilda"]
    assert len(guilds) == 6 and s.deck_size("gilde") == 6
    seals = Counter()
    for card in s.cards_of_type("sigillo"):
        seals[card.fields["gilda"]] += card.count
        assert s.symbols[card.fields["gilda"]].colour  # printed in its Guild's colour
    assert seals == {g: 2 for g in guilds}
    assert all(c.effects for c in s.cards_of_type("gilda"))  # each Guild has its bonus


def test_mission_deck_funeral_and_offering():
    _, s = _snapshot()
    missions = s.cards_of_type("missione")
    doubles = [m for m in missions if m.fields.get("risorse2")]
    assert (len(missions) - len(doubles), len(doubles)) == (18, 6)
    assert all(len(m.fields["tesori"]) == 2 for m in doubles)
    assert s.deck_size("missioni") == 26
    assert [c.name for c in s.cards_of_type("funerale")] == ["Funerale del Re"]
    assert [c.name for c in s.cards_of_type("offerta")] == ["Offerta al Concilio"]
    assert s.rules["posizione_funerale"] < 26 / 2 and s.rules["posizione_offerta"] == 26


def test_treasures_rooms_specialists_tokens_and_boards():
    _, s = _snapshot()
    for deck in ("tesori-rossi", "tesori-gialli", "tesori-blu"):
        assert s.deck_size(deck) == 12
    sets = Counter(c.fields.get("set") for deck in ("tesori-rossi", "tesori-gialli", "tesori-blu")
                   for c in s.cards_in_deck(deck) for _ in range(c.count))
    assert sets["charms"] == 8 and sets["reliquia"] == 5
    rooms = {c.id: c for c in s.cards_of_type("stanza")}
    assert {"magic-arcaneum", "laboratorio-gemme", "statua-del-re"} <= set(rooms)
    assert rooms["statua-del-re"].fields["punti"] == 4 and rooms["statua-del-re"].fields["mercato"] is False
    assert rooms["magic-arcaneum"].name == "Magic Arcaneum" and rooms["laboratorio-gemme"].name == "Laboratorio delle Gemme"
    specialists = s.cards_of_type("specialista")
    assert len(specialists) == 20
    assert all({"costo", "punti", "fase"} <= set(c.fields) and c.effects for c in specialists)
    tokens = Counter()
    for c in s.cards_of_type("risorsa"):
        tokens[c.fields["risorsa"]] += c.count
    assert tokens == s.rules["riserva"] and {"magia", "gemme"} <= set(tokens)
    assert s.deck_size("monete") == 30 and s.deck_size("monete-grandi") == 10
    assert s.deck_size("tabelloni") == 1 and s.deck_size("plance") == 6
    assert len(s.info.notes.choices) >= 12


def test_card_text_comes_from_structured_effects():
    _, s = _snapshot()
    from cardgen.data.cardtext import card_plain

    assert card_plain(s, s.card("tg-borsa")) == "Prendi 3 monete [Moneta]".replace(" [Moneta]", "")
    assert card_plain(s, s.card("s-architetto")) == "Le Stanze ti costano 1 moneta in meno"
    assert card_plain(s, s.card("tg-lettera-credito")) == "Le Stanze ti costano 2 monete in meno"
    en = localise(s, "en")
    assert card_plain(en, en.card("s-architetto")) == "Rooms cost you 1 coin less"
    assert card_plain(en, en.card("tg-lettera-credito")) == "Rooms cost you 2 coins less"
    assert card_plain(en, en.card("tb-fascina")) == "Take 2 Wood [Wood] from the main board"


# --- the plug-in on broken copies ---------------------------------------------------------------


def _break(project_copy: Path, old: str, new: str) -> Path:
    path = project_copy / VERSION_FILE
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_data_validates_clean(cli):
    code, findings = _findings(cli, ROOT)
    assert code == 0 and findings == []


@pytest.mark.parametrize("old,new,code,message,where", [
    ("  - {id: gilda-custodi, type: gilda,", "  - {id: gilda-custodi, type: gilda, count: 0,", "kg-guilds",
     "Gilda dei Custodi has 0 Guild cards, expected 1", "custodi: {kind: gilda"),
    ("gilda: custodi, count: 2}", "gilda: custodi, count: 3}", "kg-seals",
     "Gilda dei Custodi has 3 Seal tokens, expected 2", "id: sigillo-custodi"),
    ("name: Giardino,", "name: Cappella,", "kg-rooms", "two Rooms are called 'Cappella' (giardino at", "id: cappella"),
    ("posizione_funerale: 11", "posizione_funerale: 14", "kg-funeral",
     "the King's Funeral is card 14 of 26: it must lie a little before the middle of the Mission deck (card 13)",
     "posizione_funerale: 14"),
    ("posizione_offerta: 26", "posizione_offerta: 25", "kg-offering",
     "the Offering to the Council is card 25, but the Mission deck has 26 cards: it must be the last",
     "posizione_offerta: 25"),
    ("effects: [{do: risorse, amount: 2, risorsa: legno}], count: 2}",
     "effects: [{do: risorse, amount: 2, risorsa: magia}], count: 2}", "kg-precious",
     "'risorse' hands out Magia, which players may only gather once they have built its Room", "id: tb-fascina"),
    ("tesori_in_mano: 6", "tesori_in_mano: null", "kg-hand-limit", "the Treasure hand limit is not stated",
     "tesori_in_mano: null"),
    ("risorse: {legno: 2, pietra: 1}, monete: 1", "risorse: {legno: 2, oro: 1}, monete: 1", "kg-mission",
     "risorse: 'oro' is not a resource", "id: m-ponte"),
])
def test_plugin_reports_broken_copies(cli, project_copy, old, new, code, message, where):
    """One error, with the file and line of what broke it."""
    path = _break(project_copy, old, new)
    exit_code, findings = _findings(cli, project_copy)
    assert exit_code == 1
    hits = [f for f in findings if f["code"] == code and f["message"].startswith(message)]
    assert len(hits) == 1, findings
    assert hits[0]["severity"] == "error" and hits[0]["file"] == VERSION_FILE
    line = path.read_text(encoding="utf-8").splitlines()[hits[0]["line"] - 1]
    assert where in line, (line, hits[0])


def test_precious_resource_without_its_room(cli, project_copy):
    _break(project_copy, "effects: [{do: sblocca, risorsa: gemme}]}", "effects: [{do: sblocca, risorsa: magia}]}")
    _, findings = _findings(cli, project_copy)
    messages = [f["message"] for f in findings if f["code"] == "kg-precious"]
    assert "Room 'Laboratorio delle Gemme' does not unlock Gemme (no 'sblocca' effect for it)" in messages
    assert "Laboratorio delle Gemme also unlocks Magia; only magic-arcaneum may" in messages


# --- builds in both languages -------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(seed_builds):
    """The King's Guild in Italian and in English: {lang: (snapshot, sheets build, its folder,
    the rulebook's build)}, the session's seed builds: sheets (no PNGs, no rulebook; only the A4
    ones are read here: the Italian are built on A4 alone, the English on both papers, which
    tests/test_printing.py reads) and the documents (its designer's notes are tested in
    tests/test_designer_notes.py)."""
    results = {}
    for lang in ("it", "en"):
        source = None if lang == "it" else lang  # the game's own language
        papers = ("a4",) if source is None else PAPER_NAMES
        sheets = seed_builds.sheets("kings-guild", None, source, papers=papers)
        documents = seed_builds.get("kings-guild", None, source)
        assert sheets.snapshot.language == documents.snapshot.language == lang
        results[lang] = (sheets.snapshot, sheets.result, sheets.out, documents.result)
    return results


def _rulebook(built, lang: str) -> Path:
    return built[lang][3].out_dir / "rulebook-a4.pdf"


ITALIAN_WORDS = ["Gilda", "Stanza", "Specialista", "Tesoro", "Missione", "Raccogliere", "Fabbricare",
                 "Espandersi", "monete", "punti", "plancia", "tabellone", "Sigillo", "Funerale", "Offerta",
                 " della ", " delle ", " il ", " che ", " per ogni ", "Prendi", "Puoi"]


def test_rulebooks_speak_their_language(built):
    it = _text(_rulebook(built, "it"))
    en = _text(_rulebook(built, "en"))
    for phrase in ("Scopo del gioco", "Raccogliere", "Fabbricare", "Espandersi", "Funerale del Re",
                   "Offerta al Concilio", "Laboratorio delle Gemme", "Punteggio"):
        assert phrase in it, phrase
    for phrase in ("Goal of the game", "Gather", "Craft", "Expand", "King's Funeral",
                   "Offering to the Council", "Gem Laboratory", "Scoring"):
        assert phrase in en, phrase
    left = [w for w in ITALIAN_WORDS if w in en]
    assert left == [], f"Italian left in the English rulebook: {left}"


@pytest.mark.parametrize("lang", ["it", "en"])
def test_players_rulebook_has_no_developer_vocabulary(built, lang):
    snapshot = built[lang][0]
    text = _text(_rulebook(built, lang))
    assert len(text) > 3000
    assert developer_vocabulary(text, snapshot) == []


@pytest.mark.parametrize("lang", ["it", "en"])
def test_players_rulebook_leaves_the_authoring_choices_to_the_designers_notes(built, lang):
    """The choices made where the author's document is silent are the designer's material
    (notes-<paper>.pdf); players get the rules and, on the cover, the credits."""
    snapshot = built[lang][0]
    text = _text(_rulebook(built, lang))
    cover = _text_of_page(_rulebook(built, lang), 0)
    choices = snapshot.info.notes.choices
    assert len(choices) >= 12
    printed = [c for c in choices if " ".join(c.split())[:60] in text]
    assert printed == []
    assert {"it": "Note su questa versione", "en": "Notes on this version"}[lang] not in text
    for line in snapshot.game.file.credits:
        assert " ".join(line.split()) in cover


def test_rulebook_scoring_covers_every_source_of_points_and_no_statistics(built):
    """Every way to score has a row (the Treasures discarded for their points included), the rules
    for it are printed, and the players' table holds rules, not designer statistics."""
    snapshot = built["en"][0]
    charms = [c for c in snapshot.cards if c.fields.get("set") == "charms"]
    n_charms, p_charms = sum(c.count for c in charms), sum(c.count * c.fields["punti"] for c in charms)
    point_treasures = [c for c in snapshot.cards if c.type.startswith("tesoro")
                       and any(e.do == "punti" for e in c.effects)]
    assert point_treasures  # Family Crest, Royal Charter: "Discard it to: +2/+3 victory points"
    en = _text(_rulebook(built, "en"))
    it = _text(_rulebook(built, "it"))
    assert "Treasures discarded for their points, face down in front of you" in en
    assert "Tesori scartati per i punti, coperti davanti a te" in it
    assert "does not go to the discard pile: put it face down in front of you" in en
    assert "whoever holds the most: +3" in en and "Treasure cards. At any time" in en
    assert "You may hold up to 6 Treasure cards" in en
    assert f"{n_charms} Charms, {p_charms} points" not in en and "In play" not in en and "Nel gioco" not in it
    # the Specialists' place agrees with the recorded choice (beside the board, one per figure)
    assert "Put it beside your player board" in en and "Mettilo accanto alla tua plancia" in it
    assert "You place it on your player board" not in en


def test_rulebooks_show_the_real_boards(built):
    """The figures are the rendered boards and cards, in the rulebook's language: words that are
    printed only on the main board and the player board appear in the PDF's text."""
    en = _text(_rulebook(built, "en"))
    it = _text(_rulebook(built, "it"))
    assert "Coin bank" in en and "Storage: 8 resources" in en and "Mission deck" in en
    assert "Banca delle monete" in it and "Magazzino: 8 risorse" in it and "Mazzo delle Missioni" in it
    # the Mission of the Craft section's diagram is shown there and again in the gallery
    assert en.count("The King's Sceptre") >= 2 and it.count("Lo Scettro del Re") >= 2


def test_cards_in_english(built):
    en = "".join(_text(p) for p in sorted(built["en"][2].glob("sheets-a4-*.pdf")))  # duplex + one-sided
    it = "".join(_text(p) for p in sorted(built["it"][2].glob("sheets-a4-*.pdf")))
    assert "Throne Room" in en and "Sala del Trono" in it
    assert "Rooms cost you 1 coin less" in en and "Rooms cost you 2 coins less" in en
    assert "Le Stanze ti costano 1 moneta in meno" in it and "Le Stanze ti costano 2 monete in meno" in it
    assert "Prendi" not in en and "Specialista" not in en


def test_every_counted_word_on_a_card_follows_its_languages_plural_rule(built):
    """A Mission's coins are counted with the language's plural forms (CLDR through Babel):
    '1 moneta' / '2 monete', '1 coin' / '2 coins', never '1 monete' or '1 coins'."""
    words = {"it": ("moneta", "monete"), "en": ("coin", "coins")}
    for lang, (one, other) in words.items():
        snapshot, _, out, _ = built[lang]
        missions = [c for c in snapshot.cards if c.type == "missione"]
        assert {c.fields["monete"] for c in missions} >= {1, 2}
        for card in missions:
            svg = (out / "svg" / f"card-{card.id}.svg").read_text(encoding="utf-8")
            texts = re.findall(r">([^<>]+)</(?:text|tspan)>", svg)
            expected = one if card.fields["monete"] == 1 else other
            assert expected in texts and (other if expected == one else one) not in texts, (lang, card.id, texts)


def test_no_text_overflows_in_either_language(built):
    for lang in ("it", "en"):
        for result in built[lang][1], built[lang][3]:  # the sheets' build and the rulebook's
            overflow = [w for w in result.warnings if "does not fit" in w]
            assert overflow == [], (lang, overflow)
            assert not result.missing


def test_main_board_is_tiled_and_tokens_are_cut(built):
    snapshot, result, out, _ = built["it"]
    groups = sheet_groups(snapshot, result.cards, result.files, paper="a4")
    summary = {(g.spec.trim_w_mm, g.spec.trim_h_mm, g.spec.shape): (g.tiled, len(g.slots)) for g in groups}
    assert summary[(460, 336, "rect")] == (True, 1)           # the main board: tiled
    assert summary[(250, 180, "rect")] == (False, 6)          # player boards: one page each
    assert summary[(40, 40, "rect")] == (False, 28 + 1)       # Room tiles
    assert summary[(22, 22, "circle")] == (False, 12)         # Seals
    assert summary[(20, 20, "circle")] == (False, 30)         # coins
    assert summary[(16, 16, "rect")] == (False, 80)           # resource tokens
    pages = PdfReader(out / "sheets-a4-onesided.pdf").pages  # tiles are printed one-sided
    texts = pdfium_lines(out / "sheets-a4-onesided.pdf")  # each page's text, read once
    footers = [text.splitlines()[-1] for text in texts]
    tiles = [f for f in footers if "Tabellone · parte" in f]  # the board's name; cardgen's page text speaks Italian too
    assert len(tiles) == 4 and sum("parte 1,1 di 2 x 2" in f for f in tiles) == 1
    assert all("stampa solo fronte" in f for f in tiles) and not any("tile" in f for f in footers)
    # landscape pages, each tile region 4 mm into its neighbour's
    for page, text in zip(pages, texts, strict=True):
        if "Tabellone · parte" in text:
            assert float(page.mediabox.width) > float(page.mediabox.height)


def test_sheet_notice_and_footers_are_in_the_builds_language(built):
    """cardgen's own words on the sheets (i18n.own): Italian for the Italian game, English for --lang en."""
    it = _text(built["it"][2] / "sheets-a4-duplex.pdf")
    en = _text(built["en"][2] / "sheets-a4-duplex.pdf")
    assert "Stampa al 100 % / dimensioni reali (non “adatta alla pagina”): la barra deve misurare 50 mm" in it
    assert "foglio 1/" in it and "fronte" in it and "retro" in it and "stampa fronte-retro, capovolgi sul lato lungo" in it
    assert "sheet 1/" not in it and "Print at 100 %" not in it and "print duplex" not in it
    assert "Print at 100 % / actual size" in en and "sheet 1/" in en and "print duplex, flip on long edge" in en
    assert "foglio" not in en and "Stampa" not in en


def test_i18n_status_of_the_kings_guild(cli):
    result = cli("i18n", "status", "--game", GAME)
    assert result.code == 0, result.out
    assert "source language it" in result.out and "en: 100% complete" in result.out


# --- Tabletop Simulator -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tts(seed_builds):
    """`cardgen export tts --game kings-guild --lang en` into a folder of the session's, from the
    English cards as the session's seed builds drew them (the export's own card stage draws the
    same): `conftest.seed_tts_export`, whose images test_tts_table's tables take too."""
    from cardgen.export.tts import write_objects

    seed = seed_builds.drawn("kings-guild", None, "en")
    english = seed.snapshot
    out, objects = seed_tts_export(seed_builds, seed)
    write_objects(objects, english, out, lambda name: f"https://example.org/kg/{name}")
    return out, {p.name: json.loads(p.read_text(encoding="utf-8")) for p in out.glob("*.json")}


def _states(data: dict) -> list[dict]:
    found = []
    for state in data["ObjectStates"]:
        found += [state] + state.get("ContainedObjects", [])
    return found


def test_tts_exports_decks_boards_tiles_and_tokens(tts):
    out, files = tts
    assert set(files) == {f"kings-guild-1-en-{d}.json" for d in (
        "guilds", "missions", "red-treasures", "yellow-treasures", "blue-treasures", "specialists", "rooms", "seals",
        "resources", "coins", "5-coin-pieces", "main-board", "player-boards")}
    # every file is named in English: no deck or piece id (the Italian words of the data) is left
    ids = [d for d in ("gilde", "missioni", "tesori", "specialisti", "stanze", "sigilli", "risorse", "monete",
                       "tabellone", "plance", "sala-trono") if any(d in p.name for p in out.iterdir())]
    assert ids == []
    kinds = Counter(s["Name"] for data in files.values() for s in _states(data))
    assert kinds["Custom_Board"] == 1 + 6
    assert kinds["Custom_Tile"] == 29 + 30 + 10       # rooms and coins: two-sided
    assert kinds["Custom_Token"] == 12 + 80           # seals and resources: one-sided
    assert kinds["DeckCustom"] == 6 and kinds["Bag"] == 5
    board = files["kings-guild-1-en-main-board.json"]["ObjectStates"][0]
    assert board["Name"] == "Custom_Board" and board["Nickname"] == "Main board"
    assert board["CustomImage"]["ImageURL"] == "https://example.org/kg/kings-guild-1-en-main-board-main-board.png"
    assert (out / "kings-guild-1-en-main-board-main-board.png").is_file()


def test_tts_tiles_have_backs_and_tokens_do_not(tts):
    out, files = tts
    rooms = files["kings-guild-1-en-rooms.json"]["ObjectStates"][0]
    assert rooms["Name"] == "Bag" and rooms["Nickname"] == "Rooms"
    throne = next(s for s in rooms["ContainedObjects"] if s["Nickname"] == "Throne Room")
    image = throne["CustomImage"]
    assert image["CustomTile"]["Type"] == 0
    assert image["ImageSecondaryURL"].endswith("kings-guild-1-en-rooms-back.png")
    assert throne["Description"] == "End of the game: +1 VP for each Mission card with [Crown]"
    coin = files["kings-guild-1-en-coins.json"]["ObjectStates"][0]["ContainedObjects"][0]
    assert coin["CustomImage"]["CustomTile"]["Type"] == 2  # round
    seal = files["kings-guild-1-en-seals.json"]["ObjectStates"][0]["ContainedObjects"][0]
    assert seal["Name"] == "Custom_Token" and seal["CustomImage"]["ImageSecondaryURL"] == ""
    # pieces are as large on the table as in print: a 40 mm tile and a 460 mm board
    assert throne["Transform"]["scaleX"] == pytest.approx(40 / 50.8, abs=1e-3)
    board = files["kings-guild-1-en-main-board.json"]["ObjectStates"][0]
    assert board["Transform"]["scaleX"] == pytest.approx(460 / 50.8, abs=1e-3)
    from PIL import Image

    with Image.open(out / "kings-guild-1-en-rooms-throne-room.png") as im:
        assert im.size == (472, 472)  # 40 mm at 300 DPI
    with Image.open(out / "kings-guild-1-en-main-board-main-board.png") as im:
        assert im.size[0] == 4096 and abs(im.size[0] / im.size[1] - 460 / 336) < 0.01


def test_tts_text_is_english(tts):
    _, files = tts
    names = [s.get("Nickname", "") for data in files.values() for s in _states(data)]
    text = " ".join(names + [s.get("Description", "") for data in files.values() for s in _states(data)])
    assert "Court Wizard" in names and "King's Statue" in names
    left = [w for w in ("Gilda", "Stanza", "Prendi", "Puoi", "monete", "Tesoro") if w in text]
    assert left == []


def test_tokens_fill_the_boards_free_space_all_alike_on_landscape_pages(built):
    """Issue 23: the 4 resource tokens that had an A4 sheet of their own (drawn with crop marks,
    unlike the 76 in the Seals' cells) and the portrait pages among landscape ones. Now every
    page of the one-sided file is landscape, the 80 tokens and 12 Seals sit beside the player
    boards and the main board's tiles, each with its own cut line, and the file takes 10 sheets
    (was 12)."""
    import pikepdf
    from test_printing import _is_outline, read_page

    _, _, out, _ = built["it"]
    with pikepdf.open(out / "sheets-a4-onesided.pdf") as pdf:
        assert len(pdf.pages) == 10
        tokens = seals = 0
        for page in pdf.pages:
            box = [float(v) for v in page.mediabox]
            assert box[2] > box[3]  # landscape
            paths, pieces = read_page(page)
            for trim, _, _ in pieces:
                size = (round(trim[2] - trim[0]), round(trim[3] - trim[1]))
                if size in ((16, 16), (22, 22)):
                    assert any(_is_outline(p, trim) for p in paths if len(p) >= 2), trim  # cut along its own line
                    tokens += size == (16, 16)
                    seals += size == (22, 22)
    assert (tokens, seals) == (80, 12)


# The seed's numbered diagrams (issue 22): each legend line starts with its number; the words
# after it wrap beside the card, so only their opening is read back.
DIAGRAMS = {
    "it": [("1", "Risorse da spendere"), ("2", "Ricompensa in monete"), ("3", "Carta Tesoro da pescare"),
           ("4-5", "Simboli che possono"),
           ("1", "Colore: il mazzo da cui viene (rosso, giallo o blu)"), ("2", "Potere, che usi"),
           ("3", "Set di appartenenza"), ("4", "Monete che ottieni"),
           ("1", "Costo in monete per costruire la Stanza"), ("2", "Punti vittoria dati dalla Stanza"),
           ("3", "Effetto supplementare"),
           ("1", "Costo in monete per assumere"), ("2", "Punti vittoria dati dallo"),
           ("3", "Fase in cui si attiva"), ("4", "Effetto supplementare")],
    "en": [("1", "Resources to spend"), ("2", "Reward in coins"), ("3", "Treasure card drawn"),
           ("4-5", "Symbols that may"),
           ("1", "Colour: the deck it comes from (red, yellow or blue)"), ("2", "Power, used by"),
           ("3", "The set it belongs to"), ("4", "Coins you take"),
           ("1", "Cost in coins to build the Room"), ("2", "Victory points the Room gives"),
           ("3", "Extra effect"),
           ("1", "Cost in coins to hire"), ("2", "Victory points the Specialist"),
           ("3", "Phase in which the extra"), ("4", "Extra effect")],
}


def _words(path: Path) -> list[tuple[int, float, float, float, str]]:
    """(page, x0, y0, x1, word) of every word of the PDF, as pdftotext -bbox reads them."""
    raw = poppler("pdftotext", "-bbox", path, "-")
    out, page = [], 0
    for line in raw.splitlines():
        if "<page " in line:
            page += 1
        m = re.search(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">(.*)</word>', line)
        if m:
            out.append((page, float(m[1]), float(m[2]), float(m[3]), m[4]))
    return out


def _numbered(words, n: str, line: str) -> bool:
    """Whether a legend line starting with `line` has its number `n` just left of it, on its row."""
    first = line.split()
    for i, (page, x0, y0, _x1, word) in enumerate(words):
        if [w[4] for w in words[i:i + len(first)]] != first:
            continue
        if any(p == page and w == n and abs(y - y0) < 4 and 0 < x0 - x1 < 15 for p, _, y, x1, w in words):
            return True
    return False


@pytest.mark.parametrize("lang", ["it", "en"])
def test_rulebook_diagrams_number_every_card_kind_as_the_seed(built, lang):
    snapshot = built[lang][0]
    text = _text(_rulebook(built, lang))
    words = _words(_rulebook(built, lang))
    missing = [f"{n} {line}" for n, line in DIAGRAMS[lang] if line not in text or not _numbered(words, n, line)]
    assert missing == []
    by_id = {c.id: c for c in snapshot.cards}
    caption = {"it": "Esempio di Carta Missione: {}.", "en": "Example of a Mission card: {}."}[lang]
    assert caption.format(by_id["m-scettro"].name) in text


def test_rulebook_example_of_play_computes_its_result_from_the_cards(built):
    """Three turns: gather what a Mission asks, complete it, discard the yellow Treasure drawn and
    build the dearest Room the coins pay for; the totals are worked out here from the data."""
    snapshot = built["it"][0]
    rules = snapshot.rules
    mission = next(c for c in snapshot.cards if c.type == "missione" and "risorse2" not in c.fields
                   and c.fields["tesori"][0] == "giallo" and len(c.fields["risorse"]) == 1
                   and sum(c.fields["risorse"].values()) <= rules["raccolta_stesso_tipo"])
    treasure = next(c for c in snapshot.cards if c.type == "tesoro-giallo")
    power = [e for e in treasure.effects if e.do == "monete"]
    gain = max(power[0].params["amount"], treasure.fields["monete"]) if power else treasure.fields["monete"]
    purse = rules["monete_iniziali"] + mission.fields["monete"] + gain
    rooms = [c for c in snapshot.cards if c.type == "stanza" and c.fields.get("mercato", True)
             and c.fields["costo"] <= purse]
    room = max(rooms, key=lambda c: c.fields["costo"])
    left, points = purse - room.fields["costo"], rules["punti_per_missione"] + room.fields["punti"]
    assert (mission.id, treasure.id, room.id, purse, left, points) == ("m-vele", "tg-borsa", "cappella", 8, 1, 4)
    it = _text(_rulebook(built, "it"))
    en = _text(_rulebook(built, "en"))
    assert f"Dopo tre turni Anna ha {left} moneta e {points} punti vittoria" in it
    assert f"After three turns Anna has {left} coin and {points} victory points" in en
    assert f"ora ne ha {purse}. Costruisce la Stanza {room.name}" in it
    en_room = next(c for c in built["en"][0].cards if c.id == room.id).name
    assert f"she now has {purse}. She builds the Room {en_room}" in en
