"""The rewrite pass over deep conditional chains: linear in the DAG."""

import math
import time

import sympy as sp

from symgrad import cond, lambdify


def _chain(depth, x, neg, pos):
    e = x
    for _ in range(depth):
        e = cond(sp.Lt(e, 0, evaluate=False), neg(e), pos(e))
    return e


def _expected(depth, v, neg, pos):
    for _ in range(depth):
        v = neg(v) if v < 0 else pos(v)
    return v


def test_a_deep_cond_chain_lambdifies_in_a_fraction_of_a_second():
    # the pass rebuilt each Piecewise with SymPy's constructor (which folds a
    # condition holding a Piecewise into ITE, set algebra over trees) and
    # asked each factor's free_symbols as a tree: 12 deep never finished
    x = sp.Symbol("x", real=True)
    cases = [
        (lambda e: sp.Add(sp.exp(e, evaluate=False), -1, evaluate=False),
         lambda e: sp.atan(e, evaluate=False), lambda v: math.expm1(v), math.atan),
    ]
    for neg, pos, fneg, fpos in cases:
        e = _chain(14, x, neg, pos)
        t = time.process_time()
        f = lambdify([x], e)
        assert time.process_time() - t < 5
        for v in (-0.7, 0.3, 2.5):
            assert math.isclose(f(v), _expected(14, v, fneg, fpos), rel_tol=1e-12)
