"""Shared formulas of the export tests: TensorFlow's log1pexp custom gradient,
and a nested custom gradient whose second derivative is chosen (100, not
-sin): a JAX or PyTorch second derivative equal to it is symgrad's, not the
library's derivative of the emitted code."""

import os

import sympy as sp

import symgrad

# XLA compiles each jit of these tests; its cheaper optimization level halves the
# compile time (the tests measure symgrad's formulas, not XLA's code quality)
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0 "
                      "--xla_llvm_disable_expensive_passes=true")


@symgrad.custom_gradient
def log1pexp(u):
    e = sp.exp(u)

    def grad_fn(upstream):
        return upstream * (1 - 1 / (1 + e))

    return sp.log(1 + e), grad_fn


@symgrad.custom_gradient
def chosen_second(a):
    def first_order(dy):
        @symgrad.custom_gradient
        def inner(b):
            return sp.cos(b), lambda ddy: ddy * 100

        return dy * inner(a)

    return sp.sin(a), first_order
