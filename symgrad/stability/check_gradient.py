"""``check_gradient``: is the gradient symgrad's rules give the derivative?

The gradient comes from the rules in force (custom rules, override maps
and tags included); the truth is ``sympy.diff`` of the lowered forward
formula (what is evaluated), or, where SymPy leaves a ``Derivative``
unevaluated, a 30-digit mpmath derivative of it.  Three answers:

* ``matches``: SymPy proves the two equal (the proof says how);
* ``confirmed``: they agree at every sample (30 digits), unproved;
* ``differs_where``: where they disagree, with both values at a witness.

It also checks forward against reverse mode for the same rules,
⟨u, J v⟩ = ⟨uᵀJ, v⟩, which a rule that is not linear in its cotangent
breaks (forward mode reads partials off it at a unit cotangent).
"""

from __future__ import annotations

import html
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import mpmath
from sympy import (
    Add,
    Derivative,
    Dummy,
    Expr,
    Heaviside,
    Max,
    Min,
    Piecewise,
    Rational,
    S,
    Symbol,
    cancel,
    diff,
    expand,
    simplify,
)

from ..autodiff import grad, jvp, vjp
from ..build import EVALUATED_TREE, coeff_term, replaced, tree_size
from ..errors import SymgradError
from ..graph import count_ops, free_symbols, height, postorder, same
from ..lowering import lower
from ..safe import refuse_string
from ..shapes import flatten_exprs, flatten_symbols
from .values import DPS, Values, evaluator

__all__ = ["check_gradient", "GradientCheck", "Difference"]

DEFAULT_RANGE = (-3.0, 3.0)
_TOL = 1e-12  # relative, at 30 digits: a difference, not rounding
_SIMPLIFY_OPS = 250  # simplify is tried on differences up to this many operations
# unit-free cotangent and tangent values, of both signs, off 1 (clipping shows)
_U = (Rational(37, 10), Rational(-29, 10), Rational(7, 20))
_DRAWS = 3  # random directions per sample point, in the sampled check
_V = (Rational(-13, 10), Rational(5, 2), Rational(3, 10), Rational(-19, 10), Rational(113, 4))


@dataclass(frozen=True)
class Difference:
    """Where the gradient with respect to ``wrt`` departs from the true
    derivative: ``ranges`` (symbol -> (lo, hi)) spans the disagreeing
    samples of one run (one box for several variables), ``fraction`` is
    their share of all samples, and ``witness`` the point of the largest
    departure, with symgrad's value ``got`` and the true one ``true``."""

    wrt: Symbol
    ranges: dict
    fraction: float
    witness: dict
    got: complex | float
    true: complex | float

    def __str__(self) -> str:
        rs = ", ".join(f"{s} in [{lo:.6g}, {hi:.6g}]" for s, (lo, hi) in self.ranges.items())
        at = ", ".join(f"{s}={v:.6g}" for s, v in self.witness.items())
        return (f"d/d{self.wrt}: {rs} ({self.fraction:.0%} of samples); at {at} "
                f"the rule gives {_fmt(self.got)}, the derivative is {_fmt(self.true)}")


@dataclass
class GradientCheck:
    """What :func:`check_gradient` found; ``ok`` when the gradient is
    proved or confirmed and forward and reverse mode agree."""

    expr: Expr
    wrt: tuple
    gradient: tuple
    true_gradient: tuple
    matches: bool
    proof: str
    confirmed: bool
    differs_where: list[Difference]
    max_abs_diff: float
    max_rel_diff: float
    samples: int
    jvp_vjp_consistent: bool
    jvp_vjp_detail: str
    domain: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return (self.matches or self.confirmed) and self.jvp_vjp_consistent

    def __str__(self) -> str:
        head = (f"check_gradient of {self.expr} with respect to "
                f"{', '.join(map(str, self.wrt))}:")
        if self.matches:
            verdict = f"proved equal to the true derivative ({self.proof})"
        elif self.confirmed:
            verdict = (f"equal to the true derivative at all {self.samples} samples "
                       f"(not proved: {self.proof})")
        elif not self.samples:
            verdict = ("not proved, and not compared: the formula has no value at any "
                       "sample (an undefined function, or a domain outside its own)")
        else:
            verdict = (f"differs from the true derivative: max |diff| "
                       f"{self.max_abs_diff:.6g}, max relative {self.max_rel_diff:.6g}")
        lines = [head, "  " + verdict]
        lines += ["  " + str(d) for d in self.differs_where]
        lines.append("  forward vs reverse mode: " + self.jvp_vjp_detail)
        return "\n".join(lines)

    # notebooks (Jupyter picks these up): the same text, kept preformatted
    def _repr_markdown_(self) -> str:
        return "```text\n" + str(self) + "\n```"

    def _repr_html_(self) -> str:
        return "<pre>" + html.escape(str(self)) + "</pre>"


def _fmt(v: complex | float) -> str:
    if isinstance(v, complex):
        return f"{v.real:.6g}{v.imag:+.6g}i" if v.imag else f"{v.real:.6g}"
    return f"{v:.6g}"


def check_gradient(
    expr: Expr,
    wrt: Symbol | Sequence[Symbol],
    domain: Mapping | None = None,
    *,
    samples: int = 64,
    seed: int = 0,
) -> GradientCheck:
    """Compare the gradient symgrad's rules give (custom rules, overrides
    and tags included) with the true derivative of the lowered forward
    formula, symbolically and at ``samples`` points of ``domain`` (symbol
    -> ``(lo, hi)``; a symbol left out ranges over [-3, 3]).

    >>> import sympy as sp
    >>> from symgrad import custom_gradient, straight_through
    >>> x = sp.Symbol("x")
    >>> @custom_gradient
    ... def log1pexp(x):
    ...     e = sp.exp(x)
    ...     return sp.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))
    >>> check_gradient(log1pexp(x), x).matches
    True
    >>> r = check_gradient(straight_through(sp.floor(x), x), x, {x: (-2, 2)})
    >>> r.matches, r.max_abs_diff, r.differs_where[0].true
    (False, 1.0, 0.0)
    """
    refuse_string(expr, "check_gradient", "expr")
    refuse_string(wrt, "check_gradient", "wrt")
    outs, struct = flatten_exprs(expr, "expr")
    if struct.kind != "scalar":
        raise SymgradError(
            f"check_gradient checks one scalar expression but got {struct.describe()}; "
            "check each output on its own"
        )
    syms, _ = flatten_symbols(wrt)
    expr = outs[0]
    got = [S.Zero if g is None else g for g in _as_tuple(grad(expr, syms))]
    forward = lower([expr])[0]
    free = sorted(free_symbols([forward, *got]) | set(syms), key=str)
    real = {s: Dummy(s.name, real=True) for s in free if not s.is_extended_real}
    back = {d: s for s, d in real.items()}
    try:
        fwd_r, *got_r = _renamed([forward, *lower(got)], real)  # (SymPy's diff needs real symbols)
        true_r = _true_gradient(fwd_r, [real.get(s, s) for s in syms])
    except RecursionError:  # SymPy's diff and xreplace recurse once per level of the tree
        raise SymgradError(
            f"check_gradient compares with SymPy's diff, which recurses per level: this formula "
            f"is {height(forward)} levels deep, past what it can differentiate (symgrad's "
            "grad, lambdify and check_stability take it)") from None
    # (an entry as SymPy gives it is identical: no sum of the two to build and reduce;
    # hashes first: == compares two unequal deep formulas as trees)
    proofs = ["identical" if same(g, t) else _prove_equal(g, t) for g, t in zip(got_r, true_r)]
    matches = all(p is not None for p in proofs)
    proof = "; ".join(dict.fromkeys(p for p in proofs if p)) if matches else \
        "SymPy could not reduce the difference to 0"

    dom = _domain(domain, free)
    pts = _points(dom, free, samples, seed)
    diffs, max_abs, max_rel, n = _compare(fwd_r, got_r, true_r, syms, free, real, pts)
    consistent, detail = _jvp_vjp(expr, syms, free, real, pts, seed)
    return GradientCheck(
        expr=expr, wrt=tuple(syms), gradient=tuple(got),
        true_gradient=tuple(_renamed(true_r, back)), matches=matches, proof=proof,
        confirmed=not diffs and n > 0, differs_where=diffs, max_abs_diff=max_abs,
        max_rel_diff=max_rel, samples=n, jvp_vjp_consistent=consistent,
        jvp_vjp_detail=detail, domain=dom,
    )


def _true_gradient(f: Expr, syms: list) -> list:
    """``sympy.diff(f, s)`` for each of ``syms``; a sum differentiated term
    by term, each term only along the symbols it holds (a sum over n inputs
    is not walked whole n times: that was n² in the number of inputs), and
    terms of one shape (the same formula with other symbols, as a loop
    writes them) differentiated once: SymPy's diff of the shape, its
    symbols renamed back."""
    if not f.is_Add or len(syms) < 8:
        return [diff(f, s) for s in syms]
    wanted = set(syms)
    parts: dict = {s: [] for s in syms}
    memo: dict = {}
    for term in f.args:
        held = [n for n in postorder([term], lambda n: n.args)[0] if n.is_Symbol]
        if not wanted.intersection(held):
            continue
        to = {n: _placeholder(k, n) for k, n in enumerate(held)}
        back = {p: n for n, p in to.items()}
        shape = replaced(term, to.get)  # (as written: only a key, and diff's argument)
        for n in held:
            if n in wanted:
                d = memo.get((shape, to[n]))
                if d is None:
                    d = memo[(shape, to[n])] = diff(shape, to[n])
                parts[n].append(d.xreplace(back))
    return [Add(*parts[s]) for s in syms]


_PLACEHOLDERS: dict = {}


def _placeholder(k: int, like: Symbol) -> Symbol:
    """The k-th symbol of a shape, with the assumptions of ``like`` (one
    object per (k, assumptions), so equal shapes are equal)."""
    key = (k, tuple(sorted(like.assumptions0.items())))
    p = _PLACEHOLDERS.get(key)
    if p is None:
        p = _PLACEHOLDERS[key] = Dummy(f"p{k}", **like.assumptions0)
    return p


def _renamed(exprs: list, to: dict) -> list:
    """``exprs`` with the symbols ``to`` maps replaced (none: as they are;
    ``xreplace`` walks the whole tree even with nothing to replace)."""
    return [e.xreplace(to) for e in exprs] if to else list(exprs)


def _as_tuple(g: object) -> tuple:
    return g if isinstance(g, (tuple, list)) else (g,)


def _prove_equal(g: Expr, t: Expr) -> str | None:
    """How SymPy shows ``g - t`` is 0, or None; the difference is built
    only where the proof takes it (:func:`_difference`)."""
    d = _difference(g, t)
    return None if d is None else _prove(d)


def _difference(g: Expr, t: Expr) -> Expr | None:
    """``g - t`` as SymPy's sum gives it, or None where that is larger as
    a tree than :func:`_prove` takes (``EVALUATED_TREE`` nodes).  Terms
    equal on both sides (their hashes: SymPy caches a node's) cancel
    first, and SymPy's sum is built only of the rest, when it is small:
    its evaluation sorts the terms by ``Basic.compare``, which recurses a
    level per level two terms share, and a gradient's terms share tall
    prefix and suffix products (check_gradient of a 1,000-factor product
    compared them for 33 s and raised RecursionError).

    >>> from sympy import sin, symbols
    >>> x, y = symbols("x y")
    >>> _difference(2 * sin(x) + y, sin(x) + y)
    sin(x)
    >>> e = x
    >>> for _ in range(11):
    ...     e = sin(e) + e * y  # 2**12 nodes as a tree
    >>> _difference(e + x, e + y) == x - y, _difference(e + x, y) is None
    (True, True)
    """
    coeff: dict = {}
    for side, sign in ((g, S.One), (t, S.NegativeOne)):
        for a in Add.make_args(side):
            c, m = coeff_term(a)
            coeff[m] = coeff.get(m, S.Zero) + sign * c
    terms = [(c, m) for m, c in coeff.items() if c != 0]
    size = 0
    for _, m in terms:
        size += tree_size(m)
        if size > EVALUATED_TREE:
            return None
    return Add(*(c * m for c, m in terms))


def _prove(d: Expr) -> str | None:
    """How SymPy shows ``d`` is 0, or None."""
    if d == 0:
        return "identical"
    ops = count_ops([d])
    # (SymPy's cancel, expand and simplify walk d as a tree: a deep DAG of
    # few operations is a large tree, e = sin(e)/2 + x nested 30 deep took
    # 150 s in cancel; past EVALUATED_TREE nodes the gradient is sampled)
    if tree_size(d) > EVALUATED_TREE:
        return None
    if ops <= 4 * _SIMPLIFY_OPS and (cancel(d) == 0 or expand(d) == 0):
        return "cancel"
    # (simplify of a Piecewise simplifies its conditions: minutes for Max of three;
    # Heaviside, Max and Min it rewrites as Piecewise first: seconds, and no proof)
    if ops <= _SIMPLIFY_OPS and not _piecewise_defined(d) and simplify(d) == 0:
        return "simplify"
    return None


_PIECEWISE_DEFINED = (Piecewise, Heaviside, Max, Min)


def _piecewise_defined(d: Expr) -> bool:
    """Whether ``d`` holds a node defined by cases (over the DAG)."""
    return any(isinstance(n, _PIECEWISE_DEFINED) for n in postorder([d], lambda n: n.args)[0])


def _domain(domain: Mapping | None, free: Sequence[Symbol]) -> dict:
    dom = dict(domain or {})
    for s in dom:
        if s not in free:
            raise SymgradError(f"check_gradient: the domain names {s}, which the formula does "
                               f"not use (its symbols: {', '.join(map(str, free))})")
    return {s: tuple(float(v) for v in dom.get(s, DEFAULT_RANGE)) for s in free}


def _points(dom: dict, free: Sequence[Symbol], n: int, seed: int) -> list[dict]:
    """``n`` seeded points: uniform in each finite range, log-uniform in
    magnitude toward an infinite end."""
    rng = random.Random(f"check_gradient:{seed}")

    def draw(lo: float, hi: float) -> float:
        if lo > -math.inf and hi < math.inf:  # (floats: mpmath's inf costs a conversion)
            return rng.uniform(lo, hi)
        sign = rng.choice((-1, 1)) if lo == -math.inf and hi == math.inf else \
            (1 if hi == math.inf else -1)
        base = lo if sign == 1 else hi
        base = 0.0 if abs(base) == math.inf else base
        return base + sign * 10 ** rng.uniform(-3, 6)

    return [{s: draw(*dom[s]) for s in free} for _ in range(n)]


def _numeric_derivative(fwd: Expr, args: list, k: int):
    """A 30-digit mpmath derivative along ``args[k]``, for where SymPy
    leaves a ``Derivative`` unevaluated."""
    f = evaluator(fwd, args)

    def along(vals: list, t: mpmath.mpf) -> mpmath.mpc:
        v = f([*vals[:k], t, *vals[k + 1:]])
        return mpmath.nan if v is None else v

    def value(vals: list) -> mpmath.mpc | None:
        if f(vals) is None:
            return None
        with mpmath.workdps(DPS):
            d = mpmath.diff(lambda t: along(vals, t), mpmath.mpf(vals[k]))
            return d if mpmath.isfinite(d) else None
    return value


def _compare(fwd, got, true, syms, free, real, pts):
    """Each entry of ``got`` against ``true`` at every point where the
    forward formula is defined: one program of them all over their DAG
    (:class:`.values.Values`), so an entry the rule gives as SymPy does
    is evaluated once, not once per input and side."""
    args = [real.get(s, s) for s in free]
    exact = [i for i, t in enumerate(true) if not t.has(Derivative)]
    table = Values([fwd, *got, *[true[i] for i in exact]], args, gate=True)
    rows = [table.at([p[a] for a in free]) for p in pts]
    true_col = {i: 1 + len(got) + k for k, i in enumerate(exact)}
    diffs: list[Difference] = []
    max_abs = max_rel = 0.0
    compared = set()
    for i, s in enumerate(syms):
        if i in true_col:
            c = true_col[i]
            t_val = lambda j, c=c: rows[j][c]  # noqa: E731
        else:  # SymPy left a Derivative: mpmath's, at each point
            num = _numeric_derivative(fwd, args, free.index(s))
            t_val = lambda j, num=num: num([pts[j][a] for a in free])  # noqa: E731
        bad: list[tuple[dict, complex, complex, float]] = []
        for j, p in enumerate(pts):
            if rows[j][0] is None:
                continue  # outside the formula's domain
            g = rows[j][1 + i]
            if g is None:
                continue
            t = t_val(j)
            if t is None:
                continue
            compared.add(j)
            if g is t:  # one number (see Values.at): equal
                continue
            ad = float(abs(g - t))
            rel = ad / float(abs(t)) if t else (0.0 if ad == 0 else float("inf"))
            max_abs, max_rel = max(max_abs, ad), max(max_rel, rel)
            if ad > _TOL * (1 + float(abs(t))):
                bad.append((p, g, t, ad))
        diffs += _regions(s, bad, pts, free)
    return diffs, max_abs, max_rel, len(compared)


def _real_or_complex(v: mpmath.mpc) -> complex | float:
    v = complex(v)
    return v.real if v.imag == 0 else v


def _regions(s, bad, pts, free) -> list[Difference]:
    """Runs of disagreeing samples: by position along the one variable, or
    one box over all of them for several."""
    if not bad:
        return []
    n = len(pts)
    if len(free) == 1:
        (a,) = free
        order = sorted(range(n), key=lambda j: pts[j][a])
        is_bad = {id(p) for p, *_ in bad}
        runs, cur = [], []
        for j in order:
            if id(pts[j]) in is_bad:
                cur.append(j)
            elif cur:
                runs.append(cur)
                cur = []
        if cur:
            runs.append(cur)
        by_id = {id(p): (g, t, ad) for p, g, t, ad in bad}
        out = []
        for run in runs:
            worst = max(run, key=lambda j: by_id[id(pts[j])][2])
            g, t, _ = by_id[id(pts[worst])]
            out.append(Difference(s, {a: (pts[run[0]][a], pts[run[-1]][a])}, len(run) / n,
                                  dict(pts[worst]), _real_or_complex(g), _real_or_complex(t)))
        return out
    p, g, t, _ = max(bad, key=lambda b: b[3])
    box = {a: (min(q[a] for q, *_ in bad), max(q[a] for q, *_ in bad)) for a in free}
    return [Difference(s, box, len(bad) / n, dict(p), _real_or_complex(g), _real_or_complex(t))]


def _both_modes(expr, syms) -> tuple | str:
    """Forward mode with symbolic tangents ``v`` and reverse mode with a
    symbolic cotangent ``u``: ``(u, vs, J v, uᵀJ)`` (a zero for an input
    the formula does not depend on), or why forward mode refuses."""
    u = Dummy("u", real=True)
    vs = [Dummy(f"v{i}", real=True) for i in range(len(syms))]
    try:
        jv = jvp(expr, syms, vs)
    except SymgradError as e:
        return f"forward mode refuses the rule: {e}"
    vj = [S.Zero if c is None else c for c in _as_tuple(vjp(expr, syms, u))]
    return u, vs, jv, vj


def _jvp_vjp(expr, syms, free, real, pts, seed) -> tuple[bool, str]:
    """⟨u, J v⟩ against ⟨uᵀJ, v⟩ for unit-free u, v: proved, or sampled."""
    if count_ops([expr]) > _SIMPLIFY_OPS:  # too big to prove: sampled at numbers at once
        return _jvp_vjp_sampled(expr, syms, free, real, pts, seed)
    modes = _both_modes(expr, syms)
    if isinstance(modes, str):
        return False, modes
    u, vs, jv, vj = modes
    jv, *vj = lower([jv, *vj])
    defect = (u * jv - sum((c * v for c, v in zip(vj, vs)), S.Zero)).xreplace(real)
    if tree_size(defect) > EVALUATED_TREE:  # few operations, a large tree (a deep chain's):
        # the proof and SymPy's lambdify below walk it as a tree
        return _jvp_vjp_sampled(expr, syms, free, real, pts, seed)
    if _prove(defect) is not None:
        return True, "⟨u, J v⟩ = ⟨uᵀJ, v⟩ proved"
    args = [real.get(s, s) for s in free]
    for k, uval in enumerate(_U):
        vvals = {v: _V[(k + i) % len(_V)] for i, v in enumerate(vs)}
        d = defect.xreplace({u: uval, **vvals})
        lhs = (u * jv).xreplace(real).xreplace({u: uval, **vvals})
        dv, lv = evaluator(d, args), evaluator(lhs, args)
        for p in pts[:16]:
            vals = [p[a] for a in free]
            a, b = dv(vals), lv(vals)
            if a is not None and b is not None and abs(a) > 1e-9 * (1 + abs(b)):
                a, b = complex(a), complex(b)
                at = ", ".join(f"{s}={p[s]:.6g}" for s in free)
                v_at = ", ".join(map(str, vvals.values()))
                return False, (
                    f"⟨u, J v⟩ ≠ ⟨uᵀJ, v⟩ at {at}, u={uval}, v=({v_at}): "
                    f"forward mode gives {_fmt(b)}, reverse mode {_fmt(b - a)}; a rule is not "
                    "linear in its cotangent (or its tangents)"
                )
    return True, "⟨u, J v⟩ = ⟨uᵀJ, v⟩ at every sample (not proved)"


def _jvp_vjp_sampled(expr, syms, free, real, pts, seed) -> tuple[bool, str]:
    """⟨u, J v⟩ against ⟨uᵀJ, v⟩ along random directions, as
    ``torch.autograd.gradcheck``'s fast mode does: forward mode with
    symbolic tangents v and reverse mode with a symbolic cotangent u are
    derived once, and one program of both over their DAG
    (:class:`.values.Values`) is run with u and v drawn afresh at each
    (point, draw) (a formula too big for the proof: substituting numbers
    and printing the defect took minutes at n = 300)."""
    modes = _both_modes(expr, syms)
    if isinstance(modes, str):
        return False, modes
    u, vs, jv, vj = modes
    lowered = _renamed(lower([jv, *vj]), real)
    table = Values(lowered, [real.get(s, s) for s in free] + [u, *vs])
    rng = random.Random(f"check_gradient:directions:{seed}")

    def draw() -> float:  # unit-free, of both signs, off 0 and 1 (clipping shows)
        return rng.choice((-1, 1)) * rng.uniform(0.25, 4.0)

    for p in pts[:16]:
        for _ in range(_DRAWS):
            uval, vvals = draw(), [draw() for _ in syms]
            vals = table.at([*(p[a] for a in free), uval, *vvals])
            if any(q is None for q in vals):
                continue
            b = uval * vals[0]
            r = mpmath.fsum(q * v for q, v in zip(vals[1:], vvals))
            if abs(b - r) > 1e-9 * (1 + abs(b)):
                at = ", ".join(f"{s}={p[s]:.6g}" for s in free[:8]) + (
                    f" (and {len(free) - 8} more: the sample of seed {seed})" if len(free) > 8
                    else "")
                v_at = ", ".join(f"{v:.6g}" for v in vvals[:8]) + (", ..." if len(vvals) > 8
                                                                   else "")
                return False, (
                    f"⟨u, J v⟩ ≠ ⟨uᵀJ, v⟩ at {at}, u={uval:.6g}, v=({v_at}): "
                    f"forward mode gives {_fmt(complex(b))}, reverse mode {_fmt(complex(r))}; a "
                    "rule is not linear in its cotangent (or its tangents)"
                )
    return True, "⟨u, J v⟩ = ⟨uᵀJ, v⟩ along random directions at every sample (not proved)"
