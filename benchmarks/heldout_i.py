"""A ninth held-out family for the verdict audit (``bench_verdicts --family i``).

Written 2026-11-28 14:50-14:54 UTC (session 17, verdicts17) before any of its
rows was run, from material the other families (:mod:`benchmarks.heldout`
to :mod:`benchmarks.heldout_h`) and ``bench_ml_gradients`` do not hold:

* ML activations and their derivatives: SiLU's second derivative, softplus'
  second derivative, Swish-beta in x, Logish and Smish (and a gradient),
  the soft clipping function (Klimek and Perelstein), a QR-DQN quantile
  Huber loss, soft thresholding;
* ML losses, optimizers and geometry: Adam's bias corrections, the cosine
  annealing schedule, a four-logit log-softmax gradient, one minus the
  cosine similarity of (1, x) and (1, y), binary cross-entropy typed
  through the sigmoid, the binary focal loss on probabilities (gradient),
  the Poincare-ball and Lorentz-model distances (hyperbolic embeddings),
  the reverse Huber (berHu) loss;
* statistics: the Bhattacharyya distance of two Bernoullis, the Renyi-2
  divergence of two Bernoullis, the KL divergence of two Laplace laws, the
  Gamma log-likelihood's score in its shape, the log-normal NLL's score in
  its mu, the Student-t (nu = 4) NLL's score in its scale;
* textbook numerical analysis (Cheney and Kincaid, Atkinson, Burden and
  Faires, not Hamming or FPBench): log(x) - 1 near e, (e^x - 1 - x)/x^2,
  x(sqrt(x + 1) - sqrt(x)), 1 - tanh(x)^2, the continuous-compounding APR
  n(e^(r/n) - 1), a kinetic energy from momentum sqrt(p^2 + m^2) - m;
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
    Abs,
    Max,
    Piecewise,
    acosh,
    cos,
    cosh,
    exp,
    log,
    loggamma,
    pi,
    sign,
    sinh,
    sqrt,
    tanh,
)

from .heldout import Held, _g

x, y, z = sp.symbols("x y z", real=True)


def _sigmoid(t):
    """The logistic function as users type it."""
    return 1 / (1 + exp(-t))


def _huber(t, k):
    return Piecewise((t**2 / 2, Abs(t) <= k), (k * (Abs(t) - k / 2), True))


def family_i() -> list[Held]:
    """The ninth family, in a fixed order (rows of the audit table)."""
    silu = x * _sigmoid(x)
    softplus = log(1 + exp(x))
    logish = x * log(1 + _sigmoid(x))
    smish = x * tanh(log(1 + _sigmoid(x)))
    softclip = log((1 + exp(50 * x)) / (1 + exp(50 * (x - 1)))) / 50
    lse4 = log(exp(x) + exp(y) + exp(z) + 1)  # (the fourth logit 0)
    bce_sig = -y * log(_sigmoid(x)) - (1 - y) * log(1 - _sigmoid(x))
    focal_p = -(1 - x)**2 * log(x)
    gamma_ll = (y - 1) * log(x) - x - loggamma(y)  # (x observation, y shape, rate 1)
    lognormal_nll = (log(x) - y)**2 / 2 + log(x)  # (sigma 1)
    t4_nll = log(z) + 5 * log(1 + ((x - y) / z)**2 / 4) / 2  # (nu 4)
    return [
        # ---- ML activations ----
        Held("SiLU''", "ML (activation, second derivative)", _g(_g(silu, x), x),
             {x: (-800.0, 800.0)}),
        Held("softplus''", "ML (activation, second derivative)", _g(_g(softplus, x), x),
             {x: (-800.0, 800.0)}),
        Held("Swish-beta d/dx", "ML (activation, Ramachandran 2017)",
             _g(x * _sigmoid(y * x), x), {x: (-100.0, 100.0), y: (0.1, 10.0)}),
        Held("Logish", "ML (activation, Zhu 2021)", logish, {x: (-100.0, 100.0)}),
        Held("Logish d/dx", "ML (activation, Zhu 2021)", _g(logish, x), {x: (-100.0, 100.0)}),
        Held("Smish", "ML (activation, Wang 2022)", smish, {x: (-100.0, 100.0)}),
        Held("soft clipping (p = 50)", "ML (activation, Klimek and Perelstein 2020)",
             softclip, {x: (-10.0, 10.0)}),
        Held("quantile Huber loss (kappa 1)", "ML (QR-DQN, Dabney 2018)",
             Abs(y - Piecewise((1, x < 0), (0, True))) * _huber(x, 1),
             {x: (-100.0, 100.0), y: (0.0, 1.0)}),
        Held("soft thresholding", "ML / signal (proximal operator of L1)",
             sign(x) * Max(Abs(x) - y, 0), {x: (-10.0, 10.0), y: (0.0, 1.0)}),
        # ---- ML losses, optimizers, geometry ----
        Held("Adam first-moment bias correction", "ML (optimizer, Kingma and Ba)",
             y / (1 - x**z), {x: (0.9, 0.9999), y: (-1.0, 1.0), z: (1.0, 1e6)}),
        Held("Adam step scale", "ML (optimizer, Kingma and Ba)",
             sqrt(1 - y**z) / (1 - x**z), {x: (0.8, 0.99), y: (0.99, 0.99999), z: (1.0, 1e5)}),
        Held("cosine annealing factor", "ML (schedule, Loshchilov and Hutter)",
             (1 + cos(pi * x)) / 2, {x: (0.0, 1.0)}),
        Held("log-softmax (4 logits) d/dx", "ML (classification)", _g(x - lse4, x),
             {x: (-500.0, 500.0), y: (-500.0, 500.0), z: (-500.0, 500.0)}),
        Held("one minus cosine similarity", "ML (embeddings)",
             1 - (1 + x * y) / (sqrt(1 + x**2) * sqrt(1 + y**2)),
             {x: (-100.0, 100.0), y: (-100.0, 100.0)}),
        Held("BCE typed through the sigmoid", "ML (classification)", bce_sig,
             {x: (-50.0, 50.0), y: (0.0, 1.0)}),
        Held("binary focal loss on p (gamma 2) d/dp", "ML (Lin et al. 2017)", _g(focal_p, x),
             {x: (1e-6, 1.0)}),
        Held("Poincare-ball distance (1-D)", "ML (hyperbolic embeddings, Nickel and Kiela)",
             acosh(1 + 2 * (x - y)**2 / ((1 - x**2) * (1 - y**2))),
             {x: (-0.99, 0.99), y: (-0.99, 0.99)}),
        Held("Lorentz-model distance (1-D)", "ML (hyperbolic embeddings)",
             acosh(cosh(x) * cosh(y) - sinh(x) * sinh(y)), {x: (-5.0, 5.0), y: (-5.0, 5.0)}),
        Held("reverse Huber (berHu) loss", "ML (depth estimation, Laina 2016)",
             Piecewise((Abs(x), Abs(x) <= y), ((x**2 + y**2) / (2 * y), True)),
             {x: (-100.0, 100.0), y: (0.01, 10.0)}),
        # ---- statistics ----
        Held("Bhattacharyya distance of Bernoullis", "statistics (divergences)",
             -log(sqrt(x * y) + sqrt((1 - x) * (1 - y))), {x: (0.0, 1.0), y: (0.0, 1.0)}),
        Held("Renyi-2 divergence of Bernoullis", "statistics (divergences)",
             log(x**2 / y + (1 - x)**2 / (1 - y)), {x: (0.01, 0.99), y: (0.01, 0.99)}),
        Held("KL of two Laplace laws", "statistics (divergences)",
             log(z / y) + (y * exp(-Abs(x) / y) + Abs(x)) / z - 1,
             {x: (-10.0, 10.0), y: (0.1, 10.0), z: (0.1, 10.0)}),
        Held("Gamma log-likelihood d/dshape", "statistics (maximum likelihood)",
             _g(gamma_ll, y), {x: (1e-3, 100.0), y: (0.01, 100.0)}),
        Held("log-normal NLL d/dmu", "statistics (maximum likelihood)", _g(lognormal_nll, y),
             {x: (1e-3, 1e3), y: (-5.0, 5.0)}),
        Held("Student-t (nu 4) NLL d/dscale", "statistics (robust regression)",
             _g(t4_nll, z), {x: (-100.0, 100.0), y: (-100.0, 100.0), z: (0.01, 10.0)}),
        # ---- textbook numerical analysis ----
        Held("log(x) - 1 near e", "Cheney and Kincaid (loss of significance)", log(x) - 1,
             {x: (2.0, 3.5)}),
        Held("(e^x - 1 - x)/x^2", "Atkinson (An Introduction to Numerical Analysis)",
             (exp(x) - 1 - x) / x**2, {x: (-1.0, 1.0)}),
        Held("x(sqrt(x + 1) - sqrt(x))", "Burden and Faires (round-off error)",
             x * (sqrt(x + 1) - sqrt(x)), {x: (1.0, 1e12)}),
        Held("1 - tanh(x)^2", "textbook (sech^2 as users type it)", 1 - tanh(x)**2,
             {x: (-30.0, 30.0)}),
        Held("APR of a continuous rate", "finance (compounding)", y * (exp(x / y) - 1),
             {x: (1e-6, 0.2), y: (1.0, 365.0)}),
        Held("kinetic energy from momentum", "physics (special relativity)",
             sqrt(x**2 + y**2) - y, {x: (1e-6, 1e3), y: (0.1, 1e3)}),
        # ---- accurate controls ----
        Held("Wasserstein-2 of 1-D normals", "control", (x - y)**2 + (z - 1)**2,
             {x: (-10.0, 10.0), y: (-10.0, 10.0), z: (2.0, 10.0)}, "control"),
        Held("Henderson-Hasselbalch pH", "control", 4.76 + log(x / y) / log(10),
             {x: (1e-4, 1.0), y: (1e-4, 1.0)}, "control"),
        Held("hard sigmoid", "control", Max(0, sp.Min(1, x / 6 + sp.Rational(1, 2))),
             {x: (-10.0, 10.0)}, "control"),
        Held("Gaussian NLL d/dmu", "control", (y - x) / z**2,
             {x: (-10.0, 10.0), y: (-10.0, 10.0), z: (0.1, 10.0)}, "control"),
        Held("ReLU6", "control", sp.Min(Max(0, x), 6), {x: (-10.0, 10.0)}, "control"),
    ]
