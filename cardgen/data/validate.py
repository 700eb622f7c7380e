"""The validator: checks a resolved snapshot against the game's own declarations.

Core checks know only the generic format (card types, fields, symbols, effects, rules, decks,
claims). A game may add checks of its own in a plug-in beside its data (`plugin:` in game.yml):
a Python file defining the hooks of the contract in `plugin.py`: `check(snapshot, report)` (and, for
`cardgen simulate`, `simulation(snapshot)`).
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from jinja2 import TemplateError

from .. import contain
from ..errors import BuildError, Finding, Loc
from ..words import counted
from . import cardtext
from . import setup as game_setup
from .model import PluralText, ValueSpec
from .plugin import HOOKS, defined_hooks, load_plugin
from .project import Project
from .snapshot import Card, Snapshot

COLOUR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")


class Report:
    """Collects findings; handed to plug-ins as `report(severity, code, message, card=, loc=)`."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []

    def __call__(self, severity: str, code: str, message: str, *, card: Card | str | None = None,
                 loc: Loc | None = None) -> None:
        if severity not in ("error", "warning"):
            raise ValueError(f"severity must be 'error' or 'warning', not {severity!r}")
        card_id = card.id if isinstance(card, Card) else card
        if loc is None and isinstance(card, Card):
            loc = card.where
        self.findings.append(Finding(severity, code, message, loc, card_id))

    def error(self, code: str, message: str, **kw) -> None:
        self("error", code, message, **kw)

    def warning(self, code: str, message: str, **kw) -> None:
        self("warning", code, message, **kw)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def validate(project: Project, snapshot: Snapshot, icons: contain.Icons | None = None) -> list[Finding]:
    """Every finding about a version's data. `cardgen.cardstage.draw_cards` runs it first, then
    renders every face and preflights it: the one stage `validate`, `build` and `serve` run
    (`icons`: the stage's pass over icons/, which its faces read next)."""
    report = Report()
    ctx = _Context(project, snapshot, report, icons)
    ctx.check_game()
    ctx.check_symbols()
    ctx.check_cards()
    ctx.check_sentence_icons()
    ctx.check_rules()
    ctx.check_claims()
    ctx.check_limits()
    game_setup.check(snapshot, report)
    report.findings += snapshot.remarks
    _check_translation(snapshot, report)
    run_plugin(snapshot, report)
    return sorted(report.findings, key=finding_order)


def _check_translation(snapshot: Snapshot, report: Report) -> None:
    """In a translation, every string of the data its catalogs lack (printed in the source language)."""
    translation = snapshot.translation
    if translation is None or translation.is_source:
        return
    for msgid, loc in translation.missing.items():
        text = " ".join(msgid.split())
        report.warning("untranslated", f"not translated into '{translation.lang}', printed in "
                       f"'{translation.source_lang}': {text if len(text) <= 60 else text[:57] + '...'!r}", loc=loc)


def finding_order(f: Finding):
    """The order findings are listed in: errors first, then by file and line."""
    return (0 if f.severity == "error" else 1, str(f.loc.file) if f.loc else "", f.loc.line if f.loc else 0)


class _Context:
    def __init__(self, project: Project, snapshot: Snapshot, report: Report, icons: contain.Icons | None = None):
        self.project = project
        self.s = snapshot
        self.game = snapshot.game
        self.report = report
        self.sentence_icons: dict[tuple[str, str], list[Card]] = {}  # (effect kind, icon) -> cards printing it
        self.icons = icons or contain.Icons(project.icons_dir)  # each read once for the whole validation

    # --- game-level declarations -------------------------------------------------------------

    def check_game(self) -> None:
        doc = self.game.source
        for tid, ctype in self.game.card_types.items():
            if ctype.deck not in self.game.decks:
                self.report.error("unknown-deck", f"card type '{tid}' names deck '{ctype.deck}', which is not in `decks`",
                                  loc=doc.loc("card_types", tid, "deck"))
            self._template_exists(ctype.template, doc.loc("card_types", tid, "template"))
            if ctype.size is not None and isinstance(ctype.size, str):
                self._size_exists(ctype.size, doc.loc("card_types", tid, "size"))
        if isinstance(self.game.file.card_size, str):
            self._size_exists(self.game.file.card_size, doc.loc("card_size"))
        for did, deck in self.game.decks.items():
            if deck.back:
                self._template_exists(deck.back, doc.loc("decks", did, "back"))
            if deck.art:
                self._icon_exists(deck.art, doc.loc("decks", did, "art"))
        if self.game.file.rulebook:
            self._template_exists(self.game.file.rulebook, doc.loc("rulebook"))
        for kid, kind in self.game.effect_kinds.items():
            try:
                for source in _sentence_sources(kind.text):
                    cardtext._template(source)
            except TemplateError as exc:
                self.report.error("bad-sentence", f"effect '{kid}': sentence template does not parse: {exc}",
                                  loc=doc.loc("effects", kid, "text"))

            if isinstance(kind.text, PluralText) and kind.text.count not in kind.params:
                self.report.error("bad-sentence", f"effect '{kid}': the plural sentence counts '{kind.text.count}', "
                                  f"which is not one of its parameters ({', '.join(kind.params) or 'none'})",
                                  loc=doc.loc("effects", kid, "text", "count"))

    def _template_exists(self, name: str, loc: Loc) -> None:
        path = self.project.templates_dir / self.game.id / name
        if not path.is_file():
            self.report.error("missing-template", f"template '{name}' not found (looked for {path})", loc=loc)

    def _icon_exists(self, name: str, loc: Loc, card: Card | None = None) -> None:
        self._icon_ok(name, loc, card)

    def _icon_ok(self, name: str, loc: Loc, card: Card | None = None, what: str | None = None) -> bool:
        """The icon is a plain name, inside icons/ (after links), and a real SVG file."""
        try:
            self.icons.read(name)
        except contain.OutsideProject as exc:
            self.report.error("outside-project", f"{what + ': ' if what else ''}{exc.message}", loc=loc, card=card)
        except contain.BadIcon as exc:
            code = "missing-icon" if "not found" in exc.message else "bad-icon"
            self.report.error(code, f"{what + ': ' if what else ''}{exc.message}", loc=exc.loc or loc, card=card)
        else:
            return True
        return False

    def _size_exists(self, name: str, loc: Loc) -> None:
        from .snapshot import NAMED_SIZES

        if name not in NAMED_SIZES and name not in self.game.file.sizes:
            known = sorted(set(NAMED_SIZES) | set(self.game.file.sizes))
            self.report.error("unknown-size", f"unknown size '{name}' (expected one of: {', '.join(known)})", loc=loc)

    # --- symbols -----------------------------------------------------------------------------

    def check_symbols(self) -> None:
        for sid, sym in self.s.symbols.items():
            loc = self.s.symbol_locs[sid]
            if not sym.name:
                self.report.error("incomplete-symbol", f"symbol '{sid}' has no name", loc=loc)
            if sym.colour and not COLOUR_RE.match(sym.colour):
                self.report.error("bad-colour", f"symbol '{sid}': colour '{sym.colour}' is not #rrggbb", loc=loc)
            if sym.icon:
                self._icon_exists(sym.icon, loc)
            else:
                self.report.warning("no-icon", f"symbol '{sid}' has no icon: cards will show its name instead", loc=loc)

    # --- cards -------------------------------------------------------------------------------

    def check_cards(self) -> None:
        for card in self.s.cards:
            ctype = self.game.card_types.get(card.type)
            if ctype is None:
                self.report.error("unknown-type", f"card type '{card.type}' is not declared in game.yml "
                                  f"(expected one of: {', '.join(self.game.card_types)})",
                                  card=card, loc=card.loc_of("type"))
                continue
            for name, value in card.fields.items():
                spec = ctype.fields.get(name)
                if spec is None:
                    allowed = ", ".join(sorted(ctype.fields)) or "none"
                    self.report.error("unknown-field", f"unknown field '{name}' for a {ctype.label} card "
                                      f"(expected one of: {allowed})", card=card, loc=card.loc_of(name))
                else:
                    self._check_value(spec, value, f"field '{name}'", card, card.loc_of(name))
            for name, spec in ctype.fields.items():
                if spec.required and card.fields.get(name) is None:
                    self.report.error("missing-field", f"{ctype.label} card needs field '{name}'", card=card)
            if card.art:
                self._icon_exists(card.art, card.loc_of("art"), card)
            if card.effects and not ctype.effects:
                self.report.error("effects-not-allowed", f"{ctype.label} cards carry no effects", card=card,
                                  loc=card.loc_of("effects"))
            for effect in card.effects:
                self._check_effect(card, effect)
        for did in self.game.decks:
            types = [t for t, ct in self.game.card_types.items() if ct.deck == did]
            unused = self.s.unused_decks.get(did)
            if unused is not None and self.s.deck_size(did):
                self.report.error("unused-deck", f"deck '{did}' is listed in unused_decks but holds "
                                  f"{self.s.deck_size(did)} cards in version {self.s.version}", loc=unused)
            elif types and unused is None and self.s.deck_size(did) == 0:
                self.report.warning("empty-deck", f"deck '{did}' has no cards in version {self.s.version} (list it "
                                    "under unused_decks if this version does not use it)")
        for did, loc in self.s.unused_decks.items():
            if did not in self.game.decks:
                self.report.error("unknown-deck", f"unused_decks names deck '{did}', which the game does not declare "
                                  f"(expected one of: {', '.join(self.game.decks)})", loc=loc)

    def _check_effect(self, card: Card, effect) -> None:
        kind = self.game.effect_kinds.get(effect.do)
        if kind is None:
            self.report.error("unknown-effect", f"unknown effect '{effect.do}' (expected one of: "
                              f"{', '.join(sorted(self.game.effect_kinds))})", card=card, loc=effect.loc)
            return
        if effect.when is not None:
            sym = self.s.symbols.get(effect.when)
            if sym is None:
                self.report.error("unknown-symbol", f"effect '{effect.do}' is tied to '{effect.when}', which is not "
                                  f"defined (expected one of: {', '.join(self.s.symbols)})", card=card, loc=effect.loc)
                return
            if sym.inert:
                self.report.error("inert-symbol", f"effect '{effect.do}' is tied to {sym.name or effect.when}, "
                                  f"which has no effects in version {self.s.version}", card=card, loc=effect.loc)
        ok = True
        for name, value in effect.params.items():
            spec = kind.params.get(name)
            if spec is None:
                self.report.error("unknown-param", f"effect '{effect.do}' has no parameter '{name}' (expected: "
                                  f"{', '.join(kind.params) or 'none'})", card=card, loc=effect.loc)
                ok = False
            else:
                ok &= self._check_value(spec, value, f"'{effect.do}' parameter '{name}'", card, effect.loc)
        for name, spec in kind.params.items():
            if spec.required and effect.params.get(name) is None:
                self.report.error("missing-param", f"effect '{effect.do}' needs parameter '{name}'", card=card,
                                  loc=effect.loc)
                ok = False
        if ok:
            try:
                runs = cardtext.effect_runs(self.s, effect)
            except cardtext.SentenceError as exc:
                self.report.error("bad-sentence", exc.message, card=card, loc=effect.loc)
                return
            symbol_icons = {sym.icon for sym in self.s.symbols.values()}
            for run in runs:
                if not isinstance(run, cardtext.IconRun) or run.icon in symbol_icons:
                    continue  # a symbol's icon is checked where the symbol is defined
                if run.icon in " ".join(_sentence_sources(kind.text)):  # written in game.yml's sentence
                    self.sentence_icons.setdefault((effect.do, run.icon), []).append(card)
                else:  # named by the card's own parameter
                    self._icon_ok(run.icon, effect.loc, card, f"icon('{run.icon}') in the sentence of '{effect.do}'")

    def check_sentence_icons(self) -> None:
        """An icon written in an effect's sentence, once at the sentence in game.yml (the cause),
        naming the cards that print it, instead of once per card."""
        for (kid, icon), cards in self.sentence_icons.items():
            ids = list(dict.fromkeys(c.id for c in cards))
            users = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
            self._icon_ok(icon, self.game.source.loc("effects", kid, "text"), cards[0],
                          f"icon('{icon}') in the sentence of effect '{kid}' ({_count(len(ids), 'card')}: {users})")

    def _check_value(self, spec: ValueSpec, value: Any, what: str, card: Card | None, loc: Loc) -> bool:
        problem = value_problem(spec, value, self.s, self.project, self.icons)
        if problem:
            self.report.error("bad-value", f"{what}: {problem}", card=card, loc=loc)
        return problem is None

    # --- rules -------------------------------------------------------------------------------

    def check_rules(self) -> None:
        specs = self.game.rule_specs
        for key, value in self.s.rules.items():
            spec = specs.get(key)
            loc = self.s.rule_locs[key]
            if spec is None:
                self.report.error("unknown-rule", f"unknown rule '{key}' (expected one of: {', '.join(specs)})", loc=loc)
                continue
            if value is None or value == []:
                if not spec.nullable:
                    self.report.error("bad-value", f"rule '{key}' may not be empty", loc=loc)
                elif spec.warn_if_empty:
                    self.report.warning("empty-rule", f"version {self.s.version}: {spec.warn_if_empty}", loc=loc)
                continue
            problem = value_problem(spec, value, self.s, self.project, self.icons)
            if problem:
                self.report.error("bad-value", f"rule '{key}': {problem}", loc=loc)
        for key, spec in specs.items():
            if key not in self.s.rules:
                if spec.required:
                    self.report.error("missing-rule", f"version {self.s.version} does not set rule '{key}'",
                                      loc=Loc(self.s.info.file, 1, 1))
                elif spec.warn_if_empty:
                    self.report.warning("empty-rule", f"version {self.s.version}: {spec.warn_if_empty}",
                                        loc=Loc(self.s.info.file, 1, 1))

    # --- size limits -------------------------------------------------------------------------

    def check_limits(self) -> None:
        limits = self.project.config.limits
        where = f"set limits.{{}} in {self.project.root.name}/cardgen.yml to allow more"
        printed = sum(c.count for c in self.s.cards)
        loc = Loc(self.s.info.file, 1, 1)
        if printed > limits.printed_cards:
            biggest = max(self.s.cards, key=lambda c: c.count)
            self.report.error("too-large", f"version {self.s.version} prints {printed:,} cards, more than the limit "
                              f"of {limits.printed_cards:,} (largest: {biggest.count:,} x '{biggest.id}'); "
                              + where.format("printed_cards"), loc=biggest.loc_of("count"), card=biggest.id)
        if len(self.s.cards) > limits.different_cards:
            self.report.error("too-large", f"version {self.s.version} has {len(self.s.cards):,} different cards, more "
                              f"than the limit of {limits.different_cards:,}; " + where.format("different_cards"),
                              loc=loc)
        self._check_face_sizes(where)

    def _check_face_sizes(self, where: str) -> None:
        """Every drawn face (card, tile, board) within `limits.face_mm`: a board ten times too
        large would otherwise fail in cairo, mid-build, naming no data file."""
        from .project import MAX_FACE_MM
        from .snapshot import NAMED_SIZES

        limit = self.project.config.limits.face_mm
        bleed = self.game.file.bleed_mm
        for tid in dict.fromkeys(c.type for c in self.s.cards if c.type in self.game.card_types):
            ref = self.game.card_types[tid].size or self.game.file.card_size
            if isinstance(ref, str) and ref not in NAMED_SIZES and ref not in self.game.file.sizes:
                continue  # an unknown size: reported by check_game
            size = self.game.size_of(tid)
            longest = max(size.width_mm, size.height_mm) + 2 * bleed
            if longest > limit:
                first = next(c for c in self.s.cards if c.type == tid)
                fix = (where.format("face_mm") if longest <= MAX_FACE_MM else
                       f"no image larger than {MAX_FACE_MM:,} mm a side can be drawn at 300 DPI")
                self.report.error("too-large", f"card type '{tid}' measures {size.width_mm:g} x {size.height_mm:g} mm "
                                  f"({longest:g} mm with bleed), more than the limit of {limit:,} mm a side; {fix}",
                                  loc=self._size_loc(tid), card=first.id)

    def _size_loc(self, tid: str) -> Loc:
        """Where a card type's size is written: its named size in `sizes`, else its own `size`,
        else the game's `card_size`."""
        doc = self.game.source
        ref = self.game.card_types[tid].size
        loc = doc.loc("card_types", tid, "size") if ref is not None else doc.loc("card_size")
        ref = ref if ref is not None else self.game.file.card_size
        return doc.loc("sizes", ref) if isinstance(ref, str) and ref in self.game.file.sizes else loc

    # --- claims ------------------------------------------------------------------------------

    def check_claims(self) -> None:
        for claim, loc in zip(self.s.claims, self.s.claim_locs):
            says = f" (\"{claim.says}\")" if claim.says else ""
            if claim.deck is not None:
                if claim.deck not in self.game.decks:
                    self.report.error("unknown-deck", f"claim names unknown deck '{claim.deck}'", loc=loc)
                    continue
                actual = self.s.deck_size(claim.deck)
                if claim.total is not None and actual != claim.total:
                    card = self._counted_in_table(self.s.cards_in_deck(claim.deck))
                    self.report.error("deck-count", f"deck '{claim.deck}' should hold {claim.total} cards but holds "
                                      f"{actual}{says}", card=card, loc=card.loc_of("count") if card else loc)
            if claim.symbol is not None:
                self._check_symbol_claim(claim, loc, says)

    def _check_symbol_claim(self, claim, loc: Loc, says: str) -> None:
        if claim.symbol not in self.s.symbols:
            self.report.error("unknown-symbol", f"claim names unknown symbol '{claim.symbol}'", loc=loc)
            return
        count = self.s.symbol_count(claim.symbol, claim.field)
        carriers = [c for c in self.s.cards if claim.symbol in c.fields.values()]
        card = self._counted_in_table(carriers) or (carriers[0] if carriers else None)
        name = self.s.symbols[claim.symbol].name or claim.symbol
        if claim.count is not None and count != claim.count:
            self.report.error("deck-count", f"{name}: {count} cards, expected {claim.count}{says}",
                              card=card, loc=card.loc_of("count") if card else loc)
        if claim.share is not None:
            if claim.deck is None or claim.deck not in self.game.decks:
                self.report.error("bad-claim", "a share claim needs the deck it is a share of", loc=loc)
                return
            num, den = (int(x) for x in claim.share.split("/"))
            deck_total = self.s.deck_size(claim.deck)
            if deck_total == 0 or Fraction(count, deck_total) != Fraction(num, den):
                # the share moves with any count in the deck: a table row that changed one is the cause
                card = self._counted_in_table(self.s.cards_in_deck(claim.deck), changed_only=True) or card
                self.report.error("deck-share", f"{name}: {count} of {deck_total} cards is not {claim.share}{says}",
                                  card=card, loc=card.loc_of("count") if card else loc)


    def _counted_in_table(self, cards: list[Card], changed_only: bool = False) -> Card | None:
        """Of the cards a count claim counts, one whose count a spreadsheet row gives (one the
        row changed in this version first): a claim the table breaks points at the table's
        count cell, which the designer edits, rather than at the YAML claim or definition."""
        counted = [c for c in cards if c.from_row("count")]
        changed = [c for c in counted if c.changed_in == self.s.version]
        return next(iter(changed or ([] if changed_only else counted)), None)


def _count(n: int, word: str) -> str:
    """'1 card', '3 cards'."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _sentence_sources(text) -> list[str]:
    return [text.one, text.other] if isinstance(text, PluralText) else [text]


def value_problem(spec: ValueSpec, value: Any, snapshot: Snapshot, project: Project,
                  icons: contain.Icons) -> str | None:
    """Why `value` does not fit `spec`, or None (`icons`: the validation's pass over icons/)."""
    if value is None:
        return None if spec.nullable or not spec.required else "expected a value, found nothing"
    t = spec.type
    if t == "int" and (not isinstance(value, int) or isinstance(value, bool)):
        return f"expected a whole number, found {value!r}"
    if t == "number" and (not isinstance(value, (int, float)) or isinstance(value, bool)):
        return f"expected a number, found {value!r}"
    if t in ("int", "number"):
        if spec.min is not None and value < spec.min:
            return f"expected at least {spec.min:g}, found {value}"
        if spec.max is not None and value > spec.max:
            return f"expected at most {spec.max:g}, found {value}"
    if t in ("str", "text") and not isinstance(value, str):
        return f"expected text, found {value!r}"
    if t == "bool" and not isinstance(value, bool):
        return f"expected true or false, found {value!r}"
    if t == "enum" and value not in (spec.values or {}):
        return f"expected one of {', '.join(spec.values or {})}, found {value!r}"
    if t == "symbol":
        sym = snapshot.symbols.get(value) if isinstance(value, str) else None
        if sym is None:
            return f"'{value}' is not a defined symbol (expected one of: {', '.join(snapshot.symbols)})"
        if spec.of and sym.kind != spec.of:
            return f"'{value}' is a {sym.kind}, expected a {spec.of}"
    if t == "card_type" and value not in snapshot.game.card_types:
        return f"expected a card type ({', '.join(snapshot.game.card_types)}), found {value!r}"
    if t == "icon":
        if not isinstance(value, str):
            return f"expected an icon name, found {value!r}"
        try:
            icons.read(value)
        except BuildError as exc:
            return exc.message
    if t == "list" and not isinstance(value, list):
        return f"expected a list, found {value!r}"
    if t == "map" and not (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
        return f"expected a mapping of names to values, found {value!r}"
    if t in ("list", "map") and spec.of:
        item = ValueSpec(type=spec.of)
        for key, v in value.items() if t == "map" else enumerate(value):
            problem = value_problem(item, v, snapshot, project, icons)
            if problem:
                return f"{key}: {problem}" if t == "map" else problem
    return None


def run_plugin(snapshot: Snapshot, report: Report) -> None:
    """The game plug-in's `check` hook (see plugin.py for the contract). A plug-in is Python code
    with the user's own rights: it is loaded only from the game's folder (card_data/<game>/,
    after resolving links), and whatever goes wrong in it (a syntax error, an exception) is
    reported as one finding at its file:line."""
    name = snapshot.game.file.plugin
    if not name:
        return
    loc = snapshot.game.source.loc("plugin")
    try:
        path = contain.inside(snapshot.game.dir, name, "plug-in", loc)
    except contain.OutsideProject as exc:
        report.error("plugin", exc.message + " (a plug-in is code: it must live in the game's folder)", loc=loc)
        return
    if path.suffix != ".py":
        report.error("plugin", f"plug-in {name} is not a Python file (expected a name ending in .py)", loc=loc)
        return
    if not path.is_file():
        report.error("plugin", f"plug-in {name} not found beside game.yml", loc=loc)
        return
    try:
        module = load_plugin(path)
    except SyntaxError as exc:
        report.error("plugin", f"plug-in {name} has a syntax error: {exc.msg}",
                     loc=Loc(path, exc.lineno or 0, exc.offset or 0))
        return
    except Exception as exc:
        report.error("plugin", f"plug-in {name} failed while loading: {type(exc).__name__}: {exc}",
                     loc=_plugin_loc(exc, path))
        return
    if module is None:
        report.error("plugin", f"plug-in {name} not found beside game.yml", loc=loc)
        return
    hooks = defined_hooks(module)
    if not hooks:
        report.error("plugin", f"plug-in {name} defines none of the hooks cardgen calls "
                               f"({', '.join(f'{h}()' for h in HOOKS)}; see cardgen/data/plugin.py)", loc=loc)
        return
    if "check" not in hooks:
        return
    try:
        module.check(snapshot, report)
    except Exception as exc:  # a broken plug-in is a data problem, reported like one
        report.error("plugin", f"plug-in {name} failed: {type(exc).__name__}: {exc}", loc=_plugin_loc(exc, path))


def _plugin_loc(exc: BaseException, path: Path) -> Loc:
    """The innermost line of the plug-in in the exception's traceback."""
    found = Loc(path)
    tb = exc.__traceback__
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename) == path:
            found = Loc(path, tb.tb_lineno)
        tb = tb.tb_next
    return found


class ValidationFailed(BuildError):
    def __init__(self, errors: list[Finding], strict: bool = False, what: str = "built"):
        kind = "and --strict" if strict else "in the game data"
        super().__init__(f"{counted(len(errors), 'warning' if strict else 'error')} {kind}; nothing was {what}")
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join([str(e) for e in self.errors] + [self.message])

    def report_lines(self) -> list[str]:
        return [str(e) for e in self.errors] + [f"error: {self.message}"]
