"""Content-addressed cache: a stage's output is keyed by the hash of everything it reads.

Rasterised cards are stored once per distinct SVG (+ fonts + renderer versions) under
build/.cache/ (`Project.cache_dir`), shared by every version and game of the project, so a
rebuild re-renders only what changed. Whole output files (sheets, rulebooks) are skipped when
the hash of their inputs matches the one recorded in the output folder's manifest.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from . import __version__


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def digest_of(*parts: Any) -> str:
    """A stable hash of JSON-able parts (paths and other objects are hashed by their str)."""
    return sha256_text(json.dumps(parts, sort_keys=True, default=str))


def files_digest(base: Path, files: Iterable[Path]) -> str:
    """Hash of the files' names (relative to `base`) and contents, in name order."""
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(str(path.relative_to(base)).encode())
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def tree_digest(base: Path, *folders: Path) -> str:
    """Hash of every file below `folders` (names relative to `base`), hashed afresh on each call."""
    return files_digest(base, (p for folder in folders for p in folder.rglob("*") if p.is_file()))


@functools.lru_cache(maxsize=1)
def toolchain_version() -> str:
    """Versions of what renders: a new cairosvg may draw differently, so it invalidates the cache."""
    from importlib.metadata import version

    # "png=...": what cardgen records in a PNG (DPI, sRGB profile) and how it encodes it (every
    # row filtered "Up", zlib level 3: cardgen.pngmeta); a change re-renders them
    parts = [f"cardgen={__version__}", "png=phys+srgb+up3"]
    for dist in ("cairosvg", "cairocffi", "pikepdf", "reportlab", "weasyprint", "Pillow"):
        try:
            parts.append(f"{dist}={version(dist)}")
        except Exception:
            parts.append(f"{dist}=?")
    return ";".join(parts)


class Cache:
    def __init__(self, root: Path):
        self.root = root

    def path(self, digest: str, suffix: str) -> Path:
        return self.root / digest[:2] / f"{digest}{suffix}"

    def has(self, digest: str, suffix: str) -> bool:
        return self.path(digest, suffix).is_file()


def place(source: Path, target: Path, *, link: bool = True) -> bool:
    """Put `source` at `target` (a hard link when possible and `link`). Returns True if target changed.

    Goes through `atomic_path` (a unique temporary name, so concurrent runs never collide, and
    the output folder's checks and manifest apply, see cardgen.outputs). link=False for a
    file of the render cache: a hard link would be the cache entry itself, and a user editing
    the output in place would change the render every later build and export reuses.
    """
    from .atomic import atomic_path

    if target.is_file() and not target.is_symlink() and target.stat().st_size == source.stat().st_size:
        if target.samefile(source) or target.read_bytes() == source.read_bytes():
            from .outputs import folder_for

            out = folder_for(target)  # an older cardgen's output, as cardgen makes it: adopted
            if out is not None:
                out.adopt_unchanged(target)
            return False
    with atomic_path(target) as tmp:
        tmp.unlink()
        if not (link and _hard_link(source, tmp)):
            shutil.copyfile(source, tmp)
    return True


def _hard_link(source: Path, target: Path) -> bool:
    try:
        os.link(source, target)
        return True
    except OSError:  # another file system, or one without links
        return False


class Manifest:
    """Which inputs produced each output file of a folder (output name -> digest of its inputs).

    Kept in the folder's one manifest (`files.MANIFEST`, beside the hashes of the files cardgen
    wrote; see cardgen.outputs): while the folder is open for writing, the record is the open
    folder's own and is saved with it, whether the command succeeds or fails, so an output is
    never taken for one made from other inputs. An older cardgen's second record
    (`files.OLD_MANIFEST`) is read where the manifest holds none.
    """

    def __init__(self, out_dir: Path):
        from .files import BuildFiles
        from .outputs import open_folder, read_inputs

        self.folder = out_dir
        self.file = BuildFiles(out_dir).manifest
        out = open_folder(out_dir)
        # the open folder's own dict: what is recorded here is saved when the folder closes
        self.entries: dict[str, str] = out.inputs if out is not None else read_inputs(out_dir)

    def fresh(self, output: Path, inputs: str) -> bool:
        """Made from these inputs, and still as cardgen wrote it: a sheet truncated or edited
        since is made again, not reported "(unchanged)"."""
        if not (output.is_file() and self.entries.get(output.name) == inputs):
            return False
        from .outputs import folder_for

        out = folder_for(output)  # (an older cardgen's output, its inputs recorded: adopted)
        return out is None or out.owns(output) or out.adopt_unchanged(output)

    def record(self, output: Path, inputs: str) -> None:
        self.entries[output.name] = inputs

    def forget_missing(self) -> None:
        """Drop records of outputs that are gone; a partial build keeps the others' records."""
        for name in [k for k in self.entries if not (self.folder / k).is_file()]:
            del self.entries[name]

    def save(self) -> None:
        from .outputs import save_inputs

        save_inputs(self.folder, self.entries)
