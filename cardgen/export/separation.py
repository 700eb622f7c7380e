"""RGB colours to the CMYK inks of a printing condition, by littleCMS (Pillow's ImageCms).

The design's colours are sRGB. Each one is converted to the output profile with the relative
colorimetric intent and black point compensation (what prepress tools use for graphics), then
three house rules of prepress apply:

- black text and black lines print in black ink only (0/0/0/100): four inks in thin type
  never register exactly, so a near-black (CIE L* <= 25, chroma <= 12: the templates' "ink"
  colours #1f1a17 and #2a211b) drawn as text or a stroke becomes pure K;
- neutral greys (R = G = B) print in black ink only, at the K that gives their lightness;
- no colour exceeds the service's total ink limit: a colour over it is replaced by the
  in-limit mix (CMY scaled down, K raised) whose colour, read back through the same profile,
  is closest to the converted one (CIE76 delta E).

The profile is Ghostscript's CMYK output profile (`default_cmyk.icc`, "Artifex CMYK SWOP
Profile"), which the `ghostscript` package installs (Debian: libgs-common); the OutputIntent
names its printing condition, SWOP (CGATS TR 001), the one DriveThruCards asks for.
"""

from __future__ import annotations

import functools
import io
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageCms

from ..errors import BuildError

BLACK_L = 25.0       # L* at or below which a neutral-ish text or line colour is "black"
BLACK_CHROMA = 12.0  # and its chroma at most this

# The printing condition the profile characterises, as the OutputIntent names it (ICC registry).
CONDITION_ID = "CGATS TR 001"
CONDITION = "SWOP (Specifications for Web Offset Publications), coated"
REGISTRY = "http://www.color.org"


@dataclass(frozen=True)
class OutputProfile:
    path: Path
    data: bytes
    description: str


def ghostscript() -> str:
    exe = shutil.which("gs")
    if exe is None:
        raise BuildError("--cmyk needs Ghostscript's CMYK profile, and Ghostscript (`gs`) is not installed "
                         "(Debian/Ubuntu: apt-get install ghostscript; macOS: brew install ghostscript)")
    return exe


def output_profile() -> OutputProfile:
    """Ghostscript's default CMYK profile, found next to its library folders on its search path."""
    return _profile_of(ghostscript())


@functools.cache  # per Ghostscript: the same `gs` gives the same profile for the whole run
def _profile_of(gs: str) -> OutputProfile:
    run = subprocess.run([gs, "-h"], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        said = (run.stderr or run.stdout).strip().splitlines()
        raise BuildError(f"Ghostscript ({gs}) failed to start (exit {run.returncode})"
                         + (f": {said[-1]}" if said else ""))
    for folder in re.findall(r"(/[^\s:]+)", run.stdout.split("Search path:")[-1]):
        candidate = Path(folder).parent / "iccprofiles" / "default_cmyk.icc"
        if candidate.is_file():
            data = candidate.read_bytes()
            try:
                profile = ImageCms.ImageCmsProfile(io.BytesIO(data))
                description = ImageCms.getProfileDescription(profile).strip()
            except (OSError, ImageCms.PyCMSError) as exc:
                raise BuildError(f"{candidate}: Ghostscript's CMYK profile is not a readable ICC profile "
                                 f"({exc}); reinstall Ghostscript") from None
            return OutputProfile(candidate.resolve(), data, description)
    raise BuildError("Ghostscript's default_cmyk.icc was not found next to its library folders "
                     f"({gs} -h lists them); reinstall Ghostscript")


class Separation:
    """sRGB -> CMYK (fractions 0..1) for one printing condition and ink limit, cached per colour."""

    def __init__(self, profile: OutputProfile, ink_limit: int | None):
        import io

        self.profile = profile
        self.ink_limit = ink_limit
        cmyk = ImageCms.ImageCmsProfile(io.BytesIO(profile.data))
        srgb = ImageCms.createProfile("sRGB")
        lab = ImageCms.createProfile("LAB", 5000)
        flags = ImageCms.Flags.BLACKPOINTCOMPENSATION | ImageCms.Flags.HIGHRESPRECALC
        relative = ImageCms.Intent.RELATIVE_COLORIMETRIC
        self._to_cmyk = ImageCms.buildTransform(srgb, cmyk, "RGB", "CMYK", relative, flags)
        self._rgb_lab = ImageCms.buildTransform(srgb, lab, "RGB", "LAB", relative, ImageCms.Flags.HIGHRESPRECALC)
        self._cmyk_lab = ImageCms.buildTransform(cmyk, lab, "CMYK", "LAB", relative, ImageCms.Flags.HIGHRESPRECALC)
        self._cache: dict[tuple[tuple[int, int, int], str], tuple[float, float, float, float]] = {}
        self._k_lightness = self._lab([(0, 0, 0, k) for k in range(256)], "CMYK")

    # --- littleCMS on lists of colours ---------------------------------------------------------

    def _run(self, transform, colours: Sequence[tuple[int, ...]], mode: str) -> list[tuple[int, ...]]:
        image = Image.frombytes(mode, (len(colours), 1), bytes(v for colour in colours for v in colour))
        out = Image.new(transform.output_mode, image.size)
        transform.transform.apply(image.getim(), out.getim())  # without copying the profile each time
        data, bands = out.tobytes(), len(transform.output_mode)
        return [tuple(data[i:i + bands]) for i in range(0, len(data), bands)]

    def _lab(self, colours: Sequence[tuple[int, ...]], mode: str) -> list[tuple[float, float, float]]:
        """CIELAB (L* 0..100, a*, b*) of 8-bit RGB or CMYK colours."""
        out = self._run(self._rgb_lab if mode == "RGB" else self._cmyk_lab, colours, mode)
        # Pillow's LAB: L* scaled to 0..255, a* and b* as signed bytes
        return [(v[0] * 100 / 255, v[1] - 256 * (v[1] > 127), v[2] - 256 * (v[2] > 127)) for v in out]

    # --- the separation ------------------------------------------------------------------------

    def cmyk(self, rgb: tuple[float, float, float], kind: str = "fill") -> tuple[float, float, float, float]:
        """The inks for an sRGB colour (components 0..1) painted as `kind` (fill, stroke, text)."""
        key = (tuple(max(0, min(255, round(v * 255))) for v in rgb), "line" if kind in ("stroke", "text") else kind)
        cached = self._cache.get(key)  # type: ignore[arg-type]
        if cached is None:
            cached = self._separate(*key)  # type: ignore[arg-type]
            self._cache[key] = cached  # type: ignore[index]
        return cached

    def _separate(self, rgb: tuple[int, int, int], kind: str) -> tuple[float, float, float, float]:
        (lightness, a, b), = self._lab([rgb], "RGB")
        if kind == "line" and lightness <= BLACK_L and (a * a + b * b) ** 0.5 <= BLACK_CHROMA:
            return (0.0, 0.0, 0.0, 1.0)
        if rgb[0] == rgb[1] == rgb[2]:
            k = min(range(256), key=lambda i: abs(self._k_lightness[i][0] - lightness))
            return (0.0, 0.0, 0.0, k / 255)
        (c, m, y, k), = self._run(self._to_cmyk, [rgb], "RGB")
        limit = None if self.ink_limit is None else self.ink_limit * 255 // 100
        if limit is not None and c + m + y + k > limit:
            c, m, y, k = self._within_limit((c, m, y, k), limit)
        return (c / 255, m / 255, y / 255, k / 255)

    def _within_limit(self, cmyk: tuple[int, int, int, int], limit: int) -> tuple[int, int, int, int]:
        """The in-limit ink mix closest in colour to `cmyk`: CMY scaled, K raised, judged by
        the profile's own reading of each candidate."""
        c, m, y, k = cmyk
        candidates = []
        for k2 in sorted({*range(k, 256, 3), 255}):
            for step in range(0, 101, 2):
                s = step / 100
                mix = (int(c * s), int(m * s), int(y * s), k2)
                if sum(mix) <= limit:
                    candidates.append(mix)
        target = self._lab([cmyk], "CMYK")[0]
        labs = self._lab(candidates, "CMYK")
        best = min(range(len(candidates)),
                   key=lambda i: sum((labs[i][j] - target[j]) ** 2 for j in range(3)))
        return candidates[best]

    def max_ink(self) -> int:
        """The service's ink limit in %, or None's stand-in: the profile's own (what it can reach)."""
        return self.ink_limit if self.ink_limit is not None else 400
