"""Formulas whose proofs test_balls compares across the float tier's
fallbacks (no python-flint, no 80-bit long double), in a subprocess and
here."""

import sympy as sp

x, y = sp.symbols("x y")

CASES = [
    ([sp.log(1 + sp.exp(-sp.Abs(x))) + sp.Max(0, x), sp.cosh(x) - 1], [x], {x: (-800, 800)}),
    ([sp.sqrt(x**2 + y**2) - x, sp.exp(x) / (1 + sp.exp(y))], [x, y],
     {x: (-1e300, 1e300), y: (-1e-300, 1e300)}),
    ([sp.sin(x) / x, sp.tan(x * y), x ** sp.Rational(1, 3)], [x, y], {x: (1e-10, 10), y: (0.5, 2)}),
    ([sp.log(x) - sp.log(y), sp.atan(x / y)], [x, y], {x: (1, 10), y: (1, 10)}),
]


def statements(fmt_name: str) -> list[str]:
    from symgrad.stability.bits import FORMATS
    from symgrad.stability.bounds import prove

    return [p.statement for f, s, d in CASES for p in prove(f, s, d, FORMATS[fmt_name])]
