"""The rulebook: the game's HTML template, filled from the version's data, laid out as PDF per paper.

`papers.start_papers` is the one stage for documents laid out per paper: the rulebook
(`stage.py`), its booklet (`booklet.py`) and the designer's notes (`notes.py`) each describe
themselves as a `PaperDocument`; `document` fills a template (`rulebook_html`) and lays it out
with weasyprint (`write_rulebook_pdf`, with the column memo of `columns.py`); `helpers` is what
templates may call.
"""

from .document import rulebook_html, write_rulebook_pdf
from .stage import build_rulebooks

__all__ = ["build_rulebooks", "rulebook_html", "write_rulebook_pdf"]
