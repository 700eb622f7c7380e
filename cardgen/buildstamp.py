"""A whole build's fingerprint, so that a rebuild with nothing changed does nothing.

The stages cache their own work (cards by their SVG, sheets and rulebooks by their inputs), but
finding that out still means loading the data, rendering every SVG and importing the renderers:
about a second. `cardgen build` first takes the digest of everything a build reads:

- every file of the project's sources (cardgen.yml, card_data/, versions/, templates/, icons/,
  fonts/, schema/), by name and content;
- cardgen's own files (its code, templates, fonts, icons and catalogs), by content, and the
  versions of the libraries that draw (`cache.toolchain_version`) and of Python;
- the options that change what is written (not --jobs, --quiet or --timings), the project's
  folder, and SOURCE_DATE_EPOCH (the rulebooks' date).

When the last successful build with the same options had the same digest, and every file it
wrote is still there as it left it (size and modification time), the build prints that build's
report as a rebuild would and writes nothing. Anything else runs the build. The record, one per
project and set of options, lives in the cache folder (build/.cache/stamps/).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from .atomic import write_text
from .cache import digest_of, toolchain_version
from .errors import CardgenError

FORMAT = 2  # 2: files listed by os.walk, sorted as strings
PACKAGE_DIR = Path(__file__).resolve().parent


def stamp_path(root: Path, cache: Path, options: dict[str, Any]) -> Path:
    """Where the record of the last build with these options of the project at `root` lives
    (`cache`: the project's cache folder)."""
    key = digest_of(FORMAT, str(root.resolve()), options)
    return cache / "stamps" / f"{key}.json"


def fingerprint(root: Path, sources: list[Path], options: dict[str, Any]) -> str | None:
    """The digest of everything a build with `options` of the project at `root`, whose sources
    are `sources` (files and folders), reads (see the module docstring). It needs no loaded
    project: a rebuild with nothing changed imports neither the data model nor a renderer. None
    when a file cannot be read: the build then runs, and says so in its own words."""
    h = hashlib.sha256()
    h.update(digest_of(FORMAT, str(root.resolve()), options, toolchain_version(), sys.version,
                       os.environ.get("SOURCE_DATE_EPOCH")).encode())
    try:
        for base, folders in ((root, sources), (PACKAGE_DIR, [PACKAGE_DIR])):
            for name in _files(str(base), [str(f) for f in folders]):
                h.update(b"\0" + name.encode() + b"\0")
                with open(os.path.join(base, name), "rb") as file:
                    h.update(hashlib.sha256(file.read()).digest())
    except OSError:  # unreadable (or gone meanwhile): no stamp to trust either way
        return None
    return h.hexdigest()


def _files(base: str, folders: list[str]) -> list[str]:
    """Every file in `folders` (files or folders under `base`), by its path relative to `base`,
    sorted; not __pycache__. Plain strings and os.walk: this runs before every rebuild."""
    found = []
    for folder in folders:
        if os.path.isfile(folder):
            found.append(os.path.relpath(folder, base))
        for top, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            rel = os.path.relpath(top, base)
            found += [os.path.join(rel, f) for f in files if os.path.isfile(os.path.join(top, f))]
    return sorted(found)


def recall(root: Path, cache: Path, options: dict[str, Any], digest: str) -> dict | None:
    """The last build's report, if it read exactly what this one would and its files are intact."""
    try:
        record = json.loads(stamp_path(root, cache, options).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("fingerprint") != digest:
        return None
    for name, (size, mtime) in record.get("files", {}).items():
        try:
            stat = os.stat(name)
        except OSError:
            return None
        if (stat.st_size, stat.st_mtime_ns) != (size, mtime):
            return None
    return record.get("report")


def remember(root: Path, cache: Path, options: dict[str, Any], digest: str, out_dir: Path, report: dict) -> None:
    """Record a successful build: its digest, its report and the state of every file it wrote."""
    from .outputs import OutputFolder

    files = {}
    for rel in OutputFolder(out_dir.resolve()).files:
        path = out_dir.resolve() / rel
        try:
            stat = path.stat()
        except OSError:
            continue
        files[str(path)] = [stat.st_size, stat.st_mtime_ns]
    record = {"written_by": "cardgen", "fingerprint": digest, "files": files, "report": report}
    try:
        write_text(stamp_path(root, cache, options), json.dumps(record, sort_keys=True))
    except CardgenError:  # a stamp that cannot be written costs the next rebuild time, nothing else
        pass
