"""Regenerate :data:`symgrad.rewrites.remainders.DIGAMMA_ROOT` and
:data:`~symgrad.rewrites.remainders.DIGAMMA_ROOT_POLY` (``python -m
benchmarks.fit_digamma_root``; a few seconds).

ψ(y)/(y - x0) on [1, 3], x0 ψ's positive root, interpolated at 90 Chebyshev
nodes in mpmath at 300 bits, truncated where five Chebyshev coefficients in a
row are below 2^-60 of the function's least magnitude, then written as a
polynomial in s = y - 2 and its coefficients rounded to float64; x0 split into
three floats, the first two exact in float32 (so ``(x - R1) - R2`` is exact
near x0 in both types).  Prints the tuples and the rounded polynomial's
largest relative error over 2,001 points of [1, 3].
"""

from __future__ import annotations

import mpmath
import numpy as np

NODES = 90


def fit() -> tuple[tuple[float, ...], tuple[float, ...], mpmath.mpf]:
    """(the split root, the coefficients, the rounded polynomial's largest relative error)."""
    with mpmath.workprec(300):
        x0 = mpmath.findroot(mpmath.digamma, mpmath.mpf("1.4616321449683623"))

        def g(s):
            return mpmath.digamma(s + 2) / (s + 2 - x0)

        half = mpmath.mpf(1) / 2
        angles = [mpmath.pi * (k + half) / NODES for k in range(NODES)]
        vals = [g(mpmath.cos(a)) for a in angles]
        cheb = [2 * mpmath.fsum(v * mpmath.cos(j * a) for v, a in zip(vals, angles)) / NODES
                for j in range(NODES)]
        cheb[0] /= 2
        floor = min(abs(v) for v in vals) * mpmath.mpf(2) ** -60
        deg = next(j for j in range(NODES) if all(abs(c) < floor for c in cheb[j:j + 5])) - 1
        # Chebyshev to monomials: T_{j+1} = 2 s T_j - T_{j-1}
        basis = [[mpmath.mpf(1)], [mpmath.mpf(0), mpmath.mpf(1)]]
        for _ in range(2, deg + 1):
            up = [mpmath.mpf(0)] + [2 * c for c in basis[-1]]
            down = basis[-2] + [mpmath.mpf(0)] * (len(up) - len(basis[-2]))
            basis.append([p - q for p, q in zip(up, down)])
        mono = [mpmath.mpf(0)] * (deg + 1)
        for j in range(deg + 1):
            for i, c in enumerate(basis[j]):
                mono[i] += cheb[j] * c
        coeffs = tuple(float(c) for c in mono)
        r1 = float(np.float32(float(x0)))
        r2 = float(np.float32(float(x0 - r1)))
        r3 = float(x0 - r1 - r2)
        worst = mpmath.mpf(0)
        for k in range(2001):
            s = -1 + mpmath.mpf(2) * k / 2000
            p = mpmath.mpf(0)
            for c in reversed(coeffs):
                p = p * s + c
            worst = max(worst, abs(p / g(s) - 1))
    return (r1, r2, r3), coeffs, worst


if __name__ == "__main__":
    root, coeffs, worst = fit()
    print("DIGAMMA_ROOT =", root)
    print("DIGAMMA_ROOT_POLY =", coeffs)
    print("largest relative error of the rounded polynomial:", mpmath.nstr(worst, 3))
