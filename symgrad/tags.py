"""Nodes tagged with a derivative rule (``override(expr, mapping)``).

A tagged node is an instance of a subclass of the node's own class: it
evaluates, substitutes, pickles and lowers like the untagged node, and the
resolver differentiates it with its tag.  Being a different node, it is
*not* equal to the untagged one (``subs(floor(x), ...)`` leaves a tagged
``floor(x)`` alone), so every printer shows the tag:

* ``str``: ``floor[Identity](x)``, and ``srepr``: ``floor['Identity'](...)``.
  Neither parses back silently: ``sympify`` of either raises (``floor`` is
  not subscriptable), where a plain ``floor(x)`` would have dropped the tag
  and its gradient;
* ``pretty``: the node's own form followed by ``[Identity]``;
* LaTeX: the node's own form with the rule's name set under it.
"""

from __future__ import annotations

from mpmath.libmp import prec_to_dps
from sympy import Basic
from sympy.printing.pretty.stringpict import prettyForm

from .safe import StrictArgs

__all__ = ["tagged_class", "tag_name"]

_TAGGED: dict[tuple[type, str], type] = {}


def tag_name(cls: type) -> str:
    """The rule name a tagged class carries."""
    tag = cls._symgrad_tag
    return getattr(tag, "name", tag)


def _rebuild_tagged(base: type, rule: str, args: tuple) -> Basic:
    return tagged_class(base, rule)(*args, evaluate=False)


def _reduce_tagged(self: Basic, protocol: int = 2):
    return (_rebuild_tagged, (type(self)._symgrad_base, type(self)._symgrad_tag, self.args))


def _untagged(self: Basic) -> Basic:
    return type(self)._symgrad_base(*self.args, evaluate=False)


def _lower_tagged(self: Basic, *args: Basic) -> Basic:
    return type(self)._symgrad_base(*args)


def _evalf_tagged(self: Basic, prec: int) -> Basic:
    return type(self)._symgrad_base(*self.args).evalf(prec_to_dps(prec))


def _with_tag(self: Basic, printer, tag: str) -> str:
    """``name[tag](args)`` from the untagged node's printed form."""
    name = type(self)._symgrad_base.__name__
    text = printer._print(_untagged(self))
    if text.startswith(name + "("):
        return f"{name}[{tag}]{text[len(name):]}"
    return f"{name}[{tag}]({', '.join(printer._print(a) for a in self.args)})"


def _str_tagged(self: Basic, printer) -> str:
    return _with_tag(self, printer, tag_name(type(self)))


def _repr_tagged(self: Basic, printer) -> str:
    return _with_tag(self, printer, repr(tag_name(type(self))))


def _pretty_tagged(self: Basic, printer):
    form = printer._print(_untagged(self))
    return prettyForm(*form.right(f"[{tag_name(type(self))}]"))


def _latex_tagged(self: Basic, printer) -> str:
    return rf"\underset{{\text{{{tag_name(type(self))}}}}}{{{printer._print(_untagged(self))}}}"


def _reentry_guard(base: type) -> type:
    """A class placed right after the tagged one in its MRO.

    SymPy's ``Heaviside.__new__`` ends in ``super(cls, cls).__new__``, which
    from a subclass lands on the subclass's next class, so on
    ``Heaviside.__new__`` again, forever.  That call lands here instead and
    goes on past ``base``, whose ``__new__`` is already running.
    """

    def __new__(cls, *args, **options):
        return super(base, cls).__new__(cls, *args, **options)

    return type(f"{base.__name__}Reentry", (), {"__new__": __new__, "__slots__": ()})


def _new_tagged(cls, *args, **options):
    # the first call skips the guard (see ``_reentry_guard``)
    return super(cls.__mro__[1], cls).__new__(cls, *args, **options)


def tagged_class(base: type, rule: str) -> type:
    """The subclass of ``base`` whose nodes carry the rule tag ``rule``: same
    name and evaluation, its own derivative, the tag shown when printed.

    >>> from sympy import Symbol, floor
    >>> t = tagged_class(floor, "Identity")(Symbol("x"))
    >>> t, isinstance(t, floor)
    (floor[Identity](x), True)
    """
    base = getattr(base, "_symgrad_base", base)
    key = (base, rule)
    cls = _TAGGED.get(key)
    if cls is None:
        bases = (base,) if issubclass(base, StrictArgs) else (StrictArgs, base)
        bases = (_reentry_guard(base), *bases)
        cls = type(
            base.__name__,
            bases,
            {
                "__new__": _new_tagged,
                "_symgrad_tag": rule,
                "_symgrad_base": base,
                "_symgrad_lower": _lower_tagged,
                "_eval_evalf": _evalf_tagged,
                "__reduce_ex__": _reduce_tagged,
                "_sympystr": _str_tagged,
                "_sympyrepr": _repr_tagged,
                "_pretty": _pretty_tagged,
                "_latex": _latex_tagged,
                "__module__": base.__module__,
            },
        )
        _TAGGED[key] = cls
    return cls
