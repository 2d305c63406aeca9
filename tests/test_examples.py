"""Every scenario in examples/ runs (each checks its own claims with assert)."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys

import pytest

from symgrad.cli import EXAMPLES, demo_scripts

EXPECTED = {
    "01_quickstart": "sympy.diff gives df/dx",
    "02_straight_through_floor": "straight-through     = 2*x*(floor(w*x) - 3)",
    "03_custom_grad_5x": "d/dx identity(x) under CustomGrad  = 5",
    "04_log1pexp_custom_gradient": "custom, symgrad  = [0.  0.5 1.  1. ]",
    "05_nested_custom_gradient": "f''(x)      = 100",
    "06_attach_gradient": "dh/dx      = stop_gradient(sigmoid(x))",
    "07_where_cond_gradients": "(symgrad: no NaN)",
    "08_stability_report_and_fix": "culprit 1 - 1/(exp(x) + 1)",
    "09_matrix_gradients": "agrees with hand-written backpropagation",
}


def test_every_script_is_a_demo_scenario():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == [p.name for p in demo_scripts()]
    assert set(EXPECTED) <= {p.stem for p in demo_scripts()}


@pytest.mark.parametrize("path", demo_scripts(), ids=lambda p: p.stem)
def test_example_runs(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    assert EXPECTED.get(path.stem, "") in out


def test_a_script_runs_alone_outside_the_repository_and_imports_no_backend(tmp_path):
    """As a user runs one: its own process, another directory, symgrad
    importable; and ``import symgrad`` with NumPy code generated and run
    imports neither JAX nor PyTorch (the process is fresh: the one check of
    it, here, so the suite starts one Python for both)."""
    script = EXAMPLES / "06_attach_gradient.py"
    env = {**os.environ, "PYTHONPATH": str(EXAMPLES.parent)}
    # ``python script.py`` (runpy.run_path is how Python runs a script: its
    # directory first on sys.path, run as __main__), then the backends asked
    code = ("import runpy, sys\n"
            f"sys.argv = [{str(script)!r}]; sys.path.insert(0, {str(EXAMPLES)!r})\n"
            f"runpy.run_path({str(script)!r}, run_name='__main__')\n"
            "print(sorted(m for m in ('jax', 'torch') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert EXPECTED["06_attach_gradient"] in done.stdout and done.stderr == ""
    assert done.stdout.splitlines()[-1] == "[]"
