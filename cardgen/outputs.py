"""Output folders: the one safe way for a command to write files.

Every command that writes output opens its folder with `open_output`; a single named file
(`diff --out`, `simulate --report`, `table export --to`) goes through `open_output_file`, and
the commands whose job is to write the designer's own files (`i18n extract|update`, `schema
--write`) through `open_data_folder`. While an output folder is open:

- it is not a project source, whatever the spelling (relative, absolute, `..`, a symbolic link):
  the path is compared after resolving links (`refuse_sources`);
- one command at a time writes it: a lock file (`.cardgen-lock`) is held, and a second command
  stops at once with one clear line instead of racing for the same files. The lock is removed
  when the command ends, however it ends (a failure, Ctrl-C); one left by a process that was
  killed outright holds no lock any more, and the next command takes it over and removes it;
- every file written through `cardgen.atomic` below it is recorded, with its hash, in the
  folder's one manifest (`.cardgen-outputs`), which also holds the inputs each output was made
  from (`cache.Manifest`). A folder an older cardgen built is recognised: with the two
  manifests of before (`.cardgen-outputs` and `.cardgen-build.json`) its files are known from
  the first and its inputs read from the second, which is then folded into the one manifest
  and removed; with only `.cardgen-build.json` (before the outputs manifest) an output is
  adopted when its recorded inputs match or it holds the bytes cardgen would write (see
  `OutputFolder.adopt_unchanged`). A file cardgen did not record is never
  overwritten (unless it already holds the same bytes) and never deleted: `remove_stale`
  deletes only recorded files whose content is still what cardgen wrote;
- a file cardgen wrote that the user edited since (its hash no longer the recorded one) is kept
  and said so ("kept x.pdf: edited since cardgen wrote it; --force replaces it"); only a command
  opened with force=True (its `--force`) replaces it, and says what it replaced. A stage that
  would make such a file only to throw it away asks `keeps(path)` first;
- an OS error (a read-only folder, a full disk) ends the command with one line naming the path.

A single file is often written into a folder of the user's (the project root, the desktop), so
nothing is left beside it: the same checks hold (never a source, never a file cardgen did not
write unless --force where a command offers it), the write is atomic, and the record of what
cardgen wrote, with its lock, lives in the project's build folder (`build/.cardgen-files`).

    from cardgen.outputs import open_output, remove_stale
    with open_output(project, out_dir, "export foo", force=force) as out:
        atomic.write_bytes(out.root / "x.png", data)      # checked and recorded
        remove_stale(out.root, keep={"x.png"})           # deletes only cardgen's old files

Writers never need the returned object: `cardgen.atomic` finds the open folder itself. What
was kept or replaced is told when the folder closes (`notify`, by default a warning line on
stderr), never in the middle of a progress bar.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .builtin import BUILTIN_DIR
from .errors import BuildError, CardgenError, InputError, display_path
from .files import BOOKKEEPING, DATA_LOCK, FILES_LOCK, LOCK, MANIFEST, OLD_MANIFEST, Files

EDITED = "edited since cardgen wrote it"

_open: contextvars.ContextVar[tuple[OutputFolder, ...]] = contextvars.ContextVar("cardgen_outputs", default=())


class OutputFolder:
    """An output folder while a command holds it: what cardgen wrote there, by relative path.

    force: the command's --force was given, so a file the user edited since cardgen wrote it
    is replaced (and said so) instead of kept. force_option: how the user asks for that (None:
    the command offers no --force)."""

    def __init__(self, root: Path, *, force: bool = False, force_option: str | None = "--force"):
        self.root = root
        self.manifest = root / MANIFEST
        self.old_manifest = root / OLD_MANIFEST
        self.files, self.inputs = _read_manifest(self.manifest), read_inputs(root)
        # a folder an older cardgen built before the outputs manifest (it has only the old record
        # of inputs): its files are cardgen's (see adopt_unchanged)
        self.adopt = not self.manifest.exists() and self.old_manifest.is_file()
        self.force = force
        self.force_option = force_option
        # relative path -> the line telling what became of the user's edit: kept (true again on
        # every run until --force) or replaced (once)
        self.kept: dict[str, str] = {}
        self.replaced: dict[str, str] = {}

    def relative(self, path: Path) -> str | None:
        """`path` relative to this folder (after resolving links), or None if it lies outside."""
        try:
            return _resolve(path).relative_to(self.root).as_posix()
        except ValueError:
            return None

    def claim(self, path: Path) -> bool:
        """Before a write: may `path` be (re)placed? A file cardgen did not write is refused (an
        error); one it wrote and the user edited since is kept (False, and said so) unless force."""
        rel = self.relative(path)
        if rel is None or rel in BOOKKEEPING or self.adopt or not os.path.lexists(path):
            return True
        self.refuse_foreign(path)
        if self.owns(path):
            return True
        if self.force:
            self.replaced[rel] = f"replaced {display_path(path)}: {EDITED} ({self.force_option})"
        else:
            hint = (f"{self.force_option} replaces it" if self.force_option
                    else "move it away to have cardgen write it again")
            self.kept[rel] = f"kept {display_path(path)}: {EDITED}; {hint}"
        return self.force

    def refuse_foreign(self, path: Path) -> None:
        """A BuildError if `path` exists and cardgen never wrote it (whatever it holds now: a file
        cardgen keeps appending to, such as a study journal, asks only this)."""
        rel = self.relative(path)
        if rel is None or self.adopt or rel in self.files or not os.path.lexists(path):
            return
        raise BuildError(f"{display_path(path)} exists and was not written by cardgen; refusing to "
                         "replace it (move it away, or choose another output folder)")

    def notices(self) -> list[str]:
        """What became of the user's edits, in path order."""
        return [line for _, line in sorted({**self.kept, **self.replaced}.items())]

    def edited(self, path: Path) -> bool:
        """Written by cardgen, and changed since (edited, replaced by a link, truncated)."""
        rel = self.relative(path)
        return rel is not None and rel in self.files and os.path.lexists(path) and not self.owns(path)

    def record(self, path: Path, digest: str | None = None) -> None:
        rel = self.relative(path)
        if rel is not None and rel not in BOOKKEEPING:
            self.files[rel] = digest or _file_digest(path)

    def owns(self, path: Path) -> bool:
        """Was `path` written by cardgen, and does it still hold what cardgen wrote?"""
        rel = self.relative(path)
        if rel is None or rel not in self.files or not path.is_file() or path.is_symlink():
            return False
        return _file_digest(path) == self.files[rel]

    def adopt_unchanged(self, path: Path) -> bool:
        """In a folder an older cardgen built before it kept a manifest: `path` is one of its
        outputs, as cardgen would make it now (its recorded inputs match, or it holds the very
        bytes cardgen would write), so it is recorded as cardgen's. Only such evidence adopts a
        file: the rest of that folder may be the user's, and stays unrecorded. True if adopted."""
        rel = self.relative(path)
        if not self.adopt or rel is None or rel in BOOKKEEPING or not path.is_file() or path.is_symlink():
            return False
        self.files.setdefault(rel, _file_digest(path))
        return True

    def forget(self, path: Path) -> None:
        rel = self.relative(path)
        if rel is not None:
            self.files.pop(rel, None)

    def nothing_written(self) -> bool:
        """No file cardgen wrote here is present (a failed command's folder is then left as it was)."""
        return not any((self.root / rel).is_file() for rel in self.files)

    def save(self) -> None:
        """Write the one manifest: the files cardgen wrote that are still there, and the inputs
        they were made from. An older cardgen's second record is folded in, then removed."""
        old = self.old_manifest
        if old.is_file() and not old.is_symlink() and (self.adopt or self.owns(old)):
            old.unlink()
        self.files.pop(OLD_MANIFEST, None)
        present = {k: v for k, v in sorted(self.files.items()) if (self.root / k).is_file()}
        inputs = {k: v for k, v in sorted(self.inputs.items()) if k in present}
        _write_json(self.manifest, {"written_by": "cardgen", "files": present, "inputs": inputs})
        self.adopt = False


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _strings(data) -> dict[str, str]:
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _read_manifest(path: Path) -> dict[str, str]:
    """The files cardgen wrote into a folder, as its manifest lists them: relative path -> hash."""
    return _strings(_read_json(path).get("files"))


def _read_old_inputs(path: Path) -> dict[str, str]:
    """The record of inputs an older cardgen kept in OLD_MANIFEST: {output name: inputs}."""
    return _strings(_read_json(path))


def read_inputs(folder: Path) -> dict[str, str]:
    """What each output of `folder` was made from (output name -> digest of its inputs), as its
    manifest says (an older cardgen's record where the manifest has none)."""
    data = _read_json(folder / MANIFEST)
    return _strings(data["inputs"]) if "inputs" in data else _read_old_inputs(folder / OLD_MANIFEST)


def save_inputs(folder: Path, inputs: dict[str, str]) -> None:
    """Record `inputs` in the manifest of `folder`: through the open output folder when `folder`
    is one (it writes the manifest when it closes), else into the file directly."""
    out = open_folder(folder)
    if out is not None:
        if out.inputs is not inputs:
            out.inputs.clear()
            out.inputs.update(inputs)
        return
    data = _read_json(folder / MANIFEST)
    data.update({"written_by": "cardgen", "inputs": dict(sorted(inputs.items()))})
    data.setdefault("files", {})
    with os_errors():
        folder.mkdir(parents=True, exist_ok=True)
        _write_json(folder / MANIFEST, data)


# --- where writing is allowed ------------------------------------------------------------------


def _resolve(path: Path) -> Path:
    return Path(os.path.realpath(os.path.abspath(path)))


def source_paths(project) -> list[Path]:
    """What the designer wrote (resolved): never written into or over. Besides the project's
    sources: its git folder, the folders cardgen.yml lists as `protected`, and cardgen's own
    installed files (its code, fonts and templates)."""
    extra = [project.root / ".git", *(project.root / name for name in project.config.protected)]
    return [_resolve(p) for p in [*project.source_paths, *extra, BUILTIN_DIR.parent]]


def refuse_sources(project, path: Path, what: str = "write") -> Path:
    """`path` resolved, or InputError if it is the project folder itself or inside a source."""
    target = _resolve(path)
    if project is None:
        return target
    if target == _resolve(project.root):
        raise InputError(f"refusing to {what} into the project folder itself ({display_path(target)}); "
                         "use build/ or a new folder")
    for source in source_paths(project):
        if target == source or source in target.parents:
            raise InputError(f"refusing to {what} {display_path(path)}: it is (or is inside) "
                             f"{display_path(source)}, which holds your sources")
    return target


# --- opening a folder --------------------------------------------------------------------------


@contextlib.contextmanager
def open_output(project, folder: Path, command: str = "cardgen", *, force: bool = False,
                force_option: str | None = "--force",
                notify: Callable[[str], None] | None = None) -> Iterator[OutputFolder]:
    """Hold `folder` for writing: checked against the sources, locked, its writes recorded.

    `project` may be None for a folder outside any project. The manifest is saved whether the
    block succeeds or fails, so files already written stay known as cardgen's. force: replace
    the files the user edited since cardgen wrote them (the command's `force_option`; None: it
    has none). When the block succeeds, each edited file kept or replaced is told to `notify`
    (default: a warning line on stderr; a command that reports them itself reads the folder's
    `kept` and `replaced` and passes a notify that does nothing).
    """
    root = refuse_sources(project, folder)
    made = _missing_folders(root)
    with os_errors():
        root.mkdir(parents=True, exist_ok=True)
        if not root.is_dir():
            raise InputError(f"{display_path(folder)} is not a folder")
    try:
        with _lock(root, command):
            out = OutputFolder(root, force=force, force_option=force_option)
            token = _open.set(_open.get() + (out,))
            try:
                with os_errors():
                    yield out
            except BaseException:
                _open.reset(token)
                with contextlib.suppress(Exception):  # the first error is the one to show
                    if not (made and out.nothing_written()):
                        out.save()
                raise
            _open.reset(token)
            with os_errors():
                out.save()
    except BaseException:
        _remove_empty(made)  # a command that failed before writing leaves no folder it made
        raise
    for line in out.notices():
        (notify or _warn)(line)


def _missing_folders(root: Path) -> list[Path]:
    """The folders `root.mkdir(parents=True)` will make, deepest first."""
    missing = []
    for folder in (root, *root.parents):
        if os.path.lexists(folder):
            break
        missing.append(folder)
    return missing


def _remove_empty(folders: list[Path]) -> None:
    """Remove these folders, deepest first, each only while it is empty (os.rmdir refuses
    otherwise): anything put there meanwhile, by anyone, stays."""
    for folder in folders:
        try:
            os.rmdir(folder)
        except OSError:
            return


def _warn(line: str) -> None:
    print(f"warning: {line}", file=sys.stderr)


def keeps(path: Path) -> bool:
    """Will `path` stay as it is: cardgen wrote it, the user edited it since, and the command has
    no --force? (Then it is said once.) A stage asks before making an output it would only throw
    away; a file cardgen never wrote is refused here already (BuildError)."""
    out = folder_for(path)
    return out is not None and not out.claim(path)


# --- one named file (`diff --out notes.md`, `simulate --report r.html`, `table export --to x.csv`)
#
# A single file is often written into a folder of the user's (the project root, the desktop):
# nothing is left beside it. What cardgen wrote is recorded in the project's build folder
# instead (FILES_RECORD: resolved path -> hash), under a lock of its own there; the write
# itself is atomic, so two commands writing the same file never leave a mixed one.


def check_output_file(project, path: Path, *, new_in_data: bool = False, force_option: str | None = None,
                      force: bool = False) -> Path:
    """`path` resolved, or an InputError: it is a source (or inside one), a folder, or an
    existing file cardgen did not write (recorded, and unchanged since).

    new_in_data: a new file may be created in the project's versions/ or card_data/ (a table a
    version will read), but an existing file there is never replaced. force: the user passed
    `force_option`, so an existing file that is not a source may be replaced.
    """
    target = _resolve(path)
    if target.is_dir():
        raise InputError(f"{display_path(path)} is a folder; expected a file name")
    exists = os.path.lexists(path)
    data = [] if project is None else [_resolve(project.versions_dir), _resolve(project.card_data)]
    if new_in_data and any(folder in target.parents for folder in data):
        if exists:
            raise InputError(f"{display_path(path)} is a project source; cardgen never overwrites one "
                             "(write a new file, then point the version at it)")
        return target
    refuse_sources(project, path, "write")
    if exists and not force and not _recorded(project, target):
        hint = f"pass {force_option} to replace it" if force_option else "move it away, or choose another file name"
        raise InputError(f"{display_path(path)} exists and was not written by cardgen; {hint}")
    return target


@contextlib.contextmanager
def open_output_file(project, path: Path, command: str = "cardgen", *, new_in_data: bool = False,
                     force_option: str | None = None, force: bool = False) -> Iterator[Path]:
    """Check `path` (see check_output_file) under the record's lock, yield it for one atomic
    write (cardgen.atomic), then record what was written. Nothing is left beside the file."""
    record = _record_path(project)
    with _build_lock(record, command, FILES_LOCK):
        target = check_output_file(project, path, new_in_data=new_in_data, force_option=force_option, force=force)
        forced = force and target.is_file() and not _recorded(project, target)
        with os_errors():
            yield Path(path)
        if forced:  # --force replaced a file cardgen had not written (or the user had edited): say so
            _warn(f"replaced {display_path(path)} ({force_option})")
        if record is not None and target.is_file():
            with os_errors():
                files = _read_record(record)
                files[str(target)] = _file_digest(target)
                _write_json(record, {"written_by": "cardgen", "files": dict(sorted(files.items()))})


def check_output_folder(project, folder: Path, paths) -> Path:
    """Before the work starts: `folder` is no source, and none of `paths` (the files a command
    will write there) is an existing file cardgen did not write. Returns the folder resolved."""
    root = refuse_sources(project, folder, "write into")
    out = OutputFolder(root) if root.is_dir() else None
    for path in paths:
        rel = out.relative(Path(path)) if out is not None else None
        if os.path.lexists(path) and not (out is not None and (out.adopt or rel in out.files)):
            raise InputError(f"{display_path(Path(path))} exists and was not written by cardgen; refusing to "
                             "replace it (move it away, or choose another folder)")
    return root


@contextlib.contextmanager
def open_data_folder(project, folder: Path, within: Path, command: str) -> Iterator[Callable[[Path], Path]]:
    """For a command whose job is to write the designer's own files (`i18n extract|update`
    write a game's PO catalogs): every file it writes must lie inside `within` after resolving
    links (a `locale` link leading elsewhere is refused: call the yielded check on each path),
    one such command runs at a time (its lock is kept in build/, not among the sources), and an
    OS error is one line."""
    def check(path: Path) -> Path:
        target, inside = _resolve(path), _resolve(within)
        if target != inside and inside not in target.parents:
            place = ("the project" if project is not None and inside == _resolve(project.root)
                     else f"{display_path(within)}/")
            raise InputError(f"{display_path(path)} leads outside {place} (to {target}); "
                             f"`cardgen {command}` writes only inside {place}")
        return path

    check(folder)
    with _build_lock(_record_path(project), command, DATA_LOCK):
        with os_errors():
            yield check


@contextlib.contextmanager
def _build_lock(record: Path | None, command: str, name: str) -> Iterator[None]:
    """The lock `name` beside the project's record in build/ (none where there is no record)."""
    if record is None:
        yield
        return
    with os_errors():
        record.parent.mkdir(parents=True, exist_ok=True)
    with _lock(record.parent, command, name):
        yield


def _record_path(project) -> Path | None:
    return None if project is None else Files(Path(project.build_dir)).record


def _recorded(project, target: Path) -> bool:
    """Did cardgen write `target` (as a single file), and does it still hold what it wrote?"""
    record = _record_path(project)
    if record is None or not target.is_file() or target.is_symlink():
        return False
    digest = _read_record(record).get(str(target))
    return digest is not None and digest == _file_digest(target)


def _read_record(record: Path) -> dict[str, str]:
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
        files = data.get("files", {}) if isinstance(data, dict) else {}
        return {str(k): str(v) for k, v in files.items()}
    except (OSError, ValueError):
        return {}


def open_folder(folder: Path) -> OutputFolder | None:
    """The open output folder whose root is `folder` (None: `folder` is not open)."""
    root = _resolve(folder)
    return next((out for out in _open.get() if out.root == root), None)


def folder_for(path: Path) -> OutputFolder | None:
    """The innermost open output folder holding `path` (None: not inside one)."""
    best = None
    for out in _open.get():
        if out.relative(path) is not None and (best is None or best.root in out.root.parents):
            best = out
    return best


def remove_stale(folder: Path, keep: Iterable[str], owned=None) -> list[Path]:
    """Delete the files in `folder` that cardgen wrote earlier and did not keep this run.

    Only files recorded in the open output folder's manifest, still holding what cardgen
    wrote, are deleted (and optionally only names `owned(name)` accepts); anything else in
    the folder (the user's files, files edited since) is left alone. Returns what was deleted.
    """
    keep = set(keep)
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    for path in sorted(folder.iterdir()):
        if path.name in keep or path.name in BOOKKEEPING or not path.is_file():
            continue
        if owned is not None and not owned(path.name):
            continue
        if remove_output(path):
            removed.append(path)
    return removed


def remove_output(path: Path) -> bool:
    """Delete `path` if cardgen wrote it and it still holds what cardgen wrote; True if deleted.

    A file the user edited since stays, even with --force (that replaces what a command
    writes; it never deletes the user's work), and is said so; anything else is left quietly."""
    out = folder_for(path)
    if out is None:
        return False
    if out.owns(path):
        with os_errors():
            path.unlink()
        out.forget(path)
        return True
    if out.edited(path):
        rel = out.relative(path)
        assert rel is not None  # edited() found it in the folder
        out.kept[rel] = f"kept {display_path(path)}: {EDITED}, and no longer made by this command"
    return False


# --- errors ------------------------------------------------------------------------------------


@contextlib.contextmanager
def os_errors() -> Iterator[None]:
    """Turn an OS error while writing (read-only folder, disk full) into one line naming the path."""
    try:
        yield
    except OSError as exc:
        if isinstance(exc, (BlockingIOError, InterruptedError)):
            raise
        raise BuildError(os_error_message(exc)) from None


def os_error_message(exc: OSError) -> str:
    where = exc.filename
    reason = exc.strerror or type(exc).__name__
    if where is None:
        return f"cannot write output: {reason}"
    return f"cannot write {display_path(Path(str(where)))}: {reason}"


@contextlib.contextmanager
def _lock(root: Path, command: str, name: str = LOCK) -> Iterator[None]:
    """An exclusive lock on root/<name>, removed when the block ends however it ends.

    The lock is the operating system's (flock), held on the open file: a process killed
    outright holds it no more, so the file it leaves behind is taken over by the next command
    (and removed when that one ends). The file is removed while still locked, so a command
    that opened it meanwhile finds, once it has the lock, that it locked a removed file, and
    starts again on the path's new file: two commands never both hold the folder."""
    path = root / name
    handle = _acquire(path, root)
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(f"`cardgen {command}` (process {os.getpid()})\n")
        handle.flush()
        yield
    finally:
        _release(path, handle)


def _acquire(path: Path, root: Path):
    """The open, locked lock file at `path`; a BuildError naming its holder if a live command has it."""
    while True:
        with os_errors():
            handle = open(path, "a+", encoding="utf-8")
        if not _try_lock(handle):
            handle.seek(0)
            holder = handle.read().strip() or "another cardgen command"
            handle.close()
            raise BuildError(f"{display_path(root)} is being written by {holder}; wait until it "
                             "finishes (one cardgen command at a time per output folder)")
        if _same_file(handle, path):
            return handle
        handle.close()  # the holder before us removed it as we opened it: lock the new one


def _same_file(handle, path: Path) -> bool:
    try:
        mine, now = os.fstat(handle.fileno()), os.stat(path)
    except OSError:
        return False
    return (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)


def _release(path: Path, handle) -> None:
    """Remove the lock file, then release the lock (closing the file releases it)."""
    if sys.platform == "win32":  # an open file cannot be removed there: close first
        handle.close()
        with contextlib.suppress(OSError):  # another command opened it meanwhile: it is theirs
            path.unlink()
        return
    try:
        if _same_file(handle, path):
            with contextlib.suppress(OSError):
                path.unlink()
    finally:
        handle.close()


def clear_stale_lock(folder: Path) -> None:
    """Remove the lock file a killed command left in `folder` (a command that writes nothing,
    such as an up-to-date `build`, still leaves no lock behind); one a live command holds stays."""
    path = folder / LOCK
    if not path.is_file():
        return
    try:
        handle = _acquire(path, folder)
    except CardgenError:
        return
    _release(path, handle)


def _try_lock(handle) -> bool:
    if sys.platform == "win32":
        import msvcrt

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False


def _write_json(path: Path, data: dict) -> None:
    """Write a record atomically (by hand: cardgen.atomic records writes here, so it cannot be
    used to write the record itself)."""
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f"{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def bytes_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
