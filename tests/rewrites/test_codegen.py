"""The rewrites code generation applies (the ``codegen`` scope of the one
library, symgrad.rewrites): accurate NumPy forms keep their bits where the
naive formula loses them, and a real-only form is never applied to a
value that may be complex."""

from __future__ import annotations

import numpy as np
import sympy as sp

from symgrad import lambdify, numpy_code

x, y = sp.symbols("x y")


def test_softplus_does_not_overflow_or_underflow():
    f = lambdify(x, sp.log(1 + sp.exp(x)))
    np.testing.assert_allclose(f(np.array([1000.0, -1000.0, 0.0])), [1000.0, np.exp(-1000.0),
                                                                      np.log(2.0)])
    assert abs(f(-50.0) / np.exp(-50.0) - 1) < 1e-15


def test_log1p_and_expm1_keep_tiny_values():
    assert lambdify(x, sp.log(1 + x))(1e-20) == 1e-20
    assert lambdify(x, sp.exp(x) - 1)(1e-20) == 1e-20
    assert lambdify(x, 1 - sp.exp(x))(1e-20) == -1e-20
    assert "np.log1p" in numpy_code(x, sp.log(x + 1))
    assert "np.expm1" in numpy_code(x, sp.exp(x) - 1)


def test_hypot_does_not_overflow():
    f = lambdify([x, y], [sp.sqrt(x**2 + y**2), 1 / sp.sqrt(x**2 + y**2)])
    big = f(3e200, 4e200)
    np.testing.assert_allclose(big, [5e200, 2e-201], rtol=1e-15)


def test_logaddexp_of_two_exponentials():
    f = lambdify([x, y], sp.log(sp.exp(x) + sp.exp(y)))
    assert f(1000.0, 1000.0) == 1000.0 + np.log(2.0)
    assert "np.logaddexp" in f.source


def test_an_equal_copy_of_a_node_is_no_change():
    from symgrad.rewrites import accurate_forms

    a = sp.Add(x, x, evaluate=False)
    b = sp.Add._from_args((x, x))  # uncached: a distinct object
    e = sp.Mul(a, sp.sin(b, evaluate=False), evaluate=False)
    assert accurate_forms([e])[0] is e


def test_log_sigmoid_keeps_its_tiny_values():
    # log(1/(1 + exp(-x))) is -softplus(-x): at x = 45 it is -exp(-45), not 0
    f = lambdify(x, sp.log(1 / (1 + sp.exp(-x))))
    got = f(np.array([45.0, -1000.0, 0.0]))
    np.testing.assert_allclose(got, [-np.exp(-45.0), -1000.0, -np.log(2.0)], rtol=1e-15)
    assert f(np.float32(40)).dtype == np.float32 and f(np.float32(40)) < 0
    assert "log1p" in numpy_code([x], sp.log(1 / (x + 1)))


def test_codegen_uses_the_one_rewrite_library():
    import importlib.util

    assert importlib.util.find_spec("symgrad.codegen.accurate") is None
    # a codegen-scope rewrite accurate.py did not have: log1p(exp(u)) is softplus
    f = lambdify(x, sp.log(1 + sp.exp(x)) + sp.codegen.cfunctions.log1p(sp.exp(2 * x)))
    assert f(1000.0) == 3000.0


def _complex_truth(expr, v):
    return complex(sp.N(expr.subs(x, v), 30))


def test_real_only_forms_are_not_applied_to_complex_values():
    # issue 9: the softplus form max(u, 0) + log1p(exp(-|u|)) of u = 0.5i gave
    # 0.474 + 0.5i; log(1 + exp(0.5i)) is 0.662 + 0.25i
    cases = [
        sp.log(1 + sp.exp(sp.I * x)),
        sp.log(sp.exp(sp.I * x) + sp.exp(x)),  # logaddexp is real-only
        sp.sqrt((sp.I * x) ** 2 + x**2 + 1),  # hypot of an imaginary leg
        sp.log(1 / (1 + sp.exp(sp.I * x))),
    ]
    for e in cases:
        f = lambdify(x, e)
        for v in (0.5, -2.0):
            assert abs(f(v) - _complex_truth(e, v)) < 1e-14, (e, v)


def test_a_constant_that_is_not_real_is_not_compared():
    # issue 9: the softplus rewrite asked asin(2) >= 0: SymPy's "not comparable"
    e = sp.log(1 + sp.exp(sp.asin(2))) * x
    assert "x*np.log1p(np.exp(np.arcsin(2)))" in numpy_code(x, e)  # no softplus form
    e = sp.log(1 + sp.exp(sp.asin(sp.Rational(1, 2)) * x))
    assert "log1p(np.exp(-np.abs(" in numpy_code(x, e)  # a real constant: the softplus form
    assert lambdify(x, e)(2000.0) == float(sp.N(sp.asin(sp.Rational(1, 2)) * 2000, 20))


def test_real_valued_functions_keep_their_accurate_forms():
    # the codegen forms accurate.py applied to every argument stay applied
    # where the argument is real, whatever function computes it
    for inner in (sp.tan(x), sp.floor(x), sp.sign(x) * x, sp.atan2(x, 2), sp.Max(x, 1),
                  sp.sinh(x), sp.acosh(x**2 + 1), sp.asinh(x)):
        src = numpy_code(x, sp.log(1 + sp.exp(inner)))
        assert "np.log1p(np.exp(-np.abs(" in src, (inner, src)


def test_a_symbol_declared_imaginary_or_complex_is_not_taken_for_real():
    # symbols are real by symgrad's convention, unless declared otherwise:
    # the softplus form of an imaginary z raised SymPy's "not comparable"
    for z in (sp.Symbol("z", imaginary=True), sp.Symbol("z", complex=True)):
        e = sp.log(1 + sp.exp(z)) + sp.sqrt(z**2 + 1)
        assert "maximum" not in numpy_code([z], e) and "hypot" not in numpy_code([z], e)
        f = lambdify([z], e)
        assert abs(f(0.5j) - complex(e.subs(z, 0.5 * sp.I).evalf(30))) < 1e-14
    w = sp.Symbol("w", positive=True)
    assert "np.log1p(np.exp(-np.abs(w)))" in numpy_code([w], sp.log(1 + sp.exp(w)))
