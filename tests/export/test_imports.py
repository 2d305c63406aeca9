"""The extras stay optional: asking for an absent backend is an error
naming the extra.  That ``import symgrad`` imports neither JAX nor PyTorch
is asserted in a fresh process by tests/test_examples.py (its script-alone
test: one Python started for both)."""

import sys

import pytest
import sympy as sp

import symgrad
from symgrad.errors import SymgradError


@pytest.mark.parametrize("backend", ["jax", "torch"])
def test_absent_backend_names_the_extra(backend, monkeypatch):
    monkeypatch.setitem(sys.modules, backend, None)  # import now raises ImportError
    x = sp.Symbol("x")
    export = symgrad.to_jax if backend == "jax" else symgrad.to_torch
    with pytest.raises(SymgradError, match=rf'pip install "symgrad\[{backend}\]"'):
        export(x * 2, [x])
    with pytest.raises(SymgradError, match=rf"symgrad's '{backend}' extra"):
        symgrad.lambdify([x], x * 2, backend=backend)


def test_unknown_backend():
    x = sp.Symbol("x")
    with pytest.raises(SymgradError, match="backend='tf'"):
        symgrad.lambdify([x], x, backend="tf")
