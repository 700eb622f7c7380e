"""The build pipeline: load -> resolve -> validate (renders SVG) -> preflight -> rasterise -> impose (-> rulebook).

Each stage reads plain data from the one before; rasterised cards are cached by content, and
whole output files are skipped when their inputs are unchanged (see cache.py). Everything the
build writes goes through `outputs.open_output`: the folder is locked, its files recorded.
"""

from __future__ import annotations

from pathlib import Path

from . import cache as cache_mod
from .buildtypes import BuildOptions, BuildResult, Progress
from .data.project import Project, check_out_dir
from .data.snapshot import Snapshot
from .checks import check
from .data.validate import ValidationFailed
from .outputs import open_output
from .preflight import preflight
from .render.fonts import FontSet
from .render.rasterise import Rasteriser


def default_out_dir(project: Project, snapshot: Snapshot) -> Path:
    return project.build_dir / snapshot.game.id / snapshot.version


def build(project: Project, snapshot: Snapshot, options: BuildOptions | None = None,
          progress: Progress | None = None) -> BuildResult:
    options = options or BuildOptions()
    progress = progress or Progress()
    out_dir = check_out_dir(project, options.out_dir or default_out_dir(project, snapshot))
    # the validator renders every card to SVG (so validate and build fail alike); the build
    # goes on with those faces
    findings, rendered = check(project, snapshot)
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        raise ValidationFailed(errors)
    findings += preflight(snapshot, rendered, FontSet(project.fonts_dir))
    warnings = [f for f in findings if f.severity == "warning"]
    if options.strict and warnings:
        raise ValidationFailed(warnings, strict=True)
    result = BuildResult(out_dir, findings=findings)
    result.warnings += [str(f) for f in findings]
    result.faces = len(rendered.faces) + len(rendered.backs)
    with open_output(project, out_dir, "build"):
        manifest = cache_mod.Manifest(out_dir)
        rasterised = Rasteriser(project, options, progress).run(rendered, out_dir)
        result.cards, result.files, result.rendered = rendered, rasterised.files, rasterised.rendered
        files = rasterised.files

        if options.sheets:
            # imported here: the PDF stack loads only when sheets are made
            from .imposition.stage import build_sheets

            with progress.stage("Imposing print sheets"):
                result.outputs += build_sheets(project, snapshot, rendered, files, options, out_dir, manifest)
        if options.rulebook and snapshot.game.file.rulebook:
            from .rulebook.stage import build_rulebooks

            with progress.stage("Laying out the rulebook"):
                result.outputs += build_rulebooks(project, snapshot, rendered, files, options, out_dir, manifest)
        result.remarks += [f"{o.path.name}: {w}" for o in result.outputs for w in o.warnings]
        result.warnings += result.remarks
        manifest.forget_missing()
        manifest.save()
    return result
