"""Atomic file output: a reader never sees a half-written file, and a failed build leaves none.

Inside an output folder opened with `cardgen.outputs.open_output`, every write is first checked
(cardgen never replaces a file it did not write, nor without --force one the user edited since it
wrote it) and then recorded in the folder's manifest, so that later runs know which files are
cardgen's to replace or delete.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_path(target: Path | str) -> Iterator[Path]:
    """Yield a temporary path beside `target`; move it over `target` only if the block succeeds
    (and the output folder lets it: a file the user edited stays, see `cardgen.outputs`)."""
    from .outputs import folder_for, os_errors

    target = Path(target)
    out = folder_for(target)
    replace = out.claim(target) if out is not None else True
    with os_errors():
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.close(fd)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; outputs are ordinary files
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        if not replace:  # the user's edit stays; what was made is dropped
            return
        with os_errors():
            os.replace(tmp_path, target)
        if out is not None:
            out.record(target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_bytes(target: Path | str, data: bytes) -> None:
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def write_text(target: Path | str, text: str) -> None:
    write_bytes(target, text.encode("utf-8"))


def write_if_changed(target: Path | str, data: bytes) -> bool:
    """Atomically write `data` unless the file already holds exactly it; True if written.

    A file left as it was in a folder an older cardgen built holds what cardgen writes, so it
    is recorded as cardgen's (`outputs.OutputFolder.adopt_unchanged`)."""
    from .outputs import folder_for

    target = Path(target)
    if target.is_file() and target.read_bytes() == data:
        out = folder_for(target)
        if out is not None:
            out.adopt_unchanged(target)
        return False
    write_bytes(target, data)
    return True
