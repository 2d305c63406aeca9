"""The NumPy functions whose PyTorch form differs (a Python number among
the arguments, or no function of that name), as generated PyTorch code calls
them (``_sg.maximum(t0, 0)``).  Only forward values: the derivatives of
exported code are symgrad's, never PyTorch's autograd of these."""

from __future__ import annotations

import math
import weakref

import torch
from torch.overrides import TorchFunctionMode

__all__ = ["maximum", "minimum", "fmin", "heaviside", "mod", "arctan2", "hypot", "cbrt",
           "polygamma", "digamma", "gamma", "loggamma", "lgamma_remainder", "digamma_remainder",
           "polygamma_remainder",
           "zeta", "ldexp", "logaddexp", "logaddexp2", "masked",
           "blocked", "block_bytes"]


def _pair(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a, b
    like = a if isinstance(a, torch.Tensor) else b
    if not isinstance(like, torch.Tensor):
        d = torch.get_default_dtype()
        return torch.as_tensor(a, dtype=d), torch.as_tensor(b, dtype=d)

    def conv(v):
        if isinstance(v, torch.Tensor):
            return v
        return torch.as_tensor(v, dtype=like.dtype, device=like.device)

    return conv(a), conv(b)


def maximum(a, b):
    return torch.maximum(*_pair(a, b))  # NaN propagates, as np.maximum


def minimum(a, b):
    return torch.minimum(*_pair(a, b))


def fmin(a, b):
    return torch.fmin(*_pair(a, b))  # NaN ignored, as np.fmin


def heaviside(x, h0):
    x, h = _pair(x, h0)
    return torch.heaviside(x, h.to(x.dtype))


def mod(a, b):
    return torch.remainder(*_pair(a, b))  # the sign of the divisor, as np.mod


def arctan2(y, x):
    return torch.atan2(*_pair(y, x))


def hypot(a, b):
    return torch.hypot(*_pair(a, b))


def logaddexp(a, b):
    return torch.logaddexp(*_pair(a, b))  # log(e^a + e^b) without overflow, as NumPy's


def logaddexp2(a, b):
    return torch.logaddexp2(*_pair(a, b))


def cbrt(x):
    return torch.sign(x) * torch.abs(x) ** (1 / 3)


def digamma(x):
    """ψ(x): :func:`symgrad.rewrites.remainders.digamma` (its polynomial at the
    points of its window only, :func:`masked`), PyTorch's digamma
    outside [1/4, 3], where it is within 2.3 bits (it loses 53 bits at ψ's
    root and 4-8 across [1/2, 5/2], float64 and float32).

    >>> f"{float(digamma(torch.tensor(1.4616321449683622, dtype=torch.float64))):.6e}"  # mpmath's
    '-9.241266e-17'
    """
    from ..rewrites import remainders as r

    lo, hi = r.DIGAMMA_NEAR
    near = (x >= lo) & (x <= hi)
    # (the polynomial, ~70 kernels, only where x is in the window, when that
    # is cheaper: masked; the same floats as remainders.digamma's)
    (v,) = masked((near,), (True,), lambda w: (r.digamma_near_root(w, torch.where),),
                  (torch.where(near, x, 2.0),), 70)
    return torch.where(near, v, torch.special.digamma(x))


def polygamma(n, x):
    if int(n) == 0:
        return digamma(x)
    if int(n) == 1:  # torch's trigamma: up to 3.8e6 ulps off in float64 (1.5: 4.6e-10
        # relative); the Hurwitz zeta(2, x), as scipy's and torch's own for n >= 2: 7
        return torch.special.zeta(2.0, x)
    return torch.special.polygamma(int(n), x)


def loggamma(x):
    return torch.where(x >= 0, torch.special.gammaln(x), torch.nan)  # real only above 0


def lgamma_remainder(x):
    """Stirling's remainder of log Γ (:mod:`symgrad.rewrites.remainders`)."""
    from ..rewrites.remainders import lgamma_remainder as of

    return of(x, torch.where, torch.log1p, torch.log)


def digamma_remainder(x):
    """``digamma(x) - log(x) + 1/(2x)`` (:mod:`symgrad.rewrites.remainders`)."""
    from ..rewrites.remainders import digamma_remainder as of

    return of(x, torch.where, torch.log1p, torch.log)


def polygamma_remainder(n, x):
    """``polygamma(n, x)`` less its first terms at infinity
    (:mod:`symgrad.rewrites.remainders`)."""
    from ..rewrites.remainders import polygamma_remainder as of

    return of(int(n), x, torch.where)


def gamma(x):
    # |gamma(x)| = exp(lgamma(x)); below 0 the sign alternates between the poles
    odd = torch.remainder(torch.floor(x), 2) == 1
    sign = torch.where((x < 0) & odd, -1.0, 1.0).to(x.dtype)
    return sign * torch.exp(torch.lgamma(x))


def zeta(s, q=1.0):
    s, q = _pair(s, q)
    return torch.special.zeta(s, q)


def ldexp(x, k):
    """x·2**k for integer tensors k up to ±4096 (NumPy's range), by steps of
    at most 2**±1000: torch.ldexp multiplies by 2.0**k, which overflows past
    k = 1023 (a subnormal input is scaled by 2**1074)."""
    x, k = _pair(x, k)
    k = k.to(torch.int64)
    if x.dtype != torch.float64:  # (float32: exact, as numpy.ldexp, measured; its steps
        # of 2**1000 were inf: scaled(x*y) at (1.5, 1e38) read the largest float)
        return torch.ldexp(x, torch.clamp(k, -1000, 1000))
    for _ in range(5):
        step = torch.clamp(k, -1000, 1000)
        x = x * torch.pow(2.0, step.to(x.dtype))
        k = k - step
    return x


# scaled(u)'s helpers (symgrad.codegen.scaling's SCALE_HELPERS, for tensors)
def _sc_e(x):
    """An input's binary exponent, NaN where it is 0 or not finite; in the
    input's float type, whose range sets how far _sc_k lets values go (as
    NumPy's: in float64 every float32 input was let go to float64's range,
    scaled(x*y) at (1.5, 1e38) read the largest float, at (1e38, 3e-44) inf)."""
    x = torch.as_tensor(x)
    t = x.dtype if x.dtype.is_floating_point else torch.float64
    e = torch.frexp(x.to(t))[1].to(t)
    return torch.where(torch.isfinite(x) & (x != 0), e, torch.nan)


def _sc_max(*es):
    """The largest of exponent estimates, NaN ignored."""
    out = torch.as_tensor(es[0])
    for e in es[1:]:
        out = torch.fmax(out, torch.as_tensor(e))
    return out


def _sc_k(q, n, *args):
    """The exponent k (a multiple of q) the n inputs (their exponents first)
    are divided by 2**k by, per point (see SCALE_HELPERS)."""
    return _sc_k_in(q, n, False, 0, *args)[0]


def _sc_kg(q, n, *args):
    """:func:`_sc_k`, and where it left its interval (see SCALE_HELPERS)."""
    return _sc_k_in(q, n, False, 0, *args)


def _sc_kn(q, n, s, *args):
    """:func:`_sc_k` with the inputs only kept normal (see SCALE_HELPERS'
    ``_sc_kn``: float64's exponent range, as ``big`` below)."""
    return _sc_k_in(q, n, True, s, *args)[0]


def _sc_k_in(q, n, normal, soft, *args):
    es = [torch.as_tensor(e) for e in args[:n]]
    t = es[0].dtype
    for e in es[1:]:
        t = torch.promote_types(t, e.dtype)
    t = t if t.is_floating_point else torch.float64
    es = [e.to(t) for e in es]
    fi = torch.finfo(t)  # (as NumPy's finfo: maxexp, minexp)
    maxexp, minexp = round(math.log2(fi.max)), round(math.log2(fi.tiny))
    big = float(maxexp - 8)
    nan = torch.tensor(float("nan"), dtype=t)
    hi = lo = nan
    for e in es:
        hi, lo = torch.fmax(hi, e), torch.fmin(lo, e)
    k = torch.floor((hi + lo) / 2)
    top = torch.tensor(float("inf"), dtype=t)
    bottom = -top
    if normal:
        for e in es:
            bottom = torch.fmax(bottom, e - float(maxexp))
            top = torch.fmin(top, e - float(minexp + 1))
    nb, nt = bottom, top
    bottom, top, out = _sc_span(t, big, bottom, top, args[n:len(args) - 3 * soft])
    k = torch.maximum(torch.minimum(k, top), bottom)
    if soft:  # k moved toward them as far as the inputs stay normal, and
        # down no further than the others' bottom (up last: overflows first)
        inf = torch.tensor(math.inf, dtype=t)
        sb, st, _ = _sc_span(t, big, -inf, inf, args[len(args) - 3 * soft:])
        k = torch.minimum(k, torch.fmax(torch.maximum(st, nb), bottom))
        k = torch.maximum(k, torch.minimum(sb, nt))
    k = torch.where(torch.isfinite(k), torch.ceil(k / q) * q, torch.zeros_like(k))
    k = torch.where((k > top) & (k - q >= bottom), k - q, k)
    return torch.clamp(k, -4096, 4096).to(torch.int32), (k > top) | (k < bottom) | out


def _sc_span(t, big, bottom, top, bounds):
    """k's interval from ``bounds``, met with [bottom, top], and where a
    value of degree 0 is past big (see SCALE_HELPERS' ``_sc_span``)."""
    by = {}
    for i in range(0, len(bounds), 3):
        e = torch.as_tensor(bounds[i]).to(t)
        d = float(bounds[i + 1]) / float(bounds[i + 2])
        got = by.get(d)
        by[d] = (e, e) if got is None else (torch.fmax(got[0], e), torch.fmin(got[1], e))
    out = torch.zeros((), dtype=torch.bool)
    for d, (hi, lo) in by.items():
        if d == 0:
            out = out | (hi > big) | (lo < -big)
            continue
        a, b = ((hi - big) / d, (lo + big) / d) if d > 0 else ((lo + big) / d, (hi - big) / d)
        bottom, top = torch.fmax(bottom, a), torch.fmin(top, b)
    return bottom, top, out


def _sc_use(v, main, gap, *xs):
    """Where k left its interval (gap), the scaled value v is subnormal or 0,
    inf or NaN, or an input was rounded when scaled (xs: each input, its
    scaled value, its exponent; see SCALE_HELPERS)."""
    v = torch.as_tensor(v)
    tiny = torch.finfo(v.dtype).tiny
    use = ~(v.abs() >= tiny) | torch.isinf(v) | torch.as_tensor(gap)
    for i in range(0, len(xs), 3):
        x, s, k = torch.as_tensor(xs[i]), xs[i + 1], xs[i + 2]
        use = use | ((ldexp(s, k) != x) & torch.isfinite(x))
    return use


def _sc_pick(main, alt, use, rows=None):
    """``main``, or ``alt`` where ``use`` holds and alt is not NaN (or main
    is); alt computed at every row (rows None: see SCALE_HELPERS)."""
    return torch.where(use & (~torch.isnan(alt) | torch.isnan(main)), alt, main)


def _sc_up(v, k):
    """``v*2**k``; the largest float (signed) where that is past it by less
    than 8 of its ulps (see SCALE_HELPERS)."""
    v = torch.as_tensor(v)
    r = ldexp(v, k)
    fi = torch.finfo(r.dtype)
    half = ldexp(v, torch.as_tensor(k) - 1).abs()
    band = torch.isinf(r) & (half <= fi.max / 2 * (1 + 4 * fi.eps))
    return torch.where(band, torch.copysign(torch.full_like(r, fi.max), v), r)


def _sc_mul(c, *fs):
    """The constant c times factors each scaled back (in fours: scaled value,
    exponent k, degree p/r): significands multiplied, exponents summed,
    scaled back once; NaN where a factor is not finite (see SCALE_HELPERS):
    :func:`_sc_mt`'s pair scaled back (the same floats: its NaN significand
    stays NaN, a zero's exponent -2**30 scales ±0 to ±0)."""
    return _sc_up(*_sc_mt(c, *fs))


def _sc_mt(c, *fs):
    """:func:`_sc_mul`'s product not scaled back: (significand, exponent);
    see SCALE_HELPERS."""
    m, t, ok = c, 0, True
    for i in range(0, len(fs), 4):
        f = torch.as_tensor(fs[i])
        mi, ei = torch.frexp(f)
        m, t = m * mi, t + ei.to(torch.int64) + torch.as_tensor(fs[i + 1]) // fs[i + 3] * fs[i + 2]
        ok = ok & torch.isfinite(f)
    m = torch.where(ok, m, torch.full_like(m, float("nan")))
    return m, torch.where(m == 0, -(2**30), torch.as_tensor(t))


def _sc_mtp(p, r, mt):
    """(significand, exponent) of a product to the power p/r (see SCALE_HELPERS)."""
    m, t = mt
    s = t % r
    m = ldexp(m, s)
    m = torch.sqrt(m) if (p, r) == (1, 2) else 1 / torch.sqrt(m) if (p, r) == (-1, 2) \
        else m**p if r == 1 else torch.pow(m, p / r)
    return m, torch.where(m == 0, -(2**30), (t - s) // r * p)


def _sc_mts(*mts):
    """(significand, exponent) of a sum of pairs' values (see SCALE_HELPERS)."""
    top = mts[0][1]
    for _, t in mts[1:]:
        top = torch.maximum(top, t)
    s = 0
    for m, t in mts:
        s = s + ldexp(m, t - top)
    return s, top


def _sc_upt(c, mt):
    """c times a pair's value, scaled back once (see SCALE_HELPERS)."""
    return _sc_up(c * mt[0], mt[1])


def _sc_ex(x):
    """A value's binary exponent as an integer; 0 where it is not finite,
    -2**24 where it is 0 (see SCALE_HELPERS)."""
    x = torch.as_tensor(x)
    e = torch.where(torch.isfinite(x) & (x != 0), torch.frexp(x)[1].to(torch.int64), 0)
    return torch.where(x == 0, -(2**24), e)


def _sc_exz(x):
    """0, or -2**24 where x is 0."""
    return torch.where(torch.as_tensor(x) == 0, -(2**24), 0)


def _sc_nm(m, e):
    """m divided by 2**e, e its exponent: in [0.5, 1)."""
    return ldexp(m, -torch.clamp(torch.as_tensor(e), min=-(2**12)))


def _sc_p2(like, d):
    """2**d in the float type of ``like``."""
    like = torch.as_tensor(like)
    t = like.dtype if like.dtype.is_floating_point else torch.float64
    d = torch.as_tensor(d, device=like.device)
    return ldexp(torch.ones_like(d, dtype=t), d)


def _sc_xmax(*ts):
    """The largest of integer exponents."""
    out = torch.as_tensor(ts[0])
    for t in ts[1:]:
        out = torch.maximum(out, torch.as_tensor(t))
    return out


def _sc_xmod(t, r):
    """``t mod r``, in [0, r)."""
    return torch.as_tensor(t) % r


def _sc_xroot(t, r, p):
    """The exponent of (m*2**t)**(p/r) (see SCALE_HELPERS)."""
    t = torch.as_tensor(t)
    return torch.div(t - t % r, r, rounding_mode="floor") * p


def _sc_xsel(*args):
    """The exponent of a Piecewise's branch: (condition, exponent) pairs, then
    the default."""
    out = torch.as_tensor(args[-1])
    for i in range(len(args) - 3, -1, -2):
        out = torch.where(torch.as_tensor(args[i]), torch.as_tensor(args[i + 1]), out)
    return out


def _sc_xb(m, t, *xs):
    """The fallback m*2**t scaled back once; NaN where an input is not finite."""
    r = _sc_up(m, t)
    ok = True
    for x in xs:
        ok = ok & torch.isfinite(torch.as_tensor(x))
    return torch.where(ok, r, torch.full_like(r, float("nan")))


def _sc_pp(like, m, *nv):
    """Where a product's partial products may leave the normal range, from
    its factors (a power n and a scaled value, the first m; then an input's
    scaled exponent; ``like`` a scaled input: the type; see SCALE_HELPERS)."""
    hi = lo = 0
    t = torch.as_tensor(like).dtype
    for i in range(0, len(nv), 2):
        n, v = nv[i], torch.as_tensor(nv[i + 1])
        v = v if v.dtype.is_floating_point else v.to(torch.float64)  # (a constant)
        a = torch.frexp(v)[1].to(v.dtype) if i < 2 * m else v
        if n > 0:  # (fmax, fmin: an input 0's NaN exponent counts as 0)
            zero = torch.zeros_like(a)
            hi, lo = hi + n * torch.fmax(a, zero), lo + n * torch.fmin(a, zero + 1) - n
        else:
            c = torch.fmax(a, 1 - a)
            hi, lo = hi - n * c, lo + n * c
    fi = torch.finfo(t if t.is_floating_point else torch.float64)
    maxexp, minexp = round(math.log2(fi.max)), round(math.log2(fi.tiny))
    return (hi >= maxexp) | (lo < minexp)


def _sc_any(*masks):
    """The union of row masks."""
    out = torch.as_tensor(masks[0])
    for m in masks[1:]:
        out = out | torch.as_tensor(m)
    return out


# masked(): a region's nodes computed at the points where its condition holds
# (symbol.export.subsets).  In units of one eager kernel over the tensor
# (~1.3 ms per 10^6 float64), measured 11:00-11:40 UTC at load 6-9: finding
# the points (nonzero) costs about 0.5 + 25 p(1 - p) of a tensor with a share
# p of them, gathering an input p, scattering an output 2p
_FIND, _FIND_MIXED, _GATHER, _SCATTER = 0.5, 25.0, 1.0, 2.0


def masked(conds: tuple, held: tuple, fn, inputs: tuple, cost: int) -> tuple:
    """``fn(*inputs)`` (a region's outputs: a tuple), computed at the points
    where each of ``conds`` is ``held`` (True or False) only when that saves
    more of ``cost`` (the region's, in kernels over the tensor) than finding
    the points, gathering the inputs and scattering the outputs cost; the
    outputs' other entries are then unspecified (no output of the program
    reads them: a ``torch.where`` selects another value there).  Traced code
    (``torch.compile``, ``torch.func``, ``torch.jit``), a recording autograd
    and tensors not on the CPU compute every point, as before."""
    tensors = _flat(inputs) + _flat(conds)
    if not _eager(tensors):
        return fn(*inputs)
    shape = torch.broadcast_shapes(*(t.shape for t in tensors))
    n = math.prod(shape)
    if n == 0:
        return fn(*inputs)
    m = None
    for c, h in zip(conds, held):
        c = torch.as_tensor(c).expand(shape).reshape(-1)
        c = c if h else ~c
        m = c if m is None else m & c
    count = int(m.sum())
    p = count / n
    n_in = len(_flat(inputs))
    if (1 - p) * cost <= _FIND + _FIND_MIXED * p * (1 - p) + p * (_GATHER * n_in + _SCATTER):
        return fn(*inputs)
    idx = m.nonzero().squeeze(1)
    got = fn(*(_gathered(v, shape, idx) for v in inputs))
    return tuple(_scattered(g, shape, idx) for g in got)


def _scattered(g, shape, idx):
    """An output computed at the points ``idx`` as a tensor of ``shape``."""
    if isinstance(g, tuple):
        return tuple(_scattered(u, shape, idx) for u in g)
    if not isinstance(g, torch.Tensor) or g.numel() == 1 and g.dim() == 0:
        return g  # a constant: the same everywhere
    out = torch.zeros(shape, dtype=g.dtype)  # (not empty: no subnormal garbage to slow a where)
    out.view(-1).index_copy_(0, idx, g.expand(idx.shape))
    return out


def _flat(vs) -> list:
    out = []
    for v in vs:
        if isinstance(v, tuple):
            out.extend(_flat(v))
        elif isinstance(v, torch.Tensor):
            out.append(v)
    return out


def _eager(tensors: list) -> bool:
    """Whether ``tensors`` are plain CPU tensors outside any tracing: data
    may decide which points a value is computed at."""
    if torch.compiler.is_compiling() or torch.jit.is_tracing():
        return False
    wrapped = getattr(torch._C._functorch, "is_functorch_wrapped_tensor", None)
    grad = torch.is_grad_enabled()
    for t in tensors:
        if type(t) is not torch.Tensor or t.device.type != "cpu" \
                or (grad and t.requires_grad) or wrapped is None or wrapped(t):
            return False
    return True


def _gathered(v, shape, idx):
    """A region's input at the points ``idx`` of the flattened ``shape``: a
    tensor of one element (a constant) as it is, a pair each part."""
    if isinstance(v, tuple):
        return tuple(_gathered(u, shape, idx) for u in v)
    if not isinstance(v, torch.Tensor) or v.numel() == 1:
        return v
    if v.shape != shape:
        v = v.expand(shape)
    return v.reshape(-1).index_select(0, idx)


# blocked(): an eager program run over blocks of at most this many bytes per
# tensor (65,536 float64): every tensor a block's program makes stays in the
# core's cache for the operations that read them next, where over 10^6 points
# each operation streams 8 MB from and to memory.  Measured (CPU medians,
# joint value+Jacobian kernels of 10^6 float64, load 10-12): blocks of 2^13 /
# 2^15 / 2^16 / 2^17 float64: log Phi 157 -> 185 / 132 / 116 / 116 ms,
# GELU-tanh 506 -> 339 / 300 / 280 / 310, mish 8967 -> 4857 / 3647 / 4530 /
# 5103 (smaller blocks pay Python's per-call cost per operation)
BLOCK_BYTES = 2**19
# ... and at most this many bytes for all the tensors a block's program holds
# at once (its width: measured once per kernel, _width): a program in pairs
# of floats holds 20-32 tensors where a plain one holds 5, so its blocks are
# smaller.  Joint kernels of 10^6 float64, normal(0, 3), blocks of 2^16 /
# 2^17 / 2^18 / 2^19 bytes (CPU medians of 5, load 12-13; widths in
# brackets): x tanh x + sin^2 (32) 854 / 738 / 784 / 1047 ms, GELU-tanh (26)
# 249 / 192 / 185 / 200, GELU-erf (24) 240 / 201 / 196 / 196, mish (20) 156 /
# 126 / 122 / 131, log Phi (20) 126 / 105 / 93 / 90, softplus (5) 21 / 19 /
# 20 / 22; session 10's at load 3 alike (docs/performance.md)
WORKING_BYTES = 2**23
_PROBE = 64  # points of the run that measures a kernel's width


class _Alive(TorchFunctionMode):
    """The most tensors of more than 0 dimensions alive at once while it is on."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list = []
        self.peak = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for o in out if isinstance(out, tuple) else (out,):
            if isinstance(o, torch.Tensor) and o.dim():
                self.refs.append(weakref.ref(o))
        self.refs = [r for r in self.refs if r() is not None]
        self.peak = max(self.peak, len(self.refs))
        return out


def _width(kernel, xs: tuple) -> int:
    """The most tensors ``kernel``'s program holds at once, measured by one
    run on the first :data:`_PROBE` points of ``xs`` (then kept on the
    function: a kernel is compiled per float type)."""
    w = getattr(kernel, "_sg_width", None)
    if w is None:
        probe = tuple(x.reshape(-1)[:_PROBE] if x.dim() else x for x in xs)
        with _Alive() as alive:
            kernel(*probe)
        w = max(1, alive.peak)
        try:
            kernel._sg_width = w
        except AttributeError:  # (a callable that takes no attribute: measured each call)
            pass
    return w


def block_bytes(kernel, xs: tuple) -> int:
    """Bytes per tensor of a block of ``kernel`` over ``xs``: the power of two
    at or below :data:`WORKING_BYTES` over the program's width, at most
    :data:`BLOCK_BYTES`.

    >>> block_bytes(lambda x: (x + 1,), (torch.zeros(100),)) == BLOCK_BYTES
    True
    """
    per = WORKING_BYTES // _width(kernel, xs)
    return min(BLOCK_BYTES, 1 << max(per.bit_length() - 1, 0))


def blocked(kernel, xs: tuple) -> tuple | None:
    """``kernel(*xs)``'s outputs (tensors of the inputs' shape and type)
    computed block by block of :func:`block_bytes` per tensor, or None where
    that does not apply: inputs that are not plain eager CPU tensors (see
    :func:`masked`'s traced cases), not all of one float type, those that are
    not 0-d (a 0-d one goes whole to every block) not all contiguous of one
    shape, or fewer than two blocks of points.  The program is elementwise,
    so each block's values are the whole call's (the same floats)."""
    if not xs or not _eager(list(xs)):
        return None
    arrays = [x for x in xs if x.dim() > 0]
    if not arrays:
        return None
    x0 = arrays[0]
    shape, dt = x0.shape, x0.dtype
    if not dt.is_floating_point or any(x.dtype != dt for x in xs) \
            or any(x.shape != shape or not x.is_contiguous() for x in arrays):
        return None
    n = x0.numel()
    if n < 2 * max(1, BLOCK_BYTES // x0.element_size()):
        return None
    step = max(1, block_bytes(kernel, xs) // x0.element_size())
    flat = [x.view(-1) if x.dim() else None for x in xs]
    outs: list | None = None
    for i in range(0, n, step):
        got = kernel(*(x if f is None else f[i:i + step] for x, f in zip(xs, flat)))
        if outs is None:
            outs = [torch.empty(n, dtype=dt) for _ in got]
        for o, g in zip(outs, got):
            o[i:i + step] = g  # (a number or a 0-d tensor: broadcast over the block)
    return tuple(o.view(shape) for o in outs)
