"""Template -> HTML -> PDF, with every failure reported as one line naming the template.

Rendering the HTML is cheap and decides whether the PDF must be rebuilt (its text is part of
the inputs hash); weasyprint's layout is the slow part and runs only when needed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import pikepdf
from jinja2 import TemplateError, TemplateNotFound, TemplateSyntaxError
from markupsafe import Markup, escape

from ..buildtypes import FaceFiles, Paper, RenderedSet
from ..builtin import BUILTIN_DIR, FONTS_DIR, ICONS_DIR, TEMPLATES_DIR
from ..contain import inside
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..data.translator import translator_of
from ..errors import BuildError, CardgenError, Loc
from ..i18n.own import RulebookWords
from ..render.fonts import FontSet
from ..render.templating import template_environment
from .cardpdf import card_pdfs, faces_dir, place_cards
from .columns import fewer_layouts
from .helpers import FaceStore, Helpers, RulebookError, font_faces
from .outline import outline

CONTENTS_RE = re.compile(r"<!--cardgen:contents ([0-9,]+)-->")


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


def with_cards(project: Project, pdf: Pdf, files: dict[str, FaceFiles]) -> Pdf:
    """The PDF with each card placeholder swapped for the card's vector PDF (see cardpdf.py).

    Runs where the build's card renders are done (`files`); faces they lack are rendered.
    """
    if not pdf.cards:
        return pdf
    started = time.perf_counter()
    data = place_cards(pdf.data, card_pdfs(project, pdf.cards, files))
    return dataclasses.replace(pdf, data=data, cards=[], cards_s=time.perf_counter() - started)


def rulebook_html(project: Project, snapshot: Snapshot, rendered: RenderedSet, template: str,
                  paper: Paper, extra: dict | None = None) -> RulebookDocument:
    """`extra`: more values for the template (the designer's notes get findings and questions)."""
    game_dir = project.templates_dir / snapshot.game.id
    store = FaceStore(faces_dir(project))
    env = template_environment(project, snapshot.game.id)  # sandboxed, and never leaves the template folders
    words = translator_of(snapshot)
    RulebookWords(words).install(env)  # the game's words, then cardgen's own
    env.globals.update(Helpers(project, snapshot, rendered, store).globals())
    env.globals.update(
        contents=contents,
        font_faces=font_faces(project.fonts_dir),
        paper=paper,
        template_url=lambda name: _template_url(project, name),
    )
    env.globals.update(extra or {})
    path = game_dir / template
    if not path.is_file():  # a template every game shares (the designer's notes)
        path = project.templates_dir / "common" / template
    try:
        text = env.get_template(template).render()
    except TemplateSyntaxError as exc:
        raise BuildError(f"rulebook template syntax: {exc.message}",
                         Loc(Path(exc.filename or path), exc.lineno or 0)) from None
    except TemplateNotFound as exc:
        raise BuildError(f"rulebook template '{exc.name}' not found (looked in {game_dir}, "
                         f"{project.templates_dir / 'common'} and cardgen's {TEMPLATES_DIR})",
                         _where(exc.__traceback__, project, path)) from None
    except RulebookError as exc:
        raise BuildError(f"rulebook {exc.message}", _where(exc.__traceback__, project, path)) from None
    except CardgenError as exc:  # an icon or a path a helper refused
        raise BuildError(f"rulebook: {exc.message}", exc.loc or _where(exc.__traceback__, project, path)) from None
    except (TemplateError, KeyError, AttributeError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise BuildError(f"rulebook template failed: {type(exc).__name__}: {exc}",
                         _where(exc.__traceback__, project, path)) from None
    return RulebookDocument(path, fill_contents(text), game_dir.as_uri() + "/", tuple(words.missing))


def contents(levels: tuple[int, ...] = (2, 3)) -> Markup:
    """Where the table of contents goes; filled in once the whole document is rendered."""
    return Markup(f"<!--cardgen:contents {','.join(str(n) for n in levels)}-->")


def fill_contents(text: str) -> str:
    """Replace the contents marker by a list of the document's headings (see outline.py)."""
    m = CONTENTS_RE.search(text)
    if m is None:
        return text
    doc = outline(text, tuple(int(n) for n in m.group(1).split(",")))
    items = "\n".join(f'<li class="level-{e.level}"><a href="#{escape(e.id)}">{escape(e.text)}</a></li>'
                      for e in doc.entries)
    return CONTENTS_RE.sub(lambda _: f'<ol class="contents-list">\n{items}\n</ol>', str(doc.html), count=1)


def _template_url(project: Project, name: str) -> Markup:
    """file: URL of a file in templates/ (a stylesheet), checked to exist and to lie inside
    templates/ after resolving links; `common/...` falls back to cardgen's built-in common
    templates, like the templates themselves."""
    try:
        path = inside(project.templates_dir, name, "template_url")
        if not path.is_file() and name.startswith("common/"):
            path = inside(TEMPLATES_DIR, name.removeprefix("common/"), "template_url")
    except BuildError as exc:
        raise RulebookError(exc.message) from None
    if not path.is_file():
        raise RulebookError(f"names {name}, which is not in {project.templates_dir}")
    return Markup(path.as_uri())


def _where(tb: TracebackType | None, project: Project, fallback: Path) -> Loc:
    """The innermost template line in a traceback (Jinja maps its frames to template lines)."""
    found = Loc(fallback)
    templates = str(project.templates_dir)
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.startswith((templates, str(TEMPLATES_DIR))) and filename.endswith(".j2"):
            found = Loc(Path(filename), tb.tb_lineno)
        tb = tb.tb_next
    return found


def write_rulebook_pdf(project: Project, doc: RulebookDocument) -> Pdf:
    """Lay out and write the PDF; only project files are loaded, only project fonts embedded.

    Cards are placeholders in it until `with_cards` puts them in (they may still be rendering).
    """
    import weasyprint  # imported here: a no-op rebuild never lays out, and weasyprint is slow to load
    from weasyprint.text.fonts import FontConfiguration

    from .fetch import ProjectFetcher, RefusedURL

    # cardgen's built-ins by each folder: in a source checkout they are links, which the
    # fetcher resolves before comparing
    fetcher = ProjectFetcher([project.root, project.build_dir, project.cache_dir, BUILTIN_DIR, FONTS_DIR,
                              TEMPLATES_DIR, ICONS_DIR])
    where = Loc(doc.template_path)
    with _weasyprint_log() as log, _fixed_font_timestamps():
        try:
            started = time.perf_counter()
            html = weasyprint.HTML(string=doc.html, base_url=doc.base_url, url_fetcher=fetcher)
            with fewer_layouts() as columns_off:
                rendered = html.render(font_config=FontConfiguration())
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
