"""Column balancing from remembered layouts (cardgen/rulebook/columns.py): weasyprint's own
pages, from fewer column layouts."""

from __future__ import annotations

import functools
import subprocess

import pytest
from conftest import ROOT
from weasyprint.layout import block

from cardgen.cardstage import draw_cards
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.errors import BuildError
from cardgen.i18n.localise import localise
from cardgen.rulebook import columns, rulebook_html, write_rulebook_pdf
from cardgen.rulebook.document import RulebookDocument
from cardgen.rulebook.layout import Places, project_fetcher, render
from cardgen.rulebook.notes import notes_document
from cardgen.rulebook.stage import has_rulebook_words, rulebook_document


@pytest.fixture(scope="module")
def rulebook_31():
    project = load_project(ROOT)
    snapshot = resolve(project, load_game(project, "kings-blade"), "3.1")
    rendered = draw_cards(project, snapshot, checks=False).faces()  # the rulebook shows no findings
    return project, _html(project, snapshot, rendered, rulebook_document(snapshot), "a4")


def _html(project, snapshot, rendered, document, paper: str) -> RulebookDocument:
    """A player's document (`stage.rulebook_document`, `notes.notes_document`) filled in as a build fills it."""
    extra = document.extra() if document.extra else None
    return rulebook_html(project, snapshot, rendered, document.template, document.page(paper), extra=extra)


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


def _keeping_the_layout(monkeypatch) -> list:
    """The laid-out documents `write_rulebook_pdf` writes, kept (`layout.render`'s), to read their boxes."""
    from cardgen.rulebook import layout

    kept: list = []
    render = layout.render

    @functools.wraps(render)
    def keeping(*args, **kwargs):
        laid_out = render(*args, **kwargs)
        kept.append(laid_out[0])
        return laid_out

    monkeypatch.setattr(layout, "render", keeping)
    return kept


def _asking(layout, asked: list[tuple]):
    """`layout` (weasyprint's block_box_layout, or the memo's in its place) noting each layout of a
    column box weasyprint asks for, with what it got: the column (numbered as first met), its place,
    where its content resumes, the room below it and the other arguments, where it broke, the column's height and its
    entries' places. Two runs of one document compare these, call by call."""
    from cardgen.rulebook.columns import _frozen

    met: dict[int, int] = {}
    kept: list = []  # the column boxes, alive: their ids number them

    @functools.wraps(layout)
    def noting(context, box, bottom_space, skip_stack, *rest, **kwargs):
        balancing = rest[2:5] == ([], [], [])  # fresh lists: weasyprint's search (its last pass passes its own)
        result = layout(context, box, bottom_space, skip_stack, *rest, **kwargs)
        if getattr(box, "is_column", False):
            if id(box) not in met:
                met[id(box)], _ = len(met), kept.append(box)
            column = result[0]
            got = None if column is None else (column.margin_height(), tuple(
                (child.position_y, child.margin_height()) for child in column.children))
            asked.append((met[id(box)], (box.position_x, box.position_y, box.width), _frozen(skip_stack), bottom_space,
                          rest[1], balancing, _frozen(kwargs), _frozen(result[1]), _frozen(result[2]),
                          got))
        return result

    return noting


FLOATS = "".join(f'<div style="float: left; width: 20mm; height: {8 + i % 5}mm"></div><p>{"Word " * (9 * i)}</p>'
                 for i in range(1, 8))
FOOTNOTES = "".join(f'<p>{"Word " * (9 * i)}<span style="float: footnote">Note {i}.</span></p>' for i in range(1, 8))


class TestTheKingsBlade31Rulebook:
    """The tests of The King's Blade 3.1's A4 rulebook (`rulebook_31`, drawn and filled once):
    one class, so that the test suite's workers take them as one unit, the module's longest
    (tests/conftest.py, CLASS_SCOPED_MODULES)."""

    def test_the_rulebook_balances_its_columns_from_a_few_layouts(self, rulebook_31, monkeypatch):
        """Each block's columns from the places its content may break (one layout of it in one
        piece), laid out once at the shortest height: 3.1's A4 rulebook takes about 40 column
        layouts where weasyprint balancing on its own takes over 500. Also the seed documents'
        promise for The King's Blade's English A4 rulebook (`CHECKED_BY_THE_31_TEST`), held to weasyprint's
        balancing alone: the same text in the same order, on as many pages, every block balanced."""
        project, doc = rulebook_31
        stock_asked: list[tuple] = []
        with monkeypatch.context() as m:
            m.setenv(columns.SWITCH, "off")  # weasyprint balancing on its own
            m.setattr(block, "block_box_layout", _asking(block.block_box_layout, stock_asked))
            stock_pages = _keeping_the_layout(m)
            stock = write_rulebook_pdf(project, doc)
        laid_out = _counting(monkeypatch)
        monkeypatch.setattr(columns, "stats", [])
        fewer, fewer_off = render(doc, project_fetcher(Places.of(project)))  # as a build lays it out, unwritten
        assert (stock.columns, fewer_off) == ("CARDGEN_COLUMN_MEMO=off", None)
        assert len(fewer.pages) == stock.pages == 8
        assert drawn_words(fewer) == drawn_words(stock_pages[0])  # the seed documents' promise, against weasyprint alone
        assert _balanced_blocks(fewer, "kings-blade 3.1 en rulebook a4")
        assert len(columns.stats) == 13 and all(columns.stats)  # every block balanced from its breaks
        assert len(stock_asked) > 450 and laid_out[0] < 0.15 * len(stock_asked)
        assert block.block_box_layout is not columns._block_box_layout  # weasyprint's own again afterwards
        # weasyprint's search shortened by the memo alone gives weasyprint's bytes (the seed documents'
        # promise compares against it): weasyprint asks the memo for the same column layouts, in the same
        # order, as it lays out on its own, and every answer, laid out or from memory, is the one
        # weasyprint's own layout gave (where the column broke, its height and its entries' places)
        memo_asked: list[tuple] = []
        with monkeypatch.context() as m:
            m.setattr(columns, "from_breaks", False)
            m.setattr(columns, "_block_box_layout", _asking(columns._block_box_layout, memo_asked))
            memo = write_rulebook_pdf(project, doc)
        assert memo.data == stock.data
        assert memo_asked == stock_asked

    @pytest.mark.parametrize("markup, left_to_the_memo", [(FLOATS, True), (FOOTNOTES, False)], ids=["floats", "footnotes"])
    def test_out_of_flow_boxes_in_columns_give_weasyprints_pages(self, rulebook_31, monkeypatch, markup, left_to_the_memo):
        """A block whose content places floats or footnotes is not balanced from its breaks but by
        weasyprint's search: a column's floats end with its layout, so the memo shortens that search;
        footnotes stay placed for the next column's layout to see, so weasyprint searches alone."""
        project, doc = rulebook_31
        body = doc.html.index("<body")
        odd = RulebookDocument(doc.template_path, doc.html[:body] + f'<body><section class="cols">{markup}</section></body></html>',
                               doc.base_url)
        monkeypatch.setattr(columns, "checks", [])
        monkeypatch.setattr(columns, "stats", [])
        blocks, remembered = [], columns._Block
        monkeypatch.setattr(columns, "_Block", lambda: blocks.append(remembered()) or blocks[-1])
        fewer = write_rulebook_pdf(project, odd)
        with monkeypatch.context() as m:
            m.setenv(columns.SWITCH, "off")
            stock = write_rulebook_pdf(project, odd)
        assert fewer.data == stock.data and all(columns.checks)
        assert columns.stats and not any(columns.stats)  # each piece of the block left to weasyprint
        assert all(b.plain for b in blocks) == left_to_the_memo

    def test_a_switch_neither_on_nor_off_is_one_error_line(self, rulebook_31, monkeypatch):
        project, doc = rulebook_31
        monkeypatch.setenv(columns.SWITCH, "fast")
        with pytest.raises(BuildError, match="^CARDGEN_COLUMN_MEMO must be 'on' or 'off', not 'fast'$"):
            write_rulebook_pdf(project, doc)


# Every seed game in every language its rulebook is written in (test_the_seed_list_is_complete
# holds it to the data), written out so that collecting this module resolves no game.
SEEDS = [("kings-blade", "nl"), ("kings-blade", "en"), ("kings-guild", "it"), ("kings-guild", "en"),
         ("knightfall", "en"), ("one-true-king", "en"), ("way-of-the-blade", "en")]
PAPERS = ("a4", "letter")
# The seed document test_the_rulebook_balances_its_columns_from_a_few_layouts holds to the promise
# (with weasyprint's balancing alone, which it lays out anyway): The King's Blade's default
# version is 3.1 (test_the_seed_list_is_complete), whose English A4 rulebook that test lays out.
CHECKED_BY_THE_31_TEST = ("kings-blade", "en", "rulebook", "a4")


def _seeds() -> tuple[list[tuple[str, str]], dict[str, str]]:
    """Every seed game in every language its rulebook is written in; each game's default version."""
    project = load_project(ROOT)
    seeds, versions = [], {}
    for game_id in project.game_ids():
        locale = project.card_data / game_id / "locale"
        source = load_game(project, game_id).file.language
        languages = [source] + (sorted(p.name for p in locale.iterdir() if p.is_dir()) if locale.is_dir() else [])
        snapshot = resolve(project, load_game(project, game_id))
        versions[game_id] = snapshot.version
        seeds += [(game_id, language) for language in languages
                  if language == source or has_rulebook_words(localise(snapshot, language))]
    return seeds, versions


def test_the_seed_list_is_complete():
    seeds, versions = _seeds()
    assert sorted(SEEDS) == sorted(seeds)
    assert versions[CHECKED_BY_THE_31_TEST[0]] == "3.1"


def _papers(seed: tuple[str, str]) -> dict[str, str]:
    """The paper each document of a seed is laid out on: the rulebook on one, the notes on the
    other, taking turns down SEEDS, so that every game's rulebook in every language, and every
    game's notes, is checked, and each kind of document on both papers (a seed game's two
    languages, or two games in turn, take the two papers). The King's Blade's English rulebook
    goes on A4, where test_the_rulebook_balances_its_columns_from_a_few_layouts holds it to the
    promise (`CHECKED_BY_THE_31_TEST`)."""
    first = PAPERS[(SEEDS.index(seed) + 1) % 2]
    return {"rulebook": first, "notes": PAPERS[1 - PAPERS.index(first)]}


def test_every_seed_document_and_paper_is_checked():
    """What the seed documents' promise covers: every seed, both its documents, and each kind of
    document on both papers, within each game with two languages too."""
    checked = {(game, language, document, paper) for game, language in SEEDS
               for document, paper in _papers((game, language)).items()}
    assert {(g, lang) for g, lang, _, _ in checked} == set(SEEDS)
    for document in ("rulebook", "notes"):
        assert {p for _, _, d, p in checked if d == document} == set(PAPERS)
        for game in ("kings-blade", "kings-guild"):  # written in two languages: one paper each
            assert {p for g, _, d, p in checked if (g, d) == (game, document)} == set(PAPERS)


def _seed_documents_keep_the_promise(game_id: str, language: str, against_pdftotext: bool = False) -> None:
    """Not always weasyprint's bytes: weasyprint grows a block's columns in steps that may pass
    the shortest height at which they hold it, and cardgen lays the block out at that height.
    The promise, for the rulebook and the designer's notes of every seed game (its default
    version) in each language (each on the paper `_papers` gives it): the same text in the same
    order as weasyprint's own balancing gives, on the same pages or fewer, every column block
    balanced. Built: the seed's cards drawn and its two documents' HTML filled in this process,
    each laid out as a build lays it out, with weasyprint's own balancing of each column block
    beside cardgen's (`_weasyprint_alongside`); where one block's boxes differ, the document is
    laid out again by weasyprint's balancing alone (no PDF written: the text is read from the
    laid-out pages, `drawn_words`); `against_pdftotext` also writes our layouts' PDFs and holds
    `drawn_words` to pdftotext's."""
    project = load_project(ROOT)
    snapshot = resolve(project, load_game(project, game_id))
    if language != snapshot.language:
        snapshot = localise(snapshot, language)
    cards = draw_cards(project, snapshot)
    rendered = cards.faces()
    checked = 0
    papers = _papers((game_id, language))
    for document in (rulebook_document(snapshot), notes_document(project, snapshot, list(cards.findings))):
        paper = papers[document.name]
        if (game_id, language, document.name, paper) == CHECKED_BY_THE_31_TEST:
            continue
        doc = _html(project, snapshot, rendered, document, paper)
        where = f"{game_id} {language} {document.name} {paper}"
        with pytest.MonkeyPatch.context() as m:
            blocks, boxes = _weasyprint_alongside(m)
            ours = _laid_out(project, doc)
        words = drawn_words(ours)
        if blocks and all(blocks):  # weasyprint gave every block the boxes cardgen gave it: its document is ours
            their_words, their_pages = words, len(ours.pages)
        else:
            with pytest.MonkeyPatch.context() as m:
                # weasyprint's own balancing, through the memo alone: its pages, in half the
                # layouts (test_the_rulebook_balances_its_columns_from_a_few_layouts holds the
                # memo to weasyprint's bytes and layouts); the blocks before the first that
                # differs are weasyprint's boxes already: cardgen's balancing lays them out
                m.setattr(columns, "from_breaks", False)
                same = boxes[:blocks.index(False)] if False in blocks else []
                again = _cardgens_before(m, same)
                theirs = _laid_out(project, doc)
            assert again == [True] * len(same), where
            their_words, their_pages = drawn_words(theirs), len(theirs.pages)
        assert words == their_words, where
        if against_pdftotext:
            assert_runs_of(words, _pdf_words(ours.write_pdf()), where)
        assert len(ours.pages) <= their_pages, where
        checked += _balanced_blocks(ours, where)
    assert checked


def _balanced_blocks(document, where: str) -> int:
    """Every column block of the laid-out document balanced (`column_blocks`): its columns differ
    in height by at most its tallest entry. How many blocks were checked."""
    blocks = column_blocks(document)
    for page, heights, tallest in blocks:
        assert max(heights) - min(heights) <= tallest + 0.01, (where, page, heights, tallest)
    return len(blocks)


def _weasyprint_alongside(monkeypatch) -> tuple[list[bool], list[tuple]]:
    """While a document is laid out with cardgen's balancing, each column block is first balanced
    by weasyprint's own search (through the memo, as `from_breaks = False` lays a whole document
    out), its boxes noted and taken back (as a block's breaks layout and the memo's layouts are
    taken back), then laid out by cardgen's: the list says, a block each, whether weasyprint's
    boxes are cardgen's (`_boxes`: every box's kind, place, size and text, and where the block
    resumes). A layout is a function of what came before it, so when every block's boxes are the
    same, weasyprint's balancing lays the whole document out as cardgen's does: the same pages
    and text, without laying the document out a second time. A block placing something out of
    flow, or pieces of it into the caller's lists, counts as different. Checked when this was
    written on the 14 seed documents this module lays out: the documents laid out with this
    beside them are the bytes of those laid out without it, and the 11 whose blocks all came out
    the same are the bytes weasyprint's balancing alone gives (the other three are not). The
    second list: cardgen's boxes of each block (`_boxes`), as compared."""
    from weasyprint.layout.block import remove_placeholders

    same: list[bool] = []
    boxes: list[tuple] = []
    cardgens = columns._columns_layout

    def alongside(context, box, bottom_space, skip_stack, containing_block, page_is_empty, absolute_boxes,
                  fixed_boxes, adjoining_margins, *styles):
        if not all(same):  # the document is laid out again by weasyprint alone anyway
            return cardgens(context, box, bottom_space, skip_stack, containing_block, page_is_empty,
                            absolute_boxes, fixed_boxes, adjoining_margins, *styles)
        before, in_column = columns._out_of_flow(context), context.in_column
        absolutes: list = []
        fixeds: list = []
        with pytest.MonkeyPatch.context() as m:
            m.setattr(columns, "from_breaks", False)
            theirs = cardgens(context, box, bottom_space, skip_stack, containing_block, page_is_empty, absolutes,
                              fixeds, list(adjoining_margins), *styles)
        if theirs[0] is not None:
            remove_placeholders(context, [theirs[0]], absolutes, fixeds)
        plain = not absolutes and not fixeds and columns._out_of_flow(context) == before
        del context.excluded_shapes[before[0]:]
        context.in_column = in_column
        ours = cardgens(context, box, bottom_space, skip_stack, containing_block, page_is_empty, absolute_boxes,
                        fixed_boxes, adjoining_margins, *styles)
        boxes.append(_boxes(ours))
        same.append(plain and _boxes(theirs) == boxes[-1])
        return ours

    monkeypatch.setattr(columns, "_columns_layout", alongside)
    return same, boxes


def _cardgens_before(monkeypatch, boxes: list[tuple]) -> list[bool]:
    """While weasyprint's balancing (`from_breaks = False`) lays a document out, its first column
    blocks, one for each of `boxes`, balanced by cardgen's instead: where `_weasyprint_alongside`
    found weasyprint's boxes to be cardgen's, in the same place of the same document, so the
    document is still weasyprint's. The list says, a block each, whether cardgen's boxes came out
    as `boxes` (the blocks are met in the same order, each where it was)."""
    again: list[bool] = []
    cardgens = columns._columns_layout

    def before(*args):
        if len(again) == len(boxes):
            return cardgens(*args)
        with pytest.MonkeyPatch.context() as m:
            m.setattr(columns, "from_breaks", True)
            laid_out = cardgens(*args)
        again.append(_boxes(laid_out) == boxes[len(again)])
        return laid_out

    monkeypatch.setattr(columns, "_columns_layout", before)
    return again


def _boxes(laid_out: tuple) -> tuple:
    """A column block's layout as plain values: every box's kind, place, size and text (an
    absolutely placed box's, as far as it is laid out), where the block resumes and how the page
    breaks after it."""
    def shape(box) -> tuple:
        return (type(box).__name__, *(getattr(box, name, None) for name in ("position_x", "position_y", "width",
                                                                             "height", "text")),
                tuple(shape(child) for child in getattr(box, "children", ())))

    box, resume_at, next_page = laid_out[:3]
    return (None if box is None else shape(box), columns._frozen(resume_at), columns._frozen(next_page))


class _SeedDocuments:
    """One class a seed game and language: the test suite's workers take one class each
    (tests/conftest.py, CLASS_SCOPED_MODULES)."""
    seed: tuple[str, str]
    against_pdftotext = False

    def test_weasyprints_text_on_as_few_pages_and_balanced_columns(self):
        _seed_documents_keep_the_promise(*self.seed, against_pdftotext=self.against_pdftotext)


# The seed whose documents also hold drawn_words to pdftotext -raw: its rulebook has figures
# whose labels are SVG text, and its notes the contents list and change logs.
AGAINST_PDFTOTEXT = ("kings-guild", "en")
for _game, _language in SEEDS:
    _name = f"TestSeed_{_game}_{_language}".replace("-", "_")
    globals()[_name] = type(_name, (_SeedDocuments,), {"seed": (_game, _language),
                                                       "against_pdftotext": (_game, _language) == AGAINST_PDFTOTEXT})


def _laid_out(project, doc):
    """weasyprint's document, laid out as write_rulebook_pdf lays it out (layout.render), unwritten."""
    return render(doc, project_fetcher(Places.of(project)))[0]


def _pdf_words(pdf: bytes) -> list[str]:
    """The PDF's words in the order they are drawn (pdftotext -raw): a column block's columns
    one after the other."""
    return subprocess.run(["pdftotext", "-raw", "-", "-"], input=pdf, capture_output=True,
                          check=True).stdout.decode().split()


class _Nowhere:
    """A drawing stream that takes every call and draws nothing."""

    def __getattr__(self, name):
        return self

    def __call__(self, *args, **kwargs):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __iter__(self):
        return iter(())


_NOT_DRAWN = ("draw_background", "draw_border", "set_mask_border", "draw_outline", "draw_table")


def drawn_words(document) -> list[str]:
    """The laid-out document's words in the order weasyprint draws them, without writing the PDF
    (drawing it is most of write_pdf's time): weasyprint's own drawing walk over each page
    (`weasyprint.draw.draw_page`: stacking contexts, floats, blocks and lines in its order), with
    each text box's text taken where it would be drawn (the boxes of a line that touch, joined as
    one run of text), each SVG picture's text in its document order, and nothing drawn. What
    pdftotext -raw reads from the written PDF, except that pdftotext sometimes runs neighbouring
    words together: its words are runs of these (`assert_runs_of`) on all 28 seed documents (every
    seed's rulebook and notes on both papers, checked once when this was written), and on
    AGAINST_PDFTOTEXT's two in every run."""
    from weasyprint import draw

    runs: list[tuple[str, float, float, float] | None] = []  # text, left, right, baseline; None: not joined

    def text(stream, box, offset_x, text_overflow, block_ellipsis="none"):
        # what draw_text and draw_first_line leave out, left out
        if box.style["visibility"] == "visible" and box.text.strip() and box.style["font_size"] >= 1e-6:
            runs.append((box.text, box.position_x, box.position_x + box.width, box.position_y + box.baseline))

    def picture(stream, box):
        if box.style["visibility"] == "visible" and box.width and box.height:
            svg = getattr(box.replacement, "_svg", None)
            for piece in _svg_texts(svg.tree) if svg is not None else ():
                runs.extend((None, (piece, 0.0, 0.0, 0.0)))
            runs.append(None)

    kept = {name: getattr(draw, name) for name in ("draw_text", "draw_replacedbox") + _NOT_DRAWN}
    try:
        draw.draw_text, draw.draw_replacedbox = text, picture
        for name in _NOT_DRAWN:
            setattr(draw, name, lambda *args, **kwargs: None)
        for page in document.pages:
            draw.draw_page(page._page_box, _Nowhere())
            runs.append(None)
    finally:
        for name, function in kept.items():
            setattr(draw, name, function)
    words: list[str] = []
    last = None
    for run in runs:
        if run is not None:
            split = run[0].split()
            if (last is not None and split and words and abs(run[3] - last[3]) < 0.5 and abs(run[1] - last[2]) < 0.5
                    and not last[0][-1].isspace() and not run[0][0].isspace()):  # one word over two boxes
                words[-1] += split.pop(0)
            words += split
        last = run
    return words


def _svg_texts(node):
    """The text of an SVG picture's text elements, in the order weasyprint draws them."""
    if node.tag == "defs":
        return
    if node.tag in ("text", "tspan", "textPath") and node.text:
        yield node.text
    for child in node:
        yield from _svg_texts(child)


def assert_runs_of(words: list[str], pdf_words: list[str], where: str) -> None:
    """pdftotext's words are `words` with some neighbours run together (where it saw no space)."""
    assert "".join(pdf_words) == "".join(words), where
    i = 0
    for pdf_word in pdf_words:
        run = ""
        while len(run) < len(pdf_word) and i < len(words):
            run, i = run + words[i], i + 1
        assert run == pdf_word, (where, pdf_word, run, i)


def column_blocks(document) -> list[tuple[int, list[float], float]]:
    """Each multi-column block's last piece (earlier pieces fill their pages) with two columns
    or more, read from the laid-out boxes: its page, the height its content takes in each
    column, and its tallest entry (a child of a column: a paragraph or the piece of one, a
    heading, an entry that does not break), the most one column may hold more than another."""
    last: dict[object, tuple[int, list]] = {}
    for number, page in enumerate(document.pages, 1):
        stack = [page._page_box]
        while stack:
            box = stack.pop()
            children = list(getattr(box, "children", ()))
            in_columns = [child for child in children if getattr(child, "is_column", False)]
            if in_columns:
                last[box.element] = (number, in_columns)
            stack.extend(children)
    blocks = []
    for number, in_columns in last.values():
        if len(in_columns) < 2:
            continue
        heights, tallest = [], 0.0
        for column in in_columns:
            entries = [child for child in column.children if child.is_in_normal_flow()]
            heights.append(entries[-1].position_y + entries[-1].margin_height() - column.position_y if entries else 0)
            tallest = max([tallest] + [entry.margin_height() for entry in entries])
        blocks.append((number, heights, tallest))
    return blocks


def test_the_installed_weasyprint_is_the_one_the_column_memo_was_written_for():
    """Fails on a new weasyprint (a refresh of constraints.txt runs this): the memo is then off,
    and the rulebooks lay out in weasyprint's own time, until someone checks it again."""
    reason = columns.off_because()
    assert reason is None, (
        f"{reason}. The rulebook's column memo (cardgen/rulebook/columns.py) is off for this weasyprint: "
        "read the new source of the functions named in columns.SOURCES against what the memo assumes, run "
        "tests/test_columns.py (every answer from memory compared with weasyprint's own layout), then put the new "
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


def test_another_weasyprint_is_left_as_it_is(monkeypatch):
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
