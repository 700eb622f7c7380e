"""Issue 9: print sheets that a home printer prints whole and a trimmer can cut.

Everything here is read back from the PDFs: a small content-stream interpreter follows q/Q/cm
to find every path the sheet itself draws (marks, bars) and where each piece is drawn and
clipped; pdfium gives every text glyph's box.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest
from conftest import ROOT

from cardgen.buildtypes import BuildOptions
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.pipeline import build
from cardgen.units import mm_to_pt, pt_to_mm

GAMES = {"kings-blade": "3.1", "way-of-the-blade": None, "one-true-king": None, "knightfall": None,
         "kings-guild": None}
MARGIN = 5.0   # what a home printer leaves blank
BLEED = 3.0    # every seed game's bleed
TOL = 0.01


@pytest.fixture(scope="module")
def sheets(seed_builds):
    """Every seed game's sheet files, A4 and Letter: {(game, file name): path} (the session's
    seed builds: no PNGs, no rulebook)."""
    files = {}
    for game, version in GAMES.items():
        # The King's Guild, written in Italian: its page text in English here
        seed = seed_builds.sheets(game, version, "en" if game == "kings-guild" else None)
        assert seed.snapshot.language == "en"
        for output in seed.result.outputs:
            files[(game, output.path.name)] = output.path
    return files


def _mul(a, b):
    """Affine matrices as (a, b, c, d, e, f): a then b."""
    return (a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
            a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5])


def _apply(m, x, y):
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def read_page(page: pikepdf.Page):
    """(paths, pieces): each path the page draws itself as a list of (x, y) points in mm (a line
    of its own text as the one point where it starts); each piece (Form XObject) as
    (trim rect, clip rect, drawn rect) in mm, trim = drawn box less BLEED."""
    identity = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    ctm, stack, paths, current, clip, pieces = identity, [], [], [], None, []
    pending_clip, text_at = None, (0.0, 0.0)
    for operands, op in pikepdf.parse_content_stream(page):
        op = str(op)
        nums = [float(v) for v in operands] if op in ("cm", "m", "l", "c", "re", "Tm") else []
        if op == "q":
            stack.append((ctm, clip))
        elif op == "Q":
            ctm, clip = stack.pop()
        elif op == "cm":
            ctm = _mul(tuple(nums), ctm)
        elif op in ("m", "l", "c"):
            current += [_apply(ctm, nums[i], nums[i + 1]) for i in range(0, len(nums), 2)]
        elif op == "re":
            x, y, w, h = nums
            current += [_apply(ctm, x, y), _apply(ctm, x + w, y + h)]
            pending_clip = (_apply(ctm, x, y), _apply(ctm, x + w, y + h))
        elif op == "W":
            if pending_clip:
                (x0, y0), (x1, y1) = pending_clip
                clip = tuple(pt_to_mm(v) for v in (x0, y0, x1, y1))
        elif op in ("S", "s", "f", "F", "B", "b", "f*"):
            if current:
                paths.append([(pt_to_mm(x), pt_to_mm(y)) for x, y in current])
            current, pending_clip = [], None
        elif op == "Tm":
            text_at = _apply(ctm, nums[4], nums[5])
        elif op in ("Tj", "TJ"):
            paths.append([(pt_to_mm(text_at[0]), pt_to_mm(text_at[1]))])
        elif op == "n":
            current, pending_clip = [], None
        elif op == "Do":
            form = page.obj.Resources.XObject[operands[0]]
            bx0, by0, bx1, by1 = (float(v) for v in form.BBox)
            (x0, y0), (x1, y1) = _apply(ctm, bx0, by0), _apply(ctm, bx1, by1)
            x0, y0, x1, y1 = (pt_to_mm(v) for v in (x0, y0, x1, y1))
            trim = (x0 + BLEED, y0 + BLEED, x1 - BLEED, y1 - BLEED)
            pieces.append((trim, clip, (x0, y0, x1, y1)))
    return paths, pieces


def _text_boxes(path: Path, index: int) -> list[tuple[str, tuple[float, float, float, float]]]:
    pdf = pdfium.PdfDocument(str(path))
    try:
        return _page_text_boxes(pdf, index)
    finally:
        pdf.close()


def _page_text_boxes(pdf: pdfium.PdfDocument, index: int) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Every glyph of page `index` but spaces, with its box in mm (its characters read in one call)."""
    text = pdf[index].get_textpage()
    count = text.count_chars()
    chars = text.get_text_range(0, count)
    assert len(chars) == count, (len(chars), count)  # one character an index, as get_charbox counts them
    boxes = []
    for i, ch in enumerate(chars):
        if ch.strip():
            left, bottom, right, top = text.get_charbox(i)
            boxes.append((ch, tuple(pt_to_mm(v) for v in (left, bottom, right, top))))
    return boxes


class Sheet:
    """One page of a seed game's sheet file, read back once per session: the seed builds' sheet
    files are read by several tests here, each page's content stream and glyphs once, not once a
    test (pdfium's glyph boxes are most of the module's reading)."""

    def __init__(self, path: Path, index: int, page: pikepdf.Page, stamp: tuple[int, int]):
        self.path, self.index, self.stamp = path, index, stamp
        self.size = _page_size(page)
        self.paths, self.pieces = read_page(page)

    @property
    def text_boxes(self) -> list[tuple[str, tuple[float, float, float, float]]]:
        return _file_text_boxes(self.path, self.stamp)[self.index]


@functools.cache
def _file_text_boxes(path: Path, stamp: tuple[int, int]) -> tuple[list, ...]:
    """Every page's glyph boxes of the file `path`, the document opened once for all its pages."""
    pdf = pdfium.PdfDocument(str(path))
    try:
        return tuple(_page_text_boxes(pdf, index) for index in range(len(pdf)))
    finally:
        pdf.close()


@functools.cache
def _read_sheets(path: Path, stamp: tuple[int, int]) -> tuple[Sheet, ...]:
    with pikepdf.open(path) as pdf:
        return tuple(Sheet(path, index, page, stamp) for index, page in enumerate(pdf.pages))


def sheet_pages(path: Path) -> tuple[Sheet, ...]:
    """Every page of the sheet file `path` (its size and modification time in the key)."""
    return _read_sheets(path, (path.stat().st_size, path.stat().st_mtime_ns))


def _page_size(page: pikepdf.Page) -> tuple[float, float]:
    box = [float(v) for v in page.mediabox]
    return pt_to_mm(box[2] - box[0]), pt_to_mm(box[3] - box[1])


def test_every_game_on_both_papers_has_one_print_mode_per_file(sheets):
    names = {game: sorted(name for g, name in sheets if g == game) for game in GAMES}
    for game in ("kings-blade", "way-of-the-blade", "one-true-king"):
        assert names[game] == ["sheets-a4-duplex.pdf", "sheets-letter-duplex.pdf"]
    for game in ("knightfall", "kings-guild"):
        assert names[game] == ["sheets-a4-duplex.pdf", "sheets-a4-onesided.pdf",
                               "sheets-letter-duplex.pdf", "sheets-letter-onesided.pdf"]
    for (game, name), path in sheets.items():
        with pikepdf.open(path) as pdf:
            assert str(pdf.docinfo["/Title"]).startswith(("The King", "Way of", "One True", "Knightfall"))
        mode = "print duplex, flip on long edge" if "duplex" in name else "print one-sided"
        for sheet in sheet_pages(path):
            assert mode.replace(" ", "") in "".join(ch for ch, _ in sheet.text_boxes), (game, name, sheet.index)


def test_nothing_is_printed_within_5_mm_of_a_paper_edge(sheets):
    """Every mark, bar and glyph on every page of every file, and every piece's clip."""
    for (game, name), path in sheets.items():
        for sheet in sheet_pages(path):
            index, (w, h), paths, pieces = sheet.index, sheet.size, sheet.paths, sheet.pieces
            points = [pt for p in paths for pt in p]
            points += [(c[0], c[1]) for _, c, _ in pieces] + [(c[2], c[3]) for _, c, _ in pieces]
            for x, y in points:
                assert MARGIN - TOL <= x <= w - MARGIN + TOL and MARGIN - TOL <= y <= h - MARGIN + TOL, \
                    (game, name, index, x, y)
            for ch, (left, bottom, right, top) in sheet.text_boxes:
                cx, cy = (left + right) / 2, (bottom + top) / 2
                if any(d[0] <= cx <= d[2] and d[1] <= cy <= d[3] for _, _, d in pieces):
                    continue  # a piece's own text: shown only inside its clip, checked above
                assert min(left, bottom) >= MARGIN - TOL and right <= w - MARGIN + TOL \
                    and top <= h - MARGIN + TOL, (game, name, index, ch)


def _is_outline(path, trim) -> bool:
    """A path drawn around `trim`: a cut circle, or a cut rectangle (`re`: its two corners)."""
    xs, ys = [p[0] for p in path], [p[1] for p in path]
    return all(abs(a - b) < 0.02 for a, b in zip((min(xs), min(ys), max(xs), max(ys)), trim))


def test_every_cut_line_has_a_mark_a_home_printer_prints(sheets):
    """Each trim edge of each rectangular piece on a front has a mark on its line beyond the
    pieces, at both ends; a piece in free space (an empty cell, a strip beside the grid) has its
    cut line drawn on it, and no cut of the grid (run across the whole sheet) splits it."""
    checked = 0
    for (game, name), path in sheets.items():
        for sheet in sheet_pages(path):
            index, paths, pieces = sheet.index, sheet.paths, sheet.pieces
            if index % 2 and "duplex" in name:
                assert [p for p in paths if len(p) > 1] == []  # backs: no marks, you cut from the front
                continue
            trims = [t for t, c, _ in pieces if not _is_tile(t, c)]  # tiles: checked in test_imposition
            segments = [p for p in paths if len(p) == 2]
            loose = [t for t in trims if any(_is_outline(p, t) for p in paths if len(p) >= 2)]
            grid = [t for t in trims if t not in loose]
            cuts_x = {round(s[0][0], 3) for s in segments if abs(s[0][0] - s[1][0]) < TOL and abs(s[0][1] - s[1][1]) < 10}
            cuts_y = {round(s[0][1], 3) for s in segments if abs(s[0][1] - s[1][1]) < TOL and abs(s[0][0] - s[1][0]) < 10}
            for trim in loose:  # cut along its own line; no cut of the grid, across the sheet, splits it
                assert not any(trim[0] - 1 + TOL < x < trim[2] + 1 - TOL for x in cuts_x), (game, name, index, trim)
                assert not any(trim[1] - 1 + TOL < y < trim[3] + 1 - TOL for y in cuts_y), (game, name, index, trim)
            for trim in grid:
                for x in (trim[0], trim[2]):
                    on_line = [s for s in segments if abs(s[0][0] - x) < TOL and abs(s[1][0] - x) < TOL]
                    assert any(min(s[0][1], s[1][1]) > max(t[3] for t in grid) for s in on_line), \
                        (game, name, index, "no mark above", x)
                    assert any(max(s[0][1], s[1][1]) < min(t[1] for t in grid) for s in on_line), \
                        (game, name, index, "no mark below", x)
                for y in (trim[1], trim[3]):
                    on_line = [s for s in segments if abs(s[0][1] - y) < TOL and abs(s[1][1] - y) < TOL]
                    assert any(min(s[0][0], s[1][0]) > max(t[2] for t in grid) for s in on_line), \
                        (game, name, index, "no mark right", y)
                    assert any(max(s[0][0], s[1][0]) < min(t[0] for t in grid) for s in on_line), \
                        (game, name, index, "no mark left", y)
                checked += 1
    assert checked > 400  # all card fronts of all games on both papers


def _kept(trim, clip):
    """Bleed a piece keeps beyond its trim: left, bottom, right, top."""
    return (trim[0] - clip[0], trim[1] - clip[1], clip[2] - trim[2], clip[3] - trim[3])


def _is_tile(trim, clip) -> bool:
    """A region of a component larger than the paper, clipped inside its trim."""
    return min(_kept(trim, clip)) < -TOL


def test_every_cut_keeps_at_least_1_mm_of_the_pieces_own_bleed(sheets, capsys):
    """Issue 23: a cut that lands a hair off its mark must show the piece's own colour, never a
    neighbour's or white paper. On every front of every seed game, A4 and Letter, each piece
    keeps at least 1 mm of its own bleed beyond every trim edge (outer edges included), and none
    paints more than half the gap towards a neighbour."""
    report = {}
    for (game, name), path in sheets.items():
        for sheet in sheet_pages(path):
            index, pieces = sheet.index, sheet.pieces
            if index % 2 and "duplex" in name:
                continue  # you cut from the front
            for trim, clip, _ in pieces:
                if _is_tile(trim, clip):
                    continue
                kept = _kept(trim, clip)
                assert min(kept) >= 1.0 - TOL, (game, name, index, trim, kept)
                report[(game, name)] = min(report.get((game, name), 99.0), *kept)
                for other, _, _ in pieces:
                    if other is trim or _is_tile(other, _):
                        continue
                    overlap_y = min(trim[3], other[3]) - max(trim[1], other[1]) > 1
                    overlap_x = min(trim[2], other[2]) - max(trim[0], other[0]) > 1
                    if overlap_y and 0 <= other[0] - trim[2] < 10:  # a neighbour to the right
                        assert kept[2] <= (other[0] - trim[2]) / 2 + TOL, (game, name, index, trim, other)
                    if overlap_x and 0 <= other[1] - trim[3] < 10:  # a neighbour above
                        assert kept[3] <= (other[1] - trim[3]) / 2 + TOL, (game, name, index, trim, other)
    with capsys.disabled():
        print("\nsmallest bleed kept at a cut (mm):",
              ", ".join(f"{g}/{n}: {v:.1f}" for (g, n), v in sorted(report.items())))
    assert {game for game, _ in report} == set(GAMES)
    assert report[("kings-blade", "sheets-a4-duplex.pdf")] == pytest.approx(1.0, abs=0.01)  # 2 mm gutters


def test_every_sheet_of_every_game_is_at_least_a_quarter_used_and_one_orientation_a_file(sheets):
    """Issue 23: no sheet of paper used less than a quarter (the pieces' trim area, tiles' regions
    within their trim, over the paper's) unless it is the file's only sheet; every page of a file
    in one orientation."""
    for (game, name), path in sheets.items():
        pages = sheet_pages(path)
        sizes = {sheet.size for sheet in pages}
        assert len(sizes) == 1, (game, name, sizes)
        fronts = pages[::2] if "duplex" in name else pages
        for index, sheet in enumerate(fronts):
            w, h = sheet.size
            area = 0.0
            for trim, clip, _ in sheet.pieces:
                x0, y0 = max(trim[0], clip[0]), max(trim[1], clip[1])
                x1, y1 = min(trim[2], clip[2]), min(trim[3], clip[3])
                area += max(0.0, x1 - x0) * max(0.0, y1 - y0)
            assert len(fronts) == 1 or area / (w * h) >= 0.25, (game, name, index, area / (w * h))


def test_dense_cuts_stay_an_option_and_the_build_says_what_each_keeps(cli, tmp_path):
    """Built from the seed project itself into a folder of the test's (nothing is edited): its
    compiled templates and rendered faces are the session's seed builds'."""
    result = cli("build", "--version", "3.1", "--no-png", "--no-rulebook", "--paper", "letter", "--out",
                 str(tmp_path / "forgiving"), cwd=ROOT)
    assert result.code == 0, result.err
    assert "cards: 4 x 2 a sheet landscape" in result.out
    assert "smallest bleed at a cut: 1.0 mm, forgiving cuts" in result.out
    result = cli("build", "--version", "3.1", "--no-png", "--no-rulebook", "--paper", "letter", "--cuts", "dense",
                 "--out", str(tmp_path / "dense"), cwd=ROOT)
    assert result.code == 0, result.err
    assert "sheets-letter-duplex.pdf  print sheets, LETTER, duplex (flip on long edge), 20 pages = 10 sheets" \
        in result.out
    assert "cards: 3 x 3 a sheet, columns 3.0 mm apart (1.5 mm bleed each), rows butted (shared cuts), " \
           "outer bleed 1.5 / 0.2 mm" in result.out
    assert "smallest bleed at a cut: 0.0 mm (neighbours share a cut: cut exactly on the marks), dense cuts" \
        in result.out
    with pikepdf.open(tmp_path / "dense" / "sheets-letter-duplex.pdf") as pdf:
        _, pieces = read_page(pdf.pages[0])
    assert min(min(_kept(t, c)) for t, c, _ in pieces) == pytest.approx(0.0, abs=TOL)


def test_page_one_says_print_at_100_percent_and_carries_a_50_mm_bar(sheets):
    for (game, name), path in sheets.items():
        first, second_page = sheet_pages(path)[:2]
        text = "".join(ch for ch, _ in first.text_boxes)
        assert "Printat100%/actualsize" in text and "50mm" in text, (game, name)
        bars = [p for p in first.paths if len(p) == 2
                and abs(abs(p[1][0] - p[0][0]) + abs(p[1][1] - p[0][1]) - 50) < TOL]
        assert len(bars) >= 1, (game, name)
        second = "".join(ch for ch, _ in second_page.text_boxes)
        assert "Printat100%" not in second


def test_build_summary_counts_sheets_of_paper(cli, tmp_path):
    """The seed project built into folders of the test's, on the one paper read here."""
    result = cli("build", "--game", "knightfall", "--no-png", "--no-rulebook", "--paper", "a4",
                 "--out", str(tmp_path / "knightfall"), cwd=ROOT)
    assert result.code == 0, result.err
    # 52 jumbo cards fill 13 sheets exactly; the 4 coins (and one card from the 13th sheet, so
    # that no sheet is used less than a quarter) share the 14th: no 4 mm of free space anywhere
    # on a jumbo sheet holds a 40 mm coin, and the maps' tiles are printed one-sided
    assert "sheets-a4-duplex.pdf  print sheets, A4, duplex (flip on long edge), 28 pages = 14 sheets of paper" \
        in result.out
    assert "Decision coin: 4 in free space, each cut along its own line (1.0 mm bleed all round)" in result.out
    assert "sheets-a4-onesided.pdf  print sheets, A4, one-sided, 8 pages = 8 sheets of paper" in result.out
    result = cli("build", "--game", "kings-guild", "--no-png", "--no-rulebook", "--paper", "a4",
                 "--out", str(tmp_path / "kings-guild"), cwd=ROOT)
    assert result.code == 0, result.err
    # was 12 + 12: the 4 resource tokens that had a sheet of their own and the seals now fill
    # the strips beside the player boards and the main board's tiles
    assert "sheets-a4-duplex.pdf  print sheets, A4, duplex (flip on long edge), 24 pages = 12 sheets of paper" \
        in result.out
    assert "sheets-a4-onesided.pdf  print sheets, A4, one-sided, 10 pages = 10 sheets of paper" in result.out
    result = cli("build", "--version", "3.1", "--no-png", "--no-rulebook", "--paper", "a4",
                 "--out", str(tmp_path / "3.1"), cwd=ROOT)
    # the 4 forge tokens fill the last card sheet: 10 sheets, not 11
    assert "sheets-a4-duplex.pdf  print sheets, A4, duplex (flip on long edge), 20 pages = 10 sheets of paper" \
        in result.out
    assert "columns 2.0 mm apart (1.0 mm bleed each), rows 4.0 mm apart (2.0 mm bleed each)" in result.out
    assert "sheets used 50% to 80%" in result.out


def test_duplex_offset_shifts_every_back_exactly(mini_build, cli, mini, tmp_path):
    """--duplex-offset and printer.duplex_offset_mm move every back piece, and nothing else."""
    plain = mini_build[0] / "sheets-a4-duplex.pdf"  # mini version 2: 9 cards and 2 coins, 2 sheets
    result = cli("build", "--no-png", "--no-rulebook", "--paper", "a4",
                 "--duplex-offset", "0.7,-1.3", "--out", str(tmp_path / "cli"), cwd=mini)
    assert result.code == 0, result.err
    config = mini / "cardgen.yml"
    config.write_text(config.read_text() + "printer:\n  duplex_offset_mm: [0.7, -1.3]\n")
    result = cli("build", "--no-png", "--no-rulebook", "--paper", "a4", "--out", str(tmp_path / "yml"), cwd=mini)
    assert result.code == 0, result.err
    for shifted_path in (tmp_path / "cli" / plain.name, tmp_path / "yml" / plain.name):
        with pikepdf.open(plain) as a, pikepdf.open(shifted_path) as b:
            assert len(a.pages) == len(b.pages) == 4
            for index, (pa, pb) in enumerate(zip(a.pages, b.pages)):
                (paths_a, pieces_a), (paths_b, pieces_b) = read_page(pa), read_page(pb)
                assert len(pieces_a) == len(pieces_b) > 0
                dx, dy = (0.7, -1.3) if index % 2 else (0.0, 0.0)
                for (ta, ca, _), (tb, cb, _) in zip(pieces_a, pieces_b):
                    assert [v - u for u, v in zip(ta, tb)] == pytest.approx([dx, dy, dx, dy], abs=1e-3)
                    assert [v - u for u, v in zip(ca, cb)] == pytest.approx([dx, dy, dx, dy], abs=1e-3)
                assert paths_a == paths_b  # marks and bars stay put
    bad = cli("build", "--duplex-offset", "1;2", cwd=mini)
    assert bad.code == 2 and "X,Y" in bad.err and "Traceback" not in bad.err


def _segments(paths):
    return [p for p in paths if len(p) == 2]


ZERO_TICK_MM = 9.0  # the zeros' ticks are the scales' longest


def _zero_ticks(paths, horizontal: bool):
    """The 9 mm long ticks (the zeros) of the back's scales: x of horizontal scales, y of vertical."""
    ticks = []
    for (x0, y0), (x1, y1) in _segments(paths):
        if horizontal and abs(x0 - x1) < TOL and abs(abs(y1 - y0) - ZERO_TICK_MM) < TOL:
            ticks.append(x0)
        if not horizontal and abs(y0 - y1) < TOL and abs(abs(x1 - x0) - ZERO_TICK_MM) < TOL:
            ticks.append(y0)
    return ticks


def test_calibration_reading_brings_a_misprinted_back_home(cli, project_copy, tmp_path):
    """Simulate a printer whose backs land 1.3 mm right and 0.8 mm low (as seen on the back):
    read the front's lines on the back's scales, build with that offset, and every back lands
    exactly behind its front."""
    result = cli("calibrate", "--paper", "a4", "--out", str(tmp_path / "cal"), cwd=project_copy)
    assert result.code == 0, result.err
    sheet = tmp_path / "cal" / "calibration-a4.pdf"
    with pikepdf.open(sheet) as pdf:
        assert len(pdf.pages) == 2 and str(pdf.docinfo["/Title"]) == "cardgen duplex calibration - A4"
        w, h = _page_size(pdf.pages[0])
        front_paths, _ = read_page(pdf.pages[0])
        back_paths, _ = read_page(pdf.pages[1])
    long_lines = [s for s in _segments(front_paths) if abs(s[0][0] - s[1][0]) + abs(s[0][1] - s[1][1]) > 100]
    (vx,) = [s[0][0] for s in long_lines if abs(s[0][0] - s[1][0]) < TOL]
    (hy,) = [s[0][1] for s in long_lines if abs(s[0][1] - s[1][1]) < TOL]
    zero_x, zero_y = _zero_ticks(back_paths, True), _zero_ticks(back_paths, False)
    assert len(zero_x) == len(zero_y) == 2  # each axis measured twice
    # ticks every 0.5 mm from -5 to +5 on each scale
    ticks = sorted(round(s[0][0] - zero_x[0], 3) for s in _segments(back_paths)
                   if abs(s[0][0] - s[1][0]) < TOL and abs(s[0][1] - s[1][1]) < ZERO_TICK_MM + 1
                   and min(s[0][1], s[1][1]) > h / 2)
    assert ticks == [round(-5 + 0.5 * i, 3) for i in range(21)]
    text = "".join(ch for ch, _ in _text_boxes(sheet, 1))
    assert all(label in text for label in ("-4", "-2", "0", "+2", "+4"))

    printer = (1.3, -0.8)  # where this printer puts the backs, relative to where they should be
    # long-edge flip: a front point x lies behind the back point w - x
    reading_x = (w - vx) - (zero_x[0] + printer[0])
    reading_y = hy - (zero_y[0] + printer[1])
    assert (reading_x, reading_y) == pytest.approx((-1.3, 0.8), abs=1e-6)

    out = tmp_path / "kb"
    result = cli("build", "--version", "3.1", "--no-png", "--no-rulebook", "--paper", "a4", "--out", str(out),
                 "--duplex-offset", f"{reading_x:.1f},{reading_y:.1f}", cwd=project_copy)
    assert result.code == 0, result.err
    with pikepdf.open(out / "sheets-a4-duplex.pdf") as pdf:
        for index in range(0, len(pdf.pages), 2):
            _, fronts = read_page(pdf.pages[index])
            _, backs = read_page(pdf.pages[index + 1])
            landed = sorted((round(w - (t[2] + printer[0]), 3), round(t[1] + printer[1], 3)) for t, _, _ in backs)
            assert landed == sorted((round(t[0], 3), round(t[1], 3)) for t, _, _ in fronts), index


def test_calibration_with_offset_prints_the_check_sheet(cli, project_copy, tmp_path):
    config = project_copy / "cardgen.yml"
    config.write_text(config.read_text() + "printer:\n  duplex_offset_mm: [0.5, -1]\n")
    for args, shift in ((["--with-offset"], (0.5, -1.0)), (["--with-offset", "--duplex-offset", "-2,0.5"], (-2.0, 0.5)),
                        ([], (0.0, 0.0))):
        result = cli("calibrate", "--paper", "letter", "--out", str(tmp_path), *args, cwd=project_copy)
        assert result.code == 0, result.err
        with pikepdf.open(tmp_path / "calibration-letter.pdf") as pdf:
            w, h = _page_size(pdf.pages[1])
            paths, _ = read_page(pdf.pages[1])
        assert (w, h) == pytest.approx((215.9, 279.4), abs=0.01)
        assert sorted(_zero_ticks(paths, True)) == pytest.approx([w / 2 + shift[0]] * 2, abs=1e-3)
        assert sorted(_zero_ticks(paths, False)) == pytest.approx([h / 2 + shift[1]] * 2, abs=1e-3)
    bad = cli("calibrate", "--paper", "letter", "--duplex-offset", "1,1", cwd=project_copy)
    assert bad.code == 2 and "--with-offset" in bad.err



@pytest.mark.parametrize("lang, title, back", [
    ("nl", "Duplexkalibratie", "Achterkant"),
    ("it", "Calibrazione fronte-retro", "Retro"),
    ("en", "Duplex calibration", "Back"),
])
def test_calibration_sheet_speaks_the_language_and_stays_inside_the_printable_area(cli, project_copy, tmp_path,
                                                                                    lang, title, back):
    """`calibrate --lang` prints its instructions from cardgen's own catalogs; every glyph on both
    papers, in every language, lies inside the area a home printer prints (5 mm in)."""
    for paper in ("a4", "letter"):
        result = cli("calibrate", "--paper", paper, "--lang", lang, "--out", str(tmp_path), cwd=project_copy)
        assert result.code == 0, result.err
        sheet = tmp_path / f"calibration-{paper}.pdf"
        with pikepdf.open(sheet) as pdf:
            w, h = _page_size(pdf.pages[0])
        for index, expected in ((0, title), (1, back)):
            boxes = _text_boxes(sheet, index)
            text = "".join(ch for ch, _ in boxes)
            assert expected.replace(" ", "") + "\u00b7" in text, text[:80]
            assert all(5.0 <= left and right <= w - 5.0 and 5.0 <= bottom and top <= h - 5.0
                       for _, (left, bottom, right, top) in boxes), (lang, paper, index)
        if lang != "en":  # no English sentence left on the sheet
            assert "Hold the sheet" not in text and "printer scaled" not in "".join(ch for ch, _ in _text_boxes(sheet, 0))
    unknown = cli("calibrate", "--paper", "a4", "--lang", "de", "--out", str(tmp_path), cwd=project_copy)
    assert unknown.code == 2 and "no calibration text in 'de'" in unknown.err

@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_calibration_lines_keep_clear_of_the_words_which_match_the_layout(cli, project_copy, tmp_path, paper):
    """Issue 23: on Letter the vertical line ran through the instructions, and both papers said
    "the bar below" with the bar above them; the scales were tiny. Read back: no glyph within
    2 mm of a line; the 50 mm bar above the step that names it, which says "above"; ticks of 3 mm
    and more, numbers 1.4 mm tall or more; Dutch and Italian say "above" too."""
    result = cli("calibrate", "--paper", paper, "--out", str(tmp_path), cwd=project_copy)
    assert result.code == 0, result.err
    sheet = tmp_path / f"calibration-{paper}.pdf"
    with pikepdf.open(sheet) as pdf:
        front_paths, _ = read_page(pdf.pages[0])
        back_paths, _ = read_page(pdf.pages[1])
    lines = [s for s in _segments(front_paths) if abs(s[0][0] - s[1][0]) + abs(s[0][1] - s[1][1]) > 100]
    assert len(lines) == 2
    boxes = _text_boxes(sheet, 0)
    for (x0, y0), (x1, y1) in lines:
        for ch, (left, bottom, right, top) in boxes:
            assert right < min(x0, x1) - 2 or left > max(x0, x1) + 2 or top < min(y0, y1) - 2 \
                or bottom > max(y0, y1) + 2, (paper, ch, (left, bottom, right, top))
    text = "".join(ch for ch, _ in boxes)
    step = text.index("1.Checkthebarabove")
    (bar,) = [s for s in _segments(front_paths) if abs(abs(s[1][0] - s[0][0]) - 50) < TOL and abs(s[0][1] - s[1][1]) < TOL]
    assert bar[0][1] > boxes[step][1][3]  # the bar is above the step
    assert "below" not in text
    ticks = [abs(s[1][1] - s[0][1]) + abs(s[1][0] - s[0][0]) for s in _segments(back_paths)]
    assert min(t for t in ticks if t > 0.1) >= 3.0 - TOL  # the shortest, every 0.5 mm, is 3 mm long
    numbers = [b for ch, b in _text_boxes(sheet, 1) if ch in "0248"]
    assert numbers and min(top - bottom for _, bottom, _, top in numbers) >= 1.4  # 8 pt (was 4 pt: 0.7 mm)
    for lang, above in (("nl", "balkhierboven"), ("it", "barraquisopra")):
        result = cli("calibrate", "--paper", paper, "--lang", lang, "--out", str(tmp_path), cwd=project_copy)
        assert result.code == 0, result.err
        assert above in "".join(ch for ch, _ in _text_boxes(sheet, 0)), lang


# --- cutting machines ----------------------------------------------------------------------------

def _filled_rects(page: pikepdf.Page) -> list[tuple[float, float, float, float]]:
    """(x0, y0, x1, y1) in mm of every rectangle the page fills itself (`re` then `f`)."""
    rects, pending = [], []
    for operands, op in pikepdf.parse_content_stream(page):
        op = str(op)
        if op == "re":
            x, y, w, h = (pt_to_mm(float(v)) for v in operands)
            pending.append((min(x, x + w), min(y, y + h), max(x, x + w), max(y, y + h)))
        elif op in ("f", "F", "f*"):
            rects += pending
            pending = []
        elif op in ("S", "s", "n", "B", "b"):
            pending = []
    return rects


@pytest.fixture(scope="module")
def cutter_builds(mini_shared, tmp_path_factory):
    """tests/projects/mini version 2 (9 poker cards, 2 round coins) for each cutting machine, both papers."""
    project = load_project(mini_shared)
    snapshot = resolve(project, load_game(project, "mini"), "2")
    outs = {}
    for cutter in ("silhouette", "cricut"):
        out = tmp_path_factory.mktemp(cutter)
        build(project, snapshot, BuildOptions(out_dir=out, png=False, rulebook=False, cutter=cutter))
        outs[cutter] = out
    return outs


@pytest.mark.parametrize("cutter", ["silhouette", "cricut"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_cut_file_lies_on_every_card_of_every_cutter_sheet(cutter_builds, cutter, paper):
    """The cut file's outlines (SVG path data, mm) coincide with the cards' trim on every front of
    the cutter sheets (PDF content stream) within 0.1 mm: one cut file cuts every page."""
    from test_imposition import _svg_outlines

    out = cutter_builds[cutter]
    outlines = _svg_outlines((out / f"cutlines-{paper}-{cutter}.svg").read_text())
    assert {round(o[2] - o[0], 3) for o in outlines} == {63.0} and {o[4] for o in outlines} == {3.0}
    sheet = out / f"sheets-{paper}-duplex-{cutter}.pdf"
    with pikepdf.open(sheet) as pdf:
        assert len({_page_size(p) for p in pdf.pages}) == 1
        svg_w, svg_h = (float(v) for v in re.findall(r'width="([\d.]+)mm" height="([\d.]+)mm"',
                                                     (out / f"cutlines-{paper}-{cutter}.svg").read_text())[0])
        assert _page_size(pdf.pages[0]) == pytest.approx((svg_w, svg_h), abs=0.01)  # the same page
        cards = 0
        for index in range(0, len(pdf.pages), 2):
            _, pieces = read_page(pdf.pages[index])
            for trim, clip, _ in pieces:
                if round(trim[2] - trim[0]) != 63:
                    assert any(o[0] <= trim[0] and trim[2] <= o[2] and o[1] <= trim[1] and trim[3] <= o[3]
                               for o in outlines)  # a coin, in a cell the machine cuts out
                    continue
                cards += 1
                assert any(all(abs(a - b) < 0.1 for a, b in zip(trim, o[:4])) for o in outlines), (index, trim)
    assert cards == 9


@pytest.mark.parametrize("cutter", ["silhouette", "cricut"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_registration_marks_lie_where_the_machine_looks_and_five_mm_in(cutter_builds, cutter, paper):
    """Read back from the PDF: Silhouette's square at the top-left, L marks at the top-right and
    bottom-left, 10 mm in; Cricut's frame around a print area within 6.75 x 9.25 in. Every mark
    at least 5 mm inside the paper, on fronts only, and 2 mm or more from every card's bleed."""
    sheet = cutter_builds[cutter] / f"sheets-{paper}-duplex-{cutter}.pdf"
    with pikepdf.open(sheet) as pdf:
        for index, page in enumerate(pdf.pages):
            w, h = _page_size(page)
            marks = _filled_rects(page)
            if index % 2:
                assert marks == []  # backs: the machine reads the front
                continue
            _, pieces = read_page(page)
            for x0, y0, x1, y1 in marks:
                assert x0 >= 5 - TOL and y0 >= 5 - TOL and x1 <= w - 5 + TOL and y1 <= h - 5 + TOL
                for _, clip, _ in pieces:
                    assert clip[2] < x0 - 2 + TOL or clip[0] > x1 + 2 - TOL or clip[3] < y0 - 2 + TOL \
                        or clip[1] > y1 + 2 - TOL, (index, (x0, y0, x1, y1), clip)
            if cutter == "silhouette":
                squares = [m for m in marks if abs(m[2] - m[0] - 5) < TOL and abs(m[3] - m[1] - 5) < TOL]
                assert [((m[0] + m[2]) / 2, (m[1] + m[3]) / 2) for m in squares] == [pytest.approx((10, h - 10))]
                arms = [m for m in marks if m not in squares]
                top_right = [m for m in arms if m[0] > w / 2 and m[1] > h / 2]
                bottom_left = [m for m in arms if m[2] < w / 2 and m[3] < h / 2]
                assert len(top_right) == len(bottom_left) == 2 and len(arms) == 4
                assert (max(m[2] for m in top_right), max(m[3] for m in top_right)) == pytest.approx((w - 9.5, h - 9.5))
                assert (min(m[0] for m in bottom_left), min(m[1] for m in bottom_left)) == pytest.approx((9.5, 9.5))
            else:
                x0, y0 = min(m[0] for m in marks), min(m[1] for m in marks)
                x1, y1 = max(m[2] for m in marks), max(m[3] for m in marks)
                inner = sorted((x1 - x0 - 2, y1 - y0 - 2))  # inside the 1 mm frame
                assert len(marks) == 4 and inner[0] <= 6.75 * 25.4 + 8 and inner[1] <= 9.25 * 25.4 + 8
                for trim, clip, _ in pieces:  # the cards inside the print area, itself inside the frame
                    assert x0 + 1 + 3 - TOL <= clip[0] and clip[2] <= x1 - 4 + TOL
                    assert y0 + 1 + 3 - TOL <= clip[1] and clip[3] <= y1 - 4 + TOL


def test_a_build_without_cutter_removes_the_cutter_files_it_wrote(cli, mini):
    out = mini / "build/mini/2"
    assert cli("build", "--no-png", "--no-rulebook", "--paper", "a4", "--cutter", "cricut", cwd=mini).code == 0
    assert sorted(p.name for p in out.glob("*-cricut.*")) == ["cutlines-a4-cricut.svg", "sheets-a4-duplex-cricut.pdf"]
    mine = out / "cutlines-a4-silhouette.svg"
    mine.write_text("<svg/>")  # the user's own file with a cardgen name
    assert cli("build", "--no-png", "--no-rulebook", "--paper", "a4", cwd=mini).code == 0
    assert list(out.glob("*-cricut.*")) == [] and mine.read_text() == "<svg/>"


# --- print shops ---------------------------------------------------------------------------------

def _boxes_mm(page: pikepdf.Page) -> dict[str, list[float]]:
    return {name: [pt_to_mm(float(v)) for v in page.obj[name]] for name in ("/MediaBox", "/TrimBox", "/BleedBox")}


def _drawn_forms(page: pikepdf.Page) -> list[tuple[str, list[float]]]:
    """(form name, cm matrix) of every piece the page draws, in order."""
    drawn, matrix = [], None
    for operands, op in pikepdf.parse_content_stream(page):
        if str(op) == "cm":
            matrix = [float(v) for v in operands]
        elif str(op) == "Do":
            form = page.obj.Resources.XObject[operands[0]]
            drawn.append((str(form.objgen), matrix))
    return drawn


@pytest.mark.parametrize("service, bleed, backs", [("generic", 3.0, "front-back"), ("printninja", 3.175, "front-back"),
                                                   ("drivethrucards", 3.175, "back-front"),
                                                   ("mpc", 3.048, "fronts-then-back")])
def test_print_shop_pdf_has_trim_and_bleed_boxes_on_every_page(cli, mini_shared, service, bleed, backs, tmp_path):
    result = cli("export", "print", "--version", "2", "--service", service, "--out", str(tmp_path), cwd=mini_shared)
    assert result.code == 0, result.err
    # one PDF per deck, and cardgen's bookkeeping: the one manifest of what it wrote (no lock left)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".cardgen-outputs", "coins.pdf", "main.pdf"]
    counts = {"main": 9, "coins": 2}
    for deck, cards in counts.items():
        with pikepdf.open(tmp_path / f"{deck}.pdf") as pdf:
            trim = (30.0, 30.0) if deck == "coins" else (63.0, 88.0)
            assert str(pdf.docinfo["/Title"]).startswith("Mini 2 - ")
            assert len(pdf.pages) == (cards + 1 if backs == "fronts-then-back" else 2 * cards)
            firsts = []
            for page in pdf.pages:
                boxes = _boxes_mm(page)
                assert boxes["/TrimBox"] == pytest.approx([bleed, bleed, bleed + trim[0], bleed + trim[1]], abs=0.01)
                assert boxes["/BleedBox"] == pytest.approx([0, 0, trim[0] + 2 * bleed, trim[1] + 2 * bleed], abs=0.01)
                assert boxes["/MediaBox"] == pytest.approx(boxes["/BleedBox"], abs=0.01)
                drawn = _drawn_forms(page)
                # the face at true size, its trim exactly on the TrimBox (sources carry 3 mm bleed)
                top = drawn[-1][1]
                assert top[:4] == [1, 0, 0, 1]
                assert pt_to_mm(top[4]) + 3.0 == pytest.approx(bleed, abs=0.005)
                if bleed > 3.0:  # a stretched copy underneath fills the service's extra bleed
                    assert len(drawn) == 2 and drawn[0][0] == drawn[1][0]
                    assert pt_to_mm(drawn[0][1][0] * mm_to_pt(trim[0] + 6)) == pytest.approx(trim[0] + 2 * bleed, abs=0.01)
                firsts.append(drawn[-1][0])
            backs_at = {"front-back": range(1, len(firsts), 2), "back-front": range(0, len(firsts), 2),
                        "fronts-then-back": [len(firsts) - 1]}[backs]
            assert len({firsts[i] for i in backs_at}) == 1  # the deck's one back
            assert firsts[backs_at[0]] not in {f for i, f in enumerate(firsts) if i not in backs_at}


# The CMYK files (PDF/X, ink limit, black text) are read back in tests/test_print_services.py.


def test_a_build_removes_only_the_sheet_files_it_wrote_before(cli, project_copy):
    out = project_copy / "build/knightfall/1"
    assert cli("build", "--game", "knightfall", "--no-png", "--no-rulebook", "--paper", "a4", "--fronts-only",
               cwd=project_copy).code == 0
    assert sorted(p.name for p in out.glob("*.pdf")) == ["sheets-a4-onesided.pdf"]
    mine = out / "sheets-a4.pdf"
    mine.write_bytes(b"the user's own file")  # same name as old cardgen output, not in the manifest
    assert cli("build", "--game", "knightfall", "--no-png", "--no-rulebook", "--paper", "a4",
               cwd=project_copy).code == 0
    assert sorted(p.name for p in out.glob("*.pdf")) == ["sheets-a4-duplex.pdf", "sheets-a4-onesided.pdf",
                                                         "sheets-a4.pdf"]
    assert mine.read_bytes() == b"the user's own file"
    with pikepdf.open(out / "sheets-a4-onesided.pdf") as pdf:
        assert len(pdf.pages) == 8  # now only the camp maps: the cards and coins went duplex
    assert cli("build", "--game", "knightfall", "--no-png", "--no-rulebook", "--paper", "a4", "--fronts-only",
               cwd=project_copy).code == 0
    # the duplex file cardgen wrote would now be out of date: it is gone; the user's file stays
    assert sorted(p.name for p in out.glob("*.pdf")) == ["sheets-a4-onesided.pdf", "sheets-a4.pdf"]
