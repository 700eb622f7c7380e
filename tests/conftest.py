"""Shared fixtures: the core's tests build the small purpose-built projects in tests/projects/
(`mini`: one game, two versions, a few cards; see tests/projects/README.md), so a change to a
seed game's data does not change them. The repository is itself a cardgen project holding the
seed games; their own end-to-end tests build those (`ROOT`, `project_copy`)."""

from __future__ import annotations

import functools
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import rewriting

# Only what the xdist controller needs too: it imports this module but runs no test, so what
# only tests and fixtures use (the data model, the CLI, the renderers) is imported in them.
from cardgen.buildtypes import PAPER_NAMES
from cardgen.data.folders import CACHE_ENV

ROOT = Path(__file__).resolve().parents[1]
PROJECTS = Path(__file__).resolve().parent / "projects"
MINI = PROJECTS / "mini"

# A test run started in the background (`cmd &`, nohup, some CI runners) inherits SIGINT ignored,
# and so would every process a test starts: Ctrl-C and `serve`'s stop could not be tested. A
# handler here is reset to the default in each child, as in a terminal.
def _sigint_as_in_a_terminal() -> list[str]:
    """Make SIGINT reach this process as in a terminal (handled, not blocked in this thread); say
    what was otherwise. A child inherits an ignored or blocked SIGINT: a Ctrl-C test's command then
    never sees the signal and ends 0 with nothing said (seen once in a full run, 2026-11-27)."""
    found = []
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        found.append("ignored")
    if hasattr(signal, "pthread_sigmask") and signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, ()):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        found.append("blocked")
    return found


_sigint_as_in_a_terminal()


@pytest.fixture(autouse=True)
def sigint_left_as_found(request) -> Iterator[None]:
    """A test that leaves SIGINT ignored or blocked would break the Ctrl-C tests after it in this
    process: it is put back, and the test that did it is named in a warning."""
    yield
    found = _sigint_as_in_a_terminal()
    if found:
        import warnings

        warnings.warn(f"{request.node.nodeid} left SIGINT {' and '.join(found)} (put back)", stacklevel=1)


def pytest_configure(config) -> None:
    """Assertion rewriting paid once per run (tests/rewriting.py)."""
    rewriting.libraries_as_installed(config)
    rewriting.share_between_workers(config)


def pytest_collection_finish(session) -> None:
    """Collect cycles as rarely as a build's workers do (`render.workers.WORKER_GC_THRESHOLD`):
    a pass every 20,000 new objects instead of 700. A test process made about 2,500 young and 18
    full passes over tests/test_safety.py, test_setup.py and test_simulate_rules.py, 2.7 s of
    their 28 s of CPU; now about 460 and 5, 0.7 to 0.95 s, the same peak memory (252-254 MB).
    Not the workers' `gc.freeze()` as well: a frozen module is invisible to `gc.get_referrers`,
    and hypothesis then warns about a library (trio) imported later that registers its random
    generator."""
    import gc

    from cardgen.render.workers import WORKER_GC_THRESHOLD

    gc.set_threshold(WORKER_GC_THRESHOLD, *gc.get_threshold()[1:])


@pytest.fixture(scope="session", autouse=True)
def session_cache(tmp_path_factory) -> Iterator[Path]:
    """The session's own render cache: tests neither read nor fill the repository's build/.cache.

    Under pytest-xdist the workers of one run share it (their temporary folders are siblings):
    entries are named by content and written atomically, so a card one worker rendered is not
    rendered again by the other."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.getbasetemp().parent / "shared-cache"
        folder.mkdir(exist_ok=True)
    else:
        folder = tmp_path_factory.mktemp("cache")
    patch = pytest.MonkeyPatch()
    patch.setenv(CACHE_ENV, str(folder))
    from cardgen.render import fonts

    # fontconfig reads its configuration once per process, at the first text drawn: set it up
    # before any test draws. Which test draws first depends on how pytest-xdist hands modules to
    # its workers, and one that drew with the system's fonts broke every later font set-up.
    fonts.use_project_fonts(ROOT / "fonts")
    yield folder
    patch.undo()


@pytest.fixture(scope="session", autouse=True)
def fork_server() -> None:
    """Start the test process's fork server at once with every module its pools import, as
    `cardgen build` starts its own: the first pool of a process decides what the server preloads,
    and a pool for drawing first would leave every later layout worker importing weasyprint and
    every simulation worker the simulator themselves (about 7 s of a run's CPU)."""
    from cardgen.render.workers import LAYOUT_PRELOAD, start_fork_server
    from cardgen.simulate.runner import PRELOAD as SIMULATION_PRELOAD

    start_fork_server(LAYOUT_PRELOAD + SIMULATION_PRELOAD)


@pytest.fixture
def project_copy(tmp_path: Path) -> Path:
    """A private copy of the project's data (not its build output) that a test may break.

    Its builds share the session's render cache: entries are named by their content (the card's
    SVG, the fonts, the toolchain), so an edited card is a new entry and an unedited one is not
    rendered again. A test that counts what a build renders uses `fresh_project_copy`.
    """
    from cardgen.data.project import load_project

    return load_project(ROOT).copy_sources(tmp_path / "project").root


def shared_project_copy(tmp_path_factory) -> tuple[Path, dict[Path, bytes]]:
    """A copy of the project's sources for one module's tests to share, and what each file
    holds, for `put_back` after each test: one copy instead of one a test, so what a process
    keeps by a file's path (icons read and checked, `contain.read_icon`) is made once."""
    from cardgen.data.project import load_project

    root = load_project(ROOT).copy_sources(tmp_path_factory.mktemp("shared-copy") / "project").root
    return root, {path: path.read_bytes() for path in root.rglob("*") if path.is_file() and not path.is_symlink()}


def put_back(root: Path, files: dict[Path, bytes]) -> None:
    """The copy as `shared_project_copy` made it: what a test added (files, links, folders)
    removed, files it changed, deleted or replaced by a link written again."""
    folders = {parent for path in files for parent in path.parents if parent.is_relative_to(root)}
    for path in sorted(root.rglob("*"), reverse=True):  # a folder's contents before the folder
        if path.is_symlink():  # added, or put in place of a file: writing below would go through it
            path.unlink()
        elif path in files or path in folders:
            continue
        elif path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    for path, data in files.items():
        if not path.is_file() or path.read_bytes() != data:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


@pytest.fixture(scope="module")
def _seed_copy_sources(tmp_path_factory) -> tuple[Path, dict[Path, bytes]]:
    return shared_project_copy(tmp_path_factory)


@pytest.fixture
def seed_copy(_seed_copy_sources) -> Iterator[Path]:
    """`project_copy` shared by the module's tests and put back after each (`shared_project_copy`,
    `put_back`): one copy a module instead of one a test (compiled templates are kept by what
    they are compiled from, `render.templating.KeptBytecodeCache`, so every copy loads them).
    Not for a test that writes a game's plug-in or a font, whose modules and digests a process
    keeps by path (`data.plugin.load_plugin`, `render.fonts.fonts_digest`): those take
    `project_copy`."""
    root, files = _seed_copy_sources
    yield root
    put_back(root, files)


@pytest.fixture
def fresh_project_copy(project_copy: Path, monkeypatch) -> Path:
    """`project_copy` whose builds start from an empty cache of their own (build/.cache in the
    copy), as a fresh checkout would, so a test can count what a build renders."""
    monkeypatch.delenv(CACHE_ENV)
    return project_copy


def copy_project(source: Path, target: Path) -> Path:
    """A copy of a fixture project (tests/projects/NAME) at `target`, without build output."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("build", "__pycache__"), symlinks=True)
    return target


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    """A private copy of tests/projects/mini that a test may edit, break and build into."""
    return copy_project(MINI, tmp_path / "mini")


@pytest.fixture(scope="session")
def mini_shared(tmp_path_factory) -> Path:
    """One copy of tests/projects/mini for the whole session, to read and to build from into
    folders of a test's own: a test that edits the project takes `mini` instead."""
    return copy_project(MINI, tmp_path_factory.mktemp("mini-shared") / "mini")


@pytest.fixture(scope="session")
def mini_build(mini_shared: Path) -> tuple[Path, object]:
    """tests/projects/mini version 2 built once per session (cards as SVG and 300 DPI PNG, both
    papers' duplex sheets, no rulebook): (output folder, BuildResult). Tests only read it."""
    from cardgen.buildtypes import BuildOptions
    from cardgen.data.project import load_project
    from cardgen.data.versions import load_game, resolve
    from cardgen.pipeline import build

    project = load_project(mini_shared)
    snapshot = resolve(project, load_game(project, None), None)
    out = mini_shared / "build" / "mini" / "2"
    return out, build(project, snapshot, BuildOptions(out_dir=out, rulebook=False))


class SeedBuild:
    """One seed game's version in one language, built once per session by `seed_builds`."""

    def __init__(self, snapshot, result, renderers: int, pools: int):
        self.snapshot, self.result = snapshot, result
        self.out: Path = result.out_dir
        self.renderers, self.pools = renderers, pools  # CardRenderers and worker pools the build made
        self.outputs = {o.path.name: o for o in result.outputs}  # file name -> Output


# The (game, version) whose designer's notes SeedBuilds lays out on Letter as well as A4:
# test_rulebook reads 3.1's (its outputs, their page sizes, their timings).
LETTER_NOTES = {("kings-blade", "3.1")}


class SeedBuilds:
    """The seed games built once per session through the pipeline and read by every module that
    checks them (SEED_BUILD_MODULES): each (game, version, language)'s players' documents (`get`)
    and, apart, its sheets (`sheets`), on first use. What a full run builds, and who reads it:

    documents, rulebook and A5 booklet on A4 and Letter, the designer's notes in the game's own
    language, on A4 and, for each game's default version only, on Letter too:
      kings-blade 1, 2, 3, 3.1; way-of-the-blade, one-true-king, knightfall, kings-guild (its
      Italian): every rulebook and booklet on both papers (test_rulebook_pages), the A4 rulebook
      (test_rulebook, test_game_rulebooks, test_kings_guild, test_i18n), the A4 notes
      (test_designer_notes; the English 3.1's in test_i18n); 3.1's Letter notes, its outputs,
      timings, Renderers and pools (test_rulebook), its set-up figure (test_setup_figure); the
      weasyprint remarks of every document of the default versions (test_game_rulebooks). The
      notes are laid out on Letter for 3.1 alone (LETTER_NOTES): another game's or version's
      Letter notes would be read by no test of their own, and their HTML is the A4 notes' but
      for the page size and the body's paper class, which no notes style reads, so a remark of
      weasyprint's (a glyph the fonts lack, CSS it cannot use) would be on the A4 notes too.
      kings-blade 3.1 in Dutch, kings-guild in English, without notes (no test reads them here:
      the Dutch notes are test_i18n's own `cardgen build` run's): every rulebook and booklet
      (test_rulebook_pages, whose player-aid test reads the Dutch booklets), the Dutch Letter
      rulebook (test_i18n), the English A4 rulebook (test_kings_guild).
    sheets, duplex and one-sided where the game has one-sided pieces, no PNGs and no rulebook:
      kings-blade 3.1, way-of-the-blade, one-true-king, knightfall, kings-guild in English, both
      papers (test_printing; the three short games test_games too; kings-guild in English
      test_kings_guild); kings-guild in Italian on A4 (test_kings_guild reads only its A4 sheets
      and the build's findings); kings-blade 3.1 in Dutch on Letter (test_i18n: its own run
      makes the A4 ones).
    test_tts_table (every edition) and test_kings_guild's TTS export take an edition's snapshot and
    drawn cards from whichever of these builds exists (`drawn`). Each key is a build of its own:
    a module asking for the same key again gets the first."""

    def __init__(self, folder: Path):
        from cardgen.data.project import load_project

        self.folder = folder
        self.project = load_project(ROOT)
        self.built: dict[tuple, SeedBuild] = {}

    def get(self, game: str, version: str | None = None, lang: str | None = None) -> SeedBuild:
        """The documents of `game` at `version` (None: its default) in `lang` (None: its own
        language): rulebooks and booklets on both papers, and in its own language the notes, on
        A4, and on Letter too where a test reads them (LETTER_NOTES)."""
        from cardgen.buildtypes import BuildOptions

        def options(out: Path, source) -> BuildOptions:  # the version as resolved: "3.1" and None are one key
            letter = (game, source.version) in LETTER_NOTES
            return BuildOptions(out_dir=out, sheets=False, png=False, booklet=True, notes=lang is None,
                                notes_papers=PAPER_NAMES if letter else ("a4",))

        return self._build(("documents",), game, version, lang, options)

    def sheets(self, game: str, version: str | None = None, lang: str | None = None,
               papers: tuple[str, ...] = PAPER_NAMES) -> SeedBuild:
        """The sheets of `game` at `version` in `lang` on `papers`, duplex and one-sided (and the
        cards' SVGs): no PNGs, no rulebook."""
        from cardgen.buildtypes import BuildOptions

        kind = ("sheets",) if papers == PAPER_NAMES else ("sheets", *papers)
        return self._build(kind, game, version, lang, lambda out, source: BuildOptions(
            out_dir=out, papers=papers, png=False, rulebook=False))

    def drawn(self, game: str, version: str | None = None, lang: str | None = None) -> SeedBuild:
        """A build of `game` at `version` in `lang` for its snapshot and drawn cards
        (`result.cards`), which are the same whatever else a build makes: one this session made
        already (documents or sheets), else its sheets."""
        source_version = resolve_version(self.project, game, version)
        made = [seed for key, seed in self.built.items() if key[-3:] == (game, source_version, lang)]
        return made[0] if made else self.sheets(game, version, lang)

    def _build(self, kind: tuple[str, ...], game: str, version: str | None, lang: str | None,
               options_for) -> SeedBuild:
        from cardgen.data.versions import load_game, resolve
        from cardgen.i18n.localise import localise
        from cardgen.pipeline import build
        from cardgen.render.cards import CardRenderer
        from cardgen.render.workers import Workers

        source = resolve(self.project, load_game(self.project, game), version)
        key = (*kind, game, source.version, lang)  # the game's version, as it resolves: drawn() matches on it
        if key not in self.built:
            snapshot = localise(source, lang)  # as `cardgen build --lang` does (None: the source language)
            options = options_for(self.folder / "-".join(part for part in key if part), source)
            renderers, pools = [], []
            with pytest.MonkeyPatch.context() as patch:  # count the Renderers and process pools a build makes
                made, opened = CardRenderer.__init__, Workers.__init__
                patch.setattr(CardRenderer, "__init__", lambda self, *a: renderers.append(a) or made(self, *a))
                patch.setattr(Workers, "__init__", lambda self, *a, **k: pools.append(a) or opened(self, *a, **k))
                result = build(self.project, snapshot, options)
            self.built[key] = SeedBuild(snapshot, result, len(renderers), len(pools))
        return self.built[key]


def resolve_version(project, game: str, version: str | None) -> str:
    """The version `version` (None: the game's default) of `game` resolves to, as SeedBuilds' keys name it."""
    from cardgen.data.versions import load_game, resolve

    return resolve(project, load_game(project, game), version).version


_SEED_HTML: dict[Path, str] = {}


def seed_rulebook_html(project, seed: SeedBuild) -> str:
    """The HTML `seed`'s A4 rulebook was laid out from, as its rulebook stage renders it (the game's
    rulebook template, the build's own card faces), once per session: several modules read the same
    books' headings, figures and pictures from it."""
    from cardgen.buildtypes import PAPER_SIZES
    from cardgen.rulebook import rulebook_html

    if seed.out not in _SEED_HTML:
        snapshot = seed.snapshot
        _SEED_HTML[seed.out] = rulebook_html(project, snapshot, seed.result.cards, snapshot.game.file.rulebook or "",
                                             PAPER_SIZES["a4"]).html
    return _SEED_HTML[seed.out]


_TTS: dict[Path, tuple[Path, list]] = {}


def seed_tts_export(seed_builds: SeedBuilds, seed: SeedBuild, workers=None) -> tuple[Path, list]:
    """`cardgen export tts` of `seed`'s edition (`export.tts.export_tts`: every deck sheet and piece
    image, from the build's own faces) into a folder of the session's, once: (folder, objects).
    test_kings_guild reads the export; test_tts_table lays its tables on the same images, which
    `export tts --table` draws with the same functions (`ttstable.write_table_images`)."""
    from cardgen.export.tts import export_tts

    if seed.out not in _TTS:
        out = seed_builds.folder / f"tts-{seed.out.name}"
        out.mkdir()
        _TTS[seed.out] = out, export_tts(seed_builds.project, seed.snapshot, seed.result.cards, out, workers=workers)
    return _TTS[seed.out]


# The modules reading `seed_builds`: under pytest-xdist they run in one worker, so each seed build
# is made once per run (`pytest_xdist_make_scheduler`); `pytest_collection_modifyitems` keeps the
# list true.
SEED_BUILD_MODULES = ("tests/test_designer_notes.py", "tests/test_game_rulebooks.py", "tests/test_games.py",
                      "tests/test_i18n.py", "tests/test_kings_guild.py", "tests/test_printing.py",
                      "tests/test_rulebook.py", "tests/test_rulebook_pages.py", "tests/test_setup_figure.py",
                      "tests/test_tts_table.py")


@pytest.fixture(scope="session")
def seed_builds(tmp_path_factory, session_cache: Path) -> SeedBuilds:
    """The seed games' documents and sheets, built on first use (`SeedBuilds`), read only."""
    return SeedBuilds(tmp_path_factory.mktemp("seed-builds"))


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


# Modules whose classes are scopes of their own under pytest-xdist (pytest-xdist's loadscope for
# classes): each class is a long test that shares nothing with the rest of its module, so the two
# workers take them in turn instead of one taking them all.
CLASS_SCOPED_MODULES = ("tests/test_columns.py",)


def _scope(nodeid: str) -> str:
    """The unit one worker runs whole: a module, the seed builds' readers together, or a class
    of CLASS_SCOPED_MODULES."""
    module = _module(nodeid)
    if module in SEED_BUILD_MODULES:
        return "seed-builds"
    if module in CLASS_SCOPED_MODULES and nodeid.count("::") > 1:
        return nodeid.rsplit("::", 1)[0]
    return module


def pytest_collection_modifyitems(config, items) -> None:
    """Every module reading `seed_builds` is one of SEED_BUILD_MODULES (else it would build them
    again in the other worker). The longest scopes go first (the seed builds, then the classes of
    CLASS_SCOPED_MODULES, then the rest by number of tests, as pytest-xdist orders them), so
    neither worker is left with a long one while the other has finished."""
    readers = {_module(item.nodeid) for item in items if "seed_builds" in getattr(item, "fixturenames", ())}
    unlisted = sorted(readers - set(SEED_BUILD_MODULES))
    if unlisted:
        raise pytest.UsageError(f"add {', '.join(unlisted)} to SEED_BUILD_MODULES in tests/conftest.py")
    sizes: dict[str, int] = {}
    for item in items:
        sizes[_scope(item.nodeid)] = sizes.get(_scope(item.nodeid), 0) + 1

    def weight(item) -> tuple[int, int]:
        scope = _scope(item.nodeid)
        return (0 if scope == "seed-builds" else 1 if scope != _module(item.nodeid) else 2, -sizes[scope])

    items.sort(key=weight)  # stable: each scope's tests keep their order


def pytest_xdist_make_scheduler(config, log):
    """`--dist loadscope` (pyproject's addopts) with `_scope`'s units: a module's tests stay in
    one worker (its module-scoped builds are made once), and so do the modules sharing the
    session's seed builds, in the order pytest_collection_modifyitems gives them. (pytest-xdist's
    own `loadgroup` cannot group modules under pytest 9: it renames test ids through an attribute
    pytest no longer reads.)"""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False  # the collection's order, longest scopes first

    class SeedScopeScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _scope(nodeid)

    return SeedScopeScheduling(config, log)


# --- reading PDFs back -------------------------------------------------------------------------

@functools.cache
def _poppler(argv: tuple[str, ...], files: tuple[tuple[int, int], ...]) -> str:
    return subprocess.run(list(argv), capture_output=True, text=True, check=True).stdout


def poppler(*argv: str | Path) -> str:
    """The stdout of a poppler tool, `poppler("pdftotext", "-layout", pdf, "-")`, run once per
    session for the same arguments and the same files (a Path argument is a file: its size and
    modification time are part of the key, so a file built again is read again). The seed builds'
    PDFs are read by many tests: each pdftotext or pdfinfo of one runs once per worker."""
    files = tuple((a.stat().st_size, a.stat().st_mtime_ns) for a in argv if isinstance(a, Path))
    return _poppler(tuple(str(a) for a in argv), files)


# A contents line's leader, eight dots or more, spaced (the rulebooks' `leader(". ")`: pdfium reads
# "Overview. . . . 2") or not ("Set-up .....3")
CONTENTS_LEADER = re.compile(r" ?(\.(?: ?\.){7,}) ?")


def fold_pdfium_text(text: str) -> str:
    """pdfium's text of a page as the rulebook tests read a page: whitespace collapsed (pdfium
    ends each line with CR LF) and a contents leader (a run of eight dots or more, spaced or
    not) read as its dots without spaces, set apart by one space on each side: pdfium joins the
    leader to the title before it or the page number after it where the dots' spacing leaves no
    gap ("Overview. . . . 2", "Card list.....7"). Nothing else is folded: the words, their order
    and a run of fewer dots are pdfium's."""
    return CONTENTS_LEADER.sub(lambda m: f" {m.group(1).replace(' ', '')} ", " ".join(text.split()))


def _each_textpage(pdf: str, read) -> tuple[str, ...]:
    """`read(textpage)` of each page of the PDF, pdfium's text page closed after it."""
    import pypdfium2

    doc = pypdfium2.PdfDocument(pdf)
    try:
        texts = []
        for page in doc:
            textpage = page.get_textpage()
            texts.append(read(textpage))
            textpage.close()
            page.close()
        return tuple(texts)
    finally:
        doc.close()


@functools.cache
def _pdfium_lines(pdf: str, stamp: tuple[int, int]) -> tuple[str, ...]:
    return _each_textpage(pdf, lambda textpage: textpage.get_text_range().replace("\r\n", "\n"))


def pdfium_lines(pdf: Path) -> list[str]:
    """Each page's text as pdfium reads it, its lines kept (pdfium's CR LF read as "\\n"), once per
    session for the same file (its size and modification time in the key): a tenth of pypdf's
    CPU. On the seed games' sheets every page's last line (the footer) reads as pypdf's."""
    return list(_pdfium_lines(str(pdf), (pdf.stat().st_size, pdf.stat().st_mtime_ns)))


def pdfium_pages(pdf: Path) -> list[str]:
    """Each page's text as pdfium reads it, folded (`fold_pdfium_text`), once per session for
    the same file (`pdfium_lines`): a tenth of pypdf's CPU (0.1 s against 2 s on an 8-page
    rulebook). The running text reads as pypdf's; the text inside a card picture or an SVG
    figure may come in another order or with words joined ("3 Rapier" for "Rapier3",
    "TheMine"), and letter-spaced capitals come apart ("D E S I G N E R"): running text without
    pictures, as the designer's notes, reads as pypdf's through `pdfium_prose_pages`."""
    return [fold_pdfium_text(text) for text in pdfium_lines(pdf)]


def _prose_text(textpage) -> str:
    """A page's text from pdfium's characters, with two of pdfium's guesses at spaces set right
    for running text laid out by weasyprint (whose spaces between words are characters of their
    own, which pdfium keeps):

    - a space pdfium makes up between two letters of one run of text less than 0.2 em apart is
      dropped: that gap is letter-spacing (the notes' "DESIGNER'S NOTES" label, 1.2 pt at 9 pt,
      reads "D E S I G N E R ' S" in pdfium), not a word break (0.43 em there);
    - a space is put between two runs of text on one line (a change of font: "This version:"
      in bold, then the answer) at least 0.1 em apart, where pdfium puts none.

    A card picture or an SVG figure draws its words apart without a space character, at gaps
    these rules would misread: read such a page with `pdfium_pages`. On every seed game's
    designer's notes the result, whitespace collapsed, is pypdf's text word for word."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    text = textpage.get_text_range()
    if len(text) != pdfium_c.FPDFText_CountChars(textpage):
        raise ValueError("pdfium's text and its characters differ in length")
    runs = [ctypes.cast(pdfium_c.FPDFText_GetTextObject(textpage, k), ctypes.c_void_p).value
            for k in range(len(text))]

    def gap(left: int, right: int) -> tuple[float, float, bool]:
        """The gap between two characters' boxes in em, and whether they share a line."""
        a, b = pdfium_c.FS_RECTF(), pdfium_c.FS_RECTF()
        pdfium_c.FPDFText_GetLooseCharBox(textpage, left, a)
        pdfium_c.FPDFText_GetLooseCharBox(textpage, right, b)
        em = a.top - a.bottom
        return ((b.left - a.right) / em if em > 0 else 0.0), em, abs(a.bottom - b.bottom) < 0.2 * em

    out = []
    for k, char in enumerate(text):
        inked = char not in " \r\n"
        if (char == " " and 0 < k < len(text) - 1 and text[k - 1] not in " \r\n" and text[k + 1] not in " \r\n"
                and runs[k - 1] == runs[k + 1] and pdfium_c.FPDFText_IsGenerated(textpage, k)):
            apart, em, _ = gap(k - 1, k + 1)
            if em > 0 and apart < 0.2:
                continue  # letter-spacing
        if inked and k and text[k - 1] not in " \r\n" and runs[k] and runs[k - 1] and runs[k] != runs[k - 1]:
            apart, em, same_line = gap(k - 1, k)
            if em > 0 and same_line and apart >= 0.1:
                out.append(" ")  # a word break between two runs
        out.append(char)
    return "".join(out)


@functools.cache
def _pdfium_prose(pdf: str, stamp: tuple[int, int]) -> tuple[str, ...]:
    return _each_textpage(pdf, lambda textpage: fold_pdfium_text(_prose_text(textpage)))


def pdfium_prose_pages(pdf: Path) -> list[str]:
    """Each page's text of a document of running text (the designer's notes: no card pictures,
    no figures) as pdfium reads it, its spaces set right (`_prose_text`) and folded
    (`fold_pdfium_text`), once per session for the same file: a fifth of pypdf's CPU."""
    return list(_pdfium_prose(str(pdf), (pdf.stat().st_size, pdf.stat().st_mtime_ns)))


class CliResult:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run `cardgen ARGS` in-process from a folder; returns exit code, stdout, stderr."""
    from cardgen.cli import main

    def run(*args: str, cwd: Path = ROOT) -> CliResult:
        monkeypatch.chdir(cwd)
        capsys.readouterr()
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


# --- what a players' rulebook must not say --------------------------------------------------------


DEVELOPER_WORDS = re.compile(
    r"\b(seed|seeds|data|plug-?ins?|validator|validate|authoring|playtest\w*|template|yaml|json|"
    r"this build|the build|notes\.choices|cardgen build)\b", re.I)
IDENTIFIER = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")  # overflow_bounce, troop_positions


def developer_vocabulary(text: str, snapshot) -> list[str]:
    """Words of the toolchain and the design process found in a players' text: what the data
    calls things (rule keys, effect kinds, card ids), the process (seed, plug-in, authoring,
    playtest) and the designer's feedback quoted as received."""
    hits = [m.group(0) for m in DEVELOPER_WORDS.finditer(text)]
    hits += IDENTIFIER.findall(text)
    game = snapshot.game
    names = {n for n in set(game.rule_specs) | set(game.effect_kinds) | {c.id for c in snapshot.cards}
             if "-" in n or "_" in n}  # "points" or "overflow" are words as well as ids
    hits += [n for n in sorted(names) if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text)]
    for info in snapshot.chain:
        fb = info.notes.feedback
        for line in (fb.positive + fb.negative + fb.ideas) if fb else []:
            if line[:40] in text:
                hits.append(line[:40])
    return hits
