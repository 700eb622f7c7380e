"""Plain data for imposition: papers, pieces, sheet specs and what a build reports back.

Every length is in millimetres (conversion to points happens only when the PDF is written,
through `cardgen.units`). Every position is measured from the page's BOTTOM-LEFT corner, the
PDF convention, so recorded geometry can be compared with the content stream directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..buildtypes import PAPER_SIZES, Paper  # noqa: F401  (re-exported: the imposition's papers)

EPS_MM = 1e-6  # tolerance for "fits exactly" comparisons of float millimetres


@dataclass(frozen=True)
class Rect:
    """Axis-aligned rectangle in mm, (x, y) = bottom-left corner."""

    x: float
    y: float
    w: float
    h: float

    @property
    def x1(self) -> float:
        return self.x + self.w

    @property
    def y1(self) -> float:
        return self.y + self.h

    def intersects(self, other: Rect) -> bool:
        """True when the interiors overlap (touching edges do not count)."""
        return (self.x < other.x1 - EPS_MM and other.x < self.x1 - EPS_MM
                and self.y < other.y1 - EPS_MM and other.y < self.y1 - EPS_MM)

    def contains(self, x: float, y: float) -> bool:
        """Point inside or on the border."""
        return (self.x - EPS_MM <= x <= self.x1 + EPS_MM
                and self.y - EPS_MM <= y <= self.y1 + EPS_MM)

    def expanded(self, left: float, bottom: float, right: float, top: float) -> Rect:
        return Rect(self.x - left, self.y - bottom, self.w + left + right, self.h + bottom + top)


@dataclass(frozen=True)
class Slot:
    """One copy of one component on a sheet."""

    front: Path        # one-page PDF including bleed
    back: Path | None  # one-page PDF including bleed, or None for a blank back
    label: str = ""    # the card's name (and copy number), printed in a tiled page's footer


@dataclass(frozen=True)
class SheetSpec:
    """Size and cutting style of the pieces imposed together on one run of sheets.

    shape "rect" gets crop marks; "circle" (round tokens, trim_w == trim_h == diameter) gets a
    circular cut line. margin_mm is the band at every paper edge that a home printer leaves
    blank: nothing that matters (a piece, a mark, page text) is put there. Gutters and the bleed
    kept follow from the paper, see `layout.fit_axis`.
    """

    trim_w_mm: float
    trim_h_mm: float
    bleed_mm: float = 3.0
    shape: str = "rect"
    margin_mm: float = 5.0

    def __post_init__(self) -> None:
        if self.trim_w_mm <= 0 or self.trim_h_mm <= 0:
            raise ValueError(f"trim size must be positive, got {self.trim_w_mm} x {self.trim_h_mm} mm")
        if self.bleed_mm < 0 or self.margin_mm < 0:
            raise ValueError("bleed and margin must not be negative")
        if self.shape not in ("rect", "circle"):
            raise ValueError(f"shape must be 'rect' or 'circle', got {self.shape!r}")
        if self.shape == "circle" and abs(self.trim_w_mm - self.trim_h_mm) > EPS_MM:
            raise ValueError("a circle needs trim_w_mm == trim_h_mm (the diameter)")


@dataclass(frozen=True)
class Placement:
    """One piece (or, for tile(), one region of the component) on one page.

    (x_mm, y_mm, w_mm, h_mm) is the trim box on the page, from the page's bottom-left corner;
    for tile() it is the region of the component printed on that page, and `source` is the
    same region in the component's own coordinates (mm from its bottom-left corner).
    """

    page: int
    slot: int
    side: str  # "front" | "back"
    x_mm: float
    y_mm: float
    w_mm: float
    h_mm: float
    source: Rect | None = None

    @property
    def rect(self) -> Rect:
        return Rect(self.x_mm, self.y_mm, self.w_mm, self.h_mm)


@dataclass(frozen=True)
class Mark:
    """Something drawn for cutting, assembling or checking, in page mm from the bottom-left corner.

    kind "crop":    a line from (x0, y0) to (x1, y1); (x0, y0) is the end nearer the pieces.
    kind "circle":  a cut circle centred on (x0, y0) with radius x1 - x0 (y1 == y0).
    kind "outline": a cut rectangle drawn on a piece, corners (x0, y0) and (x1, y1).
    kind "align":   a filled triangle whose axis runs from the middle of its base (x0, y0) to its
                    tip (x1, y1), pointing at an overlap boundary of tile().
    kind "scale":   a scale-check bar from (x0, y0) to (x1, y1), ticks every 10 mm.
    """

    page: int
    kind: str
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def length(self) -> float:
        return ((self.x1 - self.x0) ** 2 + (self.y1 - self.y0) ** 2) ** 0.5


@dataclass(frozen=True)
class Label:
    """A line of page text. (x_mm, y_mm) is the start of its baseline; angle 90 runs it upwards.
    `box` is the area its glyphs may cover (font ascent to descent), kept clear of marks."""

    page: int
    text: str
    x_mm: float
    y_mm: float
    size_pt: float
    box: Rect
    angle: int = 0


@dataclass
class ImposedSheets:
    """What impose() / tile() wrote: enough geometry to check every cut without reading the PDF."""

    path: Path
    pages: int
    per_page: int
    cols: int
    rows: int
    placements: list[Placement]
    marks: list[Mark] = field(default_factory=list)
    page_w_mm: float = 0.0
    page_h_mm: float = 0.0
    landscape: bool = False
    labels: list[Label] = field(default_factory=list)
    layouts: list[str] = field(default_factory=list)  # one line per kind of piece: grid, gutters, bleed
    duplex: bool = False

    @property
    def sheets_of_paper(self) -> int:
        return self.pages // 2 if self.duplex else self.pages
