"""Where Tabletop Simulator keeps saved objects, and putting an export there.

TTS lists every JSON below its "Saved Objects" folder (subfolders included) under
Objects > Saved Objects, with the PNG of the same name as its thumbnail. We install a game's
decks into a subfolder named after the game, next to their images, and point the JSON at the
installed images (or at --base-url), so the build folder can be deleted afterwards.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path
from typing import Callable

from .. import atomic
from ..data.snapshot import Snapshot
from .images import remove_stale
from .tts import DeckObject, export_stem, owned_by, write_objects

_UNSAFE = re.compile(r'[<>:"/\\|?*\x00-\x1f]+')


def saved_objects_dir(platform: str = sys.platform, home: Path | None = None) -> Path:
    """TTS's Saved Objects folder on this system (below the user's home folder)."""
    home = home or Path.home()
    if platform.startswith("win"):
        return home / "Documents" / "My Games" / "Tabletop Simulator" / "Saves" / "Saved Objects"
    if platform == "darwin":
        return home / "Library" / "Tabletop Simulator" / "Saves" / "Saved Objects"
    return home / ".local" / "share" / "Tabletop Simulator" / "Saves" / "Saved Objects"


def folder_name(game_name: str) -> str:
    """The game's name as a folder name every system accepts."""
    return _UNSAFE.sub("-", game_name).strip(" .") or "cardgen"


def file_url(path: Path) -> str:
    """A file:/// URL the way TTS writes local images itself: absolute, forward slashes, unescaped."""
    return "file:///" + path.resolve().as_posix().lstrip("/")


def install_objects(objects: list[DeckObject], snapshot: Snapshot, source: Path, target: Path,
            url_for: Callable[[str], str]) -> None:
    """Copy an export's images into `target`, write its JSONs there, drop what an earlier install left."""
    target.mkdir(parents=True, exist_ok=True)
    images = sorted({name for obj in objects for name in obj.image_files})
    for name in images:
        with atomic.atomic_path(target / name) as tmp:
            shutil.copyfile(source / name, tmp)
    write_objects(objects, snapshot, target, url_for)
    stem = export_stem(snapshot)
    remove_stale(target, set(images) | {obj.file for obj in objects}, owned_by(stem))
