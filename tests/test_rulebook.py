"""Issue 4: the rulebook stage. Rules from the data, real card pictures, fonts, contents,
page sizes, refusal of outside URLs, template/data mismatches, determinism."""

from __future__ import annotations

import functools
import io
import itertools
import re
from pathlib import Path

import pikepdf
import pytest
from conftest import ROOT, developer_vocabulary, fold_pdfium_text, pdfium_pages, seed_rulebook_html
from PIL import Image

from cardgen.buildtypes import PAPER_SIZES, BuildOptions
from cardgen.cache import Manifest
from cardgen.cardstage import draw_cards
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.errors import BuildError
from cardgen.rulebook import build_rulebooks
from cardgen.rulebook.booklet import padded
from cardgen.rulebook.cardpdf import MARKER, face_svg_path, placeholder_digest, placeholder_png
from cardgen.rulebook.helpers import FaceStore
from cardgen.rulebook.outline import outline

A4_PT = (595.28, 841.89)
LETTER_PT = (612.0, 792.0)
PROJECT_FAMILIES = {"Cinzel", "Alegreya Sans"}


def _snapshot(root: Path, version: str):
    project = load_project(root)
    return project, resolve(project, load_game(project, "kings-blade"), version)


@functools.cache
def _seed(version: str):
    """The seed project's King's Blade at `version`, (project, snapshot), resolved once for the
    module's tests (frozen data: they only read it)."""
    return _snapshot(ROOT, version)


def _rulebook(root: Path, version: str, out: Path, papers=("a4",), project_and_snapshot=None, rendered=None):
    """Render the cards (SVG only) and build the rulebooks straight from them (or from the
    `project_and_snapshot` and `rendered` faces given)."""
    project, snapshot = project_and_snapshot or _snapshot(root, version)
    if rendered is None:
        rendered = draw_cards(project, snapshot, checks=False).faces()
    return build_rulebooks(project, snapshot, rendered, {}, BuildOptions(papers=papers), out, Manifest(out))


def _text(pdf: Path) -> list[str]:
    """Each page's text, whitespace collapsed (`conftest.pdfium_pages`: pdfium, once a file)."""
    return pdfium_pages(pdf)


def _rules_text(pages: list[str]) -> str:
    """The rules proper: from the overview to the card list (the appendices quote older rules)."""
    text = " ".join(pages)
    start = text.index("Overview The King has organised")
    return text[start:text.index("Card list Every card")]


@pytest.fixture(scope="module")
def built(seed_builds):
    """3.1 through the whole pipeline, both papers, with its booklets and notes; V1, V2 and V3
    (the session's seed builds, which count the Renderers and process pools a build makes)."""
    seed = seed_builds.get("kings-blade", "3.1")
    result = seed.result
    result.renderers, result.pools = seed.renderers, seed.pools
    books = {version: seed_builds.get("kings-blade", version).out / "rulebook-a4.pdf"
             for version in ("3.1", "1", "2", "3")}
    return result, seed.out, books, {v: _text(p) for v, p in books.items()}


@pytest.fixture(scope="module")
def html31(built, seed_builds) -> str:
    """3.1's A4 rulebook HTML as the build renders it, from the build's own card faces
    (`conftest.seed_rulebook_html`: rendered once for the session's readers)."""
    return seed_rulebook_html(seed_builds.project, seed_builds.get("kings-blade", "3.1"))


# --- outputs -----------------------------------------------------------------------------------


def test_pipeline_writes_both_papers_with_their_page_size(built):
    result, out, _, _ = built
    assert result.pools == 1  # the booklets are laid out beside the rulebooks, not after them in a pool of their own
    outputs = {o.path.name: o for o in result.outputs}
    assert set(outputs) == {"rulebook-a4.pdf", "rulebook-letter.pdf", "notes-a4.pdf", "notes-letter.pdf",
                            "rulebook-booklet-a4.pdf", "rulebook-booklet-letter.pdf"}
    for name, size in (("rulebook-a4.pdf", A4_PT), ("rulebook-letter.pdf", LETTER_PT),
                       ("notes-a4.pdf", A4_PT), ("notes-letter.pdf", LETTER_PT)):
        with pikepdf.open(out / name) as pdf:
            assert len(pdf.pages) == outputs[name].pages >= (7 if name.startswith("rulebook") else 2)
            for page in pdf.pages:
                box = [float(v) for v in page.mediabox]
                assert abs(box[2] - size[0]) < 0.5 and abs(box[3] - size[1]) < 0.5


def test_the_build_renders_the_cards_once_and_times_each_paper(built):
    result = built[0]
    assert result.renderers == 1  # the rulebook draws its icons without a Renderer of its own
    stages = {t.stage: t for t in result.timings}
    assert list(stages) == ["validate", "render", "preflight", "rasterise", "export", "rulebook A4",
                            "rulebook LETTER", "booklet A4", "booklet LETTER", "notes A4", "notes LETTER"]
    for name, paper in itertools.product(("rulebook", "booklet", "notes"), ("A4", "LETTER")):
        timing = stages[f"{name} {paper}"]
        html, layout, pdf, cards, *imposed = (float(x) for x in re.findall(r"(\d+\.\d+) s", timing.detail))
        parts = [html, layout, pdf, cards, *imposed]  # each printed to 0.01 s: off by up to 0.005 each
        assert 0 < layout and 0 < pdf and abs(sum(parts) - timing.seconds) <= 0.005 * len(parts) + 1e-9
        assert (cards > 0) == (name != "notes")  # the notes show no cards
        assert len(imposed) == (name == "booklet")  # only the booklet is imposed after its layout
        file = f"rulebook-booklet-{paper.lower()}.pdf" if name == "booklet" else f"{name}-{paper.lower()}.pdf"
        pages = next(o for o in result.outputs if o.path.name == file).pages
        with pikepdf.open(result.out_dir / file) as done:
            assert pages == len(done.pages)
        laid_out = int(re.search(r"(\d+) pages", timing.detail)[1])  # the pages weasyprint laid out
        if name == "booklet":  # two booklet pages a printed side, whole sheets of four; the layout
            # ends with up to 2 spare pages (player aid, back cover) of which only those filling the
            # last sheet are printed (the aid may print twice)
            assert pages * 2 % 4 == 0 and laid_out - 2 <= pages * 2 <= padded(laid_out)
        else:
            assert laid_out == pages


def test_unchanged_inputs_skip_the_rebuild_and_bytes_are_identical(built, tmp_path):
    _, out, books, _ = built
    project, snapshot = _seed("3.1")
    rendered = draw_cards(project, snapshot, checks=False).faces()  # drawn again: the same faces
    again = build_rulebooks(project, snapshot, rendered, {}, BuildOptions(papers=("a4",)), out, Manifest(out))
    assert [o.rebuilt for o in again] == [False]
    # a fresh folder, no manifest: laid out again
    _rulebook(ROOT, "3.1", tmp_path, project_and_snapshot=(project, snapshot), rendered=rendered)
    assert (tmp_path / "rulebook-a4.pdf").read_bytes() == books["3.1"].read_bytes()


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_booklet_is_written_beside_the_rulebook_in_saddle_stitch_order(built, paper):
    from test_booklet import _halves

    result, out, _, _ = built
    [booklet] = [o for o in result.outputs if o.path.name == f"rulebook-booklet-{paper}.pdf"]
    width, height = PAPER_SIZES[paper].height_mm / 25.4 * 72, PAPER_SIZES[paper].width_mm / 25.4 * 72
    with pikepdf.open(booklet.path) as pdf:
        sides = len(pdf.pages)
        assert sides == booklet.pages and sides % 2 == 0 and sides >= 4  # whole sheets, duplex
        for page in pdf.pages:
            box = [float(v) for v in page.mediabox]
            assert abs(box[2] - width) < 0.5 and abs(box[3] - height) < 0.5
    pages = sides * 2  # booklet pages, padded to a multiple of 4
    assert pages % 4 == 0
    left, right = _halves(booklet.path, 0, width, height)
    assert right.startswith("The King's Blade") and "Rules for Version 3.1" in right  # the cover, page 1
    left, _ = _halves(booklet.path, 1, width, height)
    assert left.startswith("Contents")  # page 2 on the back of the cover
    last_left, _ = _halves(booklet.path, 0, width, height)
    # the last page: the back cover (the game's name, no page number), or the rules' last page numbered
    assert (last_left.startswith("The King's Blade") and not re.search(r"\d+$", last_left)) \
        or last_left.endswith(str(pages)), last_left


# --- the rules come from the data --------------------------------------------------------------


def test_hand_limit_follows_the_version(built):
    texts = built[3]
    assert "You can hold a maximum of 4 metals in your storage" in _rules_text(texts["2"])
    assert "You can hold a maximum of 3 metals in your storage" in _rules_text(texts["3.1"])
    assert "There is no limit to the number of metals you may hold" in _rules_text(texts["1"])
    assert "maximum of" not in _rules_text(texts["1"])


def test_end_condition_follows_the_version(built):
    texts = built[3]
    assert "When you have one complete blade and hilt card, you can choose to end the game" in _rules_text(texts["2"])
    assert ("When you have one complete blade, hilt and upgrade card, you can choose to end the game"
            in _rules_text(texts["3.1"]))
    assert "This version has no way to end the game." in _rules_text(texts["1"])
    for version in ("2", "3.1"):
        assert "no way to end the game" not in _rules_text(texts[version])


def test_metal_counts_are_the_cards_of_the_version(built):
    texts = built[3]
    rules = _rules_text(texts["3.1"])
    assert "60 metal cards: Steel ×20, Orcish Steel ×17, Dwarvish Steel ×13, Elvish Steel ×10" in rules
    assert "Elvish Steel is the rarest: a 1 in 6 chance" in rules
    assert "Steel is the most common: a 1 in 3 chance" in rules
    _, v1 = _seed("1")
    counts = {s.name: v1.symbol_count(sid) for sid, s in v1.symbols.items() if not s.any}
    assert counts == {"Steel": 26, "Orcish Steel": 18, "Dwarvish Steel": 11, "Elvish Steel": 5}
    for name, count in counts.items():
        assert f"{name} ×{count}" in _rules_text(texts["1"])


@pytest.mark.parametrize("version", ["1", "2", "3.1"])
def test_every_enum_rule_prints_its_own_sentence_and_no_other(built, version):
    """V2 and 3.1 differ exactly in `forge`; V1 also in overflow, mine action and forge."""
    rules = _rules_text(built[3][version])
    _, snapshot = _seed(version)
    for key, spec in snapshot.game.rule_specs.items():
        if spec.type != "enum":
            continue
        for value, sentence in spec.values.items():
            assert (sentence in rules) == (snapshot.rules.get(key) == value), (key, value)


def test_examples_use_the_rules_of_the_version(built):
    texts = built[3]
    v31 = _rules_text(texts["3.1"])
    assert "The Dwarvish Steel would pour out and be discarded into the mine" in v31
    assert "the Orcish Steel would go next" in v31
    assert "this player would have 5 sword points: 3 for the complete Rapier" in v31
    v1 = _rules_text(texts["1"])
    assert "The player who poured would choose which of its metals pours out" in v1
    assert "Dwarvish Steel would pour out" not in v1


def test_card_list_gives_every_card_with_its_generated_text(built):
    from cardgen.data import cardtext

    pages = built[3]["3.1"]
    text = " ".join(pages)
    appendix = text[text.index("Card list Every card"):]
    _, snapshot = _seed("3.1")
    for card in snapshot.cards:
        assert card.name in appendix
        for effect in card.effects:
            assert cardtext.effect_plain(snapshot, effect) in appendix, (card.id, effect.do)


def test_players_rulebook_has_credits_on_the_cover_and_no_designer_notes(built):
    """Change notes, feedback and authoring choices are in notes-<paper>.pdf, not here."""
    text = " ".join(built[3]["3.1"])
    assert "Game design: Robbert Sloof." in built[3]["3.1"][0]
    for gone in ("About this version", "Earlier versions", "Authoring choices", "Playtest feedback",
                 "Kaarten zien er mooi en duidelijk uit", "The Forge Token must now always be on a sword part."):
        assert gone not in text


@pytest.mark.parametrize("version", ["1", "2", "3", "3.1"])
def test_players_rulebook_has_no_developer_vocabulary(built, version):
    """No ids (overflow_bounce), no 'seed', 'data', 'plug-in', no raw feedback: read from the PDF."""
    _, snapshot = _seed(version)
    text = " ".join(built[3][version])
    assert len(text) > 5000  # the whole book was read
    assert developer_vocabulary(text, snapshot) == []


@pytest.mark.parametrize("version", ["1", "2", "3", "3.1"])
def test_components_and_set_up_numbers_are_the_datas(built, version):
    _, snapshot = _seed(version)
    rules = _rules_text(built[3][version])
    types = snapshot.game.card_types
    listed = rules[rules.index("Components "):rules.index("Blade, hilt and upgrade cards are the sword parts")]
    expected = [f"{sum(c.count for c in snapshot.cards_of_type(t))} {types[t].label.lower()} cards"
                for t in ("blade", "hilt", "upgrade", "metal")]
    tokens = sum(c.count for c in snapshot.cards_of_type("forge-token"))
    assert tokens == (0 if version == "1" else 4)
    if tokens:
        expected.append(f"{tokens} forge tokens, one per player")
    # the list, then the components gallery: every deck's picture with its name and count
    gallery = [f"{d.name} ×{snapshot.deck_size(i)}" for i, d in snapshot.game.decks.items() if snapshot.deck_size(i)]
    assert re.sub(r": Steel ×.*?Elvish Steel ×\d+", "", listed) == \
        "Components " + " ".join(expected) + " " + " ".join(gallery) + " "
    assert f"Shuffle the {snapshot.deck_size('mine')} metal cards" in rules
    assert f"Draw {snapshot.rules['market_face_up']} cards from the pile" in rules
    assert f"give every player {snapshot.rules['starting_hand']} metal cards" in rules


def test_version_1_lists_and_prints_only_what_it_uses(built, seed_builds):
    """V1 moved cards into the forge by hand: no forge tokens in its rules, lists or sheets."""
    from cardgen.buildtypes import FaceFiles
    from cardgen.imposition.stage import sheet_groups

    _, v1 = _seed("1")
    assert v1.rules["forge"] == "move_cards" and v1.deck_size("tokens") == 0
    text = " ".join(built[3]["1"])
    assert "token" not in text.lower()
    rendered = seed_builds.get("kings-blade", "1").result.cards  # the faces V1's build drew
    assert "tokens" not in rendered.backs
    faces = list(rendered.faces.values()) + list(rendered.backs.values())
    files = {f.key: FaceFiles(f, Path(f"{f.key}.pdf"), None) for f in faces}
    slots = [s for g in sheet_groups(v1, rendered, files) for s in g.slots]
    assert len(slots) == sum(c.count for c in v1.cards) == 6 + 18 + 60
    assert not any(s.label == "forge-token" for s in slots)
    _, v2 = _seed("2")
    assert v2.deck_size("tokens") == 4  # the token arrives with V2, as its notes say


# --- the PDF -----------------------------------------------------------------------------------


def test_fonts_are_embedded_and_only_the_projects(built):
    _, _, books, _ = built
    for pdf_path in books.values():
        with pikepdf.open(pdf_path) as pdf:
            descriptors = [o for o in pdf.objects
                           if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/FontDescriptor"]
            assert descriptors
            families = set()
            for d in descriptors:
                assert any(k in d for k in ("/FontFile", "/FontFile2", "/FontFile3")), d.get("/FontName")
                families.add(str(d["/FontFamily"]))
            assert families == PROJECT_FAMILIES


def test_contents_page_numbers_match_the_pages_of_the_headings(built):
    pages = built[3]["3.1"]
    contents = next(i for i, t in enumerate(pages) if t.startswith("Contents"))
    checked = 0
    for title in ("Set-up", "Card information", "Overflow", "End of the game", "Examples", "Card list"):
        m = re.search(re.escape(title) + r" \.{3,} (\d+)", pages[contents])
        assert m, f"no contents entry for {title}"
        number = int(m.group(1))
        assert number > contents + 1
        assert re.search(r"(^|[.:)\d] )" + re.escape(title) + " ", pages[number - 1]), (title, number)
        assert f"· Version 3.1 {number}" in pages[number - 1]  # the footer shows the same number
        checked += 1
    assert checked == 6


def test_pdfium_text_is_folded_as_the_readers_expect():
    """What `conftest.fold_pdfium_text` folds in pdfium's text before a test reads it: its line
    ends and runs of whitespace, and a contents leader pdfium joins to its title or page number;
    an ellipsis, a short run of dots and every word are left as they are."""
    raw = "Contents\r\nOverview ..........2\r\nCard list..........7\r\n1. The  market.... Wait... it ends."
    assert fold_pdfium_text(raw) == ("Contents Overview .......... 2 Card list .......... 7 "
                                     "1. The market.... Wait... it ends.")
    assert fold_pdfium_text("Set-up .......... 3") == "Set-up .......... 3"  # pypdf's reading stays


def test_layout_gives_no_weasyprint_warnings(built):
    """weasyprint's remarks on the layout, as write_rulebook_pdf hands them to the pipeline (its
    notes on the machine's HarfBuzz are left out there): none, on either paper."""
    outputs = {o.path.name: o for o in built[0].outputs}
    for name in ("rulebook-a4.pdf", "rulebook-letter.pdf"):
        assert outputs[name].rebuilt and outputs[name].warnings == [], name


def test_card_pictures_are_the_rendered_card_svgs(built, html31):
    project, _ = _seed("3.1")
    html, rendered = html31, built[0].cards
    hilt = rendered.faces["shortsword-hilt"]
    url = FaceStore(project.cache_dir / "svg").url(hilt)
    assert url == f"cardgen-face:{hilt.digest}" and f'href="{url}"' in html  # no folder in the HTML
    assert face_svg_path(project, hilt.digest).read_text() == hilt.svg
    assert str(project.cache_dir) not in html  # the same rulebook bytes wherever the cache is
    assert 'viewBox="0 0 63 88"' in html  # drawn trimmed: the bleed is cut off


def test_card_pictures_in_the_pdf_are_the_printed_cards_stored_once(built, html31):
    """Every face the rulebook shows is the vector PDF the sheets print, as one form XObject
    however often it is drawn, scaled into the box weasyprint laid out; no placeholder is left."""
    result, out, _, _ = built
    _, snapshot = _seed("3.1")
    html = html31
    shown = set(re.findall(r'href="cardgen-face:([0-9a-f]{64})"', html))
    uses = len(re.findall(r'href="cardgen-face:[0-9a-f]{64}"', html))
    decks = [d for d in snapshot.game.decks if snapshot.deck_size(d)]  # the components gallery: one picture each
    # 30 cards, 4 metals, backs... drawn 77 times; the set-up figure draws 30 of them: two piles of three
    # backs, the market row's 4, and each of 4 players' forge token, blade and 3 metals
    assert len(shown) == 28 and uses == 73 + len(decks) == 77
    card_pdfs = {ff.face.digest: ff.pdf for ff in result.files.values()}
    with pikepdf.open(out / "rulebook-a4.pdf") as pdf:
        objects = [o for o in pdf.objects if isinstance(o, pikepdf.Stream)]
        assert [o for o in objects if placeholder_digest(o) is not None] == []
        forms = [o for o in objects if o.get("/Subtype") == "/Form" and "/Matrix" in o]
        assert len(forms) == len(shown)
        contents = {f.read_bytes() for f in forms}
        for digest in shown:
            with pikepdf.open(card_pdfs[digest]) as card:
                assert card.pages[0].Contents.read_bytes() in contents
        for form in forms:
            x0, y0, x1, y1 = (float(v) for v in form.BBox)
            a, b, c, d, e, f = (float(v) for v in form.Matrix)
            assert (b, c) == (0, 0)
            assert a * x1 + e == pytest.approx(1, abs=1e-4) and d * y1 + f == pytest.approx(1, abs=1e-4)
            assert a * x0 + e == pytest.approx(0, abs=1e-4) and d * y0 + f == pytest.approx(0, abs=1e-4)


IMAGE_12x1 = {"/Type": pikepdf.Name.XObject, "/Subtype": pikepdf.Name.Image, "/Width": 12, "/Height": 1,
              "/ColorSpace": pikepdf.Name.DeviceRGB, "/BitsPerComponent": 8}


def test_placeholder_names_its_face_and_nothing_else_is_read_as_one():
    digest = "0123456789abcdef" * 4
    with pikepdf.new() as pdf:
        image = pikepdf.Stream(pdf, bytes(MARKER) + bytes.fromhex(digest) + b"\0")
        image.stream_dict.update(IMAGE_12x1)
        assert placeholder_digest(image) == digest
        other = pikepdf.Stream(pdf, bytes(36))  # a 12 x 1 black image of the user's
        other.stream_dict.update(IMAGE_12x1)
        assert placeholder_digest(other) is None
    assert Image.open(io.BytesIO(placeholder_png(digest))).tobytes()[3:35].hex() == digest


def test_anatomy_callouts_point_at_the_parts_of_the_real_card(built, html31):
    """Callouts 1-5 end on the parts of the rendered card, read back from its geometry."""
    from cardgen.preflight.geometry import read_parts
    from cardgen.render.fonts import FontSet

    html, rendered = html31, built[0].cards
    figure = html.index('viewBox="0 0 97 93"')  # the anatomy figure: the card and 17 mm each side for callouts
    card = re.compile(r'<svg x="([\d.]+)" y="([\d.]+)" width="63" height="88" viewBox="0 0 63 88">').search(html, figure)
    ox, oy = float(card.group(1)), float(card.group(2))  # the one card drawn at its real size
    ends = [(float(x) - ox, float(y) - oy) for x, y in
            re.findall(r'<line x1="[\d.]+" y1="[\d.]+" x2="([\d.]+)" y2="([\d.]+)"', html[card.end():])[:5]]
    face = rendered.faces["shortsword-hilt"]
    parts = read_parts(face.svg, FontSet(ROOT / "fonts"))

    def on(point, name):
        x0, y0, x1, y1 = parts[name]
        return x0 - 1.2 <= point[0] <= x1 + 1.2 and y0 - 0.5 <= point[1] <= y1 + 0.5  # at its edge, not on it

    assert [on(end, name) for end, name in zip(ends, ["points", "needs", "effect-1-metal", "effect-1-text", "type"])] \
        == [True] * 5, (ends, parts)
    assert parts["points"] == pytest.approx((3.7, 3.7, 17.5, 17.5), abs=0.01)  # the badge, 3 mm inside the trim


# --- robustness --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def seed_copy_faces(_seed_copy_sources):
    """3.1's card faces drawn once from `seed_copy`'s data (conftest's copy of the seed project,
    shared by the module's tests and put back after each), for the tests that change only the
    rulebook's template (its cards are then the ones drawn here)."""
    project, snapshot = _snapshot(_seed_copy_sources[0], "3.1")
    return draw_cards(project, snapshot, checks=False).faces()


def _insert_into_rules(project_root: Path, markup: str) -> None:
    template = project_root / "templates" / "kings-blade" / "rulebook.html.j2"
    text = template.read_text()
    template.write_text(text.replace("{% block rules %}", "{% block rules %}\n" + markup, 1))


@pytest.mark.parametrize("url,reason", [
    ("https://example.com/logo.png", "remote and non-file URLs are never fetched"),
    ("ftp://example.com/rules.css", "remote and non-file URLs are never fetched"),
    ("file:///etc/hostname", "outside the project"),
    ("../../../../../../../../etc/hostname", "outside the project"),
])
def test_urls_outside_the_project_fail_the_build(seed_copy, seed_copy_faces, tmp_path, url, reason):
    _insert_into_rules(seed_copy, f'<img src="{url}" alt="">')
    with pytest.raises(BuildError) as err:
        _rulebook(seed_copy, "3.1", tmp_path / "out", rendered=seed_copy_faces)
    message = str(err.value)
    assert "rulebook.html.j2" in message and reason in message
    assert url.lstrip("./") in message
    assert "\n" not in message
    assert not (tmp_path / "out" / "rulebook-a4.pdf").exists()


def test_a_card_the_version_lacks_fails_the_build(seed_copy, tmp_path):
    version_file = seed_copy / "versions" / "kings-blade" / "3.1.yml"
    version_file.write_text(version_file.read_text() + "\nremove: [shortsword-hilt]\n")
    with pytest.raises(BuildError) as err:
        _rulebook(seed_copy, "3.1", tmp_path)
    message = str(err.value)
    assert "mentions card 'shortsword-hilt', which version 3.1 does not have" in message
    assert re.search(r"rulebook\.html\.j2:\d+: ", message), message


def test_a_rule_value_the_prose_does_not_explain_fails_the_build(seed_copy, tmp_path):
    game_file = seed_copy / "card_data" / "kings-blade" / "game.yml"
    game_file.write_text(game_file.read_text().replace(
        "      token_required: Place your forge token",
        "      token_shared: All players share one forge token.\n      token_required: Place your forge token"))
    version_file = seed_copy / "versions" / "kings-blade" / "3.1.yml"
    version_file.write_text(version_file.read_text().replace("forge: token_required", "forge: token_shared"))
    with pytest.raises(BuildError) as err:
        _rulebook(seed_copy, "3.1", tmp_path)
    assert "the rulebook has no text for rule 'forge' = 'token_shared'" in str(err.value)


def test_comparing_a_rule_with_an_undeclared_value_fails(seed_copy, seed_copy_faces, tmp_path):
    template = seed_copy / "templates" / "kings-blade" / "rulebook.html.j2"
    template.write_text(template.read_text().replace('rule_is("overflow", "earliest_out")',
                                                     'rule_is("overflow", "earliest_first")'))
    with pytest.raises(BuildError) as err:
        _rulebook(seed_copy, "3.1", tmp_path, rendered=seed_copy_faces)
    assert "compares rule 'overflow' with 'earliest_first', which is not one of its values" in str(err.value)


@pytest.mark.parametrize("markup,expected", [
    ('{{ symbols("metal")("mithril") }}', "mentions metal 'mithril', which version 3.1 does not have"),
    ('{{ rule("hand_size") }}', "mentions rule 'hand_size', which the game does not declare"),
    ('{{ card_type("sheath") }}', "mentions card type 'sheath', which the game does not declare"),
])
def test_unknown_metal_rule_or_type_fails(seed_copy, seed_copy_faces, tmp_path, markup, expected):
    _insert_into_rules(seed_copy, markup)
    with pytest.raises(BuildError) as err:
        _rulebook(seed_copy, "3.1", tmp_path, rendered=seed_copy_faces)
    assert expected in str(err.value)


def test_another_game_reuses_the_common_rulebook(seed_copy, tmp_path):
    """A game gets pages, fonts, contents, card list and notes by extending the base template."""
    game_file = seed_copy / "card_data" / "one-true-king" / "game.yml"
    game_file.write_text(game_file.read_text().replace("rulebook: rulebook.html.j2", "rulebook: rules.html.j2"))
    (seed_copy / "templates" / "one-true-king" / "rules.html.j2").write_text(
        '{% extends "rulebook-base.html.j2" %}\n'
        '{% block rules %}<h2>Set-up</h2><p>Lay out {{ rule("grid")|length }} rows of cards; '
        '{{ rule("spare_cards") }} cards are spare.</p>\n'
        '<h2>Suits</h2><p>{% for s in symbols("suit") %}{{ s.icon() }} {{ s.name }} ×{{ s.count }}. {% endfor %}</p>'
        '{% endblock %}\n')
    project = load_project(seed_copy)
    snapshot = resolve(project, load_game(project, "one-true-king"), None)
    rendered = draw_cards(project, snapshot, checks=False).faces()
    [output] = build_rulebooks(project, snapshot, rendered, {}, BuildOptions(papers=("letter",)), tmp_path,
                               Manifest(tmp_path))
    text = " ".join(_text(output.path))
    assert f"Lay out {len(snapshot.rules['grid'])} rows of cards; {snapshot.rules['spare_cards']} cards are spare" in text
    assert re.search(r"Contents Set-up \.+ 2 Suits \.+ 2 Card list \.+ 3", text)
    assert "A Global Game Jam 2019 submission." in text.split("Contents")[0]  # on the cover


def test_outline_gives_headings_ids_and_lists_them():
    doc = outline('<h2>Set-up</h2><h3 class="x">The mine</h3><h2 class="no-toc">Skip</h2>'
                  '<h2 id="given">Given</h2><h2>Set-up</h2><h4>Too deep</h4>')
    assert [(e.level, e.id, e.text) for e in doc.entries] == [
        (2, "set-up", "Set-up"), (3, "the-mine", "The mine"), (2, "given", "Given"), (2, "set-up-2", "Set-up")]
    assert '<h3 id="the-mine" class="x">The mine</h3>' in doc.html
    assert "<h4>Too deep</h4>" in doc.html
