"""custom_gradient: TensorFlow's interface on symbolic formulas (issue 5)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symgrad import (
    RuleError,
    custom_gradient,
    expand,
    grad,
    gradient_override_map,
    hessian,
    jacobian,
    jvp,
    lambdify,
    vjp,
)

x, y, z = sp.symbols("x y z", real=True)


@custom_gradient
def log1pexp(u):
    e = sp.exp(u)

    def grad_fn(dy):
        return dy * (1 - 1 / (1 + e))

    return sp.log(1 + e), grad_fn


def test_log1pexp_node_prints_expands_and_differentiates():
    n = log1pexp(x * y)
    assert str(n) == "log1pexp(x*y)"
    assert sp.latex(n) == sp.latex(sp.Function("log1pexp")(x * y))
    assert expand(n) == sp.log(1 + sp.exp(x * y))
    gx = grad(n, x)
    assert sp.simplify(gx - y * (1 - 1 / (1 + sp.exp(x * y)))) == 0


def test_log1pexp_numpy_gradient_is_stable():
    g = grad(log1pexp(x), x)
    f = lambdify([x], g)
    assert f(np.float32(100.0)) == np.float32(1.0)
    assert f(np.float32(100.0)).dtype == np.float32
    assert f(np.float64(1000.0)) == 1.0
    # the ordinary gradient, compiled plainly, is NaN there
    ordinary = sp.lambdify([x], sp.diff(sp.log(1 + sp.exp(x)), x), "numpy")
    with np.errstate(all="ignore"):
        assert np.isnan(ordinary(np.float64(1000.0)))
        assert np.isnan(ordinary(np.float32(100.0)))


def test_swapped_partials_are_used():
    @custom_gradient
    def mul(a, b):
        def grad_fn(dy):
            return dy * a, dy * b  # deliberately swapped

        return a * b, grad_fn

    g = grad(mul(x, y), [x, y])
    assert g == [x, y]
    assert tuple(v.subs({x: 3, y: 5}) for v in g) == (3, 5)
    assert jvp(mul(x, y), [x, y], [1, 0]).subs({x: 3, y: 5}) == 3


def test_grad_fn_that_raises_surfaces_from_grad():
    @custom_gradient
    def bad(a):
        def grad_fn(dy):
            raise FloatingPointError("no gradient today")

        return a**2, grad_fn

    e = bad(x) + 1  # building the node does not call grad_fn
    with pytest.raises(FloatingPointError, match="no gradient today"):
        grad(e, x)


def test_captured_matrix_of_parameters():
    W = sp.Matrix(4, 3, lambda i, j: sp.Symbol(f"W_{i}_{j}", real=True))
    used = [W[i, j] for i in range(4) for j in range(3) if (i + j) % 2 == 0]
    seen = {}

    @custom_gradient
    def layer(a):
        out = a * sp.Add(*used)

        def grad_fn(dy, variables=None):
            seen["variables"] = list(variables)
            return dy * 7, [dy * k for k in range(len(variables))]

        return out, grad_fn

    e = layer(x)
    assert str(e) == "layer(x)"
    g = grad(e, [x, *used])
    assert seen["variables"] == used  # exactly those used, row-major
    assert g[0] == 7
    assert list(g[1:]) == list(range(len(used)))
    unused = [W[0, 1], W[3, 2]]
    assert grad(e, unused) == [0, 0]
    gm = grad(e, W)
    assert gm.shape == (4, 3) and gm[0, 2] == 1 and gm[0, 1] == 0


def test_missing_variables_keyword_is_a_type_error():
    w = sp.Symbol("w", real=True)

    @custom_gradient
    def scaled(a):
        def grad_fn(dy):
            return dy * w

        return a * w, grad_fn

    with pytest.raises(TypeError, match="variables"):
        scaled(x)


def test_several_inputs_and_outputs():
    @custom_gradient
    def polar(r, t):
        def grad_fn(dx, dy):
            return dx * sp.cos(t) + dy * sp.sin(t), None

        return (r * sp.cos(t), r * sp.sin(t)), grad_fn

    px, py = polar(x, y)
    assert str(px) == "polar_0(x, y)"
    assert expand(px) == x * sp.cos(y)
    J = jacobian([px, py], [x, y])
    assert J == sp.Matrix([[sp.cos(y), 0], [sp.sin(y), 0]])
    assert vjp([px, py], [x, y], [1, 1]) == [sp.sin(y) + sp.cos(y), 0]
    assert jvp([px, py], [x, y], [1, 1]) == [sp.cos(y), sp.sin(y)]


def test_on_a_method():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @custom_gradient
        def apply(self, a):
            def grad_fn(dy):
                return dy * self.k * 10

            return a * self.k, grad_fn

    s2, s3 = Scaler(2), Scaler(3)
    assert grad(s2.apply(x), x) == 20
    assert grad(s3.apply(x), x) == 30
    assert s2.apply(x) == s2.apply(x)
    assert expand(s3.apply(x)) == 3 * x


def test_composition_multiplies():
    @custom_gradient
    def triple_grad_identity(a):
        return a, lambda dy: 3 * dy

    assert grad(triple_grad_identity(triple_grad_identity(x)), x) == 9
    assert jvp(triple_grad_identity(triple_grad_identity(x)), x, 1) == 9


def test_second_order_is_the_derivative_of_the_gradient_formula():
    @custom_gradient
    def cube(a):
        return a**3, lambda dy: dy * 5 * a**4  # deliberately not 3 a**2

    assert grad(cube(x), x) == 5 * x**4
    assert hessian(cube(x), [x]) == sp.Matrix([[20 * x**3]])
    H = hessian(cube(x) * y, [x, y])
    assert H == H.T and H[0, 1] == 5 * x**4 and H[0, 0] == 20 * x**3 * y
    assert H[1, 1] == 0


def test_nested_custom_gradient_defines_second_order():
    @custom_gradient
    def op(a):
        y_ = sp.sin(a)

        def first_order(dy):
            @custom_gradient
            def first_order_custom(unused_a):
                def second_order(ddy):
                    return ddy * 100  # the chosen second derivative

                return sp.cos(unused_a), second_order

            return dy * first_order_custom(a)

        return y_, first_order

    g = grad(op(x), x)
    assert expand(g) == sp.cos(x)
    assert grad(g, x) == 100
    assert hessian(op(x), [x]) == sp.Matrix([[100]])


def test_forward_mode_through_custom_node():
    assert sp.simplify(jvp(log1pexp(x**2), x, 1) - 2 * x * (1 - 1 / (1 + sp.exp(x**2)))) == 0


def test_map_can_override_a_custom_function_by_name():
    with gradient_override_map({"log1pexp": "Zero"}):
        assert grad(log1pexp(x), x) == 0


def test_wrong_returns():
    @custom_gradient
    def no_grad_fn(a):
        return a

    with pytest.raises(Exception, match=r"\(outputs, grad_fn\)"):
        no_grad_fn(x)

    @custom_gradient
    def two_for_one(a):
        return a, lambda dy: (dy, dy)

    with pytest.raises(Exception, match="2 cotangents for 1 inputs"):
        grad(two_for_one(x), x)


def test_matrix_input():
    @custom_gradient
    def total(m):
        def grad_fn(dy):
            return sp.Matrix(2, 2, [dy] * 4)

        return m[0, 0] + m[0, 1] * m[1, 0] + m[1, 1], grad_fn

    M = sp.Matrix(2, 2, [x, y, z, x * z])
    assert grad(total(M), [x, y, z]) == [1 + z, 1, 1 + x]


def test_several_matrix_outputs():
    # (P*Q, P + Q): a tuple of two 2x2 outputs; grad_fn gets one 2x2 dy each
    a, b, c, d, e, f, g, h = sp.symbols("a b c d e f g h", real=True)
    P, Q = sp.Matrix([[a, b], [c, d]]), sp.Matrix([[e, f], [g, h]])
    seen = []

    @custom_gradient
    def prod_and_sum(p, q):
        def grad_fn(d_prod, d_sum):
            seen.append((d_prod.shape, d_sum.shape))
            return d_prod * q.T + d_sum, p.T * d_prod + d_sum

        return (p * q, p + q), grad_fn

    prod, total = prod_and_sum(P, Q)
    assert prod.shape == total.shape == (2, 2)
    assert expand(prod) == P * Q and expand(total) == P + Q
    out = prod[0, 1] + 3 * total[1, 0]
    true = (P * Q)[0, 1] + 3 * (P + Q)[1, 0]
    assert grad(out, P) == grad(true, P) and grad(out, Q) == grad(true, Q)
    assert seen and all(s == ((2, 2), (2, 2)) for s in seen)
    assert jvp(out, [a, g], [1, 2]) == jvp(true, [a, g], [1, 2])


# ---- grad_fn is called once, with the cotangents of all outputs (issue 8 §2) ----


def test_custom_gradient_with_variables_eager_tf_sums():
    # TensorFlow's testCustomGradientWithVariablesEager: a dense layer (3x2 by
    # 2x4) whose Grad returns ones; TF calls Grad once: sum(dx) 6, sum(dw) 8.
    X = sp.Matrix(3, 2, lambda i, j: sp.Symbol(f"x_{i}_{j}", real=True))
    W = sp.Matrix(2, 4, lambda i, j: sp.Symbol(f"w_{i}_{j}", real=True))
    calls = []

    @custom_gradient
    def F(a):
        out = a * W

        def Grad(out_grad, variables=None):
            calls.append(out_grad.shape)
            return sp.ones(3, 2), [sp.ones(2, 4)]

        return out, Grad

    y = F(X)
    total = sp.Add(*y)  # tape.gradient of a tensor sums it
    g = grad(total, [*X, *W])  # one gradient computation: one call, as in TF
    dx, dw = g[:6], g[6:]
    assert sum(dx) == 6 and sum(dw) == 8
    assert calls == [(3, 4)]


def test_grad_fn_clipping_by_norm_sees_all_cotangents_in_reverse_mode():
    # clip the cotangent vector of both outputs by its norm, as TF would
    # (one call, all grad_ys): the answer is not the sum of one-hot calls.
    @custom_gradient
    def pair(a):
        def grad_fn(d0, d1):
            norm = sp.sqrt(d0**2 + d1**2)
            scale = sp.Min(1, 1 / norm)
            return (d0 + d1) * scale

        return (a, a), grad_fn

    p0, p1 = pair(x)
    g = grad(3 * p0 + 4 * p1, x)  # cotangents (3, 4), norm 5: (3 + 4)/5
    assert g == sp.Rational(7, 5)
    assert grad(3 * p0, x) == 1  # (3 + 0) clipped to norm 1
    assert vjp([p0, p1], x, [sp.Rational(1, 2), 0]) == sp.Rational(1, 2)


def test_matrix_output_grad_fn_called_once_with_the_whole_cotangent():
    calls = []

    @custom_gradient
    def outer(a, b):
        def grad_fn(dm):
            calls.append(dm)
            return dm[0, 0] * b + dm[0, 1], dm[1, 0] * a + dm[1, 1]

        return sp.Matrix([[a * b, a], [a * b, b]]), grad_fn

    m = outer(x, y)
    g = grad(m[0, 0] + 2 * m[0, 1] + 5 * m[1, 1], [x, y])
    assert g == [y + 2, 5]
    assert len(calls) == 1 and calls[0].shape == (2, 2)


def test_outputs_absent_from_the_formula_get_zero_cotangent():
    @custom_gradient
    def three(a):
        def grad_fn(d0, d1, d2):
            return d0 + 10 * d1 + 100 * d2

        return (a, 2 * a, 3 * a), grad_fn

    t0, t1, t2 = three(x)
    assert grad(t1, x) == 10
    assert grad(t0 + t2, x) == 101
    assert grad(t0 * t2, x) == 100 * t0 + t2  # product rule through both members


# ---- a grad_fn that is not linear in dy is refused in forward mode (issue 8 §2) ----


def test_clipping_grad_fn_jvp_is_refused_not_3_while_grad_is_1():
    @custom_gradient
    def clip_gradient(a):
        return a, lambda dy: sp.Max(sp.Min(dy, 1), -1)

    e = 3 * clip_gradient(x)
    assert grad(e, x) == 1  # reverse mode: TF's answer
    with pytest.raises(RuleError, match=r"grad_fn of custom_gradient 'clip_gradient' is not lin"):
        jvp(e, x, 1)


def test_nonlinear_grad_fns_refused_in_forward_mode_linear_ones_kept():
    @custom_gradient
    def by_norm(a, b):  # clip by norm: only a numeric point shows it
        def grad_fn(dy):
            s = sp.Min(1, 1 / sp.sqrt(dy**2))
            return dy * s * b, dy * s * a

        return a * b, grad_fn

    @custom_gradient
    def constant(a):  # TF's testCustomGradientWithVariablesEager ignores dy
        return 2 * a, lambda dy: sp.Integer(1)

    @custom_gradient
    def linear_but_not_as_written(a):  # |dy|*sign(dy) is dy: linear, shown at points
        return a, lambda dy: sp.Abs(dy) * sp.sign(dy) * (1 + a**2)

    for f, args in [(by_norm, (x, y)), (constant, (x,))]:
        with pytest.raises(RuleError, match="not linear in its cotangents"):
            jvp(f(*args), x, 1)
    assert sp.expand(jvp(linear_but_not_as_written(x), x, 2)) == 2 + 2 * x**2
    with pytest.raises(RuleError, match="forward mode"):
        hessian(by_norm(x, y) * x, [x])


# ---- the body runs at every call; traces are shared only when equal (issue 8 §2) ----


def test_body_reading_state_sees_each_calls_value():
    state = {"k": 2}

    @custom_gradient
    def scaled(a):
        k = state["k"]
        return k * a, lambda dy: dy * k

    first = scaled(x)
    state["k"] = 3
    second = scaled(x)
    assert expand(first) == 2 * x and expand(second) == 3 * x
    assert grad(first, x) == 2 and grad(second, x) == 3
    assert first != second
    state["k"] = 2
    assert scaled(x) == first  # equal traces share one node type


def test_grad_fn_bound_at_call_time_is_part_of_the_trace():
    state = {"k": 1}

    @custom_gradient
    def ste(a):
        k = state["k"]
        return sp.floor(a), lambda dy: k * dy  # the value does not depend on k

    one = ste(x)
    state["k"] = 5
    five = ste(x)
    assert grad(one, x) == 1 and grad(five, x) == 5
    assert ste(x) == five and ste(y) != five


def test_tracing_per_call_keeps_equal_calls_equal():
    assert log1pexp(x) == log1pexp(x)
    assert log1pexp(x) - log1pexp(x) == 0
    assert type(log1pexp(x)) is type(log1pexp(y))


# ---- TensorFlow's nested patterns, written as TensorFlow writes them (issue 8 §5) ----


def _fused_op(a):
    return sp.sin(a), sp.cos(a)


def _op_with_fused_backprop(with_gradient_wrt_dy: bool):
    """TF's documented pattern, verbatim but for concrete ops and for the
    innermost rule's return, with or without TF's gradient_wrt_dy."""

    @custom_gradient
    def op_with_fused_backprop(x):
        y, x_grad = _fused_op(x)

        def first_order_gradient(dy):
            @custom_gradient
            def first_order_custom(unused_x):
                def second_order_and_transpose(ddy):
                    second_order_for_x = -100 * sp.sin(x) * ddy
                    if with_gradient_wrt_dy:
                        return second_order_for_x, x_grad * ddy
                    return second_order_for_x

                return x_grad, second_order_and_transpose

            return dy * first_order_custom(x)

        return y, first_order_gradient

    return op_with_fused_backprop


def test_op_with_fused_backprop_as_tf_documents_it_names_what_to_return():
    # was a TypeError naming the internal placeholder _op_with_fused_backprop0_0
    # and suggesting variables=
    g = grad(_op_with_fused_backprop(True)(z), z)
    assert expand(g) == sp.cos(z)  # the first order works as in TF
    with pytest.raises(RuleError, match=r"2 cotangents for 1 input.*gradient_wrt_dy") as info:
        grad(g, z)
    assert "_op_with_fused_backprop" not in str(info.value)


def test_op_with_fused_backprop_one_cotangent_per_input_gives_the_chosen_second_order():
    op = _op_with_fused_backprop(False)
    g = grad(op(z), z)
    assert expand(g) == sp.cos(z)
    assert grad(g, z) == -100 * sp.sin(z)
    assert hessian(op(z), [z]) == sp.Matrix([[-100 * sp.sin(z)]])


def test_grad_fn_itself_decorated_is_the_gradient_wrt_dy_as_tf_defines_it():
    # TF: grad_grad_fn "will be calculating the first order gradient of grad_fn
    # with respect to dy ... not the second order gradient of op w.r.t. x"
    @custom_gradient
    def op(x):
        y_ = sp.sin(x)

        @custom_gradient
        def grad_fn(dy):
            gdy = dy * sp.cos(x)

            def grad_grad_fn(ddy):
                return ddy * 7  # d(grad_fn)/d(dy), chosen

            return gdy, grad_grad_fn

        return y_, grad_fn

    w = sp.Symbol("w", real=True)
    g = grad(op(x) * w, x)  # the cotangent dy is w
    assert expand(g) == w * sp.cos(x)
    assert grad(g, w) == 7  # through grad_grad_fn, with respect to dy
    assert grad(g, x) == 0  # x is captured by grad_fn: no gradient, as in TF
