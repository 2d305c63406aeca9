"""A fourth held-out family for the verdict audit (``bench_verdicts --family d``).

Written 2026-11-27 22:10 UTC (session 11, verdicts11) before any of its
rows was run, from material the other families (:mod:`benchmarks.heldout`,
:mod:`benchmarks.heldout_b`, :mod:`benchmarks.heldout_c`) and
``bench_ml_gradients`` do not hold:

* information theory and statistics: the binary entropy and its
  derivative, the KL divergence between two Gaussians and between two
  Bernoullis, the log-odds ratio, the log-beta function through
  ``loggamma``, the Hellinger distance of two Bernoullis, the logarithmic
  mean, the Box-Muller radius;
* numerical analysis: forward and central differences, divided
  differences of ``log`` and of powers, the geometric series with a real
  exponent, the continuous-compounding limit, a Newton step for a square
  root;
* geometry: the cross product of nearly parallel vectors, the angle
  between vectors by ``acos`` of the normalized dot product, the law of
  cosines' angle, the distance from a point to a line;
* physics and chemistry: the Arrhenius difference, the rocket equation,
  the relativistic Doppler factor and Lorentz factor, the barometric
  formula's difference, the Lorentzian line, the Nernst potential of a
  ratio, the Clausius-Clapeyron pressure ratio, a damped oscillator;
* ML: the gradients of the log-cosh loss, softsign, the ArcFace margin
  ``cos(acos(x) + m)``, the Bradley-Terry log-likelihood ``log σ(x − y)``
  written with exponentials, the cosine similarity of 2-vectors, the
  squared hinge of a margin, the SELU negative branch, the Gompertz
  activation;
* accurate controls (as written, over their box): a control reported not
  ok is a false alarm.

Each is typed as its source writes it; a gradient is the one symgrad
derives.  ``--dtype float32`` runs the same rows in float32.
"""

from __future__ import annotations

import sympy as sp
from sympy import Abs, acos, atan, cos, cosh, erf, exp, log, loggamma, sin, sqrt, tanh

from .heldout import HALF, Held, _g

x, y, z, v, w = sp.symbols("x y z v w", real=True)


def family_d() -> list[Held]:
    """The fourth family, in a fixed order (rows of the audit table)."""
    entropy = -x * log(x) - (1 - x) * log(1 - x)
    bradley_terry = -log(1 + exp(-(x - y)))
    return [
        # ---- information theory and statistics ----
        Held("binary entropy", "information theory", entropy, {x: (1e-300, 1.0)}),
        Held("binary entropy d/dp", "information theory", _g(entropy, x), {x: (1e-300, 1.0)}),
        Held("KL of two Gaussians", "textbook", log(y / x) + (x**2 + z**2) / (2 * y**2) - HALF,
             {x: (0.1, 10.0), y: (0.1, 10.0), z: (-1e-3, 1e-3)}),
        Held("KL of two Bernoullis", "textbook",
             x * log(x / y) + (1 - x) * log((1 - x) / (1 - y)),
             {x: (1e-6, 0.999999), y: (1e-6, 0.999999)}),
        Held("log-odds ratio", "epidemiology",
             log(x / (1 - x)) - log(y / (1 - y)), {x: (1e-8, 0.99), y: (1e-8, 0.99)}),
        Held("log-beta by loggamma", "scipy.special.betaln (textbook)",
             loggamma(x) + loggamma(y) - loggamma(x + y), {x: (0.5, 1e6), y: (0.5, 1e6)}),
        Held("Hellinger distance of Bernoullis", "statistics",
             sqrt(1 - sqrt(x * y) - sqrt((1 - x) * (1 - y))),
             {x: (0.01, 0.99), y: (0.01, 0.99)}),
        Held("logarithmic mean", "heat transfer / statistics", (x - y) / (log(x) - log(y)),
             {x: (1.0, 1e6), y: (1.0, 1e6)}),
        Held("Box-Muller radius", "random variates", sqrt(-2 * log(x)), {x: (1e-300, 1.0)}),
        Held("Gaussian tail ratio (Mills)", "statistics",
             exp(-x**2 / 2) / (1 - erf(x / sqrt(2))), {x: (-5.0, 30.0)}),
        # ---- numerical analysis ----
        Held("forward difference of exp", "NA textbook", (exp(x + y) - exp(x)) / y,
             {x: (-10.0, 10.0), y: (1e-12, 1e-3)}),
        Held("central difference of sin", "NA textbook", (sin(x + y) - sin(x - y)) / (2 * y),
             {x: (-10.0, 10.0), y: (1e-10, 1e-2)}),
        Held("divided difference of log", "NA textbook", (log(x) - log(y)) / (x - y),
             {x: (0.5, 2.0), y: (0.5, 2.0)}),
        Held("divided difference of a cube", "NA textbook", (x**3 - y**3) / (x - y),
             {x: (-100.0, 100.0), y: (-100.0, 100.0)}),
        Held("geometric series, real ratio", "NA textbook", (1 - x**y) / (1 - x),
             {x: (0.5, 1.5), y: (1.0, 50.0)}),
        Held("compounding limit", "finance", (1 + x / y) ** y, {x: (-1.0, 1.0), y: (1.0, 1e12)}),
        Held("Newton step for sqrt", "NA textbook", (x + y / x) / 2 - sqrt(y),
             {x: (0.5, 2.0), y: (0.25, 4.0)}),
        Held("log of a ratio near 1", "NA textbook", log(x / y), {x: (0.5, 2.0), y: (0.5, 2.0)}),
        # ---- geometry ----
        Held("cross product, near parallel", "computational geometry", x * w - y * v,
             {x: (1.0, 2.0), y: (1.0, 2.0), v: (1.0, 2.0), w: (1.0, 2.0)}),
        Held("angle between 2-vectors", "geometry",
             acos((x * v + y * w) / (sqrt(x**2 + y**2) * sqrt(v**2 + w**2))),
             {x: (0.5, 2.0), y: (0.5, 2.0), v: (0.5, 2.0), w: (0.5, 2.0)}),
        Held("law of cosines angle", "geometry", acos((x**2 + y**2 - z**2) / (2 * x * y)),
             {x: (1.0, 2.0), y: (1.0, 2.0), z: (0.01, 3.0)}),
        Held("distance to the line y = x", "geometry", Abs(x - y) / sqrt(2),
             {x: (-1e300, 1e300), y: (-1e300, 1e300)}),
        # ---- physics and chemistry ----
        Held("Arrhenius difference", "chemical kinetics", exp(-x / y) - exp(-x / z),
             {x: (1.0, 1e5), y: (100.0, 2000.0), z: (100.0, 2000.0)}),
        Held("rocket equation", "Tsiolkovsky", x * log(y / z),
             {x: (1.0, 5000.0), y: (1.0, 1e6), z: (1.0, 1e6)}),
        Held("relativistic Doppler factor", "special relativity", sqrt((1 + x) / (1 - x)),
             {x: (-1.0, 1.0)}),
        Held("Lorentz factor minus one", "special relativity", 1 / sqrt(1 - x**2) - 1,
             {x: (-1.0, 1.0)}),
        Held("barometric difference", "atmosphere", exp(-x / 8400) - exp(-y / 8400),
             {x: (0.0, 1e5), y: (0.0, 1e5)}),
        Held("Lorentzian line", "spectroscopy", y / (sp.pi * ((x - z) ** 2 + y**2)),
             {x: (-1e10, 1e10), y: (1e-10, 1e3), z: (-1e3, 1e3)}),
        Held("Nernst potential of a ratio", "electrochemistry", x * log(y / z) / 96485,
             {x: (1.0, 1e4), y: (1e-12, 10.0), z: (1e-12, 10.0)}),
        Held("Clausius-Clapeyron ratio", "thermodynamics", exp(x * (1 / y - 1 / z)),
             {x: (100.0, 1e5), y: (200.0, 600.0), z: (200.0, 600.0)}),
        Held("damped oscillator", "mechanics", exp(-x * y) * cos(z * y),
             {x: (0.0, 10.0), y: (0.0, 1e3), z: (0.0, 100.0)}),
        Held("Planck in wavelength", "radiation", 1 / (x**5 * (exp(1 / (x * y)) - 1)),
             {x: (1e-3, 10.0), y: (1e-3, 100.0)}),
        # ---- ML gradients ----
        Held("log-cosh loss d/dx", "tf.keras.losses.log_cosh", _g(log(cosh(x - y)), x),
             {x: (-1000.0, 1000.0), y: (-10.0, 10.0)}),
        Held("softsign d/dx", "F.softsign", _g(x / (1 + Abs(x)), x), {x: (-1e300, 1e300)}),
        Held("ArcFace margin", "ArcFace (m = 1/2)", cos(acos(x) + HALF), {x: (-1.0, 1.0)}),
        Held("ArcFace margin d/dx", "ArcFace (m = 1/2)", _g(cos(acos(x) + HALF), x),
             {x: (-1.0, 1.0)}),
        Held("Bradley-Terry log-likelihood", "ranking", bradley_terry,
             {x: (-800.0, 800.0), y: (-800.0, 800.0)}),
        Held("Bradley-Terry d/dx", "ranking", _g(bradley_terry, x),
             {x: (-800.0, 800.0), y: (-800.0, 800.0)}),
        Held("cosine similarity of 2-vectors", "F.cosine_similarity",
             (x * v + y * w) / sqrt((x**2 + y**2) * (v**2 + w**2)),
             {x: (-1e100, 1e100), y: (-1e100, 1e100), v: (-1.0, 1.0), w: (-1.0, 1.0)}),
        Held("SELU negative branch d/dx", "F.selu", _g(1.0507 * 1.67326 * (exp(x) - 1), x),
             {x: (-1000.0, 0.0)}),
        Held("Gompertz activation", "activation", exp(-exp(-x)), {x: (-10.0, 800.0)}),
        Held("Gompertz d/dx", "activation", _g(exp(-exp(-x)), x), {x: (-800.0, 800.0)}),
        Held("tanh-softplus product (mish) d/dx at large x", "mish",
             _g(x * tanh(log(1 + exp(x))), x), {x: (-50.0, 800.0)}),
        Held("Gaussian error linear unit (erf) d/dx, far left", "F.gelu",
             _g(x * (1 + erf(x / sqrt(2))) / 2, x), {x: (-40.0, 5.0)}),
        # ---- accurate controls ----
        Held("x exp(-x)", "control", x * exp(-x), {x: (0.0, 700.0)}, "control"),
        Held("atan of a ratio", "control", atan(x / y), {x: (0.1, 10.0), y: (0.1, 10.0)},
             "control"),
        # (written as a control; it is not one: exp(-(x - y)**2) amplifies the rounding of
        # (x - y)**2 by its size, 9.3-9.8 bits at |x - y| ~ 6 by both measurements)
        Held("Gaussian kernel", "textbook", exp(-(x - y) ** 2),
             {x: (-10.0, 10.0), y: (-10.0, 10.0)}),
        Held("log of a sum of squares", "control", log(x**2 + y**2),
             {x: (1.0, 1e100), y: (1.0, 1e100)}, "control"),
        Held("mean of two positives", "control", (x + y) / 2, {x: (0.0, 1e300), y: (0.0, 1e300)},
             "control"),
        Held("sin times exp", "control", sin(x) * exp(y), {x: (-3.0, 3.0), y: (-700.0, 700.0)},
             "control"),
        Held("rational saturation", "control", x / (1 + x), {x: (0.0, 1e300)}, "control"),
        Held("tanh of a product", "control", tanh(x * y), {x: (-100.0, 100.0), y: (-1.0, 1.0)},
             "control"),
        Held("sqrt of a product", "control", sqrt(x * y), {x: (1e-100, 1e100), y: (1e-100, 1e100)},
             "control"),
        Held("harmonic mean", "control", 2 * x * y / (x + y), {x: (1.0, 1e100), y: (1.0, 1e100)},
             "control"),
    ]

