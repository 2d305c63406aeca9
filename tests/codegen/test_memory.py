"""Memory of generated code: a temporary dies after its last use, and a
block holds at most what the program's widest point needs (issue 9 §3: the
gradient of a 10^4-deep tanh chain on 10^5 points took 5.3 GB)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import sympy as sp

from symgrad import grad, lambdify
from symgrad.codegen import naming, source
from symgrad.codegen.build import _compile

x, w = sp.symbols("x w", real=True)


def _tanh_chain(depth):
    e = x
    for _ in range(depth):
        e = sp.tanh(w * e + x)
    return e


def _peak(fn, *args):
    tracemalloc.start()
    try:
        out = fn(*args)
        return tracemalloc.get_traced_memory()[1], out
    finally:
        tracemalloc.stop()


def test_a_long_narrow_program_keeps_a_few_arrays_alive():
    chain = x
    for k in range(400):  # (SymPy's evaluation recurses over a deep formula)
        chain = sp.sin(sp.Add(chain, k, evaluate=False), evaluate=False)
    prog = _compile([x], chain)[2]
    assert len(prog.statements) >= 200 and prog.max_live <= 3
    assert {st.name for st in prog.statements} == {"t0"}
    # each block's temporaries die line by line: 3 blocks' arrays at most,
    # besides the argument's copy and the output
    f = lambdify(x, chain, threads=1, block=1000)
    f.source  # noqa: B018  (the kernel in place written first: the peak is the call's)
    xs = np.linspace(0, 1, 5000)
    peak, out = _peak(f, xs)
    assert peak < 2 * xs.nbytes + 6 * 1000 * 8
    ref = xs
    for k in range(400):
        ref = np.sin(ref + k)
    np.testing.assert_array_equal(out, ref)


def _names(src):
    return len({ln.split(" = ")[0].strip() for ln in src.splitlines() if " = " in ln})


def test_reusing_names_changes_no_bit(monkeypatch):
    g = grad(_tanh_chain(60), [x, w])
    xs = np.linspace(-2, 2, 3001)
    f = lambdify([x, w], g, threads=1, block=1000)
    monkeypatch.setattr(naming, "REUSE_AFTER", 10**9)
    fresh = lambdify([x, w], g, threads=1, block=1000)
    assert _names(fresh.source) > _names(f.source)
    for a, b in zip(f(xs, 0.7), fresh(xs, 0.7)):
        np.testing.assert_array_equal(a, b)


def test_a_wide_program_runs_in_shorter_blocks(monkeypatch):
    # a reverse-mode gradient keeps every forward value until the backward
    # pass reads it: its width grows with its depth, so the block shrinks
    monkeypatch.setattr(source, "LIVE_BYTES", 2**20)
    g = grad(_tanh_chain(60), [x, w])
    f = lambdify([x, w], g, threads=1)
    prog = _compile([x, w], g)[2]
    assert prog.max_live > 100
    xs = np.linspace(-2, 2, 10_000)  # in one block: 10 MB
    peak, out = _peak(f, xs, 0.5)
    outputs = 2 * xs.nbytes
    assert peak < 2 * 2**20 + outputs + xs.nbytes
    ref = lambdify([x, w], g, threads=1, block=None)(xs, 0.5)
    for a, b in zip(out, ref):
        np.testing.assert_array_equal(a, b)


def test_a_long_sum_folds_in_order_and_frees_its_terms():
    # a sum of many terms is folded through temporaries (Python's compiler
    # recurses per operand); the fold adds in the order of one long line
    terms = [sp.sin(sp.Add(x, k, evaluate=False), evaluate=False) * w for k in range(450)]
    e = sp.Add(*terms, evaluate=False)
    prog = _compile([x, w], e)[2]
    assert prog.max_live <= 3
    xs = np.linspace(-1, 1, 101)
    ref = np.sin(xs + 0) * 0.5
    for k in range(1, 450):
        ref = ref + np.sin(xs + k) * 0.5
    np.testing.assert_array_equal(lambdify([x, w], e)(xs, 0.5), ref)
