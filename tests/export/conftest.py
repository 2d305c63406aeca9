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
# XLA's own defaults, for one compiled function (jax.jit(f, compiler_options=
# XLA_DEFAULTS)): the code users' jax.jit makes, where XLA fuses a product into
# the sum that reads it (a multiply-add), which the level above does not; tests
# of the floats generated code gives under jit compile with these
XLA_DEFAULTS = {"xla_backend_optimization_level": 3, "xla_llvm_disable_expensive_passes": False}


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
