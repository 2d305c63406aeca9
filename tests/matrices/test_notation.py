"""Under symgrad.matrix_notation, matrix formulas print as matrix formulas
in str, pretty and latex: ⊙, 𝟙, Aᵀ, softmax(z), a function applied entry
by entry as the function; never SymPy's internals (HadamardProduct(...),
Lambda(...), 1 for 𝟙).  Without it, SymPy prints them as it does: importing
symgrad changes no printer of SymPy's."""

from __future__ import annotations

import pytest
from sympy import MatrixSymbol, OneMatrix, hadamard_product, latex, pretty, tanh

import symgrad


@pytest.fixture(autouse=True)
def notation(request):
    if "plain" in request.node.name:
        yield
        return
    with symgrad.matrix_notation():
        yield

n = 4
X, Y = MatrixSymbol("X", n, 3), MatrixSymbol("Y", n, 2)
W1, b1 = MatrixSymbol("W1", 3, 5), MatrixSymbol("b1", 1, 5)
W2, b2 = MatrixSymbol("W2", 5, 2), MatrixSymbol("b2", 1, 2)


def _mlp_grads():
    H = symgrad.elementwise(tanh, X * W1 + OneMatrix(n, 1) * b1)
    Z = H * W2 + OneMatrix(n, 1) * b2
    loss = symgrad.mean(symgrad.logsumexp(Z, axis=1)) - symgrad.sum(hadamard_product(Y, Z)) / n
    return symgrad.grad(loss, [W1, b1, W2, b2])


def test_mlp_backprop_prints_as_matrix_formulas_in_every_printer():
    g1 = _mlp_grads()[0]
    assert str(g1) == ("(1/4)*X.T*(((-Y + softmax(tanh(X*W1 + 𝟙*b1)*W2 + 𝟙*b2, axis=1))*W2.T)"
                       " ⊙ (_w ↦ 1 - _w**2)(tanh(X*W1 + 𝟙*b1)))")
    u = pretty(g1, use_unicode=True)
    assert "⊙" in u and "tanh(X⋅W₁ + 𝟙⋅b₁)" in u and "softmax(" in u
    tex = latex(g1)
    assert r"\odot" in tex and r"\tanh\left(X W_{1} + \mathbb{1} b_{1}\right)" in tex
    for text in (str(g1), u, tex):
        assert "Lambda" not in text and "Hadamard" not in text and "circ" not in text


@pytest.mark.parametrize("printer", [str, lambda e: pretty(e, use_unicode=True), latex])
def test_sympy_spellings_print_the_same_way(printer):
    # X.applyfunc, hadamard_product and OneMatrix are SymPy's own nodes
    assert printer(X.applyfunc(tanh)) == printer(symgrad.elementwise(tanh, X))
    assert printer(OneMatrix(n, 1) * b1) in ("𝟙*b1", "𝟙⋅b₁", r"\mathbb{1} b_{1}")


def test_least_squares_and_softmax_gradients():
    A, x, b = MatrixSymbol("A", 3, 2), MatrixSymbol("x", 2, 1), MatrixSymbol("b", 3, 1)
    g = symgrad.grad(symgrad.norm(A * x - b) ** 2, x)
    assert (str(g), latex(g)) == ("2*A.T*(A*x - b)", r"2 A^{T} \left(A x - b\right)")
    assert pretty(g, use_unicode=True).splitlines()[0].strip() == "T"  # Aᵀ as a superscript
    z, y = MatrixSymbol("z", 3, 1), MatrixSymbol("y", 3, 1)
    g = symgrad.grad(symgrad.logsumexp(z) - (y.T * z)[0, 0], z)
    assert str(g) == "-y + softmax(z)" and r"\operatorname{softmax}\left(z\right)" in latex(g)
    assert str(symgrad.elementwise(symgrad.sigmoid, X)) == "sigmoid(X)"
    assert latex(symgrad.elementwise(symgrad.sigmoid, X)) == r"\operatorname{sigmoid}\left(X\right)"


def test_plain_sympy_printing_after_import_and_after_the_block():
    # symgrad is imported: SymPy's printers hold SymPy's own methods (no test
    # leaves the notation on), inside the block the Cookbook's, after it
    # SymPy's again; matrix_notation() and matrix_notation(False) likewise
    from symgrad.matrices import notation

    def plain():
        return all(cls.__dict__.get(f"_print_{name}", notation._MISSING) is own
                   for (cls, name), own in notation._SYMPY.items())

    e = hadamard_product(OneMatrix(3, 1) * b1, MatrixSymbol("c", 3, 5))
    assert plain()
    before = (str(e), pretty(e), latex(e))
    assert "⊙" not in before[0]
    with symgrad.matrix_notation():
        assert str(e) == "(𝟙*b1) ⊙ c" and not plain()
    assert plain() and (str(e), pretty(e), latex(e)) == before
    try:
        symgrad.matrix_notation()
        assert str(e) == "(𝟙*b1) ⊙ c"
    finally:
        symgrad.matrix_notation(False)
    assert plain() and (str(e), pretty(e), latex(e)) == before


def test_plain_program_uses_the_notation_without_it():
    text = str(symgrad.program(_mlp_grads()))
    assert "⊙" in text and "𝟙" in text and "Lambda" not in text
