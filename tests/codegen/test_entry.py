"""The entry point's path for one point in Python floats (issue 9 §4: a
call paid the general path's conversions and checks) gives what the
general path gives: the same values, types and layouts."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad import grad, lambdify

x, y = sp.symbols("x y", real=True)
f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)


@pytest.mark.parametrize("exprs", [
    f,
    grad(f, [x, y]),
    list(grad(f, [x, y])),
    (x * y,),
    sp.Matrix([[x, 1], [y, x / y]]),
])
def test_python_floats_as_numpy_scalars(exprs):
    fn = lambdify([x, y], exprs)
    assert "is float" in fn.source
    for a, b in [(0.3, -0.7), (0.0, 0.0), (-2.5, 1e300)]:
        with np.errstate(all="ignore"):
            fast = fn(a, b)
            general = fn(np.float64(a), np.float64(b))
        assert type(fast) is type(general)
        for u, v in zip(np.ravel(fast), np.ravel(general)):
            assert type(u) is type(v) is np.float64
            np.testing.assert_array_equal(u, v)


def test_python_floats_follow_numpy_arithmetic():
    # Python's own float arithmetic raises (1/0.0) or turns complex
    # ((-1.0)**0.5): the fast path computes in NumPy float64 scalars
    with np.errstate(all="ignore"):
        assert lambdify(x, 1 / x)(0.0) == np.inf
        assert np.isnan(lambdify(x, sp.sqrt(x))(-1.0))
        assert np.isnan(lambdify(x, x**sp.Rational(3, 2))(-1.0))


def test_other_arguments_take_the_general_path():
    fn = lambdify([x, y], x * y, dtype=np.float32)
    assert "is float" not in fn.source
    assert fn(0.5, 3.0).dtype == np.float32
    assert lambdify([x, y], x * y)(2, 3.0) == 6.0
    assert lambdify([x, y], sp.I * x * y)(2.0, 3.0) == 6j
