"""cardgen.render.libraries answers ctypes.util.find_library from one reading of the loader's
cache: the same answers as ctypes' own for the names cairocffi and weasyprint try."""

from __future__ import annotations

from cardgen.render import libraries

# the names cairocffi and weasyprint look their libraries up by, on every platform
NAMES = ("cairo", "cairo-2", "libcairo-2", "pango-1.0", "pango-1.0-0", "libpango-1.0-0", "pangoft2-1.0",
         "gobject-2.0", "gobject-2.0-0", "libgobject-2.0-0", "harfbuzz", "fontconfig", "fontconfig-1")


def test_the_same_answers_as_ctypes(monkeypatch):
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    found = {name: libraries.find_library(name) for name in NAMES}
    assert found == {name: libraries._ORIGINAL(name) for name in NAMES}
    assert found["cairo"] == "libcairo.so.2" and found["pango-1.0"] == "libpango-1.0.so.0"


def test_a_name_outside_the_cache_is_looked_up_along_ld_library_path(monkeypatch):
    asked = []
    monkeypatch.setattr(libraries, "_ORIGINAL", lambda name: asked.append(name) or f"lib{name}.so.9")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/own/lib")
    assert libraries.find_library("no-such-library") == "libno-such-library.so.9"
    assert libraries.find_library("cairo") == "libcairo.so.2" and asked == ["no-such-library"]
    monkeypatch.delenv("LD_LIBRARY_PATH")
    assert libraries.find_library("no-such-library") is None and asked == ["no-such-library"]
