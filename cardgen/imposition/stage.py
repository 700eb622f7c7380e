"""Print-and-play sheets: every printed copy of every card, imposed per paper size.

One print mode per file, named after it (`files.sheets_name`): `sheets-<paper>-duplex.pdf`
holds every piece with a back (fronts followed by their backs, long-edge flip),
`sheets-<paper>-onesided.pdf` the pieces without one and every component larger than the paper,
tiled (a camp map printed duplex would land on another tile's back). With --fronts-only
everything goes one-sided. Pieces of different sizes share sheets where they fit (`pack`).
With --cutter, each file also comes as `sheets-<paper>-<mode>-<cutter>.pdf`, with the cut file
`cutlines-<paper>-<cutter>.svg` (`cutter`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pikepdf

from .. import cache as cache_mod
from ..atomic import write_text
from ..buildtypes import (
    CUTTER_NAMES,
    PAPER_SIZES,
    PRINT_MODES,
    BuildOptions,
    FaceFiles,
    Output,
    RenderedSet,
)
from ..data.model import Size
from ..data.project import Project
from ..data.snapshot import NAMED_SIZES, Snapshot
from ..errors import BuildError
from ..files import cutlines_name, old_sheets_name, sheets_name, update_prefix
from ..i18n.own import catalog_digest, page_text
from ..outputs import keeps, remove_stale
from ..render.fonts import fonts_digest
from .cutter import cut_svg, cutter_layout, frame_rect, registration_marks
from .geometry import EPS_MM, ImposedSheets, SheetSpec, Slot
from .impose import PieceGroup, TiledComponent, impose_cells, impose_groups
from .layout import SheetLayout, grid_for
from .pack import loose_bleed
from .presets import CUT_STYLES, CUTTERS, CutStyle

CODE_VERSION = "sheets-5"  # bump when the sheet layout code changes what it draws


@dataclass
class Group:
    label: str
    spec: SheetSpec
    slots: list[Slot]
    tiled: bool
    radius_mm: float = 0.0  # corner radius a cutting machine cuts


def sheet_groups(snapshot: Snapshot, rendered: RenderedSet, files: dict[str, FaceFiles],
                 only_cards: set[str] | None = None, paper: str = "a4") -> list[Group]:
    """Pieces grouped by size and shape, in deck order; a group too big for the paper is tiled."""
    game = snapshot.game
    groups: dict[tuple, Group] = {}
    card = card_size(snapshot)
    deck_order = list(game.decks)
    cards = sorted(snapshot.cards, key=lambda c: deck_order.index(game.card_types[c.type].deck))
    for piece in cards:
        if only_cards is not None and piece.id not in only_cards:
            continue
        ctype = game.card_types[piece.type]
        size = game.size_of(piece.type)
        spec = SheetSpec(trim_w_mm=size.width_mm, trim_h_mm=size.height_mm, bleed_mm=game.file.bleed_mm,
                         shape=ctype.shape)
        key = (size.width_mm, size.height_mm, ctype.shape)
        if key not in groups:
            cols, rows = grid_for(spec, PAPER_SIZES[paper])
            is_card = ctype.shape == "rect" and (size.width_mm, size.height_mm) == (card.width_mm, card.height_mm)
            label = "cards" if is_card and cols * rows else ctype.label
            groups[key] = Group(label, spec, [], cols * rows == 0, size.corner_radius_mm)
        front = files[rendered.faces[piece.id].key].pdf
        back_face = rendered.backs.get(ctype.deck)
        back = files[back_face.key].pdf if back_face else None
        # the label is printed in a tiled component's footer: the card's name in the build's
        # language, numbered when several copies are tiled (two camp maps: "1/2", "2/2")
        numbered = groups[key].tiled and piece.count > 1
        groups[key].slots += [Slot(front, back, f"{piece.name} {n}/{piece.count}" if numbered else piece.name)
                              for n in range(1, piece.count + 1)]
    return [g for g in groups.values() if g.slots]


def card_size(snapshot: Snapshot) -> Size:
    """The game's card size (game.yml `card_size`): a cutting machine's sheets are a grid of it."""
    ref = snapshot.game.file.card_size
    return ref if isinstance(ref, Size) else snapshot.game.file.sizes.get(ref) or NAMED_SIZES[ref]


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
    outputs: list[Output] = []
    prefix = update_prefix(options.only_cards is not None)
    title = f"{snapshot.game.name} - {snapshot.info.title or 'version ' + snapshot.version}"
    sheets = _Sheets(project, snapshot, options, out_dir, manifest, title)
    for paper_name in options.papers:
        groups = sheet_groups(snapshot, rendered, files, options.only_cards, paper_name)
        modes = print_files(groups, options.duplex)
        written = []
        for mode, mode_groups in modes.items():
            written.append(sheets_name(paper_name, mode, prefix=prefix))
            home = sheets.home(paper_name, mode, mode_groups, prefix)
            if home is not None:
                outputs.append(home)
        if options.cutter is not None:
            cutter_outputs, names = sheets.cutter(paper_name, modes, card_size(snapshot), prefix)
            outputs += cutter_outputs
            written += names
        _remove_stale(out_dir, prefix, paper_name, set(written))
    return outputs


class _Sheets:
    """Writes one paper's print files (home and cutter), skipping a file whose inputs are unchanged."""

    def __init__(self, project: Project, snapshot: Snapshot, options: BuildOptions, out_dir: Path,
                 manifest: cache_mod.Manifest, title: str):
        self.project, self.snapshot, self.options = project, snapshot, options
        self.out_dir, self.manifest, self.title = out_dir, manifest, title
        self.font = project.fonts_dir / "AlegreyaSans-Regular.ttf"
        self.text = page_text(snapshot.language)  # cardgen's notice and footers, in the game's language
        self.style: CutStyle = CUT_STYLES[options.cuts]
        self.footer = f"{snapshot.game.name} {snapshot.version}"

    def _inputs(self, *parts) -> str:
        return cache_mod.digest_of(CODE_VERSION, cache_mod.toolchain_version(), *parts,
                                   fonts_digest(self.project.fonts_dir), catalog_digest(self.snapshot.language))

    @staticmethod
    def _slots(groups: list[Group]) -> list:
        return [(g.label, g.spec, g.tiled, g.radius_mm, [(s.front.name, s.back.name if s.back else None, s.label)
                                                        for s in g.slots]) for g in groups]

    def home(self, paper_name: str, mode: str, groups: list[Group], prefix: str) -> Output | None:
        """The home sheets of one print mode; None when the user edited the file cardgen wrote
        (it stays as it is, and is said so: cardgen.outputs)."""
        out = self.out_dir / sheets_name(paper_name, mode, prefix=prefix)
        x, y = self.options.back_offset_mm if mode == "duplex" else (0.0, 0.0)
        offset = (float(x), float(y))
        inputs = self._inputs(paper_name, mode, offset, self.style, self._slots(groups))
        what = f"print sheets, {paper_name.upper()}, " + (
            "duplex (flip on long edge)" if mode == "duplex" else "one-sided")
        if self.manifest.fresh(out, inputs):
            pages = _pages(out)
            return Output(out, what, pages, rebuilt=False, sheets=_paper(pages, mode))
        if keeps(out):
            return None
        paper = PAPER_SIZES[paper_name]
        file_title = f"{self.title} - print sheets, {paper.name}, {mode}"
        imposed = [PieceGroup(g.spec, g.slots, g.label) for g in groups if not g.tiled]
        tiled = [TiledComponent(slot, self.snapshot.game.file.bleed_mm, g.label)
                 for g in groups if g.tiled for slot in g.slots]
        result = impose_groups(imposed, paper, out, duplex=mode == "duplex", title=file_title, font_path=self.font,
                               back_offset_mm=offset, footer=self.footer, gettext=self.text, style=self.style,
                               tiled=tiled)
        self.manifest.record(out, inputs)
        return Output(out, what, result.pages, sheets=_paper(result.pages, mode),
                      details=result.layouts + _report_lines(result, self.style))

    def cutter(self, paper_name: str, modes: dict[str, list[Group]], card: Size,
               prefix: str) -> tuple[list[Output], list[str]]:
        """The cutting machine's sheets of every mode, on one grid of the card size, and its cut file;
        with the names of every file this build makes (those the user edited stay unmade)."""
        assert self.options.cutter is not None
        cutter = CUTTERS[self.options.cutter]
        paper = PAPER_SIZES[paper_name]
        groups = [g for gs in modes.values() for g in gs]
        spec = next((g.spec for g in groups if g.spec.shape == "rect" and (g.spec.trim_w_mm, g.spec.trim_h_mm)
                     == (card.width_mm, card.height_mm)), None) or SheetSpec(card.width_mm, card.height_mm,
                                                                             self.snapshot.game.file.bleed_mm)
        cells = cutter_layout(spec, paper, cutter)
        if cells is None:
            raise BuildError(f"--cutter {cutter.name}: a {spec.trim_w_mm:g} x {spec.trim_h_mm:g} mm card does not fit "
                             f"the area the {cutter.label} cuts on {paper.name}")
        outputs: list[Output] = []
        names: list[str] = []
        for mode, mode_groups in modes.items():
            made, output = self._cutter_sheets(paper_name, mode, mode_groups, cells, cutter.name, prefix)
            if made:
                names.append(sheets_name(paper_name, mode, cutter.name, prefix))
            if output is not None:
                outputs.append(output)
        if names:
            names.append(cutlines_name(paper_name, cutter.name, prefix))
            cut = self._cut_file(paper_name, cells, card.corner_radius_mm, cutter.name, prefix)
            if cut is not None:
                outputs.append(cut)
        return outputs, names

    def _cutter_sheets(self, paper_name: str, mode: str, groups: list[Group], cells: SheetLayout, name: str,
                       prefix: str) -> tuple[bool, Output | None]:
        """(whether this mode has cutter sheets, their output: None when the user edited the file)."""
        cutter = CUTTERS[name]
        fit = [g for g in groups if not g.tiled and _fits(g.spec, cells)]
        left = [g for g in groups if g not in fit]
        if not fit:
            return False, None
        out = self.out_dir / sheets_name(paper_name, mode, name, prefix)
        card = next((i for i, g in enumerate(fit) if (g.spec.trim_w_mm, g.spec.trim_h_mm, g.spec.shape)
                     == (cells.spec.trim_w_mm, cells.spec.trim_h_mm, cells.spec.shape)), None)
        if card is None:  # no cards of the grid's size in this mode: the cells hold the others
            fit.insert(0, Group("cards", cells.spec, [], False))
            card = 0
        inputs = self._inputs(paper_name, mode, name, cutter, cells, self._slots(fit))
        what = f"{cutter.label} sheets, {paper_name.upper()}, " + (
            "duplex (flip on long edge)" if mode == "duplex" else "one-sided")
        if self.manifest.fresh(out, inputs):
            pages = _pages(out)
            return True, Output(out, what, pages, rebuilt=False, sheets=_paper(pages, mode))
        if keeps(out):
            return True, None
        paper = PAPER_SIZES[paper_name]
        file_title = f"{self.title} - {cutter.label} sheets, {paper.name}, {mode}"
        result = impose_cells([PieceGroup(g.spec, g.slots, g.label) for g in fit], cells, card, paper, out,
                              page_marks=lambda page: registration_marks(page, cutter, cells.page_w, cells.page_h),
                              text_outside=frame_rect(cutter, cells.page_w, cells.page_h),
                              duplex=mode == "duplex", title=file_title, font_path=self.font, footer=self.footer,
                              gettext=self.text)
        self.manifest.record(out, inputs)
        orient = " landscape" if cells.landscape else ""
        details = [f"{cells.cols} x {cells.rows} cells a sheet{orient}, {cutter.gap_mm:g} mm apart "
                   f"({cells.x.outer_bleed:g} mm bleed), the same on every page: cut with "
                   f"{cutlines_name(paper_name, name, prefix)}"] + [line for line in result.layouts if "free space" in line]
        if left:
            home = sheets_name(paper_name, mode, prefix=prefix)
            details.append(f"not on these sheets (larger than a cell): {', '.join(g.label for g in left)}; "
                           f"print them from {home}")
        return True, Output(out, what, result.pages, sheets=_paper(result.pages, mode), details=details)

    def _cut_file(self, paper_name: str, cells: SheetLayout, radius: float, name: str, prefix: str) -> Output | None:
        cutter = CUTTERS[name]
        out = self.out_dir / cutlines_name(paper_name, name, prefix)
        paper = PAPER_SIZES[paper_name]
        orient = "landscape" if cells.landscape else "portrait"
        title = (f"{self.title} - cut lines for the {cutter.label}, {paper.name} {orient}: "
                 f"{cells.cols * cells.rows} cells of {cells.spec.trim_w_mm:g} x {cells.spec.trim_h_mm:g} mm")
        text = cut_svg(cells, radius, title)
        what = f"cut file, {paper_name.upper()} {orient}, {cutter.label}"
        inputs = self._inputs(text)
        if not self.manifest.fresh(out, inputs):
            if keeps(out):
                return None
            write_text(out, text)
            self.manifest.record(out, inputs)
        return Output(out, what, 0, details=[f"{cells.cols * cells.rows} outlines, corner radius {radius:g} mm, "
                                             f"page {cells.page_w:g} x {cells.page_h:g} mm"])


def _fits(spec: SheetSpec, cells: SheetLayout) -> bool:
    """Do pieces of `spec` go into the grid: they are its cards, or fit a cell with their bleed."""
    if (spec.trim_w_mm, spec.trim_h_mm, spec.shape) == (cells.spec.trim_w_mm, cells.spec.trim_h_mm, cells.spec.shape):
        return True
    keep = 2 * loose_bleed(spec)
    return (spec.trim_w_mm + keep <= cells.spec.trim_w_mm + EPS_MM
            and spec.trim_h_mm + keep <= cells.spec.trim_h_mm + EPS_MM)


def _report_lines(result: ImposedSheets, style: CutStyle) -> list[str]:
    """What the summary says beyond the grids: the least bleed kept, and how full the sheets are."""
    lines = []
    if result.least_bleed is not None:
        shared = " (neighbours share a cut: cut exactly on the marks)" if result.least_bleed < EPS_MM else ""
        lines.append(f"smallest bleed at a cut: {result.least_bleed:.1f} mm{shared}, {style.name} cuts")
    if result.used:
        lines.append(f"sheets used {min(result.used):.0%} to {max(result.used):.0%}")
    return lines


def _remove_stale(out_dir: Path, prefix: str, paper: str, keep: set[str]) -> None:
    """Sheet and cut files of this paper an earlier build wrote that this one does not: a
    one-sided file after --fronts-only, the cutter files after a build without --cutter, or
    `sheets-<paper>.pdf` from before files were split by print mode. Through the output guard:
    only files cardgen recorded, still as it wrote them, are deleted."""
    names = {old_sheets_name(paper, prefix)}
    names |= {sheets_name(paper, mode, cutter, prefix) for mode in PRINT_MODES for cutter in (None, *CUTTER_NAMES)}
    names |= {cutlines_name(paper, cutter, prefix) for cutter in CUTTER_NAMES}
    remove_stale(out_dir, keep, owned=lambda name: name in names)


def _paper(pages: int, mode: str) -> int:
    return pages // 2 if mode == "duplex" else pages


def _pages(path: Path) -> int:
    with pikepdf.open(path) as pdf:
        return len(pdf.pages)
