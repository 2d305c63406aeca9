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
in max, mean and verdict.  mish's and the erf GELU's gradients keep no
bit by their pairs (2.58 and 2.81 bits either way); the tanh GELU's lose
10.9 without them, and all three keep their splits (8.5, 4.1 and 11.4
bits without).
"""

from __future__ import annotations

from collections.abc import Mapping

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


def _splits(form: Basic, lo: float) -> list[Basic]:
    """The subnormal splits in ``form`` (``Piecewise((a, e >= lo), (b,
    True))``), in the DAG's order."""
    order, _ = postorder([form], lambda n: n.args)
    return [n for n in order if isinstance(n, Piecewise) and len(n.args) == 2
            and n.args[1].cond is S.true and isinstance(n.args[0].cond, GreaterThan)
            and n.args[0].cond.rhs.is_Number and float(n.args[0].cond.rhs) == lo]


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
    from ..stability.check import check_stability

    memo: dict = {}  # the source's exact values, shared by the checks

    def check(f: Basic):
        return check_stability(f, domain, dtype=dtype, rewrites=False, seed=1, samples=SAMPLES,
                               _source=[source], _truth_memo=memo)

    try:
        base = check(form)
    except Exception:  # noqa: BLE001  (not measured: the form as chosen)
        return form

    def no_worse(f: Basic) -> bool:
        try:
            r = check(f)
        except Exception:  # noqa: BLE001  (not measured: not taken)
            return False
        return (r.ok or not base.ok) and r.max_bits_error <= base.max_bits_error \
            and r.mean_bits_error <= base.mean_bits_error + MEAN_SLACK

    cur = form
    if pairs:
        plain = unmark([cur], (compensated,))[0]
        if no_worse(plain):
            cur = plain
    splits = _splits(cur, lo)
    if len(splits) > 1:  # all of them first (a check costs a second or more)
        every = set(splits)
        none = replaced(cur, lambda n: n.args[0].expr if n in every else None)
        if not _splits(none, lo) and no_worse(none):
            return none
    k = tries = 0  # the splits before the k-th are kept
    while k < len(splits := _splits(cur, lo)) and tries < TRIES:
        target = splits[k]
        one = replaced(cur, lambda n, t=target: n.args[0].expr if n == t else None)
        tries += 1
        if no_worse(one):
            cur = one
        else:
            k += 1
    return cur
