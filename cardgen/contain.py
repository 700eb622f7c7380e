"""Containment: a build reads only the project's own files (and cardgen's), nothing else.

Every path that comes from data or templates (an art or icon name, `icon('...')` in an effect
sentence, a template name, a plug-in, a file: URL in a card) goes through `inside`, which
resolves symbolic links and `..` first, so no spelling (relative, absolute, a link placed in
icons/) reaches a file outside the folder it belongs to. Icons must also really be SVG
(`read_icon`): text, PNG bytes, an empty file or an SVG with entity declarations is an error
naming the file, never pasted into a card.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit
from xml.etree import ElementTree

from jinja2 import FileSystemLoader, TemplateNotFound

from .errors import BuildError, Loc, display_path

NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*(/[A-Za-z0-9_][A-Za-z0-9_.\-]*)*$")
MAX_ICON_BYTES = 2_000_000


class OutsideProject(BuildError):
    """A path in the data or a template that leads outside where it may."""


def resolved(path: Path) -> Path:
    return Path(os.path.realpath(os.path.abspath(path)))


def is_inside(root: Path, path: Path) -> bool:
    # both resolved, so comparing names is enough (and `root in path.parents` walked the
    # parents one Path at a time)
    return resolved(path).is_relative_to(resolved(root))


def inside(root: Path, relative: str, what: str, loc: Loc | None = None, suffix: str = "",
           real_root: Path | None = None) -> Path:
    """root/relative+suffix, after checking that the name is a plain relative name and that the
    file (after resolving links) is inside `root` (`real_root`: `root` already resolved, by a
    caller that checks many names in it at once)."""
    if not isinstance(relative, str) or not NAME_RE.match(relative) or ".." in relative.split("/"):
        raise OutsideProject(f"{what} '{relative}' is not a plain relative name (expected letters, digits, "
                             f"'-', '_', '.', and '/' between folders, inside {display_path(root)}/)", loc)
    path = root / f"{relative}{suffix}"
    if not resolved(path).is_relative_to(real_root or resolved(root)):
        raise OutsideProject(f"{what} '{relative}' leads outside {display_path(root)}/ "
                             f"(to {resolved(path)}); a build reads only the project's files", loc)
    return path


# --- icons -------------------------------------------------------------------------------------


class BadIcon(BuildError):
    """An icon file that is not a usable SVG."""


def icon_path(icons_dir: Path, name: str, loc: Loc | None = None, real_dir: Path | None = None) -> Path:
    path = inside(icons_dir, name, "icon", loc, ".svg", real_dir)
    if not path.is_file():
        raise BadIcon(f"icon '{name}' not found (expected {display_path(path)})", loc)
    return path


def read_icon(icons_dir: Path, name: str, loc: Loc | None = None, real_dir: Path | None = None) -> tuple[str, str]:
    """(viewBox, body) of icons/<name>.svg, checked: inside icons/, an SVG document, no entities
    (`real_dir`: `icons_dir` resolved, see `inside`)."""
    path = icon_path(icons_dir, name, loc, real_dir)
    stat = path.stat()
    return _read_icon(str(path), stat.st_mtime_ns, stat.st_size, str(loc) if loc else "")


class Icons:
    """The icons of one pass over a version (a card stage's drawing, a rulebook's HTML, a
    validation): each name is found, checked and read once (`read_icon`), not at every use.

    Finding one resolves the file through every link (a `realpath`, about 0.05 ms with the
    check), and the folder once per pass: a card stage asked for The King's Blade 3.1's 20
    icons 226 times. A pass sees the folder as it was when it first read each name; the next
    pass (a new stage: `cardgen serve` after an edit) reads them again. A name that fails is
    not remembered: it fails again, each time with its own location.
    """

    def __init__(self, icons_dir: Path):
        self.icons_dir = icons_dir
        self._real_dir: Path | None = None
        self._read: dict[str, tuple[str, str]] = {}

    def read(self, name: str, loc: Loc | None = None) -> tuple[str, str]:
        """`read_icon(icons_dir, name, loc)`, once per name."""
        found = self._read.get(name)
        if found is None:
            if self._real_dir is None:
                self._real_dir = resolved(self.icons_dir)
            found = self._read[name] = read_icon(self.icons_dir, name, loc, self._real_dir)
        return found


VIEWBOX_RE = re.compile(r'viewBox="([-\d.\s]+)"')
SVG_OPEN_RE = re.compile(r"<svg\b[^>]*>", re.S)


@functools.lru_cache(maxsize=512)
def _read_icon(path: str, mtime_ns: int, size: int, where: str) -> tuple[str, str]:
    file = Path(path)
    shown = display_path(file)
    if size == 0:
        raise BadIcon(f"icon {shown} is empty; expected an SVG document")
    if size > MAX_ICON_BYTES:
        raise BadIcon(f"icon {shown} is {size:,} bytes; expected at most {MAX_ICON_BYTES:,}")
    raw = file.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        kind = "a PNG image" if raw.startswith(b"\x89PNG") else "binary data"
        raise BadIcon(f"icon {shown} is {kind}, not SVG text; expected an SVG document") from None
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise BadIcon(f"icon {shown} declares a DOCTYPE or entities; save it as plain SVG without them")
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        line, column = exc.position
        raise BadIcon(f"icon is not well-formed XML: {exc.msg if hasattr(exc, 'msg') else exc}",
                      Loc(file, line, column + 1)) from None
    if root.tag not in ("{http://www.w3.org/2000/svg}svg", "svg"):
        raise BadIcon(f"icon {shown} is not SVG (its root element is <{root.tag.split('}')[-1]}>, expected <svg>)")
    bad = external_refs(text)
    if bad:
        raise BadIcon(f"icon {shown} refers to {bad[0]!r}; icons must be self-contained (only #ids and data: URLs)")
    m = VIEWBOX_RE.search(text)
    viewbox = m.group(1) if m else "0 0 100 100"
    open_tag = SVG_OPEN_RE.search(text)
    start = open_tag.end() if open_tag else 0
    end = text.rfind("</svg>")
    return viewbox, text[start:end].strip()


# --- references inside a card's SVG ------------------------------------------------------------

_REF_RE = re.compile(r"""(?:\bhref\s*=\s*|\bsrc\s*=\s*)(["'])(.*?)\1|url\(\s*(["']?)([^)"']*)\3\s*\)|@import\s+(["'])(.*?)\5""",
                     re.S | re.I)


_REF_WORDS = ("href", "src", "url(", "@import")  # every reference _REF_RE finds holds one of them
_REF_ODD = "\u0130\u0131\u017f"  # İ ı ſ: re.I matches them to i and s, str.lower() does not


def external_refs(svg: str) -> list[str]:
    """Every reference in `svg` that is neither a fragment (#id) nor inline data: (a file, a URL)."""
    lowered = svg.lower()  # a card without any of the words is done in a pass, not a regex scan
    if not any(word in lowered for word in _REF_WORDS) and not any(char in svg for char in _REF_ODD):
        return []
    refs = []
    for m in _REF_RE.finditer(svg):
        ref = (m.group(2) if m.group(2) is not None else m.group(4) if m.group(4) is not None else m.group(6)) or ""
        ref = ref.strip()
        if ref and not ref.startswith("#") and not ref.lower().startswith("data:"):
            refs.append(ref)
    return refs


def check_card_refs(svg: str, project_root: Path, what: str, loc: Loc | None) -> None:
    """A card may use files of the project (file: URLs inside it) but nothing else."""
    for ref in external_refs(svg):
        parts = urlsplit(ref)
        if parts.scheme.lower() != "file":
            raise OutsideProject(f"{what} refers to {ref!r}: a card may use only #ids, data: URLs and "
                                 "file: URLs of files inside the project; builds never use the network", loc)
        path = Path(unquote(parts.path))
        if not is_inside(project_root, path):
            raise OutsideProject(f"{what} refers to {ref!r}, outside the project folder "
                                 f"{display_path(project_root)}; a build reads only the project's files", loc)


# --- templates ---------------------------------------------------------------------------------


class ContainedLoader(FileSystemLoader):
    """FileSystemLoader that refuses a template whose file (after links) is outside every one of
    `roots` (the project's templates/, cardgen's built-in templates)."""

    def __init__(self, searchpath, roots, **kw):
        super().__init__([str(p) for p in searchpath], **kw)
        self.roots = [resolved(Path(root)) for root in roots]

    def get_source(self, environment, template):
        source, filename, uptodate = super().get_source(environment, template)
        if filename is None or not any(is_inside(root, Path(filename)) for root in self.roots):
            allowed = " or ".join(f"{display_path(root)}/" for root in self.roots)
            raise TemplateNotFound(f"{template} (its file leads outside {allowed} "
                                   f"to {resolved(Path(filename or template))})")
        return source, filename, uptodate
