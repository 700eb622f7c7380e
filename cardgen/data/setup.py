"""The set-up: where every component lies when a game starts, for any allowed number of players.

A game declares its set-up in game.yml (`setup:`, the model is `model.Setup`; a version changes
it place by place). `deal(snapshot, players)` plays it out for one player count: the shared
area's places in order (a place holding components of its own collects every printed copy it
selects, shuffles it when it is a face-down pile and puts named cards at their positions; a place
dealt `from` another takes the first components of that pile), then each player's places, seat by
seat. The result, a `Table`, is plain data: what the Tabletop Simulator table, the rulebook's
set-up figure and the simulator's first position all read, so they cannot disagree.

`check(snapshot, report)` is the validator's part: every name in the set-up exists, every
printed component has exactly one place, and the piles hold enough for every allowed player count.
A game without `setup:` gets `default_setup`: its boards laid out, its decks shuffled face down,
its pieces in bags, and every component type with `per_player` handed to each player.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, Loc
from .model import Setup, SetupCount, SetupPlace
from .snapshot import Card, Snapshot

SHARED, PLAYERS = "shared", "players"
AREAS = (SHARED, PLAYERS)
CARD_KINDS = {"deck", "row", "cards", "hand"}  # places of cards (component: card)
PIECE_KINDS = {"supply", "pieces", "row", "deck"}  # places of tiles and tokens (a deck of them: a pile)
PLAYER_ONLY = {"hand"}
FACE_DOWN_KINDS = {"deck", "box", "hand"}


class SetupError(InputError):
    """A set-up that cannot be dealt (a name it does not know, a pile too small): one line at its place."""


@dataclass
class Placed:
    """One place as dealt: the components lying there, one entry per copy (a pile's top first)."""

    area: str  # SHARED or PLAYERS
    place: SetupPlace
    seat: int | None  # 0-based; None in the shared area
    cards: list[Card]
    loc: Loc
    grid_rows: list[str] | None = None  # a grid place's rows of U and D

    @property
    def id(self) -> str:
        return self.place.id

    @property
    def kind(self) -> str:
        return self.place.kind

    @property
    def face_up(self) -> bool:
        return face_up(self.place)

    def faces_up(self) -> list[bool]:
        """Each component's face, in order: a grid says it letter by letter."""
        letters = self.grid_letters
        if letters:
            return [letters[i] == "U" if i < len(letters) else self.face_up for i in range(len(self.cards))]
        return [self.face_up] * len(self.cards)

    @property
    def grid_letters(self) -> str:
        return "".join(self.grid_rows or [])

    @property
    def different(self) -> list[Card]:
        """The different components here, in order of first appearance."""
        return list({c.id: c for c in self.cards}.values())


@dataclass
class Table:
    """A set-up dealt for one number of players."""

    players: int
    shared: list[Placed]
    seats: list[list[Placed]]

    def places(self) -> Iterator[Placed]:
        yield from self.shared
        for seat in self.seats:
            yield from seat

    def place(self, place_id: str, seat: int | None = None) -> Placed:
        for placed in self.shared if seat is None else self.seats[seat]:
            if placed.id == place_id:
                return placed
        raise KeyError(place_id)


def face_up(place: SetupPlace) -> bool:
    return place.face == "up" if place.face else place.kind not in FACE_DOWN_KINDS


def shuffled(place: SetupPlace) -> bool:
    if place.shuffle is not None:
        return place.shuffle
    return place.kind == "box" or (place.kind == "deck" and not face_up(place))


def setup_of(snapshot: Snapshot) -> tuple[Setup, dict[tuple[str, str], Loc]]:
    """The set-up in force: the version's, else one made from the game's declarations."""
    if snapshot.setup is not None:
        return snapshot.setup, snapshot.setup_locs
    made = default_setup(snapshot)
    where = Loc(snapshot.game.dir / "game.yml", 1, 1)
    return made, {(area, p.id): where for area in AREAS for p in getattr(made, area)}


def default_setup(snapshot: Snapshot) -> Setup:
    """A set-up from the data alone, for a game that declares none: boards laid out, card decks
    shuffled face down, pieces in bags; every type with `per_player` handed to each player from
    a box holding that type."""
    game = snapshot.game
    shared: list[SetupPlace] = []
    players: list[SetupPlace] = []
    dealt = {tid for tid, t in game.card_types.items() if t.per_player}
    for deck_id in game.decks:
        types = [tid for tid, t in game.card_types.items() if t.deck == deck_id and tid not in dealt]
        printed = [c for c in snapshot.cards_in_deck(deck_id) if c.count > 0 and c.type in types]
        if printed:
            component = game.card_types[printed[0].type].component
            kind = {"board": "board", "card": "deck"}.get(component, "supply")
            shared.append(SetupPlace(id=_place_id(deck_id, shared), kind=kind, types=types))
    for tid in game.card_types:
        if tid not in dealt or not any(c.count for c in snapshot.cards_of_type(tid)):
            continue
        box = _place_id(f"{tid}-box", shared)
        shared.append(SetupPlace(id=box, kind="box", types=[tid], shuffle=False))
        component = game.card_types[tid].component
        kind = {"board": "board", "card": "cards"}.get(component, "pieces")
        players.append(SetupPlace(id=tid, kind=kind, count=game.card_types[tid].per_player, **{"from": box}))
    return Setup(shared=shared, players=players)


def _place_id(wanted: str, taken: list[SetupPlace]) -> str:
    ids = {p.id for p in taken}
    word = "".join(ch if ch.isalnum() else "-" for ch in wanted.lower()).strip("-") or "place"
    name, n = word, 2
    while name in ids:
        name, n = f"{word}-{n}", n + 1
    return name


def active_places(snapshot: Snapshot, setup: Setup) -> dict[str, list[SetupPlace]]:
    """The places this version uses: a place of a deck the version lists in `unused_decks`, or
    of a deck with no card printed in this version (the validator warns of that deck: `empty-deck`),
    is left out, and every place dealt from one."""
    printed = {snapshot.game.card_types[c.type].deck for c in snapshot.cards
               if c.count > 0 and c.type in snapshot.game.card_types}
    unused = set(snapshot.unused_decks) | (set(snapshot.game.decks) - printed)
    types_of = {tid: t.deck for tid, t in snapshot.game.card_types.items()}
    dropped: set[str] = set()
    result: dict[str, list[SetupPlace]] = {}
    for area in AREAS:
        kept = []
        for place in getattr(setup, area):
            decks = ({place.deck} if place.deck else set()) | {types_of.get(t) for t in place.types}
            if (decks and decks <= unused) or (place.from_ in dropped):
                dropped.add(place.id)
                continue
            kept.append(place)
        result[area] = kept
    return result


def selects(snapshot: Snapshot, place: SetupPlace, card: Card) -> bool:
    """Does the place's own filter (deck, types, cards) take this card?"""
    ctype = snapshot.game.card_types.get(card.type)
    if place.deck is not None and (ctype is None or ctype.deck != place.deck):
        return False
    if place.types and card.type not in place.types:
        return False
    return not place.cards or card.id in place.cards


def has_filter(place: SetupPlace) -> bool:
    return bool(place.deck or place.types or place.cards)


def resolve_count(snapshot: Snapshot, value: SetupCount, players: int, loc: Loc, what: str) -> int:
    """A set-up number: itself, an int rule's value, or the number for this many players."""
    if isinstance(value, bool):
        raise SetupError(f"{what}: expected a number, a rule's name or numbers by player count, found {value!r}", loc)
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        if value not in snapshot.game.rule_specs:
            raise SetupError(f"{what}: '{value}' is not a rule of the game (expected a number or one of: "
                             f"{', '.join(snapshot.game.rule_specs) or 'none'})", loc)
        rule = snapshot.rules.get(value)
        if not isinstance(rule, int) or isinstance(rule, bool):
            raise SetupError(f"{what}: rule '{value}' is {rule!r} in version {snapshot.version}, expected a "
                             "whole number", loc)
        number = rule
    else:
        if players not in value:
            given = ", ".join(str(k) for k in sorted(value))
            raise SetupError(f"{what}: no number for {players} players (given for: {given})", loc)
        number = value[players]
    if number < 0:
        raise SetupError(f"{what}: expected 0 or more, found {number}", loc)
    return number


def allowed_players(snapshot: Snapshot) -> range:
    players = snapshot.game.file.players
    return range(players.min, players.max + 1)


def check_players(snapshot: Snapshot, players: int) -> None:
    allowed = allowed_players(snapshot)
    if players not in allowed:
        span = f"{allowed.start}" if len(allowed) == 1 else f"{allowed.start}-{allowed.stop - 1}"
        raise InputError(f"{snapshot.game.name} is played by {span} players, not {players} "
                         f"(players: in {snapshot.game.dir.name}/game.yml)",
                         snapshot.game.source.loc("players"))


def deal(snapshot: Snapshot, players: int, seed: Any = None) -> Table:
    """The set-up dealt for `players` players; shuffles follow `seed` (default: one derived from
    the game, the version and the player count, so the same table comes out every time)."""
    check_players(snapshot, players)
    setup, locs = setup_of(snapshot)
    places = active_places(snapshot, setup)
    rng = random.Random(seed if seed is not None else f"{snapshot.game.id}:{snapshot.version}:{players}")
    piles: dict[str, list[Card]] = {}
    kinds: dict[str, list[Card]] = {}  # a source place's different components (an unlimited supply's copies)
    unlimited: dict[str, bool] = {}
    claimed: set[str] = set()
    shared: list[Placed] = []
    for place in places[SHARED]:
        loc = locs[(SHARED, place.id)]
        if place.from_ is None:
            chosen = [c for c in snapshot.cards if c.count > 0 and c.id not in claimed and selects(snapshot, place, c)]
            claimed.update(c.id for c in chosen)
            pile = [c for c in chosen for _ in range(c.count)]
            if shuffled(place):
                rng.shuffle(pile)
            _position(snapshot, place, pile, players, loc)
            kinds[place.id], unlimited[place.id] = chosen, place.unlimited
        else:
            pile = _take(snapshot, place, piles, kinds, unlimited, players, loc, lambda c: True)
            kinds[place.id], unlimited[place.id] = list({c.id: c for c in pile}.values()), False
        piles[place.id] = pile
        shared.append(Placed(SHARED, place, None, pile, loc, grid_rows(snapshot, place, loc)))
    seats: list[list[Placed]] = [[] for _ in range(players)]
    for place in places[PLAYERS]:
        loc = locs[(PLAYERS, place.id)]
        for seat in range(players):
            keep = _matching(place, seats[seat], loc)
            taken = _take(snapshot, place, piles, kinds, unlimited, players, loc, keep)
            seats[seat].append(Placed(PLAYERS, place, seat, taken, loc, grid_rows(snapshot, place, loc)))
    return Table(players, shared, seats)


def grid_rows(snapshot: Snapshot, place: SetupPlace, loc: Loc) -> list[str] | None:
    """A grid place's rows of U (face up) and D (face down), from the data or a list rule."""
    grid = place.grid
    if grid is None:
        return None
    if isinstance(grid, str):
        if grid not in snapshot.game.rule_specs:
            raise SetupError(f"place '{place.id}': grid: '{grid}' is not a rule of the game (expected a list of "
                             f"rows or one of: {', '.join(snapshot.game.rule_specs) or 'none'})", loc)
        value = snapshot.rules.get(grid)
        what = f"rule '{grid}'"
    else:
        value, what = grid, "grid"
    if not isinstance(value, list) or not value or not all(isinstance(r, str) for r in value):
        raise SetupError(f"place '{place.id}': {what} is {value!r}, expected a list of rows of U and D", loc)
    bad = sorted({ch for row in value for ch in row} - {"U", "D"})
    if bad:
        raise SetupError(f"place '{place.id}': {what} holds {', '.join(repr(b) for b in bad)}; expected only U "
                         "(face up) and D (face down)", loc)
    return list(value)


def _position(snapshot: Snapshot, place: SetupPlace, pile: list[Card], players: int, loc: Loc) -> None:
    """Put the cards named in `positions` at their places of the pile, counted from the top."""
    if not place.positions:
        return
    wanted = []
    for card_id, value in place.positions.items():
        position = resolve_count(snapshot, value, players, loc, f"place '{place.id}': position of '{card_id}'")
        copies = [c for c in pile if c.id == card_id]
        if not copies:
            raise SetupError(f"place '{place.id}': positions names card '{card_id}', which is not in this pile", loc)
        wanted.append((position, card_id, copies))
    named = {card_id for _, card_id, _ in wanted}
    pile[:] = [c for c in pile if c.id not in named]
    for position, card_id, copies in sorted(wanted, key=lambda w: w[0]):
        if not 1 <= position <= len(pile) + len(copies):
            raise SetupError(f"place '{place.id}': position {position} of '{card_id}' is outside the pile of "
                             f"{len(pile) + len(copies)}", loc)
        pile[position - 1:position - 1] = copies


def _matching(place: SetupPlace, seat: list[Placed], loc: Loc) -> Callable[[Card], bool]:
    match = place.matching
    if match is None:
        return lambda card: True
    ref = next((p for p in seat if p.id == match.place), None)
    if ref is None:
        raise SetupError(f"place '{place.id}': matching names place '{match.place}', which is not an earlier "
                         "place of the player's area", loc)
    values = {card.value(match.field) for card in ref.cards}
    return lambda card: card.value(match.field) in values


def _take(snapshot: Snapshot, place: SetupPlace, piles: dict[str, list[Card]], kinds: dict[str, list[Card]],
          unlimited: dict[str, bool], players: int, loc: Loc, keep: Callable[[Card], bool]) -> list[Card]:
    """The first components of the `from` pile that the place takes (all of them without a count)."""
    source = place.from_
    if source is None or source not in piles:
        known = ", ".join(piles) or "none"
        raise SetupError(f"place '{place.id}': deals from '{source}', which is not an earlier place of the shared "
                         f"area (expected one of: {known})", loc)
    pile = piles[source]

    def wanted(card: Card) -> bool:
        return (not has_filter(place) or selects(snapshot, place, card)) and keep(card)

    count = None if place.count is None else resolve_count(snapshot, place.count, players, loc,
                                                           f"place '{place.id}': count")
    rows = grid_rows(snapshot, place, loc)
    if rows is not None:
        letters = sum(len(r) for r in rows)
        if count is not None and count != letters:
            raise SetupError(f"place '{place.id}': count {count} but its grid has {letters} places", loc)
        count = letters
    taken: list[Card] = []
    rest: list[Card] = []
    for card in pile:
        if wanted(card) and (count is None or len(taken) < count):
            taken.append(card)
        else:
            rest.append(card)
    if count is not None and len(taken) < count:
        spare = [c for c in kinds.get(source, []) if wanted(c)]
        if unlimited.get(source) and spare:
            taken += [spare[i % len(spare)] for i in range(count - len(taken))]
        else:
            raise SetupError(f"place '{place.id}': needs {count} from '{source}' at {players} players, but only "
                             f"{len(taken)} {'is' if len(taken) == 1 else 'are'} left there", loc)
    pile[:] = rest
    return taken


# --- the validator's checks -------------------------------------------------------------------


def check(snapshot: Snapshot, report: Any) -> None:
    """Findings about the set-up: names, kinds, every component placed once, enough for every player count."""
    if snapshot.setup is None:
        return
    setup, locs = snapshot.setup, snapshot.setup_locs
    places = active_places(snapshot, setup)
    before = len(report.errors)
    _check_names(snapshot, places, locs, report)
    _check_coverage(snapshot, places, locs, report)
    if len(report.errors) > before:
        return  # dealing would only repeat what is already said
    failed: set[str] = set()
    table = None  # the last count dealt, the most players: every place holds the most there
    for players in allowed_players(snapshot):
        try:
            table = deal(snapshot, players)
        except SetupError as exc:
            if str(exc.loc) not in failed:
                failed.add(str(exc.loc))
                report.error("setup", exc.message, loc=exc.loc)
    if table is not None and not failed:
        _check_labels(snapshot, table, locs, report)


def _check_labels(snapshot: Snapshot, table: Table, locs: dict, report: Any) -> None:
    """Two places of one area that print the same name (in the rulebook's figure, on the virtual
    table) cannot be told apart: a warning at the second, asking for a label."""
    for area, placed in ((SHARED, table.shared), (PLAYERS, table.seats[0] if table.seats else [])):
        named: dict[str, str] = {}
        for place in placed:
            if place.kind == "box" or not place.cards:
                continue  # not drawn, not laid out
            label = label_of(snapshot, place)
            if label in named:
                report.warning("setup", f"setup.{area} places '{named[label]}' and '{place.id}' both print the name "
                                        f"'{label}': give one a `label` of its own", loc=locs[(area, place.id)])
            named.setdefault(label, place.id)


def _check_names(snapshot: Snapshot, places: dict[str, list[SetupPlace]], locs: dict, report: Any) -> None:
    game = snapshot.game
    card_ids = {c.id for c in snapshot.cards}
    shared_ids: set[str] = set()
    for area in AREAS:
        seen: set[str] = set()
        for place in places[area]:
            loc = locs[(area, place.id)]

            def error(message: str, place: SetupPlace = place, loc: Loc = loc, area: str = area) -> None:
                report.error("setup", f"setup.{area} place '{place.id}': {message}", loc=loc)

            if place.id in seen:
                error("a second place with this id in the same area")
            seen.add(place.id)
            if place.kind in PLAYER_ONLY and area == SHARED:
                error(f"a {place.kind} belongs to a player's area (setup.players)")
            if place.deck is not None and place.deck not in game.decks:
                error(f"unknown deck '{place.deck}' (expected one of: {', '.join(game.decks)})")
            for tid in place.types:
                if tid not in game.card_types:
                    error(f"unknown card type '{tid}' (expected one of: {', '.join(game.card_types)})")
            for cid in place.cards:
                if cid not in card_ids:
                    error(f"unknown card '{cid}' (no card of version {snapshot.version} has this id)")
            for cid in place.positions:
                if cid not in card_ids:
                    error(f"positions: unknown card '{cid}'")
            if place.from_ is None:
                if area == PLAYERS:
                    error("a player's place is dealt `from` a place of the shared area (add one holding these "
                          "components, a box if they are not used otherwise)")
                elif not has_filter(place):
                    error("says neither which components it holds (deck, types, cards) nor where they are dealt "
                          "`from`")
                elif place.count is not None:
                    error("count: a place holding components of its own holds all of them; deal a number of them "
                          "`from` it into another place")
            elif place.from_ not in shared_ids:
                error(f"deals from '{place.from_}', which is not an earlier place of the shared area "
                      f"(expected one of: {', '.join(sorted(shared_ids)) or 'none'})")
            if place.positions and place.from_ is not None:
                error("positions: only a place holding components of its own orders them")
            if place.unlimited and place.kind != "supply":
                error("unlimited: only a supply is unlimited")
            if place.at is not None and place.on is None:
                error("at: needs `on`, the board place it is measured on")
            if place.on is not None:
                boards = [p for p in places[SHARED] + (places[area] if area == PLAYERS else [])
                          if p.kind == "board" and p.id != place.id]
                if place.on not in {p.id for p in boards}:
                    error(f"on: '{place.on}' is not a board place (expected one of: "
                          f"{', '.join(p.id for p in boards) or 'none'})")
            if place.matching is not None:
                earlier = [p for p in places[PLAYERS][:places[PLAYERS].index(place)]] if area == PLAYERS else []
                if place.matching.place not in {p.id for p in earlier}:
                    error(f"matching: '{place.matching.place}' is not an earlier place of the player's area")
            source = next((p for p in places[SHARED] if p.id == place.from_), None)
            _check_kind(snapshot, place, source, error)
            for what, value in [("count", place.count)] + [(f"position of '{c}'", v) for c, v in place.positions.items()]:
                if value is None:
                    continue
                for players in allowed_players(snapshot):
                    try:
                        resolve_count(snapshot, value, players, loc, what)
                    except SetupError as exc:
                        error(exc.message)
                        break
            if area == SHARED:
                shared_ids.add(place.id)


def _check_kind(snapshot: Snapshot, place: SetupPlace, source: SetupPlace | None,
                error: Callable[[str], None]) -> None:
    """Cards go to card places, boards to board places, tiles and tokens to supplies and pieces."""
    game = snapshot.game
    chosen = [c for c in snapshot.cards if c.count > 0 and c.type in game.card_types
              and (has_filter(place) or source is not None)
              and (not has_filter(place) or selects(snapshot, place, c))
              and (source is None or not has_filter(source) or selects(snapshot, source, c))]
    for component in sorted({game.card_types[c.type].component for c in chosen}):
        fits = {"card": CARD_KINDS, "board": {"board"}, "tile": PIECE_KINDS, "token": PIECE_KINDS}[component]
        if place.kind != "box" and place.kind not in fits:
            error(f"a {place.kind} place cannot hold {component} components (expected a place of kind "
                  f"{' or '.join(sorted(fits))}, or a box)")


def _check_coverage(snapshot: Snapshot, places: dict[str, list[SetupPlace]], locs: dict, report: Any) -> None:
    """Every printed component lies in a place of the shared area (players are dealt from there):
    the first place that selects it, in set-up order; a place left with nothing is a mistake."""
    owner: dict[str, str] = {}
    for place in places[SHARED]:
        if place.from_ is not None or not has_filter(place):
            continue
        chosen = [c for c in snapshot.cards if c.count > 0 and c.type in snapshot.game.card_types
                  and selects(snapshot, place, c)]
        mine = [c for c in chosen if c.id not in owner]
        if not mine:
            held = ", ".join(sorted({owner[c.id] for c in chosen}))
            why = f"every component it selects lies in an earlier place ({held})" if chosen else \
                f"it selects no component printed in version {snapshot.version}"
            report.error("setup", f"setup.shared place '{place.id}' holds nothing: {why}",
                         loc=locs[(SHARED, place.id)])
        for card in mine:
            owner[card.id] = place.id
    where = _setup_loc(snapshot)
    for card in snapshot.cards:
        if card.count > 0 and card.id not in owner and card.type in snapshot.game.card_types:
            report.error("setup", f"card '{card.id}' ({snapshot.game.card_types[card.type].label}) has no place in "
                         "the set-up: add it to a place of setup.shared (a box if it is not used at the start)",
                         loc=where, card=card.id)


def _setup_loc(snapshot: Snapshot) -> Loc:
    """Where the set-up is written: the first place's file, else game.yml's `setup`."""
    first = next(iter(snapshot.setup_locs.values()), None)
    return snapshot.game.source.loc("setup") if first is None else first


def label_of(snapshot: Snapshot, placed: Placed) -> str:
    """A dealt place's name, in the build's language (the rulebook's figure and the virtual table
    both print it): its own label, else the name of the one component it names, else its
    deck's name, else its component's."""
    if placed.place.label:
        return placed.place.label
    cards = placed.different
    if placed.place.cards and len(cards) == 1:  # a place for one named component: its name
        return cards[0].name
    decks = {snapshot.game.card_types[c.type].deck for c in cards}
    if placed.place.deck or len(decks) == 1:
        return snapshot.game.decks[placed.place.deck or next(iter(decks))].name
    if len(cards) == 1:
        return cards[0].name
    return snapshot.game.card_types[cards[0].type].label if cards else placed.id
