"""Code for ``compensated(u)``: its subtree computed in pairs of floats of
the working type (error-free transformations), rounded back at the end.

Before emission each ``compensated(u)`` becomes code-only nodes over a copy
of ``u`` (a DAG of its own, shared between compensated subtrees): a value
of the copy is either a plain float (a symbol, a constant exact in every
float type, a value nothing compensates) or a pair ``(hi, lo)`` whose sum
is the value to about twice the type's precision.  The generated module
defines the helpers (:data:`COMPENSATED_HELPERS`):

* ``_dd_add``, ``_dd_mul``, ``_dd_div``, ``_dd_sqrt``: Knuth's TwoSum,
  Dekker's TwoProduct (by splitting: NumPy has no fused multiply-add), and
  the classical double-double sum ("accurate" form: the low parts summed
  with TwoSum too), product, quotient (one correction) and square root
  (one Newton correction with an exact residual);
* ``_dd_fun(f, d1, a1, ...)``: a function of pairs to first order,
  ``f(hi) + sum(f_i'(hi) * lo_i)``, where ``f`` and ``d_i`` are the plain
  code of ``f`` and of its partial derivatives over the high parts (each
  term only where ``|lo_i| < 1``: beyond, as for ``cos`` of ``1e150``, the
  first order is no correction);
* ``_dd_exp``, ``_dd_expm1``, ``_dd_log``, ``_dd_log1p``: those functions
  of a float or a pair as pairs, to about twice the type's precision
  (exp: ``x = k ln 2 + j ln(2)/256 + r``, ``|r| <= ln(2)/512``, a Taylor
  series of ``expm1(r)`` and a table of ``2**(j/256) - 1`` in pairs, one
  pair product; log: ``log(m 2**e)`` by one
  Newton step from the float log), wherever such a value is not the
  subtree's root (``exp(x) - y`` along ``x = log(y)``);
* ``_ddc(hi, lo, like)``: a constant that no float holds (``pi/180``,
  ``1/10``) as a pair of the type of ``like``;
* ``_dd_mod(u, m)``: a float or pair modulo a period ``m``, exactly (the
  argument ``r π u`` of ``sin``, ``cos`` and ``tan``, ``r`` rational, is
  reduced in ``u``'s own units before its product by the pair of ``r π``,
  which holds π only to twice the type's precision);
* ``_dd_out``: the pair rounded to one float.

Error terms that are not finite (an overflow in a sum, a split of a
number near the top of the range) are 0: the pair is then the plain value,
as uncompensated code would give.  Nodes without an arithmetic of pairs
(``Piecewise``, comparisons) take their operands rounded; ``Max`` and
``Min`` of pairs are the pair whose value is the larger or the smaller.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import mpmath
import numpy as np
from sympy import (
    Abs,
    Basic,
    Derivative,
    Dummy,
    Expr,
    Float,
    Function,
    Integer,
    Max,
    Min,
    Mul,
    Pow,
    S,
    Subs,
    Symbol,
    atan,
    ceiling,
    cos,
    exp,
    floor,
    log,
    pi,
    sin,
    tan,
)
from sympy.codegen.cfunctions import expm1, hypot, log1p
from sympy.functions.elementary.piecewise import ExprCondPair
from sympy.functions.special.delta_functions import DiracDelta

from ..build import cancelling, mapped
from ..compensated import compensated
from ..graph import postorder
from ..rewrites.facts import Facts
from ..rewrites.pi_nodes import reducible
from . import compensated_helpers
from .texts import HelperCall, module_text

__all__ = [
    "PairCall",
    "compensating",
    "rounded_terms",
    "COMPENSATED_HELPERS",
    "COMPENSATED_NAMES",
    "uses_compensated",
]


class _DD(HelperCall):
    """A code-only call of a compensated-arithmetic helper (its line runs
    quiet: an error term that is not finite is 0, and the pair is then the
    plain value; NumPy's warnings of its inner steps are not the user's)."""

    handles_nonfinite = True


class _Add(_DD):
    _helper = "_dd_add"


class _Mul(_DD):
    _helper = "_dd_mul"


class _Prod(_DD):
    """A product of three or more factors, on their significands and scaled
    back once (``_dd_prod``): no partial product leaves the range."""

    _helper = "_dd_prod"


class _ProdBounded(_Prod):
    """``_dd_prod`` with k first (see ``_dd_prod_b``)."""

    _helper = "_dd_prod_b"


class _Div(_DD):
    _helper = "_dd_div"


class _Sqrt(_DD):
    _helper = "_dd_sqrt"


class _Neg(_DD):
    _helper = "_dd_neg"


class _Abs(_DD):
    _helper = "_dd_abs"


class _Max(_DD):
    _helper = "_dd_max"


class _Min(_DD):
    _helper = "_dd_min"


class _Hi(_DD):
    _helper = "_dd_hi"


class _Out(_DD):
    _helper = "_dd_out"


class _Fun(_DD):
    _helper = "_dd_fun"


class _FunBounded(_Fun):
    """``_dd_fun`` with k first: 2**k bounds the value, each partial
    derivative and each argument over the domain (see ``_dd_fun_b``)."""

    _helper = "_dd_fun_b"


class _Mod(_DD):
    """A float or pair modulo a period (a float of few bits), exactly."""

    _helper = "_dd_mod"


class _Const(_DD):
    """A constant no float holds, as a pair of the type of ``like``."""

    def _numpycode(self, printer) -> str:
        h, lo, like = self.args
        return f"_ddc({float(h)!r}, {float(lo)!r}, {printer._print(like)})"

    _symgrad_numpycode = _numpycode


class _Exp(_DD):
    _helper = "_dd_exp"


class _Expm1(_DD):
    _helper = "_dd_expm1"


class _Log(_DD):
    _helper = "_dd_log"


class _Log1p(_DD):
    _helper = "_dd_log1p"


class _Sin(_DD):
    _helper = "_dd_sin"


class _Cos(_DD):
    _helper = "_dd_cos"


class _SinCos(_DD):
    """sin and cos of one argument, both as pairs (a tuple of two pairs):
    one call where a form takes both (2 sin x cos x), the argument's
    reduction and series computed once; read by :class:`_Part`."""

    _helper = "_dd_sincos"


class _SinCos2(_DD):
    """sin and cos of the sum of two terms (floats or pairs), both as pairs:
    ``_dd_sincos`` of their pair sum, or of all their floats together where
    that sum is past the range."""

    _helper = "_dd_sincos2"


class _Part(_DD):
    """``_SinCos(u)``'s sine (0) or cosine (1): the same pair as
    ``_dd_sin(u)`` / ``_dd_cos(u)`` (each is that tuple's item)."""

    def _numpycode(self, printer) -> str:
        return f"{printer._print(self.args[0])}[{int(self.args[1])}]"

    _symgrad_numpycode = _numpycode


class _Tan(_DD):
    _helper = "_dd_tan"


class _Hypot(_DD):
    """hypot of two floats or pairs as a pair (scaled, the pair root of the
    pair sum of squares), not the float hypot of the high parts to first order."""

    _helper = "_dd_hypot"


class _Atan(_DD):
    _helper = "_dd_atan"


class PairCall(_DD):
    """A function of one float or pair computed as a pair by a helper that
    another module's text defines (``_helper``): a node whose class has
    ``pair_call`` (a subclass of this) is computed so, wherever it is not the
    subtree's root (:mod:`symgrad.codegen.certifying`'s erf and erfc)."""


# the functions computed as pairs (a double-float exp, log, sin, cos, tan,
# atan), not as the function of the rounded value: exp(x) - y, log(y) - x,
# 1/x - 1/tan(x), cos(w*t + atan(u)) keep their bits where they cancel
_PAIR_FUNCTIONS = {exp: _Exp, expm1: _Expm1, log: _Log, log1p: _Log1p,
                   sin: _Sin, cos: _Cos, tan: _Tan, atan: _Atan}

_PAIRS = (_Add, _Mul, _Prod, _Div, _Sqrt, _Neg, _Abs, _Max, _Min, _Fun, _Const, _Exp, _Expm1,
          _Log, _Log1p, _Sin, _Cos, _Tan, _Atan, _Part, _Hypot, PairCall)


def _is_pair(node: Basic) -> bool:
    return isinstance(node, _PAIRS)


def _value(node: Basic) -> mpmath.mpf:
    """A constant's value to 200 bits (an mpf made in mpmath's default
    context would keep 53)."""
    with mpmath.workprec(200):
        return mpmath.mpf(node.evalf(60)._mpf_) if node.evalf(60).is_Float else \
            mpmath.mpf(complex(node.evalf(60)).real)


def _exact(value: mpmath.mpf) -> bool:
    """Whether every float type from float16 up holds ``value`` exactly
    (then a Python float literal is exact in generated code of any type)."""
    if not mpmath.isfinite(value):
        return False
    if value == 0:
        return True
    with np.errstate(over="ignore"):
        f16 = np.float16(float(value))
    with mpmath.workprec(200):
        return bool(np.isfinite(f16)) and mpmath.mpf(float(f16)) == value and f16 != 0


def _pair_of(value: mpmath.mpf) -> tuple[float, float]:
    h = float(value)
    with mpmath.workprec(200):
        return h, float(value - mpmath.mpf(h))


_DERIVATIVES: dict = {}


def _partials(node: Basic) -> list | None:
    """``node``'s function's partial derivatives over placeholders (one per
    argument), or None where SymPy has none in closed form."""
    key = (node.func, len(node.args))
    if key in _DERIVATIVES:
        return _DERIVATIVES[key]
    holes = [Dummy(f"h{i}", real=True) for i in range(len(node.args))]
    out: list | None = None
    try:
        f = node.func(*holes)
        if isinstance(f, Expr) and not f.is_number:
            # (a step's derivative, DiracDelta, is 0 wherever it is a number:
            # sign and Heaviside of a pair are those of its high part)
            out = [holes, f, [Integer(0) if d.has(DiracDelta) else d
                              for d in (f.diff(h) for h in holes)]]
            if any(d.has(Derivative, Subs) for d in out[2]):
                out = None
    except Exception:  # noqa: BLE001  (no derivative: the function of the rounded value)
        out = None
    _DERIVATIVES[key] = out
    return out


def _opaque(n: Basic) -> bool:
    """A code-only input of another pass (``scaled``'s input divided by a
    power of two): a plain float of the working type, not looked into."""
    return getattr(n, "_symgrad_input", False)


# a term of an exponent left in floats costs at most this many roundings of
# the type (absolute, in units of the rounding of 1): exp's own is 1
PLAIN_TERM_ULPS = 4.0


def _exact_float(n: Basic) -> bool:
    """``x``, ``-x``, ``|x|``, ``-|x|`` or a power-of-two multiple of one:
    exact in floats whatever the type."""
    if n.is_Mul and len(n.args) == 2 and n.args[0].is_number:
        c = abs(n.args[0])
        if not (c.is_Rational and (c.p & (c.p - 1)) == 0 and (c.q & (c.q - 1)) == 0):
            return False
        n = n.args[1]
    if isinstance(n, Abs):
        n = n.args[0]
    return isinstance(n, Symbol)


def _integral(n: Basic) -> bool:
    """An integer in generated code whatever the type: an integer number,
    ``floor`` or ``ceiling`` of anything, or a product or positive integer
    power of such (exact where their size allows: see ``_exact_product``)."""
    stack = [n]
    while stack:
        m = stack.pop()
        if m.is_Integer or isinstance(m, (floor, ceiling)):
            continue
        if m.is_Mul:
            stack.extend(m.args)
        elif m.is_Pow and m.exp.is_Integer and m.exp > 0:
            stack.append(m.base)
        else:
            return False
    return True


def _exponent(m: float) -> int | None:
    """The least k with m < 2**k (None past any float type's range)."""
    if not math.isfinite(m) or m > 2.0**1000:
        return None
    return math.frexp(m)[1] if m > 0 else -1000


class _Copy:
    """The compensated copy of subtrees, memoized over one program.  With
    ``facts`` (interval bounds over the domain), a sum's and a product's
    helper call is given k, 2**k bounding its operands, partial values and
    result over the domain: the helpers leave out the overflow guards such a
    bound proves cannot fire (see ``_dd_ok``)."""

    def __init__(self, facts: Facts | None = None) -> None:
        self.dd: dict[Basic, Basic] = {}
        self.top: Basic | None = None  # the root of the subtree being copied
        self.facts = facts
        # bounds for the terms left in floats (_plain_terms): over the domain,
        # or over every real where none is given (the same code then for
        # stabilize's measurement, which compiles its forms without one)
        self.bounds = facts or Facts()

    def _size(self, n: Basic, facts: Facts | None = None) -> float:
        """A bound of |n| over the domain (inf: none known); ``facts``: other
        bounds than the domain's."""
        facts = facts or self.facts
        if facts is None:
            return math.inf
        try:
            b = facts.bound(n)
        except Exception:  # noqa: BLE001  (a code-only node Facts cannot read: no bound)
            return math.inf
        if b is None:
            return math.inf
        m = max(abs(float(b[0])), abs(float(b[1])))
        return m if m == m else math.inf  # (a NaN end: no bound)

    def _k_fun(self, n: Basic, holes: list, ds: list) -> tuple:
        """``(k,)`` for a function of pairs: 2**k bounds its value, its
        arguments and its partial derivatives at them over the domain, or ()."""
        if self.facts is None:
            return ()
        at = dict(zip(holes, n.args))
        sizes = [self._size(n)] + [self._size(a) for a in n.args] \
            + [self._size(d.xreplace(at)) for d in ds]
        k = _exponent(max(sizes))
        return () if k is None else (Integer(k),)

    def _k(self, n: Basic, product: bool) -> tuple:
        """``(k,)`` for a helper call computing ``n`` from its arguments (the
        sum of their sizes bounds a chain of partial sums; the product of
        max(1, size) a chain of partial products, powers by squaring
        included), or () where no bound is known."""
        if self.facts is None:
            return ()
        sizes = [self._size(a) for a in n.args] + [self._size(n)]
        if any(math.isinf(v) for v in sizes):
            return ()
        if product:  # log2 of the bound (a float product could overflow)
            n_pow = abs(int(n.exp)) if n.is_Pow and n.exp.is_Integer else None
            if n.is_Pow and n_pow is None:
                return ()
            logs = [math.log2(max(1.0, v)) for v in sizes[:-1]]
            lg = n_pow * logs[0] if n.is_Pow else sum(logs)
            m = 2.0 ** min(lg, 1100.0) if lg < 1100 else math.inf
        else:
            m = sum(sizes[:-1])
        k = _exponent(max(m, sizes[-1]))
        return () if k is None else (Integer(k),)

    @staticmethod
    def out(v: Basic) -> Basic:
        return _Out(v) if _is_pair(v) else v

    @staticmethod
    def hi(v: Basic) -> Basic:
        return _Hi(v) if _is_pair(v) else v

    def const(self, node: Basic, like: Symbol | None) -> Basic:
        try:
            v = _value(node)
        except (TypeError, ValueError, AttributeError):
            return node
        if _exact(v) or like is None:
            return node
        h, lo = _pair_of(v)
        return _Const(Float(h, 53), Float(lo, 53), like)

    def mul(self, a: Basic, b: Basic) -> Basic:
        return _Mul(a, b)

    def power(self, a: Basic, n: int, k: tuple = ()) -> Basic:
        """``a**n`` for an integer ``n >= 1``, by squaring."""
        out = None
        sq = a
        while n:
            if n & 1:
                out = sq if out is None else _Mul(out, sq, *k)
            n >>= 1
            if n:
                sq = _Mul(sq, sq, *k)
        return out

    def copy(self, top: Basic) -> Basic:
        self.top = top
        plain = self._plain_terms(top)
        saved = self.dd
        if plain:  # this subtree's copy holds floats another subtree may need as pairs
            self.dd = dict(saved)
            self.dd.update((p, p) for p in plain)
        sub, kids = postorder([top], lambda n: () if n in self.dd or _opaque(n) else n.args)
        syms = [n for n in sub if isinstance(n, Symbol) or _opaque(n)]
        like = syms[0] if syms else None
        for n in sub:
            if n in self.dd:
                continue
            self.dd[n] = self._node(n, kids[n], like)
        out = self.dd[top]
        self.dd = saved
        return out

    def _plain_terms(self, top: Basic) -> set:
        """The terms of ``top = exp(A)``'s exponent left in floats.

        exp(A) is computed as exp(hi) (1 + lo): its relative error is the
        absolute error of A.  A term c*t of A (through Abs, signs and
        numeric factors) where t is a chain of functions with pairs
        arithmetic (exp, log1p, ...) over one exact float (x, -|x|) is, in
        floats, within e * sum_k |f_k| prod_{j>k} |f_j'| of its value (each
        function's own rounding e |f_k|, carried by the outer derivatives;
        interval bounds over the domain): where |c| times that is at most
        ``PLAIN_TERM_ULPS`` e, the pairs of t would buy nothing the
        exponent's other roundings do not already cost, and t is computed
        in floats (mish's log1p(exp(-|x|)): a pair exp and a pair log, most
        of its gradient's cost).  Bounds over the domain, or over all reals
        where none is given: stabilize measures this same code."""
        if not isinstance(top, exp):
            return set()
        out: set = set()
        stack = [(top.args[0], 1.0)]
        while stack:
            n, scale = stack.pop()
            if isinstance(n, Abs):
                stack.append((n.args[0], scale))
            elif n.is_Add:
                stack.extend((a, scale) for a in n.args)
            elif n.is_Mul:
                rest = [a for a in n.args if not a.is_number]
                if len(rest) == 1:
                    c = abs(float(Mul(*[a for a in n.args if a.is_number])))
                    stack.append((rest[0], scale * c))
            elif n.func in _PAIR_FUNCTIONS and scale * self._chain_error(n) <= PLAIN_TERM_ULPS:
                out.add(n)
        return out

    def _chain_error(self, n: Basic) -> float:
        """A bound, in units of the type's rounding, of the absolute error
        of ``n`` computed in floats: a chain of functions of
        ``_PAIR_FUNCTIONS`` over an exact float; inf otherwise."""
        chain = []
        while n.func in _PAIR_FUNCTIONS and len(n.args) == 1:
            chain.append(n)
            n = n.args[0]
        if not _exact_float(n):
            return math.inf
        err = 0.0
        for f in reversed(chain):  # innermost first
            parts = _partials(f)
            if parts is None:
                return math.inf
            holes, _, ds = parts
            d = ds[0].xreplace({holes[0]: f.args[0]})
            slope = self._size(d, self.bounds) if err else 0.0
            err = self._size(f, self.bounds) + slope * err
        return err

    def _node(self, n: Basic, kids: tuple, like: Symbol | None) -> Basic:
        if isinstance(n, Symbol) or _opaque(n):
            return n
        if not kids or (n.is_number and isinstance(n, Expr)):
            return self.const(n, like) if isinstance(n, Expr) and n.is_number else n
        args = [self.dd[k] for k in kids]
        if isinstance(n, compensated):
            return args[0]
        if n.is_Add:
            k = self._k(n, False)
            acc = args[0]
            for a in args[1:]:
                acc = _Add(acc, a, *k)
            return acc
        if n.is_Mul:
            return self._mul(n, args, like)
        if n.is_Pow:
            return self._pow(n, args, like)
        if isinstance(n, Abs):
            return _Abs(args[0]) if _is_pair(args[0]) else cancelling(n, args)
        if isinstance(n, (Max, Min)) and n is not self.top and any(map(_is_pair, args)):
            # the pair whose value is the larger (smaller), not the larger
            # of the rounded values: Max(p - 1/20, 0)**4 of the asymmetric
            # loss cubes and cancels what the pair p - 1/20 holds
            acc = args[0]
            for a in args[1:]:
                acc = (_Max if isinstance(n, Max) else _Min)(acc, a)
            return acc
        if n.func in (sin, cos, tan) and len(args) == 1:
            args = [self._pi_reduced(n.args[0], like) or args[0]]
        pair_call = getattr(n, "pair_call", None)
        if pair_call is not None and n is not self.top \
                and (len(args) == 1 or getattr(n, "pair_args", False)):
            return pair_call(*args)  # (pair_args: of all its arguments, as pairs or floats)
        if n.func in _PAIR_FUNCTIONS and len(args) == 1 and n is not self.top:
            # (at the root its value is rounded to one float at once: the
            # function of the pair to first order is as good, and cheaper)
            if n.func in (sin, cos):  # one _dd_sincos for both of one argument
                a = args[0]
                if isinstance(a, _Add) and not isinstance(a.args[0], _Add):
                    # of a sum of two terms: their floats reduced together where
                    # the pair sum is past the range (_dd_sincos2)
                    return _Part(_SinCos2(*a.args), Integer(0 if n.func is sin else 1))
                return _Part(_SinCos(a), Integer(0 if n.func is sin else 1))
            a = args[0]
            if n.func is tan and isinstance(a, _Add) and not isinstance(a.args[0], _Add):
                both = _SinCos2(*a.args)  # (as _dd_tan: sin over cos, of the terms)
                return _Div(_Part(both, Integer(0)), _Part(both, Integer(1)))
            return _PAIR_FUNCTIONS[n.func](args[0])
        if isinstance(n, hypot) and (n is not self.top or any(map(_is_pair, args))):
            # as a pair (hypot(x, y) - x cancels; a quotient by a sum of hypots
            # rounds once), not the float hypot of the high parts to first order;
            # at the root, of floats: the float hypot, rounded once
            return _Hypot(*args)
        if not any(_is_pair(a) for a in args):
            return cancelling(n, args) if any(a is not k for a, k in zip(args, kids)) else n
        if isinstance(n, Function) and not isinstance(n, _DD):
            parts = _partials(n)
            if parts is not None:
                holes, f, ds = parts
                his = [self.hi(a) for a in args]
                table = dict(zip(holes, his))
                fv = f.xreplace(table)
                terms = []
                for d, a in zip(ds, args):
                    if _is_pair(a) and d != 0:
                        terms += [d.xreplace(table), a]
                k = self._k_fun(n, holes, ds)
                return _FunBounded(*k, fv, *terms) if k else _Fun(fv, *terms)
        # no arithmetic of pairs: the node of the rounded values
        return cancelling(n, [self.out(a) for a in args])

    def _pi_reduced(self, u: Basic, like: Symbol | None) -> Basic | None:
        """The argument ``r π v`` (``r`` rational, ``v`` one factor) of a
        sine, cosine or tangent as the pair ``r π (v mod 2/r)``: ``v``
        reduced exactly in its own units where ``2/r`` is a float of few
        bits (:func:`~symgrad.rewrites.pi_nodes.reducible`: degrees' 360, 2
        for ``π v``; else its multiple 2q, r = p/q: 4 for ``3π v/2``), then
        times the pair of ``r π``.  As ``r π v`` in pairs,
        the product's error (2**-2p of it) was the angle's beyond about
        2**p radians: cos(π x/180) at float32's x = 3.4e38 was off by 1e22
        radians, however exactly the pair was reduced.  None where ``u``
        is not of that form."""
        if not u.is_Mul:
            return None
        rest = [f for f in u.args if not f.is_number]
        c = Mul(*[f for f in u.args if f.is_number])
        r = c / pi
        if len(rest) != 1 or not r.is_Rational or r == 0:
            return None
        # the period 2/r, or a multiple: 2q (r = p/q: 2 pi p)
        period = next((m for m in (abs(2 / r), 2 * Integer(r.q)) if reducible(m)), None)
        if period is None:
            return None
        return _Mul(self.const(c, like), _Mod(self.dd[rest[0]], Float(float(period), 53)))

    def _exact_product(self, n: Basic, args: list) -> bool:
        """Whether the product or power ``n`` of floats (no pair among
        ``args``) is exact in every float type: integers (``floor``,
        ``ceiling``, integer numbers and their products and powers) whose
        product is at most 2**24 in magnitude over the bounds, times a
        power of two.  Its pair would be (value, 0): the plain node gives
        the same values, and a function of it is the function of a float
        (GELU-erf's exp(-k**2/8192), k = floor(64 min(64, |x|)): one
        TwoProduct and the first-order exp of a pair, for a zero low part)."""
        if any(_is_pair(a) for a in args):
            return False
        c, rest = n.as_coeff_Mul() if n.is_Mul else (S.One, n)
        if not c.is_Rational or c == 0:
            return False
        p, q = abs(c.p), c.q
        if q & (q - 1) or q > 2**900 or not _integral(rest):
            return False  # (a power of two q divides exactly: the integers are >= 1 or 0)
        # a power of two p scales exactly; another integer counts in the product
        factor = 1 if (p & (p - 1)) == 0 and p <= 2**900 else p
        return factor * self._size(rest, self.bounds) <= 2.0**24

    def _mul(self, n: Basic, args: list, like: Symbol | None) -> Basic:
        if self._exact_product(n, args):
            return cancelling(n, args)
        coeff = [a for a, k in zip(args, n.args) if k.is_number]
        num, den = [], []
        for a, k in zip(args, n.args):
            if k.is_number:
                continue
            if k.is_Pow and k.exp.is_Integer and k.exp < 0:
                base = self.dd[k.base]
                den.append(self.power(base, int(-k.exp)))
            elif k.is_Pow and k.exp.is_Integer and k.exp <= 3 and not _is_pair(self.dd[k.base]):
                num += [self.dd[k.base]] * int(k.exp)  # a float squared or cubed: its factors
            else:
                num.append(a)
        neg = False
        if coeff:
            c = Mul(*[k for k in n.args if k.is_number])
            if c == -1:
                neg = True
            elif c != 1:
                num.insert(0, self.const(c, like))
        k = self._k(n, True) if not den else ()
        if len(num) >= 3:
            # on the significands, scaled back once: no partial product of the
            # chain leaves the range (an underflow to the subnormals, then a
            # factor of 10, lost 7.6 spacings of a 3x3 determinant's 2.8e-313)
            acc = _ProdBounded(*k, *num) if k else _Prod(*num)
        else:
            acc = num[0] if num else S.One
            for a in num[1:]:
                acc = _Mul(acc, a, *k)
        if den:
            d = den[0]
            for a in den[1:]:
                d = _Mul(d, a)
            acc = _Div(acc, d)
        return _Neg(acc) if neg else acc

    def _pow(self, n: Basic, args: list, like: Symbol | None) -> Basic:
        base, e = args[0], n.exp
        if e.is_Integer and e > 0 and self._exact_product(n, args):
            return cancelling(n, args)
        if e.is_Integer and e > 0:
            return self.power(base, int(e), self._k(n, True))
        if e.is_Integer and e < 0:
            return _Div(S.One, self.power(base, int(-e)))
        if e == S.Half:
            return _Sqrt(base)
        if e == -S.Half:
            return _Div(S.One, _Sqrt(base))
        if not _is_pair(base) and not _is_pair(args[1]):
            return cancelling(n, args)
        h = Dummy("h", real=True)
        if n.exp.is_number:
            return _Fun(Pow(self.hi(base), e), (e * h ** (e - 1)).xreplace({h: self.hi(base)}),
                        base)
        return cancelling(n, [self.out(a) for a in args])


def compensating(roots: list[Basic], domain: Mapping | None = None) -> list[Basic]:
    """``roots`` with each ``compensated(u)`` replaced by code-only nodes
    that compute ``u`` in pairs of floats and round it (see the module's
    docstring); roots without ``compensated`` come back as they are.  With
    a ``domain`` (symbol -> (lo, hi)) the code is for values over it: the
    pairs' overflow guards that its interval bounds rule out are left out."""
    order, kids = postorder(roots, lambda n: n.args)
    if not any(isinstance(n, compensated) for n in order):
        return roots
    cp = _Copy(Facts(domain) if domain else None)
    return mapped(roots, cancelling, swap=lambda n: _Copy.out(cp.copy(n.args[0]))
                  if isinstance(n, compensated) else None)


_THROUGH = (_Mul, _Prod, _Div, _Neg, _Abs, _Sqrt, _Hypot)


def rounded_terms(expr: Basic) -> bool:
    """Whether ``compensated(expr)`` still adds a rounded value: a term of a
    sum (through products, quotients, roots) is the value of a function
    (``sin``, ``exp``, ...) rounded to one float, whose rounding no pair
    undoes; where such a sum cancels, the compensated form loses bits.

    >>> from sympy import symbols, sin, cos, pi, exp, tanh, erf
    >>> x, r, t = symbols("x r t")
    >>> rounded_terms(x + r * tanh(t) * erf(t)), rounded_terms(r * cos(t * pi / 180))
    (True, False)
    >>> rounded_terms(x + r * sin(t) * cos(t))  # sin and cos of pairs are pairs
    False
    >>> rounded_terms(x**2 - 4 * r * t)  # a polynomial: every rounding is undone
    False
    >>> u = symbols("u", real=True)
    >>> rounded_terms(1 / (exp(u) + 1))  # terms of one sign: no cancellation to fear
    False
    """
    cp = _Copy()
    cp.copy(expr)
    # the sums the value is computed from (a Piecewise's conditions choose a
    # branch: their rounding moves a threshold, it is not the value's); a sum
    # whose terms all have one sign (exp(u) + 1) cannot cancel: its rounded
    # terms cost a rounding each, not the bits a cancellation does
    values = postorder([expr], lambda n: n.args[:1] if isinstance(n, ExprCondPair)
                       else n.args)[0]
    for n in values:
        if not n.is_Add or all(t.is_nonnegative for t in n.args) \
                or all(t.is_nonpositive for t in n.args):
            continue
        chain, stack = [], [cp.dd[n]]
        while stack:  # the terms of the pairs' chain of sums
            a = stack.pop()
            if isinstance(a, _Add):
                stack.extend(a.args)
            else:
                chain.append(a)
        while chain:
            a = chain.pop()
            if isinstance(a, _THROUGH):
                chain.extend(a.args)
            elif isinstance(a, (_Fun, _Out)) or (
                    not isinstance(a, (_DD, Symbol)) and not a.is_number):
                return True
    return False


COMPENSATED_NAMES = frozenset({
    "_dd_add", "_dd_mul", "_dd_prod", "_dd_prod_b", "_dd_div", "_dd_sqrt", "_dd_neg", "_dd_abs",
    "_dd_max", "_dd_min", "_dd_pick",
    "_dd_hi", "_dd_out",
    "_dd_fun", "_ddc", "_dd_mod", "_dd_fin", "_dd_two_sum", "_dd_fast", "_dd_two_prod", "_dd_split",
    "_dd_rounded",
    "_DD_SPLIT", "_DD_TINY", "_DD_BIG", "_DD_DOWN", "_DD_UP", "_DD_TOP", "_DDConsts",
    "_dd_exp", "_dd_expm1", "_dd_log", "_dd_log1p", "_dd_const", "_dd_series_terms",
    "_dd_inv_factorial", "_dd_pow2", "_dd_reduced", "_dd_scaled", "_DD_SQUARINGS", "_DD_LN2",
    "_dd_exp_table", "_DD_EXP_TABLE",
    "_DD_LN2_3",
    "_DD_INVLN2", "_DD_EXPMAX", "_DD_TERMS", "_DD_INVFACT", "_DD_SMALL", "_dd_ok", "_DD_BOUNDED",
    "_DD_PLAIN", "_dd_plain_from",
    "_dd_fun_b", "_DD_LOW", "_dd_pio2", "_dd_trig_terms", "_dd_signed_inv_factorial",
    "_DD_PIO2", "_DD_2OPI", "_DD_TRIG_MAX", "_DD_SIN_C", "_DD_COS_C", "_dd_sincos_small",
    "_dd_trig_coeffs", "_DD_TRIG_TINY",
    "_dd_sincos", "_dd_sin", "_dd_cos", "_dd_tan", "_dd_atan", "_dd_hypot",
    "_dd_quadrant", "_DD_EXACT_REDUCTION", "_DD_PH_MASK", "_dd_ph_sizes", "_dd_2opi_digits",
    "_DD_2OPI_DIGITS", "_dd_ph_sums", "_dd_ph", "_dd_big_reduced", "_dd_sincos2",
    "_dd_horner",
})


def uses_compensated(code: str) -> bool:
    """Whether generated code calls the compensated-arithmetic helpers."""
    return "_dd_" in code or "_ddc(" in code


COMPENSATED_HELPERS = module_text(compensated_helpers)
