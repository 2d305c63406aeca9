"""Collection for the whole run (``tests/``, ``symgrad/``, ``docs/``, README).

``--doctest-modules`` makes a doctest collector of every ``.py`` file: it
imports the module (``symgrad/export/torch_numpy.py`` imports PyTorch, ~2 s
of CPU) and probes every module-level name for fixtures, once for the test
module and once again for its doctests.  A file without a ``>>>`` line has
no doctest to find, so its doctest collector is dropped: the same tests run,
and no xdist worker pays for a framework it does not use.
"""

from __future__ import annotations

import ast
import doctest
import gc
import importlib
import re

import pytest
from _pytest.doctest import DoctestModule

# SourceDoctests (below) builds its items with pytest's own doctest helpers,
# which are private: where a pytest release has renamed or changed them,
# the framework modules' doctests are collected the usual way (slower, the
# same tests).
try:
    from _pytest.doctest import (
        DoctestItem,
        _get_checker,
        _get_continue_on_failure,
        _get_runner,
        get_optionflags,
    )
except ImportError:  # pragma: no cover - another pytest
    DoctestItem = None

# Python's cyclic collector runs its youngest generation every 700 net
# allocations of container objects.  A test process holds a large heap
# (SymPy's caches, every module of the suite) and allocates AST nodes,
# SymPy expressions and tracebacks in the millions: at the default, 928
# young, 85 middle and 10 full collections took 0.89 s of 15 s of tests
# (test_search + test_every_function, -n 0, gc.callbacks), and pytest's
# assertion rewriting of the test modules at collection another 0.34 s per
# worker.  Every 10,000 allocations: 0.39 s and 0.07 s, the same peak
# memory (153 MB).  The tests run the same; only the suite's process
# collects less often (symgrad itself never changes the collector's
# settings; the walker pauses it inside a walk: walker.collector_paused).
gc.set_threshold(10_000, 20, 100)


# A module that imports one of these at its top (today symgrad/export/'s
# torch_ops, torch_pairs, torch_numpy, lse_pairs: PyTorch, ~1.3 s of CPU
# and ~150 MB) has its doctests found in its source and
# is imported only when one of them runs: the worker that runs the framework
# tests (tests/conftest.py), not every worker at collection.
FRAMEWORKS = frozenset({"torch", "jax", "jaxlib", "dask", "optax", "casadi", "matplotlib"})
# a module whose text names none of them imports none: its source is not parsed
# (parsing each module with a doctest was ~0.4 s of CPU per worker at collection)
_NAMES_A_FRAMEWORK = re.compile(r"\b(?:" + "|".join(sorted(FRAMEWORKS)) + r")\b")


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    found = yield
    if file_path.suffix == ".py" and any(isinstance(c, DoctestModule) for c in found):
        text = file_path.read_text(encoding="utf-8")
        if ">>>" not in text:
            found = [c for c in found if not isinstance(c, DoctestModule)]
        elif DoctestItem is not None and _NAMES_A_FRAMEWORK.search(text) and \
                _imports_a_framework(ast.parse(text)):
            found = [SourceDoctests.from_parent(parent, path=file_path)
                     if isinstance(c, DoctestModule) else c for c in found]
    return found


def _imports_a_framework(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        if any(n.split(".")[0] in FRAMEWORKS for n in names):
            return True
    return False


class SourceDoctests(DoctestModule):
    """The doctests of a module as ``--doctest-modules`` finds them (the
    docstrings of the module, of its functions and classes, and of the
    classes' own), read from its source: the module is imported when a
    test runs, and each test's globals are a copy of the module's."""

    def collect(self):
        try:  # (pytest's private helpers, as this pytest has them)
            items = list(self._from_source())
        except (TypeError, AttributeError, ValueError):  # pragma: no cover
            items = list(super().collect())
        yield from items

    def _from_source(self):
        tree = ast.parse(self.path.read_text(encoding="utf-8"))
        rel = self.path.relative_to(self.config.rootpath).with_suffix("")
        module = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        parser = doctest.DocTestParser()
        tests = []

        def visit(node, name):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                line = 0 if isinstance(node, ast.Module) else node.lineno - 1
                tests.append(parser.get_doctest(doc, {}, name, str(self.path), line))
            if isinstance(node, (ast.Module, ast.ClassDef)):  # (not a function's body)
                for child in node.body:
                    if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                        visit(child, f"{name}.{child.name}")

        visit(tree, module)
        runner = _get_runner(verbose=False, optionflags=get_optionflags(self.config),
                             checker=_get_checker(),
                             continue_on_failure=_get_continue_on_failure(self.config))
        for test in sorted(tests):
            if test.examples:
                yield _ImportingDoctest.from_parent(self, name=test.name, runner=runner,
                                                    dtest=test, module=module)


class _ImportingDoctest(DoctestItem):
    def __init__(self, *args, module: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.module = module

    @classmethod
    def from_parent(cls, parent, *, name, runner, dtest, module):
        return super(DoctestItem, cls).from_parent(parent, name=name, runner=runner,
                                                   dtest=dtest, module=module)

    def setup(self) -> None:
        self.dtest.globs.update(vars(importlib.import_module(self.module)).copy())
        super().setup()


def pytest_collection_modifyitems(session, config, items):
    """Whole pages first: a page of docs/ (or the README) is one item that runs
    every example on it (docs/stabilize.md ~20 s of CPU), and they are
    collected last; started last, one of them keeps a worker busy while the
    other idles.  Sent first, the longest page (by size) first, the short
    tests fill in behind them (a simulation over the -n 0 profile: the idle
    tail 17 s -> 0.5 s, 2 workers).  The other items keep their order."""
    pages = [it for it in items if it.path.suffix == ".md"]
    pages.sort(key=lambda it: -it.path.stat().st_size)
    if pages:
        rest = [it for it in items if it.path.suffix != ".md"]
        items[:] = pages + rest
