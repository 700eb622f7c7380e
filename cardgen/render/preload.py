"""What a drawing worker would otherwise do first, done once in the fork server (a preload module).

cffi turns a C type written as a string (`ffi.new("cairo_matrix_t *")`) into a type object the
first time a process asks for it, with pycparser, over a preamble of every typedef the library
declares: 3 to 5 ms a type. cairocffi asks for the same eight of them when a worker draws its
first text (the font check of `fonts.use_project_fonts`, then cairosvg's matrices, text extents
and PDF stream), so every worker parsed them again, about 0.03 s of CPU each (a suite run starts
some 220 workers: 8 s of its CPU went there). The fork server imports this module
(`workers.RASTER_PRELOAD`), and every worker forked from it finds the types parsed.

The same holds for fontTools' modules of the two font tables `fonts.FontSet` reads (a worker's
font check reads every project font's `name` and `OS/2`): fontTools imports a table's module when
a font's table is first read, about 0.04 s a worker.

Parsing touches no C library, so fontconfig stays untouched in the server (the workers point it
at the project fonts themselves). A type missing from the list costs what it did before: it is
parsed where it is first used. tests/test_workers.py draws a card in a worker and fails if the
worker had to parse a type of cairo's or import a table module of fontTools' itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import cairocffi
from fontTools.ttLib import getTableModule

from .fonts import FACE_TABLES

# what a worker asks cairocffi for when it draws a card with text into a PDF and a PNG (logged
# from the misses of cffi's type cache over a build of The King's Blade 3.1, 2026-11-27)
CAIRO_TYPES = (
    "cairo_destroy_func_t", "cairo_font_extents_t *", "cairo_matrix_t *", "cairo_text_extents_t *",
    "cairo_write_func_t", "char[]", "double[2]", "double[]",
)


def parse_types(ffi: Any, names: Iterable[str]) -> None:
    """Have cffi parse these C types now (it keeps each in `ffi`'s cache for the process).

    A type the library no longer declares (another release) is left to where it is used: an
    error here, in the fork server's imports, would stop every pool of the command."""
    for name in names:
        try:
            ffi.typeof(name)
        except Exception:  # cffi's CDefError (cffi comes with cairocffi and weasyprint: not imported here)
            pass


parse_types(cairocffi.ffi, CAIRO_TYPES)
for tag in FACE_TABLES:
    getTableModule(tag)
