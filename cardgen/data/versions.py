"""Load a game and resolve any of its versions to a full snapshot.

A version file states only what changed against the version it `extends` (as the designer
worked: "see the changed cards in the Version 3 folder"); resolution applies the chain oldest
first: new cards, overrides of existing cards (field by field), removals, rule and symbol changes.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import Finding, InputError, Loc
from ..words import counted
from . import cardtable, model, yamlsource
from .project import Project
from .snapshot import Card, Effect, Game, Snapshot, VersionInfo

VERSION_RE = re.compile(r"^[0-9a-z][0-9a-z.\-]*$")
BUILTIN_CARD_KEYS = {"id", "type", "name", "count", "art", "flavour", "effects", "note"}


def normalise_version(name: str) -> str:
    """`v1`, `V3`, `3.1` -> `1`, `3`, `3.1` (what the designer calls a version)."""
    text = str(name).strip()
    if len(text) > 1 and text[0] in "vV" and text[1].isdigit():
        text = text[1:]
    return text.lower()


def load_game(project: Project, game_id: str | None = None) -> Game:
    folder = project.game_dir(game_id)
    doc = yamlsource.load(folder / "game.yml")
    _use_raw(doc, "default_version")
    game_file = model.parse_model(model.GameFile, doc)
    if game_file.id != folder.name:
        raise InputError(
            f"game id '{game_file.id}' does not match its folder name '{folder.name}'", doc.loc("id")
        )
    return Game(game_file.id, folder, game_file, doc)


def version_dir(project: Project, game: Game) -> Path:
    return project.versions_dir / game.id


def available_versions(project: Project, game: Game) -> list[str]:
    """The versions, by the name `--version` takes (`Final.yml` is version `final`)."""
    return sorted(version_files(project, game), key=_version_sort_key)


def version_files(project: Project, game: Game) -> dict[str, Path]:
    """Version name -> its file. Names are normalised like `--version` (`V3.yml` and `v3`
    are version 3), so every listed version can be asked for; two files with one name, or
    a name that is not a version name, are errors naming the file."""
    folder = version_dir(project, game)
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("*.yml")) if folder.is_dir() else []:
        name = normalise_version(path.stem)
        if not VERSION_RE.match(name):
            raise InputError(f"version file name '{path.name}' is not a version name (expected letters, digits, "
                             "'.' and '-', like 3.1.yml or final.yml)", Loc(path))
        if name in found:
            raise InputError(f"versions '{found[name].name}' and '{path.name}' both name version '{name}'; "
                             "rename one", Loc(path))
        found[name] = path
    return found


def _version_sort_key(name: str):
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.\-]", name)]


def resolve(project: Project, game: Game, version: str | None = None) -> Snapshot:
    version = existing_version(project, game, version)
    chain = _chain(project, game, version, available_versions(project, game))
    return _apply(game, chain)


def existing_version(project: Project, game: Game, version: str | None = None) -> str:
    """The version's name as `--version` means it (default: the game's); one line if there is none."""
    version = normalise_version(version or game.file.default_version)
    known = available_versions(project, game)
    if version not in known:
        raise InputError(
            f"no version '{version}' of {game.name} (expected one of: {', '.join(known) or 'none'}; "
            f"versions live in {version_dir(project, game)})"
        )
    return version


def _load_version(project: Project, game: Game, version: str):
    file = version_files(project, game).get(version, version_dir(project, game) / f"{version}.yml")
    doc = yamlsource.load(file)
    _use_raw(doc, "extends")
    return doc, model.parse_model(model.VersionFile, doc)


def _use_raw(doc: yamlsource.YamlDocument, key: str) -> None:
    """Version names are text: `extends: 3.10` must not become the number 3.1."""
    if doc.data.get(key) is not None and (key,) in doc.raw:
        doc.data[key] = normalise_version(doc.raw[(key,)])


def _chain(project: Project, game: Game, version: str, known: list[str]):
    chain = []
    seen: list[str] = []
    current: str | None = version
    via: Loc | None = None
    while current is not None:
        if current in seen:
            cycle = " -> ".join(seen[seen.index(current):] + [current])
            raise InputError(f"'extends' makes a cycle: {cycle}", via)
        if current not in known:
            raise InputError(
                f"extends '{current}', but there is no such version (expected one of: {', '.join(known)})", via
            )
        seen.append(current)
        doc, parsed = _load_version(project, game, current)
        rows = _table_rows(project, doc, parsed)
        chain.append((current, doc, parsed, rows))
        via = doc.loc("extends")
        current = parsed.extends
    return list(reversed(chain))


def _check_translation(feedback: model.Feedback | None, doc) -> None:
    """A translation is read line for line beside the original, so it must have as many lines."""
    if feedback is None or feedback.translation is None:
        return
    for kind in ("positive", "negative", "ideas"):
        said, meant = getattr(feedback, kind), getattr(feedback.translation, kind)
        if len(said) != len(meant):
            raise InputError(f"feedback.translation.{kind} has {counted(len(meant), 'line')} but feedback.{kind} has "
                             f"{len(said)}: expected one translated line for each line received",
                             doc.loc("notes", "feedback", "translation", kind))


def _apply(game: Game, chain) -> Snapshot:
    rules: dict = {}
    rule_locs: dict[str, Loc] = {}
    style: dict = {}
    symbols: dict[str, model.Symbol] = {}
    symbol_locs: dict[str, Loc] = {}
    cards: dict[str, Card] = {}
    claims: dict[str, tuple[model.Claim, Loc]] = {}  # key -> the claim in force and where it is written
    remarks: list[Finding] = []
    infos = []
    setup, setup_locs = _game_setup(game)
    for vid, doc, vf, rows in chain:
        _check_translation(vf.notes.feedback, doc)
        infos.append(VersionInfo(vid, doc.file, vf.extends, vf.title, vf.date, vf.summary, vf.notes))
        for key, value in vf.rules.items():
            rules[key] = value
            rule_locs[key] = doc.loc("rules", key)
        style.update(vf.style)
        for sid, sym in vf.symbols.items():
            if sid in symbols:
                merged = symbols[sid].model_dump() | sym.model_dump(exclude_none=True)
                symbols[sid] = model.Symbol(**merged)
            else:
                symbols[sid] = sym
            symbol_locs[sid] = doc.loc("symbols", sid)
        for i, entry in enumerate(vf.cards):
            if entry.id in cards:
                raise InputError(
                    f"card id '{entry.id}' is already defined (at {cards[entry.id].loc}); "
                    "use `override:` to change an existing card",
                    doc.loc("cards", i, "id"),
                )
            cards[entry.id] = _new_card(entry, doc, ("cards", i), vid)
        overridden: dict[str, Loc] = {}
        for i, entry in enumerate(vf.override):
            if entry.id not in cards:
                raise InputError(
                    f"override of unknown card '{entry.id}' (no earlier version defines it)",
                    doc.loc("override", i, "id"),
                )
            here = doc.loc("override", i, "id")
            if entry.id in overridden:
                remarks.append(Finding("warning", "override-twice",
                                       f"card '{entry.id}' is overridden twice in this file (first at line "
                                       f"{overridden[entry.id].line}); the later override wins field by field",
                                       here, entry.id))
            overridden.setdefault(entry.id, here)
            _override(cards[entry.id], entry, doc, ("override", i), vid)
        removed: set[str] = set()
        for i, card_id in enumerate(vf.remove):
            if card_id in removed:
                remarks.append(Finding("warning", "remove-twice", f"card '{card_id}' is removed twice in this file",
                                       doc.loc("remove", i), card_id))
                continue
            if card_id not in cards:
                raise InputError(f"remove of unknown card '{card_id}'", doc.loc("remove", i))
            if card_id in overridden:
                remarks.append(Finding("warning", "override-and-remove",
                                       f"card '{card_id}' is overridden (line {overridden[card_id].line}) and removed "
                                       "in the same file; the override has no effect", doc.loc("remove", i), card_id))
            removed.add(card_id)
            del cards[card_id]
        _apply_table(game, cards, rows, vid)
        _merge_claims(claims, vf, doc)
        if vf.setup is not None:
            setup = _merge_setup(setup, setup_locs, vf.setup, doc)
    return Snapshot(
        game=game,
        version=chain[-1][0],
        chain=infos,
        rules=rules,
        rule_locs=rule_locs,
        style=style,
        symbols=symbols,
        symbol_locs=symbol_locs,
        cards=list(cards.values()),
        claims=[claim for claim, _ in claims.values()],
        claim_locs=[loc for _, loc in claims.values()],
        unused_decks={d: chain[-1][1].loc("unused_decks", i) for i, d in enumerate(chain[-1][2].unused_decks)},
        remarks=remarks,
        setup=setup,
        setup_locs=setup_locs,
    )


SETUP_AREAS = ("shared", "players")


def _game_setup(game: Game) -> tuple[model.Setup | None, dict[tuple[str, str], Loc]]:
    """game.yml's set-up (a copy: versions change it) and where each place is written."""
    found = game.file.setup
    if found is None:
        return None, {}
    locs = {(area, place.id): game.source.loc("setup", area, i)
            for area in SETUP_AREAS for i, place in enumerate(getattr(found, area))}
    return found.model_copy(deep=True), locs


def _merge_setup(setup: model.Setup | None, locs: dict[tuple[str, str], Loc], change: model.Setup,
                 doc) -> model.Setup:
    """A version's `setup` over the inherited one, place by place (model.Setup says how)."""
    merged = setup.model_copy(deep=True) if setup is not None else model.Setup()
    for area in SETUP_AREAS:
        places = getattr(merged, area)
        seen: set[str] = set()
        for i, place in enumerate(getattr(change, area)):
            loc = doc.loc("setup", area, i)
            if place.id in seen:
                raise InputError(f"setup.{area}: a second place '{place.id}' in this file", loc)
            seen.add(place.id)
            index = next((n for n, p in enumerate(places) if p.id == place.id), None)
            if place.withdrawn:
                if index is None:
                    raise InputError(f"setup.{area}: withdraws place '{place.id}', which no earlier version "
                                     f"or game.yml declares (inherited: {', '.join(p.id for p in places) or 'none'})",
                                     loc)
                del places[index]
                locs.pop((area, place.id), None)
                continue
            if index is None:
                places.append(place)
            else:
                places[index] = place
            locs[(area, place.id)] = loc
    return merged


def _merge_claims(claims: dict[str, tuple[model.Claim, Loc]], vf: model.VersionFile, doc) -> None:
    """A version's claims over the inherited ones, by key (model.claim_key): a claim with an
    inherited key replaces it, `withdrawn: true` drops it, `replace_claims: true` drops them all."""
    if vf.replace_claims:
        claims.clear()
    seen: dict[str, Loc] = {}
    for i, claim in enumerate(vf.claims):
        key, loc = model.claim_key(claim), doc.loc("claims", i)
        if not key:
            raise InputError("a claim needs a deck or a symbol to count (or an id naming it)", loc)
        if key in seen:
            raise InputError(f"a second claim about {key} in this file (first at line {seen[key].line}); "
                             "give each its own id", loc)
        seen[key] = loc
        if not claim.withdrawn:
            claims[key] = (claim, loc)
        elif claims.pop(key, None) is None:
            known = "; ".join(claims) or "none"
            raise InputError(f"withdraws the claim about {key}, which no earlier version makes (inherited: {known})",
                             loc)


def _table_rows(project: Project, doc, vf: model.VersionFile) -> list[cardtable.Row]:
    """The rows of the version's `table:`, which must lie inside the project (after symlinks)."""
    if vf.table is None:
        return []
    where = doc.loc("table")
    path = (doc.file.parent / vf.table).resolve()
    if not path.is_relative_to(project.root.resolve()):
        raise InputError(f"table '{vf.table}' lies outside the project; expected a file beside the version", where)
    return cardtable.read_table(path, where)


def _apply_table(game: Game, cards: dict[str, Card], rows: list[cardtable.Row], vid: str) -> None:
    """Rows add or override cards by id; blank cells inherit, `count: 0` removes the card."""
    seen: dict[str, Loc] = {}
    for row in rows:
        card_id = row.text("id") or ""
        id_loc = row.cells["id"].loc if "id" in row.cells else row.loc
        if not cardtable.ID_RE.match(card_id):
            raise InputError(f'expected a card id (lower-case letters, digits and -), found "{card_id}"', id_loc)
        if card_id in seen:
            raise InputError(f"card '{card_id}' has a second row (first at {seen[card_id]})", id_loc)
        seen[card_id] = id_loc
        card = cards.get(card_id)
        type_id = row.text("type") or (card.type if card else None)
        if type_id is None:
            raise InputError(f"new card '{card_id}' needs a type (expected one of: {', '.join(game.card_types)})", row.loc)
        if type_id not in game.card_types:
            raise InputError(
                f"unknown card type '{type_id}' (expected one of: {', '.join(game.card_types)})", row.cells["type"].loc
            )
        values = _row_values(game, type_id, row)
        if values.get("count") == 0:
            cards.pop(card_id, None)
            continue
        if card is None:
            if "name" not in values:
                raise InputError(f"new card '{card_id}' needs a name", row.loc)
            card = Card(id=card_id, type=type_id, name=values["name"], count=1, art=None, flavour=None,
                        effects=[], fields={}, note=None, loc=row.loc, row=row.loc)
            cards[card_id] = card
        changed = card.changed_in == ""  # a new card
        for key, value in values.items():
            card.field_locs[key] = row.cells[key].loc
            before = card.value(key) if key != "effects" else _effect_data(card.effects)
            changed |= before != (value if key != "effects" else _effect_data(value))
            if key in BUILTIN_CARD_KEYS:
                setattr(card, key, value)
            else:
                card.fields[key] = value
        if changed:  # a row that repeats the inherited values changes nothing
            card.changed_in = vid
            card.row = row.loc


def _effect_data(effects: list[Effect]) -> list[tuple]:
    return [(e.do, e.when, e.params) for e in effects]


def _row_values(game: Game, type_id: str, row: cardtable.Row) -> dict:
    fields = game.card_types[type_id].fields
    values: dict = {}
    for column, cell in row.cells.items():
        if column == "id":
            continue
        if column == "effects":
            kinds = game.effect_kinds
            values["effects"] = [
                Effect(e.do, e.when, e.params, cell.loc) for e in cardtable.parse_effects(cell, kinds)
            ]
        elif column == "count":
            count = cardtable.typed(cell, model.ValueSpec(type="int"))
            if not 0 <= count <= 10_000:
                raise InputError(f"expected a count from 0 to 10000, found {count}", cell.loc)
            values["count"] = count
        elif column in BUILTIN_CARD_KEYS:
            values[column] = cardtable.cell_text(cell.value)
        elif column in fields:
            values[column] = cardtable.typed(cell, fields[column])
        else:
            known = [*cardtable.BUILTIN_COLUMNS, *fields]
            raise InputError(
                f"'{column}' is not a field of {game.card_types[type_id].label} cards (expected one of: {', '.join(known)})",
                cell.loc,
            )
    return values


def _effects(entries, doc, path) -> list[Effect]:
    return [
        Effect(e.do, e.when, dict(e.model_extra or {}), doc.loc(*path, "effects", j))
        for j, e in enumerate(entries)
    ]


def _new_card(entry: model.CardEntry, doc, path, vid: str) -> Card:
    extra = dict(entry.model_extra or {})
    card = Card(
        id=entry.id,
        type=entry.type,
        name=entry.name,
        count=entry.count,
        art=entry.art,
        flavour=entry.flavour,
        effects=_effects(entry.effects, doc, path),
        fields=extra,
        note=entry.note,
        loc=doc.loc(*path),
        changed_in=vid,
    )
    for key in list(BUILTIN_CARD_KEYS | set(extra)):
        card.field_locs[key] = doc.loc(*path, key)
    return card


def _override(card: Card, entry: model.CardOverride, doc, path, vid: str) -> None:
    given = entry.model_fields_set | set(entry.model_extra or {})
    for key in given - {"id"}:
        card.field_locs[key] = doc.loc(*path, key)
        if key == "effects":
            card.effects = _effects(entry.effects or [], doc, path)
        elif key in BUILTIN_CARD_KEYS:
            if key in ("type", "name", "count") and getattr(entry, key) is None:
                raise InputError(f"override of '{card.id}': {key} may not be empty (null); leave the key out "
                                 "to keep the earlier value", doc.loc(*path, key))
            setattr(card, key, getattr(entry, key))
        else:
            card.fields[key] = (entry.model_extra or {})[key]
    card.changed_in = vid
    card.row = None  # changed in YAML since: findings about the whole card point at its definition
