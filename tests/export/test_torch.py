"""to_torch: backward (and double backward) is symgrad's, under autograd and
torch.func."""

import os
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.export.orders import ExportWarning

from ..backends import torch
from .conftest import chosen_second, log1pexp
from .pair_exp_oracle import check_pair_exp

x, y = sp.symbols("x y", real=True)


def _leaf(v, dtype=None):
    return torch.tensor(v, dtype=dtype or torch.float64, requires_grad=True)


def test_straight_through_floor():
    with symgrad.gradient_override_map({"Floor": "Identity"}):
        f = symgrad.to_torch(sp.floor(x) * y, [x, y])
    a, b = _leaf([2.5, -1.25, 7.0]), _leaf([3.0, -2.0, 0.5])
    f(a, b).sum().backward()
    assert torch.equal(a.grad, b.detach())  # the straight-through estimator
    assert torch.equal(b.grad, torch.floor(a.detach()))
    a = _leaf(2.5)
    symgrad.to_torch(sp.floor(x) * y, [x, y])(a, 3.0).backward()  # no map: floor' = 0
    assert a.grad.item() == 0.0


def test_log1pexp_custom_gradient_float32():
    f = symgrad.to_torch(log1pexp(x), [x])
    a = _leaf([100.0, -3.0], torch.float32)
    f(a).sum().backward()
    assert a.grad.dtype == torch.float32 and a.grad[0].item() == 1.0
    b = _leaf([100.0], torch.float32)
    torch.log(1 + torch.exp(b)).sum().backward()  # PyTorch's own: inf/inf
    assert torch.isnan(b.grad).all()


def test_an_output_no_loss_reads_adds_nothing_to_the_gradient():
    # exp(x) beside exp(2x) at x = 50 in float32: d exp(2x)/dx is inf; the loss
    # reads exp(x) only, whose gradient is exp(50) (PyTorch's zero cotangent for
    # the other output gave 0·inf = NaN), in the joint backward and in the
    # recorded one (create_graph), whose own backward is the second derivative
    f = symgrad.to_torch([sp.exp(x), sp.exp(2 * x)], [x])
    want = torch.exp(torch.tensor([50.0, 1.0]))
    for create_graph in (False, True):
        t = _leaf([50.0, 1.0], torch.float32)
        (g,) = torch.autograd.grad(f(t)[0].sum(), t, create_graph=create_graph)
        assert torch.equal(g.detach(), want), (create_graph, g)
        if create_graph:
            assert torch.equal(torch.autograd.grad(g.sum(), t)[0], want)


def test_double_backward_is_symgrads():
    f = symgrad.to_torch(chosen_second(x), [x])
    a = _leaf(0.3)
    (g,) = torch.autograd.grad(f(a), a, create_graph=True)
    assert g.item() == pytest.approx(np.cos(0.3), rel=1e-15)
    (h,) = torch.autograd.grad(g, a)
    assert h.item() == 100.0  # the chosen second derivative, not -sin(0.3)
    assert torch.func.hessian(f)(torch.tensor(0.3, dtype=torch.float64)).item() == 100.0


def test_double_backward_equals_symgrad_hessian():
    e = sp.sin(x) * sp.exp(x * y) + sp.log(1 + y**2) * x
    f = symgrad.to_torch(e, [x, y])
    h = symgrad.lambdify([x, y], symgrad.hessian(e, [x, y]))
    for p in [(0.3, 0.7), (-1.5, 2.0)]:
        a, b = _leaf(p[0]), _leaf(p[1])
        ga, gb = torch.autograd.grad(f(a, b), (a, b), create_graph=True)
        rows = [torch.autograd.grad(g, (a, b), retain_graph=True) for g in (ga, gb)]
        got = np.array([[v.item() for v in r] for r in rows])
        np.testing.assert_allclose(got, h(*p), rtol=1e-14)


def test_torch_func_and_batch_agree_with_numpy_code():
    e = sp.log(1 + sp.exp(x * y)) * sp.sin(x) + sp.sqrt(x**2 + y**2)
    f = symgrad.to_torch(e, [x, y])
    ref = symgrad.lambdify([x, y], symgrad.grad(e, [x, y]))
    rng = np.random.default_rng(0)
    # 70,000 points: a batch through the joint Function, over more than one of its
    # blocks (65,536 float64 at most; the 10^6 item is test_jax.py's)
    xs, ys = rng.uniform(-20, 20, 70_000), rng.uniform(-20, 20, 70_000)
    a, b = torch.tensor(xs, requires_grad=True), torch.tensor(ys, requires_grad=True)
    f(a, b).sum().backward()
    for g, w in zip((a.grad, b.grad), ref(xs, ys)):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-12, atol=1e-13)
    small = (torch.tensor(xs[:5]), torch.tensor(ys[:5]))
    gx, gy = torch.func.vmap(torch.func.grad(f, argnums=(0, 1)))(*small)
    w = ref(xs[:5], ys[:5])
    np.testing.assert_allclose(gx.numpy(), w[0], rtol=1e-14)
    np.testing.assert_allclose(gy.numpy(), w[1], rtol=1e-14)


def test_broadcast_gradient_is_summed():
    f = symgrad.to_torch(x * y, [x, y])
    a, b = _leaf(2.0), _leaf([1.0, 2.0, 3.0])
    f(a, b).sum().backward()
    assert a.grad.shape == () and a.grad.item() == 6.0
    assert torch.equal(b.grad, torch.full((3,), 2.0, dtype=torch.float64))


def test_stabilized_gradient():
    e = sp.log(1 + sp.exp(x))  # the domain of test_accuracy's: stabilize measures once
    f = symgrad.to_torch(e, [x], stabilize=True, domain={x: (-745, 745)})
    a = _leaf([740.0, -700.0, 30.0])
    f(a).sum().backward()
    assert a.grad[0].item() == 1.0
    assert a.grad[1].item() == pytest.approx(np.exp(-700.0), rel=2e-16)
    assert "torch.log1p" in f.source


def test_pytree_output():
    f = symgrad.to_torch({"v": x * y, "m": sp.Matrix([[x, y], [x * x, 1]])}, [x, y])
    a = _leaf([0.5, 1.5, 2.5])
    out = f(a, 2.0)
    assert out["m"].shape == (2, 2, 3)
    (out["m"].sum() + out["v"].sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), 1 + 2 * a.detach().numpy() + 2.0)


def test_a_value_that_needs_a_gradient_keeps_its_jacobian_for_the_backward():
    # eager tensors that need a gradient: one program computes the value and the
    # Jacobian entries (their shared exp once) and the backward contracts the
    # kept entries; the gradient is still symgrad's
    e = sp.log(1 + sp.exp(x)) * y
    f = symgrad.to_torch(e, [x, y])
    a, b = _leaf([-3.0, 0.5, 40.0]), _leaf([2.0, -1.0, 0.25])
    out = f(a, b)
    assert type(out.grad_fn).__name__.startswith("ExportedJoint")
    out.sum().backward()
    want = symgrad.lambdify([x, y], symgrad.grad(e, [x, y]))(a.detach().numpy(),
                                                             b.detach().numpy())
    np.testing.assert_allclose(a.grad.numpy(), want[0], rtol=1e-15)
    np.testing.assert_allclose(b.grad.numpy(), want[1], rtol=1e-15)
    with torch.no_grad():  # no backward can follow: the value's own program
        assert f(a, b).grad_fn is None


def test_guards_left_out_by_the_domain_give_the_same_values():
    # the pairs' overflow guards a domain's bounds rule out: the same values,
    # bitwise (NumPy: tests/codegen/test_compensating.py)
    from ..codegen.test_compensating import BOUNDED_CASES, bounded_points

    syms, expr, domain = BOUNDED_CASES[2]  # exp(-|u|): products, sums, a function (siblings: NumPy)
    fs = [symgrad.lambdify(syms, expr, stabilize=True, domain=d, backend="torch")
          for d in (None, domain)]
    assert (", 40)" in fs[1].source or "_dd_prod_b(40, " in fs[1].source) \
        and "_dd_fun_b(" in fs[1].source
    for dtype in ("float64", "float32"):
        cols = [torch.from_numpy(c) for c in bounded_points(200, domain, dtype)]
        np.testing.assert_array_equal(*(f(*cols).numpy() for f in fs), strict=True)


def test_temporaries_are_freed_after_their_last_use():
    # a chain whose every link is read twice (a line of the code each): a tensor
    # is freed when the line that read it last is done, not at the return, so
    # eager PyTorch holds as many at once as the program is wide (fewer fresh
    # pages per call); the same values
    import weakref

    from torch.overrides import TorchFunctionMode

    class Alive(TorchFunctionMode):  # the tensors made so far and still alive, at most
        refs: list = []
        peak = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            self.refs = [r for r in self.refs if r() is not None]
            self.peak = max(self.peak, len(self.refs))
            if isinstance(out, torch.Tensor):
                self.refs.append(weakref.ref(out))
            return out

    u = x
    for k in range(8):
        u = sp.sin(u) * u + k
    f = symgrad.lambdify([x], u, backend="torch")
    assert f.source.count("del ") >= 6
    v = torch.linspace(-2, 2, 5, dtype=torch.float64)
    with Alive() as alive:
        got = f(v)
    assert alive.peak <= 3
    np.testing.assert_array_equal(got.numpy(), symgrad.lambdify([x], u)(v.numpy()))


def test_eager_tensors_of_many_points_are_computed_block_by_block(monkeypatch):
    # blocks of 16 float64 (32 float32) here, of 2^19 bytes in use: each block's
    # tensors stay in the cache.  The same floats as the whole call (the program is
    # elementwise): a region computed where a rare branch holds, a constant output
    # (pairs of floats: elementwise too); to_torch's value and kept Jacobian
    from symgrad.export import torch_ops
    from symgrad.export.source import compile_source, generate
    from symgrad.rewrites.forms import erfcx

    monkeypatch.setattr(torch_ops, "BLOCK_BYTES", 2**7)
    e = [sp.Piecewise((erfcx(x) * sp.exp(-x) * y, x > 1), (sp.exp(x) * y, True)), sp.S(2)]
    kernel = compile_source(generate("torch", [x, y], e))
    assert "_sg.masked(" in kernel.source
    calls = []
    g = torch.Generator().manual_seed(0)
    for dtype in (torch.float64, torch.float32):
        a, b = (2 * torch.randn(100, generator=g, dtype=dtype) for _ in range(2))
        got = torch_ops.blocked(lambda *xs: calls.append(len(xs[0])) or kernel(*xs), (a, b))
        np.testing.assert_array_equal(got[0].numpy(), kernel(a, b)[0].numpy(), strict=True)
        assert got[1].dtype == dtype and bool(torch.all(got[1] == 2))
        # a 0-d argument goes whole to every block
        one = torch.tensor(0.5, dtype=dtype)
        got = torch_ops.blocked(kernel, (a, one))
        np.testing.assert_array_equal(got[0].numpy(), kernel(a, one)[0].numpy(), strict=True)
    # (each kernel's width measured first, once, on 64 points: torch_ops._width)
    assert calls == [64] + [16] * 6 + [4] + [64] + [32] * 3 + [4]
    f = symgrad.to_torch(sp.exp(x) * y, [x, y])
    a, b = _leaf(np.linspace(-3, 3, 100)), _leaf(np.linspace(1, 2, 100))
    real, blocked = torch_ops.blocked, []
    monkeypatch.setattr(torch_ops, "blocked", lambda k, xs: blocked.append(1) or real(k, xs))
    out = f(a, b)
    out.sum().backward()
    assert blocked  # the joint Function's forward ran in blocks
    monkeypatch.setattr(torch_ops, "BLOCK_BYTES", 2**60)  # whole
    np.testing.assert_array_equal(out.detach().numpy(), f(a, b).detach().numpy(), strict=True)
    np.testing.assert_array_equal(a.grad.numpy(), (b * torch.exp(a)).detach().numpy(), strict=True)


def test_a_wide_program_runs_in_smaller_blocks():
    # the tensors a block's program holds at once stay in the cache: a program
    # in pairs of floats holds ~20-30 (its width, measured once on 64 points),
    # a plain one ~5, so its blocks are smaller (the same floats as the whole
    # call: the blocks test above)
    from symgrad.export import torch_ops
    from symgrad.export.source import compile_source, generate

    wide = compile_source(generate("torch", [x], [symgrad.compensated(
        sp.sin(x) ** 2 - sp.cos(x) ** 2 + sp.exp(x) - 1)]))
    narrow = compile_source(generate("torch", [x], [sp.exp(x) + 1]))
    v = torch.linspace(-3, 3, 256, dtype=torch.float64)
    assert torch_ops.block_bytes(narrow, (v,)) == torch_ops.BLOCK_BYTES
    assert torch_ops.block_bytes(wide, (v,)) < torch_ops.BLOCK_BYTES  # (2^17 or 2^18: ~30)
    assert wide._sg_width > 4 * narrow._sg_width


def test_pair_products_take_the_fused_error_with_the_same_floats(monkeypatch):
    # Dekker's exact product error (12-20 operations) as one addcmul where that is a
    # fused multiply-add (checked per device and type: this CPU's is; 'meta' has no
    # values to check): the same floats over the whole range, overflow, subnormal
    # products, inf and NaN included
    from symgrad.export import torch_pairs

    f = symgrad.lambdify([x, y], symgrad.compensated(x * y - 1) + symgrad.compensated(x / y),
                         backend="torch")
    assert not torch_pairs.fused(*(torch.empty(2, device="meta") for _ in range(2)))
    fused = []
    real = torch_pairs.product_error
    monkeypatch.setattr(torch_pairs, "product_error", lambda *a: fused.append(1) or real(*a))
    rng = np.random.default_rng(0)
    for dtype, top in ((np.float64, 1020), (np.float32, 125)):
        a, b = (rng.uniform(-2, 2, 500) * 2.0 ** rng.integers(-top, top, 500) for _ in range(2))
        a[:6] = [0.0, np.inf, np.nan, 1e-40, 3.0, -1.0]
        with np.errstate(all="ignore"):
            a, b = (torch.from_numpy(v.astype(dtype)) for v in (a, b))
            got = f(a, b).numpy()
            monkeypatch.setitem(torch_pairs._FUSED, (a.device, a.dtype), False)
            np.testing.assert_array_equal(got, f(a, b).numpy(), strict=True)  # Dekker's
    assert len(fused) == 4  # x*y and the quotient's q*y, in each type


def test_a_float_times_a_power_of_two_in_pairs_is_that_float():
    # compensated(u) multiplies floats by literals +-2**j (mish's exponent
    # 2 max(0, x) + 2 log1p(exp(-|x|)), the GELU-erf split's 64 min(64, |x|)):
    # the float product, where the pair helper made (p, 0); the same floats, over
    # the whole range, overflow, subnormal products, inf and NaN included
    from symgrad.export.source import compile_source, generate

    u = symgrad.compensated(2 * x + sp.exp(-sp.Abs(4 * y)) - x * y / 8 + 2 * sp.sin(x))
    f = compile_source(generate("torch", [x, y], [u]))
    assert "_dd_mul(2, x)" in f.source and "_dd_mul(-4, " in f.source
    g, pairs = f.__globals__, []
    short, real = g["_dd_mul"], g["_dd_pair_mul"]

    def counted(a, b, k=None):  # the pair helper, noting a float times a literal
        pairs.append(type(a) in (int, float) and not isinstance(b, tuple))
        return real(a, b, k)

    rng = np.random.default_rng(2)
    try:
        for dtype, top in ((np.float64, 1020), (np.float32, 125)):
            a, b = (rng.uniform(-2, 2, 400) * 2.0 ** rng.integers(-top, top, 400) for _ in range(2))
            a[:7] = [0.0, -0.0, np.inf, np.nan, 1e-40, 3.0, -1.0]
            b[:7] = [1.0, 2.0, -3.0, 0.5, 1e-38, 0.0, 7.0]
            a, b = (torch.from_numpy(v.astype(dtype)) for v in (a, b))
            g["_dd_pair_mul"] = counted
            got = f(a, b)[0].numpy()
            assert not any(pairs)  # no float times a literal made a pair
            g["_dd_mul"] = counted  # every product a pair, as before
            np.testing.assert_array_equal(got, f(a, b)[0].numpy(), strict=True)
            assert any(pairs)
            g["_dd_mul"], pairs[:] = short, []
    finally:
        g["_dd_mul"], g["_dd_pair_mul"] = short, real


def test_pair_exp_by_table_to_twice_the_precision_in_both_types(monkeypatch):
    # generated PyTorch code's pair exp and expm1 reduce by JAX's table of
    # 2**(j/256) (_dd_reduced; NumPy's pairs too since session 17): exp and
    # expm1 of pairs (a low part of 0: of floats) over the whole range, against
    # mpmath, where the pair's low part is normal (siblings: test_jax_ops); NaN,
    # infinities and overflow as the float exp gives
    def run(h, x, lo, lim):
        pair = (torch.from_numpy(x), torch.from_numpy(lo))
        edge = torch.tensor([np.nan, np.inf, -np.inf, 2 * lim, -2 * lim], dtype=pair[0].dtype)
        got = h["_dd_exp"](edge)[0].numpy()
        np.testing.assert_array_equal(got, [np.nan, np.inf, 0.0, np.inf, 0.0])
        return [[v.numpy() for v in fn(pair)] for fn in (h["_dd_exp"], h["_dd_expm1"])]

    check_pair_exp("torch", monkeypatch, run)


def test_a_function_of_no_arguments_gives_its_constants_in_torchs_default_type():
    # (raised an IndexError until 2026-11-27)
    a, b = symgrad.to_torch([2 * sp.pi, sp.sqrt(2)], [])()
    assert a.dtype == torch.get_default_dtype() == b.dtype
    assert float(a) == np.float32(2 * np.pi) and float(b) == np.float32(np.sqrt(2))


def test_symbols_named_like_the_generated_function():
    # generate() named the function f_1 when a symbol was called f, and the
    # compiled module was searched for f (FPBench's matrixDeterminant has a..i)
    f, torch_, g = sp.symbols("f torch f_1", real=True)
    h = symgrad.to_torch(f * torch_ + sp.sin(g), [f, torch_, g])
    a, b, c = _leaf(2.0), _leaf(3.0), _leaf(0.5)
    h(a, b, c).backward()
    assert [a.grad.item(), b.grad.item()] == [3.0, 2.0]
    assert c.grad.item() == np.cos(0.5)
    assert symgrad.lambdify([f, g], f * g, backend="torch")(2.0, 4.0) == 8.0


def test_compile_runs_each_program_through_torch_compile_or_raises(monkeypatch):
    """compile=True: the value-and-Jacobian program goes to torch.compile
    (fullgraph, dynamic shapes) after one eager run on one point; where
    torch.compile fails the call raises, it never runs eager in its place;
    inside a torch.func transform's level (vmap: dynamo compiles nothing
    there) eager, with a warning."""
    calls = []

    def failing(fn, **kw):
        calls.append(kw)

        def run(*xs):
            raise RuntimeError("no C++ compiler")
        return run

    monkeypatch.setattr("torch.compile", failing)
    f = symgrad.to_torch(x * y, [x, y], compile=True)
    with pytest.raises(symgrad.SymgradError, match="compile=True.*no C\\+\\+ compiler"):
        f(_leaf([1.0, 2.0]), torch.tensor([3.0, 4.0], dtype=torch.float64)).sum().backward()
    assert calls == [{"fullgraph": True, "dynamic": True}]
    sq = symgrad.to_torch(x * x, [x], compile=True)  # under vmap: eager, with a warning
    with pytest.warns(ExportWarning, match="torch.func"):
        got = torch.func.vmap(sq)(torch.tensor([1.5, 2.0], dtype=torch.float64))
    assert got.tolist() == [2.25, 4.0]
    assert len(calls) == 1
    w = sp.MatrixSymbol("w", 2, 1)
    with pytest.raises(symgrad.SymgradError, match="compile=True"):
        symgrad.to_torch((w.T * w)[0, 0], [w], compile=True)


@pytest.mark.skipif(os.environ.get("SYMGRAD_LONG") != "1",
                    reason="torch.compile of a program in pairs takes ~30-60 s of CPU: "
                           "SYMGRAD_LONG=1 runs it")
def test_compiled_pairs_keep_their_bits():
    f = symgrad.to_torch(symgrad.compensated(x * y - 1), [x, y], compile=True)
    g = np.random.default_rng(0)
    a = torch.tensor(g.uniform(0.5, 2, 2000), dtype=torch.float64)
    b = (1 / a) * (1 + torch.tensor(g.integers(-4, 5, 2000), dtype=torch.float64) * 2.0**-52)
    got = f(a, b)
    want = [float(Fraction(u) * Fraction(v) - 1) for u, v in zip(a.tolist(), b.tolist())]
    assert got.tolist() == want  # x*y - 1 rounded once: what the pairs give, compiled too
    for i in (0, 5, 1999):  # one point: the batch's value (not dynamo's code for size 1)
        assert f(a[i], b[i]).item() == want[i] and f(a[i:i + 1], b[i:i + 1]).shape == (1,)


def test_the_forms_stabilize_chose_are_emitted_as_chosen():
    # generated code for stabilize's chosen forms (a dtype given) computes them as
    # chosen: the safe rewrites run again had merged an underflow split's product
    # of exps back into one subnormal exp(-|x|) (17 bits in float32), times x:
    # PyTorch code generated from the float32 mish gradient's form lost 5.5 bits
    # at x = -91.4 (NumPy's code of it 1.0)
    import mpmath

    from symgrad.export.source import compile_source, generate

    x = sp.Symbol("x", real=True)
    a = sp.Abs(x)
    split = sp.Piecewise((x * sp.exp(-a) / (1 + sp.exp(-a)), -a >= -87.3365447505531),
                         (sp.Mul(x * sp.exp(-a / 2) / (1 + sp.exp(-a)), sp.exp(-a / 2),
                                 evaluate=False), True))
    f = compile_source(generate("torch", [x], [split], stabilize=True,
                                domain={x: (-1000.0, 0.0)}, dtype="float32"))
    xs = np.linspace(-91.8, -88.0, 12).astype(np.float32)
    got = f(torch.tensor(xs))[0].numpy()
    want = np.array([float(mpmath.mpf(float(v)) / (1 + mpmath.exp(-float(v)))) for v in xs])
    ulps = np.abs(got - want) / np.spacing(np.abs(want).astype(np.float32))
    assert ulps.max() <= 2, ulps


@pytest.mark.parametrize("form", ["x*y", "x/y"])
def test_a_float32_scaled_form_keeps_float32s_range(form):
    # torch's scale helpers took every input's exponent in float64, whose range
    # let scaled values past float32's, and scaled back by steps of 2**1000
    # (inf in float32): scaled(x*y) at (1.5, 1e38) read the largest float, at
    # (1e38, 3e-44) inf, at (1.5, 1.1e-38) 0. NumPy's float32 code gives the
    # correctly rounded values
    e = {"x*y": x * y, "x/y": x / y}[form]
    f = symgrad.lambdify([x, y], symgrad.scaled(e))
    ft = symgrad.lambdify([x, y], symgrad.scaled(e), backend="torch")
    xs = np.array([1.5, 1e38, 1.5, 3e-44, 1e19, -7.0, 1e-20], np.float32)
    ys = np.array([1e38, 3e-44, 1.1e-38, 1e38, 1e-37, 1e-39, 3e38], np.float32)
    with np.errstate(all="ignore"):
        want = f(xs, ys)
    got = ft(torch.tensor(xs), torch.tensor(ys)).numpy()
    assert want.dtype == got.dtype == np.float32
    q = Fraction.__mul__ if form == "x*y" else Fraction.__truediv__
    exact = np.float32([float(q(Fraction(float(a)), Fraction(float(b)))) for a, b in zip(xs, ys)])
    normal = np.abs(want) >= np.finfo(np.float32).tiny  # (the oracle: NumPy's exact there)
    assert normal.sum() >= 4
    np.testing.assert_array_equal(want[normal], exact[normal])
    np.testing.assert_array_equal(got, want)



def test_a_pair_quotient_of_a_constant_numerator_where_a_quotient_overflows():
    # the selected pair quotient (taken where some a0/b0 overflows) read the
    # constant numerator's magnitude through torch.abs: TypeError (the
    # quadratic's root in pairs, scaled, at (a, b, c) = (1e-300, -1, 1e300),
    # float64, every hash seed)
    from symgrad.export.printers import HEADERS
    from symgrad.export.source import _pair_helpers

    h: dict = {}
    exec(HEADERS["torch"] + _pair_helpers("torch"), h)  # noqa: S102 (symgrad's own text)
    b = torch.tensor([1e-310, 4.0, 3.0], dtype=torch.float64)
    hi, lo = h["_dd_div"](-2, (b, torch.zeros_like(b)))
    assert hi.tolist() == [-np.inf, -0.5, -2 / 3] and lo[1:].abs().max() <= 2**-53


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_no_scaled_intermediate_leaves_the_range_where_the_inputs_and_value_are_normal(dtype):
    # NumPy's test_scaled sibling (x**2*y at (1e-20, 3e38) in float32: x**2
    # subnormal in the scaled range, 0.02755 for 0.03): torch's _sc_kg, _sc_use
    # and the products' (significand, exponent) helpers. Before: 5-57 rows
    # of 300-1000 per form off by up to every bit, in both types
    from tests.oracles import scaled_range_cases, ulps_where_normal

    syms, forms, cols, truths = scaled_range_cases(dtype)
    f = symgrad.lambdify(syms, [symgrad.scaled(e) for e in forms], backend="torch")
    got = f(*[torch.tensor(c) for c in cols])
    for e, g, t in zip(forms, got, truths):
        err = ulps_where_normal(g.numpy(), t, dtype)
        assert np.isfinite(err).sum() >= 300, e
        assert np.nanmax(err) <= 2.5, (e, np.nanmax(err), np.nanargmax(err))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sums_in_pairs_long_products_and_cancelled_factors_stay_in_range(dtype):
    # NumPy's test_scaled sibling: torch's fallback of u in floats with an
    # exponent of their own (_sc_ex, _sc_p2, _sc_nm, ...) and the check of
    # the products the estimates cannot bound (_sc_pp). Before: a sum in pairs
    # had no fallback (compensated(x**2*y + z**3) and its siblings, 11-311 rows
    # per form off by every bit), x*y*z*w*v's partial products float32 1,470
    # ulps off, (x - y)**2*z with y ~ x every bit (41-55 rows)
    from tests.oracles import scaled_more_cases, ulps_where_normal

    syms, cases = scaled_more_cases(dtype)
    for e, cols, t in cases:
        got = symgrad.lambdify(syms, symgrad.scaled(e), backend="torch")(
            *[torch.tensor(c) for c in cols])
        err = ulps_where_normal(got.numpy(), t, dtype)
        assert np.isfinite(err).sum() >= 200, e
        assert np.nanmax(err) <= 2.5, (e, np.nanmax(err), np.nanargmax(err))
