"""Issue 5: `cardgen export tts` and `cardgen export png` on tests/projects/mini version 2 (a
main deck of three poker cards, 8 printed, and a deck of two round 30 mm coins).

The TTS mapping is proven with pixels: every card's CardID names a sheet and a cell, and that
cell must look like the card's own build PNG (bleed cut off, scaled to the cell) and unlike
the other cards on the sheet.
"""

from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageCms, ImageStat

from cardgen.cardstage import draw_cards
from cardgen.data import cardtext
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.export.install import saved_objects_dir
from cardgen.export.printpng import PRESETS, export_png
from cardgen.export.tts import MAX_PX, PER_SHEET, export_tts, plan_objects, saved_object, write_objects
from cardgen.units import mm_to_px

BLEED_PX = mm_to_px(3, 300)  # the game's 3 mm bleed in the build's 300 DPI PNGs


@pytest.fixture(scope="module")
def mini2(mini_shared):
    """The project and version 2 of the session's shared copy of tests/projects/mini."""
    project = load_project(mini_shared)
    return project, resolve(project, load_game(project, "mini"), "2")


@pytest.fixture(scope="module")
def build_pngs(mini_build):
    """The pipeline's own 300 DPI card PNGs (with bleed): the reference the exports must match."""
    out, _ = mini_build
    return out / "png"


@pytest.fixture(scope="module")
def tts(mini2, tmp_path_factory):
    project, snapshot = mini2
    out = tmp_path_factory.mktemp("tts")
    objects = export_tts(project, snapshot, draw_cards(project, snapshot, checks=False).faces(), out)
    write_objects(objects, snapshot, out, lambda name: (out / name).resolve().as_uri())
    return out, objects, {o.deck_id: json.loads((out / o.file).read_text()) for o in objects}


def _path(url: str) -> Path:
    assert url.startswith("file:///")
    return Path("/" + url[len("file:///"):])


def _diff(a: Image.Image, b: Image.Image) -> float:
    return sum(ImageStat.Stat(ImageChops.difference(a.convert("RGB"), b.convert("RGB"))).mean) / 3


def test_one_saved_object_per_deck(mini2, tts):
    _, snapshot = mini2
    out, objects, data = tts
    assert set(data) == set(snapshot.game.decks) == {"main", "coins"}
    for deck_id, saved in data.items():
        (state,) = saved["ObjectStates"]
        assert state["Name"] == "DeckCustom" and state["Nickname"] == snapshot.game.decks[deck_id].name
        contained = state["ContainedObjects"]
        assert state["DeckIDs"] == [c["CardID"] for c in contained]
        assert len(contained) == snapshot.deck_size(deck_id)
        for entry in state["CustomDeck"].values():
            assert set(entry) == {"FaceURL", "BackURL", "NumWidth", "NumHeight", "BackIsHidden", "UniqueBack", "Type"}
            assert entry["UniqueBack"] is False and entry["BackIsHidden"] is True
        names = [c["Nickname"] for c in contained]
        expected = [c for c in snapshot.cards_in_deck(deck_id) for _ in range(c.count)]
        assert names == [c.name for c in expected]
        assert [c["Description"] for c in contained] == [cardtext.card_plain(snapshot, c) for c in expected]
    main = data["main"]["ObjectStates"][0]
    assert main["CustomDeck"][next(iter(main["CustomDeck"]))]["NumWidth"] == 3  # 3 cards, drawn once each
    assert [c["Nickname"] for c in main["ContainedObjects"]].count("Spark") == 4
    assert next(iter(data["coins"]["ObjectStates"][0]["CustomDeck"].values()))["Type"] == 4  # round tokens


def test_every_card_id_points_at_its_own_picture(mini2, tts, build_pngs):
    _, snapshot = mini2
    out, objects, data = tts
    for deck_id, saved in data.items():
        state = saved["ObjectStates"][0]
        sheets = {key: Image.open(_path(entry["FaceURL"])) for key, entry in state["CustomDeck"].items()}
        seen = {}
        for card in state["ContainedObjects"]:
            key, index = divmod(card["CardID"], 100)
            entry = state["CustomDeck"][str(key)]
            assert card["CustomDeck"] == {str(key): entry}
            seen.setdefault(card["Nickname"], (str(key), index, entry))
        for name, (key, index, entry) in seen.items():
            sheet = sheets[key]
            cols, rows = entry["NumWidth"], entry["NumHeight"]
            cw, ch = sheet.width // cols, sheet.height // rows
            cards = {c.name: c for c in snapshot.cards_in_deck(deck_id)}
            with Image.open(build_pngs / f"card-{cards[name].id}.png") as own:
                reference = own.crop((BLEED_PX, BLEED_PX, own.width - BLEED_PX, own.height - BLEED_PX))
                reference = reference.resize((cw, ch), Image.LANCZOS)
            used = sorted(i for k, i, _ in seen.values() if k == key)
            scores = {i: _diff(sheet.crop(((i % cols) * cw, (i // cols) * ch, (i % cols + 1) * cw,
                                           (i // cols + 1) * ch)), reference) for i in used}
            row, col = divmod(index, cols)
            assert scores[index] < 4, (deck_id, name, row, col, scores[index])
            assert min(scores, key=scores.get) == index  # and no other cell looks more like it


def test_sheets_fit_tts_limits(mini2, tts):
    out, objects, data = tts
    for saved in data.values():
        for entry in saved["ObjectStates"][0]["CustomDeck"].values():
            for url in (entry["FaceURL"], entry["BackURL"]):
                with Image.open(_path(url)) as img:
                    assert img.mode == "RGB" and img.width <= MAX_PX and img.height <= MAX_PX
            assert entry["NumWidth"] <= 10 and entry["NumHeight"] <= 7
    # a deck of 20 different cards: ten columns, the cards drawn smaller
    twenty = _with_clones(mini2[1], "spark", 20 - len(mini2[1].cards_in_deck("main")))
    main = next(o for o in plan_objects(twenty, "x") if o.deck_id == "main").sheets[0]
    assert (main.cols, main.rows) == (10, 2) and main.cell[0] <= 409


def _with_clones(snapshot, card_id: str, n: int):
    """The snapshot with n more different cards in `card_id`'s deck."""
    big = copy.deepcopy(snapshot)
    template = big.card(card_id)
    for i in range(n):
        clone = copy.deepcopy(template)
        clone.id, clone.name = f"extra-{i}", f"Extra {i}"
        big.cards.append(clone)
    return big


def test_big_deck_splits_into_sheets(mini2):
    _, snapshot = mini2
    big = _with_clones(snapshot, "spark", 150)
    market = next(o for o in plan_objects(big, "x") if o.deck_id == "main")
    distinct = len(big.cards_in_deck("main"))
    assert [len(s.cards) for s in market.sheets] == [PER_SHEET, PER_SHEET, distinct - 2 * PER_SHEET]
    assert [(s.cols, s.rows) for s in market.sheets[:2]] == [(10, 7), (10, 7)]
    for n, sheet in enumerate(market.sheets):
        sheet.key = 100 + n
        assert sheet.cols * sheet.cell[0] <= MAX_PX and sheet.rows * sheet.cell[1] <= MAX_PX
    state = saved_object(market, big, lambda name: name)["ObjectStates"][0]
    assert set(state["CustomDeck"]) == {"100", "101", "102"}
    ids = {c["Nickname"]: c["CardID"] for c in state["ContainedObjects"]}
    assert ids["Extra 149"] == 102 * 100 + distinct - 1 - 2 * PER_SHEET


def test_one_card_deck_is_a_card(mini2, tmp_path):
    project, snapshot = mini2
    single = copy.deepcopy(snapshot)
    single.card("coin").count = 1
    objects = export_tts(project, single, draw_cards(project, single, checks=False).faces(), tmp_path)
    write_objects(objects, single, tmp_path, lambda name: "https://example.org/kb/" + name)
    state = json.loads((tmp_path / "mini-2-coins.json").read_text())["ObjectStates"][0]
    assert state["Name"] == "Card" and state["Nickname"] == "Coin"
    (key, entry), = state["CustomDeck"].items()
    assert state["CardID"] == int(key) * 100
    assert entry["FaceURL"] == "https://example.org/kb/mini-2-coins-faces-1.png"


def test_export_is_deterministic(mini2, tts):
    project, snapshot = mini2
    out, objects, _ = tts
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    again = export_tts(project, snapshot, draw_cards(project, snapshot, checks=False).faces(), out)
    write_objects(again, snapshot, out, lambda name: (out / name).resolve().as_uri())
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_cli_base_url_and_install(cli, mini, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr("sys.platform", "linux")
    out = tmp_path / "tts"
    result = cli("export", "tts", "--version", "2", "--out", str(out), "--base-url", "https://cdn.example/kb", cwd=mini)
    assert result.code == 0, result.err
    main = json.loads((out / "mini-2-main.json").read_text())["ObjectStates"][0]
    face_url = next(iter(main["CustomDeck"].values()))["FaceURL"]
    assert face_url == "https://cdn.example/kb/mini-2-main-faces-1.png"

    result = cli("export", "tts", "--version", "2", "--out", str(out), "--install", cwd=mini)
    assert result.code == 0, result.err
    target = home / ".local/share/Tabletop Simulator/Saves/Saved Objects/Mini"
    assert saved_objects_dir() == target.parent
    jsons = sorted(target.glob("*.json"))
    assert [p.stem for p in jsons] == sorted(f"mini-2-{d}" for d in ("main", "coins"))
    for path in jsons:
        with Image.open(path.with_suffix(".png")) as thumb:
            assert thumb.size == (256, 256)
        state = json.loads(path.read_text())["ObjectStates"][0]
        for entry in state["CustomDeck"].values():
            for url in (entry["FaceURL"], entry["BackURL"]):
                assert _path(url).parent == target and _path(url).is_file()


def test_saved_objects_folder_per_system(tmp_path):
    windows = tmp_path / "Documents/My Games/Tabletop Simulator/Saves/Saved Objects"
    assert saved_objects_dir("win32", tmp_path) == windows
    assert saved_objects_dir("darwin", tmp_path) == tmp_path / "Library/Tabletop Simulator/Saves/Saved Objects"
    assert saved_objects_dir("linux", tmp_path) == tmp_path / ".local/share/Tabletop Simulator/Saves/Saved Objects"


# --- print services ---------------------------------------------------------------------------

SIZES = {  # (poker card, 30 mm token) per preset
    "tgc": ((825, 1125), (429, 429)),  # TGC poker; token: 354 px trim + 2 x 1/8 in
    "mpc": ((822, 1122), (426, 426)),  # MPC poker; token: 354 px trim + 2 x 0.12 in (services.yml)
    "plain": ((815, 1110), (425, 425)),  # 300 DPI with the game's 3 mm bleed, like the build
}


@pytest.fixture(scope="module")
def pngs(mini2, tmp_path_factory):
    project, snapshot = mini2
    outs = {}
    for name, preset in PRESETS.items():
        out = tmp_path_factory.mktemp(name)
        export_png(project, snapshot, draw_cards(project, snapshot, checks=False).faces(), preset, out)
        outs[name] = out
    return outs


@pytest.mark.parametrize("preset", list(SIZES))
def test_print_png_sizes_and_mode(pngs, preset):
    poker, token = SIZES[preset]
    files = sorted(pngs[preset].rglob("*.png"))
    assert files
    for path in files:
        with Image.open(path) as img:
            assert img.mode == "RGB"
            assert img.size == (token if path.parent.name == "coins" else poker), path
            # services read a PNG without pHYs as 72 DPI and one without a profile as unknown RGB
            assert img.info["dpi"] == pytest.approx((300, 300), abs=0.01), path
            profile = ImageCms.ImageCmsProfile(io.BytesIO(img.info["icc_profile"]))
            assert "sRGB" in ImageCms.getProfileDescription(profile), path


@pytest.mark.parametrize("preset", list(SIZES))
def test_print_png_names_keep_the_counts(mini2, pngs, preset):
    _, snapshot = mini2
    for deck_id in snapshot.game.decks:
        folder = pngs[preset] / deck_id
        names = sorted(p.name for p in folder.glob("*.png"))
        assert f"back-{deck_id}.png" in names
        cards = [n for n in names if not n.startswith("back-")]
        if preset == "mpc":  # one file per printed copy
            assert len(cards) == snapshot.deck_size(deck_id)
            spark = [n for n in cards if re.fullmatch(r"\d{3}-spark-\d+of4\.png", n)]
            assert len(spark) == (4 if deck_id == "main" else 0)
        else:  # one file per card, the count in its name
            parsed = [re.fullmatch(r"\d{3}-(.+)-x(\d+)\.png", n).groups() for n in cards]
            counts = {card_id: int(count) for card_id, count in parsed}
            assert counts == {c.id: c.count for c in snapshot.cards_in_deck(deck_id)}


@pytest.mark.parametrize("preset", ["tgc", "mpc"])
def test_print_png_keeps_the_trim_undistorted(pngs, build_pngs, preset):
    """The trim area is the build's 300 DPI card at 1:1, not the whole card stretched to the image size."""
    trim = (mm_to_px(63, 300), mm_to_px(88, 300))
    name = "002-ember-x3.png" if preset == "tgc" else "002-ember-1of3.png"
    with Image.open(build_pngs / "card-ember.png") as own, Image.open(pngs[preset] / "main" / name) as img:
        reference = own.crop((BLEED_PX, BLEED_PX, BLEED_PX + trim[0], BLEED_PX + trim[1]))
        x, y = (img.width - trim[0]) // 2, (img.height - trim[1]) // 2
        centre = img.crop((x, y, x + trim[0], y + trim[1]))
        stretched = own.resize(img.size, Image.LANCZOS).crop((x, y, x + trim[0], y + trim[1]))
    # the build PNG's trim starts 0.4 px into a pixel, which leaves about 2 levels of difference
    assert _diff(centre, reference) < 3
    assert _diff(stretched, reference) > 2 * _diff(centre, reference)  # what stretching would have cost
