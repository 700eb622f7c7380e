"""Translation catalogs are never misread and never crash (issue 28).

Every bad catalog is one line naming the .po file and the entry's line, exit 1 or 2, through
`validate`, `build`, `export tts` and `serve`; a catalog that reads is read exactly as written,
and `i18n update` twice gives the same bytes.

The catalogs' promises are the core's: they run on a copy of tests/projects/translated (English
cards with a Dutch cards.po and rulebook.po). The seed games' committed catalogs are checked on
the seed project.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import PROJECTS, copy_project
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cardgen.errors import CardgenError, InputErrors
from cardgen.i18n import pofile
from cardgen.preview.state import Preview

NL = Path("card_data/translated/locale/nl")
NL_CMD = ("--lang", "nl")


@pytest.fixture
def translated(tmp_path: Path) -> Path:
    """A private copy of tests/projects/translated that a test may break."""
    return copy_project(PROJECTS / "translated", tmp_path / "translated")


def _edit(path: Path, old: str, new: str) -> int:
    """Replace `old` (which must be there, once) and return the 1-based line it was on."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
    return text[:text.index(old)].count("\n") + 1


def _line_of(path: Path, text: str) -> int:
    lines = path.read_text(encoding="utf-8").split("\n")
    return next(i for i, line in enumerate(lines, start=1) if line == text)


def _one_error(result, file: Path, line: int) -> str:
    """The output is one error line naming file:line (no traceback, no internal error)."""
    errors = [x for x in (result.out + result.err).splitlines() if "error" in x]
    assert len(errors) == 1, result.out + result.err
    assert "Traceback" not in result.err and "internal error" not in result.err
    assert re.match(rf"error: {re.escape(str(file))}:{line}(:\d+)?: ", errors[0]), errors[0]
    return errors[0]


# --- each bad catalog, through the commands -------------------------------------------------------

HEADER_FORMS = '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"'
HEADER_TYPE = '"Content-Type: text/plain; charset=utf-8\\n"'
WOOD, GATHER = 'msgstr "Vonk"', 'msgstr "Hand: %(size)s kaarten"'
COIN = 'msgstr[0] "Trek {{ amount }} kaart"'
COINS = 'msgstr[1] "Trek {{ amount }} kaarten"'
# name: (line as committed, as broken, which line the error names: the edited one or its entry's msgid)
BROKEN = {
    "plural unbalanced": (HEADER_FORMS, HEADER_FORMS.replace("(n != 1)", "(n != 1"), "edited"),
    "plural n/0": (HEADER_FORMS, HEADER_FORMS.replace("(n != 1)", "n/0"), "edited"),
    "plural n%0": (HEADER_FORMS, HEADER_FORMS.replace("(n != 1)", "n%0"), "edited"),
    "plural out of range": (HEADER_FORMS, HEADER_FORMS.replace("(n != 1)", "n"), "edited"),
    "nplurals not a number": (HEADER_FORMS, HEADER_FORMS.replace("nplurals=2", "nplurals=two"), "edited"),
    "unknown charset": (HEADER_TYPE, HEADER_TYPE.replace("utf-8", "klingon"), "edited"),
    "not a text charset": (HEADER_TYPE, HEADER_TYPE.replace("utf-8", "utf-16"), "edited"),
    "unterminated msgstr": (WOOD, 'msgstr "Vonk', "edited"),
    "unquoted msgstr": (WOOD, "msgstr Vonk", "edited"),
    "unknown escape": (WOOD, 'msgstr "Vo\\qnk"', "edited"),
    "text after the string": (WOOD, 'msgstr "Vo" nk"', "edited"),
    "msgstr[0] in a singular entry": (WOOD, 'msgstr[0] "Vonk"', "edited"),
    "dropped placeholder": (GATHER, GATHER.replace("%(size)s ", ""), "msgid"),
    "renamed placeholder": (GATHER, GATHER.replace("%(size)s", "%(count)s"), "msgid"),
    "broken format": (GATHER, GATHER.replace("%(size)s", "%(size"), "msgid"),
    "dropped sentence variable": (COINS, COINS.replace("{{ amount }} ", ""), "msgid"),
    "broken sentence": (COIN, COIN.replace("{{ amount }}", "{{ amount"), "msgid"),
    "missing plural form": (COINS + "\n", "", "msgid"),
}


def _break(po: Path, case: str) -> int:
    """Break `po` as `case` says; the line its error must name."""
    old, new, names = BROKEN[case]
    line = _edit(po, old, new)
    if names == "edited":
        return line
    lines = po.read_text(encoding="utf-8").split("\n")
    return max(i for i in range(1, line + 1) if lines[i - 1].startswith("msgid "))


def _written(project: Path) -> list[Path]:
    """Files a command wrote under build/ (the shared render cache aside)."""
    built = project / "build"
    return [p for p in built.rglob("*") if p.is_file() and ".cache" not in p.parts] if built.exists() else []


def _args(command: tuple[str, ...]) -> tuple[str, ...]:
    words = 2 if command[0] == "export" else 1
    return (*command[:words], *NL_CMD, *command[words:])


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_cards_catalog_is_one_line_naming_its_entry_in_validate(case, translated, cli):
    po = translated / NL / "cards.po"
    line = _break(po, case)
    result = cli("validate", *NL_CMD, cwd=translated)
    assert result.code == 2
    message = _one_error(result, NL / "cards.po", line)
    if BROKEN[case][2] == "msgid":  # about a translation: which msgid, in which language
        assert "translation into 'nl'" in message and "msgid " in message


def test_a_duplicate_msgid_names_both_lines(translated, cli):
    po = translated / NL / "cards.po"
    first = _line_of(po, 'msgid "Spark"')
    with po.open("a", encoding="utf-8") as f:
        f.write('\nmsgid "Spark"\nmsgstr "Vonkje"\n')
    duplicate = len(po.read_text(encoding="utf-8").split("\n")) - 2
    result = cli("validate", *NL_CMD, cwd=translated)
    assert result.code == 2
    assert f"line {first}" in _one_error(result, NL / "cards.po", duplicate)


def test_a_broken_header_in_cards_po_is_not_hidden_by_rulebook_po(translated, cli):
    """Each catalog answers for its own header: a sound rulebook.po does not cover for cards.po."""
    po = translated / NL / "cards.po"
    line = _edit(po, "plural=(n != 1);", "plural=(n != 1;")
    result = cli("validate", *NL_CMD, cwd=translated)
    assert result.code == 2
    _one_error(result, NL / "cards.po", line)


def test_each_catalog_pluralises_by_its_own_header(translated):
    """A rulebook.po with another rule does not change which msgstr[N] of cards.po is printed."""
    from cardgen.data.project import load_project
    from cardgen.data.versions import load_game
    from cardgen.i18n.catalogs import translator_for

    rulebook = translated / NL / "rulebook.po"
    _edit(rulebook, "nplurals=2; plural=(n != 1);", "nplurals=2; plural=0;")
    game = load_game(load_project(translated), "translated")
    words = translator_for(game, "nl")
    one, other = "Draw {{ amount }} card", "Draw {{ amount }} cards"
    assert words.ngettext(one, other, 2) == "Trek {{ amount }} kaarten"
    assert words.ngettext(one, other, 1) == "Trek {{ amount }} kaart"


@pytest.mark.parametrize("command", [("build", "--paper", "a4", "--no-png"), ("export", "tts")])
@pytest.mark.parametrize("case", ["unterminated msgstr", "plural n/0", "dropped placeholder", "unknown charset"])
def test_build_and_export_stop_on_a_broken_catalog_and_write_nothing(command, case, translated, cli):
    line = _break(translated / NL / "cards.po", case)
    result = cli(*_args(command), cwd=translated)
    assert result.code == 2
    _one_error(result, NL / "cards.po", line)
    assert _written(translated) == []


@pytest.mark.parametrize("case", ["unquoted msgstr", "plural unbalanced", "broken sentence"])
def test_serve_shows_the_one_line_and_keeps_running(case, translated):
    line = _break(translated / NL / "cards.po", case)
    state = Preview(translated, "translated", None, "nl").refresh()
    assert state.error is not None and len(state.error.splitlines()) == 1
    assert re.match(rf"error: .*{re.escape(str(NL / 'cards.po'))}:{line}(:\d+)?: ", state.error), state.error


def test_a_translation_that_drops_the_count_of_a_one_number_form_is_a_warning(translated, cli):
    """msgstr[0] is used for n = 1 alone: 'Take a coin' is a fine translation, said once as a warning."""
    po = translated / NL / "cards.po"
    entry = _edit(po, COIN, COIN.replace("{{ amount }} kaart", "een kaart")) - 2  # msgstr[0] follows msgid, msgid_plural
    result = cli("validate", *NL_CMD, cwd=translated)
    assert result.code == 0, result.out
    warnings = [x for x in result.out.splitlines() if "translation-placeholder" in x]
    assert len(warnings) == 1 and warnings[0].startswith(f"{NL / 'cards.po'}:{entry}: warning: ")
    assert "{{ amount }}" in warnings[0] and "'nl'" in warnings[0]


# --- containment ----------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [("validate",), ("build", "--paper", "a4", "--no-png"), ("export", "tts")])
def test_a_catalog_linked_from_outside_the_project_is_refused(command, translated, tmp_path, cli):
    po = translated / NL / "cards.po"
    outside = tmp_path / "secret.po"
    outside.write_text(po.read_text(encoding="utf-8").replace(WOOD, 'msgstr "SECRET-WORD"'),
                       encoding="utf-8")
    po.unlink()
    po.symlink_to(outside)
    result = cli(*_args(command), cwd=translated)
    assert result.code == 1
    errors = [x for x in (result.out + result.err).splitlines() if x.startswith("error")]
    assert len(errors) == 1 and "leads outside" in errors[0] and "cards.po" in errors[0]
    assert "SECRET-WORD" not in result.out + result.err
    assert _written(translated) == []


def test_a_language_folder_linked_from_outside_is_refused_by_serve(translated, tmp_path):
    folder = translated / NL
    moved = tmp_path / "nl"
    folder.rename(moved)
    folder.symlink_to(moved)
    state = Preview(translated, "translated", None, "nl").refresh()
    assert state.error is not None and "leads outside" in state.error and not state.cards


# --- where a translated text is reported ----------------------------------------------------------


def test_a_translated_name_that_overflows_points_at_its_catalog_entry(translated, cli):
    po = translated / NL / "cards.po"
    entry = _edit(po, WOOD, 'msgstr "Vonk van de buitengewoon grote en prachtige noordelijke bossen"') - 1
    result = cli("validate", *NL_CMD, cwd=translated)
    overflow = [x for x in result.out.splitlines() if "text-overflow" in x and "spark" in x]
    assert len(overflow) == 1
    assert overflow[0].startswith(f"{NL / 'cards.po'}:{entry}: warning: ") and "'nl'" in overflow[0]


# --- round trip ------------------------------------------------------------------------------------


@pytest.mark.parametrize("source,old,new", [
    ("versions/translated/1.yml", "name: Spark,", "name: Sparkle,"),  # a card's name, in a version
    ("card_data/translated/game.yml", "label: Number", "label: Numbers"),  # a card type's label, in game.yml
])
def test_i18n_update_twice_gives_the_same_bytes(source, old, new, translated, cli):
    locale = translated / "card_data/translated/locale"
    # a changed source string: its entry becomes fuzzy with the previous msgid (#|)
    _edit(translated / source, old, new)
    assert cli("i18n", "update", cwd=translated).code == 0
    first = {p: p.read_bytes() for p in sorted(locale.rglob("*.po*"))}
    assert any(b"\n#| msgid " in data for data in first.values())
    assert cli("i18n", "update", cwd=translated).code == 0
    assert {p: p.read_bytes() for p in sorted(locale.rglob("*.po*"))} == first


@pytest.mark.parametrize("game", ["kings-blade", "kings-guild"])
def test_committed_catalogs_read_cleanly_and_update_changes_nothing(game, project_copy, cli):
    """The seed games' own catalogs (a promise about their data: the seed project)."""
    locale = project_copy / "card_data" / game / "locale"
    before = {p: p.read_bytes() for p in sorted(locale.rglob("*.po*"))}
    result = cli("i18n", "update", "--game", game, cwd=project_copy)
    assert result.code == 0, result.out + result.err
    assert {p: p.read_bytes() for p in sorted(locale.rglob("*.po*"))} == before


# --- the reader, over random catalog texts ----------------------------------------------------------

PATH = Path("random.po")
TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
WORDS = st.text(alphabet='ab %()s{}\\"\n\t', max_size=10)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") \
        .replace("\r", "\\r") + '"'


HEADER = ('msgid ""\nmsgstr ""\n"Language: nl\\n"\n"Content-Type: text/plain; charset=utf-8\\n"\n'
          '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n')


@st.composite
def catalogs(draw):
    """A well-formed catalog and what it says: {msgid: translation or (forms)}."""
    ids = draw(st.lists(st.one_of(TEXT, WORDS).filter(bool), unique=True, max_size=6))
    expected, parts = {}, [HEADER]
    for msgid in ids:
        if draw(st.booleans()):
            forms = tuple(draw(st.lists(TEXT, min_size=2, max_size=2)))
            plural = msgid + "s"
            parts.append(f"msgid {_quote(msgid)}\nmsgid_plural {_quote(plural)}\n"
                         f"msgstr[0] {_quote(forms[0])}\nmsgstr[1] {_quote(forms[1])}\n\n")
            expected[msgid] = forms
        else:
            string = draw(TEXT)
            parts.append(f"msgid {_quote(msgid)}\nmsgstr {_quote(string)}\n\n")
            expected[msgid] = string
    return "".join(parts), expected


def _read(text: str | bytes):
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return pofile.read(PATH, "nl", raw)


def _located(exc: CardgenError, lines: int) -> None:
    problems = exc.errors if isinstance(exc, InputErrors) else [exc]
    for problem in problems:
        assert problem.loc is not None and problem.loc.file == PATH, problem
        assert 1 <= problem.loc.line <= lines + 1, problem


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(catalogs())
def test_a_well_formed_catalog_is_read_exactly_as_written(made):
    text, expected = made
    try:
        catalog, _ = _read(text)
    except CardgenError as exc:  # only a placeholder mismatch of the random texts may be refused
        assert "%" in text or "{" in text, exc
        _located(exc, text.count("\n"))
        return
    read = {m.id if isinstance(m.id, str) else m.id[0]:
            (m.string if isinstance(m.string, str) else tuple(m.string)) for m in catalog if m.id}
    assert read == expected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(catalogs(), st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(
    ['"', "\\", "\n", "#", "#~ ", "#| ", "msgid ", "msgstr ", "msgstr[1] ", "msgid_plural ", "msgctxt ", "%(", "{{",
     "nplurals=9;", "plural=n/0;", "charset=foo", "\udcff", "\x00", "", "\r", "\\x", "\u2028"]),
    st.booleans()), max_size=4))
def test_any_catalog_text_is_read_or_refused_with_one_located_error(made, edits):
    text, _ = made
    for position, piece, delete in edits:
        at = position % (len(text) + 1)
        text = text[:at] + text[at + 1:] if delete else text[:at] + piece + text[at:]
    raw = text.encode("utf-8", "surrogateescape")
    try:
        _read(raw)
        event("read")
    except CardgenError as exc:
        event("refused")
        _located(exc, raw.count(b"\n"))


@settings(max_examples=100, deadline=None)
@given(catalogs(), st.integers(0, 1000))
def test_a_string_cut_short_is_never_read_as_a_shorter_one(made, pick):
    """Remove the closing quote of any msgstr line: an error at that line, never a shorter text."""
    text, _ = made
    lines = text.split("\n")
    targets = [i for i, line in enumerate(lines) if line.startswith("msgstr") and line.endswith('"')]
    if not targets:
        return
    index = targets[pick % len(targets)]
    if lines[index].endswith('\\"') and not lines[index].endswith('\\\\"'):
        return
    lines[index] = lines[index][:-1]
    with pytest.raises(CardgenError) as caught:
        _read("\n".join(lines))
    _located(caught.value, len(lines))
    problems = caught.value.errors if isinstance(caught.value, InputErrors) else [caught.value]
    assert problems[0].loc.line == index + 1
