"""The card stage: a version's data checked, every card face and deck back rendered to SVG, and
every face preflighted, in one loop with one error handling and one cache.

`build`, `validate`, `serve` and every export (`export tts|png|print`, the diff's faces) call
`draw_cards`, so they draw the same faces and report the same findings: the data checks
(data.validate, the game's plug-in included), a face that does not render (one error per cause:
a template line failing for every card is one finding), text that does not fit, the print
preflight, and the templates' strings the language's catalogs lack. Everything comes back in
the result; nothing is left on the snapshot.

With a `FaceCache` (the preview keeps one across edits), a face is drawn again only when what it
is drawn from changed: the card's own data with its locations (findings point at them), the
version's rules, style and symbols, the game's folder (game.yml, catalogs), the language's
words, the templates, icons and fonts. A template may read the whole snapshot (another card,
a deck's size); the key covers a card's own data, and a back's deck, not that.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from . import cache as cache_mod
from . import contain
from .buildtypes import Face, RenderedSet, Timing
from .data.project import Project
from .data.snapshot import Card, Snapshot
from .data.validate import ValidationFailed, finding_order
from .data.validate import validate as validate_data
from .errors import CardgenError, Finding
from .preflight import check_face
from .render.cards import CardRenderer, FaceNotes
from .render.fonts import FontSet
from .words import counted


@dataclass(frozen=True)
class DrawnFace:
    """One face as the stage draws it and the cache keeps it: the SVG, what rendering noticed,
    and its preflight findings (None until preflighted)."""

    face: Face
    notes: FaceNotes
    checks: tuple[Finding, ...] | None = None


class FaceCache:
    """Drawn faces by face key ("card-steel", "back-mine"), each with the digest of its inputs."""

    def __init__(self) -> None:
        self._faces: dict[str, tuple[str, DrawnFace]] = {}

    def get(self, key: str, digest: str) -> DrawnFace | None:
        kept = self._faces.get(key)
        return kept[1] if kept is not None and kept[0] == digest else None

    def put(self, key: str, digest: str, drawn: DrawnFace) -> None:
        self._faces[key] = (digest, drawn)

    def keep_only(self, keys: set[str]) -> None:
        """Forget the faces of cards and decks that are gone."""
        self._faces = {k: v for k, v in self._faces.items() if k in keys}


@dataclass(frozen=True)
class DrawnCards:
    """What the card stage returns. `rendered` holds every face and back that rendered: all of
    them when no finding is an error, none when the data checks failed (the renderer assumes
    they passed)."""

    rendered: RenderedSet
    findings: tuple[Finding, ...]  # errors first, then by file and line; then the preflight's, in card order
    missing: tuple[str, ...]  # every string the language's catalogs lack: the data's, then the templates'
    drawn: int  # faces rendered in this run (the rest came from the cache)
    timings: tuple[Timing, ...]  # validate, render, preflight

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    def faces(self, what: str = "built") -> RenderedSet:
        """The faces, for a stage that goes on with them; ValidationFailed when a finding is an
        error ("...; nothing was `what`")."""
        errors = self.errors
        if errors:
            raise ValidationFailed(errors, what=what)
        return self.rendered


Item = Card | str  # a card (its face) or a deck id (its back)


def face_items(snapshot: Snapshot) -> list[tuple[str, Item]]:
    """Every face the stage draws, by key: each card's face, then the back of each deck that has
    a back template and cards."""
    items: list[tuple[str, Item]] = [(f"card-{card.id}", card) for card in snapshot.cards]
    items += [(f"back-{deck_id}", deck_id) for deck_id, deck in snapshot.game.decks.items()
              if deck.back and snapshot.cards_in_deck(deck_id)]
    return items


def draw_cards(project: Project, snapshot: Snapshot, cache: FaceCache | None = None, *,
               checks: bool = True, on_checked: Callable[[], object] | None = None,
               on_face: Callable[[Face], object] | None = None) -> DrawnCards:
    """Check the data, render every face and back, preflight them.

    `on_checked` is called once the data checks passed, before the faces are rendered (the
    build starts its worker processes there). `on_face` is called with each face as soon as it
    is drawn and its preflight found no error, while no face before it failed (the build sends
    it to be rasterised while the next is drawn); the stage's result still decides whether the
    faces may be used. `checks=False` only draws (a face that does not render is still an
    error): for a caller that reports no findings, the diff, which compares the faces of
    versions whose data may be wrong."""
    timings: list[Timing] = []
    started = time.perf_counter()
    icons = contain.Icons(project.icons_dir)  # one pass over icons/: the data checks read them, then the faces
    findings = validate_data(project, snapshot, icons) if checks else []
    timings.append(Timing("validate", time.perf_counter() - started))
    data_missing = tuple(snapshot.translation.missing) if snapshot.translation is not None else ()
    if any(f.severity == "error" for f in findings):
        return DrawnCards(RenderedSet(), tuple(findings), data_missing, 0, tuple(timings))
    if on_checked is not None:
        on_checked()

    # each face is drawn, then preflighted at once (so that it can be sent on), but the two
    # stages are timed apart, as they are reported
    render_s = preflight_s = 0.0
    started = time.perf_counter()
    items = face_items(snapshot)
    shared = _shared_digest(project, snapshot) if cache is not None else ""
    digests = {key: cache_mod.digest_of(shared, _own_digest(snapshot, item)) if cache is not None else ""
               for key, item in items}
    renderer: CardRenderer | None = None
    fonts: FontSet | None = None
    bleed = snapshot.game.file.bleed_mm
    drawn: dict[str, DrawnFace] = {}
    failed: dict[tuple, list[tuple[Card, CardgenError]]] = {}  # one finding per cause, not per card
    errors: list[Finding] = []
    count = 0
    renders = True  # no face so far failed to render (then no preflight: its findings would not be shown)
    sound = True  # nor found an error in its preflight: the faces so far may be sent on
    for key, item in items:
        got = cache.get(key, digests[key]) if cache is not None else None
        if got is None:
            renderer = renderer or CardRenderer(project, snapshot, icons)
            try:
                face = renderer.render_card(item) if isinstance(item, Card) else renderer.render_back(item)
            except CardgenError as exc:
                renderer.take_notes()  # a face that failed notes nothing else
                if isinstance(item, Card):
                    failed.setdefault(_cause(exc, item), []).append((item, exc))
                else:
                    errors.append(Finding("error", "render", exc.message,
                                          exc.loc or snapshot.game.source.loc("decks", item)))
                renders = sound = False
                continue
            got = DrawnFace(face, renderer.take_notes())
            count += 1
        if checks and renders and got.checks is None:
            render_s += time.perf_counter() - started
            started = time.perf_counter()
            fonts = fonts or FontSet(project.fonts_dir)
            if isinstance(item, Card):
                found = check_face(got.face, bleed, fonts, card=item.id, loc=item.where)
            else:
                found = check_face(got.face, bleed, fonts, card=key, back=True,
                                   loc=snapshot.game.source.loc("decks", item, "back"))
            got = dataclasses.replace(got, checks=tuple(found))
            preflight_s += time.perf_counter() - started
            started = time.perf_counter()
        drawn[key] = got
        sound = sound and not any(f.severity == "error" for f in got.checks or ())
        if on_face is not None and sound:
            on_face(got.face)
    render_s += time.perf_counter() - started
    for failures in failed.values():
        card, first = failures[0]
        others = [c.id for c, _ in failures[1:]]
        more = (f" (the same for {len(others)} more card{'s' if len(others) > 1 else ''}: "
                f"{', '.join(others[:3])}{', ...' if len(others) > 3 else ''})") if others else ""
        errors.append(Finding("error", "render", first.message + more, first.loc or card.where, card.id))
    timings.append(Timing("render", render_s, "card faces and backs as SVG"))
    if checks and not errors:
        timings.append(Timing("preflight", preflight_s, "text, safe zones and fonts of every face"))
    if cache is not None:
        for key, got in drawn.items():
            cache.put(key, digests[key], got)
        cache.keep_only(set(digests))

    rendered = RenderedSet()
    for key, item in items:
        if key in drawn:
            if isinstance(item, Card):
                rendered.faces[item.id] = drawn[key].face
            else:
                rendered.backs[item] = drawn[key].face
            rendered.warnings += drawn[key].notes.warnings
            for name, ratio in drawn[key].notes.shrunk.items():
                rendered.shrunk[name] = min(ratio, rendered.shrunk.get(name, 1.0))
    notes = [f for got in drawn.values() for f in got.notes.findings]
    preflighted = [f for got in drawn.values() for f in got.checks or ()] if checks and not errors else []
    templates = list(dict.fromkeys(m for got in drawn.values() for m in got.notes.missing if m not in data_missing))
    findings = sorted(findings + errors + notes, key=finding_order) + preflighted
    if templates and snapshot.translation is not None:
        findings.append(_untranslated(templates, snapshot.language))
    return DrawnCards(rendered, tuple(findings), data_missing + tuple(templates), count, tuple(timings))


def _untranslated(templates: list[str], language: str) -> Finding:
    """The templates' strings the catalogs lack (the data's are findings with their file:line)."""
    shown = "; ".join(repr(m if len(m) <= 40 else m[:37] + "...") for m in templates[:5])
    more = f" and {len(templates) - 5} more" if len(templates) > 5 else ""
    return Finding("warning", "untranslated-template",
                   f"{counted(len(templates), 'template string')} not translated into '{language}', printed in "
                   f"the source language: {shown}{more} (see `cardgen i18n status`)")


def _cause(exc: CardgenError, card: Card) -> tuple:
    """What a card's failure has in common with others of the same cause: its message without
    the card's name, and its place unless that is just the card's own entry (a template line
    failing for every card is one cause; a bad value on one card is its own)."""
    message = exc.message.replace(f"card '{card.id}'", "card '*'")
    return message, exc.loc if exc.loc not in (card.loc, card.where) else None


def _own_digest(snapshot: Snapshot, item: Item) -> str:
    """What one face is drawn from besides what all share: the card, locations included (its
    findings point at them); for a back, its deck's place in game.yml and its cards."""
    if isinstance(item, Card):
        return cache_mod.digest_of("card", json.dumps(dataclasses.asdict(item), sort_keys=True, default=str))
    source = snapshot.game.source
    return cache_mod.digest_of("back", item, str(source.loc("decks", item)), str(source.loc("decks", item, "back")),
                               [(c.id, c.count) for c in snapshot.cards_in_deck(item)])


def _shared_digest(project: Project, snapshot: Snapshot) -> str:
    """What every face may read: the game's folder (game.yml, its catalogs), the version's rules,
    style and symbols, the language's words, the templates, icons and fonts (hashed afresh:
    they are being edited)."""
    folders = [snapshot.game.dir, project.templates_dir / snapshot.game.id, project.templates_dir / "common",
               project.icons_dir, project.fonts_dir]
    translation = snapshot.translation
    words = None if translation is None else json.dumps(
        [dict(translation.messages), dict(translation.plurals), dict(translation.origins)], sort_keys=True, default=str)
    return cache_mod.digest_of(
        str(project.root),
        snapshot.language,
        words,
        snapshot.game.file.model_dump_json(),
        json.dumps(snapshot.rules, sort_keys=True, default=str),
        json.dumps(snapshot.style, sort_keys=True, default=str),
        json.dumps({k: v.model_dump() for k, v in snapshot.symbols.items()}, sort_keys=True, default=str),
        [cache_mod.tree_digest(f, f) if f.is_dir() else "" for f in folders],
    )
