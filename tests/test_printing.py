"""Issue 9: print sheets that a home printer prints whole and a trimmer can cut.

Everything here is read back from the PDFs: a small content-stream interpreter follows q/Q/cm
to find every path the sheet itself draws (marks, bars) and where each piece is drawn and
clipped; pdfium gives every text glyph's box.
"""

from __future__ import annotations

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

GAMES = {"kings-blade": "3.1", "way-of-the-blade": None, "one-true-king": None, "knightfall": None}
MARGIN = 5.0   # what a home printer leaves blank
BLEED = 3.0    # every seed game's bleed
TOL = 0.01


@pytest.fixture(scope="module")
def sheets(tmp_path_factory):
    """Every seed game's sheet files, A4 and Letter: {(game, file name): path}."""
    project = load_project(ROOT)
    files = {}
    for game, version in GAMES.items():
        snapshot = resolve(project, load_game(project, game), version)
        out = tmp_path_factory.mktemp(game)
        result = build(project, snapshot, BuildOptions(out_dir=out, png=False, rulebook=False))
        for output in result.outputs:
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
        text = pdf[index].get_textpage()
        boxes = []
        for i in range(text.count_chars()):
            ch = text.get_text_range(i, 1)
            if ch.strip():
                left, bottom, right, top = text.get_charbox(i)
                boxes.append((ch, tuple(pt_to_mm(v) for v in (left, bottom, right, top))))
        return boxes
    finally:
        pdf.close()


def _page_size(page: pikepdf.Page) -> tuple[float, float]:
    box = [float(v) for v in page.mediabox]
    return pt_to_mm(box[2] - box[0]), pt_to_mm(box[3] - box[1])


def test_every_game_on_both_papers_has_one_print_mode_per_file(sheets):
    names = {game: sorted(name for g, name in sheets if g == game) for game in GAMES}
    for game in ("kings-blade", "way-of-the-blade", "one-true-king"):
        assert names[game] == ["sheets-a4-duplex.pdf", "sheets-letter-duplex.pdf"]
    assert names["knightfall"] == ["sheets-a4-duplex.pdf", "sheets-a4-onesided.pdf",
                                   "sheets-letter-duplex.pdf", "sheets-letter-onesided.pdf"]
    for (game, name), path in sheets.items():
        with pikepdf.open(path) as pdf:
            assert str(pdf.docinfo["/Title"]).startswith(("The King", "Way of", "One True", "Knightfall"))
            mode = "print duplex, flip on long edge" if "duplex" in name else "print one-sided"
            for index in range(len(pdf.pages)):
                assert mode.replace(" ", "") in "".join(ch for ch, _ in _text_boxes(path, index)), \
                    (game, name, index)


def test_nothing_is_printed_within_5_mm_of_a_paper_edge(sheets):
    """Every mark, bar and glyph on every page of every file, and every piece's clip."""
    for (game, name), path in sheets.items():
        with pikepdf.open(path) as pdf:
            for index, page in enumerate(pdf.pages):
                w, h = _page_size(page)
                paths, pieces = read_page(page)
                points = [pt for p in paths for pt in p]
                points += [(c[0], c[1]) for _, c, _ in pieces] + [(c[2], c[3]) for _, c, _ in pieces]
                for x, y in points:
                    assert MARGIN - TOL <= x <= w - MARGIN + TOL and MARGIN - TOL <= y <= h - MARGIN + TOL, \
                        (game, name, index, x, y)
                for ch, (left, bottom, right, top) in _text_boxes(path, index):
                    cx, cy = (left + right) / 2, (bottom + top) / 2
                    if any(d[0] <= cx <= d[2] and d[1] <= cy <= d[3] for _, _, d in pieces):
                        continue  # a piece's own text: shown only inside its clip, checked above
                    assert min(left, bottom) >= MARGIN - TOL and right <= w - MARGIN + TOL \
                        and top <= h - MARGIN + TOL, (game, name, index, ch)


def _is_outline(path, trim) -> bool:
    xs, ys = [p[0] for p in path], [p[1] for p in path]
    return all(abs(a - b) < 0.02 for a, b in zip((min(xs), min(ys), max(xs), max(ys)), trim))


def test_every_cut_line_has_a_mark_a_home_printer_prints(sheets):
    """Each trim edge of each rectangular piece on a front has a mark on its line beyond the
    pieces, at both ends; a piece sitting in another grid's cell has its cut line drawn on it."""
    checked = 0
    for (game, name), path in sheets.items():
        with pikepdf.open(path) as pdf:
            for index, page in enumerate(pdf.pages):
                paths, pieces = read_page(page)
                if index % 2 and "duplex" in name:
                    assert [p for p in paths if len(p) > 1] == []  # backs: no marks, you cut from the front
                    continue
                if "onesided" in name:
                    continue  # tiles: their marks are checked in test_imposition
                trims = [t for t, _, _ in pieces]
                segments = [p for p in paths if len(p) == 2]
                for trim in trims:
                    if any(_is_outline(p, trim) for p in paths if len(p) > 2):
                        continue  # a drawn cut line (a circle, or a piece in another grid's cell)
                    for x in (trim[0], trim[2]):
                        on_line = [s for s in segments if abs(s[0][0] - x) < TOL and abs(s[1][0] - x) < TOL]
                        assert any(min(s[0][1], s[1][1]) > max(t[3] for t in trims) for s in on_line), \
                            (game, name, index, "no mark above", x)
                        assert any(max(s[0][1], s[1][1]) < min(t[1] for t in trims) for s in on_line), \
                            (game, name, index, "no mark below", x)
                    for y in (trim[1], trim[3]):
                        on_line = [s for s in segments if abs(s[0][1] - y) < TOL and abs(s[1][1] - y) < TOL]
                        assert any(min(s[0][0], s[1][0]) > max(t[2] for t in trims) for s in on_line), \
                            (game, name, index, "no mark right", y)
                        assert any(max(s[0][0], s[1][0]) < min(t[0] for t in trims) for s in on_line), \
                            (game, name, index, "no mark left", y)
                    checked += 1
    assert checked > 400  # all card fronts of all games on both papers


def test_bleed_between_cards_is_at_least_1_5_mm_unless_they_share_a_cut(sheets, capsys):
    report = {}
    for (game, name), path in sheets.items():
        if "onesided" in name:
            continue
        with pikepdf.open(path) as pdf:
            for index, page in enumerate(pdf.pages):
                paths, pieces = read_page(page)
                for trim, clip, _ in pieces:
                    kept = (trim[0] - clip[0], trim[1] - clip[1], clip[2] - trim[2], clip[3] - trim[3])
                    assert min(kept) >= -TOL, (game, name, index, kept)  # never clipped into the trim
                    for other, _, _ in pieces:
                        if other is trim:
                            continue
                        overlap_y = min(trim[3], other[3]) - max(trim[1], other[1]) > 1
                        overlap_x = min(trim[2], other[2]) - max(trim[0], other[0]) > 1
                        gaps = []  # (gap, bleed kept towards it, position of the edge, axis)
                        if overlap_y and 0 <= other[0] - trim[2] < 10:
                            gaps.append((other[0] - trim[2], kept[2], trim[2], 0))   # neighbour to the right
                        if overlap_y and 0 <= trim[0] - other[2] < 10:
                            gaps.append((trim[0] - other[2], kept[0], trim[0], 0))
                        if overlap_x and 0 <= trim[1] - other[3] < 10:
                            gaps.append((trim[1] - other[3], kept[1], trim[1], 1))   # neighbour below
                        if overlap_x and 0 <= other[1] - trim[3] < 10:
                            gaps.append((other[1] - trim[3], kept[3], trim[3], 1))
                        for gap, bleed, edge, axis in gaps:
                            assert bleed <= gap / 2 + TOL or bleed < TOL, (game, name, index, trim, other)
                            if bleed >= 1.5 - TOL or index % 2:
                                continue
                            # less than 1.5 mm only on a cut line shared with a neighbour cell:
                            # no bleed over it, and the line is marked
                            assert bleed < TOL, (game, name, index, trim, other, bleed)
                            assert any(len(p) == 2 and abs(p[0][axis] - edge) < TOL and abs(p[1][axis] - edge) < TOL
                                       for p in paths), (game, name, index, edge)
                    key = (game, name)
                    report[key] = min(report.get(key, 99.0), *[k for k in kept if k > TOL] or [99.0])
    with capsys.disabled():
        print("\nsmallest bleed kept (mm), where it is kept:",
              ", ".join(f"{g}/{n}: {v:.1f}" for (g, n), v in sorted(report.items())))
    assert report[("kings-blade", "sheets-letter-duplex.pdf")] == pytest.approx(0.2, abs=0.01)  # outer rows


def test_page_one_says_print_at_100_percent_and_carries_a_50_mm_bar(sheets):
    for (game, name), path in sheets.items():
        text = "".join(ch for ch, _ in _text_boxes(path, 0))
        assert "Printat100%/actualsize" in text and "50mm" in text, (game, name)
        with pikepdf.open(path) as pdf:
            paths, _ = read_page(pdf.pages[0])
        bars = [p for p in paths if len(p) == 2 and abs(abs(p[1][0] - p[0][0]) + abs(p[1][1] - p[0][1]) - 50) < TOL]
        assert len(bars) >= 1, (game, name)
        second = "".join(ch for ch, _ in _text_boxes(path, 1))
        assert "Printat100%" not in second


def test_build_summary_counts_sheets_of_paper(cli, project_copy):
    result = cli("build", "--game", "knightfall", "--no-png", "--no-rulebook", cwd=project_copy)
    assert result.code == 0, result.err
    assert "sheets-a4-duplex.pdf  print sheets, A4, duplex (flip on long edge), 28 pages = 14 sheets of paper" \
        in result.out
    assert "sheets-a4-onesided.pdf  print sheets, A4, one-sided, 8 pages = 8 sheets of paper" in result.out
    result = cli("build", "--version", "3.1", "--no-png", "--no-rulebook", "--paper", "a4", cwd=project_copy)
    # the 4 forge tokens fill the last card sheet: 10 sheets, not 11
    assert "sheets-a4-duplex.pdf  print sheets, A4, duplex (flip on long edge), 20 pages = 10 sheets of paper" \
        in result.out
    assert "columns butted (shared cuts), rows 4.0 mm apart (2.0 mm bleed each)" in result.out


def test_duplex_offset_shifts_every_back_exactly(sheets, cli, project_copy, tmp_path):
    """--duplex-offset and printer.duplex_offset_mm move every back piece, and nothing else."""
    plain = sheets[("kings-blade", "sheets-a4-duplex.pdf")]
    result = cli("build", "--version", "3.1", "--no-png", "--no-rulebook", "--paper", "a4",
                 "--duplex-offset", "0.7,-1.3", "--out", str(tmp_path / "cli"), cwd=project_copy)
    assert result.code == 0, result.err
    config = project_copy / "cardgen.yml"
    config.write_text(config.read_text() + "printer:\n  duplex_offset_mm: [0.7, -1.3]\n")
    result = cli("build", "--version", "3.1", "--no-png", "--no-rulebook", "--paper", "a4",
                 "--out", str(tmp_path / "yml"), cwd=project_copy)
    assert result.code == 0, result.err
    for shifted_path in (tmp_path / "cli" / plain.name, tmp_path / "yml" / plain.name):
        with pikepdf.open(plain) as a, pikepdf.open(shifted_path) as b:
            assert len(a.pages) == len(b.pages) == 20
            for index, (pa, pb) in enumerate(zip(a.pages, b.pages)):
                (paths_a, pieces_a), (paths_b, pieces_b) = read_page(pa), read_page(pb)
                assert len(pieces_a) == len(pieces_b) > 0
                dx, dy = (0.7, -1.3) if index % 2 else (0.0, 0.0)
                for (ta, ca, _), (tb, cb, _) in zip(pieces_a, pieces_b):
                    assert [v - u for u, v in zip(ta, tb)] == pytest.approx([dx, dy, dx, dy], abs=1e-3)
                    assert [v - u for u, v in zip(ca, cb)] == pytest.approx([dx, dy, dx, dy], abs=1e-3)
                assert paths_a == paths_b  # marks and bars stay put
    bad = cli("build", "--version", "3.1", "--duplex-offset", "1;2", cwd=project_copy)
    assert bad.code == 2 and "X,Y" in bad.err and "Traceback" not in bad.err


def _segments(paths):
    return [p for p in paths if len(p) == 2]


def _zero_ticks(paths, horizontal: bool):
    """The 4 mm long ticks (the zeros) of the back's scales: x of horizontal scales, y of vertical."""
    ticks = []
    for (x0, y0), (x1, y1) in _segments(paths):
        if horizontal and abs(x0 - x1) < TOL and abs(abs(y1 - y0) - 4.0) < TOL:
            ticks.append(x0)
        if not horizontal and abs(y0 - y1) < TOL and abs(abs(x1 - x0) - 4.0) < TOL:
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
                   if abs(s[0][0] - s[1][0]) < TOL and abs(s[0][1] - s[1][1]) < 5
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
def test_print_shop_pdf_has_trim_and_bleed_boxes_on_every_page(cli, service, bleed, backs, tmp_path):
    result = cli("export", "print", "--version", "3.1", "--service", service, "--out", str(tmp_path))
    assert result.code == 0, result.err
    # one PDF per deck, and cardgen's bookkeeping (its lock, the manifest of what it wrote)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".cardgen-lock", ".cardgen-outputs", "blades.pdf",
                                                         "market.pdf", "mine.pdf", "tokens.pdf"]
    counts = {"blades": 6, "market": 20, "mine": 60, "tokens": 4}
    for deck, cards in counts.items():
        with pikepdf.open(tmp_path / f"{deck}.pdf") as pdf:
            trim = (30.0, 30.0) if deck == "tokens" else (63.0, 88.0)
            assert str(pdf.docinfo["/Title"]).startswith("The King's Blade 3.1 - ")
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
