"""Icons from the project's icons/ folder, inlined into SVG and tinted.

Every icon is read through `contain.read_icon` (once per stage, `contain.Icons`): a name leading
outside icons/ (after links) or a file that is not plain SVG is an error naming it, never pasted
into a card.

One drawing of an icon serves the cards and the rulebook, so a symbol looks the same in both:
`currentColor` becomes the tint, and the icon's ids get a suffix per icon and tint, so two
icons (or one icon in two colours) on the same card never share a gradient or clip path.
"""

from __future__ import annotations

import functools
import hashlib
import re

from markupsafe import Markup

from .. import contain
from ..units import svg_number as _fmt

ID_RE = re.compile(r'id="([^"]+)"')
URL_RE = re.compile(r"url\(#([^)]+)\)")
HREF_RE = re.compile(r'href="#([^"]+)"')


def inline_icon(icons: contain.Icons, name: str | None, x: float, y: float, size: float, colour: str | None = None,
                opacity: float | None = None, height: float | None = None, fit: str = "meet") -> Markup:
    """icons/<name>.svg drawn in the box (x, y, size, height or size); currentColor -> colour.

    fit: "meet" keeps the icon whole inside the box, "slice" covers the box (patterns),
    "none" stretches it.
    """
    if not name:
        return Markup("")
    viewbox, body = icons.read(name)  # inside icons/ after links, and really SVG
    body = _tinted(body, name, colour or "#1f1a17")
    op = f' opacity="{_fmt(opacity)}"' if opacity is not None else ""
    h = height if height is not None else size
    aspect = {"meet": "", "slice": ' preserveAspectRatio="xMidYMid slice"',
              "none": ' preserveAspectRatio="none"'}[fit]
    return Markup(
        f'<svg x="{_fmt(x)}" y="{_fmt(y)}" width="{_fmt(size)}" height="{_fmt(h)}" '
        f'viewBox="{viewbox}"{aspect}{op}>{body}</svg>'
    )


@functools.lru_cache(maxsize=1024)
def _tinted(body: str, name: str, tint: str) -> str:
    """The icon's body in `tint`, its ids suffixed per icon and tint: a function of the text
    read, kept, as the same few icons are drawn in the same few colours on every card."""
    suffix = hashlib.sha1(f"{name}{tint}".encode()).hexdigest()[:6]
    body = body.replace("currentColor", tint)
    body = ID_RE.sub(lambda m: f'id="{m.group(1)}-{suffix}"', body)
    body = URL_RE.sub(lambda m: f"url(#{m.group(1)}-{suffix})", body)
    return HREF_RE.sub(lambda m: f'href="#{m.group(1)}-{suffix}"', body)
