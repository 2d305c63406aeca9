"""Pairs and subnormal splits of an exported form kept only where they
are measured to keep bits.

:func:`symgrad.stabilize` may compute a form's exponentials from their
exact argument in pairs of floats (``compensated(exp(u))``), and write each
product ``c·exp(e)`` whose exp may be subnormal as ``Piecewise((c·exp(e),
e >= lo), ((c·exp(e/2))·exp(e/2), True))``.  Beside a Taylor series at a
zero it applies both to the form it keeps everywhere, unmeasured, because
its samples seldom land where they matter (``stabilize``'s ``_zeros``).
Traced code computes every branch of a ``Piecewise`` at every point and a
pair operation is twenty float operations or more, so in JAX and PyTorch
they cost much of a gradient: mish's under ``jax.jit`` took 27.1 ms per
10^6 float64 with them, 20.6 without, JAX's own 19.4 (load 10).  Where they keep no
bit they are dropped here: each order's form without its pairs, then
without each split in turn, is kept where :func:`symgrad.check_stability`
of it against the exact formula (its search: edges, thresholds, the
subnormal band, ascent) finds it no worse than the form stabilize chose,
in max, mean and verdict (a form not ok by that check is kept whole).
mish's and the erf GELU's gradients keep no bit by their pairs (2.58 and
2.81 bits either way); the tanh GELU's lose 10.9 without them, and all
three keep splits (8.5, 4.1 and 11.4 bits without).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from sympy import Basic, GreaterThan, Piecewise, S

from ..build import replaced
from ..compensated import compensated
from ..graph import postorder
from ..rewrites.expsums import EXP32, EXP_LO
from .source import unmark

__all__ = ["pruned"]

# a variant's mean may exceed the chosen form's by this much (bits): the
# same points, rounding noise of a different order of operations
MEAN_SLACK = 0.05
SAMPLES = 1024
# at most this many splits are tried one by one (after all of them at once)
TRIES = 4
# at most this many points of a split's band are measured (_band)
BAND = 256


def _splits(form: Basic, lo: float) -> list[Basic]:
    """The subnormal splits in ``form`` (``Piecewise((a, e >= lo), (b,
    True))``), in the DAG's order."""
    order, _ = postorder([form], lambda n: n.args)
    return [n for n in order if isinstance(n, Piecewise) and len(n.args) == 2
            and n.args[1].cond is S.true and isinstance(n.args[0].cond, GreaterThan)
            and n.args[0].cond.rhs.is_Number and float(n.args[0].cond.rhs) == lo]


def _band(split: Basic, symbols: list, domain: Mapping, dtype: str, lo: float) -> np.ndarray:
    """Points of ``domain`` where ``split``'s exponential is subnormal or
    zero while its halves are not (``2·log(smallest subnormal) <= e < lo``):
    where the split and its first branch differ, which a check of the form
    without it need not sample (the tanh GELU's gradient in float32: a band
    of x 0.09 wide near -10.6, 3.3 bits without the split, found by three
    check seeds of four).  Among points uniform over the ordinals and in
    value; for one variable also 64 points between each two neighbours of
    those on either side of the band's edges.  At most ``BAND`` of them."""
    from ..codegen import lambdify
    from ..stability.bits import FORMATS
    from ..stability.sampling import sample

    fmt = FORMATS[dtype]
    rng = np.random.default_rng(0)
    pool = [sample(domain, symbols, 4096, fmt, 0)]
    bounds = [tuple(float(v) for v in domain[s]) for s in symbols]
    if all(np.isfinite(b).all() for b in bounds):
        pool.append(np.stack([rng.uniform(a, b, 4096) for a, b in bounds], 1).astype(fmt.dtype))
    pts = np.concatenate(pool)
    e = split.args[0].cond.lhs
    bottom = 2 * float(np.log(np.finfo(fmt.dtype).smallest_subnormal))

    def exponent(rows: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            v = lambdify(symbols, e)(*(rows[:, k] for k in range(len(symbols))))
        return np.broadcast_to(np.asarray(v, dtype=float), (len(rows),))

    if len(symbols) == 1:
        pts = pts[np.argsort(pts[:, 0])]
        v = exponent(pts)
        side = np.where(v < bottom, 0, np.where(v < lo, 1, 2))
        cut = np.nonzero(side[1:] != side[:-1])[0]
        fill = [np.linspace(pts[i, 0], pts[i + 1, 0], 64, dtype=fmt.dtype) for i in cut]
        pts = np.concatenate([pts, *(f[:, None] for f in fill)])
    v = exponent(pts)
    pts = pts[(v >= bottom) & (v < lo)]
    if len(pts) > BAND:
        pts = pts[np.linspace(0, len(pts) - 1, BAND).astype(int)]
    return pts


def _has_pairs(form: Basic) -> bool:
    order, _ = postorder([form], lambda n: n.args)
    return any(isinstance(n, compensated) for n in order)


def pruned(forms: list, sources: list, domain: Mapping, dtype: str = "float64") -> list:
    """``forms`` (stabilize's, of the formulas ``sources`` over ``domain``)
    each without its pairs of floats, then without each subnormal split,
    where the check of the result is no worse than that of the form.

    >>> import sympy as sp
    >>> from symgrad.compensated import compensated
    >>> x = sp.Symbol("x", real=True)
    >>> pruned([compensated(sp.exp(x / 3))], [sp.exp(x / 3)], {x: (-3, 3)})
    [exp(x/3)]
    >>> pruned([compensated(sp.exp(x / 3))], [sp.exp(x / 3)], {x: (1000, 2000)})
    [compensated(exp(x/3))]

    A split where ``x·exp(x)`` is a float but ``exp(x)`` subnormal is kept;
    beside 1 it keeps nothing:

    >>> from symgrad.rewrites.exact_exponents import split_subnormal_products
    >>> from symgrad.rewrites.facts import Facts
    >>> d = {x: (-745, -700)}
    >>> for f in (x * sp.exp(x), 1 + x * sp.exp(x)):
    ...     print(pruned(split_subnormal_products([f], Facts(d)), [f], d))
    [Piecewise((x*exp(x), x >= -708.396418532264), ((x*exp(x/2))*exp(x/2), True))]
    [x*exp(x) + 1]
    """
    lo = EXP32[0] if dtype == "float32" else EXP_LO
    return [_pruned(f, s, domain, dtype, lo) for f, s in zip(forms, sources)]


def _pruned(form: Basic, source: Basic, domain: Mapping, dtype: str, lo: float) -> Basic:
    pairs, splits = _has_pairs(form), _splits(form, lo)
    if not (pairs or splits):
        return form
    from ..codegen import lambdify
    from ..stability.bits import FORMATS, bits_error
    from ..stability.check import check_stability
    from ..stability.truth import RESOLVED, GroundTruth

    memo: dict = {}  # the source's exact values, shared by the checks

    def check(f: Basic):
        return check_stability(f, domain, dtype=dtype, rewrites=False, seed=1, samples=SAMPLES,
                               _source=[source], _truth_memo=memo)

    try:
        base = check(form)
    except Exception:  # noqa: BLE001  (not measured: the form as chosen)
        return form
    if not base.ok:
        # a form still losing bits keeps all it has: the float32 focal loss's
        # gradient (29.7 bits by a check) lost a bit more without a split
        return form

    def no_worse(f: Basic) -> bool:
        try:
            r = check(f)
        except Exception:  # noqa: BLE001  (not measured: not taken)
            return False
        return r.ok and r.max_bits_error <= base.max_bits_error \
            and r.mean_bits_error <= base.mean_bits_error + MEAN_SLACK

    cur = form
    if pairs:
        plain = unmark([cur], (compensated,))[0]
        if no_worse(plain):
            cur = plain
    symbols = list(domain)
    truth = GroundTruth([source], symbols, dtype, memo=memo)

    def band_no_worse(f: Basic, removed: list) -> bool:
        """``f`` (``cur`` without the splits ``removed``) no worse than the
        form at points of their bands; none found: not measured, kept."""
        try:
            rows = np.concatenate([_band(r, symbols, domain, dtype, lo) for r in removed])
            if not len(rows):
                return False
            vals, status = truth.batch(rows)
            ok = status[0] == RESOLVED
            cols = [rows[ok, k] for k in range(len(symbols))]
            with np.errstate(all="ignore"):
                got = [np.broadcast_to(np.asarray(lambdify(symbols, g)(*cols), dtype=float),
                                       (int(ok.sum()),)) for g in (f, form)]
            new, old = (bits_error(g, vals[0][ok], FORMATS[dtype]) for g in got)
        except Exception:  # noqa: BLE001  (not measured: not taken)
            return False
        return bool(ok.any()) and np.nanmax(new, initial=0) <= max(np.nanmax(old, initial=0),
                                                               base.max_bits_error)

    k = tries = 0  # the splits before the k-th are kept
    splits = _splits(cur, lo)
    if len(splits) > 1:  # all of them first (a check costs a second or more)
        every = set(splits)
        none = replaced(cur, lambda n: n.args[0].expr if n in every else None)
        if not _splits(none, lo) and no_worse(none) and band_no_worse(none, splits):
            return none
    while k < len(splits := _splits(cur, lo)) and tries < TRIES:
        target = splits[k]
        one = replaced(cur, lambda n, t=target: n.args[0].expr if n == t else None)
        tries += 1
        if no_worse(one) and band_no_worse(one, [target]):
            cur = one
        else:
            k += 1
    return cur
