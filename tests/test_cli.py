"""The symgrad command: output, exit codes, one-line errors."""

from __future__ import annotations

import io
import runpy
import shlex
import sys
import warnings

import numpy as np
import pytest

from symgrad import cli


def run(*argv: str, encoding: str = "utf-8") -> tuple[int, str, str]:
    out = io.TextIOWrapper(io.BytesIO(), encoding=encoding)
    err = io.StringIO()
    code = cli.main(list(argv), out=out, err=err)
    out.flush()
    return code, out.buffer.getvalue().decode(encoding), err.getvalue()


def test_grad_text_latex_pretty():
    assert run("grad", "x*sin(y)", "--wrt", "x,y", "--text") == (
        0, "∂f/∂x = sin(y)\n∂f/∂y = x*cos(y)\n", "")
    code, out, _ = run("grad", "x*sin(y)", "--wrt", "y", "--latex")
    assert out == "\\frac{\\partial f}{\\partial y} = x \\cos{\\left(y \\right)}\n"
    code, out, _ = run("grad", "log(1 + exp(x))")  # --wrt: all symbols; pretty by default
    assert out.splitlines() == ["           x", "          ℯ", "∂f/∂x = ──────",
                                "         x", "        ℯ  + 1"]


def test_grad_ascii_terminal():
    code, out, _ = run("grad", "sqrt(x)", encoding="ascii")
    assert code == 0 and out.isascii() and out.splitlines()[1] == "df/dx = -------"


def test_grad_override_and_symgrad_functions():
    code, out, _ = run("grad", "floor(x)*y", "--override", "Floor=Identity", "--text")
    assert (code, out) == (0, "∂f/∂x = y\n∂f/∂y = floor(x)\n")
    code, out, _ = run("grad", "stop_gradient(x)*x + where(x > 0, sqrt(x), 0)", "--text")
    assert out == "∂f/∂x = Piecewise((1/(2*sqrt(x)), x > 0), (0, True)) + stop_gradient(x)\n"


def test_grad_numpy_code_runs():
    code, out, _ = run("grad", "log(1 + exp(x*y))", "--wrt", "x", "--numpy", "--text")
    src = out.split("# NumPy code: grad_f(x, y) -> [df/dx]\n")[1]
    namespace: dict = {}
    exec(compile(src, "<grad_f>", "exec"), namespace)  # symgrad's generated code
    assert np.isclose(namespace["grad_f"](0.5, 2.0)[0], 2.0 / (1 + np.exp(-1.0)))


def test_program_layout_forced_and_automatic():
    code, out, err = run("grad", "tanh(w*x + b)**2", "--wrt", "w,b", "--program", "--text")
    assert out.splitlines()[0] == "t1 = tanh(b + w*x)" and err == ""
    big = " + ".join(f"c{i}*tanh(w{i}*x + b{i})" for i in range(40))
    code, out, err = run("grad", f"({big} - t)**2", "--wrt", "w0,w1", "--text")
    assert code == 0 and "printed as a program" in err and "\n∂f/∂w1 = " in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["grad", "__import__('os').system('echo owned')"], "strings are not allowed at column"),
        (["grad", "().__class__"], "attribute access is not allowed"),
        (["grad", "x +"], "invalid syntax"),
        (["grad", "x > 1"], "is a condition, not a formula"),
        (["grad", "floor(x)", "--override", "floor=Identiy"], "did you mean 'Identity'"),
        (["grad", "floor(x)", "--override", "floor"], "give NODE=RULE"),
        (["grad", "x", "--wrt", "x y"], "is not a symbol name"),
        (["grad", "2"], "has no symbols"),
        (["grad"], "required: EXPR"),
        (["grad", "x", "--latex", "--text"], "not allowed with argument"),
        (["frobnicate"], "invalid choice"),
        ([], "required: COMMAND"),
        (["demo", "no-such-scenario"], "no scenario matches"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("symgrad: error: ") and message in err


def test_internal_error_is_exit_3(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "grad", broken)
    code, _, err = run("grad", "x")
    assert code == 3 and "RuntimeError: a bug" in err and "internal error" in err


def test_help_exits_0(capsys):
    assert cli.main(["--help"]) == 0
    assert "grad" in capsys.readouterr().out


def test_python_dash_m(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["symgrad", "grad", "x**3", "--text"])
    with pytest.raises(SystemExit) as info:
        runpy.run_module("symgrad", run_name="__main__")
    assert info.value.code == 0 and capsys.readouterr().out == "∂f/∂x = 3*x**2\n"


def test_demo_list_and_one_scenario():
    code, out, _ = run("demo", "--list")
    names = [line.split(":")[0] for line in out.splitlines()]
    assert code == 0 and names == [p.stem for p in cli.demo_scripts()] and len(names) >= 7
    code, out, _ = run("demo", "05_nested")
    assert code == 0 and "f''(x)      = 100" in out and "[1/1] A nested custom gradient" in out


# ---- stability verdicts ---------------------------------------------------------------


def test_check_exit_code_is_the_verdict():
    code, out, err = run("check", "exp(x)/(1 + exp(x))", "--domain", "x=-1000:1000",
                         "--samples", "256")
    assert code == 1 and "verdict: NOT ok" in out and "culprit exp(x)" in out and err == ""
    code, out, _ = run("check", "x/(x + y)", "--domain", "x=1:4", "--domain", "y=1:4",
                       "--samples", "256")
    assert code == 0 and "verdict: ok" in out


def test_check_float32_and_as_written():
    code, out, _ = run("check", "log(1 + x)", "--domain", "x=-0.5:0.5", "--samples", "256",
                       "--dtype", "float32", "--as-written")
    assert "(float32, as written)" in out
    code, out, _ = run("check", "log(1 + x)", "--domain", "x=-0.5:0.5", "--samples", "256")
    assert code == 0 and "as symgrad runs it" in out


def test_grad_check():
    code, out, _ = run("grad", "log(1 + exp(x))", "--check", "x=-1000:1000", "--text",
                       "--samples", "256", "--dtype", "float32")
    assert code == 1 and out.startswith("∂f/∂x = exp(x)/(exp(x) + 1)\n")
    assert "# Stability of the gradient (float32):" in out and "culprit exp(x)" in out
    code, out, _ = run("grad", "log(1 + exp(x))", "--check", "x=-700:700", "--samples", "256")
    assert code == 0 and "no overflow is possible" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["check", "x*y", "--domain", "x=1:2"], "missing: y"),
        (["check", "x", "--domain", "x=a:b"], "give NAME=LO:HI"),
        (["check", "x", "--domain", "x=1"], "give NAME=LO:HI"),
        (["check", "x"], "required: --domain"),
        (["grad", "x*y", "--check", "x=0:1"], "missing: y"),
        (["check", "x", "--domain", "x=0:1", "--dtype", "float16"], "invalid choice"),
    ],
)
def test_check_bad_input(argv, message):
    code, out, err = run(*argv)
    assert code == 2 and err.count("\n") == 1 and message in err


def test_plot_without_matplotlib_is_a_usage_error(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if the extra were absent
    code, out, err = run("check", "x/(1 + x)", "--domain", "x=0:1", "--samples", "64",
                         "--plot", str(tmp_path / "r.png"))
    assert code == 2 and "symgrad[plot]" in err and err.count("\n") == 1


def test_stabilize_subcommand():
    code, out, _ = run("stabilize", "sqrt(x + 1) - sqrt(x)", "--domain", "x=0:inf", "--text")
    lines = out.splitlines()
    assert code == 0 and lines[:2] == ["f = -sqrt(x) + sqrt(x + 1)",
                                       "stable = 1/(sqrt(x) + sqrt(x + 1))"]
    assert "check_stability before: max" in out and lines[-1] == "verdict: ok"


def test_stabilize_no_widen_stays_in_the_float_type():
    # (without --no-widen the same formula over all floats is widened: that is
    # tests/test_widen.py::test_stabilize_widens_the_differences_of_trigonometric_values[tan]'s
    # stabilize; test_stabilize_subcommand covers the command's own path)
    # (--samples 128: the same outcome as the default 512 at a third less CPU, 2.7 -> 1.7 s)
    code, out, _ = run("stabilize", "tan(x + eps) - tan(x)", "--text", "--no-widen",
                       "--samples", "128")
    # in float64 alone (pairs of float64 at most, no long double): since 903ff31's
    # exact reduction of a pair's sin/cos the pairs of the tangent-difference
    # regimes are chosen, and since sin/cos of a sum of two terms reduce the
    # terms' floats together (x + eps past the largest float, or where TwoSum's
    # error term overflowed: NaN and 63 bits before) they keep the bits the
    # search reaches at 128 samples (2.6, verdict ok); since the library offers
    # tan-difference's quotient in pairs (tan-difference-pairs: cos(x + eps) of
    # the exact pair, where tan-difference-exact's expanded cos cancels near
    # its poles) that form, ranked by its pairs' figure (1.0)
    stable = out.splitlines()[1]
    assert "widen" not in stable
    assert stable.startswith("stable = compensated(") and "by tan-difference-pairs" in out
    assert code == 0 and "verdict: ok" in out


def test_grad_stabilize_then_code_and_check_of_the_stable_form():
    code, out, _ = run("grad", "log(1 + exp(x))", "--stabilize", "--check", "x=-1000:1000",
                       "--numpy", "--text", "--samples", "512")
    assert code == 0
    assert "# Stabilized (float64, over the --check domain):" in out
    assert "# Stability of the stabilized gradient (float64):" in out and "verdict: ok" in out
    src = out.split("# NumPy code: grad_f(x) -> [df/dx]\n")[1].split("\n# Stability")[0]
    namespace: dict = {}
    exec(compile(src, "<grad_f>", "exec"), namespace)  # symgrad's generated code
    assert np.array_equal(namespace["grad_f"](np.array([-1000.0, 0.0, 1000.0]))[0],
                          [0.0, 0.5, 1.0])


# ---- a user's mistake is one line on stderr, never a traceback ---------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["grad", "x", "--check", "x=1:0"], "--check 'x=1:0': the range is empty"),
        (["check", "x", "--domain", "x=1e400:2"], "the range is empty"),
        (["check", "x", "--domain", "x=nan:1"], "NaN"),
        (["check", "x", "--domain", "x=inf:inf"], "no finite point"),
        (["check", "x", "--domain", "x=-inf:-inf"], "no finite point"),
        (["stabilize", "x", "--domain", "x=3:-3"], "the range is empty"),
        (["check", "x", "--domain", "x=0:1", "--samples", "100000000"], "at most 1,000,000"),
        (["check", "x", "--domain", "x=0:1", "--plot", "report.txt"], "--plot report.txt: "
         "the file type .txt is not one matplotlib writes"),
        (["check", "x", "--domain", "x=0:1", "--plot", "/no/such/dir/r.png"],
         "no directory /no/such/dir"),
        (["grad", "x", "--wrt", "__class__"], "dunder names are not allowed"),
        (["grad", "x", "--wrt", "х"], "CYRILLIC SMALL LETTER HA"),
        (["grad", "-x*y"], "a formula starting with '-' reads as an option"),
        (["check", "-x", "--domain", "x=0:1"], "symgrad check [OPTIONS] -- '-x'"),
    ],
)
def test_more_bad_input_is_one_line_and_exit_2(argv, message):
    code, out, err = run(*argv)
    assert code == 2 and out == "", err
    assert err.count("\n") == 1 and err.startswith("symgrad: error: ") and message in err, err


def test_a_formula_starting_with_minus_after_a_double_dash():
    code, out, err = run("grad", "--text", "--", "-x*y")
    assert code == 0 and out.splitlines() == ["∂f/∂x = -y", "∂f/∂y = -x"]


@pytest.mark.parametrize("expr", ["x" * 10_000_000, "(" * 200_000 + "x", "x+" * 500_000 + "x",
                                  "sin(" * 5_000 + "x" + ")" * 5_000])
def test_a_huge_formula_is_refused_in_one_short_line(expr):
    code, out, err = run("grad", expr)
    assert code == 2 and out == "" and err.count("\n") == 1 and len(err) < 600, err[:600]
    assert "…" in err  # the formula is shown cut short, not echoed whole


def test_check_plot_writes_the_file(tmp_path):
    target = tmp_path / "report.png"
    code, out, err = run("check", "exp(x)/(1 + exp(x))", "--domain", "x=-1000:1000",
                         "--samples", "128", "--plot", str(target))
    assert code == 1 and f"(plot written to {target})" in out and err == ""
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _documented_commands() -> list[str]:
    """The ``symgrad ...`` lines of the README's and the guides' shell blocks."""
    root = cli.EXAMPLES.parent
    lines = []
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for block in page.read_text(encoding="utf-8").split("```sh\n")[1:]:
            lines += [ln for ln in block.split("```")[0].splitlines()
                      if ln.startswith("symgrad ") and "[" not in ln]
    return lines


def test_every_documented_command_is_valid():
    """Flags, formulas and ranges as written in the docs (read, not run: fast)."""
    commands = _documented_commands()
    assert len(commands) >= 8
    for line in commands:
        argv = shlex.split(line, comments=True)[1:]
        args = cli.build_parser().parse_args(argv)
        if hasattr(args, "expr"):
            f = cli._formula(args.expr)
            for flag in ("domain", "check"):
                if getattr(args, flag, None):
                    cli._domain(getattr(args, flag), f, f"--{flag}")


@pytest.mark.parametrize("expr", ["x", "x*y", "where(1 > 0, x, 1)"])
def test_an_override_on_a_formula_without_the_node_prints_no_warning(expr):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, out, err = run("grad", expr, "--text", "--override", "floor=Identity")
    assert code == 0 and err == "" and out.startswith("∂f/∂x = ")


def test_stabilize_exit_code_1_when_no_form_is_accurate():
    # sin(gamma(x)) amplifies gamma's rounding by gamma(x) > 1e17: no equal formula
    # is accurate in float64, nor widened (no long-double gamma), nor certified
    # (gamma is rounded to one float in pairs).  (sin(exp(x)) on [30, 40] was the
    # case until certified's bound counted a root function's second order:
    # certified(sin(exp(x))) is now right, by the ground truth at every point)
    code, out, err = run("stabilize", "sin(gamma(x))", "--domain", "x=20:25", "--samples", "128",
                         "--text")
    assert code == 1 and err == "" and out.splitlines()[-1] == (
        "verdict: NOT ok: symgrad cannot fix this (the reason is above)")
    assert "symgrad cannot fix output 0: " in out and "why: " in out


class _ClosedPipe(io.StringIO):
    """Standard output whose reader went away (symgrad ... | head -1)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_stops_early_ends_the_command_quietly():
    err = io.StringIO()
    code = cli.main(["grad", "x*sin(y)", "--text"], out=_ClosedPipe(), err=err)
    assert code == cli.EXIT_PIPE == 141 and err.getvalue() == ""


def test_version(capsys):
    import symgrad

    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"symgrad {symgrad.__version__}\n"


def test_check_undefined_points_are_information_not_a_verdict():
    code, out, _ = run("check", "1/(x - 1) + x/(x + 1)", "--domain", "x=-10:10",
                       "--samples", "256")
    assert code == 0 and "verdict: ok" in out
    assert "undefined (no real value; the code's NaN/inf is right there):" in out
    assert "1/(x - 1) divides by zero" in out
