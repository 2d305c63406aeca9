"""A stability report and its fix: check_stability runs the code symgrad
generates against a correctly rounded ground truth and says where a
gradient overflows, turns NaN or loses its bits, which subexpression is to
blame, and what it can prove for the whole domain; stabilize rewrites the
formula into one that is accurate everywhere, chosen by measurement.

Run:  python examples/08_stability_report_and_fix.py
"""

from __future__ import annotations

import sympy as sp

import symgrad

x = sp.Symbol("x", real=True)
domain = {x: (-1000, 1000)}

# The ordinary gradient of log(1 + exp(x)): NaN once exp(x) overflows.
g = symgrad.grad(sp.log(1 + sp.exp(x)), x)
report = symgrad.check_stability(g, domain)
print(report)
assert not report.ok and report.regions[0].kind == "nan" and report.regions[0].culprit == sp.exp(x)
print()

# TensorFlow's documented custom gradient: no NaN (its overflow is harmless),
# but 1 - 1/(1 + exp(x)) cancels to 0 for x below about -37.
custom = 1 - 1 / (1 + sp.exp(x))
report = symgrad.check_stability(custom, domain)
print(report)
assert [r.kind for r in report.regions] == ["cancellation"]
print()

# On [0, 700] the custom gradient is accurate, and the checker proves it cannot overflow.
report = symgrad.check_stability(custom, {x: (0, 700)})
print(report)
assert report.ok
print()

# The fix: stabilize chooses an equal formula that is accurate on the whole
# domain (no custom gradient needed), and check_stability confirms it.
fixed = symgrad.stabilize(g, domain, explain=True)
print(fixed)
report = symgrad.check_stability(fixed.result, domain)
print(report)
assert report.ok
# the same function (at 50 digits, on both sides of the switch):
assert all(abs(sp.N((fixed.result - g).subs(x, v), 50)) < 1e-45 for v in (-800, -3, 0, 5, 800))
# grad(..., stabilize=True) does both steps in one call.
print("grad(log(1 + exp(x)), x, stabilize=True) =",
      symgrad.grad(sp.log(1 + sp.exp(x)), x, stabilize=True, domain=domain))
