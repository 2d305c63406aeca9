"""Stability verification: where a formula overflows, turns NaN or loses
its bits, what can be proved about it, and which subexpression is to blame
(see ``docs/stability.md``).

One module per stage: :mod:`.truth` (mpmath ground truth, with
:mod:`.intervals`), :mod:`.sampling`, :mod:`.bits`, :mod:`.floats` (what
the generated code computes), :mod:`.analysis` (regions and culprits),
:mod:`.bounds` (proofs), :mod:`.limits`, :mod:`.compare` (as written
against as run), :mod:`.report`, and :mod:`.check` (the entry point).
"""

from .check import check_stability
from .report import Limit, Proof, Region, StabilityReport, Witness

__all__ = ["check_stability", "StabilityReport", "Region", "Proof", "Limit", "Witness"]
