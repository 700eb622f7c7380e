"""Where a column of a multi-column block may break, and the shortest columns that hold it.

The content of a column block is laid out once, as one column of the column width with room
without end. Its boxes then tell every place weasyprint may break a column, with weasyprint's
own rules: between the lines of a paragraph where its `orphans` and `widows` allow, between
sibling blocks where `break-before`/`break-after` (weasyprint's `block_level_page_break`) do not
avoid it, never inside a box that avoids breaking inside or cannot break (tables, flex boxes,
images). Each place has a bottom (where the content before it ends: what must fit in the column)
and a top (where the next column would start for the content after it to head it: above it
by its top margin, collapsed with its first descendants' as weasyprint collapses them). A column from the
place i up to the place j is `bottom_j - top_i` tall, so the shortest height at which the
content fills N columns is one of those differences, found by bisection with a greedy fill
(`shortest_height`), without laying anything out again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Place:
    """A place the column may break: the content before it ends at `bottom`, the content after
    it starts at `top` (a margin edge), both in the one-column layout."""
    top: float
    bottom: float


@dataclass(frozen=True)
class Breaks:
    """A column block's content laid out in one piece: where it starts and ends, and the places
    between where a column may break, in order."""
    start: float
    end: float
    places: tuple[Place, ...]


def column_breaks(context: Any, column: Any) -> Breaks | None:
    """The places a column laid out in one piece (`column`, a weasyprint column box) may break;
    None when it holds nothing in flow, or floats: where a float goes depends on where the
    column breaks, and so the lines beside it."""
    children = _in_flow(column)
    if not children or any(box.is_floated() for box in column.descendants()):
        return None
    places: list[Place] = []
    _places(context, column, places)
    return Breaks(column.content_box_y(), _bottom(column, children[-1]), tuple(places))


def shortest_height(breaks: Breaks, count: int) -> float:
    """The least column height at which `count` columns hold all of `breaks`' content."""
    tops = [breaks.start] + [p.top for p in breaks.places]
    bottoms = [p.bottom for p in breaks.places] + [breaks.end]
    least = (breaks.end - breaks.start) / count
    # a column runs from a place's top to a later place's bottom (or the end)
    heights = sorted({b - t for i, t in enumerate(tops) for b in bottoms[i:] if b - t >= least - 1e-6})
    low, high = 0, len(heights) - 1
    if high < 0 or not _fills(breaks, count, heights[high]):
        return breaks.end - breaks.start  # no break helps: one column holds it all
    while low < high:
        middle = (low + high) // 2
        if _fills(breaks, count, heights[middle]):
            high = middle
        else:
            low = middle + 1
    return heights[low]


def _fills(breaks: Breaks, count: int, height: float) -> bool:
    """Whether `count` columns of `height` hold the content, each filled as far as it goes
    (as weasyprint fills a column)."""
    top, index, places = breaks.start, 0, breaks.places
    for _ in range(count):
        if breaks.end - top <= height:
            return True
        last = None
        while index < len(places) and places[index].bottom - top <= height:
            last = index
            index += 1
        if last is None:
            return False  # not even the first piece fits
        top = places[last].top
        index = last + 1
    return False


def _places(context: Any, box: Any, places: list[Place]) -> None:
    """Append the places inside `box` where a column may break, in order."""
    from weasyprint.formatting_structure import boxes
    from weasyprint.layout.block import avoid_page_break, block_level_page_break

    children = _in_flow(box)
    if not children:
        return
    if isinstance(children[0], boxes.LineBox):
        lines = len(children)
        orphans, widows = box.style["orphans"], box.style["widows"]
        for kept in range(max(orphans, 1), min(lines - widows, lines - 1) + 1):  # lines before the break
            before, after = children[kept - 1], children[kept]
            places.append(Place(after.position_y, before.position_y + before.height))
        return
    for i, child in enumerate(children):
        if i and not avoid_page_break(block_level_page_break(children[i - 1], child), context):
            places.append(Place(_top(child), _bottom(box, children[i - 1])))
        if _breakable(context, child):
            _places(context, child, places)


def _top(child: Any) -> float:
    """Where the column above `child` would start for `child` to head the next column: its top
    margin, collapsed with those of its first descendants (a heading's in a block with no border
    or padding), above the border edge of the innermost of them."""
    from weasyprint.formatting_structure import boxes
    from weasyprint.layout.block import collapse_margin

    margins, box = [child.margin_top], child
    while box.top_margin_collapses():
        inner = _in_flow(box)
        if not inner or not isinstance(inner[0], boxes.BlockLevelBox):
            break
        box = inner[0]
        margins.append(box.margin_top)
    return box.border_box_y() - collapse_margin(margins)


def _bottom(parent: Any, child: Any) -> float:
    """How low the column must reach for `child` to fit in it whole, as weasyprint checks it: its
    border edge, plus its bottom padding and border once more, plus its bottom margin where the
    parent's does not collapse with it (a column box's never does)."""
    bottom = child.border_box_y() + child.border_height() + child.padding_bottom + child.border_bottom_width
    return bottom + (0 if parent.bottom_margin_collapses() else child.margin_bottom)


def _breakable(context: Any, box: Any) -> bool:
    """A plain block whose content may break across columns (not a table, flex box, image...)."""
    from weasyprint.formatting_structure import boxes
    from weasyprint.layout.block import avoid_page_break

    return (type(box) is boxes.BlockBox and not box.is_table_wrapper and not box.is_monolithic()
            and not avoid_page_break(box.style["break_inside"], context))


def _in_flow(box: Any) -> list[Any]:
    return [child for child in getattr(box, "children", ()) if child.is_in_normal_flow()]
