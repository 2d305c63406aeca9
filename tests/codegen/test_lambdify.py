"""lambdify and numpy_code: structure, dtype, blocks, source, bad input."""

from __future__ import annotations

import ast
import inspect
import sys
import unicodedata
import warnings

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad import SymgradError, lambdify, numpy_code
from symgrad.codegen import runtime
from symgrad.codegen.printer import NoNumpyFormError

x, y, z = sp.symbols("x y z")
F = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y) + sp.sqrt(x**2 + y**2) * sp.tanh(x - y)


def test_gradient_matches_sympy_cse():
    g = symgrad.grad(F, [x, y])
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal(1000), rng.standard_normal(1000)
    ref = sp.lambdify([x, y], [sp.diff(F, x), sp.diff(F, y)], cse=True)(X, Y)
    got = lambdify([x, y], g)(X, Y)
    assert isinstance(got, list)
    np.testing.assert_allclose(got, ref, rtol=1e-13)


@pytest.mark.parametrize("block", [None, 1, 7, 64, 16384])
def test_blocks_give_the_same_values(block):
    rng = np.random.default_rng(1)
    X, Y = rng.standard_normal((3, 50)), rng.standard_normal(50)
    want = lambdify([x, y], [F, x * y], block=None)(X, Y)
    got = lambdify([x, y], [F, x * y], block=block)(X, Y)
    assert isinstance(got, list) and got[0].shape == (3, 50)
    np.testing.assert_array_equal(got, want)


def test_structures_and_broadcasting():
    m = lambdify([x, y], sp.Matrix([[x, 1], [y, x * y]]))
    out = m(np.arange(3.0), 2.0)
    assert out.shape == (2, 2, 3)
    np.testing.assert_array_equal(out[0, 1], 1.0)
    np.testing.assert_array_equal(out[1, 1], [0.0, 2.0, 4.0])
    assert m(1.0, 2.0).shape == (2, 2)
    s = lambdify([x, y], 3)(np.zeros((2, 2)), 1.0)
    assert s.shape == (2, 2) and (s == 3).all()  # constants fill the broadcast shape
    assert lambdify(x, (x,))(2.0) == (2.0,)
    assert lambdify([], sp.pi)() == pytest.approx(np.pi)
    assert lambdify([x], x)(np.empty(0)).shape == (0,)


def test_vector_argument():
    xs = sp.symbols("x0:4")
    f = lambdify([list(xs), y], sum(xs) * y)
    np.testing.assert_allclose(f(np.arange(4.0), 2.0), 12.0)
    batch = np.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(f(batch, np.ones(3)), batch.sum(axis=0))
    with pytest.raises(ValueError, match="must start with"):
        f(np.arange(3.0), 1.0)


def test_float32_stays_float32_and_dtype_controls():
    f = lambdify([x, y], [F, sp.Piecewise((x, x > 0), (0, True)), sp.Rational(1, 3) * x])
    a = np.linspace(-1, 1, 40000, dtype=np.float32)
    assert all(o.dtype == np.float32 for o in f(a, a))
    assert all(type(o) is np.float32 for o in f(np.float32(0.5), np.float32(2)))
    assert lambdify(x, x / 3, dtype=np.float64)(a).dtype == np.float64
    assert lambdify(x, x / 3, dtype="float32")(1.0).dtype == np.float32
    assert lambdify(x, x + 1)(np.arange(3)).dtype == np.float64  # integers -> float64


def test_python_numbers_do_not_promote_float32():
    # as in NumPy's own arithmetic (float32 * 0.5 is float32), a Python number
    # passed beside a float32 array is weakly typed
    a = np.linspace(-1, 1, 5, dtype=np.float32)
    f = lambdify([x, y], x * y + 1)
    assert f(a, 0.5).dtype == np.float32 and f(a, 2).dtype == np.float32
    assert f(np.float32(1), 0.5).dtype == np.float32
    assert f(a, np.float64(0.5)).dtype == np.float64  # a NumPy float64 is not weak
    assert f(1, 2).dtype == np.float64


def test_piecewise_never_leaks_an_untaken_branch():
    f = lambdify(x, sp.Piecewise((sp.log(x), x > 0), (1 / x, x < 0), (0, True)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning from log(-1) or 1/0 either
        out = f(np.array([-2.0, 0.0, 1.0, np.e]))
    np.testing.assert_array_equal(out, [-0.5, 0.0, 0.0, 1.0])
    g = lambdify(x, sp.Piecewise((sp.sqrt(x), x >= 0), (sp.sqrt(-x), True)) + x)
    assert np.isfinite(g(np.linspace(-4, 4, 9))).all()
    # no condition holds: undefined, as in SymPy
    assert np.isnan(lambdify(x, sp.Piecewise((1, x > 0)))(-1.0))


def test_source_is_kept_and_inspectable():
    f = lambdify([x, y], F)
    assert inspect.getsource(f) in f.source
    assert "np.logaddexp" not in f.source and "_hypot(x, y)" in f.source
    assert f.source.startswith("import numpy as np")


def _imports(src: str) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append(node.module)
    return names


@pytest.mark.parametrize(
    "exprs", [F, [F, x], sp.Matrix([[x, y]]), sp.Piecewise((x, x > 0), (y, True))]
)
def test_generated_code_imports_only_numpy(exprs):
    src = numpy_code([x, y], exprs)
    assert _imports(src) == ["numpy"]
    # lambdify's entry point imports its run-time helpers, a module that
    # imports NumPy and the standard library's math only
    assert _imports(lambdify([x, y], exprs).source) == ["numpy", "symgrad.codegen.runtime"]
    runtime_src = open(runtime.__file__).read()
    assert sorted(m for m in _imports(runtime_src) if m != "__future__") == ["math", "numpy"]
    namespace: dict = {}
    exec(compile(src, "<test>", "exec"), namespace)  # run it with nothing but numpy
    a = np.array([0.5, -1.5])
    ref = lambdify([x, y], exprs)(a, a)
    np.testing.assert_allclose(namespace["f"](a, a), ref)


def test_one_assignment_per_shared_subexpression():
    s = sp.sin(x * y)
    src = numpy_code([x, y], [s**2 + s, sp.cos(s) * s])
    assert src.count("np.sin(") == 1
    assert src.count("x*y") == 1


def test_unsafe_names_are_renamed():
    a, lam, imp, np_ = sp.symbols("x.1 lambda import_os np")
    bad = sp.Symbol("import os")
    f = lambdify([a, lam, bad, imp, np_], a + 2 * lam + 3 * bad + 4 * imp + 5 * np_)
    assert f(1.0, 1.0, 1.0, 1.0, 1.0) == 15.0
    params = list(inspect.signature(f).parameters)
    assert all(p.isidentifier() for p in params) and len(set(params)) == 5
    assert "import os" not in f.source.replace("'import os'", "")


@pytest.mark.parametrize(
    "name", ["n", "s", "e", "r", "out", "shape", "dtype", "run", "starts", "_flat", "_pool",
             "_n", "_dtype"],
)
def test_argument_named_like_a_local_of_the_generated_code(name):
    # symbols named s, n, e, r are common; the entry point's own variables
    # (and helpers) must never be shadowed by an argument
    s = sp.Symbol(name)
    f = lambdify([s, y], [s * y + sp.sin(s), s], block=2, threads=2)
    a = np.linspace(0, 1, 11)
    got = f(a, 2.0)
    np.testing.assert_allclose(got[0], 2 * a + np.sin(a))
    np.testing.assert_allclose(got[1], a)
    assert float(lambdify([s], s + 1)(1.0)) == 2.0
    m = lambdify([[s, y]], sp.Matrix([[s, y]]))(np.ones((2, 3)))
    assert m.shape == (1, 2, 3)


def test_symbol_like_nodes_that_are_not_arguments_are_refused():
    # a MatrixSymbol's name is a user's string: printed, it became code
    evil = sp.MatrixSymbol("__import__('os').system('exit 3')", 2, 2)
    for expr in (evil[0, 0] * x, sp.MatrixSymbol("x", 2, 2)[0, 0] * x,
                 sp.IndexedBase("a")[1] * x):
        with pytest.raises(NoNumpyFormError, match="not among the arguments"):
            lambdify([x], expr)
        with pytest.raises(NoNumpyFormError, match="not among the arguments"):
            numpy_code([x], expr)


@pytest.mark.parametrize("op, n", [(sp.Add, 3000), (sp.Mul, 1000), (sp.Max, 1000), (sp.Min, 1000)],
                         ids=["Add", "Mul", "Max", "Min"])
def test_operations_on_thousands_of_operands_compile(op, n):
    # one line ``x0 + x1 + ... + x2999`` is too deep for Python's compiler
    # (3.11: a RecursionError between 2,000 and 3,000 terms); at 1,000 operands
    # one line is still over the 2,000 characters asserted below, and nested
    # calls past 200 levels are a SyntaxError (too many nested parentheses)
    xs = sp.symbols(f"x0:{n}")
    v = np.linspace(0.5, 1.5, n)
    e = op(*xs) if op in (sp.Add, sp.Mul) else op(*xs, evaluate=False)
    want = {sp.Add: np.sum, sp.Mul: np.prod, sp.Max: np.max, sp.Min: np.min}[op](v)
    np.testing.assert_allclose(lambdify([list(xs)], e)(v), want, rtol=1e-12)
    assert max(len(ln) for ln in numpy_code([list(xs)], e).splitlines()) < 2000


def test_a_formula_holding_i_gives_complex_results():
    # the imaginary part was dropped (NumPy's ComplexWarning) into a real output
    f = lambdify(x, sp.exp(sp.I * x))
    np.testing.assert_allclose(f(np.array([0.0, np.pi / 2])), [1, 1j], atol=1e-15)
    assert f(np.float32(1)).dtype == np.complex64
    assert lambdify(x, x + 1)(1.0).dtype == np.float64


def test_complex_infinity_is_named():
    with pytest.raises(NoNumpyFormError, match="zoo"):
        lambdify(x, sp.zoo * x)


def test_wrong_argument_count_is_a_type_error():
    f = lambdify([x, y], x + y)
    with pytest.raises(TypeError):
        f(1.0)
    with pytest.raises(TypeError):
        f(1.0, 2.0, 3.0)


@pytest.mark.parametrize(
    "expr, match",
    [
        (sp.Function("g")(x) + 1, "undefined function g"),
        (sp.Derivative(sp.Function("g")(x), x), "unevaluated Derivative"),
        (sp.hankel1(0, x), "hankel1"),
        (x + z, "depends on z"),
    ],
)
def test_bad_expressions_are_named(expr, match):
    with pytest.raises(NoNumpyFormError, match=match):
        lambdify([x, y], expr)
    with pytest.raises(SymgradError, match=match):
        numpy_code([x, y], expr)


@pytest.mark.parametrize(
    "args", ["x", [x, x], [x + 1], 3],
)
def test_bad_args(args):
    with pytest.raises(SymgradError):
        lambdify(args, x)


def test_bad_options():
    with pytest.raises(SymgradError, match="block"):
        lambdify(x, x, block=0)
    with pytest.raises(SymgradError, match="name"):
        numpy_code(x, x, name="import os")


@pytest.mark.parametrize("name", ["lambda", "def", "None", "True", "np", "1f", "", "f.g", 3])
def test_function_names_that_cannot_be_defined_are_refused(name):
    # numpy_code(name="lambda") was a SyntaxError in the generated source
    with pytest.raises(SymgradError, match="name="):
        numpy_code(x, x, name=name)


def test_any_identifier_is_a_function_name():
    for name in ("grad_f", "match", "ｆ"):  # a soft keyword is a legal name
        src = numpy_code([x, y], x * y, name=name)
        ns: dict = {}
        exec(compile(src, "<test>", "exec"), ns)
        assert ns[unicodedata.normalize("NFKC", name)](2.0, 3.0) == 6.0


def _recurrence(n, evaluate=True):
    a = sp.symbols(f"a0:{n}")
    y0 = sp.Symbol("y0")
    v = y0
    for k in range(n):
        if evaluate:
            v = a[k] * sp.sin(v) + sp.cos(v)
        else:
            v = sp.Add(sp.Mul(a[k], sp.sin(v, evaluate=False), evaluate=False),
                       sp.cos(v, evaluate=False), evaluate=False)
    return v, y0, a


def test_gradient_of_a_recurrence_past_the_recursion_limit():
    # built without evaluation, the same DAG: SymPy's canonicalization of it
    # took 7.6 of this test's 10.8 s.  200 levels past Python's recursion limit
    # (each level costs a recursive walk at least one frame): the gradient's code
    # computes the whole chain of values too, so this is also the value's depth
    # test (a separate lambdify of the value at this depth cost 1.7 s more)
    depth = sys.getrecursionlimit() + 200
    v, y0, a = _recurrence(depth, evaluate=False)
    g = symgrad.grad(v, [y0, *a])
    f = lambdify([y0, list(a)], g)
    out = f(np.array([0.1, 0.2]), np.full((depth, 2), 0.5))
    assert len(out) == depth + 1 and all(np.isfinite(o).all() for o in out)
    # linear size: a fixed number of operations per level
    assert f.n_ops < 20 * depth
    y = 0.1  # dv/da_last = sin(the value before the last level), in floats
    for _ in range(depth - 1):
        y = 0.5 * np.sin(y) + np.cos(y)
    np.testing.assert_allclose(out[-1][0], np.sin(y), rtol=1e-12)


def test_depth_past_the_recursion_limit_without_recursion_error():
    # (the recurrence's value past the limit: in the gradient's code above)
    depth = sys.getrecursionlimit() + 200
    chain = x
    for _ in range(depth):
        chain = sp.Add(sp.sin(chain, evaluate=False), 1, evaluate=False)
    src = numpy_code([x], chain)
    assert src.count("np.sin(") == depth
    assert np.isfinite(lambdify(x, chain)(np.array([0.1, 0.2]))).all()


def test_threads_give_the_same_result_as_serial():
    import numpy as np
    import sympy as sp

    from symgrad import grad, lambdify

    x, y = sp.symbols("x y", real=True)
    f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y)
    g = grad(f, [x, y])
    rng = np.random.default_rng(3)
    xs, ys = rng.standard_normal(100_003), rng.standard_normal(100_003)
    serial = lambdify([x, y], g, threads=1, block=1000)(xs, ys)
    threaded = lambdify([x, y], g, threads=3, block=1000)(xs, ys)
    for a, b in zip(serial, threaded):
        np.testing.assert_array_equal(a, b)


def test_threads_argument_checked():
    import pytest
    import sympy as sp

    from symgrad import SymgradError, lambdify

    x = sp.Symbol("x")
    with pytest.raises(SymgradError, match="threads"):
        lambdify([x], x, threads=0)


def test_threaded_function_works_in_a_forked_child():
    """A child made by fork inherits no threads: it must not wait forever on
    its parent's executor."""
    import multiprocessing as mp

    import numpy as np
    import sympy as sp

    from symgrad import lambdify

    x = sp.Symbol("x")
    f = lambdify([x], sp.sin(x) * 2, threads=2, block=100)
    xs = np.linspace(0, 1, 1000)
    want = f(xs)  # the parent's executor now exists
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    child = ctx.Process(target=lambda: q.put(f(xs)))  # fork: nothing is pickled
    child.start()
    got = q.get(timeout=60)
    child.join(timeout=60)
    np.testing.assert_array_equal(got, want)


def test_names_equal_after_nfkc_normalization_do_not_alias():
    # Python reads identifiers in NFKC form: a full-width "ｔ0" is the name t0,
    # which was also the first temporary of the generated code
    t = sp.Symbol("ｔ0")
    e = sp.sin(x * y) ** 2 + sp.cos(x * y) + t * sp.exp(x)
    f = lambdify([t, x, y], e)
    a, b, c = 0.7, 1.3, -0.4
    want = np.sin(b * c) ** 2 + np.cos(b * c) + a * np.exp(b)
    assert f(a, b, c) == pytest.approx(want, rel=1e-15)
    assert f(np.array([a]), b, c)[0] == pytest.approx(want, rel=1e-15)


def test_long_names_compile():
    ws = [sp.Symbol("w" * 83 + str(i)) for i in range(6)]
    f = lambdify([ws], [sp.sin(w) for w in ws])
    np.testing.assert_allclose(f(np.arange(6.0)), np.sin(np.arange(6.0)))
    assert lambdify(ws, sum(ws))(*range(6)) == 15.0


def test_array_function_gives_lambdify_floats_on_arrays_with_one_kernel():
    # the stability checker's one-shot code (codegen.build.array_function):
    # lambdify's array kernel and entry point only (no one-point, NumPy-scalar
    # or in-place kernel to write), the same floats on arrays of both types,
    # one block and several (hypot decides per block), and on NumPy scalars
    from symgrad.codegen.build import array_function

    a, b = sp.symbols("a b", real=True)
    exprs = [sp.log(1 + sp.exp(a * b)) + sp.sqrt(a**2 + b**2) * sp.tanh(a - b) - 3 * a / 7,
             sp.sin(a) ** 2 / (1 + b**2)]
    rng = np.random.default_rng(3)
    for dtype in (np.float64, np.float32):
        want = lambdify([a, b], exprs, dtype=dtype, threads=1)
        got = array_function([a, b], exprs, dtype)
        names = got.__wrapped__.__globals__
        assert "f_block" in names and not {"f_inplace", "f_scalar", "f_point"} & set(names)
        for n in (3, 300, 16384 + 700):
            pts = [(rng.standard_normal(n) * 10.0 ** rng.integers(-160, 160, n)).astype(dtype)
                   for _ in range(2)]
            with np.errstate(all="ignore"):
                for u, v in zip(want(*pts), got(*pts)):
                    assert u.dtype == v.dtype == dtype
                    np.testing.assert_array_equal(u, v)
        one = [dtype(0.3), dtype(-2.5)]
        for u, v in zip(want(*one), got(*one)):
            assert np.asarray(u).dtype == np.asarray(v).dtype and u == v
