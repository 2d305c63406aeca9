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
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import mpmath
from sympy import (
    Add,
    Basic,
    Derivative,
    Dummy,
    Expr,
    Float,
    Piecewise,
    Rational,
    S,
    Symbol,
    cancel,
    diff,
    expand,
    lambdify,
    simplify,
)
from sympy.printing.pycode import MpmathPrinter

from ..autodiff import grad, jvp, vjp
from ..errors import SymgradError
from ..graph import count_ops
from ..lowering import lower
from ..safe import refuse_string
from ..shapes import flatten_exprs, flatten_symbols

__all__ = ["check_gradient", "GradientCheck", "Difference"]

DEFAULT_RANGE = (-3.0, 3.0)
_DPS = 30
_TOL = 1e-12  # relative, at 30 digits: a difference, not rounding
_SIMPLIFY_OPS = 250  # simplify is tried on differences up to this many operations
# unit-free cotangent and tangent values, of both signs, off 1 (clipping shows)
_U = (Rational(37, 10), Rational(-29, 10), Rational(7, 20))
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
    free = sorted(forward.free_symbols | set(syms) | _free(got), key=str)
    real = {s: Dummy(s.name, real=True) for s in free if not s.is_extended_real}
    back = {d: s for s, d in real.items()}
    fwd_r = forward.xreplace(real)
    got_r = [g.xreplace(real) for g in lower(got)]
    true_r = _true_gradient(fwd_r, [s.xreplace(real) for s in syms])
    proofs = [_prove(g - t) for g, t in zip(got_r, true_r)]
    matches = all(p is not None for p in proofs)
    proof = "; ".join(dict.fromkeys(p for p in proofs if p)) if matches else \
        "SymPy could not reduce the difference to 0"

    dom = _domain(domain, free)
    pts = _points(dom, free, samples, seed)
    diffs, max_abs, max_rel, n = _compare(fwd_r, got_r, true_r, syms, free, real, pts)
    consistent, detail = _jvp_vjp(expr, syms, free, real, pts)
    return GradientCheck(
        expr=expr, wrt=tuple(syms), gradient=tuple(got),
        true_gradient=tuple(t.xreplace(back) for t in true_r), matches=matches, proof=proof,
        confirmed=not diffs and n > 0, differs_where=diffs, max_abs_diff=max_abs,
        max_rel_diff=max_rel, samples=n, jvp_vjp_consistent=consistent,
        jvp_vjp_detail=detail, domain=dom,
    )


def _true_gradient(f: Expr, syms: list) -> list:
    """``sympy.diff(f, s)`` for each of ``syms``; a sum differentiated term
    by term, each term only along the symbols it holds (a sum over n inputs
    is not walked whole n times: that was n² in the number of inputs)."""
    if not f.is_Add or len(syms) < 8:
        return [diff(f, s) for s in syms]
    wanted = set(syms)
    holding: dict = {s: [] for s in syms}
    for term in f.args:
        for s in term.free_symbols & wanted:
            holding[s].append(term)
    return [Add(*[diff(t, s) for t in holding[s]]) for s in syms]


def _as_tuple(g: object) -> tuple:
    return g if isinstance(g, (tuple, list)) else (g,)


def _free(exprs: Sequence[Basic]) -> set:
    out: set = set()
    for e in exprs:
        out |= e.free_symbols
    return out


def _prove(d: Expr) -> str | None:
    """How SymPy shows ``d`` is 0, or None."""
    if d == 0:
        return "identical"
    ops = count_ops([d])
    if ops <= 4 * _SIMPLIFY_OPS and (cancel(d) == 0 or expand(d) == 0):
        return "cancel"
    # (simplify of a Piecewise simplifies its conditions: minutes for Max of three)
    if ops <= _SIMPLIFY_OPS and not d.has(Piecewise) and simplify(d) == 0:
        return "simplify"
    return None


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
        if lo > -mpmath.inf and hi < mpmath.inf:
            return rng.uniform(lo, hi)
        sign = rng.choice((-1, 1)) if lo == -mpmath.inf and hi == mpmath.inf else \
            (1 if hi == mpmath.inf else -1)
        base = lo if sign == 1 else hi
        base = 0.0 if abs(base) == mpmath.inf else base
        return base + sign * 10 ** rng.uniform(-3, 6)

    return [{s: draw(*dom[s]) for s in free} for _ in range(n)]


def _evaluator(e: Expr, args: list):
    """A 30-digit evaluator of ``e`` on mpmath numbers: SymPy's mpmath
    lambdify, or evalf where a function has no mpmath form.  None where
    the value is not a finite number."""
    try:
        f = lambdify(args, e, modules="mpmath")
    except Exception:  # noqa: BLE001  (a printer that cannot print: fall back)
        f = None

    def by_evalf(vals: list) -> mpmath.mpc:
        subs = {a: Float(v, _DPS + 10) for a, v in zip(args, vals)}
        return mpmath.mpmathify(e.evalf(_DPS + 5, subs=subs))

    def value(vals: list) -> mpmath.mpc | None:
        with mpmath.workdps(max(_DPS, mpmath.mp.dps)):  # (mpmath.diff raises it)
            try:
                v = f(*[mpmath.mpf(x) for x in vals]) if f is not None else by_evalf(vals)
            except (TypeError, ValueError, ZeroDivisionError, NameError, AttributeError):
                try:
                    v = by_evalf(vals)
                except (TypeError, ValueError, ZeroDivisionError):
                    return None
            try:
                v = mpmath.mpc(v)
            except (TypeError, ValueError):
                return None
            return v if mpmath.isfinite(v) else None
    return value


def _numeric_derivative(fwd: Expr, args: list, k: int):
    """A 30-digit mpmath derivative along ``args[k]``, for where SymPy
    leaves a ``Derivative`` unevaluated."""
    f = _evaluator(fwd, args)

    def along(vals: list, t: mpmath.mpf) -> mpmath.mpc:
        v = f([*vals[:k], t, *vals[k + 1:]])
        return mpmath.nan if v is None else v

    def value(vals: list) -> mpmath.mpc | None:
        if f(vals) is None:
            return None
        with mpmath.workdps(_DPS):
            d = mpmath.diff(lambda t: along(vals, t), mpmath.mpf(vals[k]))
            return d if mpmath.isfinite(d) else None
    return value


def _columns(exprs: list, args: list, pts: list, free: list) -> list | None:
    """Each of ``exprs`` at every point, from one evaluator of them all (one
    lambdify, not one per input: that was n² in the number of inputs), or
    None where SymPy cannot print them as one."""
    if len(exprs) < 8:
        return None
    try:
        f = lambdify(args, list(exprs), modules=[{"mpmath": mpmath}, "mpmath"],
                     printer=MpmathPrinter({"order": "none"}))  # (sorting terms: most of it)
    except Exception:  # noqa: BLE001  (a printer that cannot print: one by one)
        return None
    cols: list = [[None] * len(pts) for _ in exprs]
    for j, p in enumerate(pts):
        with mpmath.workdps(_DPS):
            try:
                vals = f(*[mpmath.mpf(p[a]) for a in free])
            except (TypeError, ValueError, ZeroDivisionError, NameError, AttributeError):
                return None  # evaluated one by one, with evalf where they fail
            for i, v in enumerate(vals):
                try:
                    v = mpmath.mpc(v)
                except (TypeError, ValueError):
                    return None
                cols[i][j] = v if mpmath.isfinite(v) else None
    return cols


def _at_points(value, pts: list, free: list):
    """``value`` (an evaluator) as a function of a point's index."""
    return lambda j: value([pts[j][a] for a in free])


def _compare(fwd, got, true, syms, free, real, pts):
    args = [real.get(s, s) for s in free]
    diffs: list[Difference] = []
    max_abs = max_rel = 0.0
    compared = set()
    f_val = _evaluator(fwd, args)
    defined = [f_val([p[a] for a in free]) is not None for p in pts]  # once per point
    got_cols = _columns(got, args, pts, free)
    exact = [i for i, t in enumerate(true) if not t.has(Derivative)]
    true_cols = _columns([true[i] for i in exact], args, pts, free)
    true_at = dict(zip(exact, true_cols)) if true_cols is not None else {}
    for i, s in enumerate(syms):
        k = free.index(s)
        if got_cols is not None:
            g_val = got_cols[i].__getitem__
        else:
            g_val = _at_points(_evaluator(got[i], args), pts, free)
        if i in true_at:
            t_val = true_at[i].__getitem__
        else:
            t_val = _at_points(_numeric_derivative(fwd, args, k) if true[i].has(Derivative)
                               else _evaluator(true[i], args), pts, free)
        bad: list[tuple[dict, complex, complex, float]] = []
        for j, p in enumerate(pts):
            if not defined[j]:
                continue  # outside the formula's domain
            g, t = g_val(j), t_val(j)
            if g is None or t is None:
                continue
            compared.add(j)
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


def _jvp_vjp(expr, syms, free, real, pts) -> tuple[bool, str]:
    """⟨u, J v⟩ against ⟨uᵀJ, v⟩ for unit-free u, v: proved, or sampled."""
    if count_ops([expr]) > _SIMPLIFY_OPS:  # too big to prove: sampled at numbers at once
        return _jvp_vjp_sampled(expr, syms, free, real, pts)
    u = Dummy("u", real=True)
    vs = [Dummy(f"v{i}", real=True) for i in range(len(syms))]
    try:
        jv = jvp(expr, syms, vs)
    except SymgradError as e:
        return False, f"forward mode refuses the rule: {e}"
    vj = _as_tuple(vjp(expr, syms, u))
    jv, *vj = lower([jv, *[S.Zero if c is None else c for c in vj]])
    defect = (u * jv - sum((c * v for c, v in zip(vj, vs)), S.Zero)).xreplace(real)
    if _prove(defect) is not None:
        return True, "⟨u, J v⟩ = ⟨uᵀJ, v⟩ proved"
    args = [real.get(s, s) for s in free]
    for k, uval in enumerate(_U):
        vvals = {v: _V[(k + i) % len(_V)] for i, v in enumerate(vs)}
        d = defect.xreplace({u: uval, **vvals})
        lhs = (u * jv).xreplace(real).xreplace({u: uval, **vvals})
        dv, lv = _evaluator(d, args), _evaluator(lhs, args)
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


def _jvp_vjp_sampled(expr, syms, free, real, pts) -> tuple[bool, str]:
    """⟨u, J v⟩ against ⟨uᵀJ, v⟩ with the numbers u, v put in before the
    modes run (a formula too big for the proof: the symbolic defect of n
    inputs, substituted and printed three times, took minutes at n = 300)."""
    args = [real.get(s, s) for s in free]
    sub = pts[:16]
    for k, uval in enumerate(_U):
        vvals = [_V[(k + i) % len(_V)] for i in range(len(syms))]
        try:
            jv = jvp(expr, syms, vvals)
        except SymgradError as e:
            return False, f"forward mode refuses the rule: {e}"
        vj = [S.Zero if c is None else c for c in _as_tuple(vjp(expr, syms, uval))]
        jv, *vj = (e.xreplace(real) for e in lower([jv, *vj]))
        lv = _evaluator(uval * jv, args)
        cols = _columns(vj, args, sub, free)
        each = None if cols is not None else [_evaluator(c, args) for c in vj]
        for j, p in enumerate(sub):
            vals = [p[a] for a in free]
            b = lv(vals)
            parts = [c[j] for c in cols] if cols is not None else [ev(vals) for ev in each]
            if b is None or any(q is None for q in parts):
                continue
            r = mpmath.fsum(q * v for q, v in zip(parts, vvals))
            a = b - r
            if abs(a) > 1e-9 * (1 + abs(b)):
                at = ", ".join(f"{s}={p[s]:.6g}" for s in free)
                return False, (
                    f"⟨u, J v⟩ ≠ ⟨uᵀJ, v⟩ at {at}, u={uval}, v=({', '.join(map(str, vvals))}): "
                    f"forward mode gives {_fmt(complex(b))}, reverse mode {_fmt(complex(r))}; a "
                    "rule is not linear in its cotangent (or its tangents)"
                )
    return True, "⟨u, J v⟩ = ⟨uᵀJ, v⟩ at every sample (not proved)"
