"""The entry point's run-time helpers, a module of their own that imports
NumPy only (a serial pickle carries its text)."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from symgrad import lambdify
from symgrad.codegen.runtime import _arg, _flat, _hypot
from symgrad.rewrites.forms import lgamma_remainder

x, y = sp.symbols("x y")


def test_arguments_are_refused_by_the_name_of_their_symbols():
    with pytest.raises(TypeError, match=r"argument 2 \(b, c\) is a NoneType"):
        _arg(None, 1, ("a", "b, c"))
    assert _arg([1, 2], 0, ("a",)).tolist() == [1, 2]
    assert _arg(sp.Rational(1, 2), 0, ("a",)) == 0.5


def test_flat_broadcasts_and_keeps_single_points():
    a = np.arange(3.0)
    assert _flat(a, (), (2, 3), 6, np.float32).tolist() == [0, 1, 2] * 2
    assert _flat(np.array(2.0), (), (2, 3), 6, np.float64).shape == ()


def test_hypot_is_hypot_everywhere():
    a = np.concatenate([np.linspace(-5, 5, 600), [1e300, 1e-300, 0, np.nan]])
    b = np.concatenate([np.linspace(3, -3, 600), [1e300, 1e-300, 0, 1]])
    got = _hypot(a, b)
    ref = np.hypot(a, b)
    assert np.all(np.abs(got - ref) <= np.spacing(ref)) or np.allclose(got, ref, equal_nan=True)
    np.testing.assert_array_equal(_hypot(a[600:], b[600:]), ref[600:])


def test_a_serial_pickle_runs_the_runtime_text_without_symgrad(tmp_path):
    # (and the text of symgrad.rewrites.remainders, which Stirling's remainder calls)
    fn = lambdify([x, y], [sp.sqrt(x**2 + y**2), x * y, lgamma_remainder(x)], threads=1)
    path = tmp_path / "fn.pkl"
    path.write_bytes(pickle.dumps(fn))
    code = ("import pickle, sys, numpy as np\n"
            f"fn = pickle.load(open({str(path)!r}, 'rb'))\n"
            "print(fn(np.full(1000, 3.0), 4.0)[0][0], fn(3.0, 4.0)[1], fn(3.0, 4.0)[2])\n"
            "print(any(m.split('.')[0] == 'symgrad' for m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    got = out.stdout.split()
    assert got[:2] == ["5.0", "12.0"] and got[3] == "False"
    # (R(3) = log 2 - (5/2) log 3 + 3 - log(2π)/2, mpmath: 0.027677925684998339)
    assert float(got[2]) == pytest.approx(0.027677925684998339, rel=4e-16)


def test_a_float64_point_takes_the_correctly_rounded_hypot():
    import math

    rng = np.random.default_rng(3)
    for a, b in zip(rng.standard_normal(50) * 1e200, rng.standard_normal(50) * 1e199):
        got = _hypot(np.float64(a), np.float64(b))
        assert type(got) is np.float64 and got == math.hypot(a, b)
    assert type(_hypot(np.float32(3), np.float32(4))) is np.float32
