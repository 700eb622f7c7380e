"""What `validate` and `build` both check: the data (cardgen.data.validate) and then the render
stage, every card and back rendered to SVG without rasterising (cheap), so a clean `validate`
means a build that works: a template reading a field a card lacks, an icon that is missing or
not SVG, a path leading out of the project or a character the fonts lack is found by both.
"""

from __future__ import annotations

from ..buildtypes import RenderedSet
from ..data.project import Project
from ..data.snapshot import Card, Snapshot
from ..data.validate import Report, _order
from ..data.validate import validate as validate_data
from ..errors import CardgenError, Finding
from .cards import CardRenderer


def check(project: Project, snapshot: Snapshot, render: bool = True) -> tuple[list[Finding], RenderedSet | None]:
    """(findings, rendered faces or None). The faces are returned so that `build` goes on with
    them instead of rendering again; None when the data has errors or a card failed."""
    findings = validate_data(project, snapshot)
    if not render or any(f.severity == "error" for f in findings):
        return findings, None  # the renderer assumes the data checks passed
    report = Report()
    rendered = render_checks(project, snapshot, report)
    return sorted(findings + report.findings, key=_order), rendered


def render_stage(project: Project, snapshot: Snapshot) -> tuple[list[Finding], RenderedSet | None]:
    """Only the render checks (for a caller that timed the data checks on their own)."""
    report = Report()
    rendered = render_checks(project, snapshot, report)
    return report.findings, rendered


def validate(project: Project, snapshot: Snapshot) -> list[Finding]:
    """Every finding `build` would stop or warn on before rasterising."""
    return check(project, snapshot)[0]


def render_checks(project: Project, snapshot: Snapshot, report: Report) -> RenderedSet | None:
    """Render every card and back to SVG as the build does; each failure is one finding naming
    the card and the place (template line, data line)."""
    renderer = CardRenderer(project, snapshot)
    rendered = RenderedSet()
    failed = False
    causes: dict[tuple, list[tuple[Card, CardgenError]]] = {}  # one finding per cause, not per card
    for card in snapshot.cards:
        try:
            rendered.faces[card.id] = renderer.render_card(card)
        except CardgenError as exc:
            causes.setdefault(_cause(exc, card), []).append((card, exc))
            failed = True
    for failures in causes.values():
        card, first = failures[0]
        others = [c.id for c, _ in failures[1:]]
        more = (f" (the same for {len(others)} more card{'s' if len(others) > 1 else ''}: "
                f"{', '.join(others[:3])}{', ...' if len(others) > 3 else ''})") if others else ""
        report.error("render", first.message + more, card=card.id, loc=first.loc or card.where)
    for deck_id, deck in snapshot.game.decks.items():
        if deck.back and snapshot.cards_in_deck(deck_id):
            try:
                rendered.backs[deck_id] = renderer.render_back(deck_id)
            except CardgenError as exc:
                report.error("render", exc.message, loc=exc.loc or snapshot.game.source.loc("decks", deck_id))
                failed = True
    report.findings += renderer.findings
    rendered.warnings = list(renderer.warnings)
    rendered.shrunk = dict(renderer.shrunk)
    return None if failed else rendered


def _cause(exc: CardgenError, card: Card) -> tuple:
    """What a card's failure has in common with others of the same cause: its message without
    the card's name, and its place unless that is just the card's own entry (a template line
    failing for every card is one cause; a bad value on one card is its own)."""
    message = exc.message.replace(f"card '{card.id}'", "card '*'")
    return message, exc.loc if exc.loc not in (card.loc, card.where) else None
