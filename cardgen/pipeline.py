"""The build pipeline: load -> resolve -> validate -> render SVG -> preflight -> rasterise -> impose (-> rulebook).

Each stage reads plain data from the one before; rasterised cards are cached by content, and
whole output files are skipped when their inputs are unchanged (see cache.py). Everything the
build writes goes through `outputs.open_output`: the folder is locked and its files recorded.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from . import cache as cache_mod
from . import interrupt
from .buildtypes import BuildOptions, BuildResult, Progress, Timing
from .cardstage import DrawnCards, draw_cards
from .data.project import Project, check_out_dir
from .data.snapshot import Snapshot
from .data.validate import ValidationFailed
from .files import BuildFiles, of_snapshot
from .outputs import open_output
from .render.rasterise import Rasteriser
from .render.workers import LAYOUT_PRELOAD, RASTER_PRELOAD, Workers, drawing_workers, import_pdf_stack
from .words import counted


def _workers(project: Project, snapshot: Snapshot, options: BuildOptions, out_dir: Path) -> Workers:
    """The build's worker processes; started at once for a first build into `out_dir`.

    Started before the cards are rendered, each worker starts Python and imports its
    renderers while this process renders the SVGs. A folder built before may need nothing
    (a no-op rebuild starts no process), so there they start with the first job as usual.
    """
    rulebook = options.rulebook and bool(snapshot.game.file.rulebook)
    preload = LAYOUT_PRELOAD if rulebook else RASTER_PRELOAD
    workers = drawing_workers(project, options.workers, preload)
    if not BuildFiles(out_dir).built_before():
        import_pdf_stack()
        workers.start()
    return workers


def build(project: Project, snapshot: Snapshot, options: BuildOptions | None = None,
          progress: Progress | None = None, *, drawn: DrawnCards | None = None) -> BuildResult:
    """Validate, render, then rasterise the cards, impose the sheets and lay out the rulebook.

    The slow steps share one pool of worker processes (`workers.py`): card renders are queued
    first, the rulebooks behind them, so a core that runs out of cards moves on to a rulebook
    while this process imposes the sheets as soon as the cards are done.

    `drawn`: the card stage of this snapshot, run already by the caller (an export that also
    builds the rulebook): its faces and findings are used rather than drawn again.
    """
    options = given = options or BuildOptions()
    progress = progress or Progress()
    out_dir = check_out_dir(project, options.out_dir or of_snapshot(project.build_dir, snapshot).root)
    result = BuildResult(out_dir)
    workers: list[Workers] = []  # started once the data checks pass, while the cards are drawn
    rasteriser = Rasteriser(project, given, progress)
    try:
        # the card stage `validate` and `serve` run too: the same faces, the same findings; each
        # face goes to the workers to be rasterised as soon as it is drawn and preflighted
        cards = drawn if drawn is not None else draw_cards(
            project, snapshot, on_checked=lambda: workers.append(_workers(project, snapshot, given, out_dir)),
            on_face=lambda face: rasteriser.offer(face, workers[0]))
        result.timings += cards.timings
        rendered = cards.faces()  # ValidationFailed when a finding is an error
        if not workers:  # the caller's card stage: the data checks passed there
            workers.append(_workers(project, snapshot, given, out_dir))
        findings = list(cards.findings)
        warnings = [f for f in findings if f.severity == "warning"]
        if options.strict and warnings:
            raise ValidationFailed(warnings, strict=True)
        result.findings = findings
        result.warnings += [str(f) for f in findings]
        result.faces = len(rendered.faces) + len(rendered.backs)
        result.missing = list(cards.missing)
        if options.changed_since is not None:
            from .diff.faces import card_faces, changed_between

            with result.timed("compare", f"faces of version {options.changed_since.version}"):
                only = changed_between(card_faces(project, options.changed_since), rendered.faces)
            options = dataclasses.replace(options, only_cards=only, rulebook=False)
        result.only_cards = options.only_cards
        # an output the user edited is kept (or with --force replaced): said in the build's report
        with open_output(project, out_dir, "build", force=options.force, notify=lambda line: None) as folder:
            rasteriser.workers = workers[0]
            _produce(project, snapshot, rendered, options, progress, out_dir, result, rasteriser)
        result.remarks += [line for _, line in sorted(folder.kept.items())]
        result.replaced = [line for _, line in sorted(folder.replaced.items())]
        result.warnings += result.remarks + result.replaced
    except BaseException:
        for pool in workers:
            pool.close(cancel=True)  # started early: don't leave them starting up
        raise
    return result


def _produce(project, snapshot, rendered, options, progress, out_dir, result, rasteriser: Rasteriser) -> None:
    """Rasterise (what the card stage has not sent to the workers yet), publish, impose and lay
    out, into the open output folder."""
    manifest = cache_mod.Manifest(out_dir)
    workers = rasteriser.workers
    assert workers is not None  # the build's pool, given by `build`
    with workers:
        started = time.perf_counter()
        files, jobs = rasteriser.plan(rendered)
        queued = rasteriser.submit(jobs, workers)
        planned = time.perf_counter()
        rulebooks = notes = booklets = None
        from .rulebook.stage import has_rulebook_words

        rulebook_words = has_rulebook_words(snapshot)
        if options.rulebook and snapshot.game.file.rulebook and not rulebook_words:
            result.remarks.append(f"no rulebook in '{snapshot.language}': the game has no rulebook catalog for "
                                   f"it (card_data/{snapshot.game.id}/locale/{snapshot.language}/rulebook.po); start "
                                   f"one with `cardgen i18n update --lang {snapshot.language} --domain rulebook`")
        if options.rulebook and snapshot.game.file.rulebook and rulebook_words:
            from .rulebook.stage import start_rulebooks

            rulebooks = start_rulebooks(project, snapshot, rendered, options, out_dir, manifest, workers)
        if rulebooks is not None and options.notes:
            from .rulebook.notes import start_notes

            notes = start_notes(project, snapshot, rendered, result.findings, options, out_dir, manifest, workers)
        if rulebooks is not None and options.booklet:
            from .rulebook.booklet import start_booklets

            booklets = start_booklets(project, snapshot, rendered, options, out_dir, manifest, workers)
        waited = time.perf_counter()
        rasteriser.wait(jobs, queued)
        result.timings.append(Timing("rasterise", planned - started + time.perf_counter() - waited,
                                     f"{len(jobs)} of {len(files)} faces rendered to PDF/PNG, the rest cached"))
        result.cards, result.files, result.rendered = rendered, files, len(jobs)
        interrupt.check()  # the first output written: none after a Ctrl-C whose interrupt was lost
        with result.timed("export", "SVG and PNG of every face into the output folder"):
            rasteriser.publish(files, out_dir)

        interrupt.check()
        if options.sheets:
            # imported here: the PDF stack loads only when sheets are made
            from .imposition.stage import build_sheets

            with progress.stage("Imposing print sheets"):
                for paper in options.papers:
                    one = dataclasses.replace(options, papers=(paper,))
                    with result.timed(f"sheets {paper.upper()}"):
                        result.outputs += build_sheets(project, snapshot, rendered, files, one, out_dir, manifest)
        interrupt.check()
        if rulebooks is not None:
            with progress.stage("Laying out the rulebook"):
                result.outputs += rulebooks.finish(files)
            result.timings += rulebooks.timings
        if booklets is not None:
            with progress.stage("Laying out the rulebook booklet"):
                result.outputs += booklets.finish(files)
            result.timings += booklets.timings
        if notes is not None:
            with progress.stage("Laying out the designer's notes"):
                result.outputs += notes.finish(files)
            result.timings += notes.timings
    result.remarks += [f"{o.path.name}: {w}" for o in result.outputs for w in o.warnings]
    result.remarks += _untranslated(snapshot, [rulebooks, booklets, notes])
    result.shrunk = dict(rendered.shrunk)
    manifest.forget_missing()
    manifest.save()


def _untranslated(snapshot: Snapshot, documents: list) -> list[str]:
    """The remark for the rulebook templates' strings the language's catalogs lack (the card
    templates' are the card stage's findings; the data's, the validator's, at their file:line)."""
    data = snapshot.translation.missing if snapshot.translation is not None else {}
    missing = [m for m in dict.fromkeys(m for d in documents if d is not None for m in d.missing) if m not in data]
    if not missing:
        return []
    shown = "; ".join(repr(m if len(m) <= 40 else m[:37] + "...") for m in missing[:5])
    more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
    return [f"{counted(len(missing), 'rulebook template string')} not translated into '{snapshot.language}', "
            f"printed in the source language: {shown}{more} (see `cardgen i18n status`)"]
