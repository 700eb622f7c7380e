"""Card images for exports and the HTML diff: a face's SVG reframed, rendered at an exact size.

Every consumer wants a different framing of the same face (the trimmed card for Tabletop
Simulator and the diff page, the trim plus a service's own bleed for printers), so rather than
resample the build's 300 DPI PNGs we change the SVG's viewBox and let cairo draw each size
crisply. Renders share the build's content-addressed cache (build/.cache/faces, keyed like the
pipeline's, with the pixel size added), so repeated exports render nothing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from .. import atomic, outputs, pngmeta
from ..buildtypes import BuildOptions, Face, Progress
from ..data.project import Project
from ..render.rasterise import Rasteriser
from ..render.workers import Workers
from ..units import decimal

_ROOT_TAG = re.compile(r"<svg\b[^>]*>", re.S)


def file_word(name: str, fallback: str) -> str:
    """A printed name as part of a file name ('Monete da 5' -> 'monete-da-5', 'Main board' ->
    'main-board'), so a translated export's files are named in its language; `fallback` (the
    data's id) when nothing of the name is left."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    word = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    return word or fallback


@dataclass(frozen=True)
class Frame:
    """A window onto a face in trim coordinates (mm; the trim's top-left is 0, 0)."""

    x: float
    y: float
    w: float
    h: float


def trim_frame(face: Face, bleed_mm: float) -> Frame:
    return Frame(0, 0, face.width_mm - 2 * bleed_mm, face.height_mm - 2 * bleed_mm)


def bleed_frame(face: Face, bleed_mm: float) -> Frame:
    """The whole face as drawn: trim plus the game's bleed."""
    return Frame(-bleed_mm, -bleed_mm, face.width_mm, face.height_mm)


def reframe(svg: str, frame: Frame) -> str:
    """The face's SVG showing exactly `frame`: new width, height and viewBox on the root <svg>."""
    root = _ROOT_TAG.search(svg)
    if root is None:
        raise ValueError("not an SVG document")
    values = {"width": f"{decimal(frame.w)}mm", "height": f"{decimal(frame.h)}mm",
              "viewBox": " ".join(decimal(v) for v in (frame.x, frame.y, frame.w, frame.h))}
    tag = root.group(0)
    for name, value in values.items():
        tag, n = re.subn(rf'\s{name}="[^"]*"', f' {name}="{value}"', tag, count=1)
        if n != 1:
            raise ValueError(f"not a cardgen face: its root <svg> has no {name}")
    return svg[: root.start()] + tag + svg[root.end():]



@dataclass(frozen=True)
class Shot:
    """One image to render: `frame` of `face`, stretched to exactly `size` pixels."""

    face: Face
    frame: Frame
    size: tuple[int, int]


def rasterise_shots(project: Project, shots: list[Shot], workers: Workers | int | None = None,
                     progress: Progress | None = None) -> list[Path]:
    """Cached PNGs of the shots, in order; only the ones not cached yet are rendered, in the
    command's `workers` (or, given a number, in as many processes started for these alone)."""
    from ..render.rasterise import RasterJob, rasterise_jobs

    progress = progress or Progress()
    rasteriser = Rasteriser(project, BuildOptions(), progress)
    paths, jobs = [], {}
    for shot in shots:
        svg = reframe(shot.face.svg, shot.frame)
        face = Face(shot.face.key, svg, shot.frame.w, shot.frame.h, shot.face.shape)
        path = rasteriser.cache.path(f"{rasteriser.key(face)}-{shot.size[0]}x{shot.size[1]}", ".png")
        paths.append(path)
        if not path.is_file() and path not in jobs:
            jobs[path] = RasterJob(svg=svg, pdf=None, png=path, size_px=shot.size, key=shot.face.key)
    if jobs:
        progress.start("Rendering images", len(jobs))
        try:
            rasterise_jobs(list(jobs.values()), workers=workers, on_done=lambda job: progress.advance(),
                           fonts_dir=project.fonts_dir, cache_dir=project.cache_dir / "fontconfig")
        finally:
            progress.stop()
    return paths


def png_bytes(image: Image.Image, dpi: int = 300) -> bytes:
    """PNG bytes with nothing time-dependent in them, recording `dpi` and the sRGB profile."""
    return pngmeta.png_bytes(image, dpi)


def write_if_changed(path: Path, data: bytes) -> bool:
    """Atomically write `data` unless the file already holds exactly it; True if written."""
    return atomic.write_if_changed(path, data)


def remove_stale(folder: Path, keep: set[str], owned: Callable[[str], bool]) -> None:
    """Delete files an earlier export wrote that this one did not (a removed card's image).

    Only names `owned` says an export writes, and of those only files recorded in the open
    output folder's manifest (cardgen.outputs), are touched: an --out folder may hold other files.
    """
    outputs.remove_stale(folder, keep, owned)
