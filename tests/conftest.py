"""Test configuration.

The suite is deterministic: hypothesis runs derandomized (the same examples
every run, on every machine, in CI or not), so a result is reproducible.

``SYMGRAD_FUZZ=long`` switches to exploration: random examples, ten times
as many, for a thorough run before a release (the differential fuzz test
reads the same variable for its own, larger, budget).
"""

from __future__ import annotations

import os
import sys

from _pytest.assertion.rewrite import AssertionRewritingHook

# pytest rewrites the asserts of every package a plugin comes from, and
# hypothesis is one (its pytest plugin is a module of its own, rewritten
# still): its ~80 internal modules, rewritten in every process that imports
# them (the controller and each worker), cost ~1 s of CPU each and change no
# test's message.  Imported as they are:
for _hook in sys.meta_path:
    if isinstance(_hook, AssertionRewritingHook):
        getattr(_hook, "_must_rewrite", set()).discard("hypothesis")

from hypothesis import settings  # noqa: E402

LONG = os.environ.get("SYMGRAD_FUZZ") == "long"

settings.register_profile("deterministic", derandomize=True, print_blob=True)
settings.register_profile("long", derandomize=False, print_blob=True, max_examples=1000)
settings.load_profile("long" if LONG else "deterministic")


# ---- one xdist worker for the tests that import JAX, PyTorch, dask or matplotlib ----
# Importing jax and torch costs ~3 s of CPU and dask.distributed ~1 s, per process
# (2026-11-27, load 6), matplotlib 0.38 s (four tests, 2026-11-28);
# a worker that never runs such a test never pays it.  These tests go to one worker
# as one unit, the largest, sent first; every other test is its own unit, spread
# one by one as ``--dist load`` does.  The modules are imported
# inside the tests (tests/backends.py), not at collection, which every worker does.
# (xdist's own ``--dist loadgroup`` does not group under pytest 9: it renames
# ``item._nodeid``, which pytest 9's ``nodeid`` no longer reads.)
FRAMEWORK_TESTS = (
    "tests/export/",
    "tests/matrices/test_jax_conventions.py",
    "tests/test_dask.py",
    "symgrad/export/",
    "docs/export.md",
    "docs/api.md",
    "docs/coming-from.md",
    "tests/stability/test_report.py::test_plot",  # matplotlib
    "tests/test_cli.py::test_check_plot",  # matplotlib
    "tests/test_cli.py::test_more_bad_input_is_one_line_and_exit_2[argv7-",  # its file types
)


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "load":
        return None  # the user chose a scheduling
    from xdist.scheduler import LoadScopeScheduling

    class FrameworksOnOneWorker(LoadScopeScheduling):
        """xdist's LoadScopeScheduling, with its bookkeeping in counters.

        The base class counts a worker's pending tests by walking every unit
        it ever assigned that worker (``_pending_of``, on each report and in
        ``tests_finished``, asked on every event), and finds each test's
        index by ``list.index`` over the collection: with one unit per test
        that is quadratic in the suite, in the controller, which shares the
        CPUs with the workers.  Here each assigned unit keeps a count of its
        tests left, a finished unit leaves the worker's assignments (which
        the base class reads only for pending tests: counts, a crashed
        worker's test), and the collection is indexed once per worker.  The
        same units go to the same free workers in the same order."""

        def __init__(self, config, log=None):
            super().__init__(config, log)
            self._left: dict[str, int] = {}  # an assigned unit's tests not yet reported
            self._index: dict[object, dict[str, int]] = {}  # a worker's collection

        def _split_scope(self, nodeid: str) -> str:
            return "frameworks" if nodeid.startswith(FRAMEWORK_TESTS) else nodeid

        def _pending_of(self, workload: dict[str, dict[str, bool]]) -> int:
            return sum(self._left.get(scope, 0) for scope in workload)

        def _assign_work_unit(self, node) -> None:
            scope, work_unit = self.workqueue.popitem(last=False)
            self.assigned_work.setdefault(node, {})[scope] = work_unit
            index = self._index.get(node)
            if index is None:
                index = self._index[node] = {}
                for i, nodeid in enumerate(self.registered_collections[node]):
                    index.setdefault(nodeid, i)  # (the first, as list.index gives)
            todo = [index[nodeid] for nodeid, completed in work_unit.items() if not completed]
            self._left[scope] = len(todo)
            node.send_runtest_some(todo)

        def mark_test_complete(self, node, item_index: int, duration: float = 0) -> None:
            nodeid = self.registered_collections[node][item_index]
            scope = self._split_scope(nodeid)
            work = self.assigned_work[node]
            work[scope][nodeid] = True
            self._left[scope] -= 1
            if not self._left[scope]:
                del work[scope]
            self._reschedule(node)

    return FrameworksOnOneWorker(config, log)
