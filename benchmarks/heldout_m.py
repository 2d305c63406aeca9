"""A thirteenth held-out family for the verdict audit (``bench_verdicts --family m``).

Written 2026-11-29 07:45-07:50 UTC (session 23, the lead) before any of its
rows was run, from material the other families (:mod:`benchmarks.heldout`
to :mod:`benchmarks.heldout_l`) and ``bench_ml_gradients`` do not hold:

* reinforcement learning and flows: the log-determinant of a tanh-squashed
  Gaussian policy (soft actor-critic) and its derivative, a planar flow's
  log-determinant, the DPO loss's derivative, a Bernoulli policy's entropy
  from its logit;
* mixtures: a two-component Gaussian mixture's log-likelihood and its
  derivative;
* statistics: the Student-t log-density's derivative in its degrees of
  freedom, the log of the ratio Gamma(x + 1/2) / Gamma(x), the generalized
  Pareto log-density's derivative in its shape, the log-normal variance,
  Tsallis and Renyi entropies of a coin near order 1;
* economics: the CES aggregator next to its Cobb-Douglas limit;
* signal processing and control: the Blackman window, a second-order
  system's step response;
* electrochemistry and mechanics: the Butler-Volmer current, a catenary's
  sag;
* numerics: the remainders exp(x) - 1 - x and cos(x) - 1 + x^2/2;
* rendering: the Beckmann normal distribution;
* accurate controls (as written, over their box): a control reported not
  ok is a false alarm.

Each is typed as its source writes it; a gradient is the one symgrad
derives.  ``--dtype float32`` runs the same rows in float32.  No row was
chosen or changed after a run (a row found mislabelled is relabelled in a
later commit that says so, with the measurements).
"""

from __future__ import annotations

import sympy as sp
from sympy import Rational, atan2, cos, cosh, exp, log, loggamma, pi, sin, sqrt, tanh

from .heldout import Held, _g

x, y, z = sp.symbols("x y z", real=True)
HALF = Rational(1, 2)


def family_m() -> list[Held]:
    """The thirteenth family, in a fixed order (rows of the audit table)."""
    sac = log(1 - tanh(x) ** 2)
    mixture = log(y * exp(-(x + 1) ** 2 / 2) + (1 - y) * exp(-(x - 2) ** 2 / 2))
    student = (loggamma((y + 1) / 2) - loggamma(y / 2) - log(y * pi) / 2
               - (y + 1) / 2 * log(1 + x**2 / y))
    pareto = -(1 + 1 / y) * log(1 + y * x)
    dpo = -log(1 / (1 + exp(-(x - y) / 10)))
    w = sqrt(1 - z**2)
    return [
        # ---- reinforcement learning and flows ----
        Held("tanh-squashed Gaussian log-det", "RL (Haarnoja et al. 2018, soft actor-critic)",
             sac, {x: (-50.0, 50.0)}),
        Held("tanh-squashed Gaussian log-det d/du", "RL (Haarnoja et al. 2018, soft actor-critic)",
             _g(sac, x), {x: (-50.0, 50.0)}),
        Held("planar flow log-det", "flows (Rezende and Mohamed 2015)",
             log(1 + y * (1 - tanh(x) ** 2)), {x: (-30.0, 30.0), y: (-0.999, 10.0)}),
        Held("DPO loss d/d(chosen log-ratio)", "RL from preferences (Rafailov et al. 2023)",
             _g(dpo, x), {x: (-1e4, 1e4), y: (-1e4, 1e4)}),
        Held("Bernoulli policy entropy from its logit", "RL (entropy bonus, Bernoulli policy)",
             log(1 + exp(x)) - x * exp(x) / (1 + exp(x)), {x: (-100.0, 100.0)}),
        # ---- mixtures ----
        Held("two-Gaussian mixture log-likelihood", "statistics (mixture model, unit variances)",
             mixture, {x: (-60.0, 60.0), y: (0.01, 0.99)}),
        Held("two-Gaussian mixture log-likelihood d/dx",
             "statistics (mixture model, unit variances)",
             _g(mixture, x), {x: (-60.0, 60.0), y: (0.01, 0.99)}),
        # ---- statistics ----
        Held("Student-t log-density d/dnu", "statistics (Student's t, nu free)",
             _g(student, y), {x: (-10.0, 10.0), y: (1.0, 1e6)}),
        Held("log Gamma(x + 1/2) / Gamma(x)", "statistics (Gamma ratio, Wendel 1948)",
             loggamma(x + HALF) - loggamma(x), {x: (1.0, 1e12)}),
        Held("generalized Pareto log-density d/dxi", "extreme values (GPD, unit scale)",
             _g(pareto, y), {x: (0.0, 100.0), y: (1e-8, 1.0)}),
        Held("log-normal variance", "statistics (log-normal law)",
             (exp(y**2) - 1) * exp(2 * x + y**2), {x: (-1.0, 1.0), y: (1e-8, 2.0)}),
        Held("Tsallis entropy of a coin", "information theory (Tsallis 1988)",
             (1 - x**y - (1 - x) ** y) / (y - 1), {x: (0.01, 0.99), y: (1.000001, 2.0)}),
        Held("Renyi entropy of a coin", "information theory (Renyi 1961)",
             log(x**y + (1 - x) ** y) / (1 - y), {x: (0.01, 0.99), y: (1.000001, 2.0)}),
        # ---- economics ----
        Held("CES aggregator near Cobb-Douglas", "economics (constant elasticity of substitution)",
             ((x**z + y**z) / 2) ** (1 / z), {x: (0.1, 10.0), y: (0.1, 10.0), z: (1e-6, 1e-2)}),
        # ---- signal processing and control ----
        Held("Blackman window", "signal processing (Blackman and Tukey 1958)",
             Rational(21, 50) - cos(2 * pi * x) / 2 + Rational(2, 25) * cos(4 * pi * x),
             {x: (0.0, 1.0)}),
        Held("second-order step response", "control (underdamped, unit natural frequency)",
             1 - exp(-z * x) * (cos(w * x) + z / w * sin(w * x)),
             {x: (1e-6, 20.0), z: (0.05, 0.95)}),
        # ---- electrochemistry and mechanics ----
        Held("Butler-Volmer current", "electrochemistry (Butler-Volmer equation)",
             exp(y * x) - exp(-(1 - y) * x), {x: (-40.0, 40.0), y: (0.2, 0.8)}),
        Held("catenary sag", "mechanics (a cable's sag over span x, parameter y)",
             y * (cosh(x / (2 * y)) - 1), {x: (1e-3, 10.0), y: (1.0, 1e4)}),
        # ---- numerics ----
        Held("exp(x) - 1 - x", "numerics (second-order remainder)",
             exp(x) - 1 - x, {x: (-1.0, 1.0)}),
        Held("cos(x) - 1 + x^2/2", "numerics (fourth-order remainder)",
             cos(x) - 1 + x**2 / 2, {x: (-0.1, 0.1)}),
        # ---- rendering ----
        Held("Beckmann normal distribution", "rendering (Beckmann 1963, Cook-Torrance)",
             exp((x**2 - 1) / (y**2 * x**2)) / (pi * y**2 * x**4),
             {x: (0.01, 1.0), y: (0.01, 1.0)}),
        # ---- accurate controls ----
        Held("Reinhard tone mapping", "control", x / (1 + x), {x: (0.0, 1e6)}, "control"),
        Held("gamma encoding", "control", x ** Rational(5, 11), {x: (1e-6, 1.0)}, "control"),
        Held("extended Debye-Hueckel law", "control", -x * sqrt(y) / (1 + sqrt(y)),
             {x: (1.0, 4.0), y: (1e-6, 1.0)}, "control"),
        Held("logistic growth", "control", y / (1 + 9 * exp(-x)),
             {x: (0.0, 100.0), y: (1.0, 1e3)}, "control"),
        Held("angle wrap", "control", atan2(sin(x), cos(x)), {x: (-1e3, 1e3)}, "control"),
        Held("fin efficiency", "control", tanh(x) / x, {x: (1e-3, 100.0)}, "control"),
    ]
