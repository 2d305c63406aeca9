"""Test configuration.

The suite is deterministic: hypothesis runs derandomized (the same examples
every run, on every machine, in CI or not), so a result is reproducible.

``SYMGRAD_FUZZ=long`` switches to exploration: random examples, ten times
as many, for a thorough run before a release (the differential fuzz test
reads the same variable for its own, larger, budget).
"""

from __future__ import annotations

import os

from hypothesis import settings

LONG = os.environ.get("SYMGRAD_FUZZ") == "long"

settings.register_profile("deterministic", derandomize=True, print_blob=True)
settings.register_profile("long", derandomize=False, print_blob=True, max_examples=1000)
settings.load_profile("long" if LONG else "deterministic")


# ---- one xdist worker for the tests that import JAX, PyTorch or dask ----------------
# Importing jax and torch costs ~3 s of CPU and dask.distributed ~1 s, per process
# (2026-11-27, load 6); a worker that never runs such a test never pays it.  These
# tests go to one worker as one unit, the largest, sent first; every other test is
# its own unit, spread one by one as ``--dist load`` does.  The modules are imported
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
)


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "load":
        return None  # the user chose a scheduling
    from xdist.scheduler import LoadScopeScheduling

    class FrameworksOnOneWorker(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "frameworks" if nodeid.startswith(FRAMEWORK_TESTS) else nodeid

    return FrameworksOnOneWorker(config, log)
