"""The one policy for rebuilding a SymPy node over new arguments, as
written: no evaluation, no checks, past SymPy's cache.

Every stage that rebuilds a node (lowering, realness, the rule forms, the
printers, code generation, the node-by-node float evaluator of the
stability checker) calls :func:`unevaluated`.  Node classes differ in what
their constructor takes: SymPy's own take ``evaluate=False``, but
``sympy.codegen``'s nodes (``logaddexp``, ``logaddexp2``) and a few
containers (``ExprCondPair``) take no keyword at all, and constructors
that sort their arguments (``Max``, ``logaddexp``) walk the whole tree
below to do it, exponential in a DAG's depth.  So functions, powers, sums,
products and lattice nodes are made directly (``Basic.__new__``), the way
their constructors make them once evaluation is done; any other class gets
``evaluate=False`` if its constructor takes it, and its plain constructor
if not.
"""

from __future__ import annotations

from collections.abc import Sequence

from sympy import Basic, Function
from sympy.core.function import AppliedUndef
from sympy.core.operations import LatticeOp
from sympy.functions.elementary.miscellaneous import MinMaxBase

__all__ = ["unevaluated"]


def unevaluated(node: Basic, args: Sequence[Basic]) -> Basic:
    """``node``'s class over ``args``, as written.

    >>> from sympy import S, symbols
    >>> from sympy.codegen.numpy_nodes import logaddexp
    >>> x, y = symbols("x y")
    >>> unevaluated(2 * x, (S(2), y + 1)).args  # SymPy would distribute 2*(y + 1)
    (2, y + 1)
    >>> unevaluated(logaddexp(x, y), (y, S(0)))  # it takes no evaluate=False
    logaddexp(y, 0)
    """
    args = tuple(args)
    cls = type(node)
    if node.is_Add or node.is_Mul:
        return cls._from_args(args)
    if node.is_Pow:
        obj = Basic.__new__(cls, *args)
        obj.is_commutative = args[0].is_commutative and args[1].is_commutative
        return obj
    if isinstance(node, (MinMaxBase, LatticeOp)):
        obj = Basic.__new__(cls, *args)
        obj._argset = frozenset(args)
        return obj
    if isinstance(node, Function) and not isinstance(node, AppliedUndef):
        obj = Basic.__new__(cls, *args)
        nargs = getattr(node, "nargs", None)  # (what Function's constructor sets)
        if nargs is not None:
            obj.nargs = nargs
        return obj
    try:
        return node.func(*args, evaluate=False)
    except TypeError:  # a class without the keyword (ExprCondPair, Tuple)
        return node.func(*args)
