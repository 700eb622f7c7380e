"""Column balancing from remembered layouts (cardgen/rulebook/columns.py): weasyprint's own
pages, from fewer column layouts."""

from __future__ import annotations

import functools

import pytest
from conftest import ROOT
from weasyprint.layout import block

from cardgen.buildtypes import PAPER_SIZES
from cardgen.cardstage import draw_cards
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.errors import BuildError
from cardgen.rulebook import columns, rulebook_html, write_rulebook_pdf
from cardgen.rulebook.document import RulebookDocument


@pytest.fixture(scope="module")
def rulebook_31():
    project = load_project(ROOT)
    snapshot = resolve(project, load_game(project, "kings-blade"), "3.1")
    rendered = draw_cards(project, snapshot, checks=False).faces()
    return project, rulebook_html(project, snapshot, rendered, "rulebook.html.j2", PAPER_SIZES["a4"])


def _counting(monkeypatch) -> list[int]:
    """Count weasyprint's layouts of column boxes (wrapped with its signature, which
    fewer_layouts checks before it takes over)."""
    laid_out = [0]
    layout = block.block_box_layout

    @functools.wraps(layout)
    def counted(context, box, *args, **kwargs):
        laid_out[0] += bool(getattr(box, "is_column", False))
        return layout(context, box, *args, **kwargs)

    monkeypatch.setattr(block, "block_box_layout", counted)
    return laid_out


def test_the_rulebook_is_the_same_pdf_from_fewer_column_layouts(rulebook_31, monkeypatch):
    """The switch off, weasyprint balances on its own: the same bytes, from more layouts."""
    project, doc = rulebook_31
    laid_out = _counting(monkeypatch)
    with monkeypatch.context() as m:
        m.setenv(columns.SWITCH, "off")  # weasyprint balancing on its own
        stock = write_rulebook_pdf(project, doc)
    stock_layouts, laid_out[0] = laid_out[0], 0
    fewer = write_rulebook_pdf(project, doc)
    assert fewer.data == stock.data and fewer.pages == stock.pages == 8
    assert (stock.columns, fewer.columns) == ("CARDGEN_COLUMN_MEMO=off", None)
    # 390 column layouts -> about 200 (the 1 px steps of three blocks came from memory)
    assert stock_layouts > 350 and laid_out[0] < 0.6 * stock_layouts
    assert block.block_box_layout is not columns._block_box_layout  # weasyprint's own again afterwards


def test_every_answer_from_memory_is_what_weasyprint_lays_out(rulebook_31, monkeypatch):
    project, doc = rulebook_31
    monkeypatch.setattr(columns, "checks", [])  # each answer is laid out again and compared
    write_rulebook_pdf(project, doc)
    assert len(columns.checks) > 100 and all(columns.checks)


FLOATS = "".join(f'<div style="float: left; width: 20mm; height: {8 + i % 5}mm"></div><p>{"Word " * (9 * i)}</p>'
                 for i in range(1, 14))
FOOTNOTES = "".join(f'<p>{"Word " * (9 * i)}<span style="float: footnote">Note {i}.</span></p>' for i in range(1, 14))


@pytest.mark.parametrize("markup, left_to_weasyprint", [(FLOATS, False), (FOOTNOTES, True)], ids=["floats", "footnotes"])
def test_out_of_flow_boxes_in_columns_give_weasyprints_pages(rulebook_31, monkeypatch, markup, left_to_weasyprint):
    """A column's floats end with its layout; footnotes stay placed for the next column's
    layout to see, so a block with footnotes is balanced by weasyprint alone."""
    project, doc = rulebook_31
    odd = RulebookDocument(doc.template_path, doc.html.replace('<section class="cols">', f'<section class="cols">{markup}', 1),
                           doc.base_url)
    monkeypatch.setattr(columns, "checks", [])
    blocks, remembered = [], columns._Block
    monkeypatch.setattr(columns, "_Block", lambda: blocks.append(remembered()) or blocks[-1])
    fewer = write_rulebook_pdf(project, odd)
    with monkeypatch.context() as m:
        m.setenv(columns.SWITCH, "off")
        stock = write_rulebook_pdf(project, odd)
    assert fewer.data == stock.data and all(columns.checks)
    assert any(not b.plain for b in blocks) == left_to_weasyprint


def test_the_installed_weasyprint_is_the_one_the_column_memo_was_written_for():
    """Fails on a new weasyprint (a refresh of constraints.txt runs this): the memo is then off,
    and the rulebooks lay out in weasyprint's own time, until someone checks it again."""
    reason = columns.off_because()
    assert reason is None, (
        f"{reason}. The rulebook's column memo (cardgen/rulebook/columns.py) is off for this weasyprint: "
        "read the new source of the functions named in columns.SOURCES against what the memo assumes, run "
        "tests/test_columns.py (every answer from memory laid out again and compared), then put the new "
        "hashes in SOURCES and the release in CHECKED_RELEASES; or leave weasyprint to balance on its own")


def test_constraints_pin_a_weasyprint_the_column_memo_was_checked_against():
    pins = [line.split(";")[0].removeprefix("weasyprint==").strip()
            for line in (ROOT / "constraints.txt").read_text().splitlines() if line.startswith("weasyprint==")]
    assert pins and all(pin in columns.CHECKED_RELEASES for pin in pins), pins


def test_the_hashes_are_of_weasyprints_own_source():
    """What a source hash reads, and that a wrapper (functools.wraps) is hashed as what it wraps."""
    import hashlib
    import inspect

    from weasyprint.layout import column

    assert columns.source_digest(column.columns_layout) == hashlib.sha256(
        inspect.getsource(column.columns_layout).encode()).hexdigest()[:16] == columns.SOURCES[
        "weasyprint.layout.column.columns_layout"]
    assert columns.source_digest(functools.wraps(block.remove_placeholders)(lambda *a: None)) == columns.SOURCES[
        "weasyprint.layout.block.remove_placeholders"]
    assert columns.source_digest(len) == "unreadable"


@pytest.mark.parametrize("value, on", [("", True), ("on", True), ("1", True), ("off", False), ("0", False),
                                       ("OFF", False)])
def test_one_switch_turns_the_memo_off(monkeypatch, value, on):
    weasyprints = block.block_box_layout
    monkeypatch.setenv(columns.SWITCH, value)
    with columns.fewer_layouts() as off:
        assert off == (None if on else "CARDGEN_COLUMN_MEMO=off")
        assert (block.block_box_layout is columns._block_box_layout) == on
    assert block.block_box_layout is weasyprints


def test_a_switch_neither_on_nor_off_is_one_error_line(rulebook_31, monkeypatch):
    project, doc = rulebook_31
    monkeypatch.setenv(columns.SWITCH, "fast")
    with pytest.raises(BuildError, match="^CARDGEN_COLUMN_MEMO must be 'on' or 'off', not 'fast'$"):
        write_rulebook_pdf(project, doc)


def test_another_weasyprint_is_left_as_it_is(rulebook_31, monkeypatch):
    """fewer_layouts takes over only functions with the source it was written against."""
    def other(context, box, bottom_space, skip_stack, containing_block, page_is_empty):
        raise AssertionError("not called")

    monkeypatch.setattr(block, "block_box_layout", other)
    assert columns.off_because() == (
        "weasyprint 70.0's weasyprint.layout.block.block_box_layout is not the one the column memo was written "
        f"for (source {columns.source_digest(other)}, written for a6279066e3d9ff7d)")
    with columns.fewer_layouts() as off, columns.fewer_layouts():  # nested, as two layouts in one process
        assert block.block_box_layout is other and off == columns.off_because()
    assert block.block_box_layout is other


def test_an_unchecked_weasyprint_release_is_left_as_it_is(monkeypatch):
    """Same functions, another release: how it fills a column may differ, so it balances alone."""
    import weasyprint

    layout = block.block_box_layout
    monkeypatch.setattr(weasyprint, "__version__", "71.0")
    with columns.fewer_layouts() as off:
        assert block.block_box_layout is layout
        assert off == "weasyprint 71.0 is not a release the column memo was checked against (70.0)"
    monkeypatch.setattr(weasyprint, "__version__", "70.0")
    with columns.fewer_layouts() as off:
        assert block.block_box_layout is not layout and off is None
    assert block.block_box_layout is layout


def test_nested_use_keeps_the_wrapper_until_the_last_one_ends():
    weasyprints = block.block_box_layout
    with columns.fewer_layouts():
        with columns.fewer_layouts():
            assert block.block_box_layout is columns._block_box_layout
        assert block.block_box_layout is columns._block_box_layout
    assert block.block_box_layout is weasyprints
