"""A third held-out family for the verdict audit (``bench_verdicts --family c``).

Written 2026-11-27 (session 8), after every fix of the first two families
(:mod:`benchmarks.heldout`, :mod:`benchmarks.heldout_b`), from material
neither they nor ``bench_ml_gradients`` hold:

* scipy.stats log-densities, log-CDFs and log-survival functions typed as
  their textbook formulas (Gumbel, Weibull, exponential, Cauchy,
  Rayleigh, log-logistic, log-normal, gamma, beta, Kumaraswamy, GEV,
  logistic, Poisson);
* formulas in the style of *Numerical Recipes* and Kahan's notes (the
  one-pass variance, Heron's area of a needle triangle, the spherical
  law of cosines, compound interest, complex division);
* losses and activations of optax and ``torch.nn.functional`` not in the
  other families (optax.convex_kl_divergence, F.gaussian_nll_loss,
  F.poisson_nll_loss's Stirling term, the Dice loss, Barron's general
  robust loss, Tukey's biweight, the bipolar sigmoid, the soft
  exponential);
* multi-variable physics (van der Waals pressure, tidal acceleration, a
  thin lens, vis-viva, heat exchanger effectiveness, time dilation at low
  speed, the Black-Scholes d1);
* accurate controls (as written, over their box): a control reported not
  ok is a false alarm.

Each is typed as its source writes it; a gradient is the one symgrad
derives.  ``--dtype float32`` runs the same rows in float32.
"""

from __future__ import annotations

import sympy as sp
from sympy import Abs, Rational, acos, asin, atan, cos, erf, exp, log, loggamma, pi, sin, sqrt, tanh

from .heldout import HALF, Held, _g

x, y, z, v, w = sp.symbols("x y z v w", real=True)


def family_c() -> list[Held]:
    """The third family, in a fixed order (rows of the audit table)."""
    return [
        # ---- scipy.stats, textbook log-CDFs, log-survival, log-densities ----
        Held("Gumbel log-survival", "scipy.stats.gumbel_r.logsf", log(1 - exp(-exp(-x))),
             {x: (-3.0, 700.0)}),
        Held("Weibull log-CDF", "scipy.stats.weibull_min.logcdf", log(1 - exp(-x**y)),
             {x: (1e-6, 10.0), y: (0.5, 5.0)}),
        Held("exponential log-CDF", "scipy.stats.expon.logcdf", log(1 - exp(-x / y)),
             {x: (1e-10, 1e3), y: (0.1, 10.0)}),
        Held("Cauchy log-CDF", "scipy.stats.cauchy.logcdf", log(HALF + atan(x) / pi),
             {x: (-1e10, 1e3)}),
        Held("Cauchy log-survival", "scipy.stats.cauchy.logsf", log(HALF - atan(x) / pi),
             {x: (-1e3, 1e10)}),
        Held("Rayleigh log-CDF", "scipy.stats.rayleigh.logcdf", log(1 - exp(-x**2 / 2)),
             {x: (1e-8, 30.0)}),
        Held("log-logistic log-CDF", "scipy.stats.fisk.logcdf", -log(1 + x**(-y)),
             {x: (1e-3, 1e3), y: (0.5, 10.0)}),
        Held("log-normal log-CDF", "scipy.stats.lognorm.logcdf (s = 1)",
             log((1 + erf(log(x) / sqrt(2))) / 2), {x: (1e-30, 1e3)}),
        Held("gamma log-density", "scipy.stats.gamma.logpdf", (y - 1) * log(x) - x - loggamma(y),
             {x: (1e-3, 100.0), y: (0.5, 20.0)}),
        Held("beta log-density", "scipy.stats.beta.logpdf (without its constant)",
             (y - 1) * log(x) + (z - 1) * log(1 - x), {x: (1e-12, 0.5), y: (0.5, 5.0),
                                                       z: (0.5, 5.0)}),
        Held("Kumaraswamy log-survival", "scipy.stats (textbook)", y * log(1 - x**z),
             {x: (1e-6, 0.999), y: (0.5, 5.0), z: (0.5, 5.0)}),
        Held("GEV log-CDF", "scipy.stats.genextreme.logcdf", -(1 + y * x)**(-1 / y),
             {x: (0.0, 10.0), y: (1e-6, 1.0)}),
        Held("logistic log-density", "scipy.stats.logistic.logpdf", -x - 2 * log(1 + exp(-x)),
             {x: (-800.0, 800.0)}),
        Held("Poisson log-pmf (continuous k)", "scipy.stats.poisson.logpmf",
             x * log(y) - y - loggamma(x + 1), {x: (0.0, 100.0), y: (0.1, 100.0)}),
        Held("Laplace log-CDF, right half", "scipy.stats.laplace.logcdf",
             log(1 - exp(-x) / 2), {x: (0.0, 700.0)}),
        Held("Gumbel log-survival d/dx", "scipy.stats.gumbel_r.logsf",
             _g(log(1 - exp(-exp(-x))), x), {x: (-3.0, 700.0)}),
        Held("Weibull log-CDF d/dk", "scipy.stats.weibull_min.logcdf",
             _g(log(1 - exp(-x**y)), y), {x: (1e-3, 10.0), y: (0.5, 5.0)}),
        # ---- Numerical Recipes / Kahan-style formulas ----
        Held("one-pass variance of two", "NR 14.1 (the formula it warns against)",
             (x**2 + y**2) / 2 - ((x + y) / 2)**2, {x: (-1e6, 1e6), y: (-1e6, 1e6)}),
        Held("Heron's area (needle triangles)", "Kahan, Miscalculating area",
             sqrt((x + y + z) * (-x + y + z) * (x - y + z) * (x + y - z)) / 4,
             {x: (1.0, 2.0), y: (1.0, 2.0), z: (1e-6, 1.0)}),
        Held("spherical law of cosines", "great-circle distance",
             acos(sin(x) * sin(y) + cos(x) * cos(y) * cos(z)),
             {x: (-1.5, 1.5), y: (-1.5, 1.5), z: (-1e-3, 1e-3)}),
        Held("compound interest", "finance", (1 + x / y)**y, {x: (-0.5, 0.5), y: (1.0, 1e12)}),
        Held("complex division, real part", "NR 5.5 (naive)",
             (x * z + y * v) / (z**2 + v**2), {x: (-10.0, 10.0), y: (-10.0, 10.0),
                                               z: (-1e200, 1e200), v: (-1e200, 1e200)}),
        Held("(1 - cos x)/x^2", "NR-style series test", (1 - cos(x)) / x**2,
             {x: (-1.0, 1.0)}),
        Held("log(1 + x) - x", "NR-style", log(1 + x) - x, {x: (-0.5, 1.0)}),
        Held("(x - sin x)/x^3", "NR-style", (x - sin(x)) / x**3, {x: (-1.0, 1.0)}),
        # ---- optax / torch.nn.functional losses and activations ----
        Held("convex KL divergence (elementwise)", "optax.convex_kl_divergence",
             exp(y) * (y - x) - exp(y) + exp(x), {x: (-30.0, 30.0), y: (-30.0, 30.0)}),
        Held("Gaussian NLL loss", "F.gaussian_nll_loss", (log(z) + (x - y)**2 / z) / 2,
             {x: (-10.0, 10.0), y: (-10.0, 10.0), z: (1e-6, 10.0)}),
        Held("Poisson NLL, Stirling term", "F.poisson_nll_loss(full=True)",
             x * log(x) - x + log(2 * pi * x) / 2, {x: (1.0, 1e6)}),
        Held("Dice loss (two scalars)", "segmentation losses", 1 - 2 * x * y / (x**2 + y**2),
             {x: (1e-3, 1e3), y: (1e-3, 1e3)}),
        Held("Barron's general robust loss", "Barron 2019 (c = 1)",
             Abs(y - 2) / y * ((x**2 / Abs(y - 2) + 1)**(y / 2) - 1),
             {x: (-100.0, 100.0), y: (0.1, 1.9)}),
        Held("Tukey biweight", "robust statistics", (1 - (1 - x**2)**3) / 6, {x: (-1.0, 1.0)}),
        Held("bipolar sigmoid", "activation", (1 - exp(-x)) / (1 + exp(-x)),
             {x: (-800.0, 800.0)}),
        Held("soft exponential (alpha > 0)", "activation", (exp(y * x) - 1) / y + y,
             {x: (-10.0, 10.0), y: (1e-8, 1.0)}),
        Held("Dice loss d/dx", "segmentation losses", _g(1 - 2 * x * y / (x**2 + y**2), x),
             {x: (1e-3, 1e3), y: (1e-3, 1e3)}),
        Held("Gaussian activation", "activation", exp(-x**2), {x: (-30.0, 30.0)}),
        Held("bipolar sigmoid'", "activation", _g((1 - exp(-x)) / (1 + exp(-x)), x),
             {x: (-800.0, 800.0)}),
        # ---- multi-variable physics ----
        Held("van der Waals pressure", "physics (R = 1)", z / (y - Rational(1, 20)) - x / y**2,
             {x: (0.0, 10.0), y: (0.1, 10.0), z: (0.01, 10.0)}),
        Held("tidal acceleration", "physics", 1 / (x - y)**2 - 1 / (x + y)**2,
             {x: (1.0, 1e6), y: (1e-6, 0.5)}),
        Held("thin lens image distance", "optics", 1 / (1 / x - 1 / y),
             {x: (0.1, 10.0), y: (0.1, 10.0)}),
        Held("vis-viva speed", "orbital mechanics", sqrt(2 / x - 1 / y),
             {x: (0.1, 2.0), y: (1.0, 10.0)}),
        Held("heat exchanger effectiveness", "counterflow NTU method",
             (1 - exp(-x * (1 - y))) / (1 - y * exp(-x * (1 - y))),
             {x: (0.01, 20.0), y: (0.0, 0.999999)}),
        Held("time dilation at low speed", "special relativity", 1 - sqrt(1 - v**2),
             {v: (-1.0, 1.0)}),
        Held("Black-Scholes d1", "finance (r = 0)", (log(x / y) + z**2 / 2) / z,
             {x: (0.5, 2.0), y: (0.5, 2.0), z: (1e-4, 2.0)}),
        # ---- accurate controls (as written, over their box) ----
        Held("normal log-density", "scipy.stats.norm.logpdf", -x**2 / 2 - log(sqrt(2 * pi)),
             {x: (-1e150, 1e150)}, "control"),
        Held("Laplace log-CDF, left half", "scipy.stats.laplace.logcdf", x - log(2),
             {x: (-700.0, 0.0)}, "control"),
        Held("reduced mass", "physics", x * y / (x + y), {x: (1e-3, 1e3), y: (1e-3, 1e3)},
             "control"),
        Held("parallel resistors", "physics", 1 / (1 / x + 1 / y),
             {x: (1e-3, 1e3), y: (1e-3, 1e3)}, "control"),
        Held("quadratic root, the stable form (ac < 0)", "NR 5.6",
             -2 * z / (y + sqrt(y**2 - 4 * x * z)), {x: (0.1, 10.0), y: (0.1, 10.0),
                                                     z: (-10.0, -0.1)}, "control"),
        Held("KL divergence, log target (elementwise)", "F.kl_div(log_target=True)",
             exp(y) * (y - x), {x: (-30.0, 30.0), y: (-30.0, 30.0)}, "control"),
        Held("hardswish", "F.hardswish", x * sp.Min(sp.Max(x + 3, 0), 6) / 6,
             {x: (-1e3, 1e3)}, "control"),
        Held("LiSHT", "activation", x * tanh(x), {x: (-1e3, 1e3)}, "control"),
        Held("projectile range", "physics (g = 9.81)", x**2 * sin(2 * y) / Rational(981, 100),
             {x: (0.0, 1e3), y: (0.01, 1.5)}, "control"),
        # (written as a control; it loses 60.9 bits where sin(z/2)**2 underflows, z ~ 1e-160)
        Held("haversine distance, small angles", "great-circle distance",
             2 * asin(sqrt(sin((y - x) / 2)**2 + cos(x) * cos(y) * sin(z / 2)**2)),
             {x: (-1.0, 1.0), y: (-1.0, 1.0), z: (-1e-3, 1e-3)}),
    ]
