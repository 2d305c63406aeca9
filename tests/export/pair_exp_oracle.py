"""The points and the mpmath oracle of the pair exp/expm1 tests that JAX's
and PyTorch's generated helpers share (test_jax_ops, test_torch), and the
test's body itself (:func:`check_pair_exp`)."""

from __future__ import annotations

import mpmath
import numpy as np

# (float type, the range of x, the relative bound the table reaches)
TYPES = ((np.float64, 745.0, 2.0**-104), (np.float32, 103.0, 2.0**-47))


def pair_points(rng: np.random.Generator, dt, lim: float) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (x, lo) over the whole range and near 0, half with a low part of 0."""
    x = np.concatenate([rng.uniform(-lim, lim, 150), rng.uniform(-1, 1, 50)
                        * 2.0 ** rng.integers(-40, 0, 50)]).astype(dt)
    lo = (x * rng.uniform(-1, 1, len(x)) * np.finfo(dt).eps / 2).astype(dt)
    lo[::2] = 0
    return x, lo


def assert_exp_and_expm1(x: np.ndarray, lo: np.ndarray, outs: list, dt, bound: float) -> None:
    """``outs`` (exp's and expm1's pairs as arrays) within ``bound`` of
    mpmath's exp and expm1 of x + lo (at 200 bits: the caller sets mpmath's
    precision), where the result's low part is normal and it is finite."""
    fine = np.finfo(dt).tiny * 2.0 ** (2 * np.finfo(dt).nmant + 4)  # lo normal
    for n, (hi_, lo_) in enumerate(outs):
        assert hi_.dtype == dt
        for i in range(len(x)):
            arg = mpmath.mpf(float(x[i])) + mpmath.mpf(float(lo[i]))
            want = mpmath.exp(arg) if n == 0 else mpmath.expm1(arg)
            if not fine <= abs(want) <= np.finfo(dt).max / 2:
                continue
            got = mpmath.mpf(float(hi_[i])) + mpmath.mpf(float(lo_[i]))
            assert abs(got - want) <= bound * abs(want), (dt, n, x[i], lo[i])


def check_pair_exp(backend: str, monkeypatch, run) -> None:
    """The generated ``backend`` code's pair helpers, exp and expm1 of the
    pairs of :func:`pair_points` in each of :data:`TYPES` computed by
    ``run(helpers, x, lo, lim)`` (exp's and expm1's pairs as arrays; ``lim``
    the type's range of x, for a caller's own checks), within the
    type's bound of mpmath (at 200 bits, restored after the test)."""
    from symgrad.export.printers import HEADERS
    from symgrad.export.source import _pair_helpers

    h: dict = {}
    exec(HEADERS[backend] + _pair_helpers(backend), h)  # noqa: S102 (symgrad's own text)
    rng = np.random.default_rng(5)
    monkeypatch.setattr(mpmath.mp, "prec", 200)
    for dt, lim, bound in TYPES:
        x, lo = pair_points(rng, dt, lim)
        assert_exp_and_expm1(x, lo, run(h, x, lo, lim), dt, bound)
