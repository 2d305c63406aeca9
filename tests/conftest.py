"""Test configuration.

The suite is deterministic: hypothesis runs derandomized (the same examples
every run, on every machine, in CI or not), so a result is reproducible.

``SYMGRAD_FUZZ=long`` switches to exploration: random examples, ten times
as many, for a thorough run before a release (the differential fuzz test
reads the same variable for its own, larger, budget).
"""

from __future__ import annotations

import os

from hypothesis import settings

LONG = os.environ.get("SYMGRAD_FUZZ") == "long"

settings.register_profile("deterministic", derandomize=True, print_blob=True)
settings.register_profile("long", derandomize=False, print_blob=True, max_examples=1000)
settings.load_profile("long" if LONG else "deterministic")
