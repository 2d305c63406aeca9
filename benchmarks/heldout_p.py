"""A sixteenth held-out family for the verdict audit (``bench_verdicts --family p``).

Written 2026-11-29 17:40-18:00 UTC (session 27, heldout27) before any of its
rows was run, from material the other families (:mod:`benchmarks.heldout`
to :mod:`benchmarks.heldout_o`), ``bench_ml_gradients`` and the FPBench
files in ``benchmarks/fpbench`` do not hold:

* ML: a Gaussian NLL whose variance is a softplus (its gradient in the
  pre-activation), SchNet's shifted softplus, the continuous Bernoulli's
  log-normalizer and mean, the arc-cosine kernel of order 1, the Matern-3/2
  variogram, the rational quadratic kernel's gradient in alpha, the type I
  generalized logistic log-density's gradient;
* statistics: Tukey's lambda quantile, the Burr XII and hyperbolic secant
  laws' log-survivals, the probability of at least one success in n trials,
  a Tweedie deviance at p = 6/5, the von Mises-Fisher log-normalizer on the
  sphere;
* finance: an annuity's Macaulay duration, CARA utility, a cash-or-nothing
  call near expiry;
* physics and numerics: Stumpff's C on its hyperbolic branch, the dew
  point depression by Magnus' formula, the spherical Bessel j2, the speed
  from a kinetic energy, the Fermi-Dirac integral of order 0 minus its
  classical limit, an ellipsoid's third flattening from its eccentricity,
  Kahan's discriminant b^2 - ac;
* accurate controls (as written, over their box): a control reported not
  ok is a false alarm.

Each is typed as its source writes it; a gradient is the one symgrad
derives.  ``--dtype float32`` runs the same rows in float32.  No row was
chosen or changed after a run (a row found mislabelled is relabelled in a
later commit that says so, with the measurements).
"""

from __future__ import annotations

import sympy as sp
from sympy import (
    Float,
    Rational,
    acos,
    asin,
    atan,
    atanh,
    cos,
    cosh,
    erf,
    exp,
    log,
    pi,
    sin,
    sinh,
    sqrt,
)

from .heldout import Held, _g

x, y, z = sp.symbols("x y z", real=True)


def family_p() -> list[Held]:
    """The sixteenth family, in a fixed order (rows of the audit table)."""
    v = log(1 + exp(x))  # a variance given by a softplus of x
    p = Rational(6, 5)  # Tweedie power
    a, b = Float("17.62"), Float("243.12")  # Magnus' coefficients (over water, deg C)
    gam = log(y) + a * x / (b + x)
    w = sqrt(1 - x**2)  # an ellipse's minor over major axis (eccentricity x)
    return [
        # ---- ML ----
        Held("softplus-variance Gaussian NLL d/ds",
             "ML (heteroscedastic regression, variance softplus(s), s = x, target y)",
             _g(log(v) / 2 + y**2 / (2 * v), x), {x: (-60.0, 60.0), y: (-3.0, 3.0)}),
        Held("shifted softplus", "ML (SchNet, Schuett et al. 2017: log(exp(x)/2 + 1/2))",
             log(exp(x) / 2 + Rational(1, 2)), {x: (-50.0, 700.0)}),
        Held("continuous Bernoulli log-normalizer",
             "ML (Loaiza-Ganem and Cunningham 2019, log C(lambda))",
             log(2 * atanh(1 - 2 * x) / (1 - 2 * x)), {x: (1e-9, 0.999999999)}),
        Held("continuous Bernoulli mean",
             "ML (Loaiza-Ganem and Cunningham 2019)",
             x / (2 * x - 1) + 1 / (2 * atanh(1 - 2 * x)), {x: (1e-9, 0.999999999)}),
        Held("arc-cosine kernel of order 1 (unit vectors)",
             "ML (Cho and Saul 2009, cosine x of the angle)",
             (sqrt(1 - x**2) + (pi - acos(x)) * x) / pi, {x: (-1.0, 1.0)}),
        Held("Matern-3/2 variogram", "ML / geostatistics (1 - k(r), unit length scale)",
             1 - (1 + sqrt(3) * x) * exp(-sqrt(3) * x), {x: (0.0, 50.0)}),
        Held("rational quadratic kernel d/dalpha",
             "ML (Gaussian processes, distance x, alpha y large)",
             _g((1 + x**2 / (2 * y)) ** (-y), y), {x: (0.0, 5.0), y: (1.0, 1e8)}),
        Held("generalized logistic (type I) log-density d/dx",
             "statistics / ML (Balakrishnan-Leung, shape y)",
             _g(log(y) - x - (y + 1) * log(1 + exp(-x)), x), {x: (-800.0, 40.0), y: (0.1, 10.0)}),
        # ---- statistics ----
        Held("Tukey lambda quantile", "statistics (Tukey's lambda law, p = x, lambda = y)",
             (x**y - (1 - x) ** y) / y, {x: (1e-6, 0.999999), y: (-0.5, 0.5)}),
        Held("von Mises-Fisher log-normalizer on the sphere",
             "statistics / ML (directional data, concentration x)",
             log(x / (4 * pi * sinh(x))), {x: (1e-6, 1000.0)}),
        Held("Burr XII log-survival", "survival analysis (shape k = y, c = z)",
             -y * log(1 + x**z), {x: (1e-6, 1e3), y: (0.5, 5.0), z: (0.5, 5.0)}),
        Held("hyperbolic secant law log-survival", "statistics (Talacko 1956)",
             log(1 - 2 * atan(exp(pi * x / 2)) / pi), {x: (-5.0, 400.0)}),
        Held("probability of at least one success", "probability (n = y trials, rate x)",
             1 - (1 - x) ** y, {x: (1e-12, 0.5), y: (1.0, 1e6)}),
        Held("Tweedie deviance (p = 6/5)", "GLMs (unit deviance, observation x, mean y)",
             2 * (x ** (2 - p) / ((1 - p) * (2 - p)) - x * y ** (1 - p) / (1 - p)
                  + y ** (2 - p) / (2 - p)),
             {x: (0.01, 100.0), y: (0.01, 100.0)}),
        # ---- finance ----
        Held("annuity's Macaulay duration", "finance (level annuity, yield x, y periods)",
             (1 + x) / x - y / ((1 + x) ** y - 1), {x: (1e-8, 0.2), y: (1.0, 100.0)}),
        Held("CARA utility", "finance (exponential utility, wealth x, risk aversion y)",
             (1 - exp(-y * x)) / y, {x: (-100.0, 100.0), y: (1e-10, 5.0)}),
        Held("cash-or-nothing call near expiry",
             "finance (Black-Scholes digital, r = 0, K = 1: spot x, vol y, time z)",
             (1 + erf((log(x) - y**2 * z / 2) / (y * sqrt(2 * z)))) / 2,
             {x: (0.5, 2.0), y: (0.1, 1.0), z: (1e-8, 1.0)}),
        # ---- physics and numerics ----
        Held("Stumpff C, hyperbolic branch", "orbital mechanics (universal variables, z = x < 0)",
             (1 - cosh(sqrt(-x))) / x, {x: (-100.0, -1e-12)}),
        Held("dew point depression (Magnus)",
             "meteorology (Magnus-Tetens, temperature x in deg C, humidity y)",
             x - b * gam / (a - gam), {x: (-20.0, 40.0), y: (0.05, 1.0)}),
        Held("spherical Bessel j2", "physics (scattering, textbook closed form)",
             (3 / x**2 - 1) * sin(x) / x - 3 * cos(x) / x**2, {x: (1e-4, 100.0)}),
        Held("speed from kinetic energy", "relativity (beta from K/mc^2 = x)",
             sqrt(1 - 1 / (1 + x) ** 2), {x: (1e-12, 1e3)}),
        Held("Fermi-Dirac F0 minus its classical limit",
             "statistical physics (log(1 + e^x) - e^x, reduced chemical potential x)",
             log(1 + exp(x)) - exp(x), {x: (-745.0, 5.0)}),
        Held("third flattening from the eccentricity", "geodesy (n = (a - b)/(a + b))",
             (1 - w) / (1 + w), {x: (1e-8, 0.5)}),
        Held("Kahan's discriminant", "numerics (Kahan 2004, b^2 - ac with b = y)",
             y**2 - x * z, {x: (1.0, 2.0), y: (1.0, 2.0), z: (1.0, 4.0)}),
        # ---- accurate controls ----
        Held("Langmuir isotherm", "control", x * y / (1 + x * y),
             {x: (0.0, 1e3), y: (1e-3, 10.0)}, "control"),
        Held("central angle from a chord", "control", 2 * asin(x / 2), {x: (0.0, 2.0)}, "control"),
        Held("Pade [2/2] of exp", "control", (12 + 6 * x + x**2) / (12 - 6 * x + x**2),
             {x: (-1.0, 1.0)}, "control"),
        Held("logistic map step", "control", y * x * (1 - x), {x: (0.0, 1.0), y: (0.0, 4.0)},
             "control"),
    ]
