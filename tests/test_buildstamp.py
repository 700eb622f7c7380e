"""A rebuild with nothing changed does nothing (cardgen.buildstamp); any change to any input
builds again, an output deleted since the last build is made again and one edited since is kept
(made again only with --force). A promise of the core: built on the fixture project
tests/projects/mini (version 2: 11 cards, 6 faces and backs, one A4 sheet), not a seed game."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from cardgen import buildstamp

ARGS = ("build", "--version", "2", "--no-rulebook", "--no-png", "--paper", "a4")
OUT = Path("build") / "mini" / "2"
UP_TO_DATE = "up to date"


def build(cli, project: Path, *extra: str):
    result = cli(*ARGS, "--timings", *extra, cwd=project)
    assert result.code == 0, result.err
    return result


def outputs(project: Path) -> dict[Path, int]:
    folder = project / OUT
    return {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


@pytest.fixture
def built(cli, mini):
    first = build(cli, mini)
    assert UP_TO_DATE not in first.out
    return mini


def test_nothing_changed_writes_nothing_and_reports_as_a_rebuild(cli, built):
    before = outputs(built)
    again = build(cli, built)
    assert UP_TO_DATE in again.out
    assert outputs(built) == before  # not a file rewritten, none added
    assert "11 cards to print, 6 different faces and backs (0 rendered, 6 from cache)" in again.out
    assert "sheets-a4-duplex.pdf  print sheets, A4, duplex (flip on long edge), 4 pages = 2 sheets of paper " \
           "(unchanged)" in again.out
    assert "text fit (en): 1 of 6 faces prints text below its normal size" in again.out
    assert "png/" not in again.out and "svg/  card faces and backs as SVG" in again.out
    quiet = cli(*ARGS, "--quiet", cwd=built)
    assert quiet.code == 0 and quiet.out == ""


def test_a_no_op_rebuild_loads_no_renderer(built):
    """In a fresh process (as a user runs it): neither the pipeline nor cairo nor weasyprint, nor
    even the data model (pydantic) or the YAML reader: the stamp is found from the project's
    folder alone."""
    code = ("import sys\nfrom cardgen.cli import main\n"
            f"try:\n    main({list(ARGS)!r})\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "print(sorted(m for m in ('cardgen.pipeline', 'cairosvg', 'cairocffi', 'weasyprint', 'pikepdf',"
            " 'pydantic', 'yaml', 'cardgen.data.project') if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=built, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]", proc.stdout


def test_a_project_with_its_own_build_folder_is_up_to_date_too(cli, mini, monkeypatch):
    """cardgen.yml naming another build_dir: the stamp is kept in that folder's cache and found
    there once cardgen.yml is read."""
    monkeypatch.delenv("CARDGEN_CACHE_DIR")
    config = mini / "cardgen.yml"
    config.write_text(config.read_text() + "\nbuild_dir: out\n")
    assert UP_TO_DATE not in build(cli, mini).out
    again = build(cli, mini)
    assert UP_TO_DATE in again.out
    assert list((mini / "out" / ".cache" / "stamps").glob("*.json"))
    assert not (mini / "build").exists()


def test_a_source_that_cannot_be_read_builds_and_keeps_no_stamp(cli, built, monkeypatch):
    """A file of the sources that cannot be read while the stamp is taken (gone meanwhile, no
    permission): no fingerprint, so the build runs (and says what it cannot read in its own words)
    and no stamp is trusted or written, instead of a traceback."""
    listed = buildstamp._files
    monkeypatch.setattr(buildstamp, "_files", lambda base, folders: listed(base, folders) + ["gone-meanwhile.yml"])
    assert buildstamp.fingerprint(built, [built / "cardgen.yml"], {}) is None
    first, again = build(cli, built), build(cli, built)
    assert UP_TO_DATE not in first.out and UP_TO_DATE not in again.out
    monkeypatch.setattr(buildstamp, "_files", listed)
    assert UP_TO_DATE in build(cli, built).out  # the stamp of the last build that could take one


def test_any_changed_input_builds_again(cli, built):
    """One edit of each kind of input, one after the other: each builds again, then the next
    rebuild is up to date again."""
    game = built / "card_data" / "mini"

    def append(path: Path, text: str = "\n") -> None:
        path.write_text(path.read_text() + text)

    edits = {
        "card data": lambda: append(game / "game.yml", "\n# a comment is a change too\n"),
        "version file": lambda: append(built / "versions" / "mini" / "2.yml"),
        "template": lambda: append(built / "templates" / "mini" / "coin.svg.j2"),
        "icon": lambda: (lambda icon: icon.write_text(icon.read_text().replace("<svg", "<svg data-x='1'", 1)))(
            sorted((built / "icons").rglob("*.svg"))[0]),
        # mini draws with the built-in fonts: a fonts/ folder of its own, first with a licence in it
        "font folder": lambda: ((built / "fonts").mkdir(), (built / "fonts" / "OFL.txt").write_text("a licence")),
        "file in the font folder": lambda: shutil.copyfile(built / "fonts" / "OFL.txt", built / "fonts" / "OFL-copy.txt"),
        "project file": lambda: append(built / "cardgen.yml"),
        "new file in card_data": lambda: (game / "notes.txt").write_text("a new file"),
    }
    for name, edit in edits.items():
        edit()
        assert UP_TO_DATE not in build(cli, built).out, name
        assert UP_TO_DATE in build(cli, built).out, name


def test_other_options_and_dates_are_other_builds(cli, built, monkeypatch, tmp_path):
    assert UP_TO_DATE not in build(cli, built, "--fronts-only", "--out", str(tmp_path / "fronts")).out
    assert UP_TO_DATE in build(cli, built).out  # each set of options keeps its own record
    assert UP_TO_DATE in build(cli, built, "--fronts-only", "--out", str(tmp_path / "fronts")).out
    assert UP_TO_DATE in build(cli, built, "--jobs", "1").out  # --jobs changes no file
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the rulebooks' date
    assert UP_TO_DATE not in build(cli, built).out


def test_a_deleted_output_is_made_again(cli, built):
    sheet = built / OUT / "sheets-a4-duplex.pdf"
    good = sheet.read_bytes()
    sheet.unlink()
    assert UP_TO_DATE not in build(cli, built).out
    assert sheet.read_bytes() == good


def test_an_edited_output_is_kept_and_said_until_force(cli, built):
    """A sheet changed since cardgen wrote it (edited, or cut short: cardgen cannot tell which) is
    the user's now: kept and said, on the no-op rebuild too; --force makes it again."""
    sheet = built / OUT / "sheets-a4-duplex.pdf"
    good = sheet.read_bytes()
    sheet.write_bytes(good[:-10])
    kept = "warning: kept build/mini/2/sheets-a4-duplex.pdf: edited since cardgen wrote it; " \
           "--force replaces it"
    for _ in range(2):
        result = build(cli, built)
        assert kept in result.err.splitlines(), result.err
        assert sheet.read_bytes() == good[:-10]
    assert UP_TO_DATE in result.out  # the second time: nothing changed since the first
    forced = build(cli, built, "--force")
    assert UP_TO_DATE not in forced.out  # --force always looks at the files again
    assert "warning: replaced build/mini/2/sheets-a4-duplex.pdf: edited since cardgen wrote it " \
           "(--force)" in forced.err.splitlines(), forced.err
    assert sheet.read_bytes() == good
    assert "kept" not in build(cli, built).err


def test_a_change_to_cardgen_itself_builds_again(cli, built, monkeypatch, tmp_path):
    """An editable install whose code changed may draw differently: its files are an input."""
    package = tmp_path / "cardgen"
    shutil.copytree(buildstamp.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(buildstamp, "PACKAGE_DIR", package)
    assert UP_TO_DATE not in build(cli, built).out  # another package: another fingerprint
    assert UP_TO_DATE in build(cli, built).out
    (package / "imposition" / "layout.py").write_text((package / "imposition" / "layout.py").read_text() + "\n")
    assert UP_TO_DATE not in build(cli, built).out
