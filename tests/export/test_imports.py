"""The extras stay optional: ``import symgrad`` imports neither JAX nor
PyTorch, and asking for an absent backend is an error naming the extra."""

import subprocess
import sys

import pytest
import sympy as sp

import symgrad
from symgrad.errors import SymgradError


def test_import_symgrad_imports_no_backend():
    code = ("import sys, symgrad, sympy\n"
            "x = sympy.Symbol('x'); symgrad.lambdify([x], x + 1)(1.0)\n"
            "print(sorted(m for m in ('jax', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


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
