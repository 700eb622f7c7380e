"""The one Jinja environment for a project's templates: card SVGs, the rulebook, the diff page.

Templates are looked up in the game's folder first, then in the project's `templates/common/`,
then in cardgen's built-in common templates, then in any folder the caller ships (cardgen's own
diff page). Undefined names fail
loudly (a typo in a template must not print an empty card), everything is auto-escaped, and
compiled templates are kept in build/.cache/jinja-sandboxed by what they are compiled from, not
by where the project lies (`KeptBytecodeCache`): compiling is most of a no-op rebuild's
template time.

Templates are data, not code: they run in Jinja's sandbox (a template reads data and calls the
helpers it is given, but cannot reach Python internals such as `''.__class__.__mro__`), and the
loader refuses a template file that leads, after symbolic links, outside those folders. A
game's code belongs in its plug-in (card_data/<game>/plugin.py).
"""

from __future__ import annotations

import posixpath
from hashlib import sha1
from pathlib import Path
from types import CodeType

import jinja2
from jinja2 import Environment, FileSystemBytecodeCache, StrictUndefined, select_autoescape
from jinja2.bccache import Bucket
from jinja2.defaults import DEFAULT_FILTERS, DEFAULT_TESTS
from jinja2.loaders import split_template_path
from jinja2.sandbox import SandboxedEnvironment

from ..builtin import TEMPLATES_DIR
from ..contain import ContainedLoader
from ..data.project import Project


def template_environment(project: Project, game_id: str | None = None, *, fallback: tuple[Path, ...] = (),
                         keep_trailing_newline: bool = False) -> SandboxedEnvironment:
    """An environment loading from templates/<game_id>/ (when given), templates/common/, the
    built-in templates, `fallback`."""
    folders = [project.templates_dir / game_id] if game_id else []
    folders += [project.templates_dir / "common"]
    # each folder's name in the compiled templates' keys: where the project lies is not one of them
    places = {folder: f"project:{folder.relative_to(project.templates_dir).as_posix()}" for folder in folders}
    places |= {TEMPLATES_DIR: "builtin", **{folder: f"cardgen:{folder}" for folder in fallback}}
    env = SandboxedEnvironment(
        loader=ContainedLoader(list(places), roots=[project.templates_dir, TEMPLATES_DIR, *fallback]),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=keep_trailing_newline,
        bytecode_cache=_bytecode_cache(project, places),
        extensions=["jinja2.ext.i18n"],  # {% trans %} in templates; data/translator.py installs a language
        # no constant folding when compiling: it took a fifth of a cold build's template compilation
        # (3.1's eleven templates: 0.55 -> 0.45 s of CPU) to save next to nothing when rendering
        optimized=False,
    )
    env.policies["ext.i18n.trimmed"] = True
    return env


def _bytecode_cache(project: Project, places: dict[Path, str]) -> KeptBytecodeCache:
    # its own folder: code compiled for an unsandboxed environment (an older cardgen's, keyed by
    # the file's path alone) must never be loaded here, as it would call functions without the
    # sandbox's checks; the keys name the environment's kind as well now (`compiled_as`)
    folder = project.cache_dir / "jinja-sandboxed"
    folder.mkdir(parents=True, exist_ok=True)
    return KeptBytecodeCache(str(folder), {str(path): place for path, place in places.items()})


class KeptBytecodeCache(FileSystemBytecodeCache):
    """The project's bytecode cache, keyed by what the code is compiled from, whose code, once
    loaded or compiled, this process keeps.

    A template's code depends on its source, its name and the environment's settings, not on
    where the file lies (Jinja's own key is the file's absolute path): a key of the template's
    name, the folder it was found in as the project names it (`places`: `project:common`,
    `builtin`), the environment's settings (`compiled_as`) and, checked on load, the source's
    checksum lets a moved or copied project (a variant tried in a copy, a CI checkout at
    another path) keep its compiled templates, and one process compile a template's source
    once for every copy of the project. The code names its file (Jinja's `Template.filename`,
    the template lines of tracebacks and so the one-line errors), so code made or stored for
    another copy is handed out naming this copy's file (`refiled`).

    Each rulebook, booklet and notes paper fills its template in an environment of its own
    (its helpers and paper are the environment's globals), and `validate` fills four: every
    one of them loaded the same templates' code from disk again (unmarshalling was a tenth of
    filling 3.1's rulebook). The code kept is found by the same key and checksum as the files,
    so an edited template is compiled anew.
    """

    def __init__(self, directory: str, places: dict[str, str]):
        super().__init__(directory)
        self.places = places

    def get_bucket(self, environment: Environment, name: str, filename: str | None, source: str) -> Bucket:
        place = self._place(name, filename) if filename is not None else None
        if filename is None or place is None:  # not in a folder of the loader's: Jinja's own key, the file's path
            return super().get_bucket(environment, name, filename, source)
        key = sha1(f"{compiled_as(environment, name)}|{place}|{name}".encode()).hexdigest()
        bucket = Bucket(environment, key, self.get_source_checksum(source))
        self.load_bytecode(bucket)
        if bucket.code is not None and bucket.code.co_filename != filename:
            # kept as refiled: this copy's next environments (each paper has one) take it as it is
            bucket.code = _KEPT[self._kept_key(bucket)] = refiled(bucket.code, filename)
        return bucket

    def _place(self, name: str, filename: str) -> str | None:
        pieces = split_template_path(name)
        return next((place for folder, place in self.places.items() if filename == posixpath.join(folder, *pieces)),
                    None)  # the loader's folder the file is in, as the loader joined them

    def load_bytecode(self, bucket: Bucket) -> None:
        code = _KEPT.get(self._kept_key(bucket))
        if code is not None:
            bucket.code = code
            return
        super().load_bytecode(bucket)
        self._keep(bucket)

    def dump_bytecode(self, bucket: Bucket) -> None:
        super().dump_bytecode(bucket)
        self._keep(bucket)

    def _keep(self, bucket: Bucket) -> None:
        if bucket.code is not None:
            if len(_KEPT) >= CODE_KEPT:
                del _KEPT[next(iter(_KEPT))]  # the oldest (`cardgen serve` compiles each edit)
            _KEPT[self._kept_key(bucket)] = bucket.code

    def _kept_key(self, bucket: Bucket) -> tuple[str, str]:
        return bucket.key, bucket.checksum


def compiled_as(env: Environment, name: str) -> str:
    """What, besides its source and name, makes the code Jinja compiles for a template: the
    environment's kind (sandboxed code calls through the sandbox's checks), how its lexer reads
    a source (`keep_trailing_newline` is the cards' and not the rulebook's, and both load
    `playing-cards.j2`), its extensions and the policies they read when compiling, whether names
    are escaped, and the filters and tests it knows (a filter's arguments are decided then)."""
    lexer = (env.block_start_string, env.block_end_string, env.variable_start_string, env.variable_end_string,
             env.comment_start_string, env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix,
             env.trim_blocks, env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline)
    escaped = env.autoescape(name) if callable(env.autoescape) else env.autoescape
    policies = [(key, env.policies.get(key)) for key in ("compiler.ascii_str", "ext.i18n.trimmed")]
    known = [_known(env.filters, DEFAULT_FILTERS), _known(env.tests, DEFAULT_TESTS)]
    settings = (jinja2.__version__, type(env).__module__, type(env).__qualname__, env.sandboxed, lexer,
                sorted(env.extensions), env.optimized, env.is_async, env.finalize is not None, escaped,
                getattr(env, "newstyle_gettext", False), policies, known)
    return sha1(repr(settings).encode()).hexdigest()


def _known(table: dict, default: dict) -> object:
    if table == default:  # Jinja's own (a comparison of the same functions: 2 µs, not 60)
        return "default"
    return sorted((key, str(getattr(function, "jinja_pass_arg", ""))) for key, function in table.items())


def refiled(code: CodeType, filename: str) -> CodeType:
    """`code` (a template's, with the functions of its blocks and macros inside) naming `filename`."""
    consts = tuple(refiled(const, filename) if isinstance(const, CodeType) else const for const in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


CODE_KEPT = 256  # templates' code kept (a project has tens)
_KEPT: dict[tuple[str, str], CodeType] = {}  # (bucket key, source checksum) -> code, naming the file it was last for
