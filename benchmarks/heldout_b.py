"""A second held-out family for the verdict audit (``bench_verdicts --family b``).

Written 2026-11-27 (session 7), after every fix of the first family
(:mod:`benchmarks.heldout`), from sources neither family had used:
Herbie's ``bench/`` files that are in neither FPBench's folder nor the
first family (numerics/conte: Conte and de Boor's *Elementary Numerical
Analysis*, numerics/hamming-misc, numerics/kahan, numerics/martel,
mathematics/sarnoff, mathematics/beta-distribution, mathematics/excel,
graphics/log-transform, libraries/mathjs/arithmetic, physics/dimer-escape),
textbook physics (Planck, Bose-Einstein and Fermi-Dirac occupations,
Einstein's heat capacity, the Langevin function, special relativity, the
log-mean temperature difference, the annuity factor), scipy.special and
scipy.stats log-domain functions the other benchmarks do not hold
(boxcox1p, inv_boxcox, rel_entr, log_sub_exp, the Student-t and Weibull
log-densities), and ML losses and activations with a parameter nobody
differentiated before (softplus with beta, CELU's alpha, poly-1 loss, the
Poisson NLL on rates, BCE with a positive weight).  Each is typed as its
source writes it; a gradient is the one symgrad derives.  Boxes: the
source's precondition where it has one, else one reaching the overflows.

``kind`` as in :mod:`benchmarks.heldout`: "lossy?" rows are judged on the
claim, "control" rows (accurate as written over their box, the
independent measurement says so in the table) must not be reported not ok.
"""

from __future__ import annotations

import sympy as sp
from sympy import Abs, Rational, cos, cosh, exp, log, pi, sin, sinh, sqrt, tan

from .heldout import HALF, Held, _g

x, y, z, e, v = sp.symbols("x y z e v", real=True)
a, b, c = sp.symbols("a b c", real=True)
BIG = 1e300


def _sigmoid(t):
    return 1 / (1 + exp(-t))


def family_b() -> list[Held]:
    """The second family, in a fixed order (rows of the audit table)."""
    return [
        # ---- Herbie bench/numerics/conte.fpcore (Conte & de Boor, section 1.4) ----
        Held("ENA 1.4 A", "herbie bench/numerics/conte", 1 - cos(x), {x: (-0.01, 0.01)}),
        Held("ENA 1.4 B", "herbie bench/numerics/conte", 10 / (1 - x * x), {x: (0.999, 1.001)}),
        Held("ENA 1.4 Exercise 4a", "herbie bench/numerics/conte", (x - sin(x)) / tan(x),
             {x: (-1.0, 1.0)}),
        Held("ENA 1.4 Exercise 1", "herbie bench/numerics/conte", cos(x) * exp(10 * x * x),
             {x: (1.99, 2.01)}),
        Held("ENA 1.4 Exercise 4b, n=2", "herbie bench/numerics/conte", (x + e)**2 - x**2,
             {x: (-1e9, 1e9), e: (-1.0, 1.0)}),
        Held("ENA 1.4 Exercise 4b, n=5", "herbie bench/numerics/conte", (x + e)**5 - x**5,
             {x: (-1e9, 1e9), e: (-1.0, 1.0)}),
        Held("ENA 1.4 Exercise 4d", "herbie bench/numerics/conte", x - sqrt(x * x - e),
             {x: (0.0, 1e9), e: (-1.0, 1.0)}),
        # ---- numerics/hamming-misc, kahan; mathematics/sarnoff, excel, beta ----
        Held("NMSE Section 6.1 mentioned, A", "herbie bench/numerics/hamming-misc",
             ((1 + 1 / e) * exp(-(1 - e) * x) - (1 / e - 1) * exp(-(1 + e) * x)) / 2,
             {x: (0.0, 100.0), e: (1e-8, 1.0)}),
        Held("NMSE Section 6.1 mentioned, B", "herbie bench/numerics/hamming-misc",
             (pi / 2) * (1 / (b * b - a * a)) * (1 / a - 1 / b), {a: (0.1, 10.0), b: (0.1, 10.0)}),
        Held("Radioactive exchange between two surfaces", "herbie bench/numerics/hamming-misc",
             x**4 - y**4, {x: (-1e75, 1e75), y: (-1e75, 1e75)}),
        Held("Kahan's exp quotient", "herbie bench/numerics/kahan", (exp(x) - 1) / x,
             {x: (-700.0, 700.0)}),
        Held("Quadratic roots, medium range", "herbie bench/mathematics/sarnoff",
             (-b + sqrt(b * b - 4 * a * c)) / (2 * a),
             {a: (1.1102230246251565e-16, 9.007199254740992e15),
              b: (1.1102230246251565e-16, 9.007199254740992e15),
              c: (1.1102230246251565e-16, 9.007199254740992e15)}),
        Held("Cubic critical, narrow range", "herbie bench/mathematics/sarnoff",
             (-b + sqrt(b * b - 3 * a * c)) / (3 * a),
             {a: (1.0536712127723509e-8, 9.490626562425156e7),
              b: (1.0536712127723509e-8, 9.490626562425156e7),
              c: (1.0536712127723509e-8, 9.490626562425156e7)}),
        Held("Asymptote A", "herbie bench/mathematics/sarnoff", 1 / (x + 1) - 1 / (x - 1),
             {x: (-1e10, 1e10)}),
        Held("Asymptote C", "herbie bench/mathematics/sarnoff",
             x / (x + 1) - (x + 1) / (x - 1), {x: (-1e10, 1e10)}),
        Held("Eccentricity of an ellipse", "herbie bench/mathematics/sarnoff",
             sqrt(Abs((a * a - b * b) / (a * a))), {a: (0.0, 1.0), b: (0.0, 1.0)}),
        Held("Trigonometry A", "herbie bench/mathematics/sarnoff",
             e * sin(v) / (1 + e * cos(v)), {e: (0.0, 1.0), v: (-10.0, 10.0)}),
        Held("Trigonometry B", "herbie bench/mathematics/sarnoff",
             (1 - tan(x) * tan(x)) / (1 + tan(x) * tan(x)), {x: (-10.0, 10.0)}),
        Held("(- (/ x0 (- 1 x1)) x0)", "herbie bench/mathematics/excel", x / (1 - y) - x,
             {x: (1.0, 3.0), y: (0.0, 0.5)}),
        Held("a parameter of renormalized beta distribution",
             "herbie bench/mathematics/beta-distribution", (x * (1 - x) / v - 1) * x,
             {x: (0.0, 1.0), v: (0.0, 0.25)}),
        # ---- graphics/log-transform, libraries/mathjs/arithmetic, physics/dimer-escape ----
        Held("Logarithmic Transform", "herbie bench/graphics/log-transform",
             c * log(1 + (exp(x) - 1) * y), {c: (-1e3, 1e3), x: (-700.0, 700.0), y: (-1.0, 1.0)}),
        Held("math.cube on complex, real part", "herbie bench/libraries/mathjs/arithmetic",
             (x * x - y * y) * x - (x * y + y * x) * y, {x: (-1e3, 1e3), y: (-1e3, 1e3)}),
        Held("math.log/1 on complex, real part", "herbie bench/libraries/mathjs/arithmetic",
             log(sqrt(x * x + y * y)), {x: (-BIG, BIG), y: (-BIG, BIG)}),
        Held("math.sqrt on complex, imaginary part", "herbie bench/libraries/mathjs/arithmetic",
             HALF * sqrt(2 * (sqrt(x * x + y * y) - x)), {x: (-1e3, 1e3), y: (1e-300, 1e3)}),
        Held("Maksimov and Kolovsky, Equation (4)", "herbie bench/physics/dimer-escape",
             x * (exp(y) - exp(-y)) * cos(z / 2) + v,
             {x: (-10.0, 10.0), y: (-700.0, 700.0), z: (-10.0, 10.0), v: (-10.0, 10.0)}),
        # ---- textbook physics ----
        Held("Langevin function", "statistical mechanics", cosh(x) / sinh(x) - 1 / x,
             {x: (1e-8, 700.0)}),
        Held("Planck's law, reduced", "statistical mechanics", x**3 / (exp(x) - 1),
             {x: (1e-10, 700.0)}),
        Held("Einstein heat capacity", "statistical mechanics",
             x**2 * exp(x) / (exp(x) - 1)**2, {x: (1e-10, 700.0)}),
        Held("Bose-Einstein occupation", "statistical mechanics", 1 / (exp(x) - 1),
             {x: (1e-10, 700.0)}),
        Held("Fermi-Dirac occupation", "statistical mechanics", 1 / (exp((x - y) / z) + 1),
             {x: (-10.0, 10.0), y: (-10.0, 10.0), z: (0.01, 10.0)}),
        Held("relativistic kinetic energy (gamma - 1)", "special relativity",
             1 / sqrt(1 - v * v) - 1, {v: (0.0, 1.0)}),
        Held("relativistic velocity addition", "special relativity", (x + y) / (1 + x * y),
             {x: (-1.0, 1.0), y: (-1.0, 1.0)}),
        Held("log-mean temperature difference", "heat transfer", (x - y) / log(x / y),
             {x: (1.0, 1000.0), y: (1.0, 1000.0)}),
        Held("annuity factor", "finance", (1 - (1 + x)**(-y)) / x,
             {x: (1e-10, 1.0), y: (1.0, 1000.0)}),
        # ---- scipy.special / scipy.stats log-domain functions ----
        Held("boxcox1p", "scipy.special.boxcox1p", ((1 + x)**y - 1) / y,
             {x: (-0.5, 10.0), y: (-1.0, 1.0)}),
        Held("inv_boxcox", "scipy.special.inv_boxcox", (x * y + 1)**(1 / y),
             {x: (0.0, 10.0), y: (0.1, 1.0)}),
        Held("rel_entr d/dx", "scipy.special.rel_entr", _g(x * log(x / y), x),
             {x: (1e-6, 1e6), y: (1e-6, 1e6)}),
        Held("log_sub_exp", "tfp.math.log_sub_exp", log(exp(x) - exp(y)),
             {x: (-1e3, 1e3), y: (-1e3, 1e3)}),
        Held("Student-t log-density (nu free)", "scipy.stats.t",
             -(v + 1) / 2 * log(1 + x**2 / v), {x: (-1e3, 1e3), v: (0.1, 100.0)}),
        Held("Weibull log-density d/dx", "scipy.stats.weibull_min (its textbook gradient)",
             (y - 1) / x - y * x**(y - 1), {x: (1e-3, 1e3), y: (0.5, 5.0)}),
        # ---- ML losses and activations, parameters differentiated ----
        Held("softplus with beta d/dbeta", "F.softplus(beta=...)",
             _g(log(1 + exp(y * x)) / y, y), {x: (-1e3, 1e3), y: (0.1, 10.0)}),
        Held("CELU d/dalpha, negative branch", "F.celu, jax.nn.celu",
             _g(y * (exp(x / y) - 1), y), {x: (-1e3, 0.0), y: (0.1, 10.0)}),
        Held("poly-1 loss (binary, eps 1)'", "optax.poly_loss_cross_entropy",
             _g(-log(_sigmoid(x)) + (1 - _sigmoid(x)), x), {x: (-1e3, 1e3)}),
        Held("Poisson NLL on rates d/dx", "F.poisson_nll_loss(log_input=False)",
             _g(x - y * log(x + Rational(1, 10**8)), x), {x: (0.0, 1e3), y: (0.0, 1e3)}),
        Held("BCE with logits, pos_weight, d/dx", "F.binary_cross_entropy_with_logits",
             _g(-(z * y * log(_sigmoid(x)) + (1 - y) * log(1 - _sigmoid(x))), x),
             {x: (-100.0, 100.0), y: (0.0, 1.0), z: (0.1, 10.0)}),
        Held("mish''", "jax.nn.mish, F.mish", _g(_g(x * sp.tanh(log(1 + exp(x))), x), x),
             {x: (-100.0, 100.0)}),
        # ---- accurate controls (as written, over their box) ----
        Held("relativistic Doppler factor", "control", sqrt((1 + v) / (1 - v)),
             {v: (-1.0, 1.0)}, "control"),
        Held("sinc", "control", sin(x) / x, {x: (-1e3, 1e3)}, "control"),
        Held("math.exp on complex, real part", "herbie bench/libraries/mathjs/arithmetic",
             exp(x) * cos(y), {x: (-700.0, 700.0), y: (-1e3, 1e3)}, "control"),
        Held("Expression 3, p15", "herbie bench/numerics/martel", x * (x * x) + x * x,
             {x: (0.0, 2.0)}, "control"),
        Held("Expression 4, p15", "herbie bench/numerics/martel", (x + y) * (x + y),
             {x: (5.0, 10.0), y: (0.0, 0.001)}, "control"),
        Held("Laplace pdf", "control", exp(-Abs(x)) / 2, {x: (-700.0, 700.0)}, "control"),
        Held("Rayleigh pdf", "control", x * exp(-x**2 / 2), {x: (0.0, 2.0)}, "control"),
        Held("tan double angle", "control", 2 * x / (1 + x * x), {x: (-1e150, 1e150)},
             "control"),
        Held("x^2 exp(-x)", "control", x**2 * exp(-x), {x: (0.0, 700.0)}, "control"),
        Held("1/(1 + x^2)^2", "control", 1 / (1 + x**2)**2, {x: (-1e75, 1e75)}, "control"),
    ]
