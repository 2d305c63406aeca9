"""No public entry point evaluates a string (issue 8 §1).

``symgrad.stop_gradient("__import__('os').system('touch pwned')")`` ran the
command: SymPy's ``Function.__new__`` sympifies its arguments, which
evaluates strings as Python.  Every name in ``symgrad.__all__`` is called
here with a payload that would create a file, in every argument position
(new public names are covered without editing this file: the default call
puts a symbol in every other position), and the file must not exist.
"""

from __future__ import annotations

import inspect

import pytest
import sympy as sp

import symgrad
from symgrad import SymgradError
from symgrad.safe import StrictArgs, strict

x = sp.Symbol("x", real=True)

# Special arguments, where a symbol in every position is not a valid call;
# "kinds" says what each position takes: "expr" positions must refuse the
# payload with a TypeError naming the function; "other" positions (symbols,
# names, mappings, functions, text) must only not run it.
SPECS: dict[str, tuple[tuple, tuple[str, ...]]] = {
    "grad": ((x, x), ("expr", "other")),
    "jacobian": ((x, x), ("expr", "other")),
    "hessian": ((x, [x]), ("expr", "other")),
    "jvp": ((x, x, 1), ("expr", "other", "expr")),
    "vjp": ((x, x, 1), ("expr", "other", "expr")),
    "where": ((x > 0, x, x), ("expr", "expr", "expr")),
    "cond": ((x > 0, x, x), ("expr", "expr", "expr")),
    "override": ((sp.floor(x), {"floor": "Identity"}), ("expr", "other")),
    "register_gradient": (("Unused",), ("other",)),
    "unregister_gradient": (("Unused",), ("other",)),
    "gradient_override_map": (({"floor": "Identity"},), ("other",)),
    "custom_gradient": ((lambda a: (a, lambda dy: dy),), ("other",)),
    "custom_jvp": ((lambda a: a,), ("other",)),
    "custom_vjp": ((lambda a: a,), ("other",)),
    "lambdify": (([x], x), ("other", "expr")),
    "numpy_code": (([x], x), ("other", "expr")),
    "parse": (("x",), ("other",)),  # takes text by design: parsed safely
    "read_fpcore": (("(FPCore (x) x)",), ("other",)),  # FPCore text, read safely
    "matrix_notation": ((True,), ("other",)),  # a flag (a string is refused)
}


def _payload(tmp_path) -> tuple[str, object]:
    marker = tmp_path / "pwned"
    return f"__import__('pathlib').Path({str(marker)!r}).touch() or 1", marker


def _default_args(obj) -> tuple:
    if isinstance(obj, type) and issubclass(obj, sp.Basic):
        return (x,) * min(obj.nargs)
    params = inspect.signature(obj).parameters.values()
    return tuple(x for p in params
                 if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def _calls():
    for name in symgrad.__all__:
        obj = getattr(symgrad, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            yield pytest.param(name, (), 0, "other", id=f"{name}[0]")
            continue
        args, kinds = SPECS.get(name, (None, None))
        if args is None:
            args = _default_args(obj)
            kinds = ("expr",) * len(args)
        for i, kind in enumerate(kinds):
            yield pytest.param(name, args, i, kind, id=f"{name}[{i}]")


def _call(obj, args):
    out = obj(*args)
    if hasattr(out, "__enter__"):  # gradient_override_map: checked on entry
        with out:
            pass
    return out


@pytest.mark.parametrize("name, args, pos, kind", list(_calls()))
def test_public_name_never_evaluates_a_payload_string(tmp_path, name, args, pos, kind):
    payload, marker = _payload(tmp_path)
    obj = getattr(symgrad, name)
    call = list(args) + [None] * (pos + 1 - len(args))
    call[pos] = payload
    try:
        if kind == "expr":
            with pytest.raises(TypeError) as info:
                _call(obj, call)
            assert f"{name}:" in str(info.value) and "string" in str(info.value)
        else:
            try:
                _call(obj, call)
            except Exception:
                pass
    finally:
        assert not marker.exists(), f"symgrad.{name} ran the payload in argument {pos}"


def test_every_public_callable_is_probed():
    probed = {c.values[0] for c in _calls()}
    assert probed == set(symgrad.__all__)


def _decorated(tmp_path):
    @symgrad.custom_gradient
    def cg(a):
        return a, lambda dy: dy

    @symgrad.custom_jvp
    def cj(a):
        return a

    cj.defjvp(lambda p, t: (cj(*p), t[0]))

    @symgrad.custom_vjp
    def cv(a):
        return a

    cv.defvjp(lambda a: (cv(a), None), lambda r, g: (g,))
    tagged = symgrad.override(sp.floor(x), {"floor": "Identity"})
    return {"custom_gradient": cg, "custom_jvp": cj, "custom_vjp": cv,
            "custom node class": type(cg(x)), "tagged node class": type(tagged),
            "tagged Max class": type(symgrad.override(sp.Max(x, 1), {"Max": "Identity"}))}


def test_decorated_functions_and_node_classes_refuse_payloads(tmp_path):
    payload, marker = _payload(tmp_path)
    for what, f in _decorated(tmp_path).items():
        args = [payload, x] if what == "tagged Max class" else [payload]
        with pytest.raises(TypeError, match="string"):
            f(*args)
        assert not marker.exists(), f"{what} ran the payload"


def test_an_object_whose_str_is_a_payload_is_refused_not_parsed(tmp_path):
    payload, marker = _payload(tmp_path)

    class Sneaky:
        def __str__(self):
            return payload

    for f in (symgrad.stop_gradient, symgrad.sigmoid, symgrad.rint, symgrad.identity):
        with pytest.raises(TypeError, match="not a SymPy expression"):
            f(Sneaky())
    assert not marker.exists()


def test_refusal_is_a_type_error_and_a_symgrad_error_with_advice():
    with pytest.raises(TypeError) as info:
        symgrad.relu("x")
    assert isinstance(info.value, SymgradError)
    msg = str(info.value)
    assert msg.startswith("relu: x is the string 'x'")
    assert "Build the expression with SymPy" in msg and "symgrad.parse" in msg


def test_strict_args_mixin_is_shared_and_keeps_numbers():
    class twice(StrictArgs, sp.Function):  # noqa: N801
        nargs = 1

    assert twice(2).args == (2,) and twice(0.5).args[0] == sp.Float(0.5)
    with pytest.raises(TypeError, match="twice: argument 1 is the string"):
        twice("x")
    assert strict(3, "f", "x") == 3
