"""Print-and-play sheets: every printed copy of every card, imposed per paper size.

One print mode per file, named after it: `sheets-<paper>-duplex.pdf` holds every piece with a
back (fronts followed by their backs, long-edge flip), `sheets-<paper>-onesided.pdf` the pieces
without one and every component larger than the paper, tiled (a camp map printed duplex would
land on another tile's back). With --fronts-only everything goes one-sided. Pieces of different
sizes share sheets where they fit (`imposition.impose_groups`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pikepdf

from .. import cache as cache_mod
from ..atomic import atomic_path
from ..buildtypes import PAPER_SIZES, BuildOptions, FaceFiles, Output, RenderedSet
from ..data.project import Project
from ..data.snapshot import Snapshot
from ..i18n.own import catalog_digest, page_text
from ..render.fonts import fonts_digest
from .geometry import SheetSpec, Slot
from .impose import PieceGroup, impose_groups
from .layout import grid_for
from .tiling import tile

CODE_VERSION = "sheets-3"  # bump when the sheet layout code changes what it draws


@dataclass
class Group:
    label: str
    spec: SheetSpec
    slots: list[Slot]
    tiled: bool


def sheet_groups(snapshot: Snapshot, rendered: RenderedSet, files: dict[str, FaceFiles],
                 only_cards: set[str] | None = None, paper: str = "a4") -> list[Group]:
    """Pieces grouped by size and shape, in deck order; a group too big for the paper is tiled."""
    game = snapshot.game
    groups: dict[tuple, Group] = {}
    deck_order = list(game.decks)
    cards = sorted(snapshot.cards, key=lambda c: deck_order.index(game.card_types[c.type].deck))
    for card in cards:
        if only_cards is not None and card.id not in only_cards:
            continue
        ctype = game.card_types[card.type]
        size = game.size_of(card.type)
        spec = SheetSpec(trim_w_mm=size.width_mm, trim_h_mm=size.height_mm, bleed_mm=game.file.bleed_mm,
                         shape=ctype.shape)
        key = (size.width_mm, size.height_mm, ctype.shape)
        if key not in groups:
            cols, rows = grid_for(spec, PAPER_SIZES[paper])
            label = ctype.label if ctype.shape == "circle" or (cols * rows == 0) else "cards"
            groups[key] = Group(label, spec, [], cols * rows == 0)
        front = files[rendered.faces[card.id].key].pdf
        back_face = rendered.backs.get(ctype.deck)
        back = files[back_face.key].pdf if back_face else None
        # the label is printed in a tiled component's footer: the card's name in the build's
        # language, numbered when several copies are tiled (two camp maps: "1/2", "2/2")
        numbered = groups[key].tiled and card.count > 1
        groups[key].slots += [Slot(front, back, f"{card.name} {n}/{card.count}" if numbered else card.name)
                              for n in range(1, card.count + 1)]
    return [g for g in groups.values() if g.slots]


def print_files(groups: list[Group], duplex: bool) -> dict[str, list[Group]]:
    """Split groups by print mode: {"duplex": [...], "onesided": [...]}, empty modes left out."""
    modes: dict[str, list[Group]] = {"duplex": [], "onesided": []}
    for group in groups:
        with_back = [s for s in group.slots if s.back is not None]
        without = [s for s in group.slots if s.back is None]
        if duplex and with_back and not group.tiled:
            modes["duplex"].append(Group(group.label, group.spec, with_back, False))
        if without or not duplex or group.tiled:
            slots = group.slots if (not duplex or group.tiled) else without
            modes["onesided"].append(Group(group.label, group.spec, slots, group.tiled))
    return {mode: gs for mode, gs in modes.items() if gs}


def build_sheets(project: Project, snapshot: Snapshot, rendered: RenderedSet, files: dict[str, FaceFiles],
                 options: BuildOptions, out_dir: Path, manifest: cache_mod.Manifest) -> list[Output]:
    outputs = []
    prefix = "update-" if options.only_cards is not None else ""
    title = f"{snapshot.game.name} - {snapshot.info.title or 'version ' + snapshot.version}"
    font = project.fonts_dir / "AlegreyaSans-Regular.ttf"
    text = page_text(snapshot.language)  # cardgen's notice and footers, in the game's language
    for paper_name in options.papers:
        groups = sheet_groups(snapshot, rendered, files, options.only_cards, paper_name)
        modes = print_files(groups, options.duplex)
        _remove_stale(out_dir, manifest, prefix, paper_name, set(modes))
        for mode, mode_groups in modes.items():
            out = out_dir / f"{prefix}sheets-{paper_name}-{mode}.pdf"
            x, y = options.back_offset_mm if mode == "duplex" else (0.0, 0.0)
            offset = (float(x), float(y))
            inputs = cache_mod.digest_of(
                CODE_VERSION, cache_mod.toolchain_version(), paper_name, mode, offset,
                [(g.label, g.spec, g.tiled, [(s.front.name, s.back.name if s.back else None, s.label) for s in g.slots])
                 for g in mode_groups],
                fonts_digest(project.fonts_dir), catalog_digest(snapshot.language),
            )
            what = f"print sheets, {paper_name.upper()}, " + (
                "duplex (flip on long edge)" if mode == "duplex" else "one-sided")
            if manifest.fresh(out, inputs):
                pages = _pages(out)
                outputs.append(Output(out, what, pages, rebuilt=False, sheets=_paper(pages, mode)))
                continue
            file_title = f"{title} - print sheets, {PAPER_SIZES[paper_name].name}, {mode}"
            layouts = _write(mode_groups, PAPER_SIZES[paper_name], out, file_title, font, mode == "duplex",
                             offset, snapshot.game.file.bleed_mm, f"{snapshot.game.name} {snapshot.version}", text)
            manifest.record(out, inputs)
            pages = _pages(out)
            outputs.append(Output(out, what, pages, sheets=_paper(pages, mode), details=layouts))
    return outputs


def _remove_stale(out_dir: Path, manifest: cache_mod.Manifest, prefix: str, paper: str, modes: set[str]) -> None:
    """Sheet files of this paper an earlier build wrote (the manifest says so) that this one does
    not: a one-sided file after --fronts-only, or `sheets-<paper>.pdf` from before files were
    split by print mode. Nobody else's files are touched."""
    names = [f"{prefix}sheets-{paper}.pdf"] + [f"{prefix}sheets-{paper}-{m}.pdf" for m in ("duplex", "onesided")
                                               if m not in modes]
    for name in names:
        path = out_dir / name
        if name in manifest.entries and path.is_file():
            path.unlink()


def _paper(pages: int, mode: str) -> int:
    return pages // 2 if mode == "duplex" else pages


def _write(groups: list[Group], paper, out: Path, title: str, font: Path, duplex: bool,
           offset: tuple[float, float], bleed: float, footer: str, text: Callable[[str], str]) -> list[str]:
    """One PDF: the grid-imposed groups first, then each tiled component."""
    layouts: list[str] = []
    with tempfile.TemporaryDirectory(prefix="cardgen-sheets-") as tmp:
        parts = []
        imposed = [PieceGroup(g.spec, g.slots, g.label) for g in groups if not g.tiled]
        if imposed:
            part = Path(tmp) / "grid.pdf"
            result = impose_groups(imposed, paper, part, duplex=duplex, title=title, font_path=font,
                                   back_offset_mm=offset, footer=footer, gettext=text)
            layouts += result.layouts
            parts.append(part)
        for group in (g for g in groups if g.tiled):
            for i, slot in enumerate(group.slots):
                part = Path(tmp) / f"tile-{len(parts)}-{i}.pdf"
                result = tile(slot.front, paper, part, title=f"{footer} {slot.label}", font_path=font,
                              bleed_mm=bleed, gettext=text)
                parts.append(part)
            layouts.append(f"{group.label}: {len(group.slots)} x {result.rows} x {result.cols} tiled pages")
        _concatenate(parts, out, title)
    return layouts


def _concatenate(parts: list[Path], out: Path, title: str) -> int:
    merged = pikepdf.new()
    opened = [pikepdf.open(p) for p in parts]
    try:
        version = max(pdf.pdf_version for pdf in opened)
        for pdf in opened:
            merged.pages.extend(pdf.pages)
        merged.trailer.Info = merged.make_indirect(pikepdf.Dictionary(
            Title=pikepdf.String(title), Creator=pikepdf.String("cardgen imposition")))
        with atomic_path(out) as tmp:
            merged.save(tmp, deterministic_id=True, compress_streams=True, min_version=version,
                        object_stream_mode=pikepdf.ObjectStreamMode.generate)
        return len(merged.pages)
    finally:
        for pdf in opened:
            pdf.close()


def _pages(path: Path) -> int:
    with pikepdf.open(path) as pdf:
        return len(pdf.pages)
