"""Issue 28: never lose a user's file; no internal error for offsets, Ghostscript or Ctrl-C.

Every command that writes goes through the outputs manifest: a file cardgen never wrote is never
deleted or replaced, and an output the user edited since cardgen wrote it is kept and said
("kept X: edited since cardgen wrote it; --force replaces it") until --force. A bad duplex
offset (command line or cardgen.yml), a Ghostscript that fails or leaves a broken file, and
Ctrl-C while the workers start are one line each, and leave the user's files byte-identical.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from test_safety import one_line

from cardgen import atomic
from cardgen.files import LOCK, MANIFEST
from cardgen.outputs import open_output

GAME = ("--game", "dragon-race")  # `cardgen new`'s small game: 9 cards, one deck ("main")


@pytest.fixture
def small(cli, mini) -> Path:
    """The fixture project tests/projects/mini with `cardgen new`'s game added to it."""
    assert cli("new", "dragon-race", cwd=mini).code == 0
    return mini


def files_in(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# --- 1. a file the user edited since cardgen wrote it --------------------------------------------

EDITED = [  # (command, the output edited, relative to --out)
    (("build", "--paper", "a4", "--no-rulebook"), "svg/card-ember.svg"),
    (("build", "--paper", "a4", "--no-rulebook"), "png/card-ember.png"),
    (("build", "--paper", "a4", "--no-rulebook"), "sheets-a4-duplex.pdf"),
    (("export", "print"), "main.pdf"),
    (("export", "png", "--preset", "tgc"), "main/002-ember-x3.png"),
    (("export", "tts"), "dragon-race-1-main-faces-1.png"),
    (("export", "tts"), "dragon-race-1-main.json"),
    (("calibrate", "--paper", "a4"), "calibration-a4.pdf"),
]


@pytest.mark.parametrize("command, name", EDITED)
def test_an_edited_output_is_kept_and_said_until_force(cli, small, command, name):
    out = Path("build") / "mine"  # shown relative to the working folder, as the user typed it
    args = (*command, *([] if command[0] == "calibrate" else GAME), "--out", str(out))
    assert cli(*args, cwd=small).code == 0
    target = small / out / name
    made = target.read_bytes()
    target.write_bytes(b"the user's own edit")
    others = {k: v for k, v in files_in(small / out).items() if k != name}

    for _ in range(2):  # an unchanged rerun (a no-op rebuild replays its report) says it again
        again = cli(*args, cwd=small)
        assert again.code == 0, again.err
        assert f"warning: kept {out / name}: edited since cardgen wrote it; --force replaces it" in \
            again.err.splitlines(), again.err
        assert target.read_bytes() == b"the user's own edit"
        assert {k: v for k, v in files_in(small / out).items() if k != name} == others

    forced = cli(*args, "--force", cwd=small)
    assert forced.code == 0, forced.err
    assert f"warning: replaced {out / name}: edited since cardgen wrote it (--force)" in \
        forced.err.splitlines(), forced.err
    assert target.read_bytes() == made
    quiet = cli(*args, cwd=small)
    assert quiet.code == 0 and "kept" not in quiet.err and "replaced" not in quiet.err


@pytest.mark.parametrize("command, name", [
    (("build", "--paper", "a4", "--no-rulebook"), "svg/card-ember.svg"),
    (("build", "--paper", "a4", "--no-rulebook"), "sheets-a4-duplex.pdf"),
    (("export", "print"), "main.pdf"),
    (("export", "png", "--preset", "tgc"), "main/back-main.png"),
    (("calibrate", "--paper", "a4"), "calibration-a4.pdf"),
])
def test_a_file_cardgen_never_wrote_is_never_replaced_even_with_force(cli, small, tmp_path, command, name):
    out = tmp_path / "out"
    (out / name).parent.mkdir(parents=True)
    (out / name).write_bytes(b"the user's own file")
    args = (*command, *([] if command[0] == "calibrate" else GAME), "--out", str(out))
    for extra in ((), ("--force",)):
        text = one_line(cli(*args, *extra, cwd=small), 1)
        assert f"{name} exists and was not written by cardgen; refusing to replace it" in text, text
        assert (out / name).read_bytes() == b"the user's own file"
        assert not list(out.rglob("*.tmp"))  # what was written before the refusal is whole, and cardgen's


def test_editing_a_built_png_in_place_leaves_the_render_cache_alone(cli, small):
    """The build's PNGs are copies: an in-place edit (same inode) must not reach the cache that
    every later build and export of the card reuses."""
    args = ("build", *GAME, "--paper", "a4", "--no-rulebook")
    assert cli(*args, "--out", "build/a", cwd=small).code == 0
    png = small / "build/a/png/card-ember.png"
    made = png.read_bytes()
    with open(png, "r+b") as f:  # as an editor saving in place does
        f.write(b"edited in place")
    assert cli(*args, "--out", "build/b", cwd=small).code == 0
    assert (small / "build/b/png/card-ember.png").read_bytes() == made


def test_export_print_deletes_only_deck_files_it_wrote(cli, small):
    """Lower-case PDFs of the user's in the print folder (an invoice, the shop's proof) stay; a
    deck file an earlier export wrote is removed, unless the user edited it since."""
    folder = small / "build" / "dragon-race" / "1" / "print" / "generic"
    folder.mkdir(parents=True)
    mine = {"invoice.pdf": b"%PDF invoice", "tax-2024.pdf": b"%PDF tax", "proof.pdf": b"%PDF the shop's proof"}
    for name, data in mine.items():
        (folder / name).write_bytes(data)
    with open_output(None, folder, "an earlier export"):  # decks an earlier version had
        atomic.write_bytes(folder / "retired.pdf", b"%PDF a deck no longer made")
        atomic.write_bytes(folder / "reworked.pdf", b"%PDF another one")
    (folder / "reworked.pdf").write_bytes(b"%PDF the user's rework")
    for _ in range(2):
        result = cli("export", "print", *GAME, cwd=small)
        assert result.code == 0, result.err
        assert "warning: kept build/dragon-race/1/print/generic/reworked.pdf: edited since cardgen wrote it, " \
               "and no longer made by this command" in result.err.splitlines(), result.err
        assert sorted(p.name for p in folder.glob("*.pdf")) == sorted([*mine, "main.pdf", "reworked.pdf"])
        assert all((folder / name).read_bytes() == data for name, data in mine.items())
        assert (folder / "reworked.pdf").read_bytes() == b"%PDF the user's rework"
    assert sorted(json.loads((folder / MANIFEST).read_text())["files"]) == ["main.pdf", "reworked.pdf"]


def test_table_export_keeps_an_edited_table_and_says_what_force_replaced(cli, mini):
    project_copy = mini
    args = ("table", "export", "--version", "2", "--to", "cards.csv")
    assert cli(*args, cwd=project_copy).code == 0
    table = project_copy / "cards.csv"
    made = table.read_bytes()
    assert cli(*args, cwd=project_copy).code == 0  # its own, unchanged: replaced without a word
    table.write_bytes(b"id,name\nmy-card,My own card\n")
    text = one_line(cli(*args, cwd=project_copy), 2)
    assert text == "error: cards.csv exists and was not written by cardgen; pass --force to replace it", text
    assert table.read_bytes() == b"id,name\nmy-card,My own card\n"
    forced = cli(*args, "--force", cwd=project_copy)
    assert forced.code == 0, forced.err
    assert "warning: replaced cards.csv (--force)" in forced.err.splitlines(), forced.err
    assert table.read_bytes() == made


# --- 2. duplex offsets that are no numbers -------------------------------------------------------


@pytest.mark.parametrize("value", ["nan,0", "0,inf", "-inf,1", "1,NaN", "nan,nan"])
@pytest.mark.parametrize("command", [("build", *GAME), ("calibrate", "--paper", "a4", "--with-offset")])
def test_a_duplex_offset_that_is_no_number_is_a_usage_error(cli, small, tmp_path, command, value):
    result = cli(*command, "--duplex-offset", value, "--out", str(tmp_path / "out"), cwd=small)
    assert result.code == 2, result.err
    assert "Traceback" not in result.err and "internal error" not in result.err
    assert f"Invalid value for '--duplex-offset': expected two numbers in mm as X,Y (e.g. 0.5,-1), got '{value}'" \
        in result.err
    assert not (tmp_path / "out").exists()


YML_OFFSETS = [  # (value in cardgen.yml, [(the item named, the text where it starts, the error's words)])
    ("[.nan, 0]", [("[0]", ".nan", "expected a finite number, found a number nan")]),
    ("[0, .inf]", [("[1]", ".inf", "expected a finite number, found a number inf")]),
    ("[-.inf, 1]", [("[0]", "-.inf", "expected a finite number, found a number -inf")]),
    ("[true, false]", [("[0]", "true", "expected a valid number, found a boolean True"),  # not a 1,0 mm shift
                       ("[1]", "false", "expected a valid number, found a boolean False")]),
    ("[0.5, false]", [("[1]", "false", "expected a valid number, found a boolean False")]),
    ('["1.5", 0]', [("[0]", '"1.5"', "expected a valid number, found a string '1.5'")]),
    ("[1, 2, 3]", [("", "[1, 2, 3]", "expected two numbers [x, y] in mm (this list has 3), found a list")]),
    ("[1]", [("", "[1]", "expected two numbers [x, y] in mm (this list has 1), found a list")]),
    ("5", [("", "5", "expected a list, found an integer 5")]),
    ("[11, 0]", [("", "[11, 0]", "each offset must lie within +-10 mm, found a list")]),
]


@pytest.mark.parametrize("value, problems", YML_OFFSETS)
@pytest.mark.parametrize("command", [("build", *GAME), ("calibrate", "--paper", "a4", "--with-offset"),
                                     ("export", "print", *GAME)])
def test_a_bad_duplex_offset_in_cardgen_yml_names_its_line_and_column(cli, small, tmp_path, command, value, problems):
    """One line per problem (every problem, as `validate` reports them), each naming cardgen.yml's
    line and column and what was expected; nothing written."""
    config = small / "cardgen.yml"
    line = f"  duplex_offset_mm: {value}"
    config.write_text(config.read_text() + f"printer:\n{line}\n")
    number = len(config.read_text().splitlines())
    before = config.read_bytes()
    result = cli(*command, "--out", str(tmp_path / "out"), cwd=small)
    text = one_line(result, 2)
    assert text.splitlines() == [
        f"error: cardgen.yml:{number}:{line.index(at, len('  duplex_offset_mm: ')) + 1}: "
        f"printer.duplex_offset_mm{item}: {words}" for item, at, words in problems], text
    assert config.read_bytes() == before and not (tmp_path / "out").exists()


def test_a_wrong_type_elsewhere_in_cardgen_yml_says_what_was_expected(cli, small, tmp_path):
    config = small / "cardgen.yml"
    original = config.read_text()
    for extra, words in (("printer: 5\n", "printer: expected a mapping (key: value), found an integer 5"),
                         ("limits: {printed_cards: true}\n", "limits.printed_cards: expected a valid integer, "
                                                                "found a boolean True")):
        config.write_text(original + extra)
        number = len(config.read_text().splitlines())
        text = one_line(cli("build", *GAME, "--out", str(tmp_path / "out"), cwd=small), 2)
        assert text.startswith(f"error: cardgen.yml:{number}:") and text.endswith(words), text
    assert not (tmp_path / "out").exists()


# --- 3. a Ghostscript that fails, or leaves a broken file ---------------------------------------

FAKE_GS = {  # the shell script put first on PATH as `gs`; what the one line then says. cardgen
    # draws and separates the CMYK pages itself: Ghostscript only tells where its CMYK profile is
    "fails at once": ("echo 'GPL Ghostscript: unrecoverable error' >&2\nexit 1\n",
                      "failed to start (exit 1): GPL Ghostscript: unrecoverable error"),
    "lists no profile": ("echo 'Search path:'\necho '   /nowhere/lib'\nexit 0\n",
                         "Ghostscript's default_cmyk.icc was not found"),
    "a damaged profile": ("echo 'Search path:'\necho '   {dir}/lib'\nexit 0\n",
                          "Ghostscript's CMYK profile is not a readable ICC profile"),
}


@pytest.mark.parametrize("how", list(FAKE_GS))
def test_a_failing_ghostscript_is_one_line_and_writes_nothing(cli, small, tmp_path, monkeypatch, how):
    script, words = FAKE_GS[how]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gs").write_text("#!/bin/sh\n" + script.replace("{dir}", str(tmp_path / "gs")))
    (tmp_path / "gs" / "iccprofiles").mkdir(parents=True)
    (tmp_path / "gs" / "iccprofiles" / "default_cmyk.icc").write_bytes(b"not a profile" * 10)
    (bin_dir / "gs").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    out = small / "build" / "dtc"
    assert cli("export", "print", *GAME, "--service", "drivethrucards", "--out", str(out), cwd=small).code == 0
    (out / "invoice.pdf").write_bytes(b"%PDF the user's invoice")
    before = files_in(out)  # the RGB deck of an earlier export, the user's invoice, the manifest
    result = cli("export", "print", *GAME, "--service", "drivethrucards", "--cmyk", "--out", str(out), cwd=small)
    text = one_line(result, 1)
    assert len(text.splitlines()) == 1 and words in text, text
    assert files_in(out) == before  # nothing half-written, nothing replaced, no lock left behind


# --- 4. Ctrl-C while the render workers start ---------------------------------------------------

CTRL_C_AT_START = """
import os, signal, sys, threading, time
from pathlib import Path

MARK = Path(os.environ["CARDGEN_TEST_MARK"])
SENT = MARK.parent / "sent"
if __name__ == "__mp_main__":  # a render worker starting (spawn re-imports this file): say so, and
    (MARK / str(os.getpid())).touch()  # go on starting until Ctrl-C has been sent (at most 30 s)
    for _ in range(1500):
        if SENT.exists():
            break
        time.sleep(0.02)

if __name__ == "__main__":
    def ctrl_c():  # once both workers are starting, Ctrl-C as a terminal sends it: to the whole group,
        # from outside (this thread never takes the signal itself, as a terminal is no thread of ours)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        while len(list(MARK.iterdir())) < 2:
            time.sleep(0.02)
        os.killpg(os.getpgrp(), signal.SIGINT)
        SENT.touch()

    threading.Thread(target=ctrl_c, daemon=True).start()
    from cardgen.cli import main
    main(sys.argv[1:])
"""


def test_ctrl_c_while_the_workers_start_is_one_line(small, tmp_path):
    """A cold build starts its workers at once; Ctrl-C while they still start Python printed each
    one's KeyboardInterrupt traceback (`exitcode = _main(fd, parent_sentinel)`)."""
    script, mark, out = tmp_path / "run.py", tmp_path / "mark", tmp_path / "out"
    script.write_text(CTRL_C_AT_START)
    mark.mkdir()
    proc = subprocess.run(
        [sys.executable, str(script), "--project", str(small), "build", *GAME, "--jobs", "2", "--paper", "a4",
         "--out", str(out)],
        capture_output=True, text=True, timeout=300, start_new_session=True,
        # a cache of its own: faces another test rasterised would be published before Ctrl-C
        env={**os.environ, "PYTHONPATH": str(ROOT), "CARDGEN_TEST_MARK": str(mark),
             "CARDGEN_CACHE_DIR": str(tmp_path / "cache")})
    assert len(list(mark.iterdir())) == 2  # both workers were starting when Ctrl-C came
    assert (proc.returncode, proc.stderr.strip()) == (130, "interrupted"), proc.stderr
    assert not [p for p in out.rglob("*") if p.suffix in (".tmp", ".pdf", ".png", ".svg")]  # nothing half-written
    assert not (out / LOCK).exists()  # the interrupted build left no lock behind
