"""Assertion rewriting paid once per run, not once per pytest process (tests/conftest.py calls
these from `pytest_configure`).

pytest rewrites each test module's asserts as it imports it, to explain a failing assert, and
keeps the result in a pyc beside the module, unless Python is told to write no bytecode
(PYTHONDONTWRITEBYTECODE) or the checkout is fresh (CI): then every process rewrites every
module it imports. Under pytest-xdist each worker collects, so imports, every test module of the
run: about 5.5 s of CPU per worker for tests/ (ast parsing, rewriting 3,000 asserts, compiling).
Here each worker rewrites its share of the modules and writes the result where the others look
for it, so each module is rewritten once per run. The pycs are pytest's own (its functions
write and check them: hash-based, so a pyc whose source changed is not used); without
bytecode they go into the run's temporary folder, never beside the sources.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def libraries_as_installed(config) -> None:
    """pytest rewrites the asserts of every package a pytest plugin comes from, as it imports
    them: hypothesis's 73 modules too, in each worker while collecting and in the controller for
    hypothesis's end-of-run summary, about 1.2 s of CPU in each of the three processes. No test
    of ours asserts inside hypothesis: it is imported as it is installed. (The plugins pytest
    imports before tests/conftest.py, xdist's and anyio's, are rewritten already.)"""
    hook = config.pluginmanager.rewrite_hook
    marked, cache = getattr(hook, "_must_rewrite", None), getattr(hook, "_marked_for_rewrite_cache", None)
    if isinstance(marked, set) and isinstance(cache, dict):  # pytest's own hook, as of pytest 9
        marked.discard("hypothesis")
        cache.clear()


def share_between_workers(config) -> None:
    """In a pytest-xdist worker, rewrite this worker's share of the test modules the run
    collects, before collecting, into a folder every worker of the run reads from."""
    worker, count = os.environ.get("PYTEST_XDIST_WORKER"), os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    basetemp = getattr(config.option, "basetemp", None)  # the run's folder / the worker's id
    if not (worker and count and basetemp and worker.startswith("gw") and worker[2:].isdigit()):
        return
    try:
        from _pytest.assertion import rewrite
        from _pytest.assertion.rewrite import _read_pyc, _rewrite_test, _write_pyc, assertstate_key
    except ImportError:  # another pytest: each worker rewrites all, as pytest does by itself
        return
    modules = sorted(set(_test_modules(config)))
    if sys.dont_write_bytecode:  # the run's folder, read by pytest instead of __pycache__ beside the module
        folder = Path(basetemp).parent / "rewritten"
        folder.mkdir(exist_ok=True)
        own_place, shared = rewrite.get_cache_dir, set(modules)
        rewrite.get_cache_dir = lambda path: folder if path in shared else own_place(path)
    state = config.stash[assertstate_key]
    for path in modules[int(worker[2:])::int(count)]:
        pyc = rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)
        if _read_pyc(path, pyc) is None:  # not there, or not of this source
            pyc.parent.mkdir(parents=True, exist_ok=True)
            source_hash, code = _rewrite_test(path, config)
            _write_pyc(state, code, source_hash, pyc)


def _test_modules(config) -> list[Path]:
    """The test modules the run's arguments name (a folder: its files named as `python_files`
    says, tests/test_*.py), as pytest will collect and import them."""
    patterns = config.getini("python_files")
    found = []
    for arg in config.args:
        path = Path(arg.split("::", 1)[0])
        path = (path if path.is_absolute() else config.invocation_params.dir / path).resolve()
        if path.is_dir():
            found += [p for pattern in patterns for p in path.rglob(pattern)]
        elif path.suffix == ".py":
            found.append(path)
    return found
