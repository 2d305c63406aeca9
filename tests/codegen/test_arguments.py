"""What a generated function accepts: numbers and arrays of numbers, in the
documented floating type; anything with a float value (a SymPy number,
Fraction, Decimal) converted; anything else refused, naming the argument."""

from __future__ import annotations

import datetime
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from symgrad import lambdify

x, y = sp.symbols("x y", real=True)
F = lambdify([x, y], 2 * x * y + 1)


@pytest.mark.parametrize(
    "value", [sp.Float(2.0), sp.Integer(2), sp.Rational(4, 2), Fraction(2), Decimal("2"),
              np.float64(2), 2, True + 1, [2.0], np.array([2], dtype=object)],
)
def test_numbers_of_any_kind_are_converted(value):
    # f(x, 2.0) with a SymPy Float returned the expression 2.0*x + 1 (an object)
    got = F(1.5, value)
    assert np.asarray(got).dtype == np.float64
    assert np.all(got == 7.0)


def test_float32_stays_float32_beside_converted_numbers():
    assert F(np.float32(1.5), Fraction(1, 2)).dtype == np.float32


@pytest.mark.parametrize(
    "value, what",
    [
        (None, "NoneType, not a number"),
        ("2.0", "str, not a number"),
        (b"2", "bytes, not a number"),
        (sp.Symbol("x"), "not a number"),
        (x + 1, "not a number"),
        (np.datetime64("2024-01-01"), "datetime64"),
        (np.array(["1", "2"]), "<U1"),
        (np.array([1.0, None], dtype=object), "NoneType"),
        (datetime.date(2024, 1, 1), "date, not a number"),
        (10**400, "too large for a float"),
        (np.ma.masked_array([1.0, 2.0], mask=[0, 1]), "masked array"),
    ],
)
def test_anything_else_is_refused_naming_the_argument(value, what):
    with pytest.raises(TypeError, match=r"argument 2 \(y\) is .*" + what.replace("(", r"\(")):
        F(1.5, value)


def test_a_vector_argument_is_named_by_its_symbols():
    zs = sp.symbols("z0:9")
    f = lambdify([x, list(zs)], x + sum(zs))
    with pytest.raises(TypeError, match=r"argument 2 \(z0, z1, z2, \.\.\. \(9 symbols\)\)"):
        f(1.0, "nine")


def test_a_masked_array_filled_with_nan_keeps_its_points_out():
    a = np.ma.masked_array([1.0, 2.0], mask=[0, 1])
    got = F(a.filled(np.nan), 1.0)
    assert got[0] == 3.0 and np.isnan(got[1])


def test_array_likes_are_read_as_arrays():
    class Column:  # pandas, dask, xarray: anything with __array__
        def __array__(self, dtype=None, copy=None):
            return np.array([1.0, 2.0])

    np.testing.assert_array_equal(F(Column(), 2.0), [5.0, 9.0])
    np.testing.assert_array_equal(F(sp.Matrix([1, 2]), 2.0).ravel(), [5.0, 9.0])
    with pytest.raises(TypeError, match=r"argument 1 \(x\) is .*not a number"):
        F(sp.Matrix([x, 2]), 2.0)
