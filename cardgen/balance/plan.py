"""What a balance run asks: `--vary CARD.FIELD=LOW..HIGH` and `--target NAME[:BAND]`, checked
against the resolved version before any game is played (one line, exit 2, on a mistake)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..data.cardvalues import current_value, parse_path
from ..data.snapshot import Snapshot
from ..errors import InputError

TARGETS = ("cards", "strategies", "seats", "length")
DEFAULT_BAND = 0.05  # five percentage points around the mean / the fair share
NUMBER = r"-?[0-9]+(?:\.[0-9]+)?"
RANGE = re.compile(rf"^({NUMBER})\.\.({NUMBER})$")


@dataclass(frozen=True)
class Vary:
    path: str  # e.g. katana-hilt.points
    low: int | float
    high: int | float
    integer: bool
    current: Any  # the value in the version as it is

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.path, "low": self.low, "high": self.high, "current": self.current}


@dataclass(frozen=True)
class Target:
    name: str
    band: float = DEFAULT_BAND  # cards, strategies, seats: the share either side of the mean or fair share
    low: float = 0.0  # length: the range of mean rounds
    high: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        if self.name == "length":
            return {"name": self.name, "rounds": [self.low, self.high]}
        return {"name": self.name, "band": self.band}

    def describe(self) -> str:
        if self.name == "length":
            return f"length: mean rounds from {self.low:g} to {self.high:g}"
        what = {"cards": "every card's completer win rate within ±{b} of its type's mean (the loss: the varied cards')",
                "strategies": "no strategy's win rate more than {b} above the fair share",
                "seats": "every seat's win rate within ±{b} of the fair share"}[self.name]
        return f"{self.name}: " + what.format(b=f"{100 * self.band:g} pp")


def parse_vary(snapshot: Snapshot, text: str) -> Vary:
    name, eq, span = text.partition("=")
    m = RANGE.match(span.strip())
    if not eq or not m:
        raise InputError(f"--vary {text}: expected CARD.FIELD=LOW..HIGH (e.g. katana-hilt.points=1..6)")
    path = parse_path(snapshot, name.strip())
    spec = path.spec
    integer = spec.type == "int"
    low_text, high_text = m.groups()
    if integer and ("." in low_text or "." in high_text):
        raise InputError(f"--vary {text}: {path.text} is a whole number; expected whole bounds", path.spec_loc)
    low, high = (int(low_text), int(high_text)) if integer else (float(low_text), float(high_text))
    if low >= high:
        raise InputError(f"--vary {text}: expected LOW below HIGH")
    if (spec.min is not None and low < spec.min) or (spec.max is not None and high > spec.max):
        lo = "" if spec.min is None else f"{spec.min:g}"
        hi = "" if spec.max is None else f"{spec.max:g}"
        raise InputError(f"--vary {text}: {path.text} lies in {lo}..{hi} (its type in game.yml); "
                         f"{low}..{high} goes outside it", path.spec_loc)
    return Vary(path.text, low, high, integer, current_value(snapshot, path))


def parse_target(text: str, players: int, bots: tuple[str, ...]) -> Target:
    name, colon, arg = text.partition(":")
    if name not in TARGETS:
        raise InputError(f"--target {text}: expected one of {', '.join(TARGETS)}")
    if name == "length":
        m = RANGE.match(arg.strip())
        if not m or float(m.group(1)) >= float(m.group(2)):
            raise InputError(f"--target {text}: expected length:LOW..HIGH in mean rounds (e.g. length:10..14)")
        return Target(name, low=float(m.group(1)), high=float(m.group(2)))
    band = DEFAULT_BAND
    if colon:
        try:
            band = float(arg) / 100
        except ValueError:
            band = -1.0
        if not 0 < band < 1:
            raise InputError(f"--target {text}: expected a band in percentage points above 0 and below 100 "
                             f"(e.g. {name}:5)")
    if name == "seats" and players < 2:
        raise InputError(f"--target {text}: needs at least 2 players")
    if name == "strategies" and len(set(bots)) < 2:
        raise InputError(f"--target {text}: needs at least 2 different bots (--bots)")
    return Target(name, band=band)


def check_measurable(targets: list[Target], sim: Any) -> None:
    """A target the game's simulation cannot measure is an error before any game is played."""
    for t in targets:
        if t.name == "cards" and not getattr(sim, "card_info", None):
            raise InputError("--target cards: this game's simulation names no playable cards (card_info), "
                             "so card strength cannot be measured")
