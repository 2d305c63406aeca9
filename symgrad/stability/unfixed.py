"""What ``stabilize`` says where it could not fix a formula: the region
where the chosen form still loses bits, the best figure it reached, and
why, in a class a user can act on (issue 17 §3: "where no mechanism fixes
a formula, the report says so plainly").
"""

from __future__ import annotations

from collections.abc import Sequence

from .report import Region, StabilityReport, _num, _ranges

__all__ = ["UNFIXED_ABOVE", "cannot_fix"]

UNFIXED_ABOVE = 3.0  # bits: issue 11's and 17's target; more is not fixed

# the reason by the kind of the region check_stability finds on the chosen form
_REASONS = {
    "cancellation": (
        "its terms cancel there, and no rewrite of the library, algebra, series or "
        "regime that symgrad tries keeps the bits (an ill-conditioned spot, such as a "
        "zero crossing of a formula of several variables, loses them in every float "
        "formula; a wider type, or an input computed more exactly, is what helps)"),
    "overflow": (
        "an intermediate value overflows there, and no form that symgrad tries "
        "stays inside the float range"),
    "underflow": (
        "an intermediate value underflows there, and no form that symgrad tries "
        "keeps it"),
    "nan": (
        "an intermediate value becomes NaN there (inf - inf, 0·inf, 0/0), and no form "
        "that symgrad tries avoids it"),
    "domain": (
        "an argument leaves its function's domain through rounding there, and no "
        "form that symgrad tries keeps it inside"),
}
_ELSE = ("no rewrite, algebra, series or regime that symgrad tries keeps the bits there, "
         "and the loss has no single cause the analysis names")


def cannot_fix(output: int, after: tuple[float, float], how: str, worst: dict | None,
               report: StabilityReport | None, symbols: Sequence = (),
               box: dict | None = None) -> str | None:
    """The plain statement for one output that ``stabilize`` left losing
    more than :data:`UNFIXED_ABOVE` bits (None where it did not): where,
    the best figure reached (``after``: max, mean bits), with which form
    (``how``), and the reason class from the regions ``report`` (the
    chosen form's ``check_stability``) finds for that output; without a
    report, ``box`` (symbol -> (lo, hi): the points measured losing more
    than that) and the ``worst`` point say where.

    >>> print(cannot_fix(0, (61.9, 0.84), "nothing", None, None))  # doctest: +ELLIPSIS
    symgrad cannot fix output 0: the formula as it is (nothing symgrad tried did better) ...
    """
    if after[0] <= UNFIXED_ABOVE:
        return None
    regions = [r for r in (report.regions if report is not None else [])
               if r.output == output and not r.harmless and r.max_bits > UNFIXED_ABOVE]
    worst_region: Region | None = max(regions, key=lambda r: r.max_bits, default=None)
    if worst_region is not None:
        where = "where " + _ranges(worst_region.ranges, " in ") if worst_region.ranges else ""
        at = f" ({worst_region.witness})"
        reason = _REASONS.get(worst_region.kind, _ELSE)
    elif box:
        where = "where " + _ranges(box, " in ")
        at = (" (worst at " + ", ".join(f"{s}={_num(v)}" for s, v in worst.items()) + ")"
              if worst else "")
        reason = _ELSE
    elif worst:
        where = "at " + ", ".join(f"{s}={_num(v)}" for s, v in worst.items())
        at, reason = "", _ELSE
    else:
        where, at, reason = "", "", _ELSE
    place = f" {where}{at}" if where else ""
    form = "the formula as it is (nothing symgrad tried did better)" \
        if how.startswith("nothing") else f"the best form found ({how})"
    return (f"symgrad cannot fix output {output}: {form} still loses "
            f"up to {after[0]:.1f} bits (mean {after[1]:.2f}){place}; why: {reason}")
