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
    project, doc = rulebook_31
    laid_out = _counting(monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(columns, "_install", lambda: False)  # weasyprint balancing on its own
        stock = write_rulebook_pdf(project, doc)
    stock_layouts, laid_out[0] = laid_out[0], 0
    fewer = write_rulebook_pdf(project, doc)
    assert fewer.data == stock.data and fewer.pages == stock.pages == 8
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
        m.setattr(columns, "_install", lambda: False)
        stock = write_rulebook_pdf(project, odd)
    assert fewer.data == stock.data and all(columns.checks)
    assert any(not b.plain for b in blocks) == left_to_weasyprint


def test_another_weasyprint_is_left_as_it_is(rulebook_31, monkeypatch):
    """fewer_layouts takes over only functions with the parameters it was written against."""
    def other(context, box, bottom_space, skip_stack, containing_block, page_is_empty):
        raise AssertionError("not called")

    monkeypatch.setattr(block, "block_box_layout", other)
    with columns.fewer_layouts(), columns.fewer_layouts():  # nested, as two layouts in one process
        assert block.block_box_layout is other
    assert block.block_box_layout is other


def test_an_unchecked_weasyprint_release_is_left_as_it_is(monkeypatch):
    """Same parameters, another release: how it fills a column may differ, so it balances alone."""
    import weasyprint

    layout = block.block_box_layout
    monkeypatch.setattr(weasyprint, "__version__", "71.0")
    with columns.fewer_layouts():
        assert block.block_box_layout is layout
    monkeypatch.setattr(weasyprint, "__version__", "70.0")
    with columns.fewer_layouts():
        assert block.block_box_layout is not layout
    assert block.block_box_layout is layout


def test_nested_use_keeps_the_wrapper_until_the_last_one_ends():
    weasyprints = block.block_box_layout
    with columns.fewer_layouts():
        with columns.fewer_layouts():
            assert block.block_box_layout is columns._block_box_layout
        assert block.block_box_layout is columns._block_box_layout
    assert block.block_box_layout is weasyprints
