"""Which cards must be printed again: the ones whose printed face differs between two versions.

A card counts as changed when its rendered SVG face differs, or when it is new. Rendering
(about 0.1 s for a whole game) is the only exact answer: a face changes with the card's own
data (name, art, fields, effects) but also with a version's `style` (V3's more visible art),
a symbol's colour or icon, or a rule a template chooses to print; comparing data would have
to guess what each template reads. A different `count` alone is not a face change: the
copies you already printed stay valid (print or discard the difference); the designer's
`note` is not printed either. `cardgen build --only-changed-since` prints exactly these cards.
"""

from __future__ import annotations

from ..buildtypes import Face
from ..cardstage import draw_cards
from ..data.project import Project, find_project
from ..data.snapshot import Snapshot
from .compare import in_deck_order


def changed_card_ids(old: Snapshot, new: Snapshot, project: Project | None = None) -> set[str]:
    """Ids of cards of `new` that are new, or whose printed face differs from `old`.

    `project` defaults to the project holding the game (found from the game's folder), which
    is the one whose templates and icons both snapshots were loaded with.
    """
    project = project or find_project(new.game.dir)
    return changed_between(card_faces(project, old), card_faces(project, new))


def card_faces(project: Project, snapshot: Snapshot) -> dict[str, Face]:
    """Every card's face as SVG, by card id, drawn by the card stage without its checks (the diff
    reports no findings, and compares versions whose data may be wrong); a card that does not
    render stops it with its one-line error (ValidationFailed), as it stops `build`."""
    return dict(draw_cards(project, snapshot, checks=False).faces("compared").faces)


def changed_between(old_faces: dict[str, Face], new_faces: dict[str, Face]) -> set[str]:
    return {cid for cid, face in new_faces.items()
            if cid not in old_faces or old_faces[cid].svg != face.svg}


def reprint_order(new: Snapshot, ids: set[str]) -> list[str]:
    """The ids in deck order, as every other list of the diff (stable output for scripts)."""
    return [card.id for card in in_deck_order(new) if card.id in ids]
