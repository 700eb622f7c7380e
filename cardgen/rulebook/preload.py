"""What a layout worker would otherwise do first, done once in the fork server (a preload module).

Every worker forked from the server inherits it, instead of each paying it again:
- weasyprint's C types (pango's rectangles and line-break attributes, fontconfig's strings,
  harfbuzz's table tags), parsed by cffi at 3 to 5 ms a type (see `render.preload`);
- the column memo's check of weasyprint's sources (`columns.unfit_weasyprint`, about 0.04 s:
  it reads and hashes thirteen of weasyprint's functions).

The arrays of glyph ids weasyprint makes while subsetting fonts (`hb_codepoint_t[N]`) are
still parsed in the worker, once for each length N: their lengths depend on the document.
Nothing here draws or measures text, so fontconfig stays untouched in the server.
"""

from __future__ import annotations

from ..render.preload import parse_types
from .columns import unfit_weasyprint

try:
    from weasyprint.text.ffi import ffi
except ImportError:  # another weasyprint, its bindings moved: its types are parsed where used, as before
    ffi = None

# what a worker asks weasyprint's cffi for when it lays out and writes a document (logged from the
# misses of cffi's type cache over a build of The King's Blade 3.1 with its rulebook, 2026-11-27)
WEASYPRINT_TYPES = (
    "FcChar8 **", "PangoFcFontMap *", "PangoLogAttr[]", "PangoRectangle *", "char[4]", "char[]",
    "hb_tag_t[100]", "unsigned int *",
)

if ffi is not None:
    parse_types(ffi, WEASYPRINT_TYPES)
unfit_weasyprint()
