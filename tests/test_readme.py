"""The README says what pyproject.toml installs: runtime dependencies and extras."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def _names(requirements: str) -> set[str]:
    """Distribution names in a TOML list of requirement strings."""
    return {re.split(r"[\[<>=!~; ]", r, maxsplit=1)[0].lower()
            for r in re.findall(r'"([^"]+)"', requirements)}


def _table(name: str) -> str:
    m = re.search(rf"^\[{re.escape(name)}\]\n(.*?)(?=^\[|\Z)", PYPROJECT, re.S | re.M)
    assert m, name
    return m.group(1)


def test_runtime_dependencies_are_listed_exactly():
    deps = re.search(r"^dependencies = \[(.*?)\]", _table("project"), re.S | re.M).group(1)
    line = re.search(r"^Runtime dependencies: (.*?)\.", README, re.M | re.S)
    assert line, "README has no 'Runtime dependencies: ...' sentence"
    said = {w.strip().lower() for w in line.group(1).replace(" and ", ", ").split(",")}
    assert said == _names(deps)


def test_every_extra_and_what_it_installs_is_named():
    extras = dict(re.findall(r"^(\w+) = \[(.*?)\]", _table("project.optional-dependencies"),
                             re.M | re.S))
    assert set(extras) >= {"test", "plot", "dask"}
    for extra, reqs in extras.items():
        assert f"`{extra}`" in README, extra
        for name in _names(reqs):
            assert name in README.lower(), (extra, name)


def test_the_venv_comes_before_the_two_commands():
    venv = README.index("python3 -m venv")
    first = README.index('python -m pip install -e ".[test]" && symgrad demo')
    assert venv < first < README.index("python -m pytest -q")
    assert (ROOT / ".ci" / "run").read_text().count('pip install -e ".[test]" && symgrad demo') == 1


def test_every_guide_is_linked_from_the_readme():
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    linked = set(re.findall(r"\(docs/([\w-]+\.md)\)", README))
    assert pages - linked == set() and linked <= pages


def test_no_build_output_is_tracked():
    ignored = (ROOT / ".gitignore").read_text().split()
    assert {"*.egg-info/", "build/", "dist/", "__pycache__/"} <= set(ignored)
    if (ROOT / ".git").exists():  # a checkout (not an unpacked sdist): what git tracks
        tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout.splitlines()
        assert tracked and not [f for f in tracked if re.search(
            r"(^|/)(build|dist|__pycache__)/|\.egg-info(/|$)|\.py[cod]$", f)]
