"""Helper modules whose text generated code carries: the text runs alone
(NumPy only) and defines what the module defines."""

from __future__ import annotations

import ast

import numpy as np
import pytest

from symgrad.codegen import compensated_helpers, scale_helpers, widen_helpers
from symgrad.codegen.texts import module_text


@pytest.mark.parametrize("module", [widen_helpers, compensated_helpers, scale_helpers])
def test_the_text_runs_alone_and_defines_the_modules_names(module):
    text = module_text(module)
    tree = ast.parse(text)
    assert not any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in tree.body)
    ns: dict = {"np": np}
    exec(compile(text, "<helpers>", "exec"), ns)  # noqa: S102  our own module's text
    defined = {n for n in vars(module) if n.startswith("_") and not n.startswith("__")}
    assert defined and defined <= set(ns)
