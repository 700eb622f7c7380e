"""The preview's data: what the page shows, refreshed from the project's files.

The same stages as a build (load -> resolve -> the card stage: validate, render SVG,
preflight; then the documents' templates filled in, as `validate` does), without rasterising or
laying pages out: a browser draws SVG itself, and the page lists exactly the findings `build` and
`validate` report (`rulebook.check.build_findings`). The preview keeps the card stage's cache across
refreshes (`cardstage.FaceCache`: each face with the hash of what it was drawn from), so an edit
to one card re-renders one card.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..buildtypes import Face
from ..cardstage import FaceCache, draw_cards, face_items
from ..data.project import load_project
from ..data.snapshot import Card, Snapshot
from ..data.versions import available_versions, load_game, resolve
from ..errors import CardgenError, display_path
from ..files import BuildFiles, Files
from ..i18n.localise import localise
from ..rulebook.check import build_findings

ID_ATTR_RE = re.compile(r'\bid="([^"]+)"')


@dataclass
class PreviewCard:
    key: str  # face key: "card-katana-hilt", "back-market"
    name: str
    kind: str  # "face" | "back"
    deck: str
    count: int
    width_mm: float
    height_mm: float
    svg: str
    digest: str  # of the SVG: the page replaces a card only when this changes


@dataclass
class PreviewState:
    serial: int = 0  # bumps on every refresh that changed anything
    game: str = ""
    game_name: str = ""
    version: str = ""
    lang: str = ""
    source_lang: str = ""
    previous: str | None = None  # the version before this one, for the diff link
    cards: list[PreviewCard] = field(default_factory=list)
    decks: list[dict[str, Any]] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    error: str | None = None  # a broken file: one line per problem, the last good cards stay shown
    rendered: int = 0  # cards re-rendered by the last refresh

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        for card in data["cards"]:
            del card["svg"]  # fetched per card, only when its digest changed
        return data


class Preview:
    """Holds the current state; `refresh()` reloads the project and renders what changed."""

    def __init__(self, root: Path, game: str | None, version: str | None, lang: str | None = None):
        self.root = Path(root)
        self.game_id = game
        self.version = version
        self.lang = lang  # None: the game's source language
        self.state = PreviewState()
        self.lock = threading.Lock()
        self._faces = FaceCache()  # the card stage's, kept across refreshes

    def refresh(self) -> PreviewState:
        """Reload everything; on a user error keep the last good cards and show the error."""
        with self.lock:
            try:
                new = self._load()
            except CardgenError as exc:
                new = dataclasses.replace(self.state, error="\n".join(exc.report_lines()), rendered=0)
            if _signature(new) != _signature(self.state):
                new.serial = self.state.serial + 1
            else:
                new.serial = self.state.serial
            self.state = new
            return new

    def svg(self, key: str) -> str | None:
        for card in self.state.cards:
            if card.key == key:
                return card.svg
        return None

    def _load(self) -> PreviewState:
        project = load_project(self.root)
        game = load_game(project, self.game_id)
        snapshot = localise(resolve(project, game, self.version), self.lang)
        drawn = draw_cards(project, snapshot, self._faces)
        findings = build_findings(project, snapshot, drawn)  # the documents' templates too, as validate
        last = {card.key: card for card in self.state.cards}
        cards: list[PreviewCard] = []
        for key, item in face_items(snapshot):
            face = drawn.rendered.faces.get(item.id) if isinstance(item, Card) else drawn.rendered.backs.get(item)
            if face is not None:
                cards.append(_preview_card(snapshot, key, item, face))
            elif key in last:  # it failed (or the data did): the last good picture stays shown
                cards.append(last[key])
        return PreviewState(
            game=game.id,
            game_name=game.name,
            version=snapshot.version,
            lang=snapshot.language,
            source_lang=game.file.language,
            previous=_previous(project, game, snapshot.version),
            cards=cards,
            decks=[{"id": d, "name": deck.name, "cards": snapshot.deck_size(d),
                    "different": len(snapshot.cards_in_deck(d))}
                   for d, deck in game.decks.items() if snapshot.cards_in_deck(d)],
            findings=[str(f) for f in findings],
            error="\n".join(str(f) for f in findings if f.severity == "error") or None,
            rendered=drawn.drawn,
        )


def _preview_card(snapshot: Snapshot, key: str, item: Card | str, face: Face) -> PreviewCard:
    svg = _namespaced_ids(face.svg, key)
    if isinstance(item, Card):
        deck = snapshot.game.card_types[item.type].deck
        name, kind, count = item.name, "face", item.count
    else:
        deck, kind, count = item, "back", snapshot.deck_size(item)
        name = f"Back of {snapshot.game.decks[item].name}"
    return PreviewCard(key, name, kind, deck, count, face.width_mm, face.height_mm, svg,
                       hashlib.sha256(svg.encode("utf-8")).hexdigest()[:16])


def _namespaced_ids(svg: str, key: str) -> str:
    """Cards are inlined in one page: prefix their ids so that two cards' gradients never clash."""
    ids = set(ID_ATTR_RE.findall(svg))
    for name in sorted(ids, key=len, reverse=True):
        new = f"{key}--{name}"
        svg = svg.replace(f'id="{name}"', f'id="{new}"').replace(f"url(#{name})", f"url(#{new})")
        svg = svg.replace(f'href="#{name}"', f'href="#{new}"')
    return svg


def _previous(project, game, version: str) -> str | None:
    known = available_versions(project, game)
    i = known.index(version) if version in known else -1
    return known[i - 1] if i > 0 else None


def _signature(state: PreviewState) -> str:
    data = state.to_json()
    data.pop("serial")
    data.pop("rendered")
    return json.dumps(data, sort_keys=True, default=str)


def build_dir(root: Path, state: PreviewState) -> Path:
    """Where `cardgen build` writes this version in this language."""
    return Files(load_project(root).build_dir).version(state.game, state.version, state.lang, state.source_lang).root


def build_files(root: Path, state: PreviewState) -> list[dict[str, str]]:
    """The version's built PDFs (sheets, rulebook, notes), if `cardgen build` has made them."""
    return [{"name": p.name, "url": f"/files/{p.name}", "path": display_path(p)}
            for p in BuildFiles(build_dir(root, state)).documents()]
