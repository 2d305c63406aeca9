"""The pipeline runs one way (issue 20 §4): every import in the package is
read (``ast``, nothing imported) and checked against the stage table of
docs/architecture.md: build -> differentiate -> lower -> emit -> verify,
the front-ends on top."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "symgrad"
DOC = ROOT / "docs" / "architecture.md"


def stages() -> dict[str, int]:
    """Module name (relative to the package) -> its stage's rank."""
    text = DOC.read_text()
    table = text[text.index("## Stages"):]
    out: dict[str, int] = {}
    rank = 0
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("stage", "---") or not line.startswith("|"):
            continue
        for name in re.findall(r"`([\w.]+)`", cells[1]):
            assert name not in out, f"docs/architecture.md places {name} twice"
            out[name] = rank
        rank += 1
    assert rank >= 7, "docs/architecture.md: the stage table was not found"
    return out


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts == ["__init__"]:
        return "__init__"
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def place(module: str, table: dict[str, int]) -> int | None:
    """The stage of ``module``: its longest name in the table."""
    parts = module.split(".")
    for k in range(len(parts), 0, -1):
        name = ".".join(parts[:k])
        if name in table:
            return table[name]
    return None


def _target(parts: list[str], name: str | None) -> str:
    """The module ``from <parts> import name`` reads: the submodule if
    ``name`` is one, else the module ``parts`` itself (``__init__`` for the
    package root)."""
    if name and ((PACKAGE.joinpath(*parts, name + ".py")).exists()
                 or PACKAGE.joinpath(*parts, name).is_dir()):
        parts = [*parts, name]
    return ".".join(parts) or "__init__"


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, imported module relative to the package) for every import of
    symgrad in ``path``, at any depth (lazy imports inside functions too)."""
    mod = module_name(path)
    pkg = [] if mod == "__init__" else mod.split(".")
    if path.name != "__init__.py":
        pkg = pkg[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - node.level + 1]
            elif node.module and node.module.split(".")[0] == "symgrad":
                base = []
            else:
                continue
            mods = [*base, *(node.module.split(".") if node.module else [])]
            if node.level == 0:
                mods = mods[1:]  # the package's own name
            out += [(node.lineno, _target(mods, a.name)) for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "symgrad":
                    out.append((node.lineno, ".".join(a.name.split(".")[1:]) or "__init__"))
    return out


def test_every_import_runs_down_the_pipeline():
    table = stages()
    rank_name = {}
    text = DOC.read_text()[DOC.read_text().index("## Stages"):]
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 2 and cells[0] not in ("stage", "---"):
            rank_name[len(rank_name)] = cells[0]
    unplaced, against = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        mod = module_name(path)
        here = place(mod, table)
        if here is None:
            unplaced.append(mod)
            continue
        for line, target in dict.fromkeys(imports(path)):
            there = place(target, table)
            if there is not None and there > here:
                against.append(f"symgrad/{path.relative_to(PACKAGE)}:{line} ({rank_name[here]}) "
                               f"imports {target} ({rank_name[there]})")
    assert not unplaced, (f"modules docs/architecture.md does not place: {unplaced}; add each "
                          "to the stage table there")
    assert not against, ("imports against build -> differentiate -> lower -> emit -> verify "
                         "(docs/architecture.md):\n" + "\n".join(against))


def test_the_reader_sees_every_kind_of_import():
    # relative, absolute, from the root, a submodule by name, inside a function
    got = {t for _, t in imports(PACKAGE / "walker.py")}
    assert {"rules.forms", "build", "errors"} <= got
    assert {"autodiff", "rewrites"} <= {t for _, t in imports(PACKAGE / "__init__.py")}
    table = stages()
    assert place("matrices.rules", table) > place("matrices.build", table)
    assert place("codegen.emit", table) > place("lowering", table) > place("autodiff", table)
