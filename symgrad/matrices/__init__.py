"""Matrix formulas: elementwise application, reductions with stable forms,
and the matrix-level derivative rules (see :mod:`.rules`)."""

from .build import elementwise, log_softmax, logsumexp, mean, norm, softmax, sum  # noqa: A004
from .nodes import (
    LogSoftmax,
    LogSumExpAll,
    LogSumExpAxis,
    NormAll,
    NormAxis,
    Softmax,
    SumAll,
    SumAxis,
)
from .notation import matrix_notation

__all__ = ["elementwise", "sum", "mean", "logsumexp", "softmax", "log_softmax", "norm",
           "SumAll", "SumAxis", "LogSumExpAll", "LogSumExpAxis", "Softmax", "LogSoftmax",
           "NormAll", "NormAxis", "matrix_notation"]
