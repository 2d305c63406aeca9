"""attach_gradient: value exactly fx, gradient exactly gx, in every shape."""

from __future__ import annotations

import numpy as np
import pytest
from sympy import (
    Array,
    ImmutableMatrix,
    Matrix,
    S,
    diff,
    exp,
    eye,
    log,
    sin,
    symbols,
    zeros,
)

from symgrad import (
    ShapeError,
    SymgradError,
    attach_gradient,
    expand,
    grad,
    hessian,
    jacobian,
    jvp,
    lambdify,
    stop_gradient,
    vjp,
)

x, y, w = symbols("x y w", real=True)
a, b, c, d, e, f = symbols("a b c d e f", real=True)
X23 = Matrix([[a, b, c], [d, e, f]])

SOFTPLUS = log(1 + exp(x))
SIGMOID = 1 / (1 + exp(-x))
POINTS = np.concatenate([np.linspace(-40, 40, 2001), [0.1, 1e-300, -745.0, 710.0]])


def bits(v: np.ndarray) -> np.ndarray:
    return np.asarray(v, dtype=np.float64).view(np.uint64)


# ---- scalar x ------------------------------------------------------------


def test_scalar_value_and_gradient_are_exactly_fx_and_gx():
    h = attach_gradient(SOFTPLUS, SIGMOID, x)
    assert expand(h) == SOFTPLUS
    g = grad(h, x)
    assert g == stop_gradient(SIGMOID)
    assert expand(g) == SIGMOID


def test_scalar_float64_output_is_bitwise_fx_and_gx():
    h = attach_gradient(SOFTPLUS, SIGMOID, x)
    with np.errstate(all="ignore"):
        assert np.array_equal(bits(lambdify(x, h)(POINTS)), bits(lambdify(x, SOFTPLUS)(POINTS)))
        got = lambdify(x, grad(h, x))(POINTS)
        want = lambdify(x, SIGMOID)(POINTS)
    assert np.array_equal(bits(got), bits(want))


def test_the_gradient_is_the_one_given_not_the_true_one():
    h = attach_gradient(x**2, 7, x)
    assert expand(h) == x**2
    assert grad(h, x) == 7
    assert jvp(h, x, w) == 7 * w
    assert vjp(h, x, w) == 7 * w


def test_value_stays_fx_where_gx_is_infinite():
    # x - stop(x) folds to an exact 0 before evaluation, so 1/x never meets it
    h = attach_gradient(x**3, 1 / x, x)
    with np.errstate(all="ignore"):
        got = lambdify(x, h)(np.array([0.0, -0.0, 2.0]))
    assert np.array_equal(bits(got), bits(np.array([0.0, -0.0, 8.0])))


def test_numbers_as_fx_and_gx():
    h = attach_gradient(3, S(1) / 2, x)
    assert expand(h) == 3 and grad(h, x) == S(1) / 2


# ---- arrays --------------------------------------------------------------


def test_vector_elementwise():
    xs = Array([a, b, c])
    h = attach_gradient(Array([sin(a), sin(b), sin(c)]), Array([a, b, c]), xs)
    assert h.shape == (3,)
    assert expand(h) == Array([sin(a), sin(b), sin(c)])
    assert expand(jacobian(h, xs)) == Matrix.diag(a, b, c)


def test_list_x_returns_a_list_and_a_tuple_a_tuple():
    h = attach_gradient([a * b, b], [1, 2], [a, b])
    assert isinstance(h, list) and [expand(e) for e in h] == [a * b, b]
    t = attach_gradient((a * b, b), [1, 2], [a, b])
    assert isinstance(t, tuple) and expand(t) == (a * b, b)
    assert jacobian(h, [a, b]) == Matrix([[1, 0], [0, 2]])


def test_matrix_rows_axis_1_keepdims_and_squeezed():
    fx = Matrix([a * b * c, d + e + f])
    gx = Matrix([[b * c, a * c, a * b], [1, 1, 1]])
    for fx_as in (fx, list(fx), Array(list(fx))):
        h = attach_gradient(fx_as, gx, X23, axis=(1,))
        assert [expand(v) for v in h] == list(fx)
        j = expand(jacobian(h, X23))
        assert j == Matrix([[b * c, a * c, a * b, 0, 0, 0], [0, 0, 0, 1, 1, 1]])
    assert type(attach_gradient(fx, gx, X23, axis=1)) is type(fx)
    assert attach_gradient(list(fx), gx, X23, axis=-1) == attach_gradient(list(fx), gx, X23, 1)


def test_matrix_columns_axis_0():
    fx = Matrix([[a * d, b * d, c * f]])  # 1x3: keepdims of (3,)
    gx = Matrix([[d, d, f], [a, b, c]])
    h = attach_gradient(fx, gx, X23, axis=0)
    assert h.shape == (1, 3) and expand(h) == fx
    assert expand(grad(h[2], X23)) == Matrix([[0, 0, f], [0, 0, c]])


def test_matrix_axis_none_is_one_scalar():
    fx = a * b + c * d + e * f
    gx = Matrix([[b, a, d], [c, f, e]])
    h = attach_gradient(fx, gx, X23, axis=None)
    assert expand(h) == fx
    g = grad(h, X23)
    assert isinstance(g, Matrix) and g.shape == (2, 3)
    assert expand(g) == gx
    assert attach_gradient(Matrix([[fx]]), gx, X23, axis=None).shape == (1, 1)


def test_rank3_array_over_two_axes():
    syms = symbols("p0:12", real=True)
    xs = Array(syms, (2, 3, 2))
    fx = Array([sum(syms[i::3]) for i in range(3)])  # any 3 values: one per middle index
    gx = Array([s**2 for s in syms], (2, 3, 2))
    h = attach_gradient(fx, gx, xs, axis=(0, 2))
    assert h.shape == (3,) and expand(h) == fx
    j = expand(jacobian(h, xs))
    for i in range(3):
        for k, idx in enumerate(np.ndindex(2, 3, 2)):
            assert j[i, k] == (xs[idx] ** 2 if idx[1] == i else 0)


def test_gx_of_fx_shape_is_broadcast_over_the_axis():
    # tf.contrib's reduce_sum form: one partial per f, shared by its entries
    h = attach_gradient([a + b + c, d * e * f], [10, w], X23, axis=1)
    assert expand(jacobian(h, X23)) == Matrix([[10, 10, 10, 0, 0, 0], [0, 0, 0, w, w, w]])
    s = attach_gradient(a, 5, X23, axis=None)
    assert grad(s, X23) == Matrix([[5] * 3] * 2)
    m = attach_gradient(X23, 5, X23)  # a scalar gx broadcasts to every entry
    assert jacobian(m, X23) == 5 * eye(6)


def test_array_value_is_bitwise_fx_in_float64():
    fx = Array([log(1 + exp(a)) * b, sin(a) / b])
    gx = Array([b / (1 + exp(-a)), -sin(a) / b**2])
    h = attach_gradient(fx, gx, Array([a, b]))
    rng = np.random.default_rng(5)
    av, bv = rng.normal(scale=30, size=500), rng.normal(size=500)
    got, want = lambdify([a, b], h)(av, bv), lambdify([a, b], fx)(av, bv)
    assert np.array_equal(bits(got), bits(want))


def test_x_may_be_an_expression_chain_rule():
    h = attach_gradient(sin(2 * w), 5, 2 * w)
    assert expand(h) == sin(2 * w)
    assert grad(h, w) == 10


# ---- second order --------------------------------------------------------


def test_second_order_is_zero_through_the_stopped_gradient():
    h = attach_gradient(SOFTPLUS, SIGMOID, x)
    assert grad(grad(h, x), x) == 0
    assert hessian(h, [x]) == Matrix([[0]])
    hm = attach_gradient(a * b * c, [b * c, a * c, a * b], [a, b, c], axis=None)
    assert hessian(hm, [a, b, c]) == zeros(3, 3)
    assert jvp(grad(hm, [a, b, c]), [a, b, c], [1, 1, 1]) == [0, 0, 0]


def test_manual_unstopped_gx_gives_twice_its_derivative():
    # the product rule acts on gx and on x - stop(x): documented, not hidden
    h = attach_gradient(stop_gradient(x**3), 3 * x**2, x, fx_gx_manually_stopped=True)
    assert expand(grad(h, x)) == 3 * x**2
    assert expand(grad(grad(h, x), x)) == 2 * diff(3 * x**2, x)


def test_manual_stopped_gx_gives_zero_second_order():
    gx = stop_gradient(3 * x**2)
    h = attach_gradient(stop_gradient(x**3), gx, x, fx_gx_manually_stopped=True)
    assert expand(grad(h, x)) == 3 * x**2 and grad(grad(h, x), x) == 0


# ---- the partial case ----------------------------------------------------


def test_other_symbols_get_no_gradient_by_default():
    h = attach_gradient(exp(x) * y, exp(x) * y, x)
    assert grad(h, y) == 0
    assert grad(h, y, unconnected="none") is None
    assert grad(h, [x, y], unconnected="none") == [stop_gradient(exp(x) * y), None]
    hm = attach_gradient(Matrix([a * y, b * y]), Matrix([y, y]), Matrix([a, b]))
    assert jacobian(hm, [y]) == zeros(2, 1)


def test_manually_stopped_lets_other_symbols_through():
    sx = stop_gradient(x)
    h = attach_gradient(exp(sx) * y, exp(sx) * y, x, fx_gx_manually_stopped=True)
    assert expand(h) == exp(x) * y
    assert expand(grad(h, x)) == exp(x) * y
    assert expand(grad(h, y)) == exp(x)
    assert expand(jacobian([h], [x, y])) == Matrix([[exp(x) * y, exp(x)]])


def test_manually_stopped_arrays():
    sa, sb = stop_gradient(a), stop_gradient(b)
    h = attach_gradient(y * (sa + sb), Matrix([[y, y]]), Matrix([[a, b]]), axis=None,
                        fx_gx_manually_stopped=True)
    assert expand(grad(h, [a, b, y])) == [y, y, a + b]


# ---- bad input -----------------------------------------------------------


@pytest.mark.parametrize(
    "fx, gx, xs, axis, match",
    [
        ([a, b], [1, 1, 1], [a, b, c], (), r"fx has shape \(2,\) but x of shape \(3,\) with "
         r"axis=\(\) gives one f per index of the remaining dimensions, shape \(3,\)"),
        (a, X23, X23, 1, r"fx has shape \(\) but x of shape \(2, 3\) with axis=1 .* shape "
         r"\(2,\) \(or \(2, 1\) with the axis dimensions kept\)"),
        ([a, d], Matrix([[1, 1], [1, 1]]), X23, 1, r"gx has shape \(2, 2\) but x of shape "
         r"\(2, 3\) with axis=1 needs one partial per entry of x, shape \(2, 3\)"),
        (a, 1, X23, 2, r"axis=2 does not name distinct dimensions of x, whose shape \(2, 3\)"),
        (a, 1, X23, (0, -2), r"axis=\(0, -2\) does not name distinct dimensions"),
        (x, 1, x, 0, r"axis=0 does not name distinct dimensions of x, whose shape \(\) has 0"),
        (Matrix([[a, b, c]]), X23, X23, 1, r"fx has shape \(1, 3\)"),
    ],
    ids=["fx-size", "fx-scalar", "gx-shape", "axis-range", "axis-dup", "axis-scalar",
         "fx-wrong-keepdims"],
)
def test_shape_errors_name_the_shapes_and_axis(fx, gx, xs, axis, match):
    with pytest.raises(ShapeError, match=match):
        attach_gradient(fx, gx, xs, axis=axis)


def test_type_errors():
    with pytest.raises(TypeError, match="axis must be None, an int or a tuple of ints"):
        attach_gradient(a, 1, X23, axis=1.0)
    with pytest.raises(TypeError, match="axis must be"):
        attach_gradient(a, 1, X23, axis=True)
    with pytest.raises(TypeError, match=r"not \('0',\)"):
        attach_gradient(a, 1, X23, axis=("0",))
    assert attach_gradient([a, d], [1, 1], X23, axis=[np.int64(1)]) == attach_gradient(
        [a, d], [1, 1], X23, axis=1
    )
    with pytest.raises(TypeError, match="fx_gx_manually_stopped must be True or False"):
        attach_gradient(x, 1, x, fx_gx_manually_stopped="yes")
    with pytest.raises(SymgradError, match="x is the string 'x'"):
        attach_gradient(x, 1, "x")
    with pytest.raises(SymgradError, match=r"gx\[1\] is None"):
        attach_gradient([a, b], [1, None], [a, b])


def test_immutable_matrix_x_and_fx():
    h = attach_gradient(ImmutableMatrix([a]), ImmutableMatrix([2]), ImmutableMatrix([a]))
    assert h.shape == (1, 1) and grad(h[0], a) == 2


def test_attach_gradient_takes_tensorflows_name_as_a_label():
    h = attach_gradient(x**2, 7, x, name="my_grad")
    assert grad(h, x) == 7
    with pytest.raises(TypeError, match="name must be a string"):
        attach_gradient(x**2, 7, x, name=1)
