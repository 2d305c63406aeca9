"""Flattening what users pass and rebuilding its structure."""

from __future__ import annotations

import pytest
from sympy import Array, ImmutableMatrix, Matrix, S, Symbol, symbols

from symgrad import ShapeError, SymgradError, grad, jvp, vjp
from symgrad.shapes import Struct, check_same, flatten_exprs, flatten_symbols

x, y, z, t = symbols("x y z t", real=True)


@pytest.mark.parametrize(
    "value, kind, shape, flat",
    [
        (x, "scalar", (), [x]),
        ([x, y], "tuple", (2,), [x, y]),
        ((x,), "tuple", (1,), [x]),
        (Matrix([[x, y], [z, t]]), "matrix", (2, 2), [x, y, z, t]),
        (ImmutableMatrix([x, y]), "matrix", (2, 1), [x, y]),
        (Array([x, y, z]), "array", (3,), [x, y, z]),
        (Array([[x, y], [z, t]]), "array", (2, 2), [x, y, z, t]),
        (Array([[[x], [y]]]), "array", (1, 2, 1), [x, y]),
    ],
    ids=["scalar", "list", "tuple", "matrix", "column", "array1", "array2", "array3"],
)
def test_flatten_and_rebuild_round_trip(value, kind, shape, flat):
    syms, struct = flatten_symbols(value)
    assert syms == flat
    assert (struct.kind, struct.shape, struct.size) == (kind, shape, len(flat))
    rebuilt = struct.build(syms)
    if kind == "scalar":
        assert rebuilt == value
    elif kind == "tuple":
        assert rebuilt == value and type(rebuilt) is type(value)
    else:
        assert rebuilt.shape == value.shape and list(rebuilt) == list(value)
    exprs, estruct = flatten_exprs(value, "exprs")
    assert exprs == flat and estruct == struct


def test_grad_wrt_array_keeps_its_shape():
    w = Array([[x, y], [z, t]])
    got = grad(x * y + z**2 * t, w)
    assert got.shape == (2, 2)
    assert got == Array([[y, x], [2 * z * t, z**2]])
    got = vjp(Array([[x * y, z]]), [x, z], Array([[1, 2]]))
    assert got == [y, 2]


def test_flatten_exprs_sympifies_numbers():
    exprs, struct = flatten_exprs([1, 2.5, x], "tangents")
    assert exprs == [S(1), S(2.5), x] and struct.kind == "tuple"


def test_describe():
    assert Struct("scalar", ()).describe() == "a scalar"
    assert Struct("tuple", (3,)).describe() == "a sequence of 3"
    assert Struct("matrix", (2, 1)).describe() == "a matrix of shape (2, 1)"


def test_flatten_symbols_errors_name_the_position():
    with pytest.raises(SymgradError, match=r"wrt\[2\] is 2\*x \(Mul\)"):
        flatten_symbols([x, y, 2 * x])
    with pytest.raises(SymgradError, match=r"wrt\[1\] is 1\.5 \(float\)"):
        flatten_symbols(Matrix([[x]]).tolist()[0] + [1.5])
    with pytest.raises(SymgradError, match=r"tangents is the string 'x'"):
        flatten_exprs("x", "tangents")
    with pytest.raises(SymgradError, match=r"exprs\[0\] is None \(NoneType\)"):
        flatten_exprs([None], "exprs")


def test_check_same_sizes_and_shapes():
    m21 = Struct("matrix", (2, 1))
    check_same(m21, Struct("tuple", (2,)), "tangents", "wrt")  # same size, one unshaped
    check_same(m21, Struct("matrix", (2, 1)), "tangents", "wrt")
    with pytest.raises(ShapeError, match=r"tangents is a matrix of shape \(1, 2\)"):
        check_same(m21, Struct("matrix", (1, 2)), "tangents", "wrt")
    with pytest.raises(ShapeError, match="cotangents is a sequence of 3 but exprs is a matrix"):
        check_same(m21, Struct("tuple", (3,)), "cotangents", "exprs")


def test_matrix_wrt_accepts_flat_tangents_of_the_same_size():
    assert jvp(x * y, Matrix([x, y]), [1, 0]) == y


def test_symbol_subclasses_are_symbols():
    d = Symbol("d", positive=True)
    assert flatten_symbols(d)[0] == [d]


def test_describe_arrays_with_an():
    assert Struct("array", (2, 3)).describe() == "an array of shape (2, 3)"
    with pytest.raises(ShapeError, match=r"tangents is an array of shape \(3,\) but wrt is a "
                       r"matrix of shape \(3, 1\)"):
        jvp(x, Matrix([x, y, z]), Array([1, 0, 0]))


def test_non_expressions_get_a_clear_error():
    with pytest.raises(SymgradError, match=r"cotangents\[0\]\[1\] is <object"):
        flatten_exprs([[1, object()]], "cotangents")
    with pytest.raises(SymgradError, match=r"not a SymPy expression$"):
        flatten_exprs([object()], "cotangents")
    with pytest.raises(SymgradError, match=r"wrt\['b'\]\[1\] is 2\*x \(Mul\)"):
        flatten_symbols({"b": [y, 2 * x], "a": x})


def test_rank0_array_round_trip():
    syms, struct = flatten_symbols(Array(x))
    assert syms == [x] and struct == Struct("array", ())
    assert grad(x * y, Array(x)) == Array(y)
