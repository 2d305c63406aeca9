"""The explicit entries of matrix formulas (what the stability checks
measure), computed bottom up over the matrix DAG, against SymPy's own
expansion (``doit`` of the formula over explicit matrices)."""

from __future__ import annotations

import random

from sympy import (
    Determinant,
    ImmutableMatrix,
    Inverse,
    MatrixSymbol,
    OneMatrix,
    Trace,
    exp,
    hadamard_product,
    tanh,
)
from sympy.matrices.expressions.matexpr import MatrixElement

import symgrad
from symgrad.matrices.entries import STABLE, entry_symbols, explicit

W, V = MatrixSymbol("W", 2, 2), MatrixSymbol("V", 2, 2)
v = MatrixSymbol("v", 2, 1)
SUBS = {M: entry_symbols(M) for M in (W, V, v)}


def _cases() -> list:
    return [
        W * V * v,
        2 * W.T * v - V * v,
        hadamard_product(W, V.T) + symgrad.elementwise(tanh, W * V),
        Trace(W * V) * symgrad.sum(W),
        MatrixElement(W * v, 1, 0) + symgrad.norm(W * v),
        symgrad.softmax(W * V, axis=1) - symgrad.log_softmax(W, axis=0),
        symgrad.logsumexp(W * v) + symgrad.mean(symgrad.logsumexp(V, axis=1)),
        OneMatrix(1, 2) * symgrad.elementwise(exp, W) * v,
        Inverse(W + 3 * V.T * V + OneMatrix(2, 2)) * v,
        Determinant(W) * symgrad.sum(W**2),
        symgrad.grad(symgrad.mean(symgrad.logsumexp(symgrad.elementwise(tanh, W * V), axis=1))
                     - symgrad.sum(hadamard_product(V, W)), W),
    ]


def test_entries_are_sympys_expansion():
    gots, wants, cases = [], [], []
    for k, e in enumerate(_cases()):
        token = STABLE.set(True)
        try:
            got = explicit(e, SUBS)
            want = e.xreplace(SUBS).doit()
        finally:
            STABLE.reset(token)
        if getattr(want, "is_Matrix", False):
            want = ImmutableMatrix(want.as_explicit())
            assert got.shape == want.shape, k
        g = list(got) if got.is_Matrix else [got]
        gots += g
        wants += list(want) if want.is_Matrix else [want]
        cases += [k] * len(g)
    syms = [s for M in SUBS.values() for s in M]
    pick = random.Random(3)
    at = [pick.uniform(-1, 1) for _ in syms]
    both = symgrad.lambdify(syms, gots + wants)(*at)  # one program for all
    for k, a, b in zip(cases, both[:len(gots)], both[len(gots):]):
        assert abs(a - b) <= 1e-13 * abs(b) + 1e-15, k


def test_a_formula_out_of_reach_entry_by_entry_is_refused_at_once():
    import time

    import pytest

    X, M = MatrixSymbol("X", 1000, 784), MatrixSymbol("M", 784, 64)
    t = time.perf_counter()
    with pytest.raises(symgrad.SymgradError,
                       match=r"64,000 output entries over 834,176 entry symbols \(X 1000×784, "
                             r"M 784×64\).*smaller shapes"):
        symgrad.check_stability(symgrad.elementwise(tanh, X * M), {X: (-1, 1), M: (-1, 1)})
    assert time.perf_counter() - t < 5  # it hung, building 627,200 entries
