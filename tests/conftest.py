"""Test configuration.

Under CI (the environment variable ``CI`` is set, as ``.ci/run`` has it)
hypothesis runs derandomized: the same examples every run, so a CI result
is reproducible.  Locally it explores new examples each run.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
