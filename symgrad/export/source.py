"""Generated JAX or PyTorch code for a flat list of formulas: the same
lowering, accurate (or, with ``stabilize``, safe) forms and straight-line
emission as symgrad's NumPy code, printed for the backend's library.

The source is symgrad's own (sanitized names, printed numbers and library
calls); nothing a user wrote is evaluated.  It is kept on the function
(``fn.source``) and registered with :mod:`linecache`, so tracebacks show it.
"""

from __future__ import annotations

import ast
import importlib
import itertools
import linecache
import re
from collections.abc import Callable, Mapping

from sympy import Abs, Basic, Mul, S, Symbol

from ..build import deduplicated
from ..codegen.compensating import (
    COMPENSATED_HELPERS,
    COMPENSATED_NAMES,
    compensating,
    uses_compensated,
)
from ..codegen.emit import Program, build_program
from ..codegen.names import Namer
from ..codegen.scaling import SCALE_HELPERS, SCALE_NAMES, scaling, uses_scaling
from ..compensated import compensated
from ..errors import SymgradError
from ..lowering import lower
from ..rewrites import accurate_forms, safe_forms
from ..widen import widen
from .branches import (
    cancelled_into_branches,
    clamped_branches,
    context_pruned,
    exps_by_magnitude,
    shared_branches,
)
from .erf_shared import erfs_by_erfcx
from .estrin import estrin_sums
from .exp_tables import exps_by_table
from .horner_pairs import polynomials_by_horner
from .printers import HEADERS, RESERVED, printer_for
from .subsets import masked_regions
from .xla_guards import exps_kept_apart, flushed_terms_scaled, products_kept_rounded

__all__ = ["require", "generate", "exact_as_pairs", "compile_source", "compile_matrix",
           "abs_folded", "exps_kept_apart", "EXTRAS"]

EXTRAS = {"jax": "jax", "torch": "torch"}
_counter = itertools.count()


def require(backend: str) -> object:
    """Import ``backend`` (``"jax"`` or ``"torch"``) or raise an error naming the extra."""
    if backend not in EXTRAS:
        raise SymgradError(f"backend={backend!r}: give 'numpy', 'jax' or 'torch'")
    try:
        return importlib.import_module(backend)
    except ImportError as err:
        raise SymgradError(
            f"the {backend} backend needs {backend}, which is not installed ({err}); install "
            f"symgrad's {EXTRAS[backend]!r} extra: pip install \"symgrad[{EXTRAS[backend]}]\""
        ) from None


def unmark(roots: list[Basic], kinds: tuple = (widen,)) -> list[Basic]:
    """``roots`` with each marker of ``kinds`` (default ``widen(u)``) replaced
    by ``u``: exported code computes in its inputs' type (JAX and PyTorch
    have no wider type than float64 on every device)."""
    from ..build import cancelling, mapped
    from ..graph import postorder

    order, kids = postorder(roots, lambda n: n.args)
    if not any(isinstance(n, kinds) for n in order):
        return roots
    return mapped(roots, cancelling, hook=lambda n, low: low[0] if isinstance(n, kinds) else None)


def exact_as_pairs(roots: list[Basic]) -> list[Basic]:
    """``roots`` with each ``exact(p)`` and ``certified(p)`` written
    ``compensated(p)`` (the export has no expansions and no recompute: its
    pairs keep about twice the type's precision), a ``certified(p)`` with an
    ``ExportWarning``: its exactness rests on the ground truth recomputing,
    at run time, the points its bound does not certify, which exported code
    cannot do; its pairs lose bits at p's zero set (every bit where p
    cancels against erf or tanh, which pairs round to one float), though
    never more than p computed plainly.  ``stabilize=True`` exports choose
    without certified forms.

    >>> import sympy as sp, symgrad, warnings
    >>> x, y = sp.symbols("x y")
    >>> exact_as_pairs([symgrad.exact(x * y - 1) + 1])
    [compensated(x*y - 1) + 1]
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     exact_as_pairs([symgrad.certified(sp.log(y) - x)])
    [compensated(-x + log(y))]
    >>> caught[0].category.__name__
    'ExportWarning'
    """
    import warnings

    from ..build import cancelling, mapped
    from ..certified import certified
    from ..exact import exact
    from ..graph import postorder

    order, _ = postorder(roots, lambda n: n.args)
    found = [n for n in order if isinstance(n, certified)]
    if found:
        from ..errors import ExportWarning

        warnings.warn(
            f"certified(u) cannot be exported (its exact points are recomputed by the ground "
            f"truth at run time, which JAX and PyTorch code cannot do): {found[0]} is emitted "
            f"as compensated(u), in pairs without the recompute, which can lose bits where u "
            f"is near 0; export with stabilize=True for a form chosen without it, or use "
            f"symgrad.lambdify's NumPy code, which keeps it", ExportWarning, stacklevel=4)
    if not found and not any(isinstance(n, exact) for n in order):
        return roots
    return mapped(roots, cancelling, hook=lambda n, low: compensated(low[0])
                  if isinstance(n, (exact, certified)) else None)


def abs_folded(roots: list[Basic]) -> list[Basic]:
    """``roots`` with ``Abs(Abs(u))`` and ``Abs(-Abs(u))`` written ``Abs(u)``
    (the same float for every input, NaN included).  The accurate forms make
    them when a rewrite for a real ``u`` meets ``u = -|x|`` (softplus-log1p
    turns stabilize's ``log1p(exp(-|x|))`` into ``log1p(exp(-|-|x||))``): as
    ``Abs(x)`` the exponential is one node with the gradient's
    ``exp(-|x|)``, computed once where the value and the Jacobian share a
    program.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> abs_folded([sp.exp(-sp.Abs(sp.Abs(x, evaluate=False), evaluate=False))])
    [exp(-Abs(x))]
    """
    from ..build import mapped
    from ..graph import postorder

    def fold(n: Basic) -> Basic:
        if isinstance(n, Abs):
            u = n.args[0]
            if isinstance(u, Mul) and len(u.args) == 2 and u.args[0] is S.NegativeOne:
                u = u.args[1]
            if isinstance(u, Abs):
                return u
        return n

    order, _ = postorder(roots, lambda n: n.args)
    if not any(isinstance(n, Abs) and _abs_inside(n.args[0]) for n in order):
        return roots
    return mapped(roots, after=fold)


def _abs_inside(u: Basic) -> bool:
    if isinstance(u, Mul) and len(u.args) == 2 and u.args[0] is S.NegativeOne:
        u = u.args[1]
    return isinstance(u, Abs)


def _scale_helpers(backend: str) -> str:
    """The scaling helpers (``scaled(u)``'s exponent per point) in ``backend``."""
    if backend == "jax":  # NumPy's code, traceable as jax.numpy
        # (XLA's frexp and ldexp of a subnormal input are wrong: jax_ops' exact ones)
        # (XLA's frexp and ldexp of a subnormal input are wrong: jax_ops' exact
        # ones; and a scaled input XLA flushes takes the factors' path, whose
        # inputs are scaled into the normal range)
        text = _NP.sub("jnp.", SCALE_HELPERS).replace(
            "jnp.frexp(", "_jg.frexp(").replace("jnp.ldexp(", "_jg.ldexp(")
        flushed = "((_jg.ldexp(s, k) != x) & jnp.isfinite(x))"
        assert flushed in text, "scale_helpers._sc_use changed: update the JAX text"
        nonzero = "jnp.isfinite(x) & (x != 0)"  # (_sc_e: XLA compares a subnormal equal to 0)
        assert nonzero in text, "scale_helpers._sc_e changed: update the JAX text"
        text = text.replace(nonzero, "jnp.isfinite(x) & ((x != 0) | _jg.subnormal(x))")
        return "\n\n" + text.replace(
            flushed, "(((_jg.ldexp(s, k) != x) | _jg.subnormal(s) | ((s == 0) & "
                     "((x != 0) | _jg.subnormal(x)))) & jnp.isfinite(x))")
    return ("from symgrad.export.torch_ops import _sc_e, _sc_k, _sc_kg, _sc_kn, _sc_max, _sc_mul, "
            "_sc_mt, _sc_mtp, _sc_mts, _sc_pick, _sc_up, _sc_upt, _sc_use, _sc_ex, _sc_exz, "
            "_sc_nm, _sc_p2, _sc_xmax, _sc_xmod, _sc_xroot, _sc_xsel, _sc_xb, _sc_pp, _sc_any\n")


# Defined after NumPy's helpers, so they replace them: Dekker's split with the
# scaling for large values done by selection, not by a Python branch on the
# data (NumPy's `if np.any(big)`, which jax.jit cannot trace): the same values
# (where no value is large the selections keep the unscaled split); and a
# constant's pair made as a constant (jax.numpy's would be traced).
_SPLIT = """

def _dd_split(a, ok=False):
    if type(a) in (int, float):  # a literal every float type holds (11 bits at most)
        return a, 0.0
    if ok:  # no big number (_dd_ok): the plain split
        c = _dd_rounded(a * _DD_SPLIT[NP.result_type(a)])
        h = c - (c - a)
        return h, a - h
    t = NP.result_type(a)
    big = NP.abs(a) > _DD_BIG[t]
    s = NP.where(big, a * _DD_DOWN[t], a)
    c = _dd_rounded(s * _DD_SPLIT[t])
    h = c - (c - s)
    top = NP.minimum(NP.maximum(h, -_DD_TOP[t]), _DD_TOP[t])  # (NaN stays NaN)
    h = NP.where(big, top * _DD_UP[t], h)
    return h, a - h
"""
# The pair exp's reduction by a table of 2**(j/256) - 1 in pairs, in both
# libraries' text: NP. the module, EXP_TABLE the table's constants, INDEX_OF an
# integer index array.
_TABLE_EXP = """
def _dd_reduced(a):
    # NumPy's contract (k, expm1(x - k ln 2) as a pair, |x - k ln 2| <= ln(2)/2)
    # by a table: x = k ln 2 + j ln(2)/256 + r, |r| <= ln(2)/512 (NumPy's series
    # bound after its 8 halvings), expm1(r) by the same series, then
    # T + q + T q with T = 2**(j/256) - 1 in pairs (export.jax_ops.exp_reduction):
    # one pair product for NumPy's eight squarings of a pair, whose chain XLA
    # computes in every fused loop reading it (PyTorch: ~30 eager operations each)
    ah, al = a if isinstance(a, tuple) else (a, 0)
    t = NP.result_type(ah, 1.0)
    inv, c1, c2, c3, th, tl = EXP_TABLE
    big = _DD_EXPMAX[t]
    x = NP.where(ah > big, big, NP.where(ah < -big, -big, ah))
    m = NP.rint(x * inv)  # |m| < 2**19 (float64), 2**16 (float32): exact
    k = NP.rint(m * (1 / 256))
    j = m - 256 * k  # -128 ... 128
    # (x - m c1 is exact: Sterbenz where m != 0; every value bounded, _dd_ok)
    p, e = _dd_two_prod(m, c1, True)
    r = _dd_add(_dd_two_sum(x - p, -e, True), _dd_neg(_dd_two_prod(m, c2, True)), 1)
    r = _dd_add(r, -(m * c3), 1)
    if isinstance(a, tuple):
        r = _dd_add(r, NP.where(x == ah, al, 0))
    q = _dd_expm1_series(r, t)
    i = INDEX_OF(j + 128)
    tj = (NP.take(th, i), NP.take(tl, i))
    return k, _dd_add(_dd_add(tj, q, 1), _dd_mul(tj, q, 1), 1)
"""
# the pair product of three or more factors as the chain of pair products
# (the text both frameworks' overrides carry)
_CHAIN_PROD = """def _dd_prod_b(k, *factors):
    acc = factors[0]
    for f in factors[1:]:
        acc = _dd_mul(acc, f, k)
    return acc


def _dd_prod(*factors):
    return _dd_prod_b(None, *factors)
"""

# TwoSum and the pair quotient with NumPy's rare cases taken by selections,
# not by a branch on the data (which tracing cannot take): the same floats as
# NumPy's helpers.  TwoSum is Fast2Sum ordered by magnitude: its s - big
# cannot overflow, so its error term is exact in the top binade too, where
# TwoSum's s - a overflows (NumPy takes Fast2Sum only there; its error term is
# TwoSum's wherever both are finite); 0 where s is not finite.  The quotient
# halves a0 where a0/b0 overflows and doubles the pair (a normalized pair's hi
# doubles to the correctly rounded value: inf only from the threshold on).
# Until 2026-11-28 the exports dropped the low part there (one ulp) and gave
# inf one ulp under the threshold (NMSE 3.4.2's quotient)
_DIV = """

def _dd_two_sum(a, b, ok=False):
    if type(a) in (int, float) and type(b) in (int, float):
        big, small = (a, b) if abs(a) >= abs(b) else (b, a)
    else:
        first = _dd_mag(a) >= _dd_mag(b)
        big, small = NP.where(first, a, b), NP.where(first, b, a)
    s = big + small  # (a + b: the same float; XLA cannot fold it as x + c into a next sum)
    e = small - (s - big)
    return s, e if ok else _dd_fin(e)


def _dd_mag(v):
    return abs(v) if type(v) in (int, float) else NP.abs(v)


def _dd_div(a, b):
    a0, a1 = a if isinstance(a, tuple) else (a, 0)
    b0, b1 = b if isinstance(b, tuple) else (b, 0)
    # halved wherever |a0/b0| may reach max/2, found without a division: there
    # each step of the pair quotient scales exactly by 2 (q that large needs
    # |a0| > 2**-53 at least, so no step is subnormal), so the pair doubled is
    # NumPy's, and a0/b0 overflows only inside (b0 = 0 or a0 not finite: the
    # same inf or NaN either way)
    half = NP.abs(a0) >= NP.abs(b0) * _DD_HALF_MAX[NP.result_type(a0, b0)]
    a0 = NP.where(half, a0 * 0.5, a0)
    if type(a1) not in (int, float):
        a1 = NP.where(half, a1 * 0.5, a1)
    h, lo = _dd_div_pair(a0, a1, b0, b1, a0 / b0)
    return NP.where(half, h * 2, h), NP.where(half, lo * 2, lo)


_DD_HALF_MAX = _DDConsts(lambda t: NP.finfo(t).max * 0.5)
"""
# hypot of pairs as NumPy's _dd_hypot (both scaled by the power of two that
# brings the larger into [1/2, 1), the pair root of the pair sum of squares,
# scaled back), with the scalings as two powers of two each (_dd_pow2: both
# halves normal floats, so neither overflows nor flushes, and the scaling
# back rounds once): no frexp/ldexp of NumPy's, which the frameworks lack or
# compute by a pow (until 2026-11-28 the exports kept the float hypot of the
# high parts to first order: 3.2 bits in PyTorch, 4.8 in JAX)
_HYPOT = """

def _dd_hypot(a, b):
    a0, a1 = a if isinstance(a, tuple) else (a, a * 0)
    b0, b1 = b if isinstance(b, tuple) else (b, b * 0)
    m = MAXIMUM(abs(a0), abs(b0))
    k = EXPONENT(WHERE(ISFINITE(m), m, 1.0))
    d1, d2 = _dd_pow2(-k)
    x = (a0 * d1 * d2, a1 * d1 * d2)
    y = (b0 * d1 * d2, b1 * d1 * d2)
    h, lo = _dd_sqrt(_dd_add(_dd_mul(x, x), _dd_mul(y, y)))
    u1, u2 = _dd_pow2(k)
    inf = ISINF(a0) | ISINF(b0)  # (hypot(inf, nan) is inf)
    return WHERE(inf, INF, h * u1 * u2), WHERE(inf, 0.0, lo * u1 * u2)
"""


def _hypot_text(names: dict[str, str]) -> str:
    text = _HYPOT
    for key, name in names.items():
        text = text.replace(key, name)
    return text


_OVERRIDES = {
    "jax": _SPLIT.replace("NP.", "jnp.") + _DIV.replace("NP.", "jnp.") + _hypot_text({
        "MAXIMUM": "jnp.maximum", "EXPONENT": "_jax_exponent", "WHERE": "jnp.where",
        "ISFINITE": "jnp.isfinite", "ISINF": "jnp.isinf", "INF": "jnp.inf"}) + """

def _jax_exponent(m):
    return jnp.frexp(m)[1].astype(m.dtype)



# a product of three or more factors as the chain of pair products, as
# before (NumPy's _dd_prod_b works on the significands, for partial products
# past the range; XLA flushes subnormals, and its ldexp is a frexp and
# a pow)
""" + _CHAIN_PROD + """

# XLA fuses a product into the sum that reads it (one multiply-add): the
# rounded products pairs are made of are kept as such
_dd_rounded = _jg.rounded

# XLA flushes subnormals to zero (on the CPU too): a product's error term is
# kept only where TwoProduct's partial products are normal (exact), as before
_DD_TINY = _DDConsts(lambda t: jnp.finfo(t).tiny * 2.0 ** (jnp.finfo(t).nmant + 1))

import numpy as _np

_dd_numpy_two_prod = _dd_two_prod


def _dd_two_prod(a, b, ok=False):
    # and only where both factors are above that bound too: below it a
    # factor's split has a subnormal low part, which XLA flushes, so the
    # error term is off by up to 2**-27 of p.  Where one factor alone is
    # below it and no bound is known (ok: both below 2**509, so p below
    # 2**-460 there), both are scaled first, that one by 2**M and the other
    # by 2**-M (M half the exponent range: both then normal and above the
    # bound wherever p is, which the helper's own test of p asks; the same
    # p, exactly), and the error term is kept (it was dropped: x*y - 1 in
    # pairs at x = 1e300, y = 1e-300 was 0 for 7.8e-17, and the pair
    # quotient 3/1e-300 kept only its float quotient)
    if not ok and type(a) not in (int, float) and type(b) not in (int, float):
        t = jnp.result_type(a, b)
        ta, tb = jnp.abs(a) < _DD_TINY[t], jnp.abs(b) < _DD_TINY[t]
        up, down = _DD_BALANCE[t]
        one = ta != tb
        a = a * jnp.where(one, jnp.where(ta, up, down), 1.0).astype(t)
        b = b * jnp.where(one, jnp.where(ta, down, up), 1.0).astype(t)
        return _dd_numpy_two_prod(a, b, ok)
    return _dd_guarded_two_prod(a, b, ok)


def _dd_guarded_two_prod(a, b, ok=False):
    # (the error term dropped where a factor is below the bound, unscaled; not
    # kept off by up to 2**-27 of p: the pair quotient 3/1e-300 read
    # 3.00000002e300, its high part wrong)
    p, e = _dd_numpy_two_prod(a, b, ok)
    t = jnp.result_type(p)
    return p, jnp.where((jnp.abs(a) >= _DD_TINY[t]) & (jnp.abs(b) >= _DD_TINY[t]), e, 0)


_DD_BALANCE = _DDConsts(lambda t: (t.type(2.0 ** (jnp.finfo(t).maxexp // 2)),
                                   t.type(2.0 ** -(jnp.finfo(t).maxexp // 2))))

_dd_numpy_two_sum = _dd_two_sum


def _dd_two_sum(a, b, ok=False):
    # XLA reassociates (c + x) - c into x for a constant c (its algebraic
    # simplifier, at every optimization level): a constant goes second, where
    # TwoSum reads it only once (the same s and e)
    if isinstance(a, (int, float, _np.generic)):
        a, b = b, a
    return _dd_numpy_two_sum(a, b, ok)


def _dd_horner(x, *cs):
    # a polynomial of the float x (coefficients, highest first, floats or
    # pairs) as a pair, by compensated Horner (Graillat, Langlois and Louvet,
    # 2005): TwoProduct and TwoSum at each step, their error terms and the
    # coefficients' low parts summed in floats by Horner's rule too
    s, c = cs[0] if isinstance(cs[0], tuple) else (cs[0], 0.0)
    for a in cs[1:]:
        # (not scaled where x is below _DD_TINY: GELU-tanh's gradient, three such
        # products, 18 -> 20 ms per 10^6 points; there p is below max|s| * _DD_TINY)
        p, e = _dd_guarded_two_prod(s, x)
        ah, al = a if isinstance(a, tuple) else (a, 0.0)
        if type(ah) in (int, float) and ah == 0:
            s = p
        else:
            s, f = _dd_two_sum(p, ah)
            e = e + f
        c = c * x + (e + al)
    return _dd_fast(s, c)


def _ddc(h, lo, like):
    t = jnp.result_type(like, 1.0)
    hi = _np.asarray(h, t)[()]
    return hi, _np.asarray((h - float(hi)) + lo, t)[()]


def _dd_pow2(k):
    # powers of two from their exponent bits (NumPy's ldexp: a frexp and a pow
    # in jax.numpy, where XLA splits its fused loops)
    k = jnp.where(jnp.isfinite(k), k, 0)
    k1 = jnp.rint(k * 0.5)
    return _jg.pow2(k1), _jg.pow2(k - k1)


def _dd_keep(v):
    # a pair (or float) computed once for all its readers (source._kept_shared)
    if isinstance(v, tuple):
        return tuple(_dd_keep(u) for u in v)
    return v if type(v) in (int, float) else _jg.materialized(v)


def _dd_kept(fn):
    # the pair transcendentals' outputs computed once for all their readers
    # (XLA copies a chain of cheap operations into every fused loop reading it)
    def kept(*args):
        out = fn(*args)
        if isinstance(out[0], tuple):  # _dd_sincos: two pairs
            return tuple((_jg.materialized(p[0]), _jg.materialized(p[1])) for p in out)
        return _jg.materialized(out[0]), _jg.materialized(out[1])
    kept.__name__ = fn.__name__
    return kept


""" + _TABLE_EXP.replace("NP.", "jnp.").replace("EXP_TABLE", "_jg.exp_reduction(t)").replace(
        "INDEX_OF(j + 128)", "(j + 128).astype(jnp.int32)") + """


_dd_numpy_fun, _dd_numpy_fun_b = _dd_fun, _dd_fun_b


def _dd_fun_up(fun, f, parts):
    # f(hi) + f'(hi) lo with f and f' times 2**64 where f is below tiny/eps * 4,
    # and the pair scaled back (its hi correctly rounded, its low part flushed
    # if subnormal): XLA flushes the subnormal f'(hi) lo there (exp of a pair
    # near -708 lost its argument's low part, 2**-44: 8.8 bits in swish'(x))
    if not any(isinstance(a, tuple) for a in parts[1::2]):
        return f
    t = jnp.result_type(f)
    small = jnp.abs(f) < jnp.finfo(t).tiny / jnp.finfo(t).eps * 4
    s, back = (jnp.where(small, c, 1.0).astype(t) for c in (2.0**64, 2.0**-64))
    h, lo = fun(f * s, *[p * s if i % 2 == 0 else p for i, p in enumerate(parts)])
    return h * back, lo * back


def _dd_fun(f, *parts):
    return _dd_fun_up(_dd_numpy_fun, f, parts)


def _dd_fun_b(k, f, *parts):
    # (k still bounds them: f is scaled only where it is below 2**-968, and
    # each f' there is that of exp, log near 1, sin, ...: at most about 1)
    return _dd_fun_up(lambda *a: _dd_numpy_fun_b(k, *a), f, parts)


_dd_exp, _dd_expm1, _dd_log, _dd_log1p = map(_dd_kept, (_dd_exp, _dd_expm1, _dd_log, _dd_log1p))
# sin and cos past 2**(p-2): to first order, as before (the exact reduction
# is int64 digit arithmetic with a data-dependent gather: NumPy only)
_DD_EXACT_REDUCTION = False

_dd_sin, _dd_cos, _dd_sincos = map(_dd_kept, (_dd_sin, _dd_cos, _dd_sincos))
_dd_tan, _dd_atan = map(_dd_kept, (_dd_tan, _dd_atan))
""",
    "torch": _SPLIT.replace("NP.", "_tnp.") + _DIV.replace("NP.", "_tnp.") + _hypot_text({
        "MAXIMUM": "_torch.maximum", "EXPONENT": "_torch_exponent", "WHERE": "_torch.where",
        "ISFINITE": "_torch.isfinite", "ISINF": "_torch.isinf", "INF": "_torch.inf"}) + """

def _torch_exponent(m):
    return _torch.frexp(m).exponent.to(m.dtype)
"""
    + "\nimport torch as _torch\n" + """


# a product of three or more factors as the chain of pair products, as
# before (NumPy's _dd_prod_b works on the significands, for partial products
# past the range; eager PyTorch: ~10 operations more per product;
# not measured here)
""" + _CHAIN_PROD + """

_dd_selected_two_sum, _dd_selected_div = _dd_two_sum, _dd_div


def _dd_two_sum(a, b, ok=False):
    # eager CPU tensors: TwoSum, its rare case (an error term not finite: the
    # top binade, or s not finite) by the selections only where some point
    # needs it, as NumPy's branch (by selections at every point TwoSum cost
    # 2x: 10.8 -> 21.2 ms per 10^6 float64; the finiteness test reads a sum,
    # cheaper than the nan_to_num it replaces)
    if not _tnp.eager(a, b):
        return _dd_selected_two_sum(a, b, ok)
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    if ok or not isinstance(e, _torch.Tensor) or _tnp.all_finite(e):
        return s, e
    return _dd_selected_two_sum(a, b, ok)


def _dd_div(a, b):
    # eager CPU tensors: the halving's selections only where a quotient of
    # the high parts overflows somewhere (every quotient 1.6x by selections)
    a0, a1 = a if isinstance(a, tuple) else (a, 0)
    b0, b1 = b if isinstance(b, tuple) else (b, 0)
    if _tnp.eager(a0, b0):
        q = a0 / b0
        if not isinstance(q, _torch.Tensor) or _tnp.all_finite(q):
            return _dd_div_pair(a0, a1, b0, b1, q)
    return _dd_selected_div(a, b)


def _ddc(h, lo, like):
    # 0-d tensors, not Python floats: _dd_split takes a Python float for a
    # literal of at most 11 bits and does not split it (TwoProduct by pi/180 lost
    # 52 bits)
    return _tnp.const_pair(h, lo, _tnp.result_type(like))


def _dd_const(h, lo, t):
    return _tnp.const_pair(h, lo, t.t)


def _dd_pow2(k):
    k = _tnp.where(_tnp.isfinite(k), k, 0)
    k1 = _tnp.rint(k * 0.5)
    return _tnp.exp2(k1), _tnp.exp2(k - k1)  # (exact in PyTorch, measured)


def _dd_fin(e):
    return _tnp.finite(e)  # (one operation: nan_to_num)


def _dd_abs(a):
    if not isinstance(a, tuple):
        return a.abs()
    s = (1 - 2 * (a[0] < 0)).to(a[0].dtype)
    return a[0] * s, a[1] * s


_dd_dekker_prod = _dd_two_prod


def _dd_two_prod(a, b, ok=False):
    # the exact error in one fused multiply-add where addcmul is one (eager
    # tensors: _tnp.fused): the same floats as Dekker's, kept where his are
    # exact (not where p is below _DD_TINY, or not finite), in 3 operations for
    # his 12-20
    if not _tnp.fused(a, b):
        return _dd_dekker_prod(a, b, ok)
    p = a * b
    e = _tnp.product_error(a, b, p)
    tiny = _tnp.abs(p) >= _DD_TINY[_tnp.result_type(p)]
    return p, _tnp.where(tiny, e if ok else _tnp.finite(e), 0)


_dd_pair_mul = _dd_mul


def _dd_mul(a, b, k=None):
    # a float times a literal +-2**j: that product as a float, where the pair
    # helper makes (p, 0) (its low part is +0, or NaN beside an infinite p that
    # the domain's proof rules out), which every helper reading it takes as the
    # float p; each operation on the pair's zeros (4-5 here, 10-14 in an
    # addition reading it) is left out
    for u, v in ((a, b), (b, a)):
        if type(v) in (int, float) and not isinstance(u, tuple) \
                and float(v).hex().lstrip("-").startswith("0x1.0000000000000p"):
            return u * v
    return _dd_pair_mul(a, b, k)


""" + _TABLE_EXP.replace("NP.", "_tnp.").replace("EXP_TABLE", "_tnp.exp_table(t, ah)").replace(
        "INDEX_OF(j + 128)", "_tnp.index(j + 128)") + """

# sin and cos past 2**(p-2): to first order, as before (the exact reduction
# is int64 digit arithmetic with a data-dependent gather: NumPy only)
_DD_EXACT_REDUCTION = False
""",
}
# how each backend reads the helpers' NumPy calls
_PAIR_NP = {"jax": "jnp.", "torch": "_tnp."}
_PAIR_IMPORT = {"jax": "", "torch": "from symgrad.export import torch_pairs as _tnp\n"}
# the backends whose code computes compensated(u) in pairs of floats
PAIRS = frozenset(_OVERRIDES)


def _pair_helpers(backend: str) -> str:
    """The compensated-arithmetic helpers (``compensated(u)``'s pairs of
    floats) in ``backend``: NumPy's text with its calls read as the
    backend's, and the few helpers that differ replaced."""
    return ("\n" + _PAIR_IMPORT[backend] + "\n\n"
            + _NP.sub(_PAIR_NP[backend], COMPENSATED_HELPERS) + _OVERRIDES[backend])


def generate(
    backend: str, symbols: list[Symbol], exprs: list[Basic], *,
    stabilize: bool = False, domain: Mapping | None = None, name: str = "f",
    dtype: str | None = None,
) -> str:
    """The source of ``def f(*symbols): return (exprs...)`` (always a tuple)
    in ``backend``'s library; ``dtype``: the float type stabilize chose
    ``exprs`` for (JAX: their terms that XLA would flush computed scaled,
    :func:`~symgrad.export.xla_guards.flushed_terms_scaled`), None where
    they are as derived."""
    namer = Namer(RESERVED | SCALE_NAMES | COMPENSATED_NAMES | {"_dd_keep"})
    fname = namer.name(name)  # first: compile_source looks the function up by it
    leaf: dict[Basic, str] = {}
    for s in symbols:
        if s in leaf:
            raise SymgradError(f"args: the symbol {s} appears twice")
        leaf[s] = namer.name(s.name)
    # (forms stabilize chose for ``dtype``: as measured, as NumPy's code of them; the
    # safe rewrites again would rebuild them: an underflow split's product of exps
    # merged back into one subnormal exp, 5.5 bits in PyTorch's float32 mish gradient)
    roots = lower(exprs) if stabilize and dtype is not None else \
        safe_forms(lower(exprs), domain) if stabilize else accurate_forms(lower(exprs))
    # equal copies (differentiation leaves them) one object: every dict of nodes below
    # would compare a copy with its equal as trees
    roots = cancelled_into_branches(abs_folded(deduplicated(roots)))  # exp(-A)*(exp(A) if c else v)
    # traced code computes every arm at every point: those no point of their context
    # (the domain, an enclosing arm) selects dropped; mirror images shared
    roots = shared_branches(context_pruned(roots, domain), domain)
    roots = exps_by_magnitude(roots, domain)  # arms per sign of s: one exp of -|c s|
    if backend == "torch":  # eager selects cost ~5 exps: a branch to a constant is a clamp
        roots = clamped_branches(roots)
    # scaled(u): u on its inputs scaled by a power of two per point (ldexp);
    # compensated(u): u in pairs of floats where the backend has the helpers
    # (elsewhere its plain float form: Order warns before)
    # (exact(p): the pairs form; the export has no expansions)
    roots = scaling(unmark(exact_as_pairs(roots),
                           (widen,) if backend in PAIRS else (widen, compensated)))
    if backend == "jax" and dtype is not None:  # XLA flushes subnormals: such terms scaled
        roots = flushed_terms_scaled(roots, domain, dtype)
    if backend == "jax":  # erf, erfc and erfcx of +-v from one erfcx of |v| (and exp(-v**2))
        roots = erfs_by_erfcx(roots)
    if backend == "jax":  # an exp of a bounded integer, the split square's second factor: a lookup
        roots = exps_by_table(roots)  # (before the pair helpers: its integer's bound reads them)
    if backend == "jax":  # a polynomial of one float in pairs: compensated Horner
        roots = polynomials_by_horner(roots)
    roots = compensating(roots, domain)  # (the domain the forms are for: guards it rules out)
    if backend == "jax":  # XLA would rewrite exp(a)*exp(b) as exp(a + b): an exact split undone,
        roots = products_kept_rounded(exps_kept_apart(roots), domain)  # a*b + c
        roots = estrin_sums(roots)  # a long Horner chain is the fused loop's critical path
    printer = printer_for(backend)
    regions: list = []
    if backend == "torch":  # eager code: what few points need computed at those only
        roots, regions = masked_regions(roots, itertools.count())
        printer.region_names = {r.number: namer.name(f"_region{r.number}") for r in regions}
    prog: Program = build_program(roots, leaf, namer.temps(), False, printer)
    region_lines = _region_functions(regions, printer)
    codes = [st.code for st in prog.statements] + list(prog.results) + region_lines
    scales, pairs = any(map(uses_scaling, codes)), any(map(uses_compensated, codes))
    head = HEADERS[backend] + (_pair_helpers(backend) if pairs else "") \
        + (_scale_helpers(backend) if scales else "")
    lines = [head, *region_lines, "", f"def {fname}({', '.join(leaf[s] for s in symbols)}):",
             f'    """Generated by symgrad ({backend}): {len(exprs)} '
             f'output{"s" if len(exprs) != 1 else ""}, {prog.n_ops} operations."""']
    body = [(st.name, st.code) for st in prog.statements]
    if backend == "jax" and pairs:  # pairs read twice or more: computed once (XLA copies them)
        body = _kept_shared(body, prog.results)
    lines += _freed(body, prog.results) if backend == "torch" else \
        [f"    {name} = {code}" for name, code in body]
    tail = "," if len(prog.results) == 1 else ""
    lines.append(f"    return ({', '.join(prog.results)}{tail})")
    return "\n".join(lines) + "\n"


def _freed(body: list[tuple[str, str]], results: list[str]) -> list[str]:
    """The lines ``name = code`` of ``body``, each followed by ``del`` of the
    temporaries it read for the last time (none a result's): eager PyTorch
    frees a tensor when its last name goes, so the tensors alive at once are
    as many as the program is wide, not as long (every temporary kept to the
    return: the log Phi gradient's 10^6 points touched ~50 MB of fresh pages
    per call, 10,000-19,000 page faults; with this 1,000-2,000).

    >>> print("\\n".join(_freed([("t0", "torch.exp(x)"), ("t1", "t0 + 1"), ("t2", "t1*t1")],
    ...                        ["t2", "t0"])))
        t0 = torch.exp(x)
        t1 = t0 + 1
        t2 = t1*t1
        del t1
    """
    names = {name for name, _ in body}
    reads = [_names(code) & names for _, code in body]
    live = set().union(*(_names(r) for r in results)) & names
    dead: list[list[str]] = []
    for (name, _), rd in zip(reversed(body), reversed(reads)):  # backward liveness
        dead.append(sorted(rd - live - {name}))
        live = (live - {name}) | rd
    lines = []
    for (name, code), gone in zip(body, reversed(dead)):
        lines.append(f"    {name} = {code}")
        if gone:
            lines.append(f"    del {', '.join(gone)}")
    return lines


# a pair read twice or more is kept (computed once) where its chain since the
# last value computed once holds this many pair helpers at least: below, XLA's
# copies cost less than the stored array (GELU-tanh's gradient: keeping its
# 2-3 helper chains took 22 -> 29 ms per 10^6 points)
KEEP_CHAIN = 16
# the pair transcendentals, whose outputs are computed once already (_dd_kept)
_KEPT_CALLS = ("_dd_exp(", "_dd_expm1(", "_dd_log(", "_dd_log1p(", "_dd_sin(", "_dd_cos(",
               "_dd_sincos(", "_dd_tan(", "_dd_atan(")
_PAIR_CALL = re.compile(r"\b_dd_(?!out\(|hi\(|keep\()\w+\(")


def _kept_shared(body: list[tuple[str, str]], results: list[str]) -> list[tuple[str, str]]:
    """``body`` with each pair of floats (a ``_dd_`` helper's value) that two
    or more lines (or results) read, and whose chain of pair helpers since
    the last value computed once is ``KEEP_CHAIN`` long at least, passed
    through ``_dd_keep`` (:func:`symgrad.export.jax_ops.materialized` of
    both halves): XLA's fusion copies a chain of cheap operations into every
    fused loop that reads it, and a pair's chain is read twice at each step
    of the next (its high and low parts), so copies compound: GELU-tanh's
    second derivative, a 70-line pair program, took 8.8 ms per 10^3 points,
    with its three long values read twice kept 1.3 (the same floats).

    >>> body = [("t0", "_dd_mul(x, x)"), ("t1", "_dd_add(t0, t0)"), ("t2", "_dd_out(t1)")]
    >>> _kept_shared(body, ["t2", "t1"]) == body  # chains of 1 and 3: copied, not kept
    True
    >>> long = [("t0", "_dd_mul(" * 16 + "x" + ", x)" * 16), ("t1", "_dd_add(t0, t0)")]
    >>> _kept_shared(long, ["t1"])[0][1].startswith("_dd_keep(_dd_mul(")
    True
    """
    reads = [_names(code) for _, code in body]
    tail = set().union(*(_names(r) for r in results)) if results else set()
    chain: dict[str, int] = {}  # a name's current value: its chain of pair helpers
    out = []
    for i, (name, code) in enumerate(body):
        own = len(_PAIR_CALL.findall(code))
        cost = own + sum(chain.get(r, 0) for r in reads[i])
        n, word = 0, re.compile(rf"\b{name}\b")
        for j in range(i + 1, len(body)):  # (a line may read it twice)
            n += len(word.findall(body[j][1])) if name in reads[j] else 0
            if body[j][0] == name:  # reassigned: later lines read the new value
                break
        else:
            n += sum(len(word.findall(r)) for r in results) if name in tail else 0
        pair = code.startswith("_dd_") and not code.startswith(("_dd_out(", "_dd_hi(", "_ddc("))
        if pair and n >= 2 and cost >= KEEP_CHAIN:
            code, cost = f"_dd_keep({code})", 0
        elif code.startswith(_KEPT_CALLS):
            cost = 0
        chain[name] = cost
        out.append((name, code))
    return out


def _names(code: str) -> set[str]:
    """The names a line of generated code reads."""
    return {n.id for n in ast.walk(ast.parse(code, mode="eval")) if isinstance(n, ast.Name)}


def _region_functions(regions: list, printer) -> list[str]:
    """The lines defining each region of
    :func:`~symgrad.export.subsets.masked_regions` as a function of its
    inputs returning its outputs (named by ``printer.region_names``),
    printed as the rest of the program."""
    lines: list[str] = []
    taken = RESERVED | SCALE_NAMES | COMPENSATED_NAMES \
        | frozenset(getattr(printer, "region_names", {}).values())
    for region in regions:
        namer = Namer(taken)
        params = {p: namer.name(f"a{i}") for i, p in enumerate(region.params)}
        prog = build_program(region.outputs, params, namer.temps(), False, printer)
        lines += ["", f"def {printer.region_names[region.number]}"
                  f"({', '.join(params.values())}):"]
        lines += _freed([(st.name, st.code) for st in prog.statements], prog.results)
        lines += [f"    return ({', '.join(prog.results)},)", ""]
    return lines


def compile_source(source: str, name: str = "f") -> Callable:
    """Compile generated ``source`` and return its function (with ``.source``)."""
    filename = f"<symgrad-export-{next(_counter)}>"
    namespace: dict = {}
    # symgrad's own printed code: sanitized names, numbers and library calls only
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    fn = namespace[name]
    fn.source = source
    return fn


_NP = re.compile(r"\bnp\.")
# how each backend's matrix code imports its NumPy stand-in
_MATRIX_HEADERS = {"jax": "import jax.numpy as jnp\n",
                   "torch": "from symgrad.export import torch_numpy as np\n"}


def _along(op, a, axis):
    """``_along`` of the NumPy matrix code writes into its output; JAX and
    PyTorch reduce."""
    return op.reduce(a, axis=axis, keepdims=True)


def compile_matrix(backend: str, args: list, exprs: list) -> Callable:
    """symgrad's matrix code (:mod:`symgrad.codegen.matrix`) of ``exprs``
    for ``backend``: ``jax.numpy`` for NumPy, or
    :mod:`symgrad.export.torch_numpy` standing for it over tensors; each
    logsumexp recomputed from pairs of floats near its zero
    (:mod:`symgrad.export.lse_pairs`)."""
    from ..codegen.matrix import matrix_code
    from .lse_pairs import near_zero_helper

    src = matrix_code(args, exprs, near_zero=True).replace(
        "import numpy as np\n", _MATRIX_HEADERS[backend], 1)
    if backend == "jax":
        src = _NP.sub("jnp.", src)
    fn = compile_source(src)
    fn.__globals__["_along"] = _along
    if "_lse_near_zero(" in src:  # logsumexp near 0: from pairs of floats, as NumPy's code
        fn.__globals__["_lse_near_zero"] = near_zero_helper(backend)
    return fn
