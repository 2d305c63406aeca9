"""Many formulas at many points, to 30 digits: what ``check_gradient`` compares.

The formulas are compiled together into one program over their DAG (each
distinct node once, so the shared parts of a gradient, and a rule's entry
equal to SymPy's, cost one evaluation) and run in Arb's ball arithmetic
(:class:`.balls.BallProgram`): about a microsecond an operation, where
SymPy's mpmath ``lambdify`` first prints every formula as a tree.  A
point's values are taken from the balls where each ball is narrow enough
(:data:`ACCURACY` bits, or that close to 0), at a first and then a higher
precision.  Every other point (outside a function's domain, a complex
value, a condition the balls cannot decide, a function with no ball
kernel) is evaluated as before, in mpmath at :data:`DPS` digits (SymPy's
mpmath ``lambdify``, ``evalf`` where a function has no mpmath form).
A value is an mpmath number, or None where it is not a finite number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import mpmath
from sympy import Expr, Float, lambdify
from sympy.printing.pycode import MpmathPrinter

from ..errors import SymgradError
from .balls import BallProgram, arb
from .truth import Program

__all__ = ["DPS", "ACCURACY", "evaluator", "Values"]

DPS = 30
ACCURACY = 80  # bits a ball must hold (relative, or absolute near 0): 30 digits is 100
_PRECS = (128, 512)  # the working precisions of the balls, in turn
_WIDE = object()  # a ball too wide (or not finite) at this precision
_TINY = None if arb is None else arb(2) ** -ACCURACY


def evaluator(e: Expr, args: Sequence) -> Callable[[list], mpmath.mpc | None]:
    """A :data:`DPS`-digit evaluator of ``e`` on mpmath numbers: SymPy's
    mpmath lambdify, or evalf where a function has no mpmath form.  None
    where the value is not a finite number.

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> f = evaluator(sp.log(x), [x])
    >>> f([1.0]), f([0.0])
    (mpc(real='0.0', imag='0.0'), None)
    """
    try:
        f = lambdify(args, e, modules="mpmath")
    except Exception:  # noqa: BLE001  (a printer that cannot print: fall back)
        f = None

    def by_evalf(vals: list) -> mpmath.mpc:
        subs = {a: Float(v, DPS + 10) for a, v in zip(args, vals)}
        return mpmath.mpmathify(e.evalf(DPS + 5, subs=subs))

    def value(vals: list) -> mpmath.mpc | None:
        with mpmath.workdps(max(DPS, mpmath.mp.dps)):  # (mpmath.diff raises it)
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


def _narrow(b) -> object:
    """A ball's midpoint as ``(man, exp)`` where the ball holds
    :data:`ACCURACY` bits (relative, or absolute), else :data:`_WIDE`."""
    if not b.is_finite():
        return _WIDE
    if b.rel_accuracy_bits() < ACCURACY and not b.rad() < _TINY:
        return _WIDE
    man, exp = b.mid().man_exp()
    return (int(man), int(exp))


class Values:
    """``exprs`` (SymPy formulas in the symbols ``args``) at a point:
    :meth:`at` gives each one's value, the balls first, mpmath where they
    do not decide.  With ``gate``, ``exprs[0]`` is the formula whose
    domain counts: where it has no finite value, the others are not
    evaluated (all None).

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y")
    >>> v = Values([sp.log(x), sp.exp(x) * y, sp.sqrt(x * y)], [x, y], gate=True)
    >>> [float(t) for t in v.at([1.0, 2.0])], v.by_balls
    ([0.0, 5.43656365691809, 1.4142135623730951], 1)
    >>> v.at([-1.0, 2.0])[0]  # not a real ball: mpmath's complex value
    mpc(real='0.0', imag='3.1415926535897932')
    >>> v.at([0.0, 2.0])  # log(0) is not finite: the rest is not evaluated
    [None, None, None]
    """

    def __init__(self, exprs: Sequence[Expr], args: Sequence, *, gate: bool = False) -> None:
        self.exprs = list(exprs)
        self.args = list(args)
        self.gate = gate
        try:
            self._balls = BallProgram.of(Program(self.exprs, self.args))
        except SymgradError:  # a node the interval tier does not know
            self._balls = None
        self._one: dict[int, Callable] = {}
        self._joint: Callable | None | bool = False  # False: not built yet
        self.by_balls = 0  # points the balls decided (for the tests and profiles)

    def at(self, xs: Sequence[float]) -> list:
        """Each formula's value at the point ``xs`` (floats, in the order
        of ``args``): an mpmath number, or None where it is not finite."""
        if self._balls is not None:
            for prec in _PRECS:
                got = self._balls.balls(xs, prec, _narrow)
                if got is None:
                    break  # outside a domain, or undecided: mpmath's
                if all(g is not _WIDE for g in got):
                    self.by_balls += 1
                    seen: dict = {}  # (one number for equal values: a rule's entry and SymPy's)
                    with mpmath.workdps(DPS):
                        return [seen.get(g) or seen.setdefault(g, mpmath.mpf(g)) for g in got]
        return self._by_mpmath(list(xs))

    def _by_mpmath(self, xs: list) -> list:
        n = len(self.exprs)
        if self.gate and self._single(0)(xs) is None:
            return [None] * n
        joint = self._joint_evaluator()
        if joint is not None:
            with mpmath.workdps(DPS):
                try:
                    vals = joint(*[mpmath.mpf(x) for x in xs])
                    out = []
                    for v in vals:
                        v = mpmath.mpc(v)
                        out.append(v if mpmath.isfinite(v) else None)
                    return out
                except (TypeError, ValueError, ZeroDivisionError, NameError, AttributeError):
                    pass  # one by one, with evalf where they fail
        return [self._single(i)(xs) for i in range(n)]

    def _single(self, i: int) -> Callable:
        f = self._one.get(i)
        if f is None:
            f = self._one[i] = evaluator(self.exprs[i], self.args)
        return f

    def _joint_evaluator(self) -> Callable | None:
        """One mpmath lambdify of them all (not one per formula: that was n²
        in the number of inputs), or None where there are few, or SymPy
        cannot print them as one."""
        if self._joint is False:
            self._joint = None
            if len(self.exprs) >= 8:
                try:
                    self._joint = lambdify(
                        self.args, self.exprs, modules=[{"mpmath": mpmath}, "mpmath"],
                        printer=MpmathPrinter({"order": "none"}))  # (sorting terms: most of it)
                except Exception:  # noqa: BLE001  (a printer that cannot print: one by one)
                    self._joint = None
        return self._joint

