"""docs/api.md documents every public name, each with an example that runs
(the examples themselves run as doctests of the page)."""

from __future__ import annotations

import re
from pathlib import Path

import symgrad

API = Path(__file__).resolve().parent.parent / "docs" / "api.md"


def sections() -> dict[str, str]:
    parts = re.split(r"^### (\S+)\s*$", API.read_text(encoding="utf-8"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_every_public_name_has_a_section_with_an_example():
    docs = sections()
    missing = [n for n in symgrad.__all__ if n not in docs]
    assert not missing, (f"public names with no section in docs/api.md: {missing}; add "
                         "'### name', what it does, and an example that uses it")
    for name in symgrad.__all__:
        examples = [line for line in docs[name].splitlines()
                    if line.startswith((">>> ", "... "))]
        assert any(re.search(rf"\b{name}\b", line) for line in examples), (
            f"docs/api.md: the section on {name} has no example using it")


def test_no_section_for_a_name_that_is_not_public():
    assert set(sections()) <= set(symgrad.__all__)
