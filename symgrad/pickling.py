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
No module named 'symgrad'`` instead of returning another formula).

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

from sympy import Add, Basic, Mul, Pow

from .build import unevaluated

__all__ = ["as_written", "CLASSES"]

# the classes whose constructors rewrite their arguments (flatten, collect,
# sort, distribute a number over a sum, merge powers)
CLASSES = (Add, Mul, Pow)


def as_written(cls: type, args: Sequence[Basic]) -> Basic:
    """A node of ``cls`` over ``args``, as written (what unpickling calls).

    >>> from sympy import Add, Symbol
    >>> x = Symbol("x")
    >>> as_written(Add, (x, x))
    x + x
    """
    return unevaluated(Basic.__new__(cls), tuple(args))


def _reduce(node: Basic) -> tuple:
    if type(node)(*node.args) == node:  # what SymPy's unpickling rebuilds: the same node
        return Basic.__reduce_ex__(node, 2)
    return (as_written, (type(node), node.args))


for _cls in CLASSES:
    copyreg.pickle(_cls, _reduce)
