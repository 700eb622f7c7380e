"""The diff as one self-contained HTML page: old and new card renders side by side.

The page must open anywhere (mailed, attached to an issue, opened offline), so it carries
everything inline: CSS in a <style> element and every card image as a PNG data: URI, no
fonts, scripts or links to fetch. Images are the trimmed card at 150 DPI (sharp at the size
shown, a few dozen kB each), rendered from the SVG through the build's cache. The page is
`diff.html.j2` beside this module; a project may restyle it with its own
`templates/common/diff.html.j2`, which takes precedence.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path

from jinja2 import (
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    StrictUndefined,
    select_autoescape,
)

from ..buildtypes import Face, Progress
from ..data.project import Project
from ..export.images import Shot, rasterise_shots, trim_frame
from ..units import mm_to_px
from .compare import VersionDiff, in_deck_order
from .faces import card_faces
from .formats import version_label

DPI = 150
TEMPLATE = "diff.html.j2"


@dataclass(frozen=True)
class Picture:
    card_id: str
    name: str
    old: str | None  # data: URI of the old face, None for an added card
    new: str | None  # data: URI of the new face, None for a removed card


def as_html(project: Project, diff: VersionDiff, workers: int | None = None,
            progress: Progress | None = None) -> str:
    old_faces, new_faces = card_faces(project, diff.old), card_faces(project, diff.new)
    changed = {c.id for c in diff.changed}
    added = {c.id for c in diff.added}
    wanted = [(cid, "old") for cid in [*changed, *diff.reprint] if cid in old_faces]
    wanted += [(cid, "new") for cid in [*changed, *diff.reprint] if cid in new_faces]
    wanted += [(c.id, "old") for c in diff.removed]
    uris = _data_uris(project, diff, {"old": old_faces, "new": new_faces}, sorted(set(wanted)), workers, progress)

    def picture(card) -> Picture:
        return Picture(card.id, card.name, uris.get((card.id, "old")), uris.get((card.id, "new")))

    restyled = [picture(c) for c in in_deck_order(diff.new)
                if c.id in diff.reprint and c.id not in changed and c.id not in added]
    loader = ChoiceLoader([FileSystemLoader(str(project.templates_dir / "common")),
                           FileSystemLoader(str(Path(__file__).parent))])
    env = Environment(loader=loader,
                      autoescape=select_autoescape(default=True), undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    template = env.get_template(TEMPLATE)  # always found: cardgen ships its own
    return template.render(
        diff=diff,
        old_label=version_label(diff.old),
        new_label=version_label(diff.new),
        changed=[(card, picture(card)) for card in diff.changed],
        added=[(card, picture(card)) for card in diff.added],
        removed=[(card, picture(card)) for card in diff.removed],
        restyled=restyled,
    )


def _data_uris(project: Project, diff: VersionDiff, faces: dict[str, dict[str, Face]],
               wanted: list[tuple[str, str]], workers: int | None, progress: Progress | None) -> dict:
    """PNG data: URIs of the trimmed faces, keyed by (card id, "old" | "new")."""
    shots = []
    for cid, side in wanted:
        face = faces[side][cid]
        bleed = (diff.old if side == "old" else diff.new).game.file.bleed_mm
        frame = trim_frame(face, bleed)
        shots.append(Shot(face, frame, (mm_to_px(frame.w, DPI), mm_to_px(frame.h, DPI))))
    paths = rasterise_shots(project, shots, workers, progress)
    return {key: "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")
            for key, path in zip(wanted, paths)}
