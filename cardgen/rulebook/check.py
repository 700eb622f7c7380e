"""What `validate` checks of the documents `build` lays out: the rulebook's HTML (its booklet's
too) and the designer's notes', rendered from their templates as the build renders them, on every
paper (once for all of them where no template names `paper`: `document.check_papers`), without
the PDF layout (the slow part). A template asking for a deck the data lacks is then a finding of
`validate`, as it is an error of `build`, and a clean `validate` means a build that works."""

from __future__ import annotations

from ..buildtypes import PAPER_NAMES, PAPER_SIZES, RenderedSet
from ..cardstage import DrawnCards
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..errors import CardgenError, Finding
from .booklet import booklet_document
from .document import check_papers
from .notes import TEMPLATE as NOTES_TEMPLATE
from .notes import has_notes, notes_values
from .stage import has_rulebook_words


def document_findings(project: Project, snapshot: Snapshot, rendered: RenderedSet,
                      findings: list[Finding]) -> list[Finding]:
    """One error finding for the first template that fails (the build stops at it), else none.
    `findings`: the validator's, which the notes print."""
    template = snapshot.game.file.rulebook
    if not template or not has_rulebook_words(snapshot):
        return []  # the build lays out no rulebook either
    papers = [PAPER_SIZES[paper] for paper in PAPER_NAMES]
    try:
        check_papers(project, snapshot, rendered, template, papers)
        # the booklet's own pages (`build --booklet`): the same template with `booklet` set,
        # which fills the blocks only a booklet prints (its player aid, its back cover)
        booklet = booklet_document(snapshot)
        check_papers(project, snapshot, rendered, template, [booklet.page(paper) for paper in PAPER_NAMES],
                     extra=booklet.extra() if booklet.extra else None)
        if has_notes(project, snapshot):
            check_papers(project, snapshot, rendered, NOTES_TEMPLATE, papers,
                         extra=notes_values(project, snapshot, findings))
    except CardgenError as exc:
        return [Finding("error", "rulebook", exc.message, exc.loc)]
    return []


def build_findings(project: Project, snapshot: Snapshot, cards: DrawnCards) -> list[Finding]:
    """Every finding `build` would report for these drawn cards: the card stage's (data checks,
    render, preflight) and, when those have no error, the documents' templates. `validate` and
    the preview both list these, so the three agree."""
    findings = list(cards.findings)
    if not cards.errors:
        findings += document_findings(project, snapshot, cards.rendered, findings)
    return findings
