"""Print-and-play sheets: every printed copy of every card, imposed per paper size.

Cards of the same size and shape share sheets (poker cards 3 x 3, tokens on their own grid);
a component larger than the paper (a map, a board) is tiled over several pages. All groups go
into one PDF per paper, `sheets-a4.pdf` and `sheets-letter.pdf`, fronts followed by their backs
for long-edge duplex printing.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import pikepdf

from .. import cache as cache_mod
from ..atomic import atomic_path
from ..buildtypes import PAPER_SIZES, BuildOptions, FaceFiles, Output, RenderedSet
from ..data.project import Project
from ..data.snapshot import Snapshot
from .geometry import SheetSpec, Slot
from .impose import impose
from .layout import grid_for
from .tiling import tile

CODE_VERSION = "sheets-1"  # bump when the sheet layout code changes what it draws


@dataclass
class Group:
    label: str
    spec: SheetSpec
    slots: list[Slot]
    tiled: bool


def sheet_groups(snapshot: Snapshot, rendered: RenderedSet, files: dict[str, FaceFiles],
                 only_cards: set[str] | None = None, paper: str = "a4") -> list[Group]:
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
        groups[key].slots += [Slot(front, back, card.id)] * card.count
    return [g for g in groups.values() if g.slots]


def build_sheets(project: Project, snapshot: Snapshot, rendered: RenderedSet, files: dict[str, FaceFiles],
                 options: BuildOptions, out_dir: Path, manifest: cache_mod.Manifest) -> list[Output]:
    outputs = []
    prefix = "update-" if options.only_cards is not None else ""
    for paper_name in options.papers:
        groups = sheet_groups(snapshot, rendered, files, options.only_cards, paper_name)
        if not groups:
            continue
        out = out_dir / f"{prefix}sheets-{paper_name}.pdf"
        inputs = cache_mod.digest_of(
            CODE_VERSION, cache_mod.toolchain_version(), paper_name, options.duplex,
            [(g.label, g.spec, [(s.front.name, s.back.name if s.back else None) for s in g.slots]) for g in groups],
            cache_mod.folder_digest(str(project.fonts_dir)),
        )
        if manifest.fresh(out, inputs):
            outputs.append(Output(out, f"print sheets, {paper_name.upper()}", _pages(out), rebuilt=False))
            continue
        title = f"{snapshot.game.name} - {snapshot.info.title or 'version ' + snapshot.version}"
        font = project.fonts_dir / "AlegreyaSans-Regular.ttf"
        with tempfile.TemporaryDirectory(prefix="cardgen-sheets-") as tmp:
            parts = []
            for i, group in enumerate(groups):
                part = Path(tmp) / f"part{i}.pdf"
                if group.tiled:
                    _tile_group(group, PAPER_SIZES[paper_name], part, title, font, snapshot.game.file.bleed_mm)
                else:
                    impose(group.slots, group.spec, PAPER_SIZES[paper_name], part, duplex=options.duplex,
                           title=f"{title} - {group.label}", font_path=font)
                parts.append(part)
            pages = _concatenate(parts, out)
        manifest.record(out, inputs)
        sides = "fronts + duplex backs" if options.duplex else "fronts only"
        outputs.append(Output(out, f"print sheets, {paper_name.upper()}, {sides}", pages))
    return outputs


def _tile_group(group: Group, paper, out: Path, title: str, font: Path, bleed: float) -> None:
    """Each copy of an oversized component gets its own set of tiled pages."""
    with tempfile.TemporaryDirectory(prefix="cardgen-tiles-") as tmp:
        parts = []
        for i, slot in enumerate(group.slots):
            part = Path(tmp) / f"tile{i}.pdf"
            tile(slot.front, paper, part, title=f"{title} - {slot.label}", font_path=font, bleed_mm=bleed)
            parts.append(part)
        _concatenate(parts, out)


def _concatenate(parts: list[Path], out: Path) -> int:
    if len(parts) == 1:
        with atomic_path(out) as tmp:
            tmp.write_bytes(parts[0].read_bytes())
        return _pages(out)
    merged = pikepdf.new()
    opened = [pikepdf.open(p) for p in parts]
    try:
        for pdf in opened:
            merged.pages.extend(pdf.pages)
        with atomic_path(out) as tmp:
            merged.save(tmp, deterministic_id=True, compress_streams=True,
                        object_stream_mode=pikepdf.ObjectStreamMode.generate)
        return len(merged.pages)
    finally:
        for pdf in opened:
            pdf.close()


def _pages(path: Path) -> int:
    with pikepdf.open(path) as pdf:
        return len(pdf.pages)
