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

import time
from dataclasses import dataclass
from pathlib import Path

from .. import cache as cache_mod
from ..buildtypes import PAPER_SIZES, BuildOptions, Output, RenderedSet
from ..builtin import TEMPLATES_DIR
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..data.versions import resolve
from ..diff.compare import VersionDiff, compare, value_text
from ..errors import Finding
from ..files import BuildFiles
from ..render.fonts import fonts_digest
from ..render.workers import Workers
from .document import rulebook_html
from .stage import PendingPdfs

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


def build_notes(project: Project, snapshot: Snapshot, rendered: RenderedSet, findings: list[Finding],
                options: BuildOptions, out_dir: Path, manifest: cache_mod.Manifest) -> list[Output]:
    """One notes PDF per paper in `options.papers` (skipped when its inputs are unchanged), here.

    The pipeline uses `start_notes` instead, to lay them out beside the cards and the rulebook.
    """
    with Workers(1, project.fonts_dir, project.cache_dir / "fontconfig") as workers:
        return start_notes(project, snapshot, rendered, findings, options, out_dir, manifest, workers).finish({})


def start_notes(project: Project, snapshot: Snapshot, rendered: RenderedSet, findings: list[Finding],
                options: BuildOptions, out_dir: Path, manifest: cache_mod.Manifest, workers: Workers) -> PendingPdfs:
    """Render the notes' HTML here and queue the stale papers' layout in `workers`."""
    pending = PendingPdfs(project, "notes", "designer's notes", options.papers, manifest)
    template = snapshot.game.file.rulebook
    if not template or not _has_template(project, snapshot):
        return pending  # a project made before the notes existed has no notes.html.j2 to lay out
    started = time.perf_counter()
    extra = notes_values(project, snapshot, findings)
    templates = _stylesheets_digest(project, snapshot)
    fonts = fonts_digest(project.fonts_dir)
    for paper in options.papers:
        doc = rulebook_html(project, snapshot, rendered, TEMPLATE, PAPER_SIZES[paper], extra=extra)
        out = BuildFiles(out_dir).notes(paper)
        inputs = cache_mod.digest_of(CODE_VERSION, cache_mod.toolchain_version(), paper, doc.html, templates, fonts)
        html_s = time.perf_counter() - started
        if manifest.fresh(out, inputs):
            pending.up_to_date(paper, out, html_s)
        else:
            pending.lay_out(paper, out, inputs, doc, workers, html_s)
        started = time.perf_counter()
    return pending


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


def _stylesheets_digest(project: Project, snapshot: Snapshot) -> str:
    """The stylesheets the HTML links to; hashed afresh each build, as people edit them between two."""
    import hashlib

    h = hashlib.sha256()
    folders = (project.templates_dir / "common", project.templates_dir / snapshot.game.id)
    for path in sorted(p for folder in folders for p in folder.glob("*.css")):
        h.update(path.name.encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()
