"""An eighth held-out family for the verdict audit (``bench_verdicts --family h``).

Written 2026-11-28 09:33-09:40 UTC (session 15, verdicts15) before any of its
rows was run, from material the other families (:mod:`benchmarks.heldout`
to :mod:`benchmarks.heldout_g`) and ``bench_ml_gradients`` do not hold:

* statistics: the log of a Poisson CDF at one, a truncated exponential's
  mean on [0, 1], the negative binomial's log-probability of zero in its
  dispersion (derivative), the collision (Renyi-2) entropy of a coin, the
  Wilson score interval's lower end, the KL divergence of two exponential
  distributions, the Hellinger distance of two normals of one variance;
* finance and economics: the Bachelier (normal model) call, CRRA utility,
  the Nelson-Siegel slope loading, the Vasicek bond's duration factor;
* physics and electronics: the Brillouin function for J = 1, the Compton
  shift, the fall distance under quadratic drag, the Shockley diode
  current, an RC circuit's charge fraction;
* ML: a two-way softmax's gradient in its temperature, the squareplus
  activation and its gradient (Barron 2021), the Gaussian-kernel MMD term of
  two scalars;
* accurate controls (as written, over their box): a control reported not
  ok is a false alarm.

Each is typed as its source writes it; a gradient is the one symgrad
derives.  ``--dtype float32`` runs the same rows in float32.  No row was
chosen or changed after a run (a row found mislabelled is relabelled in a
later commit that says so, with the measurements).
"""

from __future__ import annotations

import sympy as sp
from sympy import cos, coth, erfc, exp, log, pi, sqrt

from .heldout import Held, _g

x, y, z = sp.symbols("x y z", real=True)


def _phi(t):
    """The standard normal CDF, as textbooks write it with erfc."""
    return erfc(-t / sqrt(2)) / 2


def _pdf(t):
    """The standard normal density."""
    return exp(-t**2 / 2) / sqrt(2 * pi)


def family_h() -> list[Held]:
    """The eighth family, in a fixed order (rows of the audit table)."""
    nb_log_p0 = x * log(x / (x + y))  # (x dispersion r, y mean)
    d = (x - y) / z  # Bachelier: x forward, y strike, z = sigma sqrt(T)
    zw = 1.96
    wilson = ((x + zw**2 / (2 * y) - zw * sqrt(x * (1 - x) / y + zw**2 / (4 * y**2)))
              / (1 + zw**2 / y))  # (x observed proportion, y trials)
    soft2 = exp(x / z) / (exp(x / z) + exp(y / z))  # (z temperature)
    squareplus = (x + sqrt(x**2 + 4)) / 2
    return [
        # ---- statistics ----
        Held("Poisson log-CDF at one", "statistics (count models)",
             log(exp(-x) * (1 + x)), {x: (1e-8, 800.0)}),
        Held("truncated exponential mean on [0, 1]", "statistics (truncated laws)",
             1 / x - 1 / (exp(x) - 1), {x: (1e-6, 50.0)}),
        Held("negative binomial log P(0) d/dr", "statistics (count models)",
             _g(nb_log_p0, x), {x: (0.1, 1e6), y: (0.1, 10.0)}),
        Held("collision entropy of a coin", "information theory (Renyi, order 2)",
             -log(x**2 + (1 - x)**2), {x: (0.0, 1.0)}),
        Held("Wilson score interval, lower end", "statistics (binomial intervals)",
             wilson, {x: (0.0, 1.0), y: (10.0, 1e6)}),
        Held("KL of two exponential laws", "statistics (divergences)",
             log(x / y) + y / x - 1, {x: (0.01, 10.0), y: (0.01, 10.0)}),
        Held("Hellinger distance of two normals (one variance)", "statistics (divergences)",
             sqrt(1 - exp(-(x - y)**2 / (8 * z**2))),
             {x: (-10.0, 10.0), y: (-10.0, 10.0), z: (0.1, 10.0)}),
        # ---- finance and economics ----
        Held("Bachelier call", "finance (normal model)",
             (x - y) * _phi(d) + z * _pdf(d),
             {x: (50.0, 150.0), y: (50.0, 150.0), z: (0.1, 10.0)}),
        Held("CRRA utility", "economics (risk aversion)",
             (x**(1 - y) - 1) / (1 - y), {x: (0.1, 10.0), y: (0.0, 3.0)}),
        Held("Nelson-Siegel slope loading", "finance (term structure)",
             (1 - exp(-x / y)) / (x / y), {x: (1e-6, 30.0), y: (0.1, 10.0)}),
        Held("Vasicek bond duration factor", "finance (short-rate models)",
             (1 - exp(-x * y)) / x, {x: (1e-12, 0.5), y: (1.0, 50.0)}),
        # ---- physics and electronics ----
        Held("Brillouin function, J = 1", "physics (paramagnetism)",
             3 * coth(3 * x / 2) / 2 - coth(x / 2) / 2, {x: (1e-6, 50.0)}),
        Held("Compton shift (m)", "physics (scattering)",
             2.42631e-12 * (1 - cos(x)), {x: (1e-9, 3.14)}),
        Held("fall distance under quadratic drag", "physics (mechanics)",
             log(sp.cosh(sqrt(9.81 * x) * y)) / x, {x: (1e-6, 1.0), y: (0.0, 1000.0)}),
        Held("Shockley diode current", "electronics",
             y * (exp(x / 0.025852) - 1), {x: (-1.0, 0.8), y: (1e-14, 1e-9)}),
        Held("RC charge fraction", "electronics", 1 - exp(-x / y),
             {x: (0.0, 10.0), y: (1e-3, 10.0)}),
        # ---- ML ----
        Held("two-way softmax d/dtemperature", "ML (temperature scaling)", _g(soft2, z),
             {x: (-10.0, 10.0), y: (-10.0, 10.0), z: (0.01, 10.0)}),
        Held("squareplus", "ML (activation, Barron 2021)", squareplus, {x: (-1e8, 1e8)}),
        Held("squareplus d/dx", "ML (activation, Barron 2021)", _g(squareplus, x),
             {x: (-1e8, 1e8)}),
        Held("Gaussian-kernel MMD cross term", "ML (kernel two-sample)",
             2 - 2 * exp(-(x - y)**2 / (2 * z**2)),
             {x: (-10.0, 10.0), y: (-10.0, 10.0), z: (0.1, 10.0)}),
        # ---- accurate controls ----
        Held("continuously compounded yield", "control", -log(x) / y,
             {x: (1e-3, 1.0), y: (0.1, 30.0)}, "control"),
        Held("Coulomb force", "control", 8.9875517923e9 * x * y / z**2,
             {x: (1e-9, 1e-3), y: (1e-9, 1e-3), z: (1e-3, 10.0)}, "control"),
        Held("ideal gas pressure", "control", x * 8.314462618 * y / z,
             {x: (0.01, 100.0), y: (1.0, 1000.0), z: (1e-3, 10.0)}, "control"),
        Held("geometric mean of two", "control", sqrt(x * y),
             {x: (0.1, 100.0), y: (0.1, 100.0)}, "control"),
    ]
