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

Bookkeeping: every output folder holds exactly one manifest (MANIFEST: the files cardgen wrote
there with their hashes, and the inputs each output was made from) and, only while a command
writes it, its lock (LOCK). Folders an older cardgen built hold OLD_MANIFEST as well (or only
it); they are recognised, their files adopted, and the old file removed on the next write.
"""

from __future__ import annotations

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
