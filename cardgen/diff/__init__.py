"""Differences between two versions of a game: for people, release notes, scripts and printers.

`diff_versions` compares two resolved snapshots (rules, style, symbols, cards and their effect
rows, deck and symbol counts) and works out which card faces must be printed again;
`formats` and `html` present the result; `changed_card_ids` alone serves update packs
(`cardgen build --only-changed-since`).
"""

from __future__ import annotations

from ..data.project import Project
from ..data.snapshot import Snapshot
from .compare import VersionDiff, compare
from .faces import card_faces, changed_between, changed_card_ids, reprint_order


def diff_versions(project: Project, old: Snapshot, new: Snapshot) -> VersionDiff:
    reprint = changed_between(card_faces(project, old), card_faces(project, new))
    return compare(old, new, reprint_order(new, reprint))


__all__ = ["VersionDiff", "changed_card_ids", "diff_versions"]
