"""A document's inline SVG pictures handed to weasyprint as images, read once each.

A rulebook's pictures are inline `<svg>` (icons, figures, card pictures): nearly half of 3.1's
rulebook HTML and over half of its elements. weasyprint parses each one with its HTML parser
and runs the CSS cascade over every element in it, although it draws an SVG with its own SVG
code, which reads no HTML style. Handed over as `<img src="data:image/svg+xml;base64,...">`
instead, a picture is parsed by the XML parser, no element of it is cascaded, and one used many
times (an icon) is parsed once per document (weasyprint keeps its images by URL). It is drawn
the same: the image is the same SVG, its box the same replaced box (`img` and `svg` share the
user-agent style `overflow: hidden`), with the outer `<svg>`'s class, style and id.

So a stylesheet should name a picture by its class (`.icon`), not by the element (`svg.icon`):
weasyprint sees an `img`. Only what reads the same as an image is swapped; a picture stays
inline when it is not well-formed XML (an HTML entity such as `&nbsp;`, a prefix not declared)
or names a relative URL (it would resolve against the data URL, not the template folder).
The document's HTML (hashed, read by the tests and the preview) keeps its inline SVG: this runs
in `layout.lay_out`, on what weasyprint is given.
"""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ElementTree

SVG_NS = "http://www.w3.org/2000/svg"
# a start or end tag of an <svg> element; group 1: "/" for an end tag, group 2: "/" when self-closing
_SVG_TAG = re.compile(r"<(/?)svg\b(?:\"[^\"]*\"|'[^']*'|[^'\">])*?(/?)>", re.IGNORECASE)
_URL_REF = re.compile(r"""(?:href\s*=\s*["']|url\(\s*["']?)\s*([^"')\s]*)""", re.IGNORECASE)
_OWN_URL = ("#", "data:", "cardgen-face:")  # what resolves the same inside an image: fragments, inline data, faces
_KEPT = ("class", "style", "id")  # the outer <svg>'s attributes the image box keeps (the CSS reads them)


def as_images(html: str) -> str:
    """`html` with each outermost inline `<svg>` that reads the same as an image swapped for one."""
    out: list[str] = []
    done = depth = start = 0
    for tag in _SVG_TAG.finditer(html):
        if tag.group(1):  # </svg>
            depth -= 1
            if depth == 0:
                image = _image(html[start:tag.end()])
                if image is not None:
                    out += [html[done:start], image]
                    done = tag.end()
            depth = max(depth, 0)
        elif not tag.group(2):  # <svg ...>
            if depth == 0:
                start = tag.start()
            depth += 1
    out.append(html[done:])
    return "".join(out)


def _image(svg: str) -> str | None:
    """The `<img>` standing for one inline `<svg>`, or None to leave it inline."""
    if any(not url.startswith(_OWN_URL) for url in _URL_REF.findall(svg)):
        return None
    opening = _SVG_TAG.match(svg)
    if opening is None:
        return None
    if "xmlns=" not in opening.group(0):  # the HTML parser puts <svg> in the SVG namespace; XML needs it said
        svg = f'<svg xmlns="{SVG_NS}"' + svg[4:]
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError:
        return None
    if root.tag != f"{{{SVG_NS}}}svg":
        return None
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    kept = "".join(f' {name}="{_attribute(root.get(name, ""))}"' for name in _KEPT if name in root.attrib)
    return f'<img{kept} src="data:image/svg+xml;base64,{data}">'


def _attribute(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
