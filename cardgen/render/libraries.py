"""Finding cairo's and weasyprint's C libraries without running a compiler (Linux).

cairocffi and weasyprint look each library up under several names, most of them other
platforms' (`cairo-2`, `libgobject-2.0-0`), through `ctypes.util.find_library`. On Linux that
runs `ldconfig -p` for every name, and for a name the loader's cache lacks, gcc and then ld as
well: 25 lookups and about 0.25 s of CPU in child processes each time a process imports both
(the fork server, on every cold build). Importing this module answers those lookups from one
reading of `ldconfig -p` in this process instead: `svgconvert` imports it before cairocffi, and
every pool's fork server imports `svgconvert` first (`workers.RASTER_PRELOAD`), before weasyprint.

The libraries load the same: on Linux `find_library` only ever returns a file name (the
library's soname), which is then opened by the loader's own search; a name the cache lacks now
returns None at once instead of after a compiler run (unless LD_LIBRARY_PATH is set: then
ctypes' own lookup runs, which searches it), and both libraries then open their sonames
directly (cairocffi's `libcairo.so.2`, weasyprint's `libpango-1.0.so.0`...). Where
`ldconfig -p` cannot be read (no such program, another libc), and on other systems,
`find_library` is left as it is.
"""

from __future__ import annotations

import ctypes.util
import functools
import os
import re
import struct
import subprocess
import sys

_ORIGINAL = ctypes.util.find_library


@functools.cache
def _loader_cache() -> bytes | None:
    """`ldconfig -p` as ctypes.util runs it, once per process (None: not readable)."""
    try:
        done = subprocess.run(["/sbin/ldconfig", "-p"], stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, env={"LC_ALL": "C", "LANG": "C"}, check=False)
    except OSError:
        return None
    return done.stdout if done.returncode == 0 and done.stdout else None


def _abi_type() -> str:
    """The ABI tag ldconfig prints for this machine's libraries, as ctypes.util works it out."""
    machine = os.uname().machine + ("-32" if struct.calcsize("l") == 4 else "-64")
    return {"x86_64-64": "libc6,x86-64", "ppc64-64": "libc6,64bit", "sparc64-64": "libc6,64bit",
            "s390x-64": "libc6,64bit", "ia64-64": "libc6,IA-64"}.get(machine, "libc6")


def find_library(name: str) -> str | None:
    """ctypes.util.find_library's first step (the loader's cache), with its answer read once."""
    listing = _loader_cache()
    if listing is None:
        return _ORIGINAL(name)
    found = re.search(os.fsencode(rf"\s+(lib{re.escape(name)}\.[^\s]+)\s+\({_abi_type()}"), listing)
    if found:
        return os.fsdecode(found.group(1))
    # a library installed outside the loader's cache (conda, a build of one's own) is found by
    # ctypes' later steps through LD_LIBRARY_PATH: keep them where that path is set
    return _ORIGINAL(name) if os.environ.get("LD_LIBRARY_PATH") else None


if sys.platform.startswith("linux"):
    ctypes.util.find_library = find_library
