"""The text a generated module carries of a helper module.

Helpers the generated code needs (``widen``'s casts, compensated
arithmetic) are real modules of :mod:`symgrad.codegen`, linted and tested
like the rest; ``numpy_code`` must stay NumPy-only and a pickled function
must load without symgrad, so the generated module carries their text:
everything after the module's docstring and its imports.
"""

from __future__ import annotations

import ast
import functools
import inspect
from types import ModuleType

from sympy import Function

__all__ = ["module_text", "shared_texts", "HelperCall"]

_SHARED: list[str] = []  # every text module_text gave, in the order first asked


class HelperCall(Function):
    """A code-only call of a helper the generated module carries: printed
    as ``_helper(args)``; subclasses name the helper (``_helper``)."""

    _helper = ""

    def _numpycode(self, printer) -> str:
        return f"{self._helper}({', '.join(printer._print(a) for a in self.args)})"

    _symgrad_numpycode = _numpycode


@functools.cache
def module_text(module: ModuleType) -> str:
    """The source of ``module`` after its docstring and leading imports.

    >>> from symgrad.codegen import widen_helpers
    >>> module_text(widen_helpers).splitlines()[0]
    '# widen(): subtrees computed in the next wider float type.  _LONG is the'
    """
    source = inspect.getsource(module)
    body = ast.parse(source).body
    skip = 0
    for node in body:
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
            and isinstance(node.value.value, str)
        if not (docstring or isinstance(node, (ast.Import, ast.ImportFrom))):
            break
        skip = node.end_lineno
    text = "\n".join(source.splitlines()[skip:]).strip("\n") + "\n"
    _SHARED.append(text)
    return text


def shared_texts() -> tuple[str, ...]:
    """The helper texts generated modules carry verbatim (each one
    :func:`module_text` gave): :mod:`symgrad.codegen.compiled` compiles
    each once, not once per generated function."""
    return tuple(_SHARED)
