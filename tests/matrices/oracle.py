"""Oracles for matrix gradients: the formula expanded entry by entry
(explicit matrices of symbols, differentiated by sympy.diff), and central
differences in mpmath at high precision."""

from __future__ import annotations

import random

import mpmath
from sympy import (
    Float,
    Identity,
    ImmutableMatrix,
    Matrix,
    MatrixSymbol,
    OneMatrix,
    Rational,
    Symbol,
    diff,
)

from symgrad import grad

__all__ = ["entries", "point", "value", "check_grad"]


def entries(W: MatrixSymbol) -> ImmutableMatrix:
    """W as an explicit matrix of (real) symbols ``W_i_j``."""
    m, n = W.shape
    return ImmutableMatrix(m, n, lambda i, j: Symbol(f"{W.name}_{i}_{j}", real=True))


def point(mats: list, seed: int = 0, lo: float = -1.5, hi: float = 1.5) -> dict:
    """A random rational value for every entry of every matrix symbol."""
    rng = random.Random(seed)
    out = {}
    for W in mats:
        m, n = W.shape
        out[W] = ImmutableMatrix(
            m, n, lambda i, j: Float(Rational(round(rng.uniform(lo, hi) * 64), 64), 50))
    return out


def value(expr, at: dict, prec: int = 40):
    """``expr`` with every matrix symbol replaced by its value, expanded."""
    e = expr.xreplace(at)
    consts = {c: c.as_explicit() for c in e.atoms(OneMatrix, Identity)}
    e = e.xreplace(consts).doit()
    if getattr(e, "is_Matrix", False):
        return Matrix(e.as_explicit()).evalf(prec)
    return e.evalf(prec)


def check_grad(loss, g, W: MatrixSymbol, mats: list, seed: int = 0, tol: float = 1e-25,
               via: str = "diff"):
    """Assert ``g`` (a matrix formula) is the gradient of ``loss`` with
    respect to W at a random point: against sympy.diff of the entry-by-
    entry expansion (or symgrad's scalar grad of it, ``via="grad"``), and
    against central differences in mpmath."""
    assert tuple(g.shape) == tuple(W.shape), (g.shape, W.shape)
    at = point(mats, seed)
    got = value(g, at)
    # entry by entry: W's entries symbolic, the other matrices numeric
    Ws = entries(W)
    others = {M: v for M, v in at.items() if M != W}
    scalar = value(loss, {**others, W: Ws}, prec=60)
    if getattr(scalar, "is_Matrix", False):  # a 1×1 matrix loss
        scalar = scalar[0, 0]
    wvals = {Ws[k]: at[W][k] for k in range(len(Ws))}
    m, n = W.shape
    if via == "diff":
        want = Matrix(m, n, lambda i, j: diff(scalar, Ws[i, j]).xreplace(wvals).evalf(40))
    else:  # symgrad's scalar reverse mode over the entries, one pass
        gs = grad(scalar, list(Ws))
        want = Matrix(m, n, [v.xreplace(wvals).evalf(40) for v in gs])
    assert (got - want).norm() < tol * (1 + want.norm()), (got, want)
    # central differences at 50 digits, step 1e-20
    with mpmath.workdps(50):
        h = mpmath.mpf("1e-20")
        for k in range(min(len(Ws), 4)):
            plus = dict(wvals)
            minus = dict(wvals)
            plus[Ws[k]] = wvals[Ws[k]] + Float("1e-20", 50)
            minus[Ws[k]] = wvals[Ws[k]] - Float("1e-20", 50)
            fd = (mpmath.mpf(str(scalar.xreplace(plus).evalf(60)))
                  - mpmath.mpf(str(scalar.xreplace(minus).evalf(60)))) / (2 * h)
            assert abs(fd - mpmath.mpf(str(got[k]))) < mpmath.mpf("1e-15") * (1 + abs(fd))
