"""The one Jinja environment for a project's templates: card SVGs, the rulebook, the diff page.

Templates are looked up in the game's folder first, then in the project's `templates/common/`,
then in cardgen's built-in common templates, then in any folder the caller ships (cardgen's own
diff page). Undefined names fail
loudly (a typo in a template must not print an empty card), everything is auto-escaped, and
compiled templates are kept in build/.cache/jinja: compiling is most of a no-op rebuild's
template time.

Templates are data, not code: they run in Jinja's sandbox (a template reads data and calls the
helpers it is given, but cannot reach Python internals such as `''.__class__.__mro__`), and the
loader refuses a template file that leads, after symbolic links, outside those folders. A
game's code belongs in its plug-in (card_data/<game>/plugin.py).
"""

from __future__ import annotations

from pathlib import Path
from types import CodeType

from jinja2 import FileSystemBytecodeCache, StrictUndefined, select_autoescape
from jinja2.bccache import Bucket
from jinja2.sandbox import SandboxedEnvironment

from ..builtin import TEMPLATES_DIR
from ..contain import ContainedLoader
from ..data.project import Project


def template_environment(project: Project, game_id: str | None = None, *, fallback: tuple[Path, ...] = (),
                         keep_trailing_newline: bool = False) -> SandboxedEnvironment:
    """An environment loading from templates/<game_id>/ (when given), templates/common/, the
    built-in templates, `fallback`."""
    folders = [project.templates_dir / game_id] if game_id else []
    folders += [project.templates_dir / "common", TEMPLATES_DIR, *fallback]
    env = SandboxedEnvironment(
        loader=ContainedLoader(folders, roots=[project.templates_dir, TEMPLATES_DIR, *fallback]),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=keep_trailing_newline,
        bytecode_cache=_bytecode_cache(project),
        extensions=["jinja2.ext.i18n"],  # {% trans %} in templates; data/translator.py installs a language
        # no constant folding when compiling: it took a fifth of a cold build's template compilation
        # (3.1's eleven templates: 0.55 -> 0.45 s of CPU) to save next to nothing when rendering
        optimized=False,
    )
    env.policies["ext.i18n.trimmed"] = True
    return env


def _bytecode_cache(project: Project) -> FileSystemBytecodeCache:
    # its own folder: code compiled for an unsandboxed environment (an older cardgen) must
    # never be loaded here, as it would call functions without the sandbox's checks
    folder = project.cache_dir / "jinja-sandboxed"
    folder.mkdir(parents=True, exist_ok=True)
    return KeptBytecodeCache(str(folder))


class KeptBytecodeCache(FileSystemBytecodeCache):
    """The project's bytecode cache, whose code, once loaded or compiled, this process keeps.

    Each rulebook, booklet and notes paper fills its template in an environment of its own
    (its helpers and paper are the environment's globals), and `validate` fills four: every
    one of them loaded the same templates' code from disk again (unmarshalling was a tenth of
    filling 3.1's rulebook). The code is kept by the bucket's key (the template's name and
    file) and its source's checksum, as the files are, so an edited template is compiled anew.
    """

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

    def _kept_key(self, bucket: Bucket) -> tuple[str, str, str]:
        return self.directory, bucket.key, bucket.checksum


CODE_KEPT = 256  # templates' code kept (a project has tens)
_KEPT: dict[tuple[str, str, str], CodeType] = {}  # (cache folder, bucket key, source checksum) -> code
