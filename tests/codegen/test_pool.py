"""Worker threads evaluate every block under the caller's floating-point
error state (NumPy's error state is local to a thread: a worker starts from
the default one)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp

from symgrad import lambdify

x = sp.Symbol("x", real=True)
BIG = np.full(100_000, 1000.0)  # exp overflows at every point


@pytest.mark.parametrize("n", [10, 100_000])
def test_errstate_raise_is_honoured_on_every_block(n):
    f = lambdify(x, sp.exp(x), threads=2, block=1000)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
        f(BIG[:n])


@pytest.mark.parametrize("n", [10, 100_000])
def test_errstate_ignore_is_honoured_on_every_block(n):
    f = lambdify(x, sp.exp(x), threads=2, block=1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any RuntimeWarning fails the test
        with np.errstate(all="ignore"):
            assert np.isinf(f(BIG[:n])).all()


def test_errstate_call_is_honoured_on_every_block():
    seen = []
    f = lambdify(x, sp.exp(x), threads=2, block=1000)
    with np.errstate(over="call", call=lambda kind, flag: seen.append(kind)):
        f(BIG)
    assert seen and set(seen) == {"overflow"}


def test_the_default_state_still_warns():
    f = lambdify(x, sp.exp(x), threads=2, block=1000)
    with pytest.warns(RuntimeWarning, match="overflow"):
        f(BIG)
