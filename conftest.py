"""Collection for the whole run (``tests/``, ``symgrad/``, ``docs/``, README).

``--doctest-modules`` makes a doctest collector of every ``.py`` file: it
imports the module (``symgrad/export/torch_numpy.py`` imports PyTorch, ~2 s
of CPU) and probes every module-level name for fixtures, once for the test
module and once again for its doctests.  A file without a ``>>>`` line has
no doctest to find, so its doctest collector is dropped: the same tests run,
and no xdist worker pays for a framework it does not use.
"""

from __future__ import annotations

import pytest
from _pytest.doctest import DoctestModule


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    found = yield
    if file_path.suffix == ".py" and any(isinstance(c, DoctestModule) for c in found):
        if ">>>" not in file_path.read_text(encoding="utf-8"):
            found = [c for c in found if not isinstance(c, DoctestModule)]
    return found
