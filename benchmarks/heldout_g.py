"""A seventh held-out family for the verdict audit (``bench_verdicts --family g``).

Written 2026-11-28 06:52-06:58 UTC (session 14, verdicts14) before any of its
rows was run, from material the other families (:mod:`benchmarks.heldout`
to :mod:`benchmarks.heldout_f`) and ``bench_ml_gradients`` do not hold:

* statistics: a normal log-likelihood's score in sigma, a Bernoulli
  log-likelihood's score, the Cauchy NLL's score in its scale, the
  zero-inflated Poisson's log-probability of zero, the Gompertz survival
  function, the log-logistic hazard;
* physics: the rapidity of a unit-mass particle from its momentum, the
  invariant mass of two massless particles, Kepler's equation's residual,
  a Hohmann transfer's first burn, the specific orbital energy;
* finance: a level-coupon bond's price at a small yield, the Black-Scholes
  put without rates, the forward rate between two maturities, the
  Black-Scholes gamma without rates;
* ML losses and gradients not in the ML table: three-logit softmax
  cross-entropy's gradient in the true logit, soft-DTW's soft minimum of
  two costs, the mean squared log error's gradient, the contrastive loss
  of a distance;
* accurate controls (as written, over their box): a control reported not
  ok is a false alarm.

Each is typed as its source writes it; a gradient is the one symgrad
derives.  ``--dtype float32`` runs the same rows in float32.  No row was
chosen or changed after a run (a row found mislabelled is relabelled in a
later commit that says so, with the measurements).
"""

from __future__ import annotations

import sympy as sp
from sympy import Max, cos, erfc, exp, log, pi, sin, sqrt

from .heldout import Held, _g

x, y, z = sp.symbols("x y z", real=True)


def _phi_upper(t):
    """The standard normal's upper tail, as textbooks write it with erfc."""
    return erfc(t / sqrt(2)) / 2


def family_g() -> list[Held]:
    """The seventh family, in a fixed order (rows of the audit table)."""
    normal_ll = -log(y) - x**2 / (2 * y**2)  # (x residual, y sigma)
    bernoulli_ll = z * log(x) + (1 - z) * log(1 - x)  # (x probability, z label)
    cauchy_nll = -log(y) + log(y**2 + x**2)  # (x residual, y scale)
    ce3 = -log(exp(x) / (exp(x) + exp(y) + exp(z)))
    msle = (log(1 + x) - log(1 + y)) ** 2
    d1 = (log(x / y) + z**2 / 2) / z  # (x spot, y strike, z = sigma sqrt(T))
    d2 = d1 - z
    return [
        # ---- statistics ----
        Held("normal log-likelihood d/dsigma", "statistics", _g(normal_ll, y),
             {x: (-10.0, 10.0), y: (0.01, 10.0)}),
        Held("Bernoulli log-likelihood d/dp", "statistics", _g(bernoulli_ll, x),
             {x: (1e-6, 1 - 1e-6), z: (0.0, 1.0)}),
        Held("Cauchy NLL d/dscale", "statistics (robust regression)", _g(cauchy_nll, y),
             {x: (-10.0, 10.0), y: (0.01, 10.0)}),
        Held("zero-inflated Poisson, log P(0)", "statistics (count models)",
             log(x + (1 - x) * exp(-y)), {x: (1e-12, 0.5), y: (1e-12, 10.0)}),
        Held("Gompertz survival", "survival analysis",
             exp(-x / y * (exp(y * z) - 1)), {x: (1e-3, 1.0), y: (1e-10, 1.0), z: (0.0, 10.0)}),
        Held("log-logistic hazard", "survival analysis",
             (z / y) * (x / y) ** (z - 1) / (1 + (x / y) ** z),
             {x: (0.01, 10.0), y: (0.1, 10.0), z: (0.5, 5.0)}),
        # ---- physics ----
        Held("rapidity from momentum (unit mass)", "particle physics",
             log((sqrt(x**2 + 1) + x) / (sqrt(x**2 + 1) - x)) / 2, {x: (-1e6, 1e6)}),
        Held("invariant mass of two massless particles", "particle physics",
             sqrt(2 * x * y * (1 - cos(z))), {x: (0.1, 100.0), y: (0.1, 100.0), z: (1e-8, 3.0)}),
        Held("Kepler's equation, mean anomaly", "orbital mechanics", x - y * sin(x),
             {x: (1e-6, 1.0), y: (0.9, 1.0)}),
        Held("Hohmann transfer, first burn", "orbital mechanics",
             sqrt(1 / x) * (sqrt(2 * y / (x + y)) - 1), {x: (1.0, 10.0), y: (1.0, 10.0)}),
        Held("specific orbital energy", "orbital mechanics", x**2 / 2 - 1 / y,
             {x: (0.1, 3.0), y: (0.1, 10.0)}),
        # ---- finance ----
        Held("level-coupon bond price", "finance (fixed income)",
             z * (1 - (1 + x) ** -y) / x + (1 + x) ** -y,
             {x: (1e-9, 0.2), y: (1.0, 50.0), z: (0.0, 0.1)}),
        Held("Black-Scholes put, no rates", "finance (options)",
             y * _phi_upper(d2) - x * _phi_upper(d1),
             {x: (50.0, 150.0), y: (50.0, 150.0), z: (0.01, 1.0)}),
        Held("forward rate between two maturities", "finance (term structure)",
             (y * z - x * (z - 1e-3 * z)) / (1e-3 * z),
             {x: (0.0, 0.1), y: (0.0, 0.1), z: (0.1, 30.0)}),
        Held("Black-Scholes gamma, no rates", "finance (option Greeks)",
             exp(-d1**2 / 2) / (sqrt(2 * pi) * x * z),
             {x: (50.0, 150.0), y: (50.0, 150.0), z: (0.01, 1.0)}),
        # ---- ML losses and gradients ----
        Held("three-logit cross-entropy d/dx", "ML (softmax CE)", _g(ce3, x),
             {x: (-30.0, 30.0), y: (-30.0, 30.0), z: (-30.0, 30.0)}),
        Held("soft-DTW soft minimum", "ML (soft-DTW)",
             -z * log(exp(-x / z) + exp(-y / z)),
             {x: (0.0, 100.0), y: (0.0, 100.0), z: (0.01, 10.0)}),
        Held("mean squared log error d/dx", "ML (regression loss)", _g(msle, x),
             {x: (0.0, 100.0), y: (0.0, 100.0)}),
        Held("contrastive loss, dissimilar pair", "ML (siamese networks)",
             Max(0, 1 - x) ** 2, {x: (0.0, 2.0)}),
        # ---- accurate controls ----
        Held("Kepler's third law, period", "control", 2 * pi * sqrt(x**3 / y),
             {x: (0.1, 100.0), y: (0.1, 100.0)}, "control"),
        Held("escape speed", "control", sqrt(2 * y / x),
             {x: (0.1, 100.0), y: (0.1, 100.0)}, "control"),
        Held("zero-coupon bond price", "control", exp(-x * y),
             {x: (0.0, 0.2), y: (0.0, 30.0)}, "control"),
        Held("Weibull hazard", "control", (z / y) * (x / y) ** (z - 1),
             {x: (0.1, 10.0), y: (0.1, 10.0), z: (0.5, 5.0)}, "control"),
        Held("Lorentz factor", "control", 1 / sqrt(1 - x**2), {x: (0.0, 0.9)}, "control"),
    ]
