"""Issue 26, item 3: one per-paper document stage (`rulebook.papers.start_papers`) for the
rulebook, its booklet and the designer's notes, and one hash of their templates
(`rulebook.papers.templates_digest`)."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pikepdf
import pytest

from cardgen import pipeline
from cardgen.buildtypes import PAPER_SIZES, BuildOptions, Timing
from cardgen.cache import Manifest
from cardgen.cardstage import draw_cards
from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve
from cardgen.rulebook import booklet, notes, papers, stage
from cardgen.rulebook.document import Pdf
from cardgen.rulebook.papers import PaperDocument, PendingPdfs, start_papers, templates_digest

RULEBOOK = Path(stage.__file__).parent
# what filling, hashing and checking a paper's document takes: only papers.py may do it
PER_PAPER = {"rulebook_html", "fresh", "digest_of", "tree_digest", "files_digest", "fonts_digest",
             "toolchain_version", "write_rulebook_pdf", "up_to_date", "lay_out"}


def _calls(path: Path) -> set[str]:
    """The names of the functions and methods a module calls."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


@pytest.mark.parametrize("module", [stage, booklet, notes])
def test_the_rulebook_booklet_and_notes_go_through_the_one_paper_stage(module):
    path = Path(module.__file__)
    calls = _calls(path)
    assert calls & PER_PAPER == set(), f"{path.name} does per-paper work of its own"
    assert {"start_papers", "build_papers", "PaperDocument"} <= calls
    tree = ast.parse(path.read_text())
    loops = [ast.unparse(n.target) for n in ast.walk(tree) if isinstance(n, ast.For)]
    assert "paper" not in loops  # no loop over the papers of its own
    assert "import hashlib" not in path.read_text()


def test_templates_are_hashed_one_way():
    """The notes' own hash of the stylesheets (a copy of cache.files_digest) is gone: every
    template and stylesheet hash in the rulebook package is `templates_digest`'s."""
    for path in sorted(RULEBOOK.glob("*.py")):
        calls, text = _calls(path), path.read_text()
        if path.name != "papers.py":
            assert not calls & {"tree_digest", "files_digest", "templates_digest"}, path.name
        assert "hashlib" not in text and ".glob(" not in text, path.name
    assert [name for name, _ in inspect.getmembers(papers, inspect.isfunction) if name.endswith("digest")
            and inspect.getmodule(getattr(papers, name)) is papers] == ["templates_digest"]
    assert not hasattr(stage, "templates_digest") and not hasattr(notes, "_stylesheets_digest")


class _Recorded:
    """The build's workers, recording what they are given to lay out instead of laying it out."""

    def __init__(self):
        self.jobs = []

    def submit(self, fn, *args):
        self.jobs.append(args[1])  # the RulebookDocument
        return None


def _start_all(project, snapshot, rendered, out: Path, manifest: Manifest) -> dict[str, PendingPdfs]:
    options = BuildOptions(papers=("a4", "letter"))
    workers = _Recorded()
    return {"rulebook": stage.start_rulebooks(project, snapshot, rendered, options, out, manifest, workers),
            "booklet": booklet.start_booklets(project, snapshot, rendered, options, out, manifest, workers),
            "notes": notes.start_notes(project, snapshot, rendered, [], options, out, manifest, workers)}


def _written(pending: dict[str, PendingPdfs], manifest: Manifest) -> None:
    """As if every queued layout had been written: a file, and its inputs in the manifest."""
    for kind in pending.values():
        for layout in kind.layouts.values():
            with pikepdf.new() as pdf:
                pdf.add_blank_page()
                pdf.save(layout.out)
            manifest.record(layout.out, layout.inputs)


def test_each_document_is_stale_until_written_then_again_when_a_stylesheet_changes(project_copy, tmp_path):
    project = load_project(project_copy)
    snapshot = resolve(project, load_game(project, "kings-blade"), "3.1")
    rendered = draw_cards(project, snapshot, checks=False).faces()
    out, manifest = tmp_path / "out", Manifest(tmp_path / "out")
    out.mkdir()
    pending = _start_all(project, snapshot, rendered, out, manifest)
    names = {kind: sorted(layout.out.name for layout in p.layouts.values()) for kind, p in pending.items()}
    assert names == {"rulebook": ["rulebook-a4.pdf", "rulebook-letter.pdf"],
                     "booklet": ["rulebook-booklet-a4.pdf", "rulebook-booklet-letter.pdf"],
                     "notes": ["notes-a4.pdf", "notes-letter.pdf"]}
    assert all(isinstance(p.document, PaperDocument) for p in pending.values())
    assert pending["booklet"].html["a4"] != pending["rulebook"].html["a4"]  # the booklet's own pages
    direct = start_papers(project, snapshot, rendered, stage.rulebook_document(snapshot), ("a4",), out, manifest,
                          _Recorded())
    assert direct.html == {"a4": pending["rulebook"].html["a4"]}
    _written(pending, manifest)

    again = _start_all(project, snapshot, rendered, out, manifest)
    assert {kind: (sorted(p.fresh), p.layouts) for kind, p in again.items()} == {
        kind: (["a4", "letter"], {}) for kind in again}
    assert all(t.detail == "HTML only: the PDF is up to date" for p in again.values() for t in p.timings)
    assert [o.pages for p in again.values() for o in p.finish({})] == [1] * 6

    before = templates_digest(project, snapshot)
    sheet = project.templates_dir / "common" / "rulebook.css"
    sheet.write_text(sheet.read_text() + "\n/* edited */\n")
    assert templates_digest(project, snapshot) != before
    # the notes too: their old hash read only the stylesheets, and not cardgen's built-in ones
    edited = _start_all(project, snapshot, rendered, out, manifest)
    assert {kind: (p.fresh, sorted(p.layouts)) for kind, p in edited.items()} == {
        kind: ({}, ["a4", "letter"]) for kind in edited}


def test_a_game_without_a_rulebook_has_no_documents(project_copy, tmp_path):
    project = load_project(project_copy)
    snapshot = resolve(project, load_game(project, "kings-blade"), "3.1")
    snapshot.game.file.rulebook = None
    pending = _start_all(project, snapshot, draw_cards(project, snapshot, checks=False).faces(), tmp_path, Manifest(tmp_path))
    assert {kind: (p.layouts, p.fresh, p.finish({})) for kind, p in pending.items()} == {
        kind: ({}, {}, []) for kind in pending}


class _Done:
    def __init__(self, pdf: Pdf):
        self.pdf = pdf

    def result(self) -> Pdf:
        return self.pdf


@pytest.mark.parametrize("columns, said", [(None, ""), ("CARDGEN_COLUMN_MEMO=off",
                                                        "; columns balanced by weasyprint alone: CARDGEN_COLUMN_MEMO=off")])
def test_finish_writes_shapes_records_and_times_each_paper(tmp_path, columns, said):
    """What `finish` makes of a laid-out paper, and the timing saying when weasyprint balanced
    the columns on its own (the column memo off or not fit for the installed weasyprint)."""
    document = PaperDocument("booklet", "rulebook booklet", "rulebook.html.j2", "test-1",
                             file=lambda paper: f"book-{paper}.pdf", page=lambda paper: PAPER_SIZES["a4"],
                             shape=lambda paper, pdf: (pdf.data + paper.encode(), 2),
                             label=lambda paper: f"the book on {paper}")
    manifest = Manifest(tmp_path)
    pending = PendingPdfs(None, document, ("a4",), manifest)  # no cards to put in: no project needed
    pending.layouts["a4"] = papers._Layout(tmp_path / "book-a4.pdf", "inputs-hash",
                                           _Done(Pdf(b"%PDF", 5, ["a remark"], 1.0, 0.5, columns=columns)), 0.25)
    [output] = pending.finish({})
    assert (tmp_path / "book-a4.pdf").read_bytes() == b"%PDFa4" and manifest.entries == {"book-a4.pdf": "inputs-hash"}
    assert (output.what, output.pages, output.warnings) == ("the book on a4", 2, ["a remark"])
    [timing] = pending.timings
    assert timing.stage == "booklet A4" and isinstance(timing, Timing) and abs(timing.seconds - 1.75) < 0.01
    assert timing.detail.startswith("HTML 0.25 s, layout 1.00 s, PDF 0.50 s, cards 0.00 s, 5 pages, imposed ")
    assert timing.detail.endswith(" s" + said)


def _page_size_pt(pdf: Path) -> tuple[int, int]:
    with pikepdf.open(pdf) as doc:
        box = [float(v) for v in doc.pages[0].mediabox]
    return round(box[2] - box[0]), round(box[3] - box[1])


def test_the_notes_are_laid_out_on_the_papers_asked(cli, mini):
    """`build --notes-paper a4` (BuildOptions.notes_papers): the designer's notes on A4 alone, the
    rulebook still on both papers; the manifest records, and the summary names, exactly those."""
    out = mini / "build" / "mini" / "2"
    result = cli("build", "-v", "2", "--no-png", "--notes-paper", "a4", cwd=mini)
    assert result.code == 0, result.err
    documents = sorted(p.name for p in out.glob("*.pdf") if not p.name.startswith("sheets-"))
    assert documents == ["notes-a4.pdf", "rulebook-a4.pdf", "rulebook-letter.pdf"]
    assert _page_size_pt(out / "notes-a4.pdf") == (595, 842)
    assert _page_size_pt(out / "rulebook-letter.pdf") == (612, 792)
    from cardgen.outputs import read_inputs

    recorded = {name for name in read_inputs(out) if name.endswith(".pdf") and not name.startswith("sheets-")}
    assert recorded == set(documents)
    said = set(re.findall(r"\b(?:notes|rulebook)-[a-z0-9]+\.pdf\b", result.out))
    assert said == set(documents), result.out


def test_the_notes_may_take_another_paper_than_the_rulebook(mini, tmp_path):
    """The pipeline lays the notes out on `notes_papers` even where the rulebook is on another paper."""
    project = load_project(mini)
    snapshot = resolve(project, load_game(project, None), "2")
    result = pipeline.build(project, snapshot, BuildOptions(out_dir=tmp_path, papers=("letter",), notes_papers=("a4",),
                                                            sheets=False, png=False))
    assert [(o.path.name, _page_size_pt(o.path)) for o in result.outputs if o.path.suffix == ".pdf"] == [
        ("rulebook-letter.pdf", (612, 792)), ("notes-a4.pdf", (595, 842))]
    assert [t.stage for t in result.timings if t.stage.startswith(("rulebook", "notes"))] == [
        "rulebook LETTER", "notes A4"]


@pytest.mark.parametrize("other", [("--no-rulebook",), ("--only-changed-since", "1")])
def test_a_notes_paper_without_notes_is_refused(cli, mini, other):
    result = cli("build", "-v", "2", "--notes-paper", "a4", *other, cwd=mini)
    assert result.code == 2 and result.err.count("\n") == 1 and "--notes-paper" in result.err, result.err
    assert not (mini / "build").exists()
