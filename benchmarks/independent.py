"""What the accuracy benchmarks share: independent points, an independent
measurement against the mpmath ground truth, and running each case in a
child process under a time budget.

Independent means: points drawn here, not by symgrad's sampler, with a seed
that neither ``check_stability`` nor ``stabilize`` uses, ten times as many
as ``stabilize`` chose on, half uniform over the float ordinals of each
variable's range (every scale as often) and half uniform in value (where
the mass of a bounded range is); the exact values from
``symgrad.stability.truth.GroundTruth`` (interval arithmetic whose
precision rises until each value rounds to one float); a point it cannot
decide is counted as unresolved, never dropped silently.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
import traceback
from collections.abc import Callable, Sequence

import numpy as np
from sympy import Basic, Symbol

from symgrad.codegen import lambdify
from symgrad.graph import postorder
from symgrad.stability.bits import bits_error, float_format
from symgrad.stability.floats import NodeEvaluator
from symgrad.stability.truth import RESOLVED, UNDEFINED, UNRESOLVED, GroundTruth
from symgrad.widen import widen

SEED = 20261126  # used by neither check_stability (0) nor stabilize (0, 1)


def _float_end(v: object, up: bool, dtype) -> float:
    f = float(v) if not hasattr(v, "evalf") else float(v.evalf(30))
    big = float(np.finfo(dtype).max)
    f = min(max(f, -big), big)
    g = float(np.asarray(f, dtype=dtype))
    if up and g < f:
        g = float(np.nextafter(np.asarray(g, dtype=dtype), np.asarray(np.inf, dtype=dtype)))
    if not up and g > f:
        g = float(np.nextafter(np.asarray(g, dtype=dtype), np.asarray(-np.inf, dtype=dtype)))
    return g


def _ordinals(a: np.ndarray, itype) -> np.ndarray:
    i = a.view(itype).astype(np.int64)
    mag = i & np.int64((1 << (8 * a.itemsize - 1)) - 1)
    return np.where(i < 0, -mag, mag)


def _from_ordinals(o: np.ndarray, dtype, itype) -> np.ndarray:
    sign = np.int64(1) << np.int64(8 * np.dtype(dtype).itemsize - 1)
    bits = np.where(o < 0, (-o) | sign, o)
    return bits.astype(itype).view(dtype)


def independent_points(domain: dict, symbols: Sequence[Symbol], n: int, dtype: str,
                       seed: int = SEED) -> np.ndarray:
    """``n`` points uniform over each variable's float ordinals and ``n``
    uniform in value, shape ``(2n, len(symbols))``."""
    dt = np.dtype(dtype)
    itype = np.int64 if dt.itemsize == 8 else np.int32
    rng = np.random.default_rng(seed)
    cols = []
    for s in symbols:
        lo, hi = domain[s]
        a, b = _float_end(lo, True, dt), _float_end(hi, False, dt)
        olo, ohi = _ordinals(np.array([a, b], dtype=dt), itype)
        by_ord = _from_ordinals(rng.integers(olo, ohi, size=n, endpoint=True), dt, itype)
        u = rng.random(n)
        with np.errstate(over="ignore"):
            by_val = np.clip(a * (1 - u) + b * u, a, b).astype(dt)
        cols.append(np.concatenate([by_ord, by_val]))
    if not cols:
        return np.zeros((1, 0), dtype=dt)
    return np.stack(cols, axis=1)


class Measured:
    """Bits of error of several float computations of one formula at the
    same points, against one ground truth."""

    def __init__(self, exprs: Sequence[Basic], symbols: Sequence[Symbol], points: np.ndarray,
                 dtype: str) -> None:
        self.symbols, self.points, self.dtype = list(symbols), points, dtype
        self.fmt = float_format(dtype)
        t0 = time.perf_counter()
        self.true, self.status, lo, hi = GroundTruth(
            list(exprs), self.symbols, self.fmt.name).batch_bounds(points)
        # a zero of unknown sign (the truth's bounds -0.0 and +0.0: GELU's gradient
        # below x = -45, about -e**-71400): the error against either is the same
        zero = (self.status == UNRESOLVED) & (lo == 0) & (hi == 0)
        self.true = np.where(zero, 0.0, self.true)
        self.status = np.where(zero, RESOLVED, self.status).astype(self.status.dtype)
        self.truth_seconds = time.perf_counter() - t0
        self.cols = [points[:, j] for j in range(len(self.symbols))]

    @property
    def unresolved(self) -> int:
        return int(np.sum(self.status == UNRESOLVED))

    @property
    def undefined(self) -> int:
        return int(np.sum(self.status == UNDEFINED))

    def bits(self, computed: np.ndarray) -> np.ndarray:
        """Bits of error where the truth is resolved (NaN elsewhere)."""
        b = bits_error(np.asarray(computed, dtype=self.fmt.dtype), self.true, self.fmt)
        return np.where(self.status == RESOLVED, b, np.nan)

    def as_written(self, exprs: Sequence[Basic]) -> np.ndarray:
        """Each output computed node by node as written (no accurate forms)."""
        ev = NodeEvaluator(list(exprs), self.symbols, self.fmt.dtype)
        vals = ev.values(self.cols if self.cols else [np.zeros(len(self.points))])
        return np.stack([np.broadcast_to(np.asarray(vals[e], dtype=self.fmt.dtype),
                                         (len(self.points),)) for e in exprs])

    def generated(self, exprs: Sequence[Basic]) -> np.ndarray:
        """Each output as symgrad's generated code computes it."""
        fn = lambdify(self.symbols, list(exprs), dtype=self.fmt.dtype, threads=1)
        with np.errstate(all="ignore"):
            out = fn(*self.cols)
        return np.stack([np.broadcast_to(np.asarray(o, dtype=self.fmt.dtype),
                                         (len(self.points),)) for o in out])


def stats(bits: np.ndarray) -> tuple[float, float]:
    """Max and mean over the measured entries (NaN: not measured)."""
    b = bits[np.isfinite(bits)]
    return (float(b.max()), float(b.mean())) if b.size else (0.0, 0.0)


def worst(bits: np.ndarray, computed: np.ndarray, m: Measured) -> dict | None:
    """Where the error is largest: the point, the output, computed, true."""
    b = np.where(np.isfinite(bits), bits, -1.0)
    if b.size == 0 or b.max() <= 0:
        return None
    k, i = np.unravel_index(int(np.argmax(b)), np.atleast_2d(b).shape)
    comp, true = np.atleast_2d(computed), np.atleast_2d(m.true)
    return {"point": {str(s): float(m.points[i, j]) for j, s in enumerate(m.symbols)},
            "output": int(k), "computed": float(comp[k, i]), "true": float(true[k, i]),
            "bits": float(np.atleast_2d(bits)[k, i])}


def worst_text(w: dict | None) -> str:
    if not w:
        return ""
    at = ", ".join(f"{k}={v:.6g}" for k, v in w["point"].items())
    out = f" (output {w['output']})" if w["output"] else ""
    return f"at {at}{out}: {w['computed']:.6g}, true {w['true']:.6g} ({w['bits']:.1f} bits)"


def nonfinite_where_finite(computed: np.ndarray, m: Measured) -> int:
    """Points where the computation is NaN or inf and the truth finite."""
    ok = (m.status == RESOLVED) & np.isfinite(m.true)
    return int(np.sum(ok & ~np.isfinite(computed)))


def widened(exprs: Sequence[Basic]) -> bool:
    order, _ = postorder(list(exprs), lambda n: n.args)
    return any(isinstance(n, widen) for n in order)


# ---- each case in a child process, under a time budget ------------------------------------


def _child(conn, fn: Callable, arg: object) -> None:
    def send(part: dict) -> None:  # what is measured so far, kept if the budget runs out
        conn.send(dict(part))

    try:
        out = fn(arg, send)
    except BaseException as exc:  # a crash is a result too
        out = {"crash": f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}",
               "traceback": traceback.format_exc()[-1500:]}
    try:
        conn.send({**out, "cpu": time.process_time(), "done": True})  # (a fork starts at 0)
    finally:
        conn.close()


def _cpu_seconds(pid: int) -> float:
    """The CPU seconds (user + system) a live process has used so far
    (``/proc``; 0 where it is not readable: the wall cap still holds)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


WALL_CAP = 10  # with cpu=True, a child is killed after this many budgets of wall time too


def run_all(fn: Callable, args: Sequence[object], budget: float, jobs: int = 1,
            on_result: Callable | None = None, cpu: bool = False) -> list[dict]:
    """``fn(arg, send)`` for each arg, each in a forked child (at most
    ``jobs`` at once), killed after ``budget`` seconds: a dict per arg, in
    order.  ``fn`` may ``send`` what it has measured so far; a child
    killed keeps the last of it, with ``timeout`` set to the budget and
    ``stage`` saying which stage was running; an exception gives ``crash``.
    With ``cpu=True`` the budget is the child's CPU time (user + system),
    which the machine's load does not stretch, and ``WALL_CAP`` budgets of
    wall time (a child that sleeps); each result then holds its ``cpu``."""
    ctx = multiprocessing.get_context("fork")
    results: list = [None] * len(args)
    todo = list(range(len(args)))
    running: dict = {}
    while todo or running:
        while todo and len(running) < jobs:
            i = todo.pop(0)
            parent, child = ctx.Pipe(duplex=False)
            p = ctx.Process(target=_child, args=(child, fn, args[i]), daemon=True)
            p.start()
            child.close()
            running[i] = (p, parent, time.perf_counter(), {})
        time.sleep(0.05)
        for i, (p, conn, start, part) in list(running.items()):
            done = False
            try:
                while not done and conn.poll():
                    part.update(conn.recv())
                    done = part.get("done", False)
            except EOFError:
                part["crash"] = f"the child process died (exit code {p.exitcode})"
                done = True
            if not done and not p.is_alive() and not conn.poll():
                part["crash"] = f"the child process died (exit code {p.exitcode})"
                done = True
            used = _cpu_seconds(p.pid) if cpu and not done else None
            wall = time.perf_counter() - start
            if not done and (wall > budget * WALL_CAP if cpu else wall > budget
                             ) or used is not None and used > budget:
                p.kill()
                part["timeout"] = budget
                done = True
            if used is not None:
                part["cpu"] = used  # (a finished child sends its own, below)
            if not done:
                continue
            part.pop("done", None)
            part["wall"] = time.perf_counter() - start
            p.join(5)
            if p.is_alive():
                p.kill()
            conn.close()
            del running[i]
            results[i] = part
            if on_result is not None:
                on_result(i, part)
    return results


def machine_line() -> str:
    load = os.getloadavg()
    return (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
            f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cores (shared)")


def fmt_bits(mx: float | None, mean: float | None) -> str:
    if mx is None or (isinstance(mx, float) and math.isnan(mx)):
        return "–"
    return f"{mx:.1f} / {mean:.2f}"
