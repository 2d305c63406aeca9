"""The array kernel written in place (issue 20 §6: fewer temporaries): each
ufunc call writes into an operand's array nothing reads afterwards, and the
results of a block go straight into the outputs.  It must give the floats
of the kernel that allocates (f_block), bitwise, on every program it is
made for; a line that wrote into an array read later would not."""

from __future__ import annotations

import ast
import random

import numpy as np
import pytest
import sympy as sp

from symgrad import grad, lambdify
from symgrad.codegen import naming
from symgrad.codegen.inplace import in_place
from symgrad.codegen.printer import NoNumpyFormError, unparse

from ..test_differential_fuzz import X
from .test_point import _random_tree

x, y = sp.symbols("x y", real=True)


def _kernels(fn):
    fn.source  # noqa: B018  (writes the kernels written when first needed: compiled._Later)
    names = fn.__wrapped__.__globals__
    return names.get("f_inplace"), names["f_block"]


def _points(rng, n, dtype):
    return [np.asarray(rng.uniform(-2.0, 2.0, n), dtype) for _ in X]


@pytest.mark.parametrize("reuse", [False, True])
def test_random_programs_give_the_floats_of_the_kernel_that_allocates(reuse, monkeypatch):
    # gradients of random trees over every rule-table entry (several outputs),
    # on arrays of both float types: f_inplace against f_block, and the entry
    # point in blocks (results written into the outputs) against f_block on
    # the whole; with ``reuse``, temporaries reuse the names of dead ones
    # from the fifth line on (as programs of over naming.REUSE_AFTER lines do)
    if reuse:
        monkeypatch.setattr(naming, "REUSE_AFTER", 4)
    rng = random.Random(5 + reuse)
    nrng = np.random.default_rng(5)
    made = 0
    for _ in range(5):  # (6 until 2026-11-27: offsets test_emit's joint-outputs test)
        e = sum(_random_tree(rng, 3) for _ in range(3))
        try:
            fn = lambdify(list(X), grad(e, list(X)), block=7)
        except NoNumpyFormError:
            continue
        ip, block = _kernels(fn)
        if ip is None:
            continue
        made += 1
        outs, scratch = ip.__defaults__[0], (ip.__defaults__ + ((),))[1]
        for dtype in (np.float64, np.float32):
            pts = _points(nrng, 23, dtype)
            with np.errstate(all="ignore"):
                want = block(*pts)
                got = ip(*pts)
                whole = fn(*pts)  # blocks of 7 (float32: 14), in place, and a shorter one
                # scratch arrays holding NaN, and used again by another call:
                # the values are the same, and no result is a scratch array
                b = (outs, tuple(np.full(23, np.nan, dtype) for _ in scratch))[:1 + bool(scratch)]
                kept = [np.array(v, copy=True) for v in ip(*pts, *b)]
                ip(*_points(nrng, 23, dtype), *b)
            for w, g, b, k in zip(want, got, whole, kept):
                np.testing.assert_array_equal(g, w, err_msg=f"{e} in {dtype}")
                np.testing.assert_array_equal(k, w, err_msg=f"{e} in {dtype}, scratch")
                assert np.asarray(g).dtype == np.asarray(w).dtype
                # (the outputs are arrays of the arguments' type)
                w = np.broadcast_to(np.asarray(w).astype(b.dtype), b.shape)
                np.testing.assert_array_equal(b, w, err_msg=f"{e} in blocks, {dtype}")
    assert made >= 4  # (the in-place kernel was made, and compared, that often)


def test_a_temporary_read_later_is_not_written():
    # t = x*y is read by both outputs, the second time after the first
    # output's line: a line writing into t's array would change the second
    t = x * y
    exprs = [sp.sin(t) + t, sp.cos(t) * t, sp.exp(-t) - t**2]
    fn = lambdify([x, y], exprs)
    ip, block = _kernels(fn)
    assert ip is not None
    a, b = np.linspace(-1, 1, 9), np.linspace(2, 3, 9)
    for g, w in zip(ip(a, b), block(a, b)):
        np.testing.assert_array_equal(g, w)
    # arguments are never written
    a0, b0 = a.copy(), b.copy()
    fn(a, b)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


def test_liveness_of_reused_names():
    # t0 is assigned twice: its first value dies at line 1, its second is a
    # result; only the first may be written into
    codes = ["_np_sin(x)", "_mul(t0, y)", "_np_cos(t1)", "_add(t0, t1)"]
    # (the first value's array, which no result is, a scratch array)
    out, results, direct, scratch = in_place(["t0", "t1", "t0", "t2"], codes, ["t0", "t2"],
                                             {"x", "y"}, iter(["w0", "w1"]))
    assert out == ["_np_sin(x, _b[0])", "_mul(t0, y, t0)", "_np_cos(t1, _o[0])",
                   "_add(t0, t1, _o[1])"]
    assert direct == [True, True] and scratch == 1
    # the output array is passed by position (cheaper), but by keyword to
    # np.maximum and np.minimum, where NumPy deprecates a positional one
    out, _, _, _ = in_place(["t0", "t1"], ["_np_maximum(_np_sin(x), y)", "_np_minimum(t0, x)"],
                            ["t1"], {"x", "y"}, iter(["w0"]))
    assert out == ["_np_maximum((w0 := _np_sin(x, _b[0])), y, out=w0)",
                   "_np_minimum(t0, x, out=_o[0])"]


def test_scratch_arrays_hold_no_result_and_no_value_still_read():
    # cos(y)'s array dies at line 2 (t1's last read), so exp(y) at line 3
    # takes its scratch array; sin(y)'s, still read (as t2) by line 4, not
    out, _, _, scratch = in_place(
        ["t0", "t1", "t2", "t3", "t4"],
        ["_np_sin(x)", "_np_cos(y)", "_mul(t0, t1)", "_np_exp(y)", "_add(t2, t3)"],
        ["t4"], {"x", "y"}, iter(["w0"]))
    assert out == ["_np_sin(x, _b[0])", "_np_cos(y, _b[1])", "_mul(t0, t1, t0)",
                   "_np_exp(y, _b[1])", "_add(t2, t3, _o[0])"]
    assert scratch == 2
    # no scratch array for what a result may be: tanh(x)'s array, of which
    # np.real's value (t4, a result) may be a view; sin(x)'s, which t5 (read
    # by a result) is written into
    codes = ["_np_sin(x)", "_np_cos(y)", "_add(t1, x)", "_mul(t2, _np_exp(y))",
             "np.real(_np_tanh(x))", "_add(t0, _np_exp(t4))"]
    out, _, _, scratch = in_place(["t0", "t1", "t2", "t3", "t4", "t5"], codes,
                                  ["t3", "_add(t3, t5)", "t4"], {"x", "y"}, iter(["w0"]))
    assert out == ["_np_sin(x)", "_np_cos(y, _b[0])", "_add(t1, x, t1)",
                   "_mul(t2, _np_exp(y, _b[1]), _o[0])", "np.real(_np_tanh(x))",
                   "_add(t0, _np_exp(t4))"]
    assert scratch == 2


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_ufunc_gives_the_same_floats_in_place(dtype):
    # NumPy picks its loop (SIMD or not) by the arrays' layout; written into
    # its own operand's array, every ufunc the kernel may call gives the
    # floats it gives into a new array
    rng = np.random.default_rng(0)
    vals = np.concatenate([rng.standard_normal(600), rng.uniform(-800, 800, 200),
                           [0.0, -0.0, 1e-310, 1e300, np.inf, -np.inf, np.nan, 0.5, 1.0]])
    with np.errstate(all="ignore"):
        a = vals.astype(dtype)
    b = np.roll(a, 7)
    code = np.dtype(dtype).char
    ufuncs = [getattr(np, n) for n in sorted(dir(np)) if isinstance(getattr(np, n), np.ufunc)]
    checked = 0
    with np.errstate(all="ignore"):
        for u in ufuncs:
            loops = [t.replace("->", "") for t in u.types]
            if u.nout != 1 or u.signature is not None or code * (u.nin + 1) not in loops:
                continue
            ops = (a, b)[: u.nin]
            want = u(*ops)
            for k in range(u.nin):
                bufs = [o.copy() for o in ops]
                got = u(*bufs, out=bufs[k])
                np.testing.assert_array_equal(got, want, err_msg=f"{u.__name__} into operand {k}")
            checked += 1
    assert checked > 40


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_layout_of_the_entry_gives_the_kernels_floats(dtype):
    # blocks on worker threads, a vector argument, a Matrix with a result
    # twice and an argument as a result, a scalar broadcast beside an array:
    # the floats of f_block on the whole arrays
    f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + 1) * sp.tanh(x - y)
    g = grad(f, [x, y])
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((3, 300)).astype(dtype) for _ in range(2))
    fn = lambdify([x, y], g, block=100, threads=2)
    kernel = _kernels(fn)[1]
    want = [np.asarray(v).reshape(a.shape) for v in kernel(a.ravel(), b.ravel())]
    for got in (fn(a, b), lambdify([[x, y]], g, block=100)(np.stack([a, b]))):
        for w, v in zip(want, got):
            np.testing.assert_array_equal(v, w)
    m = lambdify([x, y], sp.Matrix([[g[0], x], [g[0], g[1]]]), block=100)(a, b)
    for v, w in zip(m.reshape(4, *a.shape), [want[0], a, want[0], want[1]]):
        np.testing.assert_array_equal(v, w)
    half = [np.asarray(v).reshape(a.shape) for v in kernel(a.ravel(), np.full(a.size, 0.5, dtype))]
    for v, w in zip(fn(a, dtype(0.5)), half):
        np.testing.assert_array_equal(v, w)


def test_the_kernels_printer_writes_what_ast_unparse_writes():
    # printer.unparse (ast.unparse for the kernel's lines, written for speed)
    # on every line of the kernels of random rule-table programs
    rng = random.Random(8)
    lines = 0
    for _ in range(12):
        e = _random_tree(rng, 3)
        try:
            fn = lambdify(list(X), [e, grad(e, X[0])])
        except NoNumpyFormError:
            continue
        for line in fn.source.splitlines():
            head, sep, code = line.strip().partition(" = ")
            if not sep or not head.isidentifier() or not head.startswith("t"):
                continue
            tree = ast.parse(code, mode="eval").body
            assert unparse(tree) == ast.unparse(tree), code
            lines += 1
    assert lines > 100


def test_unparse_writes_operators_and_their_parentheses_as_ast_unparse_does():
    # printer.unparse writes + - * / ** and unary minus itself (the kernel
    # for NumPy scalars keeps operators), with ast.unparse's parentheses;
    # any other node inside an operator sends the whole line to ast.unparse
    rng = random.Random(2)
    atoms = ["x", "y", "1", "2.5", "1e-300", "_k[0]", "_f(x, y)", "np.pi", "(w := x)",
             "np.sin(x)", "(x < y)", "(x if y else z)", "x.real"]

    def gen(d):
        if d == 0 or rng.random() < 0.2:
            return rng.choice(atoms)
        r = rng.random()
        if r < 0.15:
            return "-" + gen(d - 1)
        if r < 0.25:
            return "(" + gen(d - 1) + ")"
        if r < 0.32:
            return "_g(" + gen(d - 1) + ", " + gen(d - 1) + ")"
        return gen(d - 1) + rng.choice([" + ", " - ", " * ", " / ", " ** ", " % "]) + gen(d - 1)

    for _ in range(300):
        tree = ast.parse(gen(4), mode="eval").body
        assert unparse(tree) == ast.unparse(tree)


def test_one_block_of_one_type_takes_the_shortest_path():
    # 1-D arrays of one float type and length, up to the block's length, go
    # straight to the kernel (in place from INPLACE_FROM elements): its floats,
    # the arguments' type; a program that may not keep the type (scipy's expn
    # computes float64 for float32) has its results converted
    fn = lambdify([x, y], [sp.sin(x) * sp.exp(x * y), sp.tanh(x - y) * y], block=1000)
    ip, block = _kernels(fn)
    # (float32 blocks hold twice the elements: the same bytes, source.block_len)
    assert ip is not None and "_shape[0] <= (2000 if _dtype is _D32 else 1000)" in fn.source
    for dtype in (np.float64, np.float32):
        for n in (300, 1000, 2000):
            a, b = np.linspace(-1, 2, n, dtype=dtype), np.linspace(3, -1, n, dtype=dtype)
            for g, w in zip(fn(a, b), block(a, b)):
                assert g.dtype == dtype
                np.testing.assert_array_equal(g, w)
    other = lambdify([x, y], [sp.expint(2, x) * y, x * y + y])
    a = np.linspace(0.5, 2, 300, dtype=np.float32)
    assert [v.dtype for v in other(a, a)] == [np.float32, np.float32]


def test_a_call_of_blocks_writes_aligned_arrays_with_the_same_floats():
    # a call of several blocks of the kernel written in place writes into
    # outputs and scratch arrays that start at a multiple of 64 bytes
    # (runtime._outs, _take); a call of one block (a program of new arrays)
    # returns the arrays the kernel writes: the floats of the kernel that
    # allocates either way, whichever way the arguments are aligned (a view
    # one element in)
    exprs = [sp.sin(x) * sp.exp(x * y) + sp.sqrt(x**2 + y**2), sp.tanh(x - y) * y / (1 + x**2)]
    blocks, one = lambdify([x, y], exprs, block=1000), lambdify([x, y], exprs)
    _, block = _kernels(one)
    for dtype in (np.float64, np.float32):
        a = np.linspace(-3, 2, 4100, dtype=dtype)
        b = np.linspace(2, -1, 4100, dtype=dtype)
        for u, v in ((a, b), (a[1:], b[:-1])):
            want = block(u, v)
            for fn in (blocks, one):
                got = fn(u, v)
                for g, w in zip(got, want):
                    assert g.dtype == dtype and g.flags.c_contiguous
                    np.testing.assert_array_equal(g, w)
            assert [g.ctypes.data % 64 for g in blocks(u, v)] == [0, 0]
