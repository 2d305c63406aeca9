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


def test_matches_are_remembered_per_node_and_validity_asked_at_each_call():
    # Rewrite.matches is remembered per (rewrite, node) (stabilize rewrites the
    # same nodes in every candidate and in every candidate's code); whether a
    # match is valid depends on the domain, so it is asked at every call
    from sympy.codegen.cfunctions import log1p

    from symgrad.rewrites import Facts, by_name
    from symgrad.rewrites.rewrite import _MATCHES

    x, y = sp.symbols("x y", real=True)
    rw = by_name("log-difference")
    node = 3 * sp.log(x) - 3 * sp.log(y) + x  # a scaled match: k = +-3, x kept
    inside, outside = Facts({x: (1, 2), y: (1, 2)}), Facts({x: (-1, 2), y: (1, 2)})
    first = rw.apply(node, inside)
    assert first is not None and first.has(log1p)
    assert _MATCHES[(id(rw), id(node))][1] is node
    assert rw.apply(node, outside) is None  # log(x) for x < 0: not valid
    assert rw.apply(node, inside) == first
    plain = sp.log(x) - sp.log(y)  # a match at the root that is not valid: None
    assert rw.apply(plain, outside) is None
    assert rw.apply(plain, inside) == log1p((x - y) / y)


def test_an_equal_copy_of_a_deep_node_is_not_compared_by_the_matches_kept():
    # Rewrite.matches keeps matches by the node's identity: keyed by the node,
    # a look-up of an equal copy (built again after SymPy's cache was cleared)
    # ran SymPy's recursive == over the chain: RecursionError at 100 nested
    # sigmoids (test_lowering's chain after test_overrides, -n 0)
    from sympy.core.cache import clear_cache

    from symgrad.rewrites import LIBRARY

    x = sp.Symbol("x", real=True)

    def chain():
        e = x
        for _ in range(150):  # (unevaluated: SymPy's assumptions recurse too)
            u = sp.exp(sp.Mul(-1, e, evaluate=False), evaluate=False)
            e = sp.Pow(sp.Add(1, u, evaluate=False), -1, evaluate=False)
        return e

    a = chain()
    clear_cache()
    b = chain()
    assert a is not b and hash(a) == hash(b)
    for rw in LIBRARY:
        assert len(rw.matches(a)) == len(rw.matches(b))  # (no == of their deep bindings)
