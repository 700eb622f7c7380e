"""The designer's notes: a PDF beside the players' rulebook, built from the same data.

Players get rules; the designer and the playtest organisers get the rest, here: the version's
change log (the designer's own words and what the data changes against the version it extends),
playtest feedback beside its translation, known problems, the authoring choices made where the
design is silent, the rules the design leaves open (each rule with an `open_question`: the
question, this version's answer and the others) and the version's `notes.questions`, the
validator's findings and the cards' notes. The
template is `templates/common/notes.html.j2` (a game may put its own `notes.html.j2` in its
template folder); it is laid out like the rulebook, as `notes-a4.pdf` / `notes-letter.pdf`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import cache as cache_mod
from ..buildtypes import BuildOptions, Output, RenderedSet
from ..builtin import TEMPLATES_DIR
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..data.versions import resolve
from ..diff.compare import VersionDiff, compare, value_text
from ..errors import Finding
from ..files import notes_name
from .papers import PaperDocument, PendingPdfs, build_papers, start_papers

if TYPE_CHECKING:  # the build's pool, which `validate` never starts
    from ..render.workers import Workers

TEMPLATE = "notes.html.j2"
CODE_VERSION = "notes-1"  # bump when this module changes what the notes look like

@dataclass(frozen=True)
class FindingRow:
    severity: str
    code: str
    message: str
    where: str  # file:line:column relative to the project, so the PDF is the same on every machine


def finding_rows(project: Project, findings: list[Finding]) -> list[FindingRow]:
    rows = []
    for f in findings:
        where = ""
        if f.loc is not None:
            path = Path(f.loc.file)
            try:
                path = path.resolve().relative_to(project.root.resolve())
            except ValueError:
                pass
            where = ":".join(str(p) for p in (path.as_posix(), f.loc.line, f.loc.column) if p)
        message = f.message + (f" (card {f.card})" if f.card else "")
        rows.append(FindingRow(f.severity, f.code, message, where))
    return rows


def previous_diff(project: Project, snapshot: Snapshot) -> VersionDiff | None:
    """What the data changes against the version this one extends (None for a first version)."""
    parent = snapshot.info.extends
    if parent is None:
        return None
    old = resolve(project, snapshot.game, parent)
    if snapshot.language != snapshot.game.file.language:  # both sides in the words the notes print
        from ..i18n.localise import localise

        old = localise(old, snapshot.language)
    return compare(old, snapshot, [])


def notes_document(project: Project, snapshot: Snapshot, findings: list[Finding]) -> PaperDocument:
    """The designer's notes, on the paper itself, with the values `notes_values` gives."""
    return PaperDocument("notes", "designer's notes", TEMPLATE, CODE_VERSION, file=notes_name,
                         extra=lambda: notes_values(project, snapshot, findings))


def build_notes(project: Project, snapshot: Snapshot, rendered: RenderedSet, findings: list[Finding],
                options: BuildOptions, out_dir: Path, manifest: cache_mod.Manifest) -> list[Output]:
    """One notes PDF per paper of `options.notes_on` (skipped when its inputs are unchanged), here.

    The pipeline uses `start_notes` instead, to lay them out beside the cards and the rulebook.
    """
    papers = options.notes_on if has_notes(project, snapshot) else ()
    return build_papers(project, snapshot, rendered, notes_document(project, snapshot, findings), papers, out_dir,
                        manifest, {}, jobs=1)


def start_notes(project: Project, snapshot: Snapshot, rendered: RenderedSet, findings: list[Finding],
                options: BuildOptions, out_dir: Path, manifest: cache_mod.Manifest, workers: Workers) -> PendingPdfs:
    """Render the notes' HTML here for each paper of `options.notes_on` and queue the stale
    papers' layout in `workers`; a project made before the notes existed (no notes.html.j2 to
    lay out), or a game without a rulebook, has none."""
    papers = options.notes_on if has_notes(project, snapshot) else ()
    return start_papers(project, snapshot, rendered, notes_document(project, snapshot, findings), papers, out_dir,
                        manifest, workers)


def notes_values(project: Project, snapshot: Snapshot, findings: list[Finding]) -> dict:
    """What the notes' template reads besides the rulebook helpers."""
    return {
        "findings": finding_rows(project, findings),
        "diff": previous_diff(project, snapshot),
        "card_notes": {c.id: c.note for c in snapshot.cards if c.note},
        "rule_value": lambda key: value_text(snapshot, snapshot.game.rule_specs[key], snapshot.rules.get(key)),
    }


def has_notes(project: Project, snapshot: Snapshot) -> bool:
    """A game with a rulebook gets the notes (from the first notes.html.j2 `_has_template` finds)."""
    return bool(snapshot.game.file.rulebook) and _has_template(project, snapshot)


def _has_template(project: Project, snapshot: Snapshot) -> bool:
    """The game's own notes template, the project's common one, or cardgen's built-in one."""
    return any((folder / TEMPLATE).is_file()
               for folder in (project.templates_dir / snapshot.game.id, project.templates_dir / "common", TEMPLATES_DIR))

