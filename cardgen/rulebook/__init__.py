"""The rulebook: the game's HTML template, filled from the version's data, laid out as PDF per paper.

`papers.start_papers` is the one stage for documents laid out per paper: the rulebook
(`stage.py`), its booklet (`booklet.py`) and the designer's notes (`notes.py`) each describe
themselves as a `PaperDocument`; `document` fills a template (`rulebook_html`) and `layout` lays
it out with weasyprint (`lay_out`, with the column memo of `columns.py`; `write_rulebook_pdf` in
one process); `helpers` is what templates may call.

The names below are imported when first asked for: a worker importing `layout` (the fork server
preloads it) loads neither the data model nor the templates' helpers.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["build_rulebooks", "rulebook_html", "write_rulebook_pdf"]
_WHERE = {"build_rulebooks": "stage", "rulebook_html": "document", "write_rulebook_pdf": "document"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
