"""JAX and PyTorch for the tests, imported at their first use inside a test,
not when pytest collects the module.

Importing both costs ~3 s of CPU (torch 2 s, jax 1 s; 2026-11-27, load 6).
At collection every xdist worker paid it; imported lazily, it is paid by the
workers that run a test using them, and tests/conftest.py puts those tests in
one xdist group, so one worker pays it.  A backend that is not installed
skips the test that needs it, as ``pytest.importorskip`` at the top of the
module did for the whole module.
"""

from __future__ import annotations

import pytest


class Backend:
    """A module imported (or the test skipped) at its first attribute.

    >>> math = Backend("math")
    >>> math.sqrt(4.0)
    2.0
    >>> hasattr(math, "_mock_name")  # no import for a private name
    False
    """

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        if attr.startswith("_"):
            # pytest's collection probes every module-level name for private
            # attributes (``_mock_name``, ``__wrapped__``, ...): answering
            # them would import the backend in every worker's collection
            raise AttributeError(attr)
        return getattr(pytest.importorskip(self._name), attr)

    def __repr__(self) -> str:
        return f"Backend({self._name!r})"


jax = Backend("jax")
jnp = Backend("jax.numpy")
torch = Backend("torch")
