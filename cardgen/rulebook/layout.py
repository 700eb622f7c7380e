"""A document's HTML laid out into a PDF by weasyprint: the slow half of a rulebook, booklet or
designer's notes, run in a build's worker (`papers.start_papers` queues it).

Kept apart from `document` (filling the templates, in the build process) so that the workers,
and the fork server that imports this module for them, load weasyprint and nothing of the data
model, Jinja's helpers or the translations: what a job is given is plain data (`Places`, a
`RulebookDocument`) and what it returns is a `Pdf`.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..builtin import BUILTIN_DIR, FONTS_DIR, ICONS_DIR, TEMPLATES_DIR
from ..errors import BuildError, Loc
from ..render.fonts import FontSet
from .columns import fewer_layouts
from .pictures import for_weasyprint

if TYPE_CHECKING:
    from .fetch import ProjectFetcher


@dataclass(frozen=True)
class Places:
    """The project's folders a layout reads: where its files may be fetched from, and its fonts."""

    root: Path
    build_dir: Path
    cache_dir: Path
    fonts_dir: Path

    @classmethod
    def of(cls, project) -> Places:
        """A `data.project.Project`'s folders (not imported here: see the module's note)."""
        return cls(project.root, project.build_dir, project.cache_dir, project.fonts_dir)


@dataclass
class RulebookDocument:
    template_path: Path  # the entry template
    html: str
    base_url: str  # relative URLs in the HTML resolve against the game's template folder
    missing: tuple[str, ...] = ()  # the strings the language's catalogs lacked, printed in the source language


@dataclass
class Pdf:
    data: bytes
    pages: int
    warnings: list[str] = field(default_factory=list)  # weasyprint's remarks (unsupported CSS...)
    layout_s: float = 0.0  # seconds weasyprint took to lay the pages out
    write_s: float = 0.0  # and to draw them into the PDF
    cards: list[str] = field(default_factory=list)  # faces (SVG digests) still drawn as placeholders
    cards_s: float = 0.0  # seconds it took to put the cards in (`with_cards`)
    columns: str | None = None  # why weasyprint balanced the columns on its own (columns.py), if it did


def lay_out(project: Places, doc: RulebookDocument) -> Pdf:
    """Lay out and write the PDF; only project files are loaded, only project fonts embedded.

    Cards are placeholders in it until `with_cards` puts them in (they may still be rendering).
    """
    from .fetch import RefusedURL

    fetcher = project_fetcher(project)
    where = Loc(doc.template_path)
    with _weasyprint_log() as log, _fixed_font_timestamps():
        try:
            started = time.perf_counter()
            rendered, columns_off = render(doc, fetcher)
            laid_out = time.perf_counter()
            data = rendered.write_pdf()
            written = time.perf_counter()
        except RefusedURL as exc:
            raise BuildError(f"the rulebook may not load {exc.url}: {exc.reason}", where) from None
        except BuildError:  # CARDGEN_COLUMN_MEMO set to neither on nor off
            raise
        except Exception as exc:  # weasyprint gives up on some markup with bare assertions
            raise BuildError(f"weasyprint could not lay out the rulebook ({type(exc).__name__}: {exc}); "
                             "simplify the markup or CSS last changed", where) from exc
    errors = [r.getMessage() for r in log if r.levelno >= logging.ERROR]
    if errors:
        raise BuildError(f"weasyprint could not lay out the rulebook: {errors[0]}", where)
    _check_fonts(data, FontSet(project.fonts_dir).families, where)
    remarks = [r.getMessage() for r in log if r.levelno < logging.ERROR]
    return Pdf(data, len(rendered.pages), [m for m in remarks if not _about_the_machine(m)],
               layout_s=laid_out - started, write_s=written - laid_out, cards=list(fetcher.placeholders),
               columns=columns_off)


def project_fetcher(project: Places) -> ProjectFetcher:
    """What a layout may fetch: the project's folders and cardgen's built-ins (a
    `fetch.ProjectFetcher`, which keeps the card faces it served as placeholders)."""
    from .fetch import ProjectFetcher

    # cardgen's built-ins by each folder: in a source checkout they are links, which the
    # fetcher resolves before comparing
    return ProjectFetcher([project.root, project.build_dir, project.cache_dir, BUILTIN_DIR, FONTS_DIR,
                           TEMPLATES_DIR, ICONS_DIR])


def render(doc: RulebookDocument, fetcher: ProjectFetcher) -> tuple[Any, str | None]:
    """weasyprint's laid-out document (its pages' boxes), from what weasyprint is given for `doc`
    (`pictures.for_weasyprint`), with its columns balanced through `columns.fewer_layouts`; and
    why weasyprint balanced them on its own, if it did. What `lay_out` writes, and what
    tests/test_columns.py reads the boxes of (so the test lays out what a build lays out)."""
    import weasyprint  # imported here: a no-op rebuild never lays out, and weasyprint is slow to load
    from weasyprint.text.fonts import FontConfiguration

    given = for_weasyprint(doc.html, doc.base_url, fetcher)
    html = weasyprint.HTML(string=given, base_url=doc.base_url, url_fetcher=fetcher)
    with fewer_layouts() as columns_off:
        return html.render(font_config=FontConfiguration()), columns_off


def _about_the_machine(message: str) -> bool:
    """weasyprint's notes on which system libraries it found say nothing about the rulebook."""
    return "HarfBuzz" in message


@contextlib.contextmanager
def _fixed_font_timestamps() -> Iterator[None]:
    """Make embedded fonts identical from build to build.

    Without HarfBuzz's subsetter weasyprint subsets fonts with fontTools, which stamps each
    subset's `head.modified` with the current time unless SOURCE_DATE_EPOCH is set (the
    reproducible-builds convention, honoured if the caller set it already).
    """
    before = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = before or "0"
    try:
        yield
    finally:
        if before is None:
            del os.environ["SOURCE_DATE_EPOCH"]


@contextlib.contextmanager
def _weasyprint_log() -> Iterator[list[logging.LogRecord]]:
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append  # type: ignore[method-assign,assignment]
    logger = logging.getLogger("weasyprint")
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)


def _check_fonts(data: bytes, families: list[str], where: Loc) -> None:
    """Every font must be a project font, embedded.

    weasyprint falls back to any font fontconfig knows when a character is missing from the
    chosen one; the PDF would then depend on the machine that built it.
    """
    import pikepdf  # here: `document` imports this module to fill templates (`validate`), which reads no PDF

    with pikepdf.open(io.BytesIO(data)) as pdf:
        for obj in pdf.objects:
            if not isinstance(obj, pikepdf.Dictionary) or obj.get("/Type") != "/FontDescriptor":
                continue
            family = str(obj.get("/FontFamily", ""))
            if family not in families:
                raise BuildError(f"the rulebook uses font '{family or obj.get('/FontName')}', which is not in "
                                 f"fonts/ (a character the project fonts lack?); project fonts: "
                                 f"{', '.join(families)}", where)
            if not any(k in obj for k in ("/FontFile", "/FontFile2", "/FontFile3")):
                raise BuildError(f"font '{family}' is not embedded in the rulebook", where)
