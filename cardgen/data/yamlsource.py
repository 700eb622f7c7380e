"""Safe YAML loading that remembers where every value came from.

PyYAML's composer gives nodes with marks; we build plain Python data from them ourselves so that
(1) every path in the data maps to a file:line:column for error messages, (2) duplicate keys are
errors instead of silently overwritten, and (3) alias expansion is bounded (a "billion laughs"
file stops with an error instead of eating memory). Input size is bounded before parsing.

Each file's bytes are parsed once per process (`load` keeps the parse by content): resolving a
version reads its whole chain (3.1 -> 3 -> 2 -> 1), and build, validate, diff and every refresh
of `cardgen serve` resolve again, so after an edit only the edited file is parsed again. Each
load hands out its own copy of the data (callers change it: version names, merges); the
locations and raw scalars it shares are read-only.
"""

from __future__ import annotations

import datetime
import marshal
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError, Loc
from .readonly import ReadOnlyDict

MAX_FILE_BYTES = 1_000_000
MAX_NODES = 200_000  # after alias expansion
MAX_DEPTH = 64  # nesting of mappings and lists; real game data is under 10 deep
CACHE_BYTES = 2_000_000  # files' bytes the parse cache keeps, about 20 times that in memory (the seed games: 130 kB)


class Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2's plain scalars: only `true`/`false` are booleans and only plain
    decimals are numbers. YAML 1.1 would read `yes`, `no`, `on`, `off` as booleans and `017`,
    `0x1f`, `1_000`, `1:30` as numbers (`count: 017` became 15); here they stay text, so a field
    that expects a number or a boolean refuses them with a clear message instead of guessing."""


Loader.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in value if tag not in (
        "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
    for key, value in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"), list("-+0123456789"))
Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?[0-9]+[eE][-+]?[0-9]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+0123456789."))

if getattr(yaml, "__with_libyaml__", False):
    from yaml.cyaml import CParser  # type: ignore[attr-defined]  # (not in the stubs' exports)

    class _FastLoader(CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
        """The same rules parsed by libyaml (C): about ten times faster than PyYAML's own parser,
        which was most of a no-op rebuild's time. Its nodes carry the same marks."""

        def __init__(self, stream):
            CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

    _FastLoader.yaml_implicit_resolvers = Loader.yaml_implicit_resolvers
    _PARSER: type = _FastLoader
else:  # PyYAML built without libyaml: the pure-Python parser, same results
    _PARSER = Loader

Path_ = tuple  # a path into the data: keys and list indexes


Position = tuple[int, int]  # 1-based line and column


@dataclass
class YamlDocument:
    """Plain data from one YAML file plus the position of every value (by path)."""

    file: Path
    data: Any
    positions: Mapping[tuple, Position] = field(default_factory=dict)  # path -> (line, column); "__key__": its key
    raw: Mapping[tuple, str] = field(default_factory=dict)  # scalars as written (so `3.10` stays "3.10")

    def loc(self, *path: Any) -> Loc:
        """The location of `path`, or of its nearest located ancestor."""
        path = tuple(path)
        while path:
            found = self.positions.get(path)
            if found is not None:
                return Loc(self.file, *found)
            path = path[:-1]
        return Loc(self.file, *self.positions.get((), (1, 1)))


@dataclass(frozen=True)
class _Parsed:
    """One file's parse, whatever its name: the data marshalled (each load unmarshals a copy of
    its own, far cheaper than parsing) and the read-only positions and raw scalars."""

    data: bytes
    positions: Mapping[tuple, Position]
    raw: Mapping[tuple, str]


_parsed: dict[bytes, _Parsed] = {}  # by the file's bytes, least recently used first
_parsed_bytes = 0  # the sum of the keys' lengths
_parsed_lock = threading.Lock()  # serve refreshes in its own thread


def load(file: Path) -> YamlDocument:
    """The file's document. A file whose bytes were parsed before in this process is not parsed
    again: the key is the bytes themselves, so an edit is always seen (whatever the file's size
    and time), and a file with another's bytes still reports its own path."""
    file = Path(file)
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", Loc(file)) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", Loc(file)) from None
    if len(raw) > MAX_FILE_BYTES:
        raise InputError(
            f"file is {len(raw):,} bytes; expected at most {MAX_FILE_BYTES:,} (split the data into smaller files)",
            Loc(file, 1, 1),
        )
    with _parsed_lock:
        known = _parsed.pop(raw, None)
        if known is not None:
            _parsed[raw] = known  # now the most recently used
    if known is not None:
        return YamlDocument(file, marshal.loads(known.data), known.positions, known.raw)
    doc = _load_text(_decode(raw, file), file)  # errors are not kept: each names its own file
    _keep(raw, _Parsed(marshal.dumps(doc.data), doc.positions, doc.raw))
    return doc


def _load_text(text: str, file: Path) -> YamlDocument:
    if not text.strip() or all(
        not ln.strip() or ln.lstrip().startswith("#") for ln in text.splitlines()
    ):
        raise InputError("file is empty; expected a YAML mapping", Loc(file, 1, 1))
    return parse(text, file)


def _keep(raw: bytes, parsed: _Parsed) -> None:
    global _parsed_bytes
    with _parsed_lock:
        if raw not in _parsed:
            _parsed_bytes += len(raw)
        _parsed[raw] = parsed
        while _parsed_bytes > CACHE_BYTES and len(_parsed) > 1:
            oldest = next(iter(_parsed))
            _parsed_bytes -= len(oldest)
            del _parsed[oldest]


def parse(text: str, file: Path) -> YamlDocument:
    _check_depth(text, file)
    loader = _PARSER(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = exc.problem or exc.context or "invalid YAML"
        raise InputError(f"YAML syntax error: {what}", _loc(file, mark)) from None
    except yaml.YAMLError as exc:
        raise InputError(f"YAML error: {exc}", Loc(file, 1, 1)) from None
    finally:
        loader.dispose()
    if node is None:
        raise InputError("file is empty; expected a YAML mapping", Loc(file, 1, 1))
    builder = _Builder(file, loader)
    data = builder.build(node, ())
    if not isinstance(data, dict):
        raise InputError(
            f"expected a mapping at the top level, found {type_name(data)}", _loc(file, node.start_mark)
        )
    return YamlDocument(file, data, ReadOnlyDict(builder.positions), ReadOnlyDict(builder.raw))


def _check_depth(text: str, file: Path) -> None:
    """Refuse deep nesting before composing (PyYAML composes recursively: thousands of levels
    would end in RecursionError). The event parser is iterative, so this pass is safe."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_PARSER):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise InputError(f"data nested more than {MAX_DEPTH} levels deep; expected a flatter "
                                     "structure", _loc(file, event.start_mark))
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise InputError(f"YAML syntax error: {exc.problem or exc.context or 'invalid YAML'}",
                         _loc(file, mark)) from None
    except yaml.YAMLError as exc:
        raise InputError(f"YAML error: {exc}", Loc(file, 1, 1)) from None


def type_name(value: Any) -> str:
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "a boolean",
        type(None): "nothing (null)",
    }.get(type(value), type(value).__name__)


def _decode(raw: bytes, file: Path) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise InputError(
            f"file is not valid UTF-8 (byte 0x{raw[exc.start]:02x}); save it as UTF-8",
            Loc(file, line, column),
        ) from None
    return text.lstrip("\ufeff")


def _loc(file: Path, mark) -> Loc:
    return Loc(file, *_position(mark))


def _position(mark) -> Position:
    if mark is None:
        return (1, 1)
    return (mark.line + 1, mark.column + 1)


_AS_WRITTEN = {
    "tag:yaml.org,2002:str",  # what the constructor would return, without its bookkeeping (most values are text)
    "tag:yaml.org,2002:timestamp",  # dates stay as written; we never compute with them
}


class _Builder:
    def __init__(self, file: Path, loader: Any):
        self.file = file
        self.loader = loader
        self.positions: dict[tuple, Position] = {}
        self.raw: dict[tuple, str] = {}
        self.count = 0

    def build(self, node: yaml.Node, path: tuple) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise InputError(
                f"document expands to more than {MAX_NODES:,} values (too many or nested aliases)",
                _loc(self.file, node.start_mark),
            )
        self.positions.setdefault(path, _position(node.start_mark))
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        assert isinstance(node, yaml.ScalarNode)  # the only other kind of node
        self.raw[path] = node.value
        return self._scalar(node)

    def _mapping(self, node: yaml.MappingNode, path: tuple) -> dict:
        try:
            self.loader.flatten_mapping(node)  # resolves `<<: *anchor` merge keys
        except yaml.MarkedYAMLError as exc:
            raise InputError(f"YAML error: {exc.problem}", _loc(self.file, exc.problem_mark)) from None
        result: dict = {}
        seen: dict[Any, Position] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise InputError("expected a plain key", _loc(self.file, key_node.start_mark))
            key = self._scalar(key_node)
            if not isinstance(key, (str, int, float, bool)) or key is None:
                raise InputError("expected a plain key", _loc(self.file, key_node.start_mark))
            key = str(key) if not isinstance(key, str) else key
            key_at = _position(key_node.start_mark)
            if key in seen and not getattr(key_node, "_merged", False):
                raise InputError(f"duplicate key '{key}' (first at line {seen[key][0]})", Loc(self.file, *key_at))
            seen[key] = key_at
            result[key] = self.build(value_node, path + (key,))
            # errors about a key point at the key, errors about a value at the value
            self.positions[path + (key, "__key__")] = key_at
        return result

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag in _AS_WRITTEN:
            return node.value
        try:
            value = self.loader.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            raise InputError(f"invalid value: {exc}", _loc(self.file, node.start_mark)) from None
        if isinstance(value, (datetime.date, datetime.datetime)):
            return value.isoformat()
        if isinstance(value, bytes):
            raise InputError("binary values are not supported", _loc(self.file, node.start_mark))
        if isinstance(value, (set, tuple)):
            raise InputError("expected a plain value", _loc(self.file, node.start_mark))
        return value
