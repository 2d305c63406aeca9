"""Oracles the tests compare symgrad with: symbolic equality (as SymPy can
decide it) and high-precision numbers (mpmath, through ``evalf``)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import mpmath
from sympy import Basic, Derivative, Expr, Heaviside, Piecewise, Rational, S, cancel, simplify
from sympy.core.parameters import evaluate

from symgrad.graph import count_ops, postorder

__all__ = [
    "same",
    "equivalent",
    "exact",
    "value",
    "try_value",
    "central_difference",
    "close",
    "dag_values",
]

DPS = 50  # digits the numeric oracles work with
STEP = Rational(1, 10**15)  # central-difference step: error ~ STEP**2 ≈ 1e-30


def same(a: Expr, b: Expr) -> bool:
    """Whether SymPy can show ``a == b``: structurally, by ``simplify(a - b)``,
    or (a fallback) by ``a.equals(b)``."""
    if a == b:
        return True
    if simplify(a - b) == 0:
        return True
    return bool(a.equals(b))


# ``cancel`` is a sound zero test (a 0 it returns is a proof) but not a complete
# one once algebraic relations appear (square roots of sums), and its cost grows
# fast with the size of the expression: use it only up to this many operations.
CANCEL_OPS = 60


def equivalent(a: Expr, b: Expr, symbols, points: int = 4, seed: int = 0) -> bool:
    """Whether ``a == b`` as functions of ``symbols``: proved structurally or
    by exact cancellation where that applies, else decided by evaluation at
    ``points`` seeded random rational points at ``DPS`` digits.

    Points where either side does not evaluate to a finite real number are
    passed over (a pole, a branch cut); if no point evaluates on both sides
    the two are compared as they print, which fails loudly rather than
    passing silently.

    >>> from sympy import sqrt, symbols
    >>> x = symbols("x", real=True)
    >>> equivalent(1 / (sqrt(x**2 + 1) - x), sqrt(x**2 + 1) + x, [x])
    True
    >>> equivalent(x, x + 10**-30, [x])
    False
    """
    if a == b:
        return True
    diff = a - b
    if count_ops([diff]) <= CANCEL_OPS and cancel(diff) == 0:
        return True
    rng = random.Random(seed)
    syms = sorted(symbols, key=str)
    tried = 0
    for _ in range(8 * points):
        at = {s: _sample(s, rng) for s in syms}
        va, vb = try_value(a, at), try_value(b, at)
        if va is None or vb is None:
            continue
        if not close(va, vb, rel=mpmath.mpf(10) ** (-(DPS - 10))):
            return False
        tried += 1
        if tried == points:
            return True
    return str(a) == str(b)


def _sample(s: Basic, rng: random.Random) -> Rational:
    """A rational in (-2.9, 2.9) that respects the sign ``s`` is declared with."""
    r = Rational(rng.randint(-2000, 2000), rng.randint(700, 1000))
    if s.is_nonnegative or s.is_positive:
        r = abs(r) + (Rational(1, 1000) if s.is_positive else 0)
    elif s.is_nonpositive or s.is_negative:
        r = -abs(r) - (Rational(1, 1000) if s.is_negative else 0)
    return r


def try_value(expr: Basic, point: Mapping, dps: int = DPS, careful: bool = True):
    """:func:`value`, or None where ``expr`` is not a finite number there
    (or holds an unevaluated ``Derivative``, whose ``evalf`` SymPy cannot do)."""
    if isinstance(expr, Basic) and expr.has(Derivative):
        return None
    try:
        return value(expr, point, dps, careful)
    except (ValueError, TypeError, ZeroDivisionError, NotImplementedError):
        # NotImplementedError: SymPy's own evaluation of the substituted
        # tree gives up (Mod(asec(1), 1): "not expecting int(x) to round
        # away from 0")
        return None


def exact(v: float | int | str) -> Rational:
    """A sample coordinate as an exact rational (its shortest decimal)."""
    return v if isinstance(v, Rational) else Rational(str(v))


def value(
    expr: Basic, point: Mapping, dps: int = DPS, careful: bool = True
) -> mpmath.mpf | mpmath.mpc:
    """``expr`` at ``point`` (symbol -> number), to ``dps`` digits.

    The numbers are substituted with SymPy's automatic evaluation off first:
    with it on, building the substituted tree decides signs at 2 digits
    (``loggamma(1 + 10**-15).is_zero`` is True, so ``tanh(loggamma(1 +
    10**-15))`` is built as 0).  Where the unevaluated tree does not evaluate
    to a finite number (SymPy's Piecewise needs its conditions decided), the
    evaluated one is used, and where ``careful`` is False (twice as fast:
    for a finiteness screen, not for a value compared).
    """
    at = {s: exact(v) for s, v in point.items()}
    r = _unevaluated_value(expr, at, dps) if careful and isinstance(expr, Basic) else None
    if r is not None:
        return r
    e = expr.xreplace(at)
    if isinstance(e, Basic) and e.has(Heaviside):
        e = e.replace(lambda n: isinstance(n, Heaviside), lambda n: _heaviside(n, dps + 10))
    r = e.evalf(dps + 10) if isinstance(e, Basic) else S(e)
    re_, im_ = r.as_real_imag()
    if not (re_.is_Number and im_.is_Number) or not (re_.is_finite and im_.is_finite):
        raise ValueError(f"{expr} does not evaluate to a finite number at {dict(point)}: {r}")
    with mpmath.workdps(dps + 10):
        re_m, im_m = mpmath.mpf(re_), mpmath.mpf(im_)
        return re_m if im_m == 0 else mpmath.mpc(re_m, im_m)


def _unevaluated_value(expr: Basic, at: Mapping, dps: int):
    """``expr`` at ``at`` substituted without automatic evaluation, or None."""
    if expr.has(Piecewise, Heaviside):
        return None
    with evaluate(False):
        e = expr.xreplace(at)
    try:
        r = e.evalf(dps + 10)
        re_, im_ = r.as_real_imag()
    except (ValueError, TypeError, ZeroDivisionError, NotImplementedError, AttributeError):
        return None
    if not (re_.is_Number and im_.is_Number and re_.is_finite and im_.is_finite):
        return None
    with mpmath.workdps(dps + 10):
        re_m, im_m = mpmath.mpf(re_), mpmath.mpf(im_)
        return re_m if im_m == 0 else mpmath.mpc(re_m, im_m)


def _heaviside(node: Heaviside, dps: int) -> Expr:
    """A Heaviside of a number, decided by the number's value: SymPy decides
    only by assumptions, so Heaviside(-1 - c**tanh(1)) stays unevaluated (and
    its evalf too) when c's sign is not known symbolically."""
    arg, h0 = node.args[0], node.args[1] if len(node.args) > 1 else S.Half
    v = arg.evalf(dps)
    if not v.is_Number:
        return node
    return h0 if v == 0 else (S.One if v > 0 else S.Zero)


def central_difference(expr: Expr, point: Mapping, s: Basic) -> mpmath.mpf:
    """(f(p + h·eₛ) − f(p − h·eₛ)) / 2h at ``dps`` digits, h = 1e-15."""
    p = {k: exact(v) for k, v in point.items()}
    up = dict(p)
    down = dict(p)
    up[s] = p[s] + STEP
    down[s] = p[s] - STEP
    with mpmath.workdps(DPS):
        return (value(expr, up) - value(expr, down)) / (2 * mpmath.mpf(STEP.p) / STEP.q)


def close(a, b, rel: float = 1e-20) -> bool:
    """``|a - b| <= rel · max(1, |b|)``."""
    with mpmath.workdps(DPS):
        return abs(a - b) <= rel * max(1, abs(b))


def dag_values(exprs: Sequence[Basic], point: Mapping, dps: int = DPS) -> list:
    """``exprs`` at ``point``, evaluated node by node over their DAG (each
    distinct subexpression once, no recursion), in mpmath at ``dps`` digits.

    For formulas too deep for ``evalf`` (which recurses).  Handles Add, Mul,
    Pow, numbers, symbols and functions mpmath has under the same name.
    """
    with mpmath.workdps(dps):
        order, kids = postorder(exprs, lambda n: n.args)
        val: dict = {s: mpmath.mpf(exact(v).p) / exact(v).q for s, v in point.items()}
        for node in order:
            if node in val:
                continue
            args = [val[k] for k in kids[node]]
            if node.is_Number or node.is_NumberSymbol:
                val[node] = mpmath.mpf(node.evalf(dps + 10))
            elif node.is_Add:
                val[node] = mpmath.fsum(args)
            elif node.is_Mul:
                val[node] = mpmath.fprod(args)
            elif node.is_Pow:
                val[node] = args[0] ** args[1]
            elif node.is_Function and hasattr(mpmath, type(node).__name__):
                val[node] = getattr(mpmath, type(node).__name__)(*args)
            else:
                raise TypeError(f"dag_values cannot evaluate {type(node).__name__}: {node}")
        return [val[e] for e in exprs]


def scaled_range_cases(dtype: str, n: int = 1500, seed: int = 0):
    """Homogeneous forms whose intermediates leave the range where their
    inputs and value do not (powers, products of three factors, a quotient
    with a constant, a power of a product, hypot, a sum of products, the
    quadratic formula), with n rows per input of random exponents over the
    whole normal range of ``dtype``, and each form's exact value (long double,
    64 bits, a range past every intermediate's; mpmath at 200 bits per row
    where long double is no wider than float64).  Returns (symbols, forms,
    columns, truths)."""
    import numpy as np
    import sympy as sp
    from sympy.codegen.cfunctions import hypot

    x, y, z = sp.symbols("x y z", real=True)
    disc = sp.sqrt(y**2 - 4*x*z)
    forms = [x**2*y, x**5*y, x*y*z, x*y/(3*z), sp.sqrt(x**3*y), x**2*y/hypot(y, z),
             x**2*sp.Abs(y) + sp.Abs(z)**3,
             sp.Piecewise((-2*z/(y + disc), y > 0), ((-y + disc)/(2*x), True))]
    fi = np.finfo(dtype)
    rng = np.random.default_rng(seed)
    lo, hi = int(np.log2(fi.tiny)), int(np.log2(fi.max))
    cols = [(rng.uniform(1, 2, n) * np.exp2(rng.integers(lo, hi, n).astype(float))
             * rng.choice([-1, 1], n)).astype(dtype) for _ in range(3)]
    wide = np.finfo(np.longdouble).nmant >= 63
    truths = []
    for e in forms:
        if wide:
            f = sp.lambdify([x, y, z], e, [{"hypot": lambda a, b: np.sqrt(a*a + b*b)}, "numpy"])
            with np.errstate(all="ignore"):
                truths.append(np.asarray(f(*[c.astype(np.longdouble) for c in cols])))
        else:
            f = sp.lambdify([x, y, z], e, "mpmath")
            with mpmath.workprec(200):
                t = []
                for row in zip(*cols):
                    try:
                        v = f(*[mpmath.mpf(float(c)) for c in row])
                        t.append(float(v) if mpmath.im(v) == 0 else np.nan)
                    except (ValueError, ZeroDivisionError):
                        t.append(np.nan)
                truths.append(np.array(t))
    return [x, y, z], forms, cols, truths


def scaled_more_cases(dtype: str, n: int = 1000, seed: int = 0):
    """As :func:`scaled_range_cases`, for the forms whose fallback or whose
    check of the chosen k that function's forms did not reach: sums in pairs
    (two and three terms, a quotient of such sums, one under a square root),
    a product of five factors, and a factor under cancellation ((x - y)**2*z,
    y within an ulp to a factor 2 of x).  Returns (symbols, [(form, columns,
    truth)]): long double truth (no wider than float64: mpmath at 200
    bits), NaN at the rows where a sum cancels more than 2**8 (long double's
    11 more bits would not hold its value)."""
    import numpy as np
    import sympy as sp

    from symgrad import compensated

    x, y, z, w, v = syms = sp.symbols("x y z w v", real=True)
    sums = [[(x**2*y, z**3)], [(x*y*z, -w**3, v**2*x)], [(x**2*y, z**3), (w*v, x**2)],
            [(x**4*y**2, z**2*w**4)], [], []]
    forms = [compensated(sp.Add(*sums[0][0])), compensated(sp.Add(*sums[1][0])),
             compensated(sp.Add(*sums[2][0]) / sp.Add(*sums[2][1])),
             compensated(sp.sqrt(sp.Add(*sums[3][0]))), x*y*z*w*v, (x - y)**2*z]
    fi = np.finfo(dtype)
    rng = np.random.default_rng(seed)
    lo, hi = int(np.log2(fi.tiny)), int(np.log2(fi.max))
    cols = [(rng.uniform(1, 2, n) * np.exp2(rng.integers(lo, hi, n).astype(float))
             * rng.choice([-1, 1], n)).astype(dtype) for _ in range(5)]
    near = list(cols)
    near[1] = (cols[0] * (1 + rng.uniform(-1, 1, n)
                          * np.exp2(-rng.integers(1, fi.nmant + 1, n).astype(float)))).astype(dtype)
    wide = np.finfo(np.longdouble).nmant >= 63
    out = []
    for e, terms_of, c in zip(forms, sums, [cols] * 5 + [near]):
        plain = e.replace(lambda n: isinstance(n, compensated), lambda n: n.args[0])
        if wide:
            at = [a.astype(np.longdouble) for a in c]
            with np.errstate(all="ignore"):
                t = np.asarray(sp.lambdify(syms, plain, "numpy")(*at))
                for terms in terms_of:
                    g = [sp.lambdify(syms, a, "numpy")(*at) for a in terms]
                    t = np.where(sum(np.abs(a) for a in g) <= 2**8 * np.abs(sum(g)), t, np.nan)
        else:
            f = sp.lambdify(syms, plain, "mpmath")
            t = []
            with mpmath.workprec(200):
                for row in zip(*c):
                    r = f(*[mpmath.mpf(float(a)) for a in row])
                    t.append(float(r) if mpmath.im(r) == 0 else np.nan)
            t = np.array(t)
        out.append((e, c, t))
    return list(syms), out


def ulps_where_normal(got, truth, dtype: str):
    """|got - truth| in ulps of the truth rounded to ``dtype``, where the
    truth is a normal float of it (elsewhere NaN)."""
    import numpy as np

    fi = np.finfo(dtype)
    truth = np.asarray(truth)
    with np.errstate(all="ignore"):
        normal = np.isfinite(truth) & (np.abs(truth) >= fi.tiny) & (np.abs(truth) <= fi.max)
        t = np.where(normal, truth, 1).astype(dtype)
        ulp = np.spacing(np.abs(t)).astype(truth.dtype)
        err = np.abs(np.asarray(got).astype(truth.dtype) - truth) / ulp
    return np.where(normal, err, np.nan)


def bits_against_truth(src, form, syms, pts, dtype: str):
    """The bits ``form``'s code (in ``dtype``) loses at ``pts`` against the
    ground truth of ``src``, where that truth is resolved (at least half of
    the points must be)."""
    import numpy as np

    from symgrad import lambdify
    from symgrad.stability.bits import bits_error, float_format
    from symgrad.stability.truth import RESOLVED, GroundTruth

    fmt = float_format(dtype)
    pts = pts.astype(dtype)
    true, status = GroundTruth([src], syms, dtype).batch(pts)
    ok = status[0] == RESOLVED
    assert ok.sum() >= len(pts) // 2
    with np.errstate(all="ignore"):
        got = lambdify(syms, form, dtype=dtype)(*[pts[:, j] for j in range(len(syms))])
    return bits_error(np.asarray(got, dtype=dtype), true[0], fmt)[ok]
