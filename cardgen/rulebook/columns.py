"""weasyprint's column balancing with fewer layouts and the same pages: the column memo.

weasyprint balances a multi-column block (weasyprint/layout/column.py) by laying its columns
out at one height, then again a little taller, until the content fits; the step is often
1 px, so a block of The King's Blade rulebook was laid out over 100 times. As long as a
column breaks at the same place, its layout at every height in between is the same. So while
weasyprint balances, each column's layouts are remembered by where the column starts and how
much room it has, and a height lying between two remembered ones that broke at the same place
is answered from memory. When weasyprint steps through heights where nothing changes, the
column is laid out further ahead (doubling the step, then halving the gap to the first change),
so the steps in between come from memory.

This relies on a taller column never breaking earlier than a shorter one, which is how
weasyprint fills a column. A column whose layout places floats, footnotes or other out-of-flow
boxes is left to weasyprint. The pages are weasyprint's either way.

How it is fenced in:

- It takes over two of weasyprint's functions (`block_box_layout` and `columns_layout` in
  weasyprint.layout.block) only inside `fewer_layouts()`, which `document.write_rulebook_pdf`
  wraps around weasyprint's layout alone; before and after, weasyprint is untouched.
- One switch, the environment variable `CARDGEN_COLUMN_MEMO` (`SWITCH`): `on` (the default) or
  `off`. Off, weasyprint balances on its own: the same bytes, in the old time.
- It takes over only the weasyprint it was written for: a release in `CHECKED_RELEASES` whose
  functions it wraps or calls have the source it was written against (`SOURCES`: a hash of each
  one's source). Any other weasyprint balances on its own, and `off_because()` says why; the
  build's `--timings` says so beside each document, and tests/test_columns.py fails, naming the
  function that changed, until someone checks the memo against the new release and updates both.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..cache import sha256_text
from ..errors import BuildError

SWITCH = "CARDGEN_COLUMN_MEMO"  # "on" (default) or "off"
# The weasyprint releases this was checked against (every game's rulebook, notes and booklet
# the same bytes, every answer from memory laid out again and compared, tests/test_columns.py):
# a later release may keep the functions and change how a column fills, so it balances on its
# own until checked.
CHECKED_RELEASES = ("70.0",)
# sha256 (first 16 hex digits) of the source of each weasyprint function the memo wraps or calls,
# as in the releases above: the wrapper reads block_box_layout's parameters by position and knows
# how columns_layout calls it while balancing (fresh lists, no margins to collapse)
SOURCES = {
    "weasyprint.layout.block.block_box_layout": "a6279066e3d9ff7d",
    "weasyprint.layout.column.columns_layout": "7a05cce3272fc581",
    "weasyprint.layout.block.remove_placeholders": "ce16d97a1caacea0",
}
AHEAD_PX = 512.0  # how far ahead of weasyprint's height a column is laid out, at most
# Looking ahead pays when weasyprint grows the columns 1 px at a time (it found no box whose
# height tells how far to go); its longer steps reach the fitting height in a few layouts.
SMALL_STEP_PX = 1.5

_lock = threading.Lock()
_users = 0
_originals: dict[str, Callable[..., Any]] = {}
_local = threading.local()  # .blocks: the memos of the column blocks being laid out, innermost last
checks: list[bool] | None = None  # tests: a list, and every answer from memory is laid out and compared


@dataclass
class _Sample:
    bottom_space: float
    key: tuple  # where the column broke: (laid out nothing, resume_at, next_page)
    result: tuple


@dataclass
class _Block:
    """What is remembered while one multi-column block is laid out."""
    samples: dict[tuple, list[_Sample]] = field(default_factory=dict)  # by start; bottom_space descending
    boxes: list[Any] = field(default_factory=list)  # keeps the column boxes alive: their ids are keys
    plain: bool = True  # False once a layout placed something out of flow: weasyprint then does it all


def switched_on() -> bool:
    """`CARDGEN_COLUMN_MEMO`: on unless it says off."""
    value = os.environ.get(SWITCH, "").strip().lower()
    if value in ("", "on", "1", "yes", "true"):
        return True
    if value in ("off", "0", "no", "false"):
        return False
    raise BuildError(f"{SWITCH} must be 'on' or 'off', not {os.environ[SWITCH]!r}")


def off_because() -> str | None:
    """Why the memo stays out of weasyprint's layout (the switch, or another weasyprint), or
    None when `fewer_layouts` takes over."""
    if not switched_on():
        return f"{SWITCH}=off"
    import weasyprint
    from weasyprint.layout import block, column

    functions = {"weasyprint.layout.block.block_box_layout": getattr(block, "block_box_layout", None),
                 "weasyprint.layout.column.columns_layout": getattr(column, "columns_layout", None),
                 "weasyprint.layout.block.remove_placeholders": getattr(block, "remove_placeholders", None)}
    return _unfit(weasyprint.__version__, tuple(functions.items()))


@functools.lru_cache(maxsize=8)
def _unfit(version: str, functions: tuple[tuple[str, Any], ...]) -> str | None:
    """Hashing the sources reads weasyprint's files: done once for each set of functions."""
    if version not in CHECKED_RELEASES:
        return (f"weasyprint {version} is not a release the column memo was checked against "
                f"({', '.join(CHECKED_RELEASES)})")
    for name, function in functions:
        if function is None:
            return f"weasyprint {version} has no {name}"
        if source_digest(function) != SOURCES[name]:
            return (f"weasyprint {version}'s {name} is not the one the column memo was written for "
                    f"(source {source_digest(function)}, written for {SOURCES[name]})")
    return None


def source_digest(function: Callable[..., Any]) -> str:
    """The first 16 hex digits of the sha256 of a function's source (of the function it wraps,
    if it is a functools.wraps wrapper), or "unreadable"."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return "unreadable"
    return sha256_text(source)[:16]


@contextlib.contextmanager
def fewer_layouts() -> Iterator[str | None]:
    """Lay out multi-column blocks with remembered column layouts while inside this block.

    Yields None when it took over, else why not (`off_because`): weasyprint then balances on its own.
    """
    global _users
    with _lock:
        reason = None if _users > 0 else off_because()
        if reason is None:
            if _users == 0:
                _install()
            _users += 1
    if reason is not None:
        yield reason
        return
    try:
        yield None
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                _uninstall()


def _install() -> None:
    from weasyprint.layout import block

    _originals.update(block_box_layout=block.block_box_layout, columns_layout=block.columns_layout)
    block.block_box_layout = _block_box_layout
    block.columns_layout = _columns_layout


def _uninstall() -> None:
    from weasyprint.layout import block

    if _originals:
        block.block_box_layout = _originals.pop("block_box_layout")
        block.columns_layout = _originals.pop("columns_layout")


def _columns_layout(*args: Any, **kwargs: Any) -> Any:
    blocks = _local.__dict__.setdefault("blocks", [])
    blocks.append(_Block())
    try:
        return _originals["columns_layout"](*args, **kwargs)
    finally:
        blocks.pop()


def _block_box_layout(context: Any, box: Any, bottom_space: float, skip_stack: Any, *rest: Any,
                      **kwargs: Any) -> Any:
    original = _originals["block_box_layout"]
    blocks = getattr(_local, "blocks", None)
    # balancing calls lay out the same column box with fresh lists and no margins to collapse;
    # the final layout of the columns passes the block's own lists and None
    if (not blocks or not blocks[-1].plain or not getattr(box, "is_column", False)
            or tuple(rest[2:5]) != ([], [], [])):
        return original(context, box, bottom_space, skip_stack, *rest, **kwargs)
    block = blocks[-1]
    start = (id(box), _frozen(skip_stack), bool(rest[1]), math.isinf(bottom_space), _frozen(kwargs))
    samples = block.samples.get(start)
    if samples is None:
        samples = block.samples[start] = []
        block.boxes.append(box)

    def lay_out(room: float) -> _Sample | None:
        """A layout at `room` whose out-of-flow boxes are taken back at once, as weasyprint does."""
        from weasyprint.layout.block import remove_placeholders

        before = _out_of_flow(context)
        result = original(context, box, room, skip_stack, rest[0], rest[1], [], [], [], *rest[5:], **kwargs)
        if _out_of_flow(context) != before:
            block.plain = False
        if result[0] is not None:
            remove_placeholders(context, [result[0]], [], [])
        del context.excluded_shapes[before[0]:]
        if not block.plain:
            return None
        sample = _Sample(room, (result[0] is None, _frozen(result[1]), _frozen(result[2])), result)
        _insert(samples, sample)
        return sample

    if math.isinf(bottom_space):  # weasyprint measuring the next box: the same every time
        known = _answer(samples, bottom_space) or lay_out(bottom_space)
    else:
        known = _find(samples, bottom_space, lay_out)
    if known is None:  # something out of flow: weasyprint's own layout, with the caller's lists
        return original(context, box, bottom_space, skip_stack, *rest, **kwargs)
    if checks is not None and not math.isinf(bottom_space):
        fresh = original(context, box, bottom_space, skip_stack, *rest, **kwargs)
        checks.append((fresh[0] is None, _frozen(fresh[1]), _frozen(fresh[2])) == known.key)
        return fresh
    return known.result


def _find(samples: list[_Sample], room: float, lay_out: Callable[[float], _Sample | None]) -> _Sample | None:
    """The column's layout with `room` below it, laid out only when memory cannot tell.

    Between a remembered layout and one that broke elsewhere, the middle is laid out until
    `room` lies between two that broke at the same place. When weasyprint is stepping by a
    pixel and the last two steps broke at the same place, the column is laid out twice as far
    ahead each time until it breaks elsewhere (then the middle, as above).
    """
    while True:
        known = _answer(samples, room)
        if known is not None:
            return known
        above, below = _around(samples, room)
        if above is not None and below is not None:  # they broke at different places
            if above.bottom_space - below.bottom_space <= SMALL_STEP_PX:
                return lay_out(room)
            probe = lay_out((above.bottom_space + below.bottom_space) / 2)
        elif above is not None and above.bottom_space - room <= SMALL_STEP_PX:
            index = samples.index(above)
            before = samples[index - 1] if index else None
            if before is None or before.key != above.key:
                return lay_out(room)
            ahead = 2 * max(before.bottom_space - above.bottom_space, above.bottom_space - room)
            if ahead > AHEAD_PX or above.bottom_space - ahead < 0:
                return lay_out(room)
            probe = lay_out(above.bottom_space - ahead)
        else:
            return lay_out(room)
        if probe is None:
            return None


def _answer(samples: list[_Sample], room: float) -> _Sample | None:
    """The remembered layout at `room`, or one between two that broke at the same place."""
    above, below = _around(samples, room)
    if above is not None and above.bottom_space == room:
        return above
    if above is not None and below is not None and above.key == below.key:
        return above
    return None


def _around(samples: list[_Sample], room: float) -> tuple[_Sample | None, _Sample | None]:
    """The remembered layout with the least room at or above `room`, and the next one below."""
    above = None
    for sample in samples:  # bottom_space descending: less room first
        if sample.bottom_space >= room:
            above = sample
        else:
            return above, sample
    return above, None


def _insert(samples: list[_Sample], sample: _Sample) -> None:
    for i, other in enumerate(samples):
        if other.bottom_space < sample.bottom_space:
            samples.insert(i, sample)
            return
    samples.append(sample)


def _out_of_flow(context: Any) -> tuple[int, int, int, int]:
    """How many floats, footnotes, broken out-of-flow and running boxes the layout holds."""
    running = getattr(context, "running_elements", {})
    return (len(context.excluded_shapes), len(getattr(context, "current_page_footnotes", ())),
            len(getattr(context, "broken_out_of_flow", ())),
            sum(len(boxes) for pages in running.values() for boxes in pages.values()))


def _frozen(value: Any) -> Any:
    """A skip stack, next-page dict or keyword arguments as something hashable and comparable."""
    if isinstance(value, dict):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value
