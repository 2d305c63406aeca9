"""A fifteenth held-out family for the verdict audit (``bench_verdicts --family o``).

Written 2026-11-29 15:30-15:50 UTC (session 26, heldout26) before any of its
rows was run, from material the other families (:mod:`benchmarks.heldout`
to :mod:`benchmarks.heldout_n`) and ``bench_ml_gradients`` do not hold:

* robotics and kinematics: a rotation's angle from its matrix's trace, a
  3-vector's polar angle by acos, a two-link arm's reach deficit, a
  cycloidal cam profile;
* optics: Fresnel's s and p amplitudes (near an index match, across
  Brewster's angle), a one-term Sellmeier index near its resonance;
* orbital mechanics: the hyperbolic Kepler equation, the semi-major axis
  from vis-viva, the Hohmann transfer's second burn, a conic's radius;
* statistics: the geometric and logarithmic-series laws' log-pmfs, the
  Yeo-Johnson transform's derivative in lambda, Cohen's h;
* numerics: a second central difference, the AM-GM gap, Cardano's real root;
* thermodynamics: Planck's law minus Wien's, a Bose-Einstein mode's entropy,
  a quantum oscillator's energy minus kT;
* ML: sparsemax of two logits, the generalized Charbonnier penalty and its
  derivative in epsilon;
* accurate controls (as written, over their box): a control reported not
  ok is a false alarm.

Each is typed as its source writes it; a gradient is the one symgrad
derives.  ``--dtype float32`` runs the same rows in float32.  No row was
chosen or changed after a run (a row found mislabelled is relabelled in a
later commit that says so, with the measurements).
"""

from __future__ import annotations

import sympy as sp
from sympy import Abs, Float, Max, Min, Rational, acos, asin, cos, exp, log, pi, sin, sinh, sqrt

from .heldout import Held, _g

x, y, z = sp.symbols("x y z", real=True)


def family_o() -> list[Held]:
    """The fifteenth family, in a fixed order (rows of the audit table)."""
    n = 1 / (exp(x) - 1)  # Bose-Einstein occupation at energy over kT x
    s = sqrt(y**2 / 4 + x**3 / 27)  # Cardano's square root (p = x > 0, q = y)
    charbonnier = (x**2 + y**2) ** Rational(9, 20) - y ** Rational(9, 10)
    cos_t = sqrt(y**2 - sin(x) ** 2)  # n cos(theta_t), index y, incidence x
    return [
        # ---- robotics and kinematics ----
        Held("rotation angle from a rotation matrix's trace",
             "robotics (SO(3) log, acos((tr R - 1)/2))",
             acos((x - 1) / 2), {x: (-1.0, 3.0)}),
        Held("polar angle of a 3-vector by acos", "robotics / graphics (spherical coordinates)",
             acos(z / sqrt(x**2 + y**2 + z**2)), {x: (-1.0, 1.0), y: (-1.0, 1.0), z: (-1.0, 1.0)}),
        Held("two-link arm's reach deficit", "robotics (unit links, joint angles x and y)",
             2 - sqrt((cos(x) + cos(x + y)) ** 2 + (sin(x) + sin(x + y)) ** 2),
             {x: (-3.0, 3.0), y: (-3.0, 3.0)}),
        Held("cycloidal cam profile", "kinematics (cycloidal motion law, unit rise)",
             x - sin(2 * pi * x) / (2 * pi), {x: (0.0, 1.0)}),
        # ---- optics ----
        Held("Fresnel s amplitude near an index match",
             "optics (r_s from air, incidence x, index y)",
             (cos(x) - cos_t) / (cos(x) + cos_t), {x: (0.0, 1.5), y: (1.0, 2.0)}),
        Held("Fresnel p amplitude across Brewster's angle",
             "optics (r_p from air, incidence x, index y)",
             (y**2 * cos(x) - cos_t) / (y**2 * cos(x) + cos_t), {x: (0.0, 1.5), y: (1.2, 2.5)}),
        Held("one-term Sellmeier index near its resonance",
             "optics (BK7's first term, wavelength x in um)",
             sqrt(1 + Float(1.03961212) * x**2 / (x**2 - Float(0.00600069867))),
             {x: (0.0775, 2.5)}),
        # ---- orbital mechanics ----
        Held("hyperbolic Kepler equation, mean anomaly",
             "orbital mechanics (eccentricity x, hyperbolic anomaly y)",
             x * sinh(y) - y, {x: (1.0, 2.0), y: (-5.0, 5.0)}),
        Held("semi-major axis from vis-viva", "orbital mechanics (mu = 1, radius x, speed y)",
             1 / (2 / x - y**2), {x: (0.1, 10.0), y: (0.0, 4.0)}),
        Held("Hohmann transfer, second burn", "orbital mechanics (mu = 1, radii x to y)",
             sqrt(1 / y) * (1 - sqrt(2 * x / (x + y))), {x: (0.1, 100.0), y: (0.1, 100.0)}),
        Held("conic section's radius", "orbital mechanics (p = 1, eccentricity x, true anomaly y)",
             1 / (1 + x * cos(y)), {x: (0.0, 0.999999), y: (-3.14159, 3.14159)}),
        # ---- statistics ----
        Held("geometric law log-pmf", "statistics (success probability x, failures y)",
             y * log(1 - x) + log(x), {x: (1e-12, 0.9), y: (0.0, 1e6)}),
        Held("logarithmic-series law log-pmf",
             "statistics (Fisher's log-series, parameter x, count y)",
             y * log(x) - log(y) - log(-log(1 - x)), {x: (1e-12, 0.999), y: (1.0, 100.0)}),
        Held("Yeo-Johnson d/dlambda, positive branch",
             "statistics (Yeo and Johnson 2000, lambda y near 0)",
             _g(((x + 1) ** y - 1) / y, y), {x: (0.0, 100.0), y: (-2.0, 2.0)}),
        Held("Cohen's h", "statistics (effect size of two proportions)",
             2 * asin(sqrt(x)) - 2 * asin(sqrt(y)), {x: (0.0, 1.0), y: (0.0, 1.0)}),
        # ---- numerics ----
        Held("second central difference of exp", "numerics (f'' by a three-point stencil, step y)",
             (exp(x + y) - 2 * exp(x) + exp(x - y)) / y**2, {x: (-5.0, 5.0), y: (1e-8, 0.1)}),
        Held("AM-GM gap", "numerics (arithmetic minus geometric mean)",
             (x + y) / 2 - sqrt(x * y), {x: (1e-3, 1e3), y: (1e-3, 1e3)}),
        Held("Cardano's real root (p > 0)", "numerics (t^3 + p t = q, p = x, q = y)",
             (s + y / 2) ** Rational(1, 3) - (s - y / 2) ** Rational(1, 3),
             {x: (1e-3, 1e3), y: (0.0, 1e3)}),
        # ---- thermodynamics ----
        Held("Planck's law minus Wien's", "thermodynamics (reduced frequency x)",
             x**3 / (exp(x) - 1) - x**3 * exp(-x), {x: (1e-3, 700.0)}),
        Held("Bose-Einstein mode entropy", "statistical physics ((1 + n) log(1 + n) - n log n)",
             (1 + n) * log(1 + n) - n * log(n), {x: (1e-6, 700.0)}),
        Held("quantum oscillator energy minus kT",
             "statistical physics (Planck-Einstein, x = hw/kT)",
             x / 2 + x / (exp(x) - 1) - 1, {x: (1e-8, 700.0)}),
        # ---- ML ----
        Held("sparsemax of two logits", "ML (Martins and Astudillo 2016, first probability)",
             Max(0, Min(1, (x - y + 1) / 2)), {x: (-5.0, 5.0), y: (-5.0, 5.0)}),
        Held("generalized Charbonnier penalty",
             "ML / optical flow (Sun, Roth and Black 2010, a = 0.45)",
             charbonnier, {x: (-10.0, 10.0), y: (1e-4, 1.0)}),
        Held("generalized Charbonnier d/deps",
             "ML / optical flow (Sun, Roth and Black 2010, a = 0.45)",
             _g(charbonnier, y), {x: (-10.0, 10.0), y: (1e-4, 1.0)}),
        # ---- accurate controls ----
        Held("slerp weight", "control", sin((1 - y) * x) / sin(x),
             {x: (1e-6, 2.0), y: (0.0, 1.0)}, "control"),
        Held("eccentricity from the apsides", "control", (x - y) / (x + y),
             {x: (1e-3, 1e6), y: (1e-3, 1e6)}, "control"),
        Held("sum of two sound levels (dB)", "control",
             10 * log(10 ** (x / 10) + 10 ** (y / 10)) / log(10),
             {x: (0.0, 150.0), y: (0.0, 150.0)}, "control"),
        Held("relative difference", "control", Abs(x - y) / Max(Abs(x), Abs(y)),
             {x: (1e-3, 1e3), y: (1e-3, 1e3)}, "control"),
    ]
