"""Pytrees (tuples, lists, dicts, named tuples, dataclasses, nested) in and
out of every operator, with JAX's structure conventions; the exact oracle is
the same derivative taken with a flat list of symbols."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sympy import Array, Matrix, cos, exp, sin, symbols

from symgrad import (
    ShapeError,
    SymgradError,
    custom_gradient,
    custom_jvp,
    custom_vjp,
    grad,
    hessian,
    jacobian,
    jvp,
    vjp,
)
from symgrad.errors import RuleError
from symgrad.shapes import check_same, flatten_exprs, flatten_symbols

x, y, z, w, u, v = symbols("x y z w u v", real=True)
F = x * sin(y) + z**2 * w + exp(x * w)


@dataclasses.dataclass
class Params:
    weight: object
    bias: object


class Pair(NamedTuple):
    first: object
    second: object


def _flat_grad(f, syms):
    return list(grad(f, list(syms)))


def test_grad_keeps_dicts_dataclasses_named_tuples_and_nesting():
    tree = {"b": [y, (z, w)], "a": x}
    got = grad(F, tree)
    gx, gy, gz, gw = _flat_grad(F, [x, y, z, w])
    assert got == {"a": gx, "b": [gy, (gz, gw)]}
    got = grad(F, Params(Matrix([[x, y]]), Pair(z, w)))
    assert isinstance(got, Params) and isinstance(got.bias, Pair)
    assert got.weight == Matrix([[gx, gy]]) and got.bias == Pair(gz, gw)


def test_dict_order_does_not_matter_for_tangents_and_cotangents():
    # flattened in sorted key order, as JAX does: keys line up by name
    got = jvp({"o": F}, {"p": x, "q": y}, {"q": 1, "p": 0})
    assert got == {"o": grad(F, y)}
    got = vjp({"o": F, "r": x * y}, [x, {"k": y}], {"r": 1, "o": 2})
    gx, gy = _flat_grad(2 * F + x * y, [x, y])
    assert got == [gx, {"k": gy}]


def test_jacobian_of_trees_has_jax_structure():
    # outer: the outputs' structure; inner: the inputs'; a leaf pair of shapes
    # (1, 2) and (2, 1) is an Array of shape (1, 2, 2, 1), as jax.jacrev gives
    got = jacobian({"o1": F, "o2": [x * y, Matrix([[x, y]])]}, {"p": x, "q": Matrix([y, z])})
    assert got["o1"]["p"] == grad(F, x)
    assert got["o1"]["q"] == Matrix([grad(F, y), grad(F, z)])
    assert got["o2"][0] == {"p": y, "q": Matrix([x, 0])}
    assert got["o2"][1]["p"] == Matrix([[1, 0]])
    block = got["o2"][1]["q"]
    assert block.shape == (1, 2, 2, 1)
    assert [block[0, i, j, 0] for i in range(2) for j in range(2)] == [0, 0, 1, 0]


def test_hessian_of_a_tree_is_a_tree_of_trees():
    h = hessian(F, {"p": x, "q": [y, z]})
    flat = hessian(F, [x, y, z])
    assert h["p"]["p"] == flat[0, 0] and h["p"]["q"] == [flat[0, 1], flat[0, 2]]
    assert h["q"][1]["q"] == [flat[2, 1], flat[2, 2]]


def test_flat_inputs_give_their_own_sequence_type_back():
    assert isinstance(jacobian([F, x], [x, y]), Matrix)
    assert isinstance(hessian(F, [x, y]), Matrix)
    assert grad(F, [x, y]) == _flat_grad(F, [x, y])
    assert grad(F, (x, y)) == tuple(_flat_grad(F, [x, y]))


def test_mismatched_trees_are_refused_by_path():
    with pytest.raises(ShapeError, match=r"tangents is a dict with keys \['p', 'r'\] but wrt "
                       r"is a dict with keys \['p', 'q'\]"):
        jvp(F, {"p": x, "q": y}, {"p": 1, "r": 0})
    with pytest.raises(ShapeError, match=r"tangents\[1\] is a sequence of 1 but wrt\[1\] is a "
                       r"sequence of 2"):
        jvp(F, [x, [y, z]], [1, [0]])
    _, a = flatten_symbols(Pair(x, y))
    _, b = flatten_exprs((1, 2), "tangents")
    with pytest.raises(ShapeError, match="named tuple"):
        check_same(a, b, "tangents", "wrt")


def test_dataclass_with_a_field_its_constructor_does_not_take_is_refused():
    @dataclasses.dataclass
    class Hidden:
        a: object
        b: object = dataclasses.field(init=False, default=0)

    with pytest.raises(SymgradError, match=r"fields that its constructor does not take \(b\)"):
        grad(F, Hidden(x))


def test_custom_gradient_takes_and_returns_trees():
    @custom_gradient
    def f(p):
        out = {"s": p["a"] * sin(p["b"]), "t": p["a"]}

        def grad_fn(dy):
            return {"a": dy["s"] * sin(p["b"]) + dy["t"], "b": 5 * dy["s"]}

        return out, grad_fn

    out = f({"a": x, "b": y})
    assert set(out) == {"s", "t"}
    assert grad(out["s"] + 2 * out["t"], [x, y]) == [sin(y) + 2, 5]


def test_custom_vjp_with_tree_arguments_and_outputs():
    @custom_vjp
    def g(p, q):
        return {"s": p[0] * q, "t": p[1]}

    def g_fwd(p, q):
        return g(p, q), (p, q)

    def g_bwd(res, ct):
        p, q = res
        return ((ct["s"] * q, ct["t"]), 7 * ct["s"] * p[0])

    g.defvjp(g_fwd, g_bwd)
    out = g((x, y), z)
    assert grad(out["s"] + out["t"], [x, y, z]) == [z, 1, 7 * x]
    # forward mode reads the partials off the same rule
    assert jvp(out["s"], [x, y, z], [0, 0, 1]) == 7 * x


def test_custom_jvp_with_a_dict_argument():
    @custom_jvp
    def h(p):
        return p["u"] * p["v"]

    @h.defjvp
    def h_jvp(primals, tangents):
        (p,), (t,) = primals, tangents
        return h(p), 3 * t["u"] * p["v"] + p["u"] * t["v"]

    assert grad(h({"u": x, "v": y}), {"first": x, "second": y}) == {"first": 3 * y,
                                                                     "second": x}


def test_defjvps_sums_per_argument_rules():
    @custom_jvp
    def f(a, b):
        return sin(a) * b

    f.defjvps(lambda g, ans, a, b: 2 * cos(a) * g * b, None)
    assert grad(f(x, y), [x, y]) == [2 * y * cos(x), 0]
    assert jvp(f(x, y), [x, y], [u, v]) == 2 * u * y * cos(x)

    @custom_jvp
    def two(p, q):
        return {"m": p["k"] * q, "n": q}

    two.defjvps(lambda g, ans, p, q: {"m": g["k"] * q, "n": 0},
                lambda g, ans, p, q: {"m": p["k"] * g, "n": 4 * g})
    out = two({"k": x}, y)
    assert grad(out["m"] + out["n"], [x, y]) == [y, x + 4]


def test_defjvps_errors():
    @custom_jvp
    def f(a, b):
        return a * b

    f.defjvps(lambda g, ans, a, b: g * b)
    with pytest.raises(RuleError, match="given 1 rules by defjvps but is called with 2"):
        grad(f(x, y), x)

    g = custom_jvp(lambda a, n: a * n, nondiff_argnums=(1,))
    with pytest.raises(SymgradError, match="defjvps cannot be used with nondiff_argnums"):
        g.defjvps(lambda t, ans, a, n: t * n)
    with pytest.raises(TypeError, match="defjvps argument 0 is 3"):
        f.defjvps(3, None)


_LEAVES = [x, y, z, w]


def _trees(leaves):
    return st.recursive(
        st.sampled_from(leaves),
        lambda kids: st.one_of(
            st.lists(kids, min_size=1, max_size=3),
            st.lists(kids, min_size=1, max_size=3).map(tuple),
            st.dictionaries(st.sampled_from("abc"), kids, min_size=1, max_size=3),
            st.tuples(kids, kids).map(lambda t: Pair(*t)),
            st.tuples(kids, kids).map(lambda t: Params(*t)),
        ),
        max_leaves=6,
    )


@given(_trees(_LEAVES))
def test_grad_of_any_tree_matches_the_flat_gradient(tree):
    syms, struct = flatten_symbols(tree)
    got = grad(F, tree)
    flat, got_struct = flatten_exprs(got, "got")
    assert got_struct == struct
    assert flat == _flat_grad(F, syms)
    # and vjp with unit cotangent agrees, jvp along each coordinate too
    assert flatten_exprs(vjp(F, tree, 1), "got")[0] == flat


def test_arrays_inside_trees():
    got = grad(F, {"w": Array([[x, y], [z, w]])})
    assert got["w"].shape == (2, 2)
    assert [got["w"][i, j] for i in range(2) for j in range(2)] == _flat_grad(F, [x, y, z, w])
