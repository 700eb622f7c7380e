"""The rulebook: the game's HTML template, filled from the version's data, laid out as PDF per paper.

`stage.build_rulebooks` is the build stage; `document` fills the template (`rulebook_html`) and
lays it out with weasyprint (`write_rulebook_pdf`); `helpers` is what templates may call.
"""

from .document import rulebook_html, write_rulebook_pdf
from .stage import build_rulebooks

__all__ = ["build_rulebooks", "rulebook_html", "write_rulebook_pdf"]
