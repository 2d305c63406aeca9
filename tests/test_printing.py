"""symgrad.printing: symgrad's nodes in every printer, and formulas as programs."""

from __future__ import annotations

import pytest
import sympy as sp

import symgrad
from symgrad import identity, relu, sigmoid, softplus, stop_gradient, straight_through

x, y = sp.symbols("x y", real=True)


@symgrad.custom_gradient
def log1p_exp(u):
    e = sp.exp(u)

    def grad_fn(dy):
        return dy * (1 - 1 / (1 + e))

    return sp.log(1 + e), grad_fn


# ---- symgrad's nodes print their names whole ------------------------------------------


@pytest.mark.parametrize(
    "expr, latex, pretty",
    [
        (stop_gradient(x), r"\operatorname{stop\_gradient}{\left(x \right)}",
         "stop_gradient(x)"),
        (straight_through(sp.floor(x), sp.tanh(x)),
         r"\operatorname{straight\_through}{\left(\left\lfloor{x}\right\rfloor, "
         r"\tanh{\left(x \right)} \right)}", "straight_through(⌊x⌋, tanh(x))"),
        (identity(x * y), r"\operatorname{identity}{\left(x y \right)}", "identity(x⋅y)"),
        (sigmoid(x) + softplus(y), r"\operatorname{sigmoid}{\left(x \right)} + "
         r"\operatorname{softplus}{\left(y \right)}", "sigmoid(x) + softplus(y)"),
        (relu(x), r"\operatorname{relu}{\left(x \right)}", "relu(x)"),
        (log1p_exp(x), r"\operatorname{log1p\_exp}{\left(x \right)}", "log1p_exp(x)"),
    ],
)
def test_nodes_print_their_names(expr, latex, pretty):
    assert sp.latex(expr) == latex
    assert sp.pretty(expr, use_unicode=True) == pretty
    assert "_" not in sp.latex(expr).replace(r"\_", "")  # no name read as a subscript


def test_nodes_raised_to_a_power():
    assert sp.latex(stop_gradient(x) ** 2) == r"\operatorname{stop\_gradient}^{2}{\left(x \right)}"
    assert sp.latex(log1p_exp(x * y) ** 3) == r"\operatorname{log1p\_exp}^{3}{\left(x y \right)}"
    assert sp.pretty(log1p_exp(x) ** 2, use_unicode=True).splitlines() == [
        "         2   ",
        "log1p_exp (x)",
    ]
    assert str(log1p_exp(x) ** 2) == "log1p_exp(x)**2"


def test_custom_node_prints_its_inputs_only():
    a = sp.Symbol("a", real=True)

    @symgrad.custom_gradient
    def scaled(u):
        return a * u, lambda dy, variables=None: (dy * a, [dy * u])  # captures a

    n = scaled(x)
    assert str(n) == "scaled(x)"
    assert sp.latex(n) == r"\operatorname{scaled}{\left(x \right)}"
