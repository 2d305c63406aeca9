"""symgrad.export.jax_ops: the functions generated JAX code computes in
operations XLA vectorizes, as accurate as jax.scipy.special's."""

import mpmath
import numpy as np

from ..backends import jax, jnp


def test_erf_series_coefficients_are_erfs_taylor_coefficients():
    from symgrad.export.jax_ops import ERF_SERIES, ERF_SERIES_UP_TO

    with mpmath.workprec(200):
        c = 2 / mpmath.sqrt(mpmath.pi)
        exact = [c * (-1) ** n / (mpmath.factorial(n) * (2 * n + 1)) for n in range(40)]
        exact[0] -= 1
        assert [float(e) for e in exact[:len(ERF_SERIES)]] == list(ERF_SERIES)
        z = mpmath.mpf(ERF_SERIES_UP_TO) ** 2  # the first term left out is negligible
        assert abs(exact[len(ERF_SERIES)]) * z ** len(ERF_SERIES) < mpmath.mpf(2) ** -60


def test_erf_as_accurate_as_jaxs_in_float64():
    from symgrad.export.jax_ops import erf

    rng = np.random.default_rng(0)
    pts = np.concatenate([rng.uniform(-1, 1, 300),
                          rng.uniform(1, 6.5, 300) * rng.choice([-1, 1], 300),
                          [0.0, 1.0, -1.0, np.nextafter(1.0, 2.0), 1e-300, 40.0, -np.inf, np.inf]])
    with jax.enable_x64():
        mine = np.asarray(jax.jit(erf)(jnp.asarray(pts)))
        jaxs = np.asarray(jax.jit(jax.scipy.special.erf)(jnp.asarray(pts)))
        assert erf(jnp.zeros(2, jnp.float32)).dtype == jnp.float32  # float32: jsp.erf
    with mpmath.workprec(120):
        true = np.array([float(mpmath.erf(mpmath.mpf(float(p)))) for p in pts])
    ulps = [np.abs(v - true) / np.spacing(np.abs(true)) for v in (mine, jaxs)]
    assert ulps[0].max() <= max(1.0, ulps[1].max())  # 1 ulp at most, as JAX's own
    assert ulps[0].mean() <= ulps[1].mean() + 0.05
    np.testing.assert_array_equal(mine[-3:], [1.0, -1.0, 1.0])
