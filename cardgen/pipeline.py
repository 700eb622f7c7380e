"""The build pipeline: load -> resolve -> validate -> render SVG -> preflight -> rasterise -> impose (-> rulebook).

Each stage reads plain data from the one before; rasterised cards are cached by content, and
whole output files are skipped when their inputs are unchanged (see cache.py).
"""

from __future__ import annotations

from pathlib import Path

from . import cache as cache_mod
from .buildtypes import BuildOptions, BuildResult, Progress
from .data.project import Project, check_out_dir
from .data.snapshot import Snapshot
from .data.validate import ValidationFailed, validate
from .preflight import preflight
from .render.cards import CardRenderer
from .render.fonts import FontSet
from .render.rasterise import Rasteriser


def default_out_dir(project: Project, snapshot: Snapshot) -> Path:
    """build/<game>/<version>/ in the source language; a translation in its own sub-folder
    (build/kings-blade/3.1/nl/), so no language overwrites another."""
    folder = project.build_dir / snapshot.game.id / snapshot.version
    if snapshot.language != snapshot.game.file.language:
        folder = folder / snapshot.language
    return folder


def build(project: Project, snapshot: Snapshot, options: BuildOptions | None = None,
          progress: Progress | None = None) -> BuildResult:
    options = options or BuildOptions()
    progress = progress or Progress()
    out_dir = check_out_dir(project, options.out_dir or default_out_dir(project, snapshot))
    findings = validate(project, snapshot)
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        raise ValidationFailed(errors)
    result = BuildResult(out_dir, findings=findings)
    result.warnings += [str(f) for f in findings]

    rendered = CardRenderer(project, snapshot).render_all()
    result.warnings += rendered.warnings
    checks = preflight(snapshot, rendered, FontSet(project.fonts_dir))
    result.findings += checks
    result.warnings += [str(f) for f in checks]
    result.faces = len(rendered.faces) + len(rendered.backs)
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest = cache_mod.Manifest(out_dir)
    rasterised = Rasteriser(project, options, progress).run(rendered, out_dir)
    result.cards, result.files, result.rendered = rendered, rasterised.files, rasterised.rendered
    files = rasterised.files

    if options.sheets:
        # imported here: the PDF stack loads only when sheets are made
        from .imposition.stage import build_sheets

        with progress.stage("Imposing print sheets"):
            result.outputs += build_sheets(project, snapshot, rendered, files, options, out_dir, manifest)
    translator = snapshot.translator
    rulebook_words = translator is None or "rulebook" in translator.domains
    if options.rulebook and snapshot.game.file.rulebook and not rulebook_words:
        result.warnings.append(f"no rulebook in '{snapshot.language}': the game has no rulebook catalog for it "
                               f"(card_data/{snapshot.game.id}/locale/{snapshot.language}/rulebook.po); "
                               f"start one with `cardgen i18n update --lang {snapshot.language} --domain rulebook`")
    if options.rulebook and snapshot.game.file.rulebook and rulebook_words:
        from .rulebook.stage import build_rulebooks

        with progress.stage("Laying out the rulebook"):
            result.outputs += build_rulebooks(project, snapshot, rendered, files, options, out_dir, manifest)
    result.warnings += [f"{o.path.name}: {w}" for o in result.outputs for w in o.warnings]
    result.shrunk = dict(rendered.shrunk)
    if translator is not None and translator.missing:
        result.missing = list(translator.missing)
        # strings of the data are validator findings with their file:line; these are the templates'
        templates = [m for m in result.missing if m not in translator.missing_locs]
        shown = "; ".join(repr(m if len(m) <= 40 else m[:37] + "...") for m in templates[:5])
        more = f" and {len(templates) - 5} more" if len(templates) > 5 else ""
        if templates:
            result.warnings.append(f"{len(templates)} template string(s) not translated into '{snapshot.language}', "
                                   f"printed in the source language: {shown}{more} (see `cardgen i18n status`)")
    manifest.forget_missing()
    manifest.save()
    return result
