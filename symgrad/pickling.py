"""Pickling keeps a formula as written.

SymPy pickles a node as its class and its arguments, and unpickling calls
the class's constructor, which evaluates: a sum or product that symgrad
built as written (``stabilize``'s ``(-1/(2*y))/y``, a sum whose terms are
in the order that cancels exactly) comes back as SymPy's canonical form
(``-1/(2*y**2)``, which overflows where ``y**2`` does), silently, in every
process that receives it (``multiprocessing``, ``joblib``, dask, a file).

Importing symgrad registers a reducer (:mod:`copyreg`, which ``pickle``,
``copy.deepcopy`` and ``multiprocessing`` consult) for SymPy's
:class:`~sympy.Add`, :class:`~sympy.Mul` and :class:`~sympy.Pow`, the
nodes whose constructors rewrite their arguments.  A node its constructor
would give back unchanged pickles exactly as SymPy pickles it (the stream
names SymPy only, and loads where symgrad is not installed); a node it
would change pickles as :func:`as_written` of its class and arguments, so
the stream names symgrad, and loading it rebuilds the node as written
(where symgrad is not installed, loading fails with ``ModuleNotFoundError:
No module named 'symgrad'`` instead of returning another formula).  A
``Piecewise`` and its pairs always pickle as written (:data:`ALWAYS`).

>>> import pickle
>>> from sympy import Mul, Pow, Symbol
>>> y = Symbol("y")
>>> form = Mul(Mul(-1, Pow(2 * y, -1), evaluate=False), Pow(y, -1), evaluate=False)
>>> form
(-1/(2*y))/y
>>> pickle.loads(pickle.dumps(form))  # SymPy alone gives back -1/(2*y**2)
(-1/(2*y))/y
>>> pickle.loads(pickle.dumps(2 * y)) == 2 * y  # a canonical node: SymPy's own pickle
True
"""

from __future__ import annotations

import copyreg
from collections.abc import Sequence

import sympy
from sympy import Add, Basic, Mul, Pow
from sympy.core.function import AppliedUndef
from sympy.core.operations import LatticeOp
from sympy.functions.elementary.miscellaneous import MinMaxBase
from sympy.functions.elementary.piecewise import ExprCondPair

from . import build
from .build import of_class
from .graph import postorder

__all__ = ["as_written", "CLASSES", "ALWAYS", "keep_as_written"]

# the classes whose constructors rewrite their arguments (flatten, collect,
# sort, distribute a number over a sum, merge powers)
CLASSES = (Add, Mul, Pow)
# ... and those pickled as written whatever they hold: SymPy's Piecewise and
# its pairs fold their conditions and nested Piecewise on construction, and
# asking whether they would (constructing them) walks every condition as a
# tree, exponential in a DAG's depth (stabilize's regimes: a Piecewise in a
# Piecewise, came back from pickle folded)
ALWAYS = (sympy.Piecewise, build.Piecewise, ExprCondPair)


def as_written(cls: type, args: Sequence[Basic]) -> Basic:
    """A node of ``cls`` over ``args``, as written (what unpickling calls).

    >>> from sympy import Add, Symbol
    >>> x = Symbol("x")
    >>> as_written(Add, (x, x))
    x + x
    """
    return of_class(cls, args)


def _reduce(node: Basic) -> tuple:
    try:
        same = type(node)(*node.args) == node  # what SymPy's unpickling rebuilds
    except Exception:  # noqa: BLE001  (it would not rebuild at all)
        same = False
    if same:
        return Basic.__reduce_ex__(node, 2)
    return (as_written, (type(node), node.args))


def _reduce_as_written(node: Basic) -> tuple:
    return (as_written, (type(node), node.args))


def keep_as_written(roots: Sequence[Basic]) -> None:
    """Register :func:`_reduce` for the class of every node of ``roots``
    (over the DAG, each distinct node once) whose constructor would change
    it: a function SymPy folds on construction (``Abs(Abs(x))`` is
    ``Abs(x)``), beside sums, products and powers.  Classes with a pickling
    of their own (tagged nodes, custom-gradient nodes), undefined functions
    and lattice nodes (whose constructors sort by walking the tree below)
    are left as they are.  ``stabilize`` calls it on what it returns.

    >>> import pickle
    >>> from sympy import Abs, Symbol
    >>> x = Symbol("x")
    >>> f = Abs(Abs(x, evaluate=False), evaluate=False)
    >>> keep_as_written([f])
    >>> pickle.loads(pickle.dumps(f))
    Abs(Abs(x))
    """
    order, _ = postorder(list(roots), lambda n: n.args)
    table = copyreg.dispatch_table
    for n in order:
        cls = type(n)
        if cls in table or not n.args or isinstance(n, (AppliedUndef, LatticeOp, MinMaxBase)) \
                or cls.__reduce_ex__ is not Basic.__reduce_ex__ \
                or getattr(cls, "__reduce__", None) is not Basic.__reduce__:
            continue
        try:
            same = cls(*n.args) == n
        except Exception:  # noqa: BLE001  (a constructor that refuses: rebuild as written)
            same = False
        if not same:
            copyreg.pickle(cls, _reduce)


for _cls in CLASSES:
    copyreg.pickle(_cls, _reduce)
for _cls in ALWAYS:
    copyreg.pickle(_cls, _reduce_as_written)
