"""Issue 26 item 8: CONTRIBUTING.md, README.md and docs/*.md describe the code as it is.

Every cardgen name they write in backticks must exist: a dotted module, function or attribute
(`render.templating.template_environment`, `cardgen.simulate.contract.measured_claim`,
`Project.cache_dir`, `CardRenderer.__init__`), written as a call only if it can be called with
that many arguments (`Project.cache_dir(kind)` of a property is a false line), a template or
Python helper written as a call (`textbox(...)`), a path into cardgen's source, tests, docs or a
seed game (`cardgen/render/cards.py`, `render/cards.py`, `tests/conftest.py`,
`templates/common/rulebook-base.html.j2`), a `from cardgen... import ...` in an example, and the
target of every relative Markdown link. One failure lists everything that is missing.

What is not code is left alone: data fields (`notes.choices`, `card.fields.text`), output files
(`build/...`, `sheets-a4-duplex.pdf`), placeholders (`card_data/<game>/`), the example game
`dragon-race` the docs create, shell lines.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from functools import cache
from pathlib import Path

from conftest import ROOT

import cardgen

PACKAGE = Path(cardgen.__file__).parent
DOCUMENTS = [ROOT / "CONTRIBUTING.md", ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# modules the docs name by their short name, in the page about their package
SHORT = {"stats": "cardgen.simulate.stats"}
# folders of the repository whose files the docs may name by their path from the root
SOURCE_ROOTS = {"cardgen", "tests", "docs", "benchmarks", ".ci", "schema"}
# folders of the sample project: checked when the path names one of its games or common folders
# (not versions/: the docs make new versions, `versions/kings-blade/3.2.yml`, as examples)
PROJECT_ROOTS = {"card_data", "templates", "icons", "fonts"}
FILE_SUFFIX = re.compile(r"\.(py|ya?ml|j2|html|css|pdf|png|svg|json|po|pot|md|txt|xlsx|csv|icc|journal)$")
DOTTED = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\((.*)\))?")
CALL = re.compile(r"([a-z_]\w*)\((.*)\)")
PATH = re.compile(r"[\w.\-]+(?:/[\w.\-]+)*/?")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
INLINE = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FROM_IMPORT = re.compile(r"^\s*from\s+(cardgen(?:\.\w+)*)\s+import\s+\(?([\w, ]+)", re.M)


def _top_level() -> set[str]:
    return {p.stem for p in PACKAGE.glob("*.py")} | {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}


@cache
def _definitions() -> tuple[dict[str, list[str]], set[str]]:
    """Classes defined in cardgen (name -> the modules defining it), and every name a doc may
    write as a call: the functions and methods of cardgen, the tests and the seed games'
    plug-ins, the names templates are given (`env.globals.update(fmt=...)`, the dict of
    `Helpers.globals`, Jinja's gettext names where a translator installs them) and what a plug-in
    hook is handed (`report` in `check(snapshot, report)`). Read with `ast`."""
    classes: dict[str, list[str]] = {}
    callables: set[str] = set()
    files = [*PACKAGE.rglob("*.py"), *(ROOT / "tests").glob("*.py"), *(ROOT / "card_data").rglob("*.py")]
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path.is_relative_to(PACKAGE):
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            classes.update({n.name: [*classes.get(n.name, []), module] for n in tree.body if isinstance(n, ast.ClassDef)})
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                callables.add(node.name)
                if node.name == "globals":
                    callables |= {k.value for d in ast.walk(node) if isinstance(d, ast.Dict)
                                  for k in d.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                if path == PACKAGE / "data" / "plugin.py":
                    callables |= {a.arg for a in node.args.args}
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                target = node.func.value
                if node.func.attr == "update" and isinstance(target, ast.Attribute) and target.attr == "globals":
                    callables |= {k.arg for k in node.keywords if k.arg}
                if node.func.attr == "install_gettext_callables":
                    callables |= {"_", "gettext", "ngettext", "pgettext", "npgettext"}
    return classes, callables


@cache
def _macros() -> set[str]:
    """Jinja macros of the project's and cardgen's templates (rb.aside, pc.card...)."""
    names: set[str] = set()
    for folder in (ROOT / "templates", PACKAGE):
        for path in folder.rglob("*.j2"):
            names |= set(re.findall(r"\{%-?\s*macro\s+(\w+)", path.read_text(encoding="utf-8")))
    return names


def _import_attr(dotted: list[str]) -> object:
    """The object `a.b.c` names: the longest importable module, then attributes."""
    for cut in range(len(dotted), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(dotted[:cut]))
        except ModuleNotFoundError:
            continue
        for name in dotted[cut:]:
            obj = _attribute(obj, name)
        return obj
    raise LookupError(f"no module {'.'.join(dotted)}")


def _attribute(obj: object, name: str) -> object:
    try:
        return getattr(obj, name)
    except AttributeError:
        pass
    if inspect.isclass(obj):  # fields without a class attribute: dataclass, pydantic, self.x = ...
        for klass in obj.__mro__:
            if name in getattr(klass, "__annotations__", {}) or name in getattr(klass, "model_fields", {}):
                return _Field(name)
            try:
                if re.search(rf"\bself\.{name}\s*(?::[^=\n]+)?=", inspect.getsource(klass)):
                    return _Field(name)
            except (OSError, TypeError):
                pass
    raise LookupError(f"{getattr(obj, '__name__', obj)!s} has no {name!r}")


class _Field:
    def __init__(self, name: str):
        self.name = name


def _check_call(obj: object, args: str, token: str) -> str | None:
    """None when `obj` can be called as the docs write it, else what is wrong."""
    if isinstance(obj, property) or not callable(obj):
        return f"`{token}`: written as a call, but it is not callable ({type(obj).__name__})"
    given = [a.strip() for a in args.split(",") if a.strip()]
    if not given or any(a in ("...", "") or "=" in a for a in given):
        return None
    try:
        parameters = list(inspect.signature(obj).parameters.values())  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if parameters and parameters[0].name in ("self", "cls"):
        parameters = parameters[1:]
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return None
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(given) > len(positional):
        return f"`{token}`: takes {len(positional)} positional argument(s), the docs give {len(given)}"
    return None


def check_name(token: str) -> str | None:
    """None when the dotted name exists in cardgen (or is not cardgen's), else what is missing."""
    match = DOTTED.fullmatch(token)
    if not match or FILE_SUFFIX.search(match.group(1)):
        return None
    dotted, args = match.group(1).split("."), match.group(2)
    classes, _ = _definitions()
    if dotted[0] == "cardgen":
        candidates = [dotted]
    elif dotted[0] in _top_level():
        candidates = [["cardgen", *dotted]]
    elif dotted[0] in SHORT:
        candidates = [[*SHORT[dotted[0]].split("."), *dotted[1:]]]
    elif dotted[0] in classes:
        candidates = [[*module.split("."), *dotted] for module in classes[dotted[0]]]
    else:
        return None  # not a name of cardgen's: a data field, a template variable, a library
    problems = []
    for candidate in candidates:
        try:
            obj = _import_attr(candidate)
        except LookupError as exc:
            problems.append(f"`{token}`: {exc}")
            continue
        if args is not None:
            wrong = _check_call(obj, args, token)
            if wrong:
                problems.append(wrong)
                continue
        return None
    return "; ".join(problems)


def check_call(token: str) -> str | None:
    """A helper written as a call, `textbox(...)`: a function, method or macro of that name."""
    match = CALL.fullmatch(token)
    if not match:
        return None
    _, functions = _definitions()
    if match.group(1) in functions | _macros():
        return None
    return f"`{token}`: no function, method or template macro named {match.group(1)!r}"


def check_path(token: str) -> str | None:
    """A path into cardgen's source, the tests, the docs or a seed game must exist."""
    if "/" not in token or not PATH.fullmatch(token) or token.startswith(("/", ".", "-")) and not token.startswith(".ci/"):
        return None
    first, *rest = token.rstrip("/").split("/")
    if first in SOURCE_ROOTS:
        candidates = [ROOT / token]
    elif first in _top_level() and (PACKAGE / first).is_dir():
        candidates = [PACKAGE / token]  # render/cards.py, commands/common.py
    elif first in PROJECT_ROOTS and rest and (ROOT / first / rest[0]).exists() or first in PROJECT_ROOTS and not rest:
        candidates = [ROOT / token]  # card_data/kings-blade/plugin.py, templates/common/x.j2
    else:
        return None  # an output (build/..., png/), an example game (dragon-race/), a user's file
    if first == "templates" and rest[:1] == ["common"] and len(rest) == 2:
        candidates += list(PACKAGE.rglob(rest[1]))  # a project's own copy of a page cardgen ships
    if any(c.exists() for c in candidates):
        return None
    return f"`{token}`: no such file or folder"


def check_link(target: str, document: Path) -> str | None:
    if re.match(r"[a-z]+:|#", target):
        return None
    path = (document.parent / target.split("#")[0]).resolve()
    return None if path.exists() else f"link ({target}): no such file"


def problems(text: str, document: Path) -> list[str]:
    """What `text` (the page at `document`) names that does not exist, each once."""
    found: list[str] = []
    for module, names in FROM_IMPORT.findall(text):
        for name in (n.strip() for n in names.split(",")):
            if name and (wrong := check_name(f"{module}.{name}")):
                found.append(wrong)
    prose = FENCE.sub("", text)
    for target in LINK.findall(prose):
        if wrong := check_link(target, document):
            found.append(wrong)
    for _, token in INLINE.findall(prose):
        token = token.strip()
        for wrong in (check_name(token), check_call(token), check_path(token)):
            if wrong:
                found.append(wrong)
    return list(dict.fromkeys(found))


def test_docs_name_only_what_exists():
    missing = [f"{document.relative_to(ROOT)}: {problem}" for document in DOCUMENTS
               for problem in problems(document.read_text(encoding="utf-8"), document)]
    assert not missing, "the docs name what the code does not have:\n" + "\n".join(missing)


def test_every_document_is_read():
    assert ROOT / "CONTRIBUTING.md" in DOCUMENTS and len(DOCUMENTS) >= 10
    # the pages hold names of every kind the check knows, so an empty harvest is a broken check
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    tokens = [t.strip() for _, t in INLINE.findall(FENCE.sub("", text))]
    assert "render.templating.template_environment" in tokens and "cardgen/buildtypes.py" in tokens


# --- the checker itself: it must catch what it exists to catch ------------------------------


def test_checker_finds_what_is_missing(tmp_path):
    page = tmp_path / "page.md"
    text = (
        "Use `render.templating.template_environment` and `render.templating.no_such_helper`,\n"
        "`cardgen.nosuchmodule.thing`, `Project.cache_dir(kind)`, `Project.cache_dir`, `Project.root`,\n"
        "`cache.digest_of(...)`, `units.decimal(a, b, c, d, e, f, g, h)`, `textbox(...)`, `rb.aside`,\n"
        "`no_such_helper_anywhere(x)`, `stats.never`, `stats.always_maybe`,\n"
        "`cardgen/render/cards.py`, `render/cards.py`, `cardgen/render/nope.py`, `tests/conftest.py`,\n"
        "`card_data/kings-blade/plugin.py`, `card_data/kings-blade/nope.py`, `card_data/dragon-race/plugin.py`,\n"
        "`notes.choices`, `fonts.title`, `build/kings-blade/3.1/`, `diff.html.j2`,\n"
        "[a link](missing.md), [here](page.md#top), [web](https://example.org).\n"
        "```python\nfrom cardgen.simulate.contract import measured_claim, no_such_claim\n"
        "`render.in_a_fence_is_not_prose`\n```\n")
    page.write_text(text, encoding="utf-8")
    assert problems(text, page) == [
        "`cardgen.simulate.contract.no_such_claim`: cardgen.simulate.contract has no 'no_such_claim'",
        "link (missing.md): no such file",
        "`render.templating.no_such_helper`: cardgen.render.templating has no 'no_such_helper'",
        "`cardgen.nosuchmodule.thing`: cardgen has no 'nosuchmodule'",
        "`Project.cache_dir(kind)`: written as a call, but it is not callable (property)",
        "`units.decimal(a, b, c, d, e, f, g, h)`: takes 2 positional argument(s), the docs give 8",
        "`no_such_helper_anywhere(x)`: no function, method or template macro named 'no_such_helper_anywhere'",
        "`stats.always_maybe`: cardgen.simulate.stats has no 'always_maybe'",
        "`cardgen/render/nope.py`: no such file or folder",
        "`card_data/kings-blade/nope.py`: no such file or folder",
    ]
