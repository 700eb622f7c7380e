"""The command line's own words for a count: "1 page", "2 pages", never "1 pages" or "page(s)".

English only: these are cardgen's messages to the designer (a printed rulebook counts with the
game's language and its catalogs, i18n/own.py)."""

from __future__ import annotations


def counted(n: int, word: str, plural: str | None = None) -> str:
    """`counted(1, "sheet")` -> "1 sheet"; `counted(3, "copy", "copies")` -> "3 copies".
    For a phrase, the word that takes the number first: `counted(2, "sheet", "sheets") + " of paper"`."""
    return f"{n} {word if n == 1 else plural or word + 's'}"
