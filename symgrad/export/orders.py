"""The derivative orders of an exported function, whatever the framework.

Order 0 holds the formulas F(x); order k+1 holds symgrad's derivatives of
order k's, ∂Fᵢ/∂xⱼ (Jacobian entries, row-major), taken lazily the first
time the framework asks for them, in the context of the export (the
overrides active then).  Every order is a function of x alone: the
framework contracts it with tangents or cotangents in its own code (a
product and a sum, linear), so neither JAX nor PyTorch ever differentiates
emitted code, and each order's formulas are emitted in its own forms.

With ``stabilize=True`` those forms are :func:`symgrad.stabilize`'s
measured choice over the domain for each order's formulas (value,
gradient, Hessian ... each chosen for itself), kept to float forms
(``widen=False``: neither framework has a type wider than float64 on every
device).  A ``scaled(u)`` is emitted (``ldexp`` in both frameworks), and a
``compensated(u)`` in pairs of floats (:mod:`symgrad.export.source`: NumPy's
helpers without their one branch on the data, which ``jax.jit`` cannot
trace); a backend without the pair helpers gets ``u``, the plain float
form, with a :class:`ExportWarning` naming the order and the output.
``stabilize`` offers no ``certified(u)`` to the export
(:func:`symgrad.stability.stabilize.without_certified`): exported code has
no ground truth to recompute a point by.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from contextvars import Context

from sympy import S, oo

from ..autodiff import jacobian
from ..errors import ExportWarning  # (defined with the other warnings; named here too)
from ..graph import postorder
from .branches import shared_branches
from .source import compile_source, generate

__all__ = ["Order", "ExportWarning", "chosen_forms", "float_form", "FrameworkOrder", "export",
           "contract_jvp", "contract_vjp", "dtype_name"]


# stabilize's choices by (formulas, domain): the same formulas exported again
# (to the other framework, or once more) are not measured again
_CHOSEN: dict[tuple, list] = {}


def chosen_forms(exprs: list, symbols: list, domain: Mapping | None,
                 where: str = "", dtype: str = "float64") -> list:
    """``stabilize``'s float forms of ``exprs`` over ``domain`` (symbols it
    does not name range over all floats) in ``dtype``, without the pairs
    and subnormal splits that keep no bit there (:mod:`.pruning`); markers
    other than ``scaled`` dropped with a warning.

    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> chosen_forms([sp.sqrt(x + 1) - sp.sqrt(x)], [x], {x: (0, sp.oo)})
    [1/(sqrt(x) + sqrt(x + 1))]
    """
    from ..stability.stabilize import stabilize, without_certified
    from .pruning import pruned

    todo = [k for k, e in enumerate(exprs) if e.args]  # a symbol or a number is exact
    out = list(exprs)
    if not todo:
        return out
    dom = {s: (domain or {}).get(s, (-oo, oo)) for s in symbols}
    key = (tuple(exprs[k] for k in todo), tuple((s, *map(str, dom[s])) for s in symbols), dtype)
    if key not in _CHOSEN:  # exporting to both frameworks measures once
        if len(_CHOSEN) >= 64:
            _CHOSEN.pop(next(iter(_CHOSEN)))
        try:
            sources = [exprs[k] for k in todo]
            # (its pairs and subnormal splits kept where they keep bits: .pruning)
            # (no certified(u): the export has no ground truth to recompute by;
            # where the form chosen without it loses bits, an ExportWarning says so)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with without_certified():
                    chosen = stabilize(sources, dom, dtype=dtype, widen=False)
            _CHOSEN[key] = pruned(chosen, sources, dom, dtype)
            _reraised(caught, f"{where}outputs {todo}")
        except Exception as err:  # noqa: BLE001  (a failure inside stabilize: say so, keep safe)
            from ..lowering import lower
            from ..rewrites import safe_forms

            warnings.warn(
                f"{where}outputs {todo}: symgrad.stabilize failed ({type(err).__name__}: "
                f"{err}); they are emitted in symgrad's safe forms over the domain instead "
                f"(as lambdify(..., stabilize=True))", ExportWarning, stacklevel=3)
            _CHOSEN[key] = safe_forms(lower([exprs[k] for k in todo]), dom)
    from ..widen import widen

    for k, form in zip(todo, _CHOSEN[key]):  # compensated: emitted where the backend can
        out[k] = float_form(form, f"{where}output {k}", (widen,))
    return out


def _reraised(caught: list, where: str) -> None:
    """``caught`` warnings raised again, ``stabilize``'s StabilityWarnings as
    :class:`ExportWarning` saying the form was chosen without ``certified(u)``."""
    from ..errors import StabilityWarning

    for w in caught:
        if issubclass(w.category, StabilityWarning):
            warnings.warn(
                f"{where}: the exported form was chosen without certified(u) forms "
                f"(exported code cannot recompute a point by the ground truth, symgrad's NumPy "
                f"code of stabilize's choice may) and {w.message}", ExportWarning, stacklevel=4)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def dtype_name(dtype: object) -> str:
    """"float32" for a 32-bit (or narrower) float type, else "float64": the
    type stabilize chooses the forms for."""
    import numpy as np

    # a torch.dtype and NumPy's have .itemsize (no exception: torch.compile traces this)
    size = getattr(dtype, "itemsize", None)
    if not isinstance(size, int):
        size = np.dtype(dtype).itemsize
    return "float32" if size <= 4 else "float64"


def float_form(form, where: str = "a formula", kinds: tuple | None = None):
    """``form`` without markers of ``kinds`` (default ``widen`` and
    ``compensated``; ``scaled`` is translated, ldexp), with an
    :class:`ExportWarning` naming ``where`` if it had one.

    >>> import sympy as sp, symgrad, warnings
    >>> x = sp.Symbol("x")
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     float_form(symgrad.compensated(x * x - 1))
    x**2 - 1
    """
    from ..compensated import compensated
    from ..exact import exact
    from ..widen import widen
    from .source import unmark

    kinds = kinds or (widen, compensated, exact)
    order, _ = postorder([form], lambda n: n.args)
    if not any(isinstance(n, kinds) for n in order):
        return form  # scaled(u) is emitted (ldexp in both frameworks)
    warnings.warn(
        f"{where}: stabilize chose a form computed in pairs of floats or a wider type "
        f"(compensated/widen/exact), which the export does not translate; its plain float "
        f"form is emitted: {form}", ExportWarning, stacklevel=4)
    return unmark([form], kinds)[0]


class Order:
    """The formulas of one derivative order (``exprs`` of ``symbols``), the
    forms they are emitted in, and the next order, built on first use."""

    def __init__(self, symbols: list, exprs: list, stabilize: bool, domain: Mapping | None,
                 order: int, ctx: Context) -> None:
        self.symbols, self.exprs, self.order = symbols, exprs, order
        self.stabilize, self.domain, self.ctx = stabilize, domain, ctx
        self.live = [k for k, e in enumerate(exprs) if e is not S.Zero]
        self._forms: dict[str, list] = {}
        self._kernels: dict[tuple, Callable] = {}
        self._next: Order | None = None

    @property
    def forms(self) -> list:
        """The live outputs as emitted in float64 (stabilize's choice with
        ``stabilize=True``)."""
        return self.forms_for("float64")

    def forms_for(self, dtype: str) -> list:
        """The live outputs as emitted for arrays of ``dtype`` ("float32" or
        "float64"): with ``stabilize=True``, stabilize's choice in that type."""
        dtype = dtype if self.stabilize else "float64"  # the same code otherwise
        if dtype not in self._forms:
            live = [self.exprs[k] for k in self.live]
            self._forms[dtype] = shared_branches(chosen_forms(
                live, self.symbols, self.domain, f"order {self.order}, live ", dtype),
                self.domain) \
                if self.stabilize and live else live
        return self._forms[dtype]

    def kernel(self, backend: str, dtype: str = "float64") -> Callable:
        """The compiled code of the live outputs (one zero output if none is)
        for arrays of ``dtype``; its ``source`` is the code."""
        from .source import PAIRS

        dtype = dtype if self.stabilize else "float64"
        if (backend, dtype) not in self._kernels:
            forms = self.forms_for(dtype)
            if backend not in PAIRS:  # compensated(u): its plain float form, with a warning
                forms = [float_form(f, f"order {self.order}, live output {k} ({backend})")
                         for k, f in enumerate(forms)]
            # the domain the forms were chosen over: where their branches may be shared
            src = generate(backend, self.symbols, forms or [S.Zero],
                           domain=self.domain if self.stabilize else None,
                           dtype=dtype if self.stabilize else None)
            self._kernels[backend, dtype] = compile_source(src)
        return self._kernels[backend, dtype]

    def source(self, backend: str) -> str:
        return self.kernel(backend).source

    def joint_kernel(self, backend: str, dtype: str = "float64") -> Callable:
        """One program computing the live outputs and then the next order's
        live outputs (this order's Jacobian entries), each in the forms its
        own order emits: their common subexpressions computed once."""
        dtype = dtype if self.stabilize else "float64"
        key = (backend, dtype, "joint")
        if key not in self._kernels:
            from .source import PAIRS

            nxt = self.next()
            forms = self.forms_for(dtype) + nxt.forms_for(dtype)
            if backend not in PAIRS:
                forms = [float_form(f, f"orders {self.order}-{self.order + 1} ({backend})")
                         for f in forms]
            src = generate(backend, self.symbols, forms,
                           domain=self.domain if self.stabilize else None,
                           dtype=dtype if self.stabilize else None)
            self._kernels[key] = compile_source(src)
        return self._kernels[key]

    def next(self) -> Order:
        """The next order: symgrad's derivatives ∂Fᵢ/∂xⱼ, row-major."""
        if self._next is None:
            # in the context of the export: the overrides active then
            jac = self.ctx.run(jacobian, list(self.exprs), list(self.symbols))
            entries = [jac[i, j] for i in range(jac.rows) for j in range(jac.cols)]
            self._next = Order(self.symbols, entries, self.stabilize, self.domain,
                               self.order + 1, self.ctx)
        return self._next

    def at(self, k: int) -> Order:
        """The order ``k`` steps after this one."""
        o = self
        for _ in range(k):
            o = o.next()
        return o


class FrameworkOrder:
    """One order as a framework's differentiable function (a subclass per
    framework builds it from ``order`` and defines :meth:`run`)."""

    backend = ""

    def __init__(self, order: Order) -> None:
        self.order = order
        self._next: FrameworkOrder | None = None

    @property
    def source(self) -> str:
        """The emitted code of this order's formulas."""
        return self.order.source(self.backend)

    @property
    def exprs(self) -> list:
        """This order's formulas (symgrad's derivatives, row-major)."""
        return self.order.exprs

    @property
    def forms(self) -> list:
        """The live formulas as emitted (stabilize's choice with ``stabilize=True``)."""
        return self.order.forms

    def run(self, *xs) -> tuple:
        """The live outputs at arrays ``xs`` (one zero output if none is live)."""
        raise NotImplementedError

    def call(self, *xs) -> tuple:
        """All outputs (zeros where the formula is 0) from the live ones."""
        from .frame import frame

        computed = self.run(*xs)
        live, n = self.order.live, len(self.order.exprs)
        if len(live) == n:
            return computed
        got = dict(zip(live, computed))
        zero = frame(self.backend).zeros_like(computed[0])
        return tuple(got.get(k, zero) for k in range(n))

    def jacobian_at(self, *xs) -> dict:
        """The nonzero entries of J at ``xs`` (index i·n + j: row-major), by
        the next order's function."""
        nxt = self.next_order()
        return dict(zip(nxt.order.live, nxt.run(*xs))) if nxt.order.live else {}

    def next_order(self) -> FrameworkOrder:
        """The next order's function, built on first use."""
        if self._next is None:
            self._next = type(self)(self.order.next())
        return self._next


def contract_jvp(coef: dict, tangents, rows: list, zero: Callable) -> list:
    """For each row i of ``rows``: Σⱼ J[i, j]·tangents[j] (``coef``: the
    nonzero entries of J, row-major over len(tangents) columns); ``zero()``
    where none is."""
    n, out = len(tangents), []
    for i in rows:
        t = None
        for j in range(n):
            if i * n + j in coef and tangents[j] is not None:
                term = coef[i * n + j] * tangents[j]
                t = term if t is None else t + term
        out.append(zero() if t is None else t)
    return out


def contract_vjp(coef: dict, cts, rows: list, n: int, zero: Callable) -> list:
    """For each of the ``n`` inputs j: Σ over rows[p] = i of cts[p]·J[i, j];
    ``zero(j)`` where none is."""
    out = []
    for j in range(n):
        t = None
        for p, i in enumerate(rows):
            if i * n + j in coef and cts[p] is not None:
                term = cts[p] * coef[i * n + j]
                t = term if t is None else t + term
        out.append(zero(j) if t is None else t)
    return out


def export(kind: type[FrameworkOrder], sig, stabilize: bool,
           domain: Mapping | None) -> Callable:
    """The exported function of ``sig``'s formulas through ``kind``'s
    functions: ``f.source`` is the value's code, ``f.order(k)`` the k-th
    derivatives' function (its ``source``, ``exprs``, ``forms``)."""
    from .args import export_context
    from .frame import frame, front_door

    first = kind(Order(sig.symbols, sig.exprs, stabilize, domain, 0, export_context()))
    call = front_door(sig, frame(kind.backend), first.call)
    call.source = first.source

    def order(k: int) -> FrameworkOrder:
        """The k-th derivatives' function (its ``source``, ``exprs``, ``forms``)."""
        o = first
        for _ in range(k):
            o = o.next_order()
        return o

    call.order = order
    call.first = first
    return call
