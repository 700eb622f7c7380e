"""Issue 14: languages. PO catalogs per language, `i18n extract|update|status`, `build --lang`,
plural forms by each language's rule, and The King's Blade printed in Dutch."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po
from conftest import PROJECTS, ROOT, copy_project, poppler

from cardgen.data.project import load_project
from cardgen.data.translator import Translator
from cardgen.data.versions import load_game, resolve


def _pdf_text(path: Path) -> str:
    return poppler("pdftotext", "-layout", path, "-")


class Dutch:
    """The King's Blade 3.1 in Dutch and in English: two `cardgen build` runs (exit code, stdout,
    stderr) and the PDFs a user gets, each read from the build that makes it (`pdf`)."""

    def __init__(self, root: Path, runs: dict[str, tuple[int, str, str]], files: dict[tuple[str, str], Path]):
        self.root, self.runs, self.files = root, runs, files  # root: the project copy both ran in

    def pdf(self, lang: str, name: str) -> Path:
        return self.files[(lang, name)]


@pytest.fixture(scope="module")
def dutch(seed_builds, tmp_path_factory) -> Dutch:
    """`cardgen build --version 3.1 --lang nl --paper a4 --no-png` and `... --lang en --paper a4
    --no-png --no-rulebook`, run in-process in one private copy of the project: their exit codes,
    stdout and stderr (the text-fit report, the translation warnings), the Dutch A4 sheets,
    rulebook and notes, and the English A4 sheets, in the build folders a user finds them. The
    rest comes from the session's seed builds (the same data through the same pipeline, read by
    tests/test_rulebook_pages.py and others too): the Dutch Letter rulebook and Letter sheets, the
    English A4 rulebook and notes."""
    import contextlib
    import io

    from cardgen.cli import main

    root = load_project(ROOT).copy_sources(tmp_path_factory.mktemp("nl") / "project").root
    runs = {}
    for lang, extra in (("nl", []), ("en", ["--no-rulebook"])):  # the English rulebook: the seed builds'
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), pytest.MonkeyPatch.context() as patch:
            patch.chdir(root)
            try:
                main(["build", "--version", "3.1", "--lang", lang, "--paper", "a4", "--no-png", *extra])
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        runs[lang] = (code, out.getvalue(), err.getvalue())
    built = root / "build" / "kings-blade" / "3.1"
    files = {("nl", name): built / "nl" / name for name in ("sheets-a4-duplex.pdf", "rulebook-a4.pdf", "notes-a4.pdf")}
    files[("en", "sheets-a4-duplex.pdf")] = built / "sheets-a4-duplex.pdf"
    files[("nl", "rulebook-letter.pdf")] = seed_builds.get("kings-blade", "3.1", "nl").out / "rulebook-letter.pdf"
    files[("nl", "sheets-letter-duplex.pdf")] = (seed_builds.sheets("kings-blade", "3.1", "nl", papers=("letter",)).out
                                                 / "sheets-letter-duplex.pdf")
    english = seed_builds.get("kings-blade", "3.1").out
    files[("en", "rulebook-a4.pdf")], files[("en", "notes-a4.pdf")] = english / "rulebook-a4.pdf", english / "notes-a4.pdf"
    return Dutch(root, runs, files)


def test_dutch_cards_print_translated_sentences_with_plurals(dutch):
    runs = dutch.runs
    code, out, err = runs["nl"]
    assert code == 0, err
    sheets = dutch.pdf("nl", "sheets-a4-duplex.pdf")
    text = _pdf_text(sheets)
    # Arming Sword: {orcish: points 1}, {elvish: points 3} -> singular and plural of one message
    assert "Ridderzwaard" in text and "Smidsbalg" in text
    assert "+1 zwaardpunt" in text and "+3 zwaardpunten" in text
    assert "gieten" in text and "Als je giet" in text
    assert "sword point" not in text and "When you" not in text
    # cardgen's own page text too (cardgen/i18n/locale/nl/sheets.po)
    assert "Afdrukken op 100 % / ware grootte" in text and "vel 1/" in text and "voorkant" in text
    assert "dubbelzijdig afdrukken, omslaan langs de lange zijde" in text
    assert "Print at 100 %" not in text and "sheet 1/" not in text
    # the Dutch build went to its own folder, and the English one to the usual place
    assert sheets == dutch.root / "build" / "kings-blade" / "3.1" / "nl" / "sheets-a4-duplex.pdf" and sheets.is_file()
    assert (dutch.root / "build" / "kings-blade" / "3.1" / "sheets-a4-duplex.pdf").is_file()
    english = _pdf_text(dutch.pdf("en", "sheets-a4-duplex.pdf"))
    assert "+1 sword point" in english and "+3 sword points" in english and "zwaardpunt" not in english
    assert "sheet 1/" in english and "vel 1/" not in english


def test_dutch_build_has_every_string_translated_and_reports_text_fit(dutch):
    runs = dutch.runs
    code, out, err = runs["nl"]
    assert code == 0, err
    assert "no rulebook in" not in err
    assert "not translated" not in err  # both catalogs are complete, the templates' strings too
    assert "text fit (nl):" in out and "text fit (en):" in runs["en"][1]


@pytest.fixture
def translated(tmp_path: Path) -> Path:
    """A private copy of tests/projects/translated (English, with a complete Dutch translation)."""
    return copy_project(PROJECTS / "translated", tmp_path / "translated")


def test_a_language_without_a_rulebook_catalog_builds_its_cards_and_says_why(translated, cli):
    """On tests/projects/translated (a promise of the core: any game's build in a language whose
    rulebook catalog is missing)."""
    (translated / "card_data" / "translated" / "locale" / "nl" / "rulebook.po").unlink()
    result = cli("build", "--lang", "nl", "--paper", "a4", "--no-png", cwd=translated)
    assert result.code == 0, result.err
    assert "no rulebook in 'nl'" in result.err and "nl/rulebook.po" in result.err
    out = translated / "build" / "translated" / "1" / "nl"
    assert (out / "sheets-a4-duplex.pdf").is_file() and not (out / "rulebook-a4.pdf").exists()


def test_a_rulebook_string_the_catalog_lacks_is_said_once_and_printed_in_english(translated, cli):
    """The rulebook's templates are translated apart from the cards: a sentence the Dutch catalog
    lacks prints in English, and the build says which (the card stage reports only the cards').
    On tests/projects/translated, whose Dutch catalogs hold every other message (a promise of
    the core: any game's rulebook template)."""
    template = translated / "templates" / "translated" / "rulebook.html.j2"
    text = template.read_text(encoding="utf-8")
    anchor = "<h2>Overview</h2>"
    assert anchor in text
    template.write_text(text.replace(anchor, "<p>{% trans %}A sentence no catalog has yet{% endtrans %}</p>\n"
                                     + anchor, 1), encoding="utf-8")
    result = cli("build", "--lang", "nl", "--paper", "a4", "--no-png", cwd=translated)
    assert result.code == 0, result.err
    said = [ln for ln in result.err.splitlines() if "not translated into 'nl'" in ln]
    assert said == ["warning: 1 rulebook template string not translated into 'nl', printed in the source "
                    "language: 'A sentence no catalog has yet' (see `cardgen i18n status`)"], result.err
    pdf = translated / "build" / "translated" / "1" / "nl" / "rulebook-a4.pdf"
    assert "A sentence no catalog has yet" in poppler("pdftotext", pdf, "-")


def _fit_count(out: str) -> int:
    line = next(ln for ln in out.splitlines() if ln.startswith("text fit"))
    return int(line.split(": ")[1].split(" of ")[0])


def test_dutch_text_runs_longer_than_english(dutch):
    """The report counts faces whose text shrank, per language: the longer Dutch sentences shrink
    at least as many (the Dutch backs' and long names once shrank too; their boxes now take two
    lines, and the point figures print at their size, so both count three long names)."""
    runs = dutch.runs
    assert _fit_count(runs["nl"][1]) >= _fit_count(runs["en"][1]) > 0
    assert "text fit (nl):" in runs["nl"][1] and "text fit (en):" in runs["en"][1]


def test_i18n_status_of_the_kings_blade_is_complete(cli):
    result = cli("i18n", "status", "--game", "kings-blade")
    assert result.code == 0, result.out + result.err
    assert "nl: 100% complete" in result.out
    assert "cards: 62/62 translated, 0 untranslated, 0 outdated" in result.out
    assert "rulebook: 249/249 translated, 0 untranslated, 0 outdated" in result.out  # + 6 open questions; the set-up figure says the rest


def test_committed_catalog_templates_are_current(project_copy, cli):
    """`i18n extract` on the committed data rewrites the committed .pot files byte for byte."""
    before = {p.name: p.read_bytes() for p in (project_copy / "card_data" / "kings-blade" / "locale").glob("*.pot")}
    assert set(before) == {"cards.pot", "rulebook.pot"}
    result = cli("i18n", "extract", "--game", "kings-blade", cwd=project_copy)
    assert result.code == 0, result.err
    after = {p.name: p.read_bytes() for p in (project_copy / "card_data" / "kings-blade" / "locale").glob("*.pot")}
    assert after == before


def test_changed_source_string_becomes_untranslated_then_outdated(project_copy, cli):
    game_yml = project_copy / "card_data" / "kings-blade" / "game.yml"
    text = game_yml.read_text(encoding="utf-8")
    assert "name: The Mine" in text
    game_yml.write_text(text.replace("name: The Mine", "name: The Deep Mine"), encoding="utf-8")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "name: The Mine" in ln)

    status = cli("i18n", "status", "--game", "kings-blade", cwd=project_copy)
    assert status.code == 1
    assert "nl: 99% INCOMPLETE" in status.out  # 312 of 313 messages
    assert f"card_data/kings-blade/game.yml:{line}: untranslated: 'The Deep Mine'" in status.out

    update = cli("i18n", "update", "--game", "kings-blade", cwd=project_copy)
    assert update.code == 0, update.err
    po = project_copy / "card_data" / "kings-blade" / "locale" / "nl" / "cards.po"
    catalog = read_po(po.open("rb"))
    message = catalog.get("The Deep Mine")
    assert message.fuzzy and message.string == "De Mijn"
    assert '#, fuzzy\n#| msgid "The Mine"\nmsgid "The Deep Mine"\nmsgstr "De Mijn"' in po.read_text(encoding="utf-8")

    status = cli("i18n", "status", "--game", "kings-blade", cwd=project_copy)
    assert status.code == 1
    assert f"card_data/kings-blade/game.yml:{line}: outdated: 'The Deep Mine'" in status.out

    validate = cli("validate", "--version", "3.1", "--lang", "nl", cwd=project_copy)
    assert validate.code == 0  # a warning: the card prints, in English
    col = text.splitlines()[line - 1].index("The Mine") + 1
    assert (f"card_data/kings-blade/game.yml:{line}:{col}: warning: not translated into 'nl', printed in 'en': "
            "'The Deep Mine' (untranslated)") in validate.out
    strict = cli("validate", "--version", "3.1", "--lang", "nl", "--strict", cwd=project_copy)
    assert strict.code == 1

    build = cli("build", "--version", "3.1", "--lang", "nl", "--paper", "a4", "--no-png", cwd=project_copy)
    assert build.code == 0, build.err
    assert f"game.yml:{line}:{col}: warning: not translated into 'nl'" in build.err and "'The Deep Mine'" in build.err
    assert "template string" not in build.err


def test_unknown_and_missing_languages_are_one_line(cli):
    unknown = cli("build", "--version", "3.1", "--lang", "xx-nonsense")
    assert unknown.code == 2 and unknown.err.strip().count("\n") == 0
    assert "unknown language 'xx-nonsense'" in unknown.err
    missing = cli("build", "--version", "3.1", "--lang", "de")
    assert missing.code == 2 and missing.err.strip().count("\n") == 0
    assert "no translation into 'de' (expected one of: en, nl)" in missing.err


def test_plural_forms_follow_the_target_language():
    """Polish has three plural forms; the catalog's Plural-Forms chooses, not English's n != 1."""
    catalog = Catalog(locale="pl")
    catalog.add(("{{ n }} metal", "{{ n }} metals"), string=("{{ n }} metal", "{{ n }} metale", "{{ n }} metali"))
    tr = Translator("pl", "en", [catalog])
    assert [tr.ngettext("{{ n }} metal", "{{ n }} metals", n) for n in (1, 2, 5, 22, 25)] == [
        "{{ n }} metal", "{{ n }} metale", "{{ n }} metali", "{{ n }} metale", "{{ n }} metali"]
    assert tr.missing == {}
    assert tr.gettext("Forge") == "Forge" and list(tr.missing) == ["Forge"]


def test_source_language_plural_uses_its_own_rule():
    """French counts 0 as singular; English does not."""
    fr, en = Translator("fr", "fr"), Translator("en", "en")
    assert fr.ngettext("point", "points", 0) == "point"
    assert en.ngettext("point", "points", 0) == "points"
    assert en.ngettext("point", "points", 1) == "point"


def test_show_in_dutch_translates_effects(cli):
    result = cli("show", "--version", "3.1", "--lang", "nl")
    assert result.code == 0, result.err
    assert "[Orkenstaal] +1 zwaardpunt" in result.out
    assert "[Elfenstaal] +3 zwaardpunten" in result.out


def test_cardgens_own_page_text_catalogs_are_current_and_complete(cli, tmp_path, monkeypatch):
    """`cardgen i18n own` re-extracts cardgen's own words (the sheets' and the common rulebook
    templates'): the committed files come back byte for byte (in a copy of them), and Dutch and
    Italian translate every message."""
    import shutil

    from cardgen.i18n import own

    committed = own.LOCALE_DIR
    assert own.languages() == ["it", "nl"]
    monkeypatch.setattr(own, "LOCALE_DIR", tmp_path / "locale")
    shutil.copytree(committed, own.LOCALE_DIR)
    before = {p.relative_to(tmp_path): p.read_bytes() for p in own.LOCALE_DIR.rglob("*.po*")}
    assert len(before) == 6  # sheets and rulebook: one .pot each, a .po each in nl and it
    result = cli("i18n", "own", cwd=tmp_path)  # cardgen's own catalogs: no project needed
    assert result.code == 0, result.out + result.err
    assert {p.relative_to(tmp_path): p.read_bytes() for p in own.LOCALE_DIR.rglob("*.po*")} == before
    monkeypatch.setattr(own, "LOCALE_DIR", committed)
    assert "sheets.pot: 19 messages" in result.out and result.out.count("19/19 translated") == 2
    assert "rulebook.pot: 61 messages" in result.out and result.out.count("61/61 translated") == 2
    assert own.page_text("nl")("sheet {n}/{total}, {side}").format(n=2, total=13, side="achterkant") == \
        "vel 2/13, achterkant"
    assert own.page_text("de")("print one-sided") == "print one-sided"  # no catalog: cardgen's English


def test_dutch_catalog_has_plural_forms_header():
    project = load_project(ROOT)
    game = load_game(project, "kings-blade")
    po = game.dir / "locale" / "nl" / "cards.po"
    catalog = read_po(po.open("rb"))
    assert catalog.num_plurals == 2
    plural = [m for m in catalog if isinstance(m.id, tuple)]
    assert len(plural) == 5 and all(len(m.string) == 2 and all(m.string) for m in plural)


# --- The King's Blade's rulebook in Dutch -------------------------------------------------------

def _rulebook_text(dutch: Dutch, lang: str, page: int | None = None) -> str:
    """The A4 rulebook's text in reading order, whitespace collapsed (one page, or all)."""
    pages = ["-f", str(page), "-l", str(page)] if page else []
    return " ".join(poppler("pdftotext", *pages, dutch.pdf(lang, "rulebook-a4.pdf"), "-").split())


def _pages(dutch: Dutch, lang: str) -> list[str]:
    info = poppler("pdfinfo", dutch.pdf(lang, "rulebook-a4.pdf"))
    count = int(re.search(r"^Pages:\s+(\d+)$", info, re.M).group(1))
    return [_rulebook_text(dutch, lang, n) for n in range(1, count + 1)]


# Sentences of the English rulebook (template words, cardgen's words, data) and their Dutch; each
# English one must be gone from the Dutch rulebook, and still be in the English one.
PHRASES = [
    ("Contents", "Inhoud"),
    ("Card list", "Kaartenoverzicht"),
    ("2–4 players", "2–4 spelers"),
    ("by Robbert Sloof", "door Robbert Sloof"),
    ("Rules for Version 3.1", "Spelregels voor Versie 3.1"),
    ("The King's Blade · Version 3.1", "Het Zwaard van de Koning · Versie 3.1"),
    ("The King has organised a festival for blacksmiths", "De koning heeft een feest georganiseerd voor smeden"),
    ("Shuffle the 60 metal cards and place them face down on the table: this is the mine.",
     "Schud de 60 metaalkaarten en leg ze gedekt op tafel: dit is de mijn."),
    ("The youngest player begins, and turns go clockwise.", "De jongste speler begint; daarna gaat de beurt met de klok mee."),
    ("Take a card from the market.", "Neem een kaart van de markt."),
    ("Pour 1 metal into a card.", "Giet 1 metaal in een kaart."),
    ("Draw metal from the mine until your hand is full.", "Trek metaal uit de mijn tot je hand vol is."),
    ("Discarded metal goes face down under the mine", "Afgelegd metaal gaat gedekt onder de mijn"),
    ("The player with the most sword points wins.", "De speler met de meeste zwaardpunten wint."),
    ("Player 1", "Speler 1"),  # the set-up figure's words: cardgen's own catalog
    ("The set-up for 4 players.", "De opzet voor 4 spelers."),
    ("Blade cards (6)", "Klingkaarten (6)"),
    ("Sword points: 3; Metals needed: 4", "Zwaardpunten: 3; Benodigde metalen: 4"),
    ("[Orcish Steel] +1 sword point", "[Orkenstaal] +1 zwaardpunt"),
]


def test_dutch_rulebook_is_built_for_both_papers(dutch):
    # A4: the fixture's `cardgen build --lang nl` run; Letter: the seed builds' Dutch documents
    for paper, pages in (("a4", 8), ("letter", 8)):  # Letter lost its near-empty 9th page (card-list thumbnails)
        info = poppler("pdfinfo", dutch.pdf("nl", f"rulebook-{paper}.pdf"))
        assert re.search(rf"^Pages:\s+{pages}$", info, re.M), info
        text = " ".join(_pdf_text(dutch.pdf("nl", f"rulebook-{paper}.pdf")).split())
        assert "Voorbereiding" in text and "Spelverloop" in text and "Set-up" not in text


def _pdf_words(path: Path) -> list[tuple[float, float, list[tuple[float, float, float, float, str]]]]:
    """Every page's size and words with their boxes (x0, y0, x1, y1 in points, y down), as pdftotext reads them."""
    html = poppler("pdftotext", "-bbox", path, "-")
    word = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>')
    pages = []
    for page in html.split("<page ")[1:]:
        size = re.match(r'width="([\d.]+)" height="([\d.]+)"', page)
        assert size
        pages.append((float(size.group(1)), float(size.group(2)),
                      [(*map(float, m.groups()[:4]), m.group(5)) for m in word.finditer(page)]))
    return pages


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_dutch_sheets_print_their_instructions_across_the_page(dutch, paper):
    """Issue 22 item 5: the Dutch footer ("vel 1/10, voorkant · A4 · dubbelzijdig afdrukken...") and
    the print-at-100 % notice are longer than the English; they once ran up the left margin of
    every front. Every word of every sheet reads across the page, and each page's footer stands
    in the band below or above the cards."""
    pages = _pdf_words(dutch.pdf("nl", f"sheets-{paper}-duplex.pdf"))
    assert len(pages) >= 20
    for n, (_, height, words) in enumerate(pages, 1):
        upright = [w[4] for w in words if len(w[4]) > 3 and (w[3] - w[1]) > 1.5 * (w[2] - w[0])]
        assert upright == [], (n, upright)
        side = "voorkant" if n % 2 else "achterkant"
        footer = [w for w in words if w[4] == "vel"]
        assert len(footer) == 1 and side in [w[4] for w in words], n
        # across the page, in the band within 15 mm (42 pt) of its foot or head
        assert footer[0][1] > height - 42 or footer[0][3] < 42, (n, footer)
    first = " ".join(w[4] for w in pages[0][2])
    assert "Afdrukken op 100 %" in first and "50 mm" in first


def test_dutch_rulebook_section_titles_and_contents(dutch):
    pages = _pages(dutch, "nl")
    titles = ["Inleiding", "Doel van het spel", "Spelmateriaal", "Voorbereiding", "Kaartuitleg", "Symbolen", "Metalen",
              "Overlopen", "Spelverloop", "1. Smidsefase", "2. Actiefase", "Einde van het spel", "Voorbeelden",
              "Kaartenoverzicht"]
    contents = pages[1]
    assert contents.startswith("Inhoud ")
    for title in titles:
        # the contents give each title with the page its heading is on (the first page after
        # the contents that starts a line with it)
        listed = re.search(re.escape(title) + r" ?(?:\. ?)+(\d+)", contents)  # its leader spaced dots
        assert listed, title
        page = int(listed.group(1))
        assert title in pages[page - 1], (title, page)
    # the rules' own text, and not the English's
    assert "Het Zwaard van de Koning" in pages[0] and "Smeed het legendarische zwaard." in pages[0]


def test_dutch_rulebook_prints_the_datas_numbers_in_dutch_sentences(dutch):
    project = load_project(dutch.root)
    snapshot = resolve(project, load_game(project, "kings-blade"), "3.1")
    text = _rulebook_text(dutch, "nl")
    hand, face_up, start = (snapshot.rules[k] for k in ("hand_limit", "market_face_up", "starting_hand"))
    assert f"Je mag maximaal {hand} metalen in je voorraad hebben." in text
    assert f"Met een volle hand ({hand} metalen) valt er niets te nemen." in text
    assert f"Trek {face_up} kaarten van de stapel en leg ze open ernaast" in text
    assert f"Geef ook elke speler {start} metaalkaarten uit de mijn in de hand" in text
    metals = {sid: snapshot.symbol_count(sid) for sid, s in snapshot.symbols.items() if s.kind == "metal" and not s.any}
    total = sum(metals.values())
    steel, elvish = (Fraction(metals[m], total) for m in ("steel", "elvish"))
    assert (f"Van de {total} metaalkaarten komt Staal het meest voor: een kans van {steel.numerator} op "
            f"{steel.denominator} om het te trekken.") in text
    assert f"Elfenstaal is het zeldzaamst: een kans van {elvish.numerator} op {elvish.denominator}." in text


def test_dutch_card_nouns_are_the_translators_whole_words(dutch):
    """A card type's `plural` (game.yml) is its own message: Dutch joins it into one word, with the
    linking s after -ing ('verbeteringskaarten'), which gluing the label onto 'kaarten' could not."""
    project = load_project(dutch.root)
    snapshot = resolve(project, load_game(project, "kings-blade"), "3.1")
    counts = {t: sum(c.count for c in snapshot.cards_of_type(t)) for t in ("blade", "hilt", "upgrade", "metal",
                                                                             "forge-token")}
    nl, en = _rulebook_text(dutch, "nl"), _rulebook_text(dutch, "en")
    for word, type_id in (("Klingkaarten", "blade"), ("Gevestkaarten", "hilt"), ("Verbeteringskaarten", "upgrade"),
                          ("Metaalkaarten", "metal"), ("Smidsfiches", "forge-token")):
        assert f"{word} ({counts[type_id]})" in nl  # the card list's heading
        assert f"{counts[type_id]} {word.lower()}" in nl  # the components
    assert "verbeteringkaart" not in nl.lower()
    assert f"Forge tokens ({counts['forge-token']})" in en and f"{counts['upgrade']} upgrade cards" in en


@pytest.mark.parametrize("english, dutch_text", PHRASES)
def test_dutch_rulebook_has_no_english_left_and_english_is_unchanged(dutch, english, dutch_text):
    assert dutch.runs["en"][0] == 0, dutch.runs["en"][2]
    nl, en = _rulebook_text(dutch, "nl"), _rulebook_text(dutch, "en")
    assert dutch_text in nl and english not in nl
    assert english in en and dutch_text not in en


def test_a_games_own_translation_of_cardgens_words_comes_first():
    from cardgen.i18n.own import RulebookWords

    catalog = Catalog(locale="nl")
    catalog.add("Contents", "Inhoudsopgave")
    words = RulebookWords(Translator("nl", "en", [catalog]))
    assert words.gettext("Contents") == "Inhoudsopgave"  # the game's
    assert words.gettext("Card list") == "Kaartenoverzicht"  # cardgen's nl catalog
    assert words.ngettext("%(num)s card", "%(num)s cards", 2) == "%(num)s kaarten"
    assert words.gettext("Overview") == "Overview" and "Overview" in words.game.missing  # the game's, missing
    assert "Card list" not in words.game.missing
    german = RulebookWords(Translator("de", "en", [Catalog(locale="de")]))
    assert german.gettext("Card list") == "Card list"  # no cardgen catalog in German: English


NOTES_HEADINGS = [  # (English, Dutch): cardgen's own words in templates/common/notes.html.j2
    ("At a glance", "In één oogopslag"),
    ("Change log", "Wijzigingen"),
    ("What the data changes since Version 3", "Wat de gegevens veranderen sinds Versie 3"),
    ("Authoring choices", "Gemaakte keuzes"),
    ("Open questions", "Open vragen"),
    ("Check results", "Resultaten van de controles"),
    ("Earlier versions", "Eerdere versies"),
    ("Components", "Spelmateriaal"),
]


def test_dutch_designers_notes_speak_dutch(dutch):
    """The notes' own words come from cardgen's rulebook catalog; the old version's title is localised too."""
    nl = " ".join(_pdf_text(dutch.pdf("nl", "notes-a4.pdf")).split())
    en = " ".join(_pdf_text(dutch.pdf("en", "notes-a4.pdf")).split())
    for english, dutch_words in NOTES_HEADINGS:
        assert dutch_words in nl and english not in nl, english
        assert english in en and dutch_words not in en, english
    assert re.search(r"Klingen \d+ kaarten", nl) and re.search(r"Blades \d+ cards", en)  # ngettext, not noun + "s"
    titles = [poppler("pdfinfo", dutch.pdf(lang, "notes-a4.pdf")) for lang in ("nl", "en")]
    assert "Title:           Het Zwaard van de Koning: notities van de ontwerper, Versie 3.1" in titles[0]
    assert "Title:           The King's Blade: designer's notes, Version 3.1" in titles[1]


def test_dutch_designers_notes_ask_the_open_questions_in_dutch(dutch):
    """Issue 22: the questions the design leaves open (each rule's `open_question`, game.yml) are
    printed in the designer's notes; the Dutch notes once asked them in English."""
    root = dutch.root
    project = load_project(root)
    game = load_game(project, "kings-blade")
    questions = {key: spec.open_question for key, spec in game.rule_specs.items() if spec.open_question}
    assert len(questions) >= 6
    nl = " ".join(_pdf_text(dutch.pdf("nl", "notes-a4.pdf")).split())
    en = " ".join(_pdf_text(dutch.pdf("en", "notes-a4.pdf")).split())
    catalog = read_po((root / "card_data" / "kings-blade" / "locale" / "nl" / "rulebook.po").open("rb"))
    for key, question in questions.items():
        assert question in en, key
        assert question not in nl, key
        dutch_question = catalog[question].string
        assert dutch_question and dutch_question in nl, (key, dutch_question)


def test_language_names_are_babels_in_the_language_printed():
    from cardgen.rulebook.helpers import language_name

    assert [language_name(c) for c in ("nl", "en", "it")] == ["Dutch", "English", "Italian"]
    assert language_name("nl", "nl") == "Nederlands" and language_name("en", "nl") == "Engels"
    assert language_name("nl", "it") == "olandese" and language_name("xx") == "xx"
