"""A document's inline SVG pictures handed to weasyprint as images, read once each.

A rulebook's pictures are inline `<svg>` (icons, figures, card pictures): nearly half of 3.1's
rulebook HTML and over half of its elements. weasyprint parses each one with its HTML parser
and runs the CSS cascade over every element in it, although it draws an SVG with its own SVG
code, which reads no HTML style. Handed over as `<img src="data:image/svg+xml;base64,...">`
instead, a picture is parsed by the XML parser, no element of it is cascaded, and one used many
times (an icon) is parsed once per document (weasyprint keeps its images by URL). It is drawn
the same: the image is the same SVG, its box the same replaced box (`img` and `svg` share the
user-agent style `overflow: hidden`), with the outer `<svg>`'s class, style and id.

So a stylesheet names a picture by its class, `:is(svg, img).icon` (the specificity of
`svg.icon`), never by the element alone: weasyprint sees an `img`. A document whose stylesheets
still select `svg` by the element's name (a project's own CSS written before this) keeps every
picture inline (`selects_svg`), so it looks as its CSS says, only slower to lay out.
Only what reads the same as an image is swapped; a picture stays inline when it is not well-formed XML (an HTML entity such as `&nbsp;`, a prefix not declared)
or names a relative URL (it would resolve against the data URL, not the template folder), or
sets its own `width` or `height` (weasyprint reads those of an inline `<svg>` as CSS, not an image's).
The document's HTML (hashed, read by the tests and the preview) keeps its inline SVG: this runs
in `layout.lay_out`, on what weasyprint is given.
"""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from urllib.parse import urljoin

import tinycss2

SVG_NS = "http://www.w3.org/2000/svg"
# a start or end tag of an <svg> element; group 1: "/" for an end tag, group 2: "/" when self-closing
_SVG_TAG = re.compile(r"<(/?)svg\b(?:\"[^\"]*\"|'[^']*'|[^'\">])*?(/?)>", re.IGNORECASE)
_URL_REF = re.compile(r"""(?:href\s*=\s*["']|url\(\s*["']?)\s*([^"')\s]*)""", re.IGNORECASE)
_OWN_URL = ("#", "data:", "cardgen-face:")  # what resolves the same inside an image: fragments, inline data, faces
_KEPT = ("class", "style", "id")  # the outer <svg>'s attributes the image box keeps (the CSS reads them)
SVG_DATA = "data:image/svg+xml;base64,"  # a picture's URL, before its SVG in base64 (`fetch.ProjectFetcher` reads it)


def for_weasyprint(html: str, base_url: str, fetcher) -> str:
    """What weasyprint is given for a document: `as_images(html)`, unless one of its stylesheets
    (read through the rulebook's `fetcher`) `selects_svg`, which keeps every picture inline."""
    return html if any(selects_svg(css) for css in _stylesheets(html, base_url, fetcher)) else as_images(html)


_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>", re.IGNORECASE | re.DOTALL)
_LINK = re.compile(r"<link\b[^>]*>", re.IGNORECASE)
_HREF = re.compile(r"""\bhref\s*=\s*["']([^"']*)["']""", re.IGNORECASE)
_IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?["']?([^"')\s;]+)""", re.IGNORECASE)


def _stylesheets(html: str, base_url: str, fetcher) -> Iterator[str]:
    """The text of the document's stylesheets: its <style> blocks and the sheets it links and
    imports, read through the rulebook's fetcher (a URL it refuses is left to weasyprint, which
    stops the layout with the fetcher's reason)."""
    pending = [(base_url, css) for css in _STYLE.findall(html)]
    pending += [(base_url, f'@import "{href}";') for link in _LINK.findall(html)
                if re.search(r"""\brel\s*=\s*["']?stylesheet""", link, re.IGNORECASE)
                for href in _HREF.findall(link)[:1]]
    seen: set[str] = set()
    while pending:
        base, css = pending.pop()
        yield css
        for href in _IMPORT.findall(css):
            url = urljoin(base, href)
            if url in seen:
                continue
            seen.add(url)
            try:
                response = fetcher.fetch(url)
            except Exception:  # refused or missing: weasyprint says so when it fetches it
                continue
            pending.append((url, response.read().decode("utf-8", "replace")))


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


# `:is(svg, img)` and its spellings: the one way a stylesheet may name `svg` and still reach a picture
_BOTH = re.compile(r":(?:is|where)\(\s*(?:svg\s*,\s*img|img\s*,\s*svg)\s*\)", re.IGNORECASE)


def selects_svg(css: str) -> bool:
    """Whether a stylesheet selects the `svg` element by name anywhere but in `:is(svg, img)`
    (`svg.icon`, `.legend svg`): such a rule would miss a picture handed over as an `<img>`.

    A stylesheet without the letters "svg" outside `:is(svg, img)`, nor an escape that could
    spell them, names no `svg` (every layout asks this of every stylesheet: parsing them took
    half of `for_weasyprint`); only the others are parsed."""
    if "\\" not in css and "svg" not in _BOTH.sub("", css).lower():
        return False
    return any(_names_svg(rule) for rule in tinycss2.parse_stylesheet(css, skip_comments=True,
                                                                       skip_whitespace=True))


def _names_svg(rule) -> bool:
    if rule.type == "qualified-rule":
        return _tokens_name_svg(rule.prelude)
    if rule.type == "at-rule" and rule.content is not None and rule.lower_at_keyword in ("media", "supports",
                                                                                       "layer", "container"):
        return any(_names_svg(r) for r in tinycss2.parse_rule_list(rule.content, skip_comments=True,
                                                                    skip_whitespace=True))
    return False


def _tokens_name_svg(tokens) -> bool:
    for token in tokens:
        if token.type == "ident" and token.lower_value == "svg":
            return True
        if token.type == "function":
            names = {t.lower_value for t in token.arguments if t.type == "ident"}
            if token.lower_name in ("is", "where") and {"svg", "img"} <= names:
                continue  # names both elements: reaches the picture either way
            if _tokens_name_svg(token.arguments):
                return True
    return False


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
    if root.tag != f"{{{SVG_NS}}}svg" or "width" in root.attrib or "height" in root.attrib:
        return None  # an inline <svg>'s width and height are CSS declarations below every rule; an <img>'s are not
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    kept = "".join(f' {name}="{_attribute(root.get(name, ""))}"' for name in _KEPT if name in root.attrib)
    return f'<img{kept} src="{SVG_DATA}{data}">'


def _attribute(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
