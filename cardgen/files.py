"""Every output's name and place: the one module that spells them.

In the manner of MkDocs' `Files` (mkdocs/structure/files.py), the rest of cardgen never writes
an output's name itself: a stage, an export, the preview's links and the commands ask here where
a file goes and what it is called, so a name changes in one place and a stage that writes a
file and the one that later removes it can never disagree. tests/test_files.py fails on an
output name spelt anywhere else in cardgen/.

    build/                                  Files(project.build_dir)
      .cardgen-files                          FILES_RECORD: the single files cardgen wrote anywhere
      calibration-a4.pdf                      Files.calibration(paper) (`cardgen calibrate`)
      balance/<game>/                         Files.balance(game): study, proposal, report
      <game>/<version>[/<lang>]/              Files.version(...) -> BuildFiles (`cardgen build`)
        .cardgen-outputs                        MANIFEST: the one manifest of every output folder
        sheets-a4-duplex.pdf ...                BuildFiles.sheets(paper, mode, cutter)
        rulebook-a4.pdf, notes-a4.pdf           BuildFiles.rulebook(paper), .notes(paper), .booklet(paper)
        svg/<face>.svg, png/<face>.png          BuildFiles.face_svg(key), .face_png(key)
        tts/, png-<preset>/, print/<service>/   BuildFiles.tts, .png_export(preset), .print_export(service)
          <game>-<version>-<deck>.json ...        tts_*: Tabletop Simulator's objects and images
        tts-table/<game>-<version>-4p.json      BuildFiles.tts_table; tts_table_*: the set-up tables
          <deck>/001-<card>-x3.png                print_png_*: a print service's images, a folder per deck
          <deck>.pdf, <deck>-cmyk.pdf             print_pdf_*: a print shop's PDFs

Bookkeeping: every output folder holds exactly one manifest (MANIFEST: the files cardgen wrote
there with their hashes, and the inputs each output was made from) and, only while a command
writes it, its lock (LOCK). Folders an older cardgen built hold OLD_MANIFEST as well (or only
it); they are recognised (see cardgen.outputs), and the old file is folded into the one manifest
and removed on the next write.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# --- bookkeeping: cardgen's own records, never outputs -------------------------------------------

MANIFEST = ".cardgen-outputs"  # JSON, but no .json suffix: Tabletop Simulator lists every *.json
LOCK = ".cardgen-lock"  # present only while a command writes the folder
FILES_RECORD = ".cardgen-files"  # in build/: the single files cardgen wrote anywhere (outputs.open_output_file)
FILES_LOCK = ".cardgen-files.lock"
DATA_LOCK = ".cardgen-data.lock"  # in build/: `i18n` writing a game's catalogs
OLD_MANIFEST = ".cardgen-build.json"  # an older cardgen's record of each output's inputs
BOOKKEEPING = frozenset({MANIFEST, LOCK, FILES_RECORD, FILES_LOCK, DATA_LOCK, OLD_MANIFEST})

UPDATE_PREFIX = "update-"  # an update pack's print files (`build --only-changed-since`)


def is_bookkeeping(name: str) -> bool:
    """One of cardgen's own records (a manifest or a lock), not an output."""
    return name in BOOKKEEPING


# --- print files -------------------------------------------------------------------------------


def update_prefix(update: bool) -> str:
    return UPDATE_PREFIX if update else ""


def sheets_name(paper: str, mode: str, cutter: str | None = None, prefix: str = "") -> str:
    """`sheets-a4-duplex.pdf`; for a cutting machine `sheets-a4-duplex-silhouette.pdf`;
    `prefix` is UPDATE_PREFIX for an update pack."""
    return f"{prefix}sheets-{paper}-{mode}{'-' + cutter if cutter else ''}.pdf"


def old_sheets_name(paper: str, prefix: str = "") -> str:
    """`sheets-a4.pdf`: one file per paper, before sheets were split by print mode."""
    return f"{prefix}sheets-{paper}.pdf"


def cutlines_name(paper: str, cutter: str, prefix: str = "") -> str:
    """The cutting machine's cut file of a paper's cutter sheets: `cutlines-a4-silhouette.svg`."""
    return f"{prefix}cutlines-{paper}-{cutter}.svg"


def rulebook_name(paper: str) -> str:
    return f"rulebook-{paper}.pdf"


def booklet_name(paper: str) -> str:
    return f"rulebook-booklet-{paper}.pdf"


def notes_name(paper: str) -> str:
    return f"notes-{paper}.pdf"


def calibration_name(paper: str) -> str:
    return f"calibration-{paper}.pdf"


def plot_name(name: str) -> str:
    """One plot of `cardgen simulate --plots`: `simulate-length-3.1.png`."""
    return f"simulate-{name}.png"


# --- folders -----------------------------------------------------------------------------------

SVG_DIR = "svg"
PNG_DIR = "png"
TTS_DIR = "tts"
TTS_TABLE_DIR = "tts-table"
TABLE_RULEBOOK_DIR = "rulebook"  # in the table folder: the rulebook's own build
PRINT_DIR = "print"
BALANCE_DIR = "balance"


@dataclass(frozen=True)
class BuildFiles:
    """The outputs of one build folder (build/<game>/<version>[/<lang>]/, or the --out folder).

    update: an update pack (`build --only-changed-since`): its print files start with
    UPDATE_PREFIX, so they never replace the whole version's."""

    root: Path
    update: bool = False

    @property
    def prefix(self) -> str:
        return update_prefix(self.update)

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST

    @property
    def old_manifest(self) -> Path:
        return self.root / OLD_MANIFEST

    @property
    def lock(self) -> Path:
        return self.root / LOCK

    def built_before(self) -> bool:
        """Does the folder hold an earlier build (by this cardgen or an older one)?"""
        return self.manifest.is_file() or self.old_manifest.is_file()

    def sheets(self, paper: str, mode: str, cutter: str | None = None) -> Path:
        return self.root / sheets_name(paper, mode, cutter, self.prefix)

    def cutlines(self, paper: str, cutter: str) -> Path:
        return self.root / cutlines_name(paper, cutter, self.prefix)

    def rulebook(self, paper: str) -> Path:
        return self.root / rulebook_name(paper)

    def booklet(self, paper: str) -> Path:
        return self.root / booklet_name(paper)

    def notes(self, paper: str) -> Path:
        return self.root / notes_name(paper)

    @property
    def svg_dir(self) -> Path:
        return self.root / SVG_DIR

    @property
    def png_dir(self) -> Path:
        return self.root / PNG_DIR

    def face_svg(self, key: str) -> Path:
        """A card face or back as SVG: `svg/card-katana-hilt.svg`."""
        return self.svg_dir / f"{key}.svg"

    def face_png(self, key: str) -> Path:
        """A card face or back as PNG (300 DPI with bleed): `png/card-katana-hilt.png`."""
        return self.png_dir / f"{key}.png"

    @property
    def tts(self) -> Path:
        """`cardgen export tts`'s default folder."""
        return self.root / TTS_DIR

    @property
    def tts_table(self) -> Path:
        """`cardgen export tts --table`'s default folder (one saved game per player count)."""
        return self.root / TTS_TABLE_DIR

    def png_export(self, preset: str) -> Path:
        """`cardgen export png --preset P`'s default folder: `png-tgc/`."""
        return self.root / f"png-{preset}"

    def print_export(self, service: str) -> Path:
        """`cardgen export print --service S`'s default folder: `print/drivethrucards/`."""
        return self.root / PRINT_DIR / service

    def documents(self) -> list[Path]:
        """The PDFs built here (sheets, rulebooks, notes), in name order: the preview links them."""
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.glob("*.pdf") if p.is_file())


@dataclass(frozen=True)
class Files:
    """Where every output of a project goes: below its build folder (`project.build_dir`)."""

    build_dir: Path

    def version(self, game: str, version: str, language: str = "", source_language: str = "") -> BuildFiles:
        """build/<game>/<version>/ in the game's source language; a translation in a sub-folder of
        its own (build/kings-blade/3.1/nl/), so no language overwrites another."""
        folder = self.build_dir / game / version
        if language and language != source_language:
            folder = folder / language
        return BuildFiles(folder)

    def calibration(self, paper: str, folder: Path | None = None) -> Path:
        """`cardgen calibrate`'s page, in build/ or the --out folder."""
        return (self.build_dir if folder is None else folder) / calibration_name(paper)

    def balance(self, game: str) -> Path:
        """`cardgen balance`'s folder: build/balance/<game>/."""
        return self.build_dir / BALANCE_DIR / game

    @property
    def record(self) -> Path:
        """The record of the single files cardgen wrote (`diff --out`, `simulate --report`...)."""
        return self.build_dir / FILES_RECORD


def of_snapshot(build_dir: Path, snapshot) -> BuildFiles:
    """The build folder of a resolved version (a `Snapshot`) in its language."""
    return Files(build_dir).version(snapshot.game.id, snapshot.version, snapshot.language,
                                    snapshot.game.file.language)


def balance_proposal(folder: Path, tag: str) -> Path:
    return folder / f"{tag}-proposed.yml"


def balance_report(folder: Path, tag: str) -> Path:
    return folder / f"{tag}-balance.html"


def study_journal(folder: Path, name: str) -> Path:
    """A resumable balance study's journal (Optuna's)."""
    return folder / f"study-{name}.journal"


# --- inside the exports' folders -------------------------------------------------------------


def tts_stem(game: str, version: str, language: str = "", source_language: str = "") -> str:
    """Every file of a version's Tabletop Simulator export starts with it (`kings-blade-3.1`,
    `kings-guild-1-en`), so versions and languages can share a folder."""
    lang = f"-{language}" if language and language != source_language else ""
    return f"{game}-{version}{lang}"


def tts_base(stem: str, deck_word: str, part: int | None = None) -> str:
    """The start of a deck's (or piece set's) file names: `kings-blade-3.1-mine`, with `-2` for
    the second part of a deck holding cards of two sizes."""
    return f"{stem}-{deck_word}" + (f"-{part}" if part is not None else "")


def tts_object(base: str) -> str:
    """A saved object's JSON."""
    return f"{base}.json"


def tts_thumbnail(base: str) -> str:
    """Same name as the JSON: TTS shows it in the Saved Objects browser."""
    return f"{base}.png"


def tts_back(base: str) -> str:
    return f"{base}-back.png"


def tts_faces(base: str, sheet: int) -> str:
    """A deck's sheet of faces, numbered from 1."""
    return f"{base}-faces-{sheet}.png"


def tts_piece(base: str, word: str) -> str:
    """A board's, tile's or token's image."""
    return f"{base}-{word}.png"


def tts_owned(stem: str) -> Callable[[str], bool]:
    """Which files in a folder an export of `stem` wrote (and may replace or delete)."""
    return lambda name: name.startswith(stem + "-") and name.endswith((".png", ".json"))


def tts_table(stem: str, players: int) -> str:
    """`export tts --table`'s saved game for N players: `<game>-<version>[-<lang>]-<N>p.json`."""
    return f"{stem}-{players}p.json"


def tts_table_thumbnail(stem: str, players: int) -> str:
    """Same name as the saved game's JSON: TTS shows it in the Save & Load browser."""
    return f"{stem}-{players}p.png"


def tts_table_rulebook(stem: str) -> str:
    """The players' rulebook beside the tables (TTS's Custom_PDF)."""
    return f"{stem}-rulebook.pdf"


def tts_table_rulebook_dir(table_folder: Path) -> Path:
    """Where `export tts --table` builds that rulebook first: its own build folder, never over a
    build's files."""
    return table_folder / TABLE_RULEBOOK_DIR


_TTS_TABLE_FILE = re.compile(r"-\d+p\.(json|png)$")


def tts_table_owned(stem: str) -> Callable[[str], bool]:
    """The images an export of `stem` wrote into a table folder (tables of other player counts stay)."""
    images = tts_owned(stem)
    return lambda name: images(name) and not _TTS_TABLE_FILE.search(name)


def print_png_cards(naming: str, number: int, card_id: str, count: int) -> list[str]:
    """A card's image(s) in a deck folder of `export png`: one `001-ember-x3.png` ("per-card"
    naming), or one file per copy, `001-ember-1of3.png`..."""
    if naming == "per-card":
        return [f"{number:03d}-{card_id}-x{count}.png"]
    width = len(str(count))
    return [f"{number:03d}-{card_id}-{k:0{width}d}of{count}.png" for k in range(1, count + 1)]


def print_png_back(deck_id: str) -> str:
    return f"back-{deck_id}.png"


PRINT_PNG_OWNED = re.compile(r"(\d{3}-.+|back-.+)\.png")  # the files `export png` writes in a deck folder


def print_png_owned(name: str) -> bool:
    return PRINT_PNG_OWNED.fullmatch(name) is not None


def print_pdf_names(deck_id: str) -> tuple[str, str]:
    """A deck's print-shop PDFs: RGB and CMYK (`mine.pdf`, `mine-cmyk.pdf`)."""
    return f"{deck_id}.pdf", f"{deck_id}-cmyk.pdf"


PRINT_PDF_OWNED = re.compile(r"[a-z0-9][a-z0-9-]*(-cmyk)?\.pdf")  # the deck files `export print` writes (and may remove)
