"""A seventeenth held-out family for the verdict audit (``bench_verdicts --family q``).

Written 2026-11-29 20:20-20:40 UTC (session 28, the lead) before any of its
rows was run, from material the other families (:mod:`benchmarks.heldout`
to :mod:`benchmarks.heldout_p`), ``bench_ml_gradients`` and the FPBench
files in ``benchmarks/fpbench`` do not hold (checked by name and by
expression; a row that is a sibling of another family's class is typed as
its own source writes it):

* ML: the Boltzmann soft maximum and mellowmax of two values, a two-Gaussian
  mixture's responsibility (unequal variances), the noise-contrastive
  estimation loss's gradient, the logistic sigmoid written through tanh;
* divergences: Itakura-Saito, the KL divergence of two Poisson laws, the
  Hellinger distance of two Poisson laws;
* statistics: the truncated exponential's log-partition, the Erlang-2 CDF, the normal
  probability of an interval in the right tail, exp(x) erfc(sqrt(x));
* geometry and physics: the elevation angle from Cartesian coordinates, the
  spherical Bessel j1, the derivative of sinc, the Bose-Einstein occupation
  less its classical limit, the coth's distance to its
  asymptote, the difference of two Boltzmann factors, two sound levels
  summed in decibels less the louder one;
* numerics: asin(x) - x, the quadratic mean less the arithmetic mean,
  1 - cos(x - y), a difference of asinh-transformed counts, tanh(x - y) - 1;
* accurate controls (as written, over their box): a control reported not
  ok is a false alarm.

Each is typed as its source writes it; a gradient is the one symgrad
derives.  ``--dtype float32`` runs the same rows in float32.  No row was
chosen or changed after a run (a row found mislabelled is relabelled in a
later commit that says so, with the measurements).
"""

from __future__ import annotations

import sympy as sp
from sympy import Max, Rational, asin, asinh, cos, cosh, erf, erfc, exp, log, sin, sinh, sqrt, tanh
from sympy.codegen.cfunctions import log1p

from .heldout import Held, _g

x, y, z = sp.symbols("x y z", real=True)


def family_q() -> list[Held]:
    """The seventeenth family, in a fixed order (rows of the audit table)."""
    r2 = sqrt(2)
    return [
        # ---- ML ----
        Held("Boltzmann soft maximum of two", "ML / RL (Boltzmann operator, inverse temperature 1)",
             (x * exp(x) + y * exp(y)) / (exp(x) + exp(y)),
             {x: (-800.0, 800.0), y: (-800.0, 800.0)}),
        Held("mellowmax of two (omega 5)", "RL (Asadi and Littman 2017)",
             log((exp(5 * x) + exp(5 * y)) / 2) / 5, {x: (-200.0, 200.0), y: (-200.0, 200.0)}),
        Held("two-Gaussian responsibility (variances 1 and 4)",
             "ML (EM for a mixture, equal weights, means 0 and y)",
             exp(-x**2 / 2) / (exp(-x**2 / 2) + exp(-(x - y) ** 2 / 8) / 2),
             {x: (-100.0, 100.0), y: (-5.0, 5.0)}),
        Held("noise-contrastive estimation loss d/ds",
             "ML (Gutmann and Hyvarinen 2010: -log sigmoid(s - log(k q)), score x, k q = y)",
             _g(-log(1 / (1 + exp(-(x - log(y))))), x), {x: (-800.0, 800.0), y: (1e-3, 1e3)}),
        Held("sigmoid through tanh", "ML (sigma(x) = (1 + tanh(x/2))/2)",
             (1 + tanh(x / 2)) / 2, {x: (-700.0, 40.0)}),
        # ---- divergences ----
        Held("Itakura-Saito divergence", "signal processing (spectra x and y)",
             x / y - log(x / y) - 1, {x: (1e-3, 1e3), y: (1e-3, 1e3)}),
        Held("KL of two Poisson laws", "statistics (rates x and y)",
             x * log(x / y) - x + y, {x: (1e-3, 1e3), y: (1e-3, 1e3)}),
        Held("Hellinger distance of two Poisson laws", "statistics (squared, rates x and y)",
             1 - exp(-(sqrt(x) - sqrt(y)) ** 2 / 2), {x: (1e-3, 1e3), y: (1e-3, 1e3)}),
        # ---- statistics ----
        Held("truncated exponential log-partition on [0, 1]",
             "statistics (exponential family on the unit interval, natural parameter x)",
             log((exp(x) - 1) / x), {x: (-700.0, 700.0)}),
        Held("Erlang-2 CDF", "queueing (rate 1, time x)",
             1 - exp(-x) * (1 + x), {x: (1e-10, 700.0)}),
        Held("normal probability of a right-tail interval", "statistics (P(x < Z < y))",
             (erf(y / r2) - erf(x / r2)) / 2, {x: (5.0, 30.0), y: (5.0, 30.0)}),
        Held("exp(x) erfc(sqrt(x))", "physics (Faddeeva on the real line, diffusion)",
             exp(x) * erfc(sqrt(x)), {x: (0.0, 1e4)}),
        # ---- geometry and physics ----
        Held("elevation angle from Cartesian coordinates", "geometry (asin(z / r))",
             asin(z / sqrt(x**2 + y**2 + z**2)),
             {x: (1e-9, 1.0), y: (1e-9, 1.0), z: (0.1, 10.0)}),
        Held("spherical Bessel j1", "physics (scattering, textbook closed form)",
             sin(x) / x**2 - cos(x) / x, {x: (1e-6, 100.0)}),
        Held("sinc d/dx", "signal processing (derivative of sin(x)/x)",
             _g(sin(x) / x, x), {x: (1e-8, 100.0)}),
        Held("Bose-Einstein occupation less its classical limit",
             "statistical physics (1/(e^x - 1) - 1/x, reduced energy x)",
             1 / (exp(x) - 1) - 1 / x, {x: (1e-8, 700.0)}),
        Held("coth less its asymptote", "physics (coth(x) - 1 at large x)",
             cosh(x) / sinh(x) - 1, {x: (1e-3, 350.0)}),
        Held("difference of two Boltzmann factors", "statistical physics (energies x and y)",
             exp(-x) - exp(-y), {x: (0.0, 700.0), y: (0.0, 700.0)}),
        Held("two sound levels summed, less the louder", "acoustics (levels x >= y in dB)",
             10 * log(10 ** (x / 10) + 10 ** (y / 10)) / log(10) - x,
             {x: (0.0, 300.0), y: (-300.0, 0.0)}),
        # ---- numerics ----
        Held("asin(x) - x", "numerics (a third-order difference)",
             asin(x) - x, {x: (1e-8, 1.0)}),
        Held("quadratic mean less the arithmetic mean", "numerics (RMS - mean of two)",
             sqrt((x**2 + y**2) / 2) - (x + y) / 2, {x: (1e-3, 1e3), y: (1e-3, 1e3)}),
        Held("1 - cos of an angle difference", "geometry (versine of x - y)",
             1 - cos(x - y), {x: (-3.0, 3.0), y: (-3.0, 3.0)}),
        Held("difference of asinh-transformed counts", "statistics (variance-stabilized counts)",
             asinh(x) - asinh(y), {x: (0.0, 1e6), y: (0.0, 1e6)}),
        Held("tanh of a difference less one", "ML (tanh(x - y) - 1, saturated units)",
             tanh(x - y) - 1, {x: (-20.0, 20.0), y: (-20.0, 20.0)}),
        # ---- accurate controls ----
        Held("Cobb-Douglas output", "control", x ** Rational(3, 10) * y ** Rational(7, 10),
             {x: (1e-3, 1e3), y: (1e-3, 1e3)}, "control"),
        Held("three lenses in contact", "control", 1 / (1 / x + 1 / y + 1 / z),
             {x: (1e-3, 1e3), y: (1e-3, 1e3), z: (1e-3, 1e3)}, "control"),
        Held("softplus written stably", "control", log1p(exp(-abs(x)))
             + Max(x, 0), {x: (-700.0, 700.0)}, "control"),
        Held("Michaelis-Menten with a competitive inhibitor", "control",
             x / (y * (1 + z) + x), {x: (0.0, 1e3), y: (1e-3, 1e3), z: (0.0, 1e3)}, "control"),
    ]

