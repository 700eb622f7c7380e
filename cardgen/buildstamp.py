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

FORMAT = 1
PACKAGE_DIR = Path(__file__).resolve().parent


def stamp_path(project, options: dict[str, Any]) -> Path:
    """Where the record of the last build with these options of this project lives."""
    key = digest_of(FORMAT, str(project.root.resolve()), options)
    return project.cache_dir / "stamps" / f"{key}.json"


def fingerprint(project, options: dict[str, Any]) -> str:
    """The digest of everything a build with `options` reads (see the module docstring)."""
    h = hashlib.sha256()
    h.update(digest_of(FORMAT, str(project.root.resolve()), options, toolchain_version(), sys.version,
                       os.environ.get("SOURCE_DATE_EPOCH")).encode())
    for base, folders in ((project.root, project.source_paths), (PACKAGE_DIR, [PACKAGE_DIR])):
        for path in sorted(_files(folders)):
            h.update(b"\0" + str(path.relative_to(base)).encode() + b"\0")
            h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def _files(folders) -> list[Path]:
    found = []
    for folder in folders:
        if folder.is_file():
            found.append(folder)
        elif folder.is_dir():
            found += [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return found


def recall(project, options: dict[str, Any], digest: str) -> dict | None:
    """The last build's report, if it read exactly what this one would and its files are intact."""
    try:
        record = json.loads(stamp_path(project, options).read_text(encoding="utf-8"))
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


def remember(project, options: dict[str, Any], digest: str, out_dir: Path, report: dict) -> None:
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
        write_text(stamp_path(project, options), json.dumps(record, sort_keys=True))
    except CardgenError:  # a stamp that cannot be written costs the next rebuild time, nothing else
        pass
