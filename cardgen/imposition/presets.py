"""How sheets are cut, as data: the cut styles of home sheets and the cutting machines' marks.

A cut style says how much bleed a piece keeps at every cut. `forgiving` (the default) keeps at
least 1 mm of the piece's own bleed on both sides of every cut, outer edges included: a cut that
lands a hair (up to 1 mm) off the mark still shows only the piece's own colour. `dense` lets
neighbours share one cut (butted, no bleed between them) and keeps the outer bleed the paper
allows, for more pieces a sheet: every cut must then land exactly on its marks.

A cutter preset says where a cutting machine looks for its registration marks and what they look
like. The figures are the published ones (cited beside each); `inset_mm` and `length_mm` are
the two a user most often changes in the machine's software, so they are plain fields.
"""

from __future__ import annotations

from dataclasses import dataclass

MM_PER_IN = 25.4


@dataclass(frozen=True)
class CutStyle:
    name: str
    min_bleed_mm: float  # least bleed kept at every cut; 0: neighbours may share a cut
    summary: str         # one line for --help and the docs


CUT_STYLES: dict[str, CutStyle] = {
    "forgiving": CutStyle("forgiving", 1.0, "every cut keeps at least 1 mm of bleed on both sides"),
    "dense": CutStyle("dense", 0.0, "neighbours may share a cut: more pieces a sheet, cut exactly on the marks"),
}
DEFAULT_CUT_STYLE = "forgiving"


@dataclass(frozen=True)
class Cutter:
    """A print-and-cut machine: its registration marks, in mm, and the area it cuts.

    kind "corners": Silhouette's three marks, a filled square at the top-left corner and L marks
    at the top-right and bottom-left; each mark's corner lies `inset_mm` from both paper edges
    and its arms (`length_mm`, `thickness_mm` thick) point inwards. kind "frame": Cricut's Print
    Then Cut, a black rectangle `thickness_mm` thick drawn `frame_gap_mm` outside the print area,
    which is centred on the page and at most `max_area_mm` (width, height; portrait).
    """

    name: str
    label: str
    kind: str
    inset_mm: float = 10.0
    length_mm: float = 5.0
    thickness_mm: float = 1.0
    square_mm: float = 5.0
    max_area_mm: tuple[float, float] | None = None
    frame_gap_mm: float = 0.0
    clearance_mm: float = 2.0  # pieces (with their bleed) keep this far from every mark
    gap_mm: float = 1.25       # between neighbouring pieces, half of it bleed (Silhouette Card Maker's)


CUTTERS: dict[str, Cutter] = {
    # Silhouette Card Maker's published defaults (SPECIFICATION.md and assets/layouts.json of
    # Alan-Cha/silhouette-card-maker): inset 10 mm, marks 5 mm long and 1 mm thick, a 5 mm square,
    # cards 1.25 mm apart with at most 0.625 mm of bleed (a machine cuts within a fraction of a mm).
    "silhouette": Cutter("silhouette", "Silhouette Cameo / Portrait (Silhouette Studio)", "corners",
                         inset_mm=10.0, length_mm=5.0, thickness_mm=1.0, square_mm=5.0),
    # Cricut's help page "How large can I Print Then Cut?" (help.cricut.com, article 360009429814):
    # 6.75 x 9.25 in on every machine; Explore 3 / Maker 3 allow more (Letter 7.44 x 9.94 in,
    # A4 7.2 x 10.62 in), so the smaller area serves every machine.
    "cricut": Cutter("cricut", "Cricut (Design Space, Print Then Cut)", "frame", length_mm=0.0,
                     thickness_mm=1.0, max_area_mm=(6.75 * MM_PER_IN, 9.25 * MM_PER_IN), frame_gap_mm=3.0),
}
