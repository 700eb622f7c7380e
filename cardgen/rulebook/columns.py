"""weasyprint's column balancing with fewer layouts and the same pages.

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
boxes is left to weasyprint, and so is everything when weasyprint's functions are not the ones
this was written against (checked by their parameters): the pages are weasyprint's either way.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

# The weasyprint releases this was checked against (every game's rulebook, notes and booklet
# the same bytes, every answer from memory laid out again and compared): a later release may
# keep the parameters and change how a column fills, so it balances on its own until checked.
CHECKED_RELEASES = ("70.",)
# weasyprint.layout.block.block_box_layout's parameters, which the wrapper reads by position
PARAMETERS = ("context", "box", "bottom_space", "skip_stack", "containing_block", "page_is_empty",
              "absolute_boxes", "fixed_boxes", "adjoining_margins", "first_letter_style",
              "first_line_style", "discard", "max_lines")
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


@contextlib.contextmanager
def fewer_layouts() -> Iterator[None]:
    """Lay out multi-column blocks with remembered column layouts while inside this block."""
    global _users
    with _lock:
        installed = _users > 0 or _install()
        _users += installed
    if not installed:  # another weasyprint: it balances on its own
        yield
        return
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                _uninstall()


def _install() -> bool:
    import weasyprint
    from weasyprint.layout import block

    if not weasyprint.__version__.startswith(CHECKED_RELEASES):
        return False

    layout = getattr(block, "block_box_layout", None)
    if layout is None or not hasattr(block, "columns_layout") or not hasattr(block, "remove_placeholders"):
        return False
    if tuple(inspect.signature(layout).parameters) != PARAMETERS:
        return False
    _originals.update(block_box_layout=layout, columns_layout=block.columns_layout)
    block.block_box_layout = _block_box_layout
    block.columns_layout = _columns_layout
    return True


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
