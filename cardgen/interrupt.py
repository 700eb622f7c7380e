"""Ctrl-C as a fact as well as an exception.

The CLI's SIGINT handler raises KeyboardInterrupt, and CPython 3.11 can drop it: under load it
was raised inside a namedtuple's `__new__` while PIL was imported, and the build went on to the
end as if no Ctrl-C came (tests/test_safe_outputs.py's Ctrl-C-at-start test, 3 full runs in 7).
The handler also records it here: a stage checks before it writes an output, and the command
never reports success after a Ctrl-C.
"""

from __future__ import annotations

_came = False


def note() -> None:
    """Ctrl-C came (the CLI's SIGINT handler)."""
    global _came
    _came = True


def forget() -> None:
    """A command starts: no Ctrl-C yet."""
    global _came
    _came = False


def came() -> bool:
    return _came


def check() -> None:
    """Stop here if Ctrl-C came and its KeyboardInterrupt was lost on the way."""
    if _came:
        raise KeyboardInterrupt
