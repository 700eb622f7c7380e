"""Issue 26, item 4: one module names and places every output; one manifest per output folder;
no lock left behind.

`cardgen.files` is the only module of cardgen/ that spells an output's name (read from the
source with `ast`); a build folder holds exactly one manifest and no lock once the command has
ended, whether it succeeded, failed, was interrupted, or an earlier process was killed outright
holding the folder; and a folder an older cardgen wrote (two manifests, a lock of a dead process)
is recognised: its files are cardgen's, not the user's.
"""

from __future__ import annotations

import ast
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from test_safety import one_line

from cardgen import files
from cardgen.files import LOCK, MANIFEST, OLD_MANIFEST, BuildFiles, Files
from cardgen.outputs import OutputFolder, bytes_digest

PACKAGE = ROOT / "cardgen"
GAME = ("--game", "dragon-race")  # `cardgen new`'s small game: 9 cards, one deck ("main")
QUICK = ("build", *GAME, "--paper", "a4", "--no-rulebook")

# --- 1. names are spelt in cardgen/files.py only -------------------------------------------------

# An output's name as a string in the code (an f-string's fields read as "{}"): a print file, a
# rulebook, the notes, a calibration page, a plot, the balance files, the files inside an export
# (Tabletop Simulator, print service PNGs, print-shop PDFs), cardgen's bookkeeping, or an output
# folder joined onto a path (`out / "svg"`).
OUTPUT_NAME = re.compile(
    r"\.cardgen-"
    r"|(^|[^\w.-])(update-)?(rulebook|rulebook-booklet|sheets|notes|cutlines|calibration|simulate|study)"
    r"-(\{|<|$|a4|letter|booklet|duplex|onesided)"
    r"|-(proposed\.yml|balance\.html)$|\.journal$"
    r"|-faces-\{|-back\.png$|-cmyk\.pdf$|^back-\{\}\.png$|-x\{\}\.png$|of\{\}\.png$"  # the exports' files
    r"|-\{\}p\.(json|png)$|-rulebook\.pdf$")
OUTPUT_FOLDERS = {"build", "svg", "png", "tts", "tts-table", "rulebook", "print", "balance", "{}.svg", "{}.png", "png-{}"}


def _text(node: ast.AST) -> str | None:
    """A string constant's text, an f-string's with its fields as "{}"; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)  # type: ignore[misc]
    return None


def output_names_in(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string in `source` (docstrings aside) that spells an output's name."""
    tree = ast.parse(source)
    docstrings = {id(body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and (body := node.body) and isinstance(body[0], ast.Expr)
                  and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)}
    inside_fstring = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    found = []
    for node in ast.walk(tree):
        if id(node) in docstrings or id(node) in inside_fstring:
            continue
        text = _text(node)
        if text is not None and OUTPUT_NAME.search(text):
            found.append((node.lineno, text))  # type: ignore[attr-defined]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and "cache" not in ast.unparse(node.left):
            joined = _text(node.right)  # (a cache folder is no output: `project.cache_dir / "svg"`)
            if joined in OUTPUT_FOLDERS:
                found.append((node.lineno, f"/ {joined!r}"))
    return sorted(found)


def test_the_check_finds_output_names_spelt_by_hand():
    """The check itself can fail: each way a stage used to spell a name is found."""
    spelt = '''
"""A docstring may name rulebook-a4.pdf and .cardgen-outputs: it is documentation."""
a = out_dir / f"rulebook-{paper}.pdf"
b = f"{prefix}sheets-{paper}.pdf"
c = root / ".cardgen-build.json"
d = out_dir / "svg"
e = folder / f"{tag}-balance.html"
f = default / f"png-{preset}"
g = "(rulebook-booklet-<paper>.pdf)"
h = svg_dir / f"{key}.svg"
i = f"{base}-faces-{n}.png"
j = f"{deck_id}-cmyk.pdf"
k = f"{number:03d}-{card_id}-x{count}.png"
'''
    assert [line for line, _ in output_names_in(spelt)] == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]
    fine = 'CODE_VERSION = "sheets-4"\nT = "rulebook-base.html.j2"\nS = ("booklet-aid", "booklet-back")\n'
    assert output_names_in(fine) == []


def test_output_names_are_spelt_only_in_cardgen_files():
    spelt = {f"{path.relative_to(ROOT)}:{line}: {text}"
             for path in sorted(PACKAGE.rglob("*.py")) if path != PACKAGE / "files.py"
             for line, text in output_names_in(path.read_text(encoding="utf-8"))}
    assert spelt == set()
    assert output_names_in((PACKAGE / "files.py").read_text(encoding="utf-8"))  # ... and they are there


def test_the_names_and_places():
    build = Files(Path("build"))
    assert build.version("kings-blade", "3.1", "en", "en").root == Path("build/kings-blade/3.1")
    nl = build.version("kings-blade", "3.1", "nl", "en")
    assert nl.root == Path("build/kings-blade/3.1/nl")
    assert [p.name for p in (nl.sheets("a4", "duplex"), nl.sheets("letter", "onesided", "cricut"),
                             nl.cutlines("a4", "silhouette"), nl.rulebook("a4"), nl.booklet("letter"),
                             nl.notes("a4"))] == \
        ["sheets-a4-duplex.pdf", "sheets-letter-onesided-cricut.pdf", "cutlines-a4-silhouette.svg",
         "rulebook-a4.pdf", "rulebook-booklet-letter.pdf", "notes-a4.pdf"]
    update = BuildFiles(Path("out"), update=True)
    assert (update.sheets("a4", "duplex").name, update.cutlines("a4", "cricut").name) == \
        ("update-sheets-a4-duplex.pdf", "update-cutlines-a4-cricut.svg")
    assert nl.face_png("card-ember") == Path("build/kings-blade/3.1/nl/png/card-ember.png")
    assert nl.face_svg("back-main") == Path("build/kings-blade/3.1/nl/svg/back-main.svg")
    assert (nl.tts, nl.png_export("tgc"), nl.print_export("mpc")) == \
        (nl.root / "tts", nl.root / "png-tgc", nl.root / "print" / "mpc")
    assert build.calibration("a4") == Path("build/calibration-a4.pdf")
    assert build.balance("kings-blade") == Path("build/balance/kings-blade")
    assert build.record == Path("build/.cardgen-files")
    base = files.tts_base(files.tts_stem("kings-guild", "1", "en", "it"), "rooms", 2)
    assert [base, files.tts_object(base), files.tts_faces(base, 1), files.tts_back(base)] == \
        ["kings-guild-1-en-rooms-2", "kings-guild-1-en-rooms-2.json", "kings-guild-1-en-rooms-2-faces-1.png",
         "kings-guild-1-en-rooms-2-back.png"]
    assert files.tts_owned("kings-blade-3.1")("kings-blade-3.1-mine.json")
    assert not files.tts_owned("kings-blade-3.1")("kings-blade-3-mine.json")  # another version's
    assert files.print_png_cards("per-card", 2, "ember", 3) == ["002-ember-x3.png"]
    assert files.print_png_cards("per-copy", 12, "spark", 10)[::9] == ["012-spark-01of10.png", "012-spark-10of10.png"]
    assert files.print_png_owned(files.print_png_back("main")) and not files.print_png_owned("invoice.png")
    assert files.print_pdf_names("mine") == ("mine.pdf", "mine-cmyk.pdf")
    assert (files.tts_table("kings-guild-1", 4), files.tts_table_thumbnail("kings-guild-1", 4),
            files.tts_table_rulebook("kings-guild-1")) == \
        ("kings-guild-1-4p.json", "kings-guild-1-4p.png", "kings-guild-1-rulebook.pdf")
    table = files.tts_table_owned("kings-guild-1")
    assert table("kings-guild-1-rooms-faces-1.png") and not table("kings-guild-1-3p.png")  # another count's table
    assert files.tts_table_rulebook_dir(nl.tts_table) == nl.root / "tts-table" / "rulebook"


# --- 2. one manifest, no lock, however the command ends ------------------------------------------


@pytest.fixture
def small(cli, seed_copy) -> Path:
    assert cli("new", "dragon-race", cwd=seed_copy).code == 0
    return seed_copy


def bookkeeping(folder: Path) -> list[str]:
    """cardgen's own files anywhere in `folder` (its manifests, locks, temporary files)."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.name.startswith(".cardgen-") or p.name.endswith(".tmp"))


def test_a_build_writes_the_names_of_cardgen_files_with_one_manifest_and_no_lock(cli, small):
    out = small / "out"
    result = cli(*QUICK, "--out", str(out), cwd=small)
    assert result.code == 0, result.err
    names = BuildFiles(out)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [MANIFEST, names.sheets("a4", "duplex").name, names.svg_dir.name, names.png_dir.name])
    assert names.face_png("card-ember").is_file() and names.face_svg("back-main").is_file()
    assert bookkeeping(out) == [MANIFEST]
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert sorted(manifest) == ["files", "inputs", "written_by"]
    assert list(manifest["inputs"]) == ["sheets-a4-duplex.pdf"]  # what the sheets were made from
    assert manifest["files"]["sheets-a4-duplex.pdf"] == bytes_digest(names.sheets("a4", "duplex").read_bytes())


def test_a_failed_build_leaves_one_manifest_and_no_lock(cli, small):
    out = small / "out"
    out.mkdir()
    mine = out / "sheets-a4-duplex.pdf"
    mine.write_bytes(b"%PDF the user's own sheets")
    text = one_line(cli(*QUICK, "--out", str(out), cwd=small), 1)
    assert "sheets-a4-duplex.pdf exists and was not written by cardgen" in text
    assert mine.read_bytes() == b"%PDF the user's own sheets"
    assert bookkeeping(out) == [MANIFEST]
    assert "sheets-a4-duplex.pdf" not in json.loads((out / MANIFEST).read_text(encoding="utf-8"))["files"]


def test_an_interrupted_build_leaves_one_manifest_and_no_lock(cli, small, monkeypatch):
    import cardgen.imposition.stage

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cardgen.imposition.stage, "build_sheets", ctrl_c)
    out = small / "out"
    result = cli(*QUICK, "--out", str(out), cwd=small)
    assert (result.code, result.err.strip()) == (130, "interrupted")
    assert bookkeeping(out) == [MANIFEST]
    recorded = json.loads((out / MANIFEST).read_text(encoding="utf-8"))["files"]
    assert "png/card-ember.png" in recorded  # what was written before Ctrl-C is known as cardgen's


KILLED_HOLDER = """
import os, signal, sys
from pathlib import Path
from cardgen.outputs import open_output
with open_output(None, Path(sys.argv[1]), "build --killed"):
    os.kill(os.getpid(), signal.SIGKILL)
"""


def kill_a_holder(out: Path) -> str:
    """A process that holds `out` and is killed outright: it leaves its lock file behind."""
    proc = subprocess.run([sys.executable, "-c", KILLED_HOLDER, str(out)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    return (out / LOCK).read_text(encoding="utf-8")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_the_lock_of_a_killed_process_is_taken_over_and_not_left(cli, small):
    out = small / "out"
    assert cli(*QUICK, "--out", str(out), cwd=small).code == 0
    assert re.fullmatch(r"`cardgen build --killed` \(process \d+\)\n", kill_a_holder(out))
    # nothing changed: the build is up to date and writes nothing, but removes the dead lock
    result = cli(*QUICK, "--out", str(out), cwd=small)
    assert result.code == 0 and "is being written" not in result.err, result.err
    assert bookkeeping(out) == [MANIFEST]
    kill_a_holder(out)
    result = cli(*QUICK, "--out", str(out), "--force", cwd=small)  # a build that does its work
    assert result.code == 0, result.err
    assert "(unchanged)" in result.out  # the dead process changed nothing cardgen knows
    assert bookkeeping(out) == [MANIFEST]


def test_a_lock_held_by_a_live_command_stays_its_own(small, tmp_path):
    """Removing the lock when a command ends never takes it from another live one."""
    from cardgen.errors import BuildError
    from cardgen.outputs import clear_stale_lock, open_output

    out = tmp_path / "out"
    with open_output(None, out, "first"):
        clear_stale_lock(out)  # held: stays
        assert (out / LOCK).read_text(encoding="utf-8").startswith("`cardgen first`")
        with pytest.raises(BuildError, match="being written by `cardgen first`"):
            with open_output(None, out, "second"):
                pass
        assert (out / LOCK).is_file()  # the refused command did not remove the holder's lock
    assert not (out / LOCK).exists()


# --- 3. a folder an older cardgen wrote ----------------------------------------------------------


def as_older_cardgen(out: Path, *, outputs_manifest: bool) -> dict[str, str]:
    """Turn a build folder into what an older cardgen left: the inputs in OLD_MANIFEST (which
    the outputs manifest recorded like any output), or before that only OLD_MANIFEST; and the
    lock file of a process long gone. Returns the inputs."""
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    inputs = manifest.pop("inputs")
    old = json.dumps(inputs, indent=1, sort_keys=True) + "\n"
    (out / OLD_MANIFEST).write_text(old)
    if outputs_manifest:
        manifest["files"][OLD_MANIFEST] = bytes_digest(old.encode())
        (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    else:
        (out / MANIFEST).unlink()
    (out / LOCK).write_text("`cardgen build` (process 4194999)\n")
    return inputs


@pytest.mark.parametrize("outputs_manifest", [True, False], ids=["two-manifests", "build-record-only"])
def test_a_folder_an_older_cardgen_built_is_recognised(cli, small, outputs_manifest):
    out = small / "out"
    assert cli(*QUICK, "--out", str(out), cwd=small).code == 0
    (out / "invoice.pdf").write_bytes(b"%PDF the user's own file")
    made = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()
            and not p.name.startswith(".cardgen-") and p.name != "invoice.pdf"}
    inputs = as_older_cardgen(out, outputs_manifest=outputs_manifest)
    if outputs_manifest:  # the old two-manifest folder: its files are known, the invoice is not
        assert OutputFolder(out).files.keys() == {*made, OLD_MANIFEST}

    result = cli(*QUICK, "--out", str(out), "--force", cwd=small)
    assert result.code == 0, result.err
    assert "not written by cardgen" not in result.err and "replaced" not in result.err, result.err
    assert "sheets-a4-duplex.pdf" in result.out and "(unchanged)" in result.out  # its inputs were read
    assert bookkeeping(out) == [MANIFEST]  # one manifest, no lock
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["inputs"] == inputs
    assert {k: (out / k).read_bytes() for k in made} == made  # adopted, not rebuilt or replaced
    # cardgen's from now on; before any outputs manifest, an output is adopted on evidence only (its
    # recorded inputs, or the very bytes cardgen would write), which each of these has
    assert set(made) <= set(manifest["files"])
    assert (out / "invoice.pdf").read_bytes() == b"%PDF the user's own file"
    assert "invoice.pdf" not in manifest["files"]  # the user's file stays the user's

    # the adopted files are cardgen's as any: an edited one is kept and said, until --force
    edited = BuildFiles(out).face_png("card-ember")
    edited.write_bytes(b"the user's edit")
    result = cli(*QUICK, "--out", str(out), cwd=small)
    assert result.code == 0, result.err
    assert "kept out/png/card-ember.png: edited since cardgen wrote it; --force replaces it" in result.err
    assert edited.read_bytes() == b"the user's edit"


def test_the_inputs_record_works_outside_an_open_folder(tmp_path):
    """`cache.Manifest` on its own (a stage run by a test): it reads and writes the one manifest."""
    from cardgen.cache import Manifest

    (tmp_path / OLD_MANIFEST).write_text(json.dumps({"rulebook-a4.pdf": "abc"}))
    manifest = Manifest(tmp_path)
    assert manifest.entries == {"rulebook-a4.pdf": "abc"}  # an older cardgen's record is read
    (tmp_path / "rulebook-a4.pdf").write_bytes(b"%PDF")
    manifest.record(tmp_path / "rulebook-a4.pdf", "def")
    manifest.save()
    assert json.loads((tmp_path / MANIFEST).read_text(encoding="utf-8"))["inputs"] == {"rulebook-a4.pdf": "def"}
    assert Manifest(tmp_path).entries == {"rulebook-a4.pdf": "def"}  # the one manifest comes first
    assert files.is_bookkeeping(MANIFEST) and files.is_bookkeeping(OLD_MANIFEST) and not files.is_bookkeeping("x.pdf")


def test_the_locks_in_build_are_gone_when_the_command_ends(seed_copy, tmp_path):
    """A single file's record and the catalogs' lock live in build/: the record stays, the locks go."""
    from cardgen import atomic
    from cardgen.data.project import load_project
    from cardgen.outputs import open_data_folder, open_output_file

    project = load_project(seed_copy)
    with open_output_file(project, tmp_path / "notes.md", "diff") as target:
        assert (project.build_dir / files.FILES_LOCK).is_file()  # held while it writes
        atomic.write_text(target, "the diff")
    with open_data_folder(project, project.card_data / "kings-blade" / "locale", project.card_data, "i18n update"):
        assert (project.build_dir / files.DATA_LOCK).is_file()
    assert sorted(p.name for p in project.build_dir.iterdir() if files.is_bookkeeping(p.name)) == [files.FILES_RECORD]


def test_the_readme_names_the_outputs_as_cardgen_files_does():
    """The README's list of what `cardgen build --version 3.1` writes is spelt as the module spells it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    out = Files(Path("build")).version("kings-blade", "3.1", "en", "en")
    assert f"`{out.root.as_posix()}/`" in readme
    for paper in ("a4", "letter"):
        for path in (out.sheets(paper, "duplex"), out.rulebook(paper), out.notes(paper)):
            assert f"`{path.name}`" in readme
    assert f"`{files.MANIFEST}`" in readme and f"`{files.LOCK}`" in readme and f"`{files.OLD_MANIFEST}`" in readme
    assert f"`{out.png_dir.name}/*.png`" in readme and f"`{out.svg_dir.name}/*.svg`" in readme
