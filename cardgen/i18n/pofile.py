"""Reading one PO catalog the way `msgfmt --check` reads it: every problem is an error naming the
file and the entry's line, never a misread translation or an internal error.

Babel's reader (`read_po`) does the reading, but it trusts the text: it drops the last character
of an unterminated string (`msgstr "Woodcutte`), takes an unquoted one minus its first and last
(`oodcutte`), merges a duplicate msgid, and its header parsing raises plain ValueErrors or
LookupErrors. So before Babel sees a catalog, `scan` checks its syntax line by line (quoted
strings with the escapes Babel understands, keywords in the order of an entry) and `header`
checks what Babel would choke on or guess (charset, Plural-Forms, Language). After Babel,
`checks` compares every translation with its msgid: the number of plural forms, `%(name)s`
placeholders (Jinja formats every template message with them) and the `{{ ... }}` of a sentence
template. `#|` lines (the previous msgid of a fuzzy entry, which Babel would turn into a comment)
are read back into `Message.previous_id`, so writing a catalog back gives the same bytes.
"""

from __future__ import annotations

import codecs
import gettext
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.messages.catalog import PYTHON_FORMAT, Catalog
from babel.messages.pofile import PoFileError, read_po, unescape
from jinja2 import Environment, TemplateSyntaxError

from ..errors import Finding, InputError, InputErrors, Loc

MAX_PLURALS = 6  # the most any language has (CLDR: Arabic)
PLURAL_PROBE = (*range(0, 1001), 10**4, 10**5, 10**6, 10**9)  # the numbers a plural rule must answer
KEYWORD_RE = re.compile(r"(msgctxt|msgid_plural|msgid|msgstr\[(\d+)\]|msgstr)(?=\s|$)")
ESCAPES = 'ntr"\\'  # what Babel's unescape turns back into characters; any other is read literally
CHARSET_RE = re.compile(rb"charset=([A-Za-z0-9_.:-]+)")
JINJA_EXPR_RE = re.compile(r"\{\{(.*?)\}\}", re.S)
TEMPLATE_LOCATION_RE = re.compile(r"\.j2(:\d+)?(\s|$)")


class CatalogError(InputError):
    """A PO catalog that cannot be read as written, or whose translations do not fit their msgids."""


@dataclass
class Entry:
    """One entry as written, for the checks Babel does not make and for locating them."""

    line: int  # of its msgid keyword (Babel's Message.lineno)
    obsolete: bool
    msgctxt: str | None = None
    msgid: str | None = None
    plural: str | None = None
    strings: dict[int, str] = field(default_factory=dict)  # msgstr index -> text (plain msgstr: 0)
    indexed: bool = False  # msgstr[N] rather than msgstr
    parts: list[tuple[str, int, str]] = field(default_factory=list)  # (keyword, line, decoded part)
    previous: list[str] = field(default_factory=list)  # `#| msgid` / `#| msgid_plural`, decoded
    flags: set[str] = field(default_factory=set)  # `#, fuzzy, python-format`
    template: bool = False  # a template's message (`#: templates/x.svg.j2:4`): Jinja %-formats it


def read(path: Path, lang: str | None, raw: bytes) -> tuple[Catalog, list[Finding]]:
    """The catalog in `raw` (the bytes of `path`, a catalog of language `lang`) and the warnings
    about it; `CatalogError`(s) for everything msgfmt --check would refuse."""
    charset = _charset(path, raw)
    text = _decode(path, raw, charset)
    lines = text.split("\n")
    entries = _scan(path, lines)
    head = next((e for e in entries if e.msgid == "" and e.msgctxt is None and not e.obsolete), None)
    plural_line = _header(path, lang, head, charset, entries)
    _no_duplicates(path, lang, entries)
    for_babel = ["" if _previous_line(line) else line for line in lines]
    try:
        catalog = read_po(for_babel, locale=lang, charset=charset, abort_invalid=True)
    except PoFileError as exc:  # a problem scan did not foresee; Babel's line is 0-based
        raise CatalogError(f"not a readable PO catalog: {exc.args[0] if exc.args else exc}",
                           Loc(path, exc.lineno + 1)) from None
    except (ValueError, LookupError, TypeError) as exc:  # raised while Babel reads the header
        raise CatalogError(f"the header cannot be read: {exc}", Loc(path, head.line if head else 1)) from None
    # the rule Babel will pluralise by (the header's, or the language's own without one), checked
    nplurals, plural = catalog.num_plurals, catalog.plural_expr
    rule = _plural_rule(Loc(path, plural_line), nplurals, plural)
    _form_counts(path, lang, entries, nplurals)
    _attach_previous(catalog, entries)
    warnings = _check_translations(path, lang, entries, nplurals, rule)
    return catalog, warnings


# --- bytes -> text -------------------------------------------------------------------------------


def _charset(path: Path, raw: bytes) -> str:
    """The charset the header declares (utf-8 without one); it must be one Python knows and that
    keeps the ASCII of the PO syntax as it is."""
    first_entries = raw.split(b"\nmsgid ", 2)
    head = b"\nmsgid ".join(first_entries[:2])
    m = CHARSET_RE.search(head)
    if m is None:
        return "utf-8"
    name = m.group(1).decode("ascii")
    line = raw.count(b"\n", 0, m.start()) + 1
    try:
        codecs.lookup(name)
        ascii_safe = 'msgid "\\"\n'.encode(name) == b'msgid "\\"\n'
    except (LookupError, ValueError, UnicodeError):
        raise CatalogError(f"unknown charset '{name}' in the header's Content-Type (expected one such as "
                           "UTF-8 or ISO-8859-1)", Loc(path, line)) from None
    if not ascii_safe:
        raise CatalogError(f"charset '{name}' cannot hold a PO catalog's syntax (expected an ASCII-compatible "
                           "charset such as UTF-8)", Loc(path, line))
    return name.lower()


def _decode(path: Path, raw: bytes, charset: str) -> str:
    if raw.startswith(codecs.BOM_UTF8) and codecs.lookup(charset).name == "utf-8":
        raw = raw[len(codecs.BOM_UTF8):]
    try:
        return raw.decode(charset)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise CatalogError(f"byte 0x{raw[exc.start]:02x} is not {charset} text (the charset the header declares, "
                           "UTF-8 without one)", Loc(path, line, column)) from None


# --- syntax ----------------------------------------------------------------------------------------


def _previous_line(line: str) -> bool:
    return line.strip().startswith("#|")


def _string(path: Path, raw_line: str, number: int, start: int) -> str:
    """The quoted string that starts at raw_line[start], decoded; nothing but blanks may follow."""
    if start >= len(raw_line) or raw_line[start] != '"':
        raise CatalogError(f"expected a quoted string, got {raw_line[start:start + 20]!r}", Loc(path, number, start + 1))
    i = start + 1
    while i < len(raw_line):
        ch = raw_line[i]
        if ch == "\\":
            if i + 1 >= len(raw_line) or raw_line[i + 1] not in ESCAPES:
                raise CatalogError(f"unknown escape {raw_line[i:i + 2]!r} (expected \\n, \\t, \\r, \\\" or \\\\)",
                                   Loc(path, number, i + 1))
            i += 2
            continue
        if ch == '"':
            if raw_line[i + 1:].strip():
                raise CatalogError(f"unexpected {raw_line[i + 1:].strip()[:20]!r} after the closing quote "
                                   "(expected one quoted string per line)", Loc(path, number, i + 2))
            return unescape(raw_line[start:i + 1])
        i += 1
    raise CatalogError('the string is not closed (expected a " before the end of the line)',
                       Loc(path, number, start + 1))


def _scan(path: Path, lines: list[str]) -> list[Entry]:
    """Every entry, checked for the syntax Babel takes on trust. A comment ends an entry (as in
    Babel): the comments before a msgid belong to it."""
    entries: list[Entry] = []
    entry: Entry | None = None  # the entry being read; None after a comment
    keyword: str | None = None  # the keyword the next "..." line continues
    comments: list[str] = []  # `#|` parts and `#,` / `#:` lines waiting for their entry
    for number, raw_line in enumerate(lines, start=1):
        line = raw_line.strip()
        if not line:
            continue
        obsolete = line.startswith("#~")
        if obsolete:
            after = raw_line[raw_line.index("#~") + 2:]
            line, offset = after.strip(), raw_line.index("#~") + 2 + len(after) - len(after.lstrip())
            if not line or line.startswith(("#", "|")):
                continue  # a comment of an obsolete entry
        elif line.startswith("#"):
            _close(path, entry)
            entry, keyword = None, None
            comments.append(_previous_part(path, raw_line, number) if line.startswith("#|") else line)
            continue
        else:
            offset = len(raw_line) - len(raw_line.lstrip())
        if line.startswith('"'):
            if entry is None or keyword is None:
                raise CatalogError("a string outside an entry (expected msgid, msgstr or a comment first)",
                                   Loc(path, number, offset + 1))
            if entry.obsolete != obsolete:
                raise _mixed(path, number, entry)
            _add_part(entry, keyword, number, _string(path, raw_line, number, offset))
            continue
        m = KEYWORD_RE.match(line)
        if m is None:
            raise CatalogError(f"unknown keyword {line.split()[0][:30]!r} (expected msgid, msgid_plural, msgstr, "
                               "msgstr[N], msgctxt, a comment or a quoted string)", Loc(path, number, offset + 1))
        word, index = m.group(1), m.group(2)
        rest = line[m.end():]
        if rest[:1] not in (" ", ""):  # Babel splits a keyword from its string at a space
            raise CatalogError(f"expected a space after {word}", Loc(path, number, offset + m.end() + 1))
        value = _string(path, raw_line, number, offset + m.end() + len(rest) - len(rest.lstrip()))
        starts = word == "msgctxt" or (word == "msgid" and (entry is None or entry.msgid is not None
                                                           or entry.msgctxt is None))
        if starts:
            _close(path, entry)
            entry = Entry(number, obsolete)
            _take_comments(entry, comments)
            comments = []
            entries.append(entry)
        if entry is None:
            raise CatalogError(f"{word} before its entry's msgid (expected msgid first)", Loc(path, number, offset + 1))
        if entry.obsolete != obsolete:
            raise _mixed(path, number, entry)
        _keyword(path, entry, word, index, number, offset)
        keyword = word if index is None else f"msgstr[{index}]"
        _add_part(entry, keyword, number, value)
    _close(path, entry)
    return entries


def _close(path: Path, entry: Entry | None) -> None:
    if entry is None:
        return
    if entry.msgid is None:
        raise CatalogError("msgctxt without a msgid (expected msgid after it)", Loc(path, entry.line))
    if not entry.strings:
        raise _no_msgstr(path, entry)


def _take_comments(entry: Entry, comments: list[str]) -> None:
    for comment in comments:
        if comment.startswith("#,"):
            entry.flags.update(flag.strip() for flag in comment[2:].split(","))
        elif comment.startswith("#:"):
            entry.template |= bool(TEMPLATE_LOCATION_RE.search(comment))
        elif not comment.startswith("#"):
            entry.previous.append(comment)


def _previous_part(path: Path, raw_line: str, number: int) -> str:
    """The text of a `#| msgid "..."` line (its keyword checked), for the entry that follows."""
    body = raw_line.strip()[2:].strip()
    start = raw_line.index(body[:1]) if body else len(raw_line)
    m = KEYWORD_RE.match(body)
    if m is not None and m.group(1) in ("msgid", "msgid_plural", "msgctxt"):
        start = raw_line.index(body) + m.end() + (len(body[m.end():]) - len(body[m.end():].lstrip()))
        return f"{m.group(1)}\0{_string(path, raw_line, number, start)}"
    return f"\0{_string(path, raw_line, number, start)}"  # a continuation


def _keyword(path: Path, entry: Entry, word: str, index: str | None, number: int, offset: int) -> None:
    """`word` is allowed at this point of `entry` (msgctxt, msgid, msgid_plural, msgstr / msgstr[N])."""
    where = Loc(path, number, offset + 1)
    if word == "msgctxt":
        if entry.msgctxt is not None or entry.msgid is not None:
            raise CatalogError("msgctxt after the entry's msgid (expected it before msgid)", where)
        entry.msgctxt = ""
    elif word == "msgid":
        entry.line, entry.msgid = number, ""
    elif word == "msgid_plural":
        if entry.msgid is None or entry.plural is not None or entry.strings:
            raise CatalogError("msgid_plural not right after a msgid", where)
        entry.plural = ""
    elif entry.msgid is None:
        raise CatalogError(f"{word} before the entry's msgid", where)
    elif index is None:
        if entry.plural is not None:
            raise CatalogError("msgstr in an entry with msgid_plural (expected msgstr[0], msgstr[1], ...)", where)
        if entry.strings:
            raise CatalogError("a second msgstr in one entry", where)
        entry.strings[0] = ""
    else:
        if entry.plural is None:
            raise CatalogError(f"{word}[{index}] in an entry without msgid_plural (expected msgstr)", where)
        if int(index) != len(entry.strings):
            raise CatalogError(f"msgstr[{index}] out of order (expected msgstr[{len(entry.strings)}])", where)
        entry.indexed = True
        entry.strings[int(index)] = ""


def _add_part(entry: Entry, keyword: str, number: int, value: str) -> None:
    entry.parts.append((keyword, number, value))
    if keyword == "msgctxt":
        entry.msgctxt = (entry.msgctxt or "") + value
    elif keyword == "msgid":
        entry.msgid = (entry.msgid or "") + value
    elif keyword == "msgid_plural":
        entry.plural = (entry.plural or "") + value
    else:
        index = int(keyword[7:-1]) if keyword != "msgstr" else 0
        entry.strings[index] += value


def _mixed(path: Path, number: int, entry: Entry) -> CatalogError:
    return CatalogError(f"an entry partly obsolete (#~) and partly not (its msgid is at line {entry.line})",
                        Loc(path, number))


def _no_msgstr(path: Path, entry: Entry) -> CatalogError:
    return CatalogError(f"msgid {_short(entry.msgid or '')} has no msgstr (expected msgstr \"...\", "
                        "empty when untranslated)", Loc(path, entry.line))


# --- the header ------------------------------------------------------------------------------------


def _header(path: Path, lang: str | None, head: Entry | None, charset: str, entries: list[Entry]) -> int:
    """Check the header fields Babel reads without checking; the line of its Plural-Forms (of the
    header, or 1, when it has none)."""
    fields: dict[str, tuple[str, int]] = {}  # lower-case name -> (value, line)
    for keyword, number, part in head.parts if head is not None else []:
        for text in part.split("\n") if keyword == "msgstr" else []:
            name, colon, value = text.partition(":")
            if colon and name.strip():
                fields[name.strip().lower()] = (value.strip(), number)
    declared = fields.get("content-type")
    if declared is not None:
        m = re.search(r"charset=([^\s;]+)", declared[0])
        if m is None or m.group(1).lower() != charset:
            raise CatalogError(f"the header's Content-Type {declared[0]!r} is not where cardgen looks for the "
                               "charset (expected 'text/plain; charset=UTF-8' in the first entry)",
                               Loc(path, declared[1]))
    language = fields.get("language")
    if language is not None and language[0]:
        _check_language(path, lang, *language)
    forms = fields.get("plural-forms")
    if forms is not None:
        _plural_forms(path, *forms)
        return forms[1]
    first_plural = next((e for e in entries if e.plural is not None and not e.obsolete), None)
    if first_plural is not None and lang is not None:  # a template (.pot) has no language to pluralise by
        raise CatalogError("the catalog has plural translations but its header has no Plural-Forms (expected "
                           "\"Plural-Forms: nplurals=2; plural=(n != 1);\\n\")", Loc(path, head.line if head else 1))
    return head.line if head is not None else 1


def _check_language(path: Path, lang: str | None, value: str, line: int) -> None:
    try:
        said = Locale.parse(value.replace("-", "_"))
    except (UnknownLocaleError, ValueError, TypeError):
        raise CatalogError(f"the header's Language {value!r} is not a language code (expected one such as "
                           f"{lang or 'nl'})", Loc(path, line)) from None
    if lang is not None:
        try:
            meant = Locale.parse(lang.replace("-", "_"))
        except (UnknownLocaleError, ValueError):
            return
        if said.language != meant.language:
            raise CatalogError(f"the header's Language is {value!r} but the catalog is the '{lang}' one "
                               f"(expected Language: {lang})", Loc(path, line))


EXPECTED_FORMS = "(expected e.g. 'nplurals=2; plural=(n != 1);')"


def _plural_forms(path: Path, value: str, line: int) -> None:
    """Plural-Forms as written: a number of forms and a C expression of n."""
    params = {}
    for part in value.split(";"):
        name, eq, setting = part.partition("=")
        if eq:
            params[name.strip()] = setting.strip()
    count = params.get("nplurals", "")
    if not count.isdigit() or not 1 <= int(count) <= MAX_PLURALS:
        raise CatalogError(f"Plural-Forms: nplurals={count!r} is not a number of forms from 1 to {MAX_PLURALS} "
                           f"{EXPECTED_FORMS}", Loc(path, line))
    _plural_rule(Loc(path, line), int(count), params.get("plural", ""))


def _plural_rule(where: Loc, nplurals: int, plural: str) -> Callable[[int], int]:
    """The plural rule `plural`, which must answer every number with a form from 0 to nplurals - 1."""
    try:
        rule = gettext.c2py(plural)
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        raise CatalogError(f"Plural-Forms: plural={plural!r} is not a C expression of n {EXPECTED_FORMS}",
                           where) from None
    for n in PLURAL_PROBE:
        try:
            index = rule(n)
        except (ArithmeticError, ValueError, TypeError, RecursionError):
            raise CatalogError(f"Plural-Forms: plural={plural!r} cannot be computed for n={n} (division by zero?) "
                               f"{EXPECTED_FORMS}", where) from None
        if not 0 <= index < nplurals:
            raise CatalogError(f"Plural-Forms: plural={plural!r} gives form {index} for n={n}, but nplurals={nplurals} "
                               f"(expected 0 to {nplurals - 1})", where)
    return rule


def _form_counts(path: Path, lang: str | None, entries: list[Entry], nplurals: int) -> None:
    for e in entries:
        if e.plural is not None and not e.obsolete and e.msgid and len(e.strings) != nplurals:
            raise CatalogError(f"msgid {_short(e.msgid)} ({_in(lang)}) has {len(e.strings)} plural form(s), the "
                               f"header's Plural-Forms {nplurals} (expected msgstr[0] to msgstr[{nplurals - 1}])",
                               Loc(path, e.line))


# --- entries ---------------------------------------------------------------------------------------


def _no_duplicates(path: Path, lang: str | None, entries: list[Entry]) -> None:
    seen: dict[tuple[str | None, str | None], int] = {}
    problems = []
    for e in entries:
        if e.obsolete:
            continue
        key = (e.msgctxt, e.msgid)
        if key in seen:
            problems.append(CatalogError(f"msgid {_short(e.msgid or '')} is already translated at line {seen[key]} "
                                         f"({_in(lang)}; expected each msgid once)", Loc(path, e.line)))
        else:
            seen[key] = e.line
    _raise(problems)


def _attach_previous(catalog: Catalog, entries: list[Entry]) -> None:
    """`#|` lines back onto their messages (Babel reads them as translator comments)."""
    by_line = {m.lineno: m for m in [*catalog, *catalog.obsolete.values()]}
    for e in entries:
        if not e.previous or e.line not in by_line:
            continue
        ids: list[str] = []
        for part in e.previous:
            word, _, text = part.partition("\0")
            if word in ("msgid", "msgid_plural"):
                ids.append(text)
            elif word == "" and ids:
                ids[-1] += text
        by_line[e.line].previous_id = ids


def _check_translations(path: Path, lang: str | None, entries: list[Entry], nplurals: int,
                        rule: Callable[[int], int]) -> list[Finding]:
    """Every translated form against its msgid: %(name)s placeholders (and, in a template message,
    a valid %-format), {{ ... }} of a sentence template. Errors raise; harmless gaps are warnings."""
    single = {i for i in range(nplurals) if sum(1 for n in range(1001) if rule(n) == i) == 1}
    problems: list[CatalogError] = []
    warnings: list[Finding] = []
    for e in entries:
        if e.obsolete or not e.msgid or "fuzzy" in e.flags:
            continue
        sources = [e.msgid] if e.plural is None else [e.msgid, e.plural]
        for index, text in sorted(e.strings.items()):
            if not text:
                continue
            label = "msgstr" if e.plural is None else f"msgstr[{index}]"
            formatted = e.template or "python-format" in e.flags
            found = _placeholder_problems(sources, text, formatted)
            if not found:
                continue
            where = Loc(path, e.line)
            message = f"{label} of msgid {_short(e.msgid)} ({_in(lang)}) " + "; ".join(p for p, _ in found)
            if all(harmless for _, harmless in found) and e.plural is not None and index in single:
                warnings.append(Finding("warning", "translation-placeholder",
                                        message + " (right only if this form is used for one number alone)", where))
            else:  # one line per translated form, however many placeholders it gets wrong
                problems.append(CatalogError(message, where))
    _raise(problems)
    return warnings


class _AnyValue(dict):
    def __missing__(self, key):
        return 0


def _placeholder_problems(sources: list[str], text: str, formatted: bool) -> list[tuple[str, bool]]:
    """What is wrong with `text` as a translation of `sources` (msgid, msgid_plural): (problem,
    harmless-when-the-form-covers-one-number)."""
    problems: list[tuple[str, bool]] = []
    wanted = {name for s in sources for name in _named(s)}
    if wanted or formatted:
        try:
            text % _AnyValue()
        except (ValueError, TypeError, KeyError) as exc:
            problems.append((f"is not a valid %-format ({exc}; write a literal % as %%)", False))
            return problems
        have = _named(text)
        for name in sorted(have - wanted):
            problems.append((f"uses %({name})s, which the msgid does not have", False))
        for name in sorted(wanted - have):
            problems.append((f"leaves out %({name})s (expected every placeholder of the msgid)", True))
    if any("{{" in s or "{%" in s for s in sources):
        try:
            Environment().parse(text)
        except TemplateSyntaxError as exc:
            problems.append((f"is not a valid sentence template: {exc.message} (expected the msgid's "
                             "{{ ... }} as they are)", False))
            return problems
        wanted_expr = {e for s in sources for e in _expressions(s)}
        have_expr = _expressions(text)
        for expr in sorted(have_expr - wanted_expr):
            problems.append((f"uses {{{{ {expr} }}}}, which the msgid does not have", False))
        for expr in sorted(wanted_expr - have_expr):
            problems.append((f"leaves out {{{{ {expr} }}}} (expected every {{{{ ... }}}} of the msgid)", True))
    return problems


def _named(text: str) -> set[str]:
    return {m.group(1) for m in PYTHON_FORMAT.finditer(text) if m.group(1)}


def _expressions(text: str) -> set[str]:
    return {" ".join(m.group(1).split()) for m in JINJA_EXPR_RE.finditer(text)}


def _in(lang: str | None) -> str:
    return f"translation into '{lang}'" if lang else "template catalog"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= 50 else text[:47] + "...")


def _raise(problems: list[CatalogError]) -> None:
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise InputErrors(problems)

