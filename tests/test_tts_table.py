"""Issue 27: `cardgen export tts --table`: the set-up as one Tabletop Simulator saved game.

The saves are read back: every component of the set-up is there once with its count, nothing
lies on anything else (topview's footprints), each hand zone holds the cards dealt into that hand,
labels are in the build's language, and the JSON passes the structural checks of the saved
objects (tests/test_export.py)."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import ROOT, seed_tts_export

from cardgen.cardstage import draw_cards
from cardgen.data.project import load_project
from cardgen.data.setup import deal
from cardgen.data.versions import load_game, resolve
from cardgen.export.install import file_url
from cardgen.export.topview import footprints, in_hand, overlaps, render_png
from cardgen.export.tts import DeckObject, export_stem, plan_objects
from cardgen.export.ttspieces import PieceObject, plan_pieces
from cardgen.export.ttstable import export_table, saves_dir, table_file
from cardgen.render.workers import drawing_workers

# every seed game in every language it has: (game, version, language)
EDITIONS = [("kings-blade", "3.1", "en"), ("kings-blade", "3.1", "nl"), ("kings-guild", "1", "it"),
            ("kings-guild", "1", "en"), ("knightfall", "1", "en"), ("one-true-king", "1", "en"),
            ("way-of-the-blade", "1", "en")]


@pytest.fixture(scope="module")
def tables(seed_builds, tmp_path_factory):
    """Every edition's table at every player count it allows (images rendered once per edition),
    from each edition's cards as the session's seed builds drew them (`SeedBuilds.drawn`: the
    card stage `export tts --table` runs draws the same faces)."""
    project = seed_builds.project
    made = {}
    # one pool for every edition's images (a command's pool, as `export tts` passes its own): the
    # worker processes are started once, not once an edition
    with drawing_workers(project, None) as pool:
        for game, version, lang in EDITIONS:
            own = load_game(project, game).file.language  # the seed builds name a game's own language None
            seed = seed_builds.drawn(game, version, None if lang == own else lang)
            snapshot, rendered = seed.snapshot, seed.result.cards
            assert snapshot.language == lang
            out = tmp_path_factory.mktemp(f"{game}-{lang}")
            players = snapshot.game.file.players
            # the images are the same at every player count: written once, as `export tts --table` does
            # (`write_table_images`, which draws what `export tts` does: the session's export of the
            # edition, `conftest.seed_tts_export`, shared with test_kings_guild; export_table writing its
            # own images is tested below, determinism and a new project)
            exported, objects = seed_tts_export(seed_builds, seed, workers=pool)
            for name in {name for o in objects for name in o.image_files}:
                shutil.copyfile(exported / name, out / name)
            images = ([o for o in objects if isinstance(o, DeckObject)], [o for o in objects if isinstance(o, PieceObject)])
            for n in range(players.min, players.max + 1):
                export = export_table(project, snapshot, rendered, n, out,
                                      lambda name, out=out: file_url(out / name), written=images)
                save = json.loads((out / export.file).read_text(encoding="utf-8"))
                made[(game, lang, n)] = (snapshot, out, export, save)
    return made


def _all_states(states: list[dict]) -> list[dict]:
    found = []
    for state in states:
        found.append(state)
        found += _all_states(state.get("ContainedObjects", []))
    return found


def _identify(snapshot, out: Path):
    """CardID -> card id (deck sheets) and image file -> card id (pieces), as the export planned them."""
    stem = export_stem(snapshot)
    by_cell, by_image = {}, {}
    names = {}
    for deck in plan_objects(snapshot, stem):
        for sheet in deck.sheets:
            names[sheet.face_file] = [c.id for c in sheet.cards]
    for obj in plan_pieces(snapshot, stem):
        for piece in obj.pieces:
            by_image[piece.face_file] = piece.card.id

    def card_of(state: dict) -> str | None:
        if state["Name"] == "Card":
            key, index = divmod(state["CardID"], 100)
            face = Path(state["CustomDeck"][str(key)]["FaceURL"]).name
            by_cell[state["CardID"]] = names[face][index]
            return names[face][index]
        if state["Name"] in ("Custom_Board", "Custom_Tile", "Custom_Token"):
            return by_image[Path(state["CustomImage"]["ImageURL"]).name]
        return None

    return card_of


@pytest.mark.parametrize("game,lang", sorted({(g, lang) for g, _, lang in EDITIONS}))
def test_every_component_of_the_setup_is_on_the_table_once(tables, game, lang):
    for (g, la, n), (snapshot, out, export, save) in tables.items():
        if (g, la) != (game, lang):
            continue
        card_of = _identify(snapshot, out)
        states = _all_states(save["ObjectStates"])
        infinite = {card_of(s["ContainedObjects"][0]) for s in states if s["Name"] == "Infinite_Bag"}
        found = Counter(cid for s in states if (cid := card_of(s)) is not None)
        table = deal(snapshot, n)
        expected = Counter(c.id for p in table.places() for c in p.cards)
        # an infinite bag holds one of its piece (TTS copies it); what the players took lies at their seats
        for cid in infinite:
            taken = sum(1 for seat in table.seats for p in seat for c in p.cards if c.id == cid)
            expected[cid] = taken + 1
        assert found == expected, (game, lang, n)
        printed = Counter({c.id: c.count for c in snapshot.cards if c.count})
        assert {k: v for k, v in expected.items() if k not in infinite} == \
               {k: v for k, v in printed.items() if k not in infinite}


@pytest.mark.parametrize("game,lang", sorted({(g, lang) for g, _, lang in EDITIONS}))
def test_nothing_lies_on_anything_else(tables, game, lang):
    for (g, la, n), (snapshot, out, export, save) in tables.items():
        if (g, la) == (game, lang):
            found = overlaps(footprints(save, out))
            assert found == [], [(n, a.name, a.label, b.name, b.label) for a, b in found]


def test_each_hand_zone_holds_the_cards_dealt_into_that_hand(tables):
    checked = 0
    for (game, lang, n), (snapshot, out, export, save) in tables.items():
        card_of = _identify(snapshot, out)
        prints = footprints(save, out)
        hands = [s for s in save["ObjectStates"] if s["Name"] == "HandTrigger"]
        assert len(hands) == n and len({h["FogColor"] for h in hands}) == n
        zones = [f for f in prints if f.name == "HandTrigger"]
        table = deal(snapshot, n)
        for seat, zone in enumerate(zones):
            held = [card_of(s) for s, f in zip([s for s in save["ObjectStates"] if _prints(s)], prints)
                    if f.name == "Card" and in_hand(f, [zone])]
            dealt = [c.id for p in table.seats[seat] if p.kind == "hand" for c in p.cards]
            assert Counter(held) == Counter(dealt), (game, n, seat)
            checked += len(dealt)
    assert checked > 0  # The King's Blade and Way of the Blade deal hands


def _prints(state: dict) -> bool:
    return state["Name"] in {"Card", "DeckCustom", "Custom_Board", "Custom_Tile", "Custom_Token", "Bag",
                             "Infinite_Bag", "HandTrigger", "Custom_PDF", "Notecard"}


def test_kings_blade_hands_and_rows(tables):
    snapshot, out, export, save = tables[("kings-blade", "en", 4)]
    states = save["ObjectStates"]
    in_hands = [s for s in states if s["Name"] == "Card" and s["Transform"]["posY"] == 3.0]
    assert len(in_hands) == 4 * snapshot.rules["starting_hand"]
    decks = {s["Nickname"]: s for s in states if s["Name"] == "DeckCustom"}
    assert set(decks) == {"Market drawing pile", "The Mine"}
    assert len(decks["The Mine"]["ContainedObjects"]) == 60 - 12 and decks["The Mine"]["Transform"]["rotZ"] == 180
    face_up = [s for s in states if s["Name"] == "Card" and s["Transform"]["rotZ"] == 0 and s["Transform"]["posY"] == 1.0]
    assert len(face_up) == 4 + 4 + 4  # the market row, every player's blade and forge token
    assert export.file == "kings-blade-3.1-4p.json" == table_file("kings-blade-3.1", 4)


def test_labels_are_in_the_builds_language(tables):
    _, _, _, dutch = tables[("kings-blade", "nl", 3)]
    names = {s.get("Nickname") for s in _all_states(dutch["ObjectStates"])}
    assert {"Trekstapel van de markt", "De Mijn", "Klingkaarten", "Smidsfiches"} <= names
    assert not names & {"Market drawing pile", "The Mine", "Blade cards", "Forge tokens"}
    assert "Schud de metaalkaarten en leg ze gedekt neer: dat is de mijn." in dutch["Note"]
    assert dutch["SaveName"] == "Het Zwaard van de Koning 3.1 (3 spelers)"
    _, _, _, english = tables[("kings-guild", "en", 4)]
    names = {s.get("Nickname") for s in _all_states(english["ObjectStates"])}
    assert {"Mission deck", "Coin bank", "Main board", "Player board", "Supply"} & names == \
           {"Mission deck", "Main board", "Player board"}
    bags = {s["Nickname"] for s in english["ObjectStates"] if s["Name"] in ("Bag", "Infinite_Bag")}
    assert {"Wood", "Stone", "Coin", "Rooms"} <= bags and not bags & {"Legno", "Pietra", "Moneta", "Stanze"}
    assert "Each player takes the Seals of their Guild." in english["Note"]
    _, _, _, italian = tables[("kings-guild", "it", 4)]
    assert "Ogni giocatore prende i Sigilli della sua Gilda." in italian["Note"]
    assert italian["SaveName"] == "The King's Guild 1 (4 giocatori)"


def test_knightfall_camp_maps_lie_on_the_table_as_boards(tables):
    """A camp map is a board (`component: board`): one Custom_Board in front of each player, not
    a card as large as the map that a player could pick up into a hand or shuffle into a deck."""
    snapshot, out, export, save = tables[("knightfall", "en", 2)]
    card_of = _identify(snapshot, out)
    states = _all_states(save["ObjectStates"])
    camps = {c.id for c in snapshot.cards if c.type == "camp"}
    assert sorted(s["Name"] for s in states if card_of(s) in camps) == ["Custom_Board", "Custom_Board"]
    assert not [s for s in states if s["Name"] == "Card" and card_of(s) in camps]


def test_kings_guild_supplies_and_seats(tables):
    snapshot, out, export, save = tables[("kings-guild", "it", 6)]
    states = save["ObjectStates"]
    infinite = [s for s in states if s["Name"] == "Infinite_Bag"]
    assert sorted(s["Nickname"] for s in infinite) == ["Moneta", "Moneta da 5"]  # the bank is unlimited
    resources = [s for s in states if s["Name"] == "Bag" and s["ContainedObjects"]
                 and s["ContainedObjects"][0]["Name"] == "Custom_Token"
                 and s["ContainedObjects"][0]["Nickname"] in {"Legno", "Pietra", "Ferro", "Stoffa", "Magia", "Gemme"}]
    assert sorted(len(s["ContainedObjects"]) for s in resources) == [10, 10, 15, 15, 15, 15]  # limited
    boards = [s for s in states if s["Name"] == "Custom_Board"]
    assert len(boards) == 1 + 6 and all(b["Locked"] for b in boards)
    tinted = [b for b in boards if "ColorDiffuse" in b]
    assert len(tinted) == 6 and len({json.dumps(b["ColorDiffuse"]) for b in tinted}) == 6  # a colour each
    seals = [s for s in states if s["Name"] == "Custom_Token" and s["Nickname"].startswith("Sigillo")]
    guilds = [s for s in states if s["Name"] == "Card" and s["Nickname"].startswith("Gilda")]
    assert len(seals) == 12 and len(guilds) == 6
    white = _tint_of(1.0, 1.0, 1.0)
    assert sum(s.get("ColorDiffuse") == white for s in seals + guilds) == 2 + 1  # the White seat's
    assert all("ColorDiffuse" in s for s in seals + guilds)
    main = next(b for b in boards if b["Nickname"] == "Tabellone")
    prints = {f.label: f for f in footprints(save, out)}
    on_board = [prints[name] for name in ("Mazzo delle Missioni", "Tesori rossi")]
    assert all(f.inside(prints["Tabellone"]) for f in on_board) and main["Transform"]["posY"] < 1.5


def _tint_of(r: float, g: float, b: float) -> dict:
    from cardgen.export.ttstable import _tint

    return _tint((r, g, b))


def test_the_saved_game_passes_the_saved_objects_structural_checks(tables):
    for key, (snapshot, out, export, save) in tables.items():
        assert {"SaveName", "ObjectStates", "Note", "TabStates", "Table"} <= set(save)
        states = _all_states(save["ObjectStates"])
        guids = [s["GUID"] for s in states]
        assert len(guids) == len(set(guids)) and all(re.fullmatch(r"[0-9a-f]{6}", g) for g in guids), key
        for state in states:
            t = state["Transform"]
            assert {"posX", "posY", "posZ", "rotX", "rotY", "rotZ", "scaleX", "scaleY", "scaleZ"} <= set(t)
            if state["Name"] == "DeckCustom":
                contained = state["ContainedObjects"]
                assert state["DeckIDs"] == [c["CardID"] for c in contained]
                for entry in state["CustomDeck"].values():
                    assert set(entry) == {"FaceURL", "BackURL", "NumWidth", "NumHeight", "BackIsHidden",
                                          "UniqueBack", "Type"}
            if state["Name"] == "Card":
                sheet = str(state["CardID"] // 100)
                assert list(state["CustomDeck"]) == [sheet]
                entry = state["CustomDeck"][sheet]
                assert state["CardID"] % 100 < entry["NumWidth"] * entry["NumHeight"]
            if state["Name"] == "Infinite_Bag":
                assert len(state["ContainedObjects"]) == 1
            for url_key in ("FaceURL", "BackURL"):
                for entry in state.get("CustomDeck", {}).values():
                    assert (out / Path(entry[url_key]).name).is_file()
            image = state.get("CustomImage")
            if image:
                assert (out / Path(image["ImageURL"]).name).is_file()
        assert (out / export.thumbnail_file).is_file()


def test_table_export_is_deterministic(tables, tmp_path):
    snapshot, out, export, save = tables[("one-true-king", "en", 2)]
    project = load_project(ROOT)
    rendered = draw_cards(project, snapshot, checks=False).faces()
    again = export_table(project, snapshot, rendered, 2, tmp_path, lambda name: file_url(out / name))
    assert (tmp_path / again.file).read_bytes() == (out / export.file).read_bytes()
    assert (tmp_path / again.thumbnail_file).read_bytes() == (out / export.thumbnail_file).read_bytes()


def test_one_true_king_grid_faces(tables):
    snapshot, out, export, save = tables[("one-true-king", "en", 2)]
    grid = "".join(snapshot.rules["grid"])
    cards = [s for s in save["ObjectStates"] if s["Name"] == "Card" and "King" not in s["Nickname"]]
    assert len(cards) == 35
    # the grid row by row: y grows southwards (posZ northwards), x eastwards
    cards.sort(key=lambda s: (-s["Transform"]["posZ"], s["Transform"]["posX"]))
    faces = "".join("U" if s["Transform"]["rotZ"] == 0 else "D" for s in cards)
    assert faces == grid


def test_top_view_renders(tables, tmp_path):
    snapshot, out, export, save = tables[("kings-blade", "en", 2)]
    data = render_png(save, out, size_px=400)
    assert data.startswith(b"\x89PNG") and render_png(save, out, size_px=400) == data


def test_a_new_project_gets_a_table_from_its_data_alone(cli, project_copy, tmp_path):
    """`cardgen new`'s game declares no set-up: the table is dealt from the set-up its data implies."""
    assert cli("new", "Dragon Race", cwd=project_copy).code == 0
    project = load_project(project_copy)
    snapshot = resolve(project, load_game(project, "dragon-race"))
    assert snapshot.setup is None
    out = tmp_path / "table"
    out.mkdir()
    n = snapshot.game.file.players.max
    rendered = draw_cards(project, snapshot, checks=False).faces()
    export = export_table(project, snapshot, rendered, n, out, lambda name: file_url(out / name))
    save = json.loads((out / export.file).read_text(encoding="utf-8"))
    assert overlaps(footprints(save, out)) == []
    card_of = _identify(snapshot, out)
    found = Counter(cid for s in _all_states(save["ObjectStates"]) if (cid := card_of(s)) is not None)
    assert found == Counter({c.id: c.count for c in snapshot.cards if c.count})
    assert len([s for s in save["ObjectStates"] if s["Name"] == "HandTrigger"]) == n


# --- the command ----------------------------------------------------------------------------------


def test_cli_table_with_rulebook_and_install(cli, tmp_path, monkeypatch):
    """The table, its rulebook and the installed copy; the cards are drawn once for all of them
    (the rulebook's build takes the export's card stage)."""
    import cardgen.cardstage
    import cardgen.commands.export
    import cardgen.pipeline

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr("pathlib.Path.home", lambda: tmp_path / "home")
    stages = []

    def counted(*args, **kw):
        stages.append(args[1].version)
        return cardgen.cardstage.draw_cards(*args, **kw)

    for module in (cardgen.commands.export, cardgen.pipeline):
        monkeypatch.setattr(module, "draw_cards", counted)
    out = tmp_path / "table"
    result = cli("export", "tts", "--version", "3.1", "--table", "--players", "2", "--install", "--out", str(out))
    assert result.code == 0, result.err
    assert stages == ["3.1"]
    save = json.loads((out / "kings-blade-3.1-2p.json").read_text(encoding="utf-8"))
    [pdf] = [s for s in save["ObjectStates"] if s["Name"] == "Custom_PDF"]
    assert pdf["CustomPDF"]["PDFUrl"] == file_url(out / "kings-blade-3.1-rulebook.pdf")
    assert (out / "kings-blade-3.1-rulebook.pdf").read_bytes().startswith(b"%PDF")
    [note] = [s for s in save["ObjectStates"] if s["Name"] == "Notecard"]
    assert note["Description"].startswith("1. Shuffle the hilt and upgrade cards")
    installed = saves_dir(home=tmp_path / "home") / "The King's Blade"
    copy = json.loads((installed / "kings-blade-3.1-2p.json").read_text(encoding="utf-8"))
    urls = [e["FaceURL"] for s in _all_states(copy["ObjectStates"]) for e in s.get("CustomDeck", {}).values()]
    assert urls and all(u.startswith(file_url(installed)) for u in urls)
    assert (installed / "kings-blade-3.1-rulebook.pdf").is_file()
    assert "Saves" in installed.parts and "Saved Objects" not in installed.parts


def test_cli_a_player_count_the_game_does_not_allow_is_one_line(cli, tmp_path):
    result = cli("export", "tts", "--table", "--game", "kings-guild", "--players", "7", "--out", str(tmp_path / "t"))
    assert result.code == 2 and "Traceback" not in result.err
    [line] = [x for x in result.err.splitlines() if x.strip()]
    assert "The King's Guild is played by 2-6 players, not 7" in line
    assert "card_data/kings-guild/game.yml:" in line
    assert not (tmp_path / "t").exists()
    usage = cli("export", "tts", "--players", "3")
    assert usage.code == 2 and "--players goes with --table" in usage.err


def test_the_overlap_check_can_fail(tmp_path):
    """topview finds two cards on each other and a piece half off its board; a piece inside the
    board it lies on and a card in a hand zone are where they belong."""
    from PIL import Image

    Image.new("RGB", (400, 200), "white").save(tmp_path / "board.png")
    Image.new("RGB", (100, 100), "white").save(tmp_path / "token.png")

    def card(x: float, z: float, y: float = 1.0) -> dict:
        return {"Name": "Card", "Nickname": "c", "CardID": 10000, "CustomDeck": {"100": {"Type": 0}},
                "Transform": {"posX": x, "posY": y, "posZ": z, "scaleX": 1, "scaleZ": 1}}

    def piece(name: str, image: str, x: float, y: float, scale: float) -> dict:
        return {"Name": name, "Nickname": image, "CustomImage": {"ImageURL": f"file:///x/{image}"},
                "Transform": {"posX": x, "posY": y, "posZ": 0, "scaleX": scale, "scaleZ": scale}}

    board = piece("Custom_Board", "board.png", 0, 1.0, 4)  # 8 x 4 units
    hand = {"Name": "HandTrigger", "FogColor": "White",
            "Transform": {"posX": 0, "posY": 3.0, "posZ": -10, "scaleX": 10, "scaleZ": 4}}
    fine = {"ObjectStates": [board, piece("Custom_Token", "token.png", 1, 1.6, 0.5), hand,
                             card(-1, -10, 3.0), card(0, -10, 3.0), card(8, 0)]}
    assert overlaps(footprints(fine, tmp_path)) == []
    bad = {"ObjectStates": [board, piece("Custom_Token", "token.png", 4, 1.6, 0.5), card(8, 0), card(9, 0)]}
    found = [(a.name, b.name) for a, b in overlaps(footprints(bad, tmp_path))]
    assert found == [("Custom_Board", "Custom_Token"), ("Card", "Card")]
