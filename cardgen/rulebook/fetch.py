"""What a rulebook may load: files of the project and its build cache, and inline data.

weasyprint fetches every stylesheet, font and image a document names, over any protocol. A
rulebook is built from the project's own sources, so anything else is a mistake (a pasted
web link, an absolute path to someone's home folder) that would make the PDF depend on the
network or on one machine. Such URLs stop the build instead of being fetched.
"""

from __future__ import annotations

import base64
import functools
import mimetypes
import os
import re
from email.message import EmailMessage
from pathlib import Path
from urllib.parse import unquote, urlsplit

from weasyprint.urls import FatalURLFetchingError, URLFetcher, URLFetcherResponse

from .cardpdf import placeholder_png
from .pictures import SVG_DATA

INLINE_SCHEMES = ("data",)
FACE_SCHEME = "cardgen-face"  # cardgen-face:<sha256 of the face's SVG>, see helpers.FaceStore
FACE_URL = re.compile(FACE_SCHEME + r":[0-9a-f]{64}")


class RefusedURL(FatalURLFetchingError):
    """A URL the rulebook may not use; weasyprint lets this one through and stops rendering."""

    def __init__(self, url: str, reason: str):
        super().__init__(f"{url}: {reason}")
        self.url = url
        self.reason = reason


class ProjectFetcher(URLFetcher):
    """Serves `file:` URLs below the allowed folders and `data:` URLs; refuses the rest.

    Paths are compared after resolving `..` and symbolic links, like every other stage (see
    cardgen.contain): a link in templates/ that leads to /etc is refused like `../../etc`.
    """

    def __init__(self, allowed: list[Path]):
        super().__init__(fail_on_errors=True)
        self.allowed = [Path(os.path.realpath(os.path.abspath(p))) for p in allowed]
        self.placeholders: list[str] = []  # the faces (SVG digests) served as placeholders, in order

    def fetch(self, url: str, headers=None) -> URLFetcherResponse:
        if url.startswith(SVG_DATA) and url.isascii() and "%" not in url:
            return self._svg_data(url)
        scheme = urlsplit(url).scheme.lower()
        if scheme in INLINE_SCHEMES:
            return super().fetch(url, headers)
        if scheme == FACE_SCHEME and FACE_URL.fullmatch(url):
            return self._placeholder(url.split(":", 1)[1])
        if scheme != "file":
            raise RefusedURL(url, "remote and non-file URLs are never fetched; "
                                  "put the file in the project and refer to it by a relative path")
        path = Path(os.path.realpath(unquote(urlsplit(url).path)))
        if not any(path.is_relative_to(root) for root in self.allowed):
            raise RefusedURL(url, f"outside the project (allowed: {', '.join(map(str, self.allowed))})")
        if not path.is_file():
            raise RefusedURL(url, "no such file")
        mime, _ = mimetypes.guess_type(path.name)
        return URLFetcherResponse(url, path.read_bytes(),
                                  {"Content-Type": mime or "application/octet-stream"})

    @staticmethod
    def _svg_data(url: str) -> URLFetcherResponse:
        """A picture `pictures.as_images` handed over, decoded as urllib's data: handler decodes it
        (an ASCII URL without %-escapes: nothing to unquote), without the request, opener and header parsing it takes
        weasyprint's fetcher through: a third of the time, for the dozens to hundreds of
        pictures of a document."""
        data = base64.decodebytes(url[len(SVG_DATA):].encode("ascii"))
        return URLFetcherResponse(url, data, _headers("image/svg+xml"))

    def _placeholder(self, digest: str) -> URLFetcherResponse:
        """A card face (`helpers.FaceStore`): a placeholder, swapped for the card's PDF later (cardpdf.py)."""
        if digest not in self.placeholders:
            self.placeholders.append(digest)
        return URLFetcherResponse(f"{FACE_SCHEME}:{digest}", placeholder_png(digest), _headers("image/png"))


@functools.cache
def _headers(content_type: str) -> EmailMessage:
    """A response's headers saying only its content type (all weasyprint reads of them), made once
    per type: a response given a dict parses it into an email message, header by header, which
    took half the time of serving a picture or a placeholder. Shared by every response of the type:
    weasyprint reads a response's headers and changes them only for a body given as text."""
    headers = EmailMessage()
    headers["Content-Type"] = content_type
    return headers
