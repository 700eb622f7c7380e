"""Icons from the project's icons/ folder, inlined into SVG and tinted.

One drawing of an icon serves the cards and the rulebook, so a symbol looks the same in both:
`currentColor` becomes the tint, and the icon's ids get a suffix per icon and tint, so two
icons (or one icon in two colours) on the same card never share a gradient or clip path.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

from markupsafe import Markup

from ..errors import BuildError
from ..units import svg_number as _fmt

VIEWBOX_RE = re.compile(r'viewBox="([-\d.\s]+)"')
SVG_OPEN_RE = re.compile(r"<svg\b[^>]*>", re.S)
ID_RE = re.compile(r'id="([^"]+)"')


def inline_icon(icons_dir: Path, name: str | None, x: float, y: float, size: float, colour: str | None = None,
                opacity: float | None = None, height: float | None = None, fit: str = "meet") -> Markup:
    """icons_dir/<name>.svg drawn in the box (x, y, size, height or size); currentColor -> colour.

    fit: "meet" keeps the icon whole inside the box, "slice" covers the box (patterns),
    "none" stretches it.
    """
    if not name:
        return Markup("")
    viewbox, body = _icon_source(icons_dir, name)
    tint = colour or "#1f1a17"
    suffix = hashlib.sha1(f"{name}{tint}".encode()).hexdigest()[:6]
    body = body.replace("currentColor", tint)
    body = ID_RE.sub(lambda m: f'id="{m.group(1)}-{suffix}"', body)
    body = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{m.group(1)}-{suffix})", body)
    body = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{m.group(1)}-{suffix}"', body)
    op = f' opacity="{_fmt(opacity)}"' if opacity is not None else ""
    h = height if height is not None else size
    aspect = {"meet": "", "slice": ' preserveAspectRatio="xMidYMid slice"',
              "none": ' preserveAspectRatio="none"'}[fit]
    return Markup(
        f'<svg x="{_fmt(x)}" y="{_fmt(y)}" width="{_fmt(size)}" height="{_fmt(h)}" '
        f'viewBox="{viewbox}"{aspect}{op}>{body}</svg>'
    )


@functools.lru_cache(maxsize=512)
def _icon_source_cached(path: str, mtime_ns: int) -> tuple[str, str]:
    text = Path(path).read_text(encoding="utf-8")
    m = VIEWBOX_RE.search(text)
    viewbox = m.group(1) if m else "0 0 100 100"
    open_tag = SVG_OPEN_RE.search(text)
    start = open_tag.end() if open_tag else 0
    end = text.rfind("</svg>")
    return viewbox, text[start:end].strip()


def _icon_source(icons_dir: Path, name: str) -> tuple[str, str]:
    path = icons_dir / f"{name}.svg"
    if not path.is_file():
        raise BuildError(f"icon '{name}' not found (expected {path})")
    return _icon_source_cached(str(path), path.stat().st_mtime_ns)
