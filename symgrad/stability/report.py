"""The stability report: what was measured, where it goes wrong, what is
proved, shown as a terminal table, Markdown, HTML or a plot."""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

import numpy as np
from sympy import Basic, Symbol

from ..brief import brief
from ..safe import refuse_string

if TYPE_CHECKING:
    from .search import Basis

__all__ = ["Witness", "Region", "Proof", "Limit", "OutputStats", "StabilityReport", "KINDS"]

KINDS = ("overflow", "underflow", "nan", "domain", "cancellation", "ill-conditioned")
UNDEFINED_HEADING = "undefined (no real value; the code's NaN/inf is right there)"


def _num(v: float) -> str:
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return str(v)
    return f"{v:.6g}"


def _ranges(ranges: dict, sep: str) -> str:
    return ", ".join(f"{s}{sep}[{_num(lo)}, {_num(hi)}]" for s, (lo, hi) in ranges.items())


def _md(text: str) -> str:
    return text.replace("|", "\\|")


@dataclass(frozen=True)
class Witness:
    """One input point of a region, with what the code computed there and
    the correctly rounded truth (NaN where the formula has no value)."""

    point: dict[Symbol, float]
    computed: float
    true: float
    bits: float

    def __str__(self) -> str:
        at = ", ".join(f"{s}={_num(v)}" for s, v in self.point.items()) or "its one value"
        if math.isnan(self.true) and not math.isnan(self.bits):
            return (f"at {at}: computed {_num(self.computed)}, true value unresolved but "
                    f"at least {self.bits:.1f} bits away by its bounds")
        return f"at {at}: computed {_num(self.computed)}, true {_num(self.true)}"


@dataclass(frozen=True)
class Region:
    """A finding: on ``ranges`` the output ``output`` goes wrong in the
    way ``kind`` says, because of the subexpression ``culprit``."""

    kind: str
    ranges: dict[Symbol, tuple[float, float]]
    max_bits: float
    culprit: Basic
    output: int
    witness: Witness
    why: str = ""
    count: int = 0
    harmless: bool = False

    def __str__(self) -> str:
        rng = "where " + _ranges(self.ranges, " in ") if self.ranges else "(a constant)"
        if self.kind == "undefined":
            n = f"{self.count} point{'s' if self.count != 1 else ''}"
            return f"output {self.output} {rng} ({n}): {self.why}"
        tag = " (harmless)" if self.harmless else ""
        return (f"{self.kind}{tag} in output {self.output} {rng}: {self.max_bits:.1f} bits, "
                f"culprit {brief(self.culprit)}; {self.why}")


@dataclass(frozen=True)
class Proof:
    """A statement proved for the whole domain, with the bound it rests on."""

    kind: str
    statement: str
    reason: str
    node: Basic | None = None

    def __str__(self) -> str:
        return f"{self.statement}: {self.reason}"


@dataclass(frozen=True)
class Limit:
    """At an infinite end of ``symbol``: SymPy's limit of output ``output``
    beside the float result at the largest float of that end."""

    output: int
    symbol: Symbol
    end: float
    limit: Basic | None
    at: float
    computed: float

    def __str__(self) -> str:
        end = "+oo" if self.end > 0 else "-oo"
        lim = "unknown" if self.limit is None else str(self.limit)
        return (f"output {self.output} as {self.symbol} -> {end}: limit {lim}; "
                f"the code gives {_num(self.computed)} at {self.symbol}={_num(self.at)}")


@dataclass(frozen=True)
class OutputStats:
    """One output's figures, over the points where its exact value is
    known; ``undefined`` and ``unresolved`` count the points left out."""

    expr: Basic
    max_bits_error: float
    mean_bits_error: float
    median_bits_error: float
    undefined: int = 0
    unresolved: int = 0


@dataclass
class StabilityReport:
    """What :func:`symgrad.check_stability` found.

    ``regions`` are alarms: places where the output, defined there, loses
    more than ``tolerance_bits``.  ``undefined`` lists, as information, where
    the formula itself has no real value (a pole, a log or root outside its
    domain): the code's NaN or inf is right there, and those points are in
    no figure.  ``unresolved`` counts the points whose exact value the
    ground truth could not establish; they too are in no figure, but for
    those whose error every value the truth's bounds allow gives alike
    (``unresolved_known``: a zero whose sign is not known, where -0 and +0
    are one ordinal).

    At an unresolved point the truth's last interval still bounds the
    error: where the code is wrong by more than the tolerance for every
    value it allows (a NaN where the value is real), the point is in an
    alarm region; where it is within the tolerance for all of them, it is
    counted in ``unresolved_within`` and decides nothing against ``ok``.

    ``ok`` is true when no region was found, the worst error is within
    ``tolerance_bits`` and every unresolved point is within the tolerance by
    those bounds; ``verdict`` words it: ``"ok"``, ``"NOT ok"``, or, with
    undecided points and no alarm, ``"ok on resolved points; N unresolved"``
    (``ok`` is then False)."""

    exprs: list[Basic]
    domain: dict[Symbol, tuple[float, float]]
    dtype: str  # "float32" or "float64"
    rewrites: bool
    tolerance_bits: float
    max_bits_error: float
    mean_bits_error: float
    median_bits_error: float
    outputs: list[OutputStats]
    regions: list[Region]
    harmless: list[Region]
    samples: int
    unresolved: int  # (output, point) pairs whose exact value is not known
    undefined_points: int  # (output, point) pairs where the formula has no real value
    undefined: list[Region] = field(default_factory=list)
    unresolved_within: int = 0  # of the unresolved, those the truth's bounds put within tolerance
    unresolved_wrong: int = 0  # ... and those they put beyond it (in the regions)
    unresolved_known: int = 0  # ... and those whose error they fix (in the figures)
    notes: list[str] = field(default_factory=list)
    points: np.ndarray | None = field(default=None, repr=False)
    bits: np.ndarray | None = field(default=None, repr=False)
    basis: Basis | None = None  # how the figures were measured: the points, by source
    limit_source: Callable[[], list[Limit]] | None = field(default=None, repr=False)
    _limits: list[Limit] | None = field(default=None, repr=False)
    proof_source: Callable[[], list[Proof]] | None = field(default=None, repr=False)
    _proved: list[Proof] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # built by check_stability; no field but the dtype's name is a string
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name != "dtype" or v not in ("float32", "float64"):
                refuse_string(v, "StabilityReport", f.name)

    @property
    def limits(self) -> list[Limit]:
        """At each infinite end of a variable, SymPy's limit of each output
        of that variable beside the floats there (computed on first use:
        SymPy's ``limit`` may take a second)."""
        if self._limits is None:
            self._limits = self.limit_source() if self.limit_source else []
        return self._limits

    @property
    def proved(self) -> list[Proof]:
        """What interval bounds prove for the whole domain (computed on
        first use, as ``limits``: stabilize's own checks and most callers
        never read it)."""
        if self._proved is None:
            self._proved = self.proof_source() if self.proof_source else []
        return self._proved

    @property
    def ok(self) -> bool:
        return self.verdict == "ok"

    @property
    def verdict(self) -> str:
        """``"ok"``, ``"NOT ok"`` (an alarm, or an error beyond the
        tolerance), or ``"ok on resolved points; N unresolved"``."""
        if self.regions or self.max_bits_error > self.tolerance_bits:
            return "NOT ok"
        open_ = self.unresolved - self.unresolved_within - self.unresolved_wrong
        if open_:
            return f"ok on resolved points; {open_} unresolved"
        return "ok"

    # -- text ---------------------------------------------------------------
    def _summary(self) -> list[tuple[str, str]]:
        dom = _ranges(self.domain, " in ") if self.domain else "none (a constant)"
        how = "as symgrad runs it" if self.rewrites else "as written"
        rows = [
            ("formula", "; ".join(brief(e) for e in self.exprs)),
            ("domain", f"{dom} ({self.dtype}, {how})"),
            ("verdict", self.verdict),
            ("bits of error", f"max {self.max_bits_error:.1f}, mean {self.mean_bits_error:.2f}, "
                              f"median {self.median_bits_error:.1f} over {self.samples} "
                              f"point{'s' if self.samples != 1 else ''}"),
        ]
        if self.basis is not None:  # the figures and the verdict are measured, not proved
            rows.append(("how known", f"{self.basis}; the mean and median over the "
                                      f"{self.basis.random} random ones; the max is the "
                                      "largest found, a lower bound for the domain (a zero "
                                      "set the points miss can lose more); not proved (what "
                                      "is proved is under 'proved')"))
        if self.undefined_points:
            rows.append(("undefined", f"{self.undefined_points} point"
                                      f"{'s' if self.undefined_points != 1 else ''} where the "
                                      "formula has no real value: not in the figures"))
        if self.unresolved:
            text = (f"{self.unresolved} point{'s' if self.unresolved != 1 else ''} unresolved: "
                    "the exact value could not be established; not in the figures")
            if self.unresolved_known:
                text += (f", but for {self.unresolved_known} whose error is the same for every "
                         "value the truth's bounds allow (a zero of unknown sign)")
            if self.unresolved_within:
                text += (f"; {self.unresolved_within} of them within the tolerance (the code's "
                         "value is that close to every value the truth's bounds allow)")
            if self.unresolved_wrong:
                text += (f"; {self.unresolved_wrong} of them wrong by more than the tolerance "
                         "for every value those bounds allow (in the regions)")
            rows.append(("unresolved", text))
        return rows

    def __str__(self) -> str:
        lines = [f"{k:>14}: {v}" for k, v in self._summary()]
        if len(self.outputs) > 1:
            for i, o in enumerate(self.outputs):
                left = "".join(f", {k} {n}" for k, n in (("undefined", o.undefined),
                                                         ("unresolved", o.unresolved)) if n)
                lines.append(f"{'output ' + str(i):>14}: max {o.max_bits_error:.1f} bits, "
                             f"mean {o.mean_bits_error:.2f}{left}  ({brief(o.expr)})")
        for title, items in (("regions", self.regions), ("harmless", self.harmless),
                             (UNDEFINED_HEADING, self.undefined),
                             ("proved", self.proved), ("limits", self.limits),
                             ("notes", self.notes)):
            if items:
                lines.append(f"{title}:")
                for it in items:
                    lines.append(f"  - {it}")
                    if isinstance(it, Region):
                        lines.append(f"      {it.witness}")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        out = ["| | |", "|---|---|"]
        out += [f"| {k} | {_md(v)} |" for k, v in self._summary()]
        if self.regions or self.harmless:
            out += ["", "| kind | output | where | bits | culprit | witness |",
                    "|---|---|---|---|---|---|"]
            for r in self.regions + self.harmless:
                rng = _ranges(r.ranges, " ∈ ") or "(a constant)"
                kind = r.kind + (" (harmless)" if r.harmless else "")
                out.append(f"| {kind} | {r.output} | {rng} | {r.max_bits:.1f} | "
                           f"`{brief(r.culprit)}` | {r.witness} |")
        for title, items in (("Undefined (no real value; the code's NaN/inf is right there)",
                              self.undefined), ("Proved", self.proved), ("Limits", self.limits),
                             ("Notes", self.notes)):
            if items:
                out += ["", f"**{title}**", ""] + [f"- {_md(str(it))}" for it in items]
        return "\n".join(out)

    def _repr_html_(self) -> str:
        esc = html.escape
        rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in self._summary())
        parts = [f"<table>{rows}</table>"]
        if self.regions or self.harmless:
            head = "".join(f"<th>{h}</th>" for h in
                           ("kind", "output", "where", "bits", "culprit", "witness"))
            body = ""
            for r in self.regions + self.harmless:
                rng = _ranges(r.ranges, " ∈ ") or "(a constant)"
                kind = r.kind + (" (harmless)" if r.harmless else "")
                cells = (kind, str(r.output), rng, f"{r.max_bits:.1f}", brief(r.culprit),
                         str(r.witness))
                body += "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>"
            parts.append(f"<table><tr>{head}</tr>{body}</table>")
        for title, items in (("Undefined (no real value; the code's NaN/inf is right there)",
                              self.undefined), ("Proved", self.proved), ("Limits", self.limits),
                             ("Notes", self.notes)):
            if items:
                lis = "".join(f"<li>{esc(str(it))}</li>" for it in items)
                parts.append(f"<p><b>{title}</b></p><ul>{lis}</ul>")
        return "".join(parts)

    # -- picture ------------------------------------------------------------
    def plot(self, path: str) -> None:
        """Write a PNG to ``path``: bits of error against each variable,
        one panel per variable, the regions shaded, and where the formula is
        undefined (no real value: no bit of error there) hatched in grey.
        Needs matplotlib (``pip install symgrad[plot]``)."""
        fig = self._figure()
        fig.savefig(path, dpi=90)
        import matplotlib.pyplot as plt

        plt.close(fig)

    def _figure(self):
        """The matplotlib figure :meth:`plot` writes."""
        try:
            import matplotlib
        except ImportError:
            raise ImportError(
                "StabilityReport.plot needs matplotlib: install the optional extra "
                "with `pip install symgrad[plot]` (or `pip install matplotlib`)"
            ) from None
        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        syms = list(self.domain)
        fig, axes = plt.subplots(1, max(len(syms), 1), figsize=(5 * max(len(syms), 1), 3.2),
                                 squeeze=False)
        worst = np.nanmax(self.bits, axis=0) if self.bits is not None else np.array([])
        colors = {"overflow": "tab:red", "nan": "tab:purple", "domain": "tab:gray",
                  "underflow": "tab:blue", "cancellation": "tab:orange",
                  "ill-conditioned": "tab:brown"}
        for j, s in enumerate(syms):
            ax = axes[0][j]
            xs = self.points[:, j].astype(float)
            lo, hi = self.domain[s]
            if hi - lo > 100:  # wide: the samples cover every scale
                if lo > 0:
                    ax.set_xscale("log")
                else:
                    ax.set_xscale("symlog", linthresh=1.0)
            ax.scatter(xs, worst, s=4, color="black", alpha=0.6)
            for u in self.undefined:
                if s not in u.ranges:
                    continue
                a, b = u.ranges[s]
                ax.axvspan(max(a, np.min(xs)), min(b, np.max(xs)), facecolor="0.85",
                           edgecolor="0.55", hatch="//", alpha=0.5, lw=0,
                           label="undefined" + (f": {brief(u.culprit)}" if u.culprit is not None
                                                else ""))
            for r in self.regions + self.harmless:
                a, b = r.ranges[s]
                ax.axvspan(max(a, np.min(xs)), min(b, np.max(xs)),
                           alpha=0.12 if r.harmless else 0.25,
                           color=colors.get(r.kind, "tab:red"),
                           label=f"{r.kind}: {brief(r.culprit)}")
            ax.set_xlabel(str(s))
            ax.set_ylabel("bits of error")
            ax.set_ylim(-1, float(np.finfo(self.dtype).bits) + 2)
            handles, labels = ax.get_legend_handles_labels()
            if handles:
                uniq = dict(zip(labels, handles))
                ax.legend(uniq.values(), uniq.keys(), fontsize=7, loc="upper left")
        fig.suptitle("; ".join(brief(e) for e in self.exprs)[:100] + f"  ({self.dtype})",
                     fontsize=9)
        fig.tight_layout()
        return fig
