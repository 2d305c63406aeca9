"""Generated functions pickle (as their source, compiled again on loading),
so they run under multiprocessing, concurrent.futures and dask; the
kernels besides the array kernel are written when first called."""

from __future__ import annotations

import inspect
import linecache
import multiprocessing as mp
import pickle
import threading
import warnings
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import sympy as sp

import symgrad
from symgrad import lambdify

x, y = sp.symbols("x y", real=True)
F = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.erf(x)
# (every kernel: one point, NumPy scalars, short batches, in place)
G = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)
LATER = ("f_scalar", "f_point", "f_rows", "f_inplace", "f_into")


def _text(fn):
    """The module's text so far (what tracebacks and ``inspect`` read)."""
    return "".join(linecache.getlines(fn.__wrapped__.__code__.co_filename))


def _inputs():
    rng = np.random.default_rng(7)
    return [(0.5, 2.0), (800.0, 2.0), (np.float64(0.5), np.float64(-2.0)),
            (np.float32(0.5), np.float32(2.0)), (rng.standard_normal(5), 2.0),
            *((rng.standard_normal(n).astype(t), rng.standard_normal(n).astype(t))
              for n in (5, 300, 3000, 5000) for t in (np.float64, np.float32))]


def _same(got, want):
    for a, b in zip(got, want):
        assert type(a) is type(b) and np.asarray(a).dtype == np.asarray(b).dtype
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()


def test_kernels_are_written_when_first_needed_with_the_same_floats():
    # lambdify writes the array kernel and the entry point; the kernels for
    # one point, NumPy scalars, short batches and in place on their first
    # call (compiled._Later); ``source`` writes those not written yet: a
    # function written whole first gives the same bytes on every input
    e = symgrad.grad(G, [x, y])
    lazy, whole = lambdify([x, y], e, block=1000), lambdify([x, y], e, block=1000)
    assert "def f_block(" in _text(lazy) and not any(f"def {n}(" in _text(lazy) for n in LATER)
    assert all(f"def {n}(" in whole.source for n in LATER)
    lazy(np.linspace(-1, 1, 7), 2.0)  # (float64 arrays of 7: f_rows only)
    assert "def f_rows(" in _text(lazy) and "def f_point(" not in _text(lazy)
    with warnings.catch_warnings():  # (NumPy's error state as it is: f_point runs)
        warnings.simplefilter("ignore")
        for args in _inputs():
            _same(lazy(*args), whole(*args))
    text = _text(lazy)
    assert all(text.count(f"def {n}(") == 1 for n in LATER)
    assert lazy.source == text and text.index("def f(") < text.index("def f_point(")
    names = lazy.__wrapped__.__globals__
    assert inspect.getsource(names["f_into"]).startswith("def f_into(x, y, _o):")


def test_kernels_first_needed_on_many_threads_are_written_once():
    e = symgrad.grad(G, [x, y])
    fn, whole = lambdify([x, y], e, threads=2, block=1000), lambdify([x, y], e)
    whole.source  # noqa: B018
    calls = _inputs() * 3
    start = threading.Barrier(6, timeout=60)  # (the first six calls at once)

    def call(i):
        if i < 6:
            start.wait()
        return fn(*calls[i])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ThreadPoolExecutor(6) as pool:
            outs = list(pool.map(call, range(len(calls))))
        for args, got in zip(calls, outs):
            _same(got, whole(*args))
    assert all(fn.source.count(f"def {n}(") == 1 for n in LATER)


def _evaluate(fn, *args):  # runs in the worker process
    return fn(*args)


def test_round_trip_through_a_process_pool():
    g = lambdify([x, y], symgrad.grad(F, [x, y]), threads=2, block=1000)
    xs, ys = np.linspace(-3, 3, 5000), np.linspace(2, -2, 5000)
    # fork: the worker starts at once, and still unpickles fn from its source
    with ProcessPoolExecutor(1, mp_context=mp.get_context("fork")) as pool:
        got = pool.submit(_evaluate, g, xs, ys).result(timeout=60)
    want = g(xs, ys)
    assert all(np.array_equal(a, b) for a, b in zip(got, want))


def test_pickle_round_trip_keeps_everything():
    pts = np.linspace(-1, 1, 300), 0.5
    f = lambdify([x, y], [F, x * y], threads=None, block=64)
    copy = pickle.loads(pickle.dumps(f))
    assert copy.source == f.source and copy.n_ops == f.n_ops and copy.threads is None
    assert all(np.array_equal(a, b) for a, b in zip(copy(*pts), f(*pts)))
    assert inspect.getsource(copy) == inspect.getsource(f)
    # serial: loading needs no symgrad (test_dask.py runs it in a fresh process),
    # and gives the plain function
    f = lambdify([x, y], [F, x * y], threads=1)
    copy = pickle.loads(pickle.dumps(f))
    assert copy.source == f.source
    assert all(np.array_equal(a, b) for a, b in zip(copy(*pts), f(*pts)))


def test_it_reads_like_a_function():
    f = lambdify([x, y], x * y)
    assert f.__name__ == "f" and "blocks" in f.__doc__
    assert list(inspect.signature(f).parameters) == ["x", "y"]
    assert repr(f) == "<symgrad generated function f, 1 operation>"


def test_functions_sharing_an_entry_point_keep_their_kernels_lines_and_tracebacks():
    # the entry point's code is compiled once per text (compiled._ENTRY_CODE)
    # and moved to each function's lines: two functions with one entry text
    # compute their own kernels, and a traceback through either names the
    # line of its own source
    import sys
    import traceback

    from symgrad.codegen import compiled

    f = lambdify([x, y], [sp.sin(x) * y, x / y])
    g = lambdify([x, y], [sp.cos(x) * y, x * y])

    def entry(fn):  # (the kernels written when first needed come after it)
        text = fn.source[fn.source.index("\n_ARGS = ") + 1:]
        return text[:text.find("\n\n\ndef ", text.index("def f(")) + 1 or None]
    assert entry(f) == entry(g) and entry(f) in compiled._ENTRY_CODE
    np.testing.assert_array_equal(g(np.arange(3.0), 2.0)[0], np.cos(np.arange(3.0)) * 2.0)
    for fn in (f, g):
        lines = fn.source.splitlines()
        code = fn.__wrapped__.__code__
        assert lines[code.co_firstlineno - 1].startswith("def f(")
        assert inspect.getsource(fn.__wrapped__).startswith("def f(x, y):")
        try:
            fn("a", 1.0)
        except TypeError:
            frames = traceback.extract_tb(sys.exc_info()[2])
        mine = [fr for fr in frames if fr.filename == code.co_filename]
        assert mine and all(lines[fr.lineno - 1].strip() == fr.line for fr in mine)
        assert "_arg(x" in mine[-1].line


def test_helper_texts_are_compiled_once_and_keep_their_lines(monkeypatch):
    # the helpers a module carries verbatim (compensated arithmetic: 465 lines)
    # are compiled once (compiled._SHARED_CODE), not once per function, and
    # moved to each function's lines: the helper and the kernel after it read
    # their own source
    from symgrad import compensated
    from symgrad.codegen import compensated_helpers, compiled

    lambdify([x, y], compensated(x * y - 1))  # (the helpers' text compiled here, if not before)
    texts = []
    real = compile
    monkeypatch.setattr(compiled, "compile", lambda s, *a: texts.append(s) or real(s, *a),
                        raising=False)
    f = lambdify([x, y], compensated(x * x - y))
    assert texts and not any("def _dd_two_sum" in t for t in texts)
    helper = f.__wrapped__.__globals__["_dd_two_sum"]
    assert inspect.getsource(helper) == inspect.getsource(compensated_helpers._dd_two_sum)
    assert helper.__code__.co_filename == f.__wrapped__.__code__.co_filename
    kernel = f.__wrapped__.__globals__["f_block"]
    assert inspect.getsource(kernel).startswith("def f_block(x, y):")
    a, b = np.array([3.0, 1e8 + 1]), np.array([9.0, (1e8 + 1) ** 2])
    np.testing.assert_array_equal(f(a, b), [0.0, 1.0])  # (1e8 + 1)^2 rounds: exact in pairs
