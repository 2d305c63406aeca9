"""Collection for the whole run (``tests/``, ``symgrad/``, ``docs/``, README).

``--doctest-modules`` makes a doctest collector of every ``.py`` file: it
imports the module (``symgrad/export/torch_numpy.py`` imports PyTorch, ~2 s
of CPU) and probes every module-level name for fixtures, once for the test
module and once again for its doctests.  A file without a ``>>>`` line has
no doctest to find, so its doctest collector is dropped: the same tests run,
and no xdist worker pays for a framework it does not use.
"""

from __future__ import annotations

import gc

import pytest
from _pytest.doctest import DoctestModule

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


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    found = yield
    if file_path.suffix == ".py" and any(isinstance(c, DoctestModule) for c in found):
        if ">>>" not in file_path.read_text(encoding="utf-8"):
            found = [c for c in found if not isinstance(c, DoctestModule)]
    return found


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
