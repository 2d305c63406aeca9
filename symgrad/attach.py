"""``attach_gradient``: give a value a gradient of your choosing, built from
``stop_gradient`` alone (the old ``tf.contrib.bayesflow.custom_gradient``,
later ``tfp.math.custom_gradient``).

For one scalar ``x`` the result is

    h = stop(fx) + stop(gx) * (x - stop(x))

whose value is ``fx`` (``x - stop(x)`` lowers to ``x - x``, which SymPy
folds to an exact 0, so nothing is added and nothing rounds) and whose
derivative with respect to ``x`` is ``stop(gx)``.  For an array ``x`` the
product becomes a sum over the dimensions ``axis`` that ``f`` reduces.
"""

from __future__ import annotations

import operator
from itertools import product

from sympy import Add, Expr, MatrixBase, NDimArray

from .errors import ShapeError
from .nodes import stop_gradient
from .shapes import flatten_exprs

__all__ = ["attach_gradient"]

Shaped = Expr | list | tuple | MatrixBase | NDimArray


def attach_gradient(
    fx: Shaped,
    gx: Shaped,
    x: Shaped,
    axis: int | tuple[int, ...] | None = (),
    fx_gx_manually_stopped: bool = False,
    name: str | None = None,
) -> Shaped:
    """An expression whose value is ``fx`` and whose gradient with respect
    to ``x`` is ``gx``.

    ``x`` is an expression (usually a Symbol), a list/tuple, a Matrix or an
    Array.  ``axis`` names the dimensions of ``x`` that are the domain of
    ``f``: ``f`` gives one scalar for each index of the *remaining*
    dimensions.  ``axis=()`` (the default) is elementwise, ``axis=None``
    means one scalar from all of ``x``.  So:

    * ``fx`` has ``x``'s shape without the ``axis`` dimensions, or with
      them kept as size 1 (``keepdims``, handy for a Matrix);
    * ``gx`` has ``x``'s shape (one partial derivative per entry of ``x``),
      or ``fx``'s shape, in which case each ``gx`` entry is the partial of
      every ``x`` entry it reduces (the ``reduce_sum`` form of
      ``tf.contrib``), or a scalar, the partial of every entry.

    The result has ``fx``'s structure (a list comes back as a tuple).
    ``name`` is accepted as TensorFlow's label, and not used.

    The value is exactly ``fx``: ``symgrad.expand`` gives ``fx`` back and
    ``symgrad.lambdify`` emits the same code as for ``fx``.  The gradient
    with respect to ``x`` is ``stop_gradient(gx)``: exactly ``gx`` in value,
    and a constant to further differentiation, so second derivatives
    through it are 0 (as in TensorFlow).  A symbol ``y`` in ``fx`` or ``gx``
    other than ``x`` gets no gradient (0, or None with
    ``unconnected="none"``), because ``fx`` and ``gx`` are stopped whole.

    With ``fx_gx_manually_stopped=True`` nothing of ``fx`` or ``gx`` is
    stopped for you (``x - stop(x)`` still is): stop by hand the parts that
    depend on ``x``, and the gradient with respect to ``y`` is what ``fx``
    and ``gx`` give.  If ``gx`` still depends on ``x`` unstopped, the
    second derivative is ``2 * d(gx)/dx`` (the product rule acts on both
    ``gx`` and ``x - stop(x)``), not ``d(gx)/dx``; use ``custom_gradient``
    for exact higher orders.

    >>> from sympy import Matrix, exp, log, symbols
    >>> from symgrad import expand, grad, hessian
    >>> x, y = symbols("x y", real=True)
    >>> h = attach_gradient(log(1 + exp(x)), 1 / (1 + exp(-x)), x)
    >>> expand(h)
    log(exp(x) + 1)
    >>> grad(h, x)
    stop_gradient(1/(1 + exp(-x)))
    >>> grad(grad(h, x), x)
    0

    One scalar per row of a 2x2 Matrix (``axis=(1,)``), and one for all of
    it (``axis=None``):

    >>> a, b, c, d = symbols("a b c d", real=True)
    >>> w = Matrix([[a, b], [c, d]])
    >>> rows = attach_gradient(Matrix([a * b, c * d]), Matrix([[b, a], [d, c]]), w, axis=1)
    >>> expand(rows).T
    Matrix([[a*b, c*d]])
    >>> expand(grad(rows[0], w))
    Matrix([
    [b, a],
    [0, 0]])
    >>> s = attach_gradient(a + b + c + d, 1, w, axis=None)
    >>> grad(s, w)
    Matrix([
    [1, 1],
    [1, 1]])

    The partial case: ``y`` in ``fx`` gets a gradient only when you stop by
    hand.

    >>> grad(attach_gradient(x * y, y, x), y, unconnected="none") is None
    True
    >>> from symgrad import stop_gradient
    >>> h = attach_gradient(stop_gradient(x) * y, y, x, fx_gx_manually_stopped=True)
    >>> grad(h, x), expand(grad(h, y))
    (y, x)
    """
    if name is not None and not isinstance(name, str):
        raise TypeError(f"attach_gradient: name must be a string or None, not {name!r}")
    if not isinstance(fx_gx_manually_stopped, bool):
        raise TypeError(
            f"attach_gradient: fx_gx_manually_stopped must be True or False, "
            f"not {fx_gx_manually_stopped!r}"
        )
    xs, xstruct = flatten_exprs(x, "x")
    fs, fstruct = flatten_exprs(fx, "fx")
    gs, gstruct = flatten_exprs(gx, "gx")
    shape = xstruct.shape
    dims = _axes(axis, shape)
    rest = tuple(n for i, n in enumerate(shape) if i not in dims)
    keep = tuple(1 if i in dims else n for i, n in enumerate(shape))
    where = f"x of shape {shape} with axis={axis!r}"
    if fstruct.shape not in (rest, keep):
        raise ShapeError(
            f"attach_gradient: fx has shape {fstruct.shape} but {where} gives one "
            f"f per index of the remaining dimensions, shape {rest}"
            + (f" (or {keep} with the axis dimensions kept)" if keep != rest else "")
        )
    if gstruct.shape == () and shape != ():
        gs = gs * len(xs)  # one partial for every entry, as numpy broadcasts
    per_entry = gstruct.shape in ((), shape)
    if not per_entry and gstruct.shape not in (rest, keep):
        raise ShapeError(
            f"attach_gradient: gx has shape {gstruct.shape} but {where} needs one "
            f"partial per entry of x, shape {shape} (or one per f, shape {rest}, or a scalar)"
        )

    def stop(e: Expr) -> Expr:
        return e if fx_gx_manually_stopped else stop_gradient(e)

    # h[r] = stop(f[r]) + sum_a stop(g[r, a]) * (x[r, a] - stop(x[r, a]))
    terms: list[list[Expr]] = [[] for _ in fs]
    for i, index in enumerate(product(*map(range, shape))):
        r = _ravel([k for j, k in enumerate(index) if j not in dims], rest)
        dx = xs[i] - stop_gradient(xs[i])
        terms[r].append(stop(gs[i]) * dx if per_entry else dx)
    if per_entry:
        out = [stop(f) + Add(*t) for f, t in zip(fs, terms)]
    else:
        out = [stop(f) + stop(g) * Add(*t) for f, g, t in zip(fs, gs, terms)]
    return fstruct.build(out)


def _axes(axis: object, shape: tuple[int, ...]) -> frozenset[int]:
    """The dimensions ``axis`` names, as non-negative ints (numpy's rules)."""
    if axis is None:
        return frozenset(range(len(shape)))
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    try:
        if any(isinstance(a, bool) for a in items):
            raise TypeError
        ints = [operator.index(a) for a in items]
    except TypeError:
        raise TypeError(
            f"attach_gradient: axis must be None, an int or a tuple of ints, not {axis!r}"
        ) from None
    dims = [a + len(shape) if a < 0 else a for a in ints]
    if any(not 0 <= a < len(shape) for a in dims) or len(set(dims)) != len(dims):
        raise ShapeError(
            f"attach_gradient: axis={axis!r} does not name distinct dimensions of x, "
            f"whose shape {shape} has {len(shape)}"
        )
    return frozenset(dims)


def _ravel(index: list[int], shape: tuple[int, ...]) -> int:
    """Row-major position of ``index`` in an array of ``shape``."""
    r = 0
    for k, n in zip(index, shape):
        r = r * n + k
    return r
