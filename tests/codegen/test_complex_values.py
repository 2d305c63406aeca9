"""Complex values: symbols are real, so arguments are evaluated in their
real type and values are complex only where the formula holds I; a function
with no complex meaning never receives one (refused when the code is
built); a complex constant in a branch (the log(3/2) + I*pi of log(-3/2))
does not make the whole kernel complex; a complex formula with a real dtype
is an error, not zeros and a ComplexWarning."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad import SymgradError, lambdify
from symgrad.codegen.printer import NoNumpyFormError

x, y = sp.symbols("x y", real=True)


def test_a_complex_formula_with_a_real_dtype_is_an_error():
    # returned zeros with only a ComplexWarning
    for dtype in (float, np.float32, "float64"):
        with pytest.raises(SymgradError, match="complex-valued"):
            lambdify(x, sp.I * x, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lambdify(x, sp.I * x, dtype=complex)(2.0) == 2j


def test_real_only_functions_of_real_arguments_in_a_complex_formula():
    # floor received the complex-cast argument: TypeError from the generated code
    f = lambdify([x, y], [sp.floor(x) + sp.I, sp.Mod(x, y) * sp.I, sp.Heaviside(x) + sp.I * y])
    a, b, c = f(np.array([1.5, -0.5]), 0.75)
    np.testing.assert_array_equal(a, [1 + 1j, -1 + 1j])
    np.testing.assert_allclose(b, [0j, 0.25j])
    np.testing.assert_array_equal(c, [1 + 0.75j, 0.75j])


@pytest.mark.parametrize(
    "expr, name",
    [
        (sp.floor(x + sp.I * x), "floor"),
        (sp.atan2(y, x + sp.I), "atan2"),
        (sp.Piecewise((x, x + sp.I * y > 0), (y, True)), "StrictGreaterThan"),
    ],
)
def test_a_function_with_no_complex_meaning_is_refused_by_name(expr, name):
    with pytest.raises(NoNumpyFormError, match=f"{name}.*receives a complex value"):
        lambdify([x, y], expr)


def test_abs_of_a_complex_value_is_real_and_may_feed_anything():
    f = lambdify(x, sp.floor(sp.Abs(x + sp.I)) + sp.I)
    assert f(0.5) == 1 + 1j


def _gradient_with_a_complex_untaken_branch():
    # d/dx (-3/2)**x = (-3/2)**x * (log(3/2) + I*pi): complex where taken
    return symgrad.grad(symgrad.where(x > 10, sp.Rational(-3, 2) ** x, x), x)


def test_a_complex_constant_in_a_branch_does_not_make_the_kernel_complex():
    g = _gradient_with_a_complex_untaken_branch()
    assert g.has(sp.I)
    # the whole kernel was complex, and np.mod crashed on it
    f = lambdify(x, [g, sp.Mod(g, 1)])
    value, mod = f(np.array([0.5, 2.5, 12.5]))
    assert value.dtype == np.float64
    np.testing.assert_array_equal(value[:2], [1.0, 1.0])
    np.testing.assert_array_equal(mod[:2], [0.0, 0.0])
    assert np.isnan(value[2]) and np.isnan(mod[2])  # not real there: NaN, as np.log(-1.5)


def test_a_complex_dtype_gives_the_branch_its_complex_value():
    g = _gradient_with_a_complex_untaken_branch()
    got = lambdify(x, g, dtype=complex)(np.array([0.5, 12.5]))
    want = complex(g.subs(x, 12.5).evalf())
    assert got[0] == 1.0
    assert got[1] == pytest.approx(want, rel=1e-13)


def test_a_real_value_made_from_complex_ones_in_a_branch_is_kept():
    # Abs(u + I) is real: printing I as NaN in its branch would lose it (with
    # u declared real, SymPy writes it sqrt(u**2 + 1) itself)
    u = sp.Symbol("u")
    f = lambdify(u, symgrad.where(u > 0, sp.Abs(u + sp.I), -1))
    np.testing.assert_allclose(f(np.array([-1.0, 1.0])), [-1, 2**0.5], rtol=1e-15)
