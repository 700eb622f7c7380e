"""Template -> HTML -> PDF, with every failure reported as one line naming the template.

Rendering the HTML is cheap and decides whether the PDF must be rebuilt (its text is part of
the inputs hash); weasyprint's layout is the slow part and runs only when needed.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from jinja2 import TemplateError, TemplateNotFound, TemplateSyntaxError
from jinja2.runtime import Context
from markupsafe import Markup, escape

from ..buildtypes import FaceFiles, Paper, RenderedSet
from ..builtin import TEMPLATES_DIR
from ..contain import inside
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..data.translator import translator_of
from ..errors import BuildError, CardgenError, Loc
from ..i18n.own import RulebookWords
from ..render.templating import template_environment
from ..units import svg_number
from .cardpdf import card_pdfs, faces_dir, place_cards
from .helpers import FaceStore, Helpers, RulebookError, font_faces
from .layout import Pdf, Places, RulebookDocument, lay_out
from .outline import outline

CONTENTS_RE = re.compile(r"<!--cardgen:contents ([0-9,]+)-->")
# what `page_size()` and `paper_name()` give a template, the same on every paper (see `check_papers`)
PAGE_SIZE = "<!--cardgen:page-size-->"
PAPER_NAME = "<!--cardgen:paper-name-->"


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
    return _filled(project, snapshot, rendered, template, paper, extra, Context)


def check_papers(project: Project, snapshot: Snapshot, rendered: RenderedSet, template: str,
                 papers: Sequence[Paper], extra: dict | None = None) -> None:
    """Fill `template` as `rulebook_html` does for each of `papers`, raising its `BuildError` at
    the first that fails; once for all of them when no template of the document names `paper`.

    The paper is then no input of the filling: the page's size and name reach the HTML only
    through `page_size()` and `paper_name()`, the same text on every paper until the template is
    filled, so what fails on one paper fails on every one. A template that names `paper` (a
    frame resolving it, run or not) may branch on it and is filled on every paper.
    """
    for paper in papers:
        context = _noting_paper()
        _filled(project, snapshot, rendered, template, paper, extra, context)
        if not context.named:
            return


class _PaperNoting(Context):
    """A template context that notes on its class whether a template resolved `paper`."""

    named = False

    def resolve_or_missing(self, key: str) -> Any:
        if key == "paper":
            type(self).named = True
        return super().resolve_or_missing(key)


def _noting_paper() -> type[_PaperNoting]:
    """A class of its own for one filling, whose every context (imports, includes) notes there."""

    class Filling(_PaperNoting):
        pass

    return Filling


def _filled(project: Project, snapshot: Snapshot, rendered: RenderedSet, template: str, paper: Paper,
            extra: dict | None, context: type[Context]) -> RulebookDocument:
    game_dir = project.templates_dir / snapshot.game.id
    store = FaceStore(faces_dir(project))
    env = template_environment(project, snapshot.game.id)  # sandboxed, and never leaves the template folders
    env.context_class = context
    words = translator_of(snapshot)
    RulebookWords(words).install(env)  # the game's words, then cardgen's own
    helpers = Helpers(project, snapshot, rendered, store)
    env.globals.update(helpers.globals())
    env.globals.update(
        contents=contents,
        font_faces=font_faces(helpers.fonts),
        paper=paper,
        page_size=lambda: Markup(PAGE_SIZE),
        paper_name=lambda: Markup(PAPER_NAME),
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
    return RulebookDocument(path, fill_paper(fill_contents(text), paper), game_dir.as_uri() + "/", tuple(words.missing))


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


def fill_paper(text: str, paper: Paper) -> str:
    """Put the page's size (CSS `@page` `size`) and the paper's name (`a4`, `half-letter`) where
    the template wrote `page_size()` and `paper_name()`."""
    size = f"{svg_number(paper.width_mm)}mm {svg_number(paper.height_mm)}mm"
    return text.replace(PAGE_SIZE, size).replace(PAPER_NAME, paper.name.lower())


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
    """Lay out and write the PDF (`layout.lay_out`, what a build's worker runs) in this process."""
    return lay_out(Places.of(project), doc)
