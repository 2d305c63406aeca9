"""``check_stability``: measure, explain and prove, for the code that runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
from sympy import Basic, Dummy, S, Symbol, conjugate, im, oo, re

from ..brief import brief
from ..build import mapped
from ..certified import pairs_part
from ..errors import ComplexValueError, SymgradError
from ..graph import free_symbols, postorder
from ..lowering import lower, unwiden
from ..matrices.entries import expand_entries
from ..progress import stage
from ..safe import refuse_string
from ..shapes import flatten_exprs
from .analysis import Measurement, find_regions
from .ascent import ascend, scatter, toward_zeros, worst_bits
from .bits import bits_error, bits_error_bounds, float_format
from .bounds import prove
from .compare import as_written, rewrite_notes
from .depth import deepest_zeros
from .floats import NodeEvaluator, evaluated_form, generated
from .limits import limits_at_infinity
from .matrix_code import matrix_run
from .report import OutputStats, StabilityReport
from .sampling import parse_domain
from .search import SOURCES, Basis, PointSearch, random_mask
from .ties import ties
from .truth import RESOLVED, UNDEFINED, UNRESOLVED, GroundTruth, middle

__all__ = ["check_stability"]


_NOT_NUMBERS = (
    (S.ComplexInfinity, "zoo (complex infinity: SymPy evaluates 1/0 to it)"),
    (S.NaN, "nan (SymPy's undefined value, as from 0*oo or oo - oo)"),
    (S.Infinity, "oo"),
    (S.NegativeInfinity, "-oo"),
)


_PARTS = (re, im, conjugate)


def refuse_non_real(flat: list[Basic], caller: str, verb: str) -> None:
    """A clear error for a formula holding the imaginary unit, or a value
    that is no finite number (zoo, nan, oo): the ground truth and the float
    code measure finite real values.  (One walk over the DAG; the output
    is found only on error.)"""
    bad = dict(_NOT_NUMBERS)
    bad[S.ImaginaryUnit] = None
    order, _ = postorder(flat, lambda n: n.args)
    if not any(n in bad for n in order if not n.args):
        return
    for o, e in enumerate(flat):
        held = {n for n in postorder([e], lambda n: n.args)[0] if not n.args and n in bad}
        for b, what in _NOT_NUMBERS:
            if b in held:
                raise SymgradError(
                    f"{caller} measures formulas of finite real values, and output {o}, "
                    f"{brief(e)}, holds {what}; build the formula without it (a 1/0 or a "
                    "log(0) among the constants becomes one when SymPy evaluates it)"
                )
        if S.ImaginaryUnit in held:
            raise ComplexValueError(
                f"{caller} measures real formulas, and output {o}, {brief(e)}, holds the "
                "imaginary unit I (the gradient of (-3)**y is (-3)**y*(log(3) + I*pi); "
                f"log(-log(2)) is log(log(2)) + I*pi); {verb} its real and imaginary parts, "
                "sympy.re(e) and sympy.im(e), or a formula that is real on the domain"
            )


def has_parts(flat: list[Basic]) -> bool:
    """Whether ``flat`` holds a complex part, ``re``, ``im`` or ``conjugate``."""
    return any(isinstance(n, _PARTS) for n in postorder(flat, lambda n: n.args)[0])


def real_parts(flat: list[Basic]) -> list[Basic]:
    """``flat`` with its complex parts read as the real pipeline runs them.

    The real pipeline computes every intermediate as a real float, and a
    value it cannot (the logarithm of a negative number) is undefined
    there, NaN in its code and in its ground truth; so wherever the formula
    is defined, ``re(z)`` and ``conjugate(z)`` are ``z`` and ``im(z)`` is 0
    (NumPy's ``real``, ``conjugate`` and ``imag`` of a real array).
    Gradients hold them: symgrad's rule for ``Abs(w)``, for a ``w`` SymPy
    cannot prove real, is ``re(sign(conjugate(w))*w')`` (TensorFlow's
    projection of a complex gradient onto the reals).  Read the parts of
    the formula that runs (``evaluated_form``, where SymPy has evaluated
    them as the code generator does) to get that code's operations.
    ``arg`` stays, and the ground truth refuses it by name.  One walk over
    the DAG.

    >>> from sympy import Abs, Symbol, log
    >>> from symgrad import grad
    >>> x = Symbol("x", real=True)
    >>> g = grad(Abs(log(x)), [x])[0]
    >>> g, real_parts([g])[0]
    (re(sign(conjugate(log(x)))/x), sign(log(x))/x)
    """
    if not has_parts(flat):
        return flat
    return mapped(flat, hook=lambda n, a: (S.Zero if n.func is im else a[0])
                  if isinstance(n, _PARTS) else None)


def _symbols(exprs: list[Basic], domain: Mapping) -> list[Symbol]:
    free = free_symbols(exprs)
    # the domain's order first (the user's), then any symbol it forgot
    ordered = [s for s in (domain or {}) if s in free]
    return ordered + sorted(free - set(ordered), key=str)


def check_stability(
    expr: object,
    domain: Mapping | None,
    *,
    dtype: str = "float64",
    samples: int = 4096,
    seed: int = 0,
    tolerance_bits: float = 3,
    rewrites: bool = True,
    _source: object = None,
    _truth_memo: dict | None = None,
    _points: Sequence[Mapping] = (),
) -> StabilityReport:
    """Where ``expr`` overflows, turns NaN or loses its bits on ``domain``,
    what is proved for the whole domain, and which subexpression is to blame.

    ``expr`` is an expression or a sequence/Matrix of them (a gradient
    tuple); ``domain`` maps every free symbol to ``(lo, hi)`` (infinite ends
    allowed; None: every symbol over all floats, as in ``stabilize``).
    The values checked are those of symgrad's generated code in ``dtype``
    (``rewrites=False``: the formula as written, no accurate forms), at
    ``samples`` points drawn uniformly over the float lattice,
    against a correctly rounded mpmath ground truth.

    >>> from sympy import symbols, exp
    >>> x = symbols("x")
    >>> r = check_stability(exp(x) / (1 + exp(x)), {x: (-1000, 1000)}, samples=256)
    >>> r.ok, r.max_bits_error, r.regions[0].kind, r.regions[0].culprit
    (False, 64.0, 'nan', exp(x))
    >>> r.regions[0].ranges[x][0]  # the first x whose exp overflows
    709.7827128933841
    >>> check_stability(x / (x + 1), {x: (1, 4)}, samples=256).ok
    True

    (``_source``, stabilize's: the formulas whose exact values the code of
    ``expr`` is measured against, where ``expr`` is a form chosen for them
    that may approximate them: a Taylor series.  ``_truth_memo``, stabilize's
    too: the exact values it already has of the same formulas, see
    :class:`.truth.GroundTruth`.  ``_points``, stabilize's: points (symbol ->
    value) measured beside the search's, the worst its verification found,
    so that no figure of its report is below one stabilize measured.)
    """
    refuse_string(expr, "check_stability", "expr")
    refuse_string(domain, "check_stability", "domain")
    as_given, given_domain = expr, domain
    expr, domain = expand_entries(expr, domain)  # a box per entry of a matrix symbol
    flat, _ = flatten_exprs(expr, "expr")
    if not isinstance(samples, int) or samples < 1:
        raise SymgradError(f"samples={samples!r}: give a positive number of points")
    fmt = float_format(dtype)
    refuse_non_real(flat, "check_stability", "check")
    plain = real_parts(flat)  # (re and conjugate of real values: the values the same)
    source = plain if _source is None else real_parts(flatten_exprs(_source, "expr")[0])
    symbols = _symbols(flat + source if source is not plain else flat, domain)
    if domain is None:  # (no matrix symbol is expanded without a domain)
        domain = given_domain = {s: (-oo, oo) for s in symbols}
    dom = parse_domain(domain, symbols, fmt)
    shown = dom  # the report's domain: a constant has none
    if not symbols:  # a constant (the gradient of x is 1): checked at one point
        shown = {}
        symbols = [Dummy("constant", real=True)]
        dom = {symbols[0]: (0.0, 0.0)}
        samples = 1
    truth = GroundTruth(source, symbols, fmt.name, memo=_truth_memo)
    form = real_parts(evaluated_form(flat, rewrites))  # the code's operations
    run = own = None
    if rewrites:  # the code that runs: a matrix formula's own, else the entries'
        own = generated(symbols, flat, fmt.dtype)
        if given_domain is not domain:
            run = matrix_run(as_given, given_domain, symbols, fmt.dtype, len(flat), own)
        run = run or own
    nodes = NodeEvaluator(form, symbols, fmt.dtype)

    def compute(points: np.ndarray) -> np.ndarray:
        cols = [points[:, j] for j in range(len(symbols))]
        if not symbols:
            cols = [np.zeros(len(points), dtype=fmt.dtype)]
        if run is not None:
            out = run(*cols) if symbols else run()
        else:
            vals = nodes.values(cols)
            out = [vals[f] for f in form]
        return np.stack([np.broadcast_to(np.asarray(o, dtype=fmt.dtype), (len(points),))
                         for o in out])

    def measure(points: np.ndarray):
        t, st, lo, hi = truth.batch_bounds(points)
        c = compute(points)
        b = np.where(st == RESOLVED, bits_error(c, t, fmt), np.nan)
        # an unresolved point whose truth's bounds decide it: its upper bound
        # where that is within the tolerance, its lower bound where that is
        # beyond (an alarm); NaN where the bounds do not decide
        low, up = bits_error_bounds(c, lo, hi, fmt)
        decided = np.where(up <= tolerance_bits, up, np.where(low > tolerance_bits, low, np.nan))
        b = np.where(st == UNRESOLVED, decided, b)
        # in the figures: resolved points, and unresolved ones whose error the
        # bounds fix (a zero of unknown sign: -0 and +0 are one ordinal)
        known = (st == RESOLVED) | ((st == UNRESOLVED) & (low == up))
        # the true values, unresolved ones at the middle of their bounds (for
        # the steps toward the output's zero), in the order measured
        mids.append(np.where(st == RESOLVED, t, middle(lo, hi)))
        return c, t, st, b, known

    mids: list[np.ndarray] = []

    stage("searching for points")
    search = PointSearch(form, symbols, dom, fmt, samples, seed)
    points, labels = search.points()
    given = [[p[s] for s in symbols] for p in _points if all(s in p for s in symbols)]
    if given and shown:
        points = np.concatenate([points, np.asarray(given, dtype=points.dtype)])
        labels = np.concatenate([labels, np.full(len(given), SOURCES.index("ascent"))])
    stage("points measured", len(points))
    if not shown:
        points, labels = points[:1], labels[:1]
    computed, true, status, bits, known = measure(points)
    if shown:  # climb the error from the worst points
        climbed = []

        def climb(rows: np.ndarray) -> np.ndarray:
            climbed.append(measure(rows))
            return worst_bits(climbed[-1][3])

        def absorb(more: np.ndarray, label: str = "ascent") -> None:
            """The points a step found, with what ``measure`` said of them."""
            nonlocal points, labels, computed, true, status, bits, known
            if len(more):
                points = np.concatenate([points, more])
                labels = np.concatenate([labels, np.full(len(more), SOURCES.index(label))])
                computed, true, status, bits, known = (
                    np.concatenate([a, *(f[i] for f in climbed)], axis=1)
                    for i, a in enumerate((computed, true, status, bits, known)))
            climbed.clear()

        absorb(ascend(points, worst_bits(bits), climb, search.ranges, fmt,
                      search.budget["ascent"]))

        # and toward the true output's own zero beside the worst points
        def probe(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            climbed.append(measure(rows))
            return climbed[-1][3], mids[-1]

        absorb(toward_zeros(points, bits, np.concatenate(mids, axis=1), probe, search.ranges,
                            fmt, spread=labels == SOURCES.index("uniform in value")))
        # and where two variables tie exactly (x = -y in x**4 - y**4)
        tied = ties(points, worst_bits(bits), compute, search.ranges, fmt, seed)
        if len(tied):
            climbed.append(measure(tied))
            absorb(tied)
        if any(a != b for a, b in zip(unwiden(form), form)):  # computed beyond the format
            # (a certified form walks on its pairs, without the recompute; the
            # points kept are measured on it, by measure: the lead's D1)
            pairs = [pairs_part(f) for f in flat]
            walk = compute
            if pairs != list(flat) and own is not None and run is own:
                paired = generated(symbols, pairs, fmt.dtype)

                def walk(rows: np.ndarray) -> np.ndarray:
                    out = paired(*[rows[:, j] for j in range(len(symbols))])
                    return np.stack([np.broadcast_to(np.asarray(o, dtype=fmt.dtype),
                                                     (len(rows),)) for o in out])
            absorb(deepest_zeros(points, walk, lambda rows: climbed.append(measure(rows)),
                                 search.ranges, fmt, seed, starts=search.short_zeros()))
        # and at random about the worst point found (a noise's top: its rare tail)
        absorb(scatter(points, worst_bits(bits), climb, search.ranges, fmt, seed))
        # and the zeros on the faces of the box, last (the steps above start as without)
        faces = search.faces()
        if len(faces):
            climbed.append(measure(faces))
            absorb(faces, "zeros on the faces")
        # and the zeros of sums on a tie with other variables walked to 0
        tied0 = search.tie_zeros()
        if len(tied0):
            climbed.append(measure(tied0))
            absorb(tied0, "zeros on ties")
    m = Measurement(symbols, form, points, fmt, computed, true, status, bits, tolerance_bits,
                    nodes, GroundTruth(form, symbols, fmt.name), measure)
    stage("explaining the losses")
    found = find_regions(m)
    if rewrites and form != lower(flat):  # name culprits as the user wrote them
        back = as_written(flat)
        found = tuple([replace(g, culprit=back.get(g.culprit, g.culprit)) for g in gs]
                      for gs in found)
    if not shown:  # a constant: the dummy variable is not the user's
        found = tuple([replace(g, ranges={}, witness=replace(g.witness, point={}))
                       for g in gs] for gs in found)
    regions, harmless, undefined = found
    measured = known
    drawn = random_mask(labels)  # the mean and median are over the random draws
    per = []
    for o, e in enumerate(flat):
        per.append(OutputStats(e, *_stats(bits[o][measured[o]], bits[o][measured[o] & drawn]),
                               undefined=int(np.sum(status[o] == UNDEFINED)),
                               unresolved=int(np.sum(status[o] == UNRESOLVED))))
    mx, mean, med = _stats(bits[measured], bits[measured & drawn[None, :]])
    return StabilityReport(
        exprs=flat, domain=shown, dtype=fmt.name, rewrites=rewrites,
        tolerance_bits=tolerance_bits, max_bits_error=mx, mean_bits_error=mean,
        median_bits_error=med, outputs=per, regions=regions, harmless=harmless,
        proof_source=lambda: prove(form, symbols, dom, fmt),
        limit_source=lambda: limits_at_infinity(plain, symbols, dom, compute, fmt.max),
        samples=len(points), unresolved=int(np.sum(status == UNRESOLVED)),
        unresolved_within=int(np.sum((status == UNRESOLVED) & (bits <= tolerance_bits))),
        unresolved_wrong=int(np.sum((status == UNRESOLVED) & (bits > tolerance_bits))),
        unresolved_known=int(np.sum((status == UNRESOLVED) & known)),
        undefined_points=int(np.sum(status == UNDEFINED)), undefined=undefined,
        notes=(rewrite_notes(plain, form, symbols, points, bits, true, status, fmt)
               if rewrites else []),
        points=points, bits=bits, basis=Basis.of(labels),
    )


def _stats(every: np.ndarray, drawn: np.ndarray) -> tuple[float, float, float]:
    """The max over ``every`` point, mean and median over the ``drawn`` ones."""
    if every.size == 0:
        return 0.0, 0.0, 0.0
    d = drawn if drawn.size else every
    return float(np.max(every)), float(np.mean(d)), float(np.median(d))
