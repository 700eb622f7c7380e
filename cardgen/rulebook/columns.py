"""weasyprint's column balancing from a few layouts: balanced columns from the places they may break.

weasyprint balances a multi-column block (weasyprint/layout/column.py) by laying its columns
out at one height, then again a little taller, until the content fits; the step is often
1 px, so a block of The King's Blade rulebook was laid out over 100 times (3.1's A4 rulebook:
over 500 column layouts in all). cardgen instead lays the block's content out once as one
column of the column width with room without end, reads from its boxes every place a column
may break and how tall a column from one place to another is (colbreaks.py), computes the
shortest height at which the columns hold it all, and lays the columns out once at that height
(weasyprint's own last pass, `_balanced`): about 3 layouts a block (3.1's A4 rulebook: 38).
When the block does not fit on the page even so, the columns take the page's height, as
weasyprint's do. The columns are weasyprint's layout at that height; the height is not always
the one weasyprint's steps reach, which may pass the shortest (then weasyprint's columns are
taller and the pages differ: tests/test_columns.py holds the promise, the same text in the
same order on as few pages, every block balanced).

A block this cannot read is left to weasyprint's own search: a spanning child, a set height,
floats or footnotes in it, or a last pass that did not come out as the breaks said (the
content did not fit, or fitted where the breaks said it would not). That search is shortened
by the column memo: each column's layouts are remembered by where the column starts and how
much room it has, and a height lying between two remembered ones that broke at the same place
is answered from memory; when weasyprint steps through heights where nothing changes, the
column is laid out further ahead (doubling the step, then halving the gap to the first
change), so the steps in between come from memory. This relies on a taller column never
breaking earlier than a shorter one, which is how weasyprint fills a column; a column whose
layout places footnotes or other out-of-flow boxes is left to weasyprint alone.

How it is fenced in:

- It takes over two of weasyprint's functions (`block_box_layout` and `columns_layout` in
  weasyprint.layout.block) only inside `fewer_layouts()`, which `document.write_rulebook_pdf`
  wraps around weasyprint's layout alone; before and after, weasyprint is untouched.
- One switch, the environment variable `CARDGEN_COLUMN_MEMO` (`SWITCH`): `on` (the default) or
  `off`. Off, weasyprint balances on its own, in its own time.
- It takes over only the weasyprint it was written for: a release in `CHECKED_RELEASES` whose
  functions it wraps, calls or reads the rules of have the source it was written against
  (`SOURCES`: a hash of each one's source). Any other weasyprint balances on its own, and
  `off_because()` says why; the build's `--timings` says so beside each document, and
  tests/test_columns.py fails, naming the function that changed, until someone checks this
  module against the new release and updates both.
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
from .colbreaks import Breaks, column_breaks, shortest_height

SWITCH = "CARDGEN_COLUMN_MEMO"  # "on" (default) or "off"
# The weasyprint releases this was checked against (tests/test_columns.py: every seed game's
# rulebook and notes the same text on as few pages, every block balanced; 3.1's rulebook through
# the memo alone asks for weasyprint's own column layouts and gets weasyprint's own answers, and
# its bytes): a later release may keep the functions and change how a
# column fills, so it balances on its own until checked.
CHECKED_RELEASES = ("70.0",)
# sha256 (first 16 hex digits) of the source of each weasyprint function this wraps, calls or
# follows, as in the releases above: the wrappers read block_box_layout's parameters by position
# and know how columns_layout calls it (fresh lists, no margins to collapse); `_balanced` is
# columns_layout's code for a plain block; colbreaks.py reads where a column may break and what
# must fit as _linebox_layout, _in_flow_layout and block_container_layout decide it
SOURCES = {
    "weasyprint.layout.block.block_box_layout": "a6279066e3d9ff7d",
    "weasyprint.layout.column.columns_layout": "7a05cce3272fc581",
    "weasyprint.layout.block.remove_placeholders": "ce16d97a1caacea0",
    "weasyprint.layout.column._create_column_box": "c9fc1aaa4d0fa7d8",
    "weasyprint.layout.block.block_level_width": "f1668591a4219143",
    "weasyprint.layout.block.collapse_margin": "c91ad56f81717b09",
    "weasyprint.layout.block.block_level_page_break": "4c36f807aa76498f",
    "weasyprint.layout.block.avoid_page_break": "2810fc88d7b6fbb7",
    "weasyprint.layout.block._linebox_layout": "e07bbe000974787e",
    "weasyprint.layout.block._in_flow_layout": "c2537262836dd981",
    "weasyprint.layout.block.block_container_layout": "65842ca53a8391eb",
    "weasyprint.formatting_structure.boxes.ParentBox.bottom_margin_collapses": "f7d9f8c8282491a0",
    "weasyprint.formatting_structure.boxes.ParentBox.top_margin_collapses": "f74bd6a849c732f7",
}
AHEAD_PX = 512.0  # how far ahead of weasyprint's height a column is laid out, at most
# Looking ahead pays when weasyprint grows the columns 1 px at a time (it found no box whose
# height tells how far to go); its longer steps reach the fitting height in a few layouts.
SMALL_STEP_PX = 1.5

_lock = threading.Lock()
_users = 0
_originals: dict[str, Callable[..., Any]] = {}
_local = threading.local()  # .blocks: the memos of the column blocks being laid out, innermost last
UNLIMITED_PX = 1e6  # the room below a block's content laid out in one piece: more than any page
from_breaks = True  # tests: False leaves every block to weasyprint's search (with the memo)
stats: list[bool] | None = None  # tests, benchmarks: a list, and each block appends whether its breaks balanced it
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
    return unfit_weasyprint()


def unfit_weasyprint() -> str | None:
    """Why this weasyprint is not the one the memo was written for, or None; its sources are
    hashed once a process (the fork server does it for its workers: `rulebook.preload`)."""
    import weasyprint

    functions = {name: _function(name) for name in SOURCES}
    return _unfit(weasyprint.__version__, tuple(functions.items()))


def _function(name: str) -> Any:
    """The function a dotted name in `SOURCES` names (as weasyprint's modules hold it now), or None."""
    import importlib

    parts = name.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for part in parts[split:]:
            found = getattr(found, part, None)
        return found
    return None


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
        laid_out = _balanced(*args, **kwargs) if from_breaks else None
        if laid_out is not None:
            return laid_out
        return _originals["columns_layout"](*args, **kwargs)
    finally:
        blocks.pop()


def _balanced(context: Any, box: Any, bottom_space: float, skip_stack: Any, containing_block: Any,
              page_is_empty: bool, absolute_boxes: list, fixed_boxes: list, adjoining_margins: list,
              first_letter_style: Any, first_line_style: Any) -> Any:
    """weasyprint's `columns_layout` for a block of plain columns, at the height `shortest_height`
    finds from one layout of its content (colbreaks.py), or None to leave the block to weasyprint:
    a spanning child, a set height, footnotes or floats, or a layout that did not come out as the
    breaks said. Apart from finding the height, this is weasyprint 70.0's code for such a block."""
    from weasyprint.layout.block import block_level_width, collapse_margin, remove_placeholders
    from weasyprint.layout.column import _create_column_box
    from weasyprint.layout.percent import percentage

    style = box.style
    if (not box.children or style["height"] != "auto" or style["position"] == "relative"
            or style["column_fill"] != "balance" or context.current_page_footnotes
            or context.current_footnote_area.height != "auto"
            or any(child.style["column_span"] == "all" for child in box.children)):
        return None
    layout = _originals["block_box_layout"]
    in_column, context.in_column = context.in_column, True
    whole_box, whole_skip_stack = box, skip_stack
    box = box.copy_with_children(box.children)
    box.position_y += collapse_margin(adjoining_margins)
    block_level_width(box, containing_block)
    gap = style["font_size"] if style["column_gap"] == "normal" else percentage(style["column_gap"], box.style,
                                                                                 box.width)
    width, count = style["column_width"], style["column_count"]
    if width == "auto" and count != "auto":
        width = max(0, box.width - (count - 1) * gap) / count
    elif width != "auto" and count == "auto":
        count = max(1, math.floor((box.width + gap) / (width + gap)))
        width = (box.width + gap) / count - gap
    else:
        count = max(1, min(count, math.floor((box.width + gap) / (width + gap))))
        width = (box.width + gap) / count - gap
    skip, = skip_stack.keys() if skip_stack else (0,)
    column_children = [child.copy() for child in box.children[skip:]]
    if skip_stack:
        skip_stack = {0: skip_stack[skip]}
    top = box.content_box_y()
    max_height = context.page_bottom - top - bottom_space

    breaks = _breaks_of(context, whole_box, (_frozen(whole_skip_stack), top, width), lambda: layout(
        context, _create_column_box(box, containing_block, column_children, width, top), -UNLIMITED_PX,
        skip_stack, containing_block, False, [], [], [], first_letter_style, first_line_style, discard=False,
        max_lines=None))
    if breaks is None:
        context.in_column = in_column
        if stats is not None:
            stats.append(False)
        return None
    height = shortest_height(breaks, count)
    fits = height <= max_height
    room = max(bottom_space, context.page_bottom - top - (height if fits else max_height))

    # weasyprint's last pass, at that height: the columns themselves
    absolutes: list[Any] = []
    fixeds: list[Any] = []
    shapes = len(context.excluded_shapes)
    columns: list[Any] = []
    next_page = None
    for i in range(count):
        column_box = _create_column_box(box, containing_block, column_children, width, top)
        if style["direction"] == "rtl":
            column_box.position_x += box.width - (i + 1) * width - i * gap
        else:
            column_box.position_x += i * (width + gap)
        new_child, skip_stack, next_page, _, _, _ = layout(
            context, column_box, room, skip_stack, containing_block, page_is_empty, absolutes, fixeds, None,
            first_letter_style, first_line_style, discard=False, max_lines=None)
        if new_child is None:
            break
        columns.append(new_child)
        if skip_stack is None:
            break
    if not columns and not fits:  # not even a line fits in the room left: the block goes to the next page
        context.in_column = False
        if stats is not None:
            stats.append(True)
        return None, (0, None), {"break": "any", "page": None}, [], False
    if not columns or (skip_stack is None) != fits:  # not as the breaks said: weasyprint balances it
        remove_placeholders(context, columns, absolutes, fixeds)
        del context.excluded_shapes[shapes:]
        context.in_column = in_column
        if stats is not None:
            stats.append(False)
        return None
    if stats is not None:
        stats.append(True)
    absolute_boxes.extend(absolutes)
    fixed_boxes.extend(fixeds)
    column_height = max(column.margin_height() for column in columns)
    for column in columns:
        column.height = column_height
    box.children = columns
    height = min(max_height, column_height)
    if box.height == "auto":
        box.height, difference = height, 0
    else:
        difference = box.height - height
    if box.min_height != "auto" and box.min_height > box.height:
        difference += box.min_height - box.height
        box.height = box.min_height
    for column in columns:
        column.height += difference
    if skip_stack:
        (resumed, rest), = skip_stack.items()
        skip_stack = {skip + resumed: rest}
    context.in_column = False
    return box, skip_stack, next_page, [], False


def _breaks_of(context: Any, block: Any, start: tuple, lay_out: Callable[[], Any]) -> Breaks | None:
    """The places a block's columns may break (None: leave it to weasyprint), laid out once per
    block, start and place on the page: weasyprint lays a block with a bottom margin out twice."""
    from weasyprint.layout.block import remove_placeholders

    known = context.__dict__.setdefault("cardgen_column_breaks", {})
    key = (id(block), start)
    found = known.get(key)
    if found is not None:
        return found[1]
    before = _out_of_flow(context)
    whole, resume_at = lay_out()[:2]
    out_of_flow = _out_of_flow(context) != before
    if whole is not None:
        remove_placeholders(context, [whole], [], [])
    del context.excluded_shapes[before[0]:]
    breaks = None if out_of_flow or whole is None or resume_at is not None else column_breaks(context, whole)
    known[key] = (block, breaks)  # the block kept alive: its id stays its own
    return breaks


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
