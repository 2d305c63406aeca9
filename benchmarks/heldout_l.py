"""A twelfth held-out family for the verdict audit (``bench_verdicts --family l``).

Written 2026-11-29 05:35-05:55 UTC (session 22, the lead) before any of its
rows was run, from material the other families (:mod:`benchmarks.heldout`
to :mod:`benchmarks.heldout_k`) and ``bench_ml_gradients`` do not hold:

* population genetics: Kimura's fixation probability and its derivative
  in the selection coefficient;
* rendering: the GGX (Trowbridge-Reitz) normal distribution, Smith's
  masking term for it, Schlick's Fresnel approximation;
* signal processing: a Butterworth filter's attenuation in decibels, the
  Hann window;
* statistical mechanics: the Schottky heat capacity of a two-level system,
  the departure of Planck's law from Rayleigh-Jeans;
* epidemiology: the SIR model's final-size residual;
* statistics: the truncated normal's log-normalizer in a tail and its
  derivative, the negative binomial's log-pmf by log-gamma functions, the
  mean difference of two exponential laws;
* numerics: a power minus one, a difference of cube roots, a square root
  minus one, the orientation determinant of three points;
* ML: the Richards (generalized logistic) curve and its derivative, the
  CosFace logit, the heteroscedastic Gaussian likelihood's derivative in
  its log-variance;
* accurate controls (as written, over their box): a control reported not
  ok is a false alarm.

Each is typed as its source writes it; a gradient is the one symgrad
derives.  ``--dtype float32`` runs the same rows in float32.  No row was
chosen or changed after a run (a row found mislabelled is relabelled in a
later commit that says so, with the measurements).
"""

from __future__ import annotations

import sympy as sp
from sympy import Rational, cos, erf, exp, log, loggamma, pi, sqrt

from .heldout import Held, _g

x, y, z = sp.symbols("x y z", real=True)
HALF = Rational(1, 2)


def family_l() -> list[Held]:
    """The twelfth family, in a fixed order (rows of the audit table)."""
    kimura = (1 - exp(-2 * x)) / (1 - exp(-4 * y * x))
    truncated = log((erf(y / sqrt(2)) - erf(x / sqrt(2))) / 2)
    richards = (1 + exp(-x)) ** (-1 / y)
    hetero = (log(2 * pi) + z + (x - y) ** 2 * exp(-z)) / 2
    return [
        # ---- population genetics ----
        Held("Kimura fixation probability", "population genetics (Kimura 1962)",
             kimura, {x: (-0.1, 0.1), y: (10.0, 1e4)}),
        Held("Kimura fixation probability d/ds", "population genetics (Kimura 1962)",
             _g(kimura, x), {x: (-0.1, 0.1), y: (10.0, 1e4)}),
        # ---- rendering ----
        Held("GGX normal distribution", "rendering (Walter et al. 2007)",
             y**2 / (pi * (x**2 * (y**2 - 1) + 1) ** 2), {x: (0.0, 1.0), y: (1e-3, 1.0)}),
        Held("Smith masking for GGX", "rendering (Walter et al. 2007)",
             2 / (1 + sqrt(1 + y**2 * (1 - x**2) / x**2)), {x: (1e-3, 1.0), y: (1e-3, 1.0)}),
        Held("Schlick's Fresnel approximation", "rendering (Schlick 1994)",
             x + (1 - x) * (1 - y) ** 5, {x: (0.0, 1.0), y: (0.0, 1.0)}),
        # ---- signal processing ----
        Held("Butterworth attenuation (n = 4), dB", "signal processing (Butterworth 1930)",
             -10 * log(1 + x**8) / log(10), {x: (1e-3, 1e3)}),
        Held("Hann window", "signal processing (Blackman and Tukey 1958)",
             (1 - cos(2 * pi * x)) / 2, {x: (0.0, 1.0)}),
        # ---- statistical mechanics ----
        Held("Schottky heat capacity", "statistical mechanics (two-level system)",
             x**2 * exp(x) / (1 + exp(x)) ** 2, {x: (-800.0, 800.0)}),
        Held("Planck minus Rayleigh-Jeans", "statistical mechanics (reduced units)",
             x**3 / (exp(x) - 1) - x**2, {x: (1e-6, 10.0)}),
        # ---- epidemiology ----
        Held("SIR final-size residual", "epidemiology (Kermack and McKendrick 1927)",
             1 - exp(-y * x) - x, {x: (0.0, 1.0), y: (1.0, 5.0)}),
        # ---- statistics ----
        Held("truncated normal log-normalizer, right tail",
             "statistics (truncated normal on [a, b])",
             truncated, {x: (3.0, 30.0), y: (31.0, 60.0)}),
        Held("truncated normal log-normalizer d/da", "statistics (truncated normal on [a, b])",
             _g(truncated, x), {x: (3.0, 30.0), y: (31.0, 60.0)}),
        Held("negative binomial log-pmf by log-gamma", "statistics (NB(r, p), k successes)",
             loggamma(x + y) - loggamma(y) - loggamma(x + 1) + y * log(z) + x * log(1 - z),
             {x: (0.0, 100.0), y: (1e3, 1e8), z: (0.01, 0.99)}),
        Held("mean difference of two exponential laws", "statistics (1/rate)",
             1 / x - 1 / y, {x: (0.1, 10.0), y: (0.1, 10.0)}),
        # ---- numerics ----
        Held("power minus one", "numerics (powm1)",
             x**y - 1, {x: (0.5, 2.0), y: (-1e-3, 1e-3)}),
        Held("difference of cube roots", "numerics (cbrt(x + 1) - cbrt(x))",
             (x + 1) ** Rational(1, 3) - x ** Rational(1, 3), {x: (1.0, 1e15)}),
        Held("square root minus one", "numerics (sqrt(1 + x) - 1)",
             sqrt(1 + x) - 1, {x: (-1e-3, 1.0)}),
        Held("orientation of three points", "computational geometry (ccw test)",
             z - x * y, {x: (-1.0, 1.0), y: (-1.0, 1.0), z: (-1.0, 1.0)}),
        # ---- ML ----
        Held("Richards curve", "ML / growth models (Richards 1959, generalized logistic)",
             richards, {x: (-800.0, 800.0), y: (0.1, 10.0)}),
        Held("Richards curve d/dx", "ML / growth models (Richards 1959, generalized logistic)",
             _g(richards, x), {x: (-800.0, 800.0), y: (0.1, 10.0)}),
        Held("CosFace logit", "ML (Wang et al. 2018, large margin cosine loss)",
             y * (x - Rational(7, 20)), {x: (-1.0, 1.0), y: (1.0, 64.0)}),
        Held("heteroscedastic Gaussian NLL d/dlogvar",
             "ML (Kendall and Gal 2017, aleatoric uncertainty)",
             _g(hetero, z), {x: (-10.0, 10.0), y: (-10.0, 10.0), z: (-10.0, 10.0)}),
        # ---- accurate controls ----
        Held("smoothstep", "control", x**2 * (3 - 2 * x), {x: (0.0, 1.0)}, "control"),
        Held("M/M/1 mean number in system", "control", x / (1 - x), {x: (0.0, 0.999)},
             "control"),
        Held("geometric mean of two positives", "control", sqrt(x * y),
             {x: (1e-3, 1e3), y: (1e-3, 1e3)}, "control"),
        Held("logistic of a small product", "control", 1 / (1 + exp(-x * y)),
             {x: (-1.0, 1.0), y: (-1.0, 1.0)}, "control"),
        Held("hyperbolic secant", "control", 1 / sp.cosh(x), {x: (-50.0, 50.0)}, "control"),
        Held("sum of two squares", "control", x**2 + y**2,
             {x: (-1e3, 1e3), y: (-1e3, 1e3)}, "control"),
    ]
