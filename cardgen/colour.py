"""Colour arithmetic for the preflight: alpha blending and WCAG 2 contrast ratios."""

from __future__ import annotations

import functools


def rgb(colour: str) -> tuple[int, int, int]:
    c = colour.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


@functools.lru_cache(maxsize=4096)  # the preflight blends the same few colours for every text
def blend(under: str, over: str, alpha: float) -> str:
    """`over` painted at `alpha` on `under` (sRGB values, as cairo composites them)."""
    a = max(0.0, min(1.0, alpha))
    mixed = (round(u * (1 - a) + o * a) for u, o in zip(rgb(under), rgb(over)))
    return "#" + "".join(f"{v:02x}" for v in mixed)


@functools.lru_cache(maxsize=4096)
def luminance(colour: str) -> float:
    """WCAG 2 relative luminance."""
    def channel(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(v) for v in rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


INK_DARK = "#1f1a17"
INK_LIGHT = "#ffffff"


def ink_on(background: str, dark: str = INK_DARK, light: str = INK_LIGHT) -> str:
    """The text colour (dark or light) that reads better on `background`."""
    return light if contrast_ratio(light, background) >= contrast_ratio(dark, background) else dark
