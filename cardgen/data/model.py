"""The data format, as typed models: what `game.yml` and each version file may contain.

These models are the single definition of the format: they validate the YAML (with precise
messages mapped back to file:line:column by `config_errors`), and `cardgen schema` exports them
as JSON Schema for editors. What a game means by its fields, effects and rules is declared by
the game itself (`card_types`, `effects`, `rules`), so the core never knows about metals or swords.
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, ValidationError
from pydantic_core import ErrorDetails

from ..errors import CardgenError, InputError, InputErrors
from .yamlsource import YamlDocument, type_name

Colour = str  # "#rrggbb"; checked by the validator


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Open(BaseModel):
    """Entries whose extra keys are declared by the game (card fields, effect parameters)."""

    model_config = ConfigDict(extra="allow")


# --- game.yml ---------------------------------------------------------------------------------

ValueType = Literal["int", "number", "str", "text", "bool", "enum", "icon", "symbol", "card_type", "list", "map"]


class ValueSpec(Strict):
    """The type of a card field, an effect parameter or a rule value."""

    type: ValueType = Field(description="Kind of value.")
    label: str | None = Field(None, description="Human name, used in the rulebook and diffs.")
    description: str | None = None
    required: StrictBool = Field(False, description="Must every card/effect give it?")
    default: Any = None
    min: StrictFloat | None = None
    max: StrictFloat | None = None
    values: dict[str, str] | None = Field(
        None, description="For type enum: allowed values, each with the sentence that explains it."
    )
    of: str | None = Field(
        None, description="For symbol: the symbol kind allowed; for list and map: the type of the items."
    )
    nullable: StrictBool = Field(False, description="May the value be null (the rule does not exist)?")
    warn_if_empty: str | None = Field(
        None, description="For rules: warning shown when the value is null or empty."
    )
    open_question: str | None = Field(
        None, description="For enum rules the designer's documents leave open: the question they leave "
                          "('Who is Control?'). The version's value answers it for the players' rulebook; "
                          "the designer's notes print the question, the answer and the other values.")


class Size(Strict):
    width_mm: StrictFloat = Field(gt=0)
    height_mm: StrictFloat = Field(gt=0)
    corner_radius_mm: StrictFloat = Field(
        3.0, ge=0, description="Radius of the corners a cutting machine cuts (`cardgen build --cutter`); "
                               "0 for square corners. Default 3 mm, a playing card's.")


SizeRef = str | Size


class CardType(Strict):
    """A kind of printed component: a card, token, coin, board or map."""

    label: str
    plural: str | None = Field(
        None, description="The components of this type as a heading or counted ('Upgrade cards'), "
                          "for the rulebook; default: the label and the word for cards. Giving it lets a "
                          "translation use its own whole word (Dutch 'Verbeteringskaarten').")
    colour: Colour = "#444444"
    deck: str = Field(description="Key of the deck (in `decks`) the component belongs to.")
    template: str = Field(description="Face template, relative to templates/<game>/.")
    size: SizeRef | None = Field(None, description="Named size or explicit size; default: the game's card_size.")
    shape: Literal["rect", "circle"] = "rect"
    component: Literal["card", "board", "tile", "token"] = Field(
        "card", description="What the piece is where it matters (Tabletop Simulator): card (in a deck), "
                            "board (one image), tile (two-sided piece), token (one-sided piece).")
    fields: dict[str, ValueSpec] = Field(default_factory=dict)
    effects: StrictBool = Field(False, description="May cards of this type carry effects?")
    per_player: StrictInt | None = Field(None, description="Components of this type per player (set-up).")


class Deck(Strict):
    name: str
    back: str | None = Field(None, description="Back template, relative to templates/<game>/; null = blank back.")
    colour: Colour = "#333333"
    art: str | None = None


class PluralText(Strict):
    """A sentence whose words follow a number: one form per plural category of the language.

    In the source language `one` and `other` are the two forms (the game's language decides
    which one a number takes, with Babel's CLDR rules); a translation gives as many forms as
    its own language has (gettext msgid_plural / msgstr[n])."""

    count: str = Field(description="The effect parameter whose number chooses the form.")
    one: str = Field(description="Jinja2 sentence for one (\"+{{ amount }} sword point\").")
    other: str = Field(description="Jinja2 sentence for every other number (\"+{{ amount }} sword points\").")


class EffectKind(Strict):
    """One word of the game's effect vocabulary."""

    summary: str = Field(description="What the effect does, for the rulebook's effect list.")
    text: str | PluralText = Field(
        description="Jinja2 sentence printed on the card; parameters by name, icon('name') inlines an icon. "
                    "A sentence with a number-dependent word is {count, one, other} so translations "
                    "can follow their own plural rules."
    )
    params: dict[str, ValueSpec] = Field(default_factory=dict)
    tags: list[str] = Field(default_factory=list, description="Free labels that plug-in checks look for.")


class Players(Strict):
    min: StrictInt = Field(ge=1)
    max: StrictInt = Field(ge=1)


# --- the set-up -------------------------------------------------------------------------------

PlaceKind = Literal["board", "deck", "row", "supply", "box", "cards", "hand", "pieces"]
SetupCount = StrictInt | str | dict[int, StrictInt]


class SetupMatch(Strict):
    """Take only the components whose `field` equals that field of what this seat got in `place`
    (a Guild's own Seals: `{field: gilda, place: guild}`)."""

    field: str = Field(description="A field of the components taken and of the component in `place`.")
    place: str = Field(description="An earlier place of the same player's area.")


class SetupPlace(Strict):
    """One place of the set-up: where a group of components lies when the game starts.

    A place either holds components of its own (`deck`, `types` and/or `cards` select them: every
    printed copy that is not another place's) or is dealt `from` an earlier place of the shared
    area (the first `count` components of that pile, after it was shuffled). Player places are
    laid out once per player; their `count` is per player."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", description="The place's key (versions replace a place by it).")
    kind: PlaceKind = Field(description=(
        "board: boards laid out face up; deck: a pile of cards; row: cards dealt face up side by side; "
        "supply: pieces in bags, one bag per different piece; box: what is not used at the start (set "
        "aside, unseen); cards: cards in front of a player; hand: cards in a player's hand; pieces: "
        "tokens, tiles or coins in front of a player."))
    label: str | None = Field(None, description="Name of the place, printed on labels (default: the deck's or "
                                                "the component's name); translated like card text.")
    step: str | None = Field(None, description="The set-up step as a sentence, for the set-up notes and the "
                                               "rulebook; translated like rulebook text.")
    deck: str | None = Field(None, description="Take the components of this deck (a key of `decks`).")
    types: list[str] = Field(default_factory=list, description="Take the components of these card types.")
    cards: list[str] = Field(default_factory=list, description="Take these cards (ids).")
    from_: str | None = Field(None, alias="from", description="Deal from this earlier shared place instead; "
                                                              "deck, types and cards then filter what is dealt.")
    count: SetupCount | None = Field(None, description=(
        "How many components (per player in a player's area): a number, the name of an int rule "
        "(starting_hand), or one number per player count ({2: 3, 3: 4, 4: 4}). Default: all of them."))
    face: Literal["up", "down"] | None = Field(None, description="Default: down for a deck, a box and a hand's "
                                                                   "pile, up for everything else.")
    shuffle: StrictBool | None = Field(None, description="Shuffle the pile first (default: a face-down deck and a box).")
    positions: dict[str, SetupCount] = Field(default_factory=dict, description=(
        "After shuffling, put these cards (ids) at these positions of the pile, counted from the top "
        "(1 = the top); a position may name an int rule."))
    unlimited: StrictBool = Field(False, description="A supply the game does not limit (take a substitute when "
                                                     "the printed pieces run out).")
    matching: SetupMatch | None = None
    grid: str | list[str] | None = Field(None, description=(
        "Lay the components out in a grid, one per letter, row by row: U face up, D face down "
        "(a list of strings, or the name of a list rule). The count is the number of letters."))
    columns: StrictInt | None = Field(None, ge=1, description="Lay the components out in this many columns "
                                                               "(default: one row).")
    spacing_mm: tuple[StrictFloat, StrictFloat] | None = Field(None, description=(
        "Centre-to-centre distance of neighbouring components, across and down (default: their size "
        "and a gap)."))
    on: str | None = Field(None, description="The board place these components lie on.")
    at: tuple[StrictFloat, StrictFloat] | None = Field(None, description=(
        "With `on`: mm from the board's top-left corner to the centre of the first component."))
    withdrawn: StrictBool = Field(False, description="In a version file: drop the inherited place with this id.")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Setup(Strict):
    """How the game is set up: the shared area, then each player's area (laid out once per player).

    A version's `setup` changes the inherited one place by place: a place with an inherited id takes
    its place, `withdrawn: true` drops it, a new id is added at the end of its area."""

    shared: list[SetupPlace] = Field(default_factory=list, description="The shared area, in set-up order.")
    players: list[SetupPlace] = Field(default_factory=list, description="Each player's area, in set-up order.")


class Fonts(Strict):
    title: str = "Cinzel"
    body: str = "Alegreya Sans"


class GameFile(Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str
    tagline: str | None = None
    authors: list[str] = Field(default_factory=list)
    players: Players
    play_time: str | None = None
    language: str = Field("en", description="The source language the data is written in (it, en, nl...); "
                                            "translations live in card_data/<game>/locale/<lang>/*.po.")
    default_version: str
    card_size: SizeRef = "poker"
    bleed_mm: StrictFloat = Field(3.0, ge=0, le=10)
    fonts: Fonts = Field(default_factory=Fonts)
    sizes: dict[str, Size] = Field(default_factory=dict, description="Extra named sizes for this game.")
    card_types: dict[str, CardType]
    decks: dict[str, Deck]
    effects: dict[str, EffectKind] = Field(default_factory=dict)
    rules: dict[str, ValueSpec] = Field(default_factory=dict)
    plugin: str | None = Field(None, description="Python file beside game.yml with extra checks.")
    rulebook: str | None = Field(None, description="Rulebook template, relative to templates/<game>/.")
    credits: list[str] = Field(default_factory=list)
    setup: Setup | None = Field(None, description="How the game is set up (Tabletop Simulator tables, the "
                                                  "rulebook's set-up figure, the simulator's first position).")


# --- a version file ---------------------------------------------------------------------------


class Symbol(Strict):
    """A named thing that cards and effects refer to (a metal, a suit, a colour...)."""

    kind: str | None = None
    name: str | None = None
    colour: Colour | None = None
    icon: str | None = None
    rarity: str | None = None
    inert: StrictBool | None = Field(None, description="True: no effect may be tied to this symbol.")
    any: StrictBool | None = Field(None, description="True: stands for any symbol of its kind.")
    description: str | None = None


class EffectEntry(Open):
    do: str = Field(description="Effect kind, a key of the game's `effects`.")
    when: str | None = Field(None, description="Symbol that triggers the effect (or an 'any' symbol).")


class CardEntry(Open):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    type: str
    name: str
    count: StrictInt = Field(1, ge=0, le=10_000)
    art: str | None = None
    flavour: str | None = None
    effects: list[EffectEntry] = Field(default_factory=list)
    note: str | None = Field(None, description="Designer's note on this card (not printed).")


class CardOverride(Open):
    id: str
    type: str | None = None
    name: str | None = None
    count: StrictInt | None = Field(None, ge=0, le=10_000)
    art: str | None = None
    flavour: str | None = None
    effects: list[EffectEntry] | None = None
    note: str | None = None


class Claim(Strict):
    """A statement of the designer's about counts, checked against the data.

    Claims are inherited claim by claim: a later version's claim with the same key (its `id`, else
    what it counts: deck, symbol and field) takes the inherited one's place, `withdrawn: true`
    drops it, and `replace_claims: true` in a version drops them all."""

    id: str | None = Field(None, description="The claim's key across versions; default: what it counts "
                                             "(deck, symbol and field).")
    withdrawn: StrictBool = Field(False, description="True: this version no longer makes the inherited claim "
                                                      "with this key.")
    deck: str | None = None
    total: StrictInt | None = None
    symbol: str | None = None
    field: str | None = Field(None, description="Card field holding the symbol (for symbol claims).")
    count: StrictInt | None = None
    share: str | None = Field(None, pattern=r"^\d+/\d+$")
    says: str | None = Field(None, description="The designer's words this claim comes from.")


def claim_key(claim: Claim) -> str:
    """What identifies a claim across versions: its `id`, else what it counts."""
    if claim.id:
        return claim.id
    return ", ".join(f"{name} {value}" for name, value in
                     (("deck", claim.deck), ("symbol", claim.symbol), ("field", claim.field)) if value)


class FeedbackLines(Strict):
    positive: list[str] = Field(default_factory=list)
    negative: list[str] = Field(default_factory=list)
    ideas: list[str] = Field(default_factory=list)


class Feedback(FeedbackLines):
    language: str = "en"
    translation: FeedbackLines | None = Field(
        None, description="The same lines in the game's language, one for one (feedback received in another).")


class Notes(Strict):
    changes: list[str] = Field(default_factory=list, description="The designer's change notes.")
    feedback: Feedback | None = None
    choices: list[str] = Field(default_factory=list, description="Authoring choices where the seed is silent.")
    problems: list[str] = Field(default_factory=list, description="Known problems of this version.")
    questions: list[str] = Field(default_factory=list,
                                 description="Open design questions (the rulebook's open-question boxes are added to them).")


class VersionFile(Strict):
    extends: str | None = None
    title: str | None = None
    date: str | None = None
    summary: str | None = None
    style: dict[str, Any] = Field(
        default_factory=dict, description="Presentation settings read by the templates (inherited, key by key)."
    )
    rules: dict[str, Any] = Field(default_factory=dict)
    symbols: dict[str, Symbol] = Field(default_factory=dict)
    cards: list[CardEntry] = Field(default_factory=list)
    override: list[CardOverride] = Field(default_factory=list)
    remove: list[str] = Field(default_factory=list)
    table: str | None = Field(
        None,
        description="CSV or XLSX file, relative to this version file, whose rows add or override cards "
        "by id after this file's own changes; blank cells keep the inherited value, count 0 removes a card.",
    )
    claims: list[Claim] = Field(
        default_factory=list,
        description="Counts the designer states, checked by validate. Inherited: a claim with the key (id, else "
                    "deck, symbol and field) of an inherited one replaces it; withdrawn: true drops it.")
    replace_claims: StrictBool = Field(
        False, description="True: this version's claims replace every inherited claim instead of merging with them.")
    unused_decks: list[str] = Field(
        default_factory=list,
        description="Decks the game declares but this version does not use (not inherited): no warning that "
                    "they are empty, and an error if they hold cards.")
    notes: Notes = Field(default_factory=Notes)
    setup: Setup | None = Field(None, description="Changes to the inherited set-up, place by place (by id).")


# --- validation with locations ----------------------------------------------------------------


M = TypeVar("M", bound=BaseModel)


def parse_model(model: type[M], doc: YamlDocument) -> M:
    """Validate a document against a model; every problem becomes a file:line:column line."""
    try:
        return model.model_validate(doc.data)
    except ValidationError as exc:
        errors: list[CardgenError] = [config_error(model, doc, err) for err in exc.errors()]
        raise InputErrors(errors) if len(errors) > 1 else errors[0] from None


def config_error(model: type[BaseModel], doc: YamlDocument, err: ErrorDetails) -> InputError:
    path = tuple(p for p in err["loc"] if not (isinstance(p, str) and _is_union_tag(p)))
    kind = err["type"]
    if kind == "extra_forbidden":
        key = path[-1]
        allowed = _allowed_keys(model, path[:-1])
        close = difflib.get_close_matches(str(key), allowed, n=1)
        hint = (f"; expected one of: {', '.join(allowed)}" if allowed else "") + (
            f"; did you mean '{close[0]}'?" if close else "")
        return InputError(f"unknown key '{key}'{hint}", doc.loc(*path, "__key__"))
    if kind == "missing":
        return InputError(f"missing required key '{path[-1]}'", doc.loc(*path[:-1]))
    value = err.get("input")
    found = f", found {type_name(value)}" + (f" {value!r}" if isinstance(value, (str, int, float)) else "")
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    return InputError(f"{where}: {_expected(err)}{found}", doc.loc(*path))


def _expected(err: ErrorDetails) -> str:
    msg = err["msg"]
    msg = msg[0].lower() + msg[1:]
    msg = msg.removeprefix("value error, ")  # a validator's own words say what was expected
    # pydantic's class names and Python's words mean nothing in a YAML file
    msg = re.sub(r" or instance of \w+", "", msg).replace("a valid dictionary", "a mapping (key: value)")
    msg = msg.replace("a valid tuple", "a list")
    return msg.replace("input should be", "expected").replace("should be", "expected")


def _is_union_tag(p: str) -> bool:
    return p in {"str", "Size", "int", "float", "list[str]", "dict[int,int]"} or p.startswith(("function-", "constrained-"))


def _allowed_keys(model: type[BaseModel], path: tuple) -> list[str]:
    """Walk the model along `path` to list the keys allowed where an unknown key was found."""
    current: Any = model
    for part in path:
        if isinstance(part, int):
            continue
        fields = getattr(current, "model_fields", None)
        if fields is None or part not in fields:
            # inside a dict[str, Model]: the key is a name chosen by the user
            current = _dict_value_model(current)
            if current is None:
                return []
            continue
        current = _inner_model(fields[part].annotation)
        if current is None:
            return []
    fields = getattr(current, "model_fields", None)
    return sorted(fields) if fields else []


def _inner_model(annotation: Any) -> Any:
    """The model a field holds: itself, the items of a list, one side of a union, or
    ("dict", model) for a mapping of names the user chooses (card_types, fields, sizes)."""
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) is dict:  # before the arguments: its key type is not the model
        return ("dict", _inner_model(typing.get_args(annotation)[1]))
    for arg in typing.get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _dict_value_model(current: Any) -> Any:
    if isinstance(current, tuple) and current[0] == "dict":
        return current[1]
    return None


def json_schemas() -> dict[str, dict]:
    """JSON Schemas for the two file kinds, for `cardgen schema` and the editors' language server."""
    return {
        "game": _schema(GameFile, "cardgen game.yml"),
        "version": _schema(VersionFile, "cardgen version file"),
    }


def _schema(model: type[BaseModel], title: str) -> dict:
    schema = model.model_json_schema()
    schema["title"] = title
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
