"""The print services, from ONE table (services.yml beside this file), for every export.

`export print` (PDF) and `export png` read the same rows, so a service's bleed, image size and
page order cannot disagree between the two. The table is validated on load: a product's image
must be exactly its trim plus the service's bleed on every side at the service's DPI (822 x 1122
px for MakePlayingCards' 2.5 x 3.5 in card is 0.12 in of bleed, not 0.13).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

TABLE = Path(__file__).with_name("services.yml")
INCH_MM = 25.4
PX_TOLERANCE = 0.5  # a product's image is trim + 2 x bleed at the DPI, to the pixel


class Product(BaseModel):
    """A product with a fixed image size (a service's poker card)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    trim_in: tuple[float, float]
    image_px: tuple[int, int]

    @property
    def trim_mm(self) -> tuple[float, float]:
        return self.trim_in[0] * INCH_MM, self.trim_in[1] * INCH_MM


class Service(BaseModel):
    """One row of the table; lengths in inches as the services publish them."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    label: str
    exports: tuple[Literal["pdf", "png"], ...]
    bleed_in: float | None = Field(ge=0, le=1)  # None: the game's own bleed
    safe_in: float | None = Field(ge=0, le=1)
    corner_radius_in: float | None = Field(ge=0, le=1)
    dpi: int = Field(ge=72, le=2400)
    products: tuple[Product, ...]
    colour: Literal["rgb", "cmyk"] | None  # None: not published
    pdfx: Literal["PDF/X-1a:2003", "PDF/X-4"] | None
    ink_limit: int | None = Field(ge=100, le=400)  # % total ink; None: not published
    page_order: Literal["front-back", "back-front", "fronts-then-back"]
    png_naming: Literal["per-card", "per-copy"]

    @field_validator("exports")
    @classmethod
    def _some_export(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("a service must be offered by at least one export (pdf, png)")
        return value

    @model_validator(mode="after")
    def _images_match_bleed(self) -> Service:
        for product in self.products:
            if self.bleed_in is None:
                raise ValueError(f"{self.id}: product {product.name} has a fixed image size but the "
                                 "service no bleed")
            for axis in (0, 1):
                expected = (product.trim_in[axis] + 2 * self.bleed_in) * self.dpi
                if abs(product.image_px[axis] - expected) > PX_TOLERANCE:
                    raise ValueError(
                        f"{self.id}: product {product.name} is {product.image_px[0]} x {product.image_px[1]} px, "
                        f"but {product.trim_in[axis]} in + 2 x {self.bleed_in} in bleed at {self.dpi} DPI "
                        f"is {expected:g} px")
        if "pdf" in self.exports and self.pdfx is None:
            raise ValueError(f"{self.id}: a PDF service needs the PDF/X flavour its CMYK file is written in")
        return self

    def bleed_mm(self, game_bleed_mm: float) -> float:
        return game_bleed_mm if self.bleed_in is None else self.bleed_in * INCH_MM

    @property
    def pdfx_name(self) -> str:
        return self.pdfx or "PDF/X-4"

    @property
    def note(self) -> str:
        """What the listing says of the service: bleed, page order, the colour it asks for."""
        bleed = "the game's bleed" if self.bleed_in is None else f"{self.bleed_in:g} in bleed"
        order = {"front-back": "every front followed by its back",
                 "back-front": "every back followed by its front",
                 "fronts-then-back": "all fronts, then the deck's back once, last"}[self.page_order]
        wants = ""
        if self.colour == "cmyk":
            limit = f", total ink at most {self.ink_limit} %" if self.ink_limit else ""
            wants = f"; the shop asks for CMYK ({self.pdfx_name}{limit}): use --cmyk"
        return f"{bleed}; {order}{wants}"


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid")
    services: dict[str, dict]


@functools.cache
def services() -> dict[str, Service]:
    """Every service of the table, by id, in the table's order."""
    raw = _Table.model_validate(yaml.safe_load(TABLE.read_text(encoding="utf-8")))
    return {key: Service.model_validate({"id": key, **row}) for key, row in raw.services.items()}


def service(name: str) -> Service:
    return services()[name]


def for_export(kind: Literal["pdf", "png"]) -> dict[str, Service]:
    """The services an export offers (`export print --service`: pdf; `export png --preset`: png)."""
    return {key: s for key, s in services().items() if kind in s.exports}
