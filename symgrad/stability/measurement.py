"""What the stability checker measured at its samples (``Measurement``),
and a group of bad points with one explanation (``Group``): the data the
analysis stages (:mod:`.analysis`, :mod:`.localize`, :mod:`.refine`) share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sympy import Basic, Symbol

from .bits import Format
from .floats import NodeEvaluator
from .truth import GroundTruth

__all__ = ["Measurement", "Group"]


@dataclass
class Measurement:
    """Everything measured at the samples: inputs, floats, truth, bits."""

    symbols: list[Symbol]
    form: list[Basic]  # the formula evaluated (markers lowered, maybe rewritten)
    points: np.ndarray  # (n, k)
    fmt: Format
    computed: np.ndarray  # (outputs, n)
    truth: np.ndarray  # (outputs, n)
    status: np.ndarray  # (outputs, n)
    bits: np.ndarray  # (outputs, n), NaN where not measured
    tolerance: float
    nodes: NodeEvaluator
    local_truth: GroundTruth  # exact values of the evaluated form's nodes
    measure: Callable  # rows -> (computed, truth, status, bits, in the figures): refinement


@dataclass
class Group:
    """Points of one output with one explanation (a culprit node and its kind)."""

    kind: str
    culprit: Basic
    output: int
    harmless: bool
    why: str
    members: list[int]
    event: bool
