"""PNG output: every PNG says it is sRGB at its DPI.

Print services read a PNG without a pHYs chunk as 72 DPI and one without a profile as
"unknown RGB". The sRGB profile comes from littleCMS (through Pillow's ImageCms), with its
creation date fixed so that the same image always gives the same bytes.
"""

from __future__ import annotations

import functools
import io

from PIL import Image, ImageCms

FIXED_DATE = bytes([0x07, 0xD0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0])  # 2000-01-01 00:00:00, ICC header bytes 24-35


@functools.cache
def srgb_profile() -> bytes:
    """An ICC v2 sRGB profile; byte-for-byte the same on every run (no profile ID is set)."""
    data = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    data[24:36] = FIXED_DATE
    return bytes(data)


def png_bytes(image: Image.Image, dpi: int = 300) -> bytes:
    """PNG with a pHYs chunk for `dpi` and the sRGB profile, nothing time-dependent."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False, dpi=(dpi, dpi), icc_profile=srgb_profile())
    return buffer.getvalue()
