"""read_fpcore: FPBench's FPCore format as SymPy formulas and domain boxes;
``symgrad check/stabilize FILE.fpcore``."""

from __future__ import annotations

import io
import math

import mpmath
import numpy as np
import pytest
from sympy import Abs, Piecewise, Rational, Symbol, oo, pi, sqrt
from sympy.codegen.cfunctions import expm1, fma, hypot, log1p

from symgrad import cli
from symgrad.fpcore import FPCoreError, read_fpcore


def one(text: str):
    [b] = read_fpcore(text)
    return b


def value(b, **point) -> float:
    """The benchmark's exact value at ``point``, by SymPy at 30 digits."""
    subs = {s: Rational(point[s.name]) for s in b.variables}
    return float(b.expression.evalf(30, subs=subs))


# ---- expressions ------------------------------------------------------------------------


def test_arguments_properties_and_the_formula():
    b = one("""; a comment
    (FPCore (x eps)
     :name "NMSE example 3.3"
     :cite (hamming-1987 herbie-2015)
     :fpbench-domain textbook
     (- (sin (+ x eps)) (sin x)))""")
    x, eps = b.variables
    assert (x.name, eps.name, x.is_real) == ("x", "eps", True)
    assert b.name == "NMSE example 3.3" and b.cite == ("hamming-1987", "herbie-2015")
    assert b.properties["fpbench-domain"] == ("textbook",)
    assert b.domain == {x: (-oo, oo), eps: (-oo, oo)} and b.pre is None and b.box_exact
    assert b.precision == "binary64" and b.dtype == "float64"
    assert value(b, x="1", eps="1/1000") == pytest.approx(math.sin(1.001) - math.sin(1), 1e-12)


def test_numbers_are_exact():
    b = one("(FPCore () (+ (+ 0.1 3/2) (+ 0x1.8p1 (digits 5 -2 10))))")
    assert b.expression == Rational(1, 10) + Rational(3, 2) + 3 + Rational(5, 100)
    assert one("(FPCore () 1e-400)").expression == Rational(1, 10**400)
    assert one("(FPCore () -0x.8p-1)").expression == Rational(-1, 4)


def test_constants():
    b = one("(FPCore () (+ PI (* 0 (+ E (+ LN2 (+ SQRT2 (+ M_1_PI PI_2)))))))")
    assert b.expression == pi


def test_functions_sympy_lacks_are_cfunctions():
    b = one("(FPCore (x y z) (+ (log1p x) (+ (expm1 y) (+ (hypot x y) (fma x y z)))))")
    x, y, z = b.variables
    assert b.expression == log1p(x) + expm1(y) + hypot(x, y) + fma(x, y, z)


@pytest.mark.parametrize("text, point, expected", [
    ("(fabs x)", {"x": "-2"}, 2.0),
    ("(cbrt x)", {"x": "-8"}, -2.0),  # the real cube root
    ("(pow x 3)", {"x": "-2"}, -8.0),
    ("(atan2 x 1)", {"x": "-1"}, math.atan2(-1, 1)),  # (atan2 y x)
    ("(fmax x 1)", {"x": "3"}, 3.0),
    ("(fmin x 1)", {"x": "3"}, 1.0),
    ("(fdim x 1)", {"x": "-3"}, 0.0),
    ("(copysign 2 x)", {"x": "-3"}, -2.0),
    ("(copysign 2 x)", {"x": "0"}, 2.0),
    ("(trunc x)", {"x": "-2.5"}, -2.0),
    ("(round x)", {"x": "-2.5"}, -3.0),  # halves away from zero
    ("(nearbyint x)", {"x": "2.5"}, 2.0),  # halves to even
    ("(fmod x 3)", {"x": "-7"}, math.fmod(-7, 3)),
    ("(remainder x 3)", {"x": "7"}, math.remainder(7, 3)),
    ("(tgamma x)", {"x": "5"}, 24.0),
    ("(lgamma x)", {"x": "5"}, math.lgamma(5)),
    ("(log2 x)", {"x": "8"}, 3.0),
    ("(log10 x)", {"x": "1000"}, 3.0),
    ("(exp2 x)", {"x": "3"}, 8.0),
    ("(ceil x)", {"x": "2.1"}, 3.0),
    ("(- x)", {"x": "2"}, -2.0),
    ("(if (< x 0) (- x) (* 2 x))", {"x": "-3"}, 3.0),
    ("(if (and (<= 0 x 1) (not (== x 1/2))) 1 0)", {"x": "1/2"}, 0.0),
    ("(if (or (!= x 1 2) (> x 5)) 1 0)", {"x": "2"}, 0.0),
    ("(if (> x 1 0) 1 0)", {"x": "2"}, 1.0),  # a chain: x > 1 > 0
])
def test_operations(text, point, expected):
    b = one(f"(FPCore (x) {text})")
    assert value(b, **point) == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_let_binds_in_parallel_and_let_star_in_turn():
    b = one("(FPCore (x) (let ([x 2] [y x]) (+ x y)))")  # y sees the outer x
    x = b.variables[0]
    assert b.expression == 2 + x
    b = one("(FPCore (x) (let* ([x 2] [y x]) (+ x y)))")
    assert b.expression == 4


def test_let_shares_subtrees():
    b = one("(FPCore (x) (let ([e (exp x)]) (/ e (+ 1 e))))")
    assert str(b.expression) == "exp(x)/(exp(x) + 1)"


def test_if_is_a_piecewise():
    b = one("(FPCore (x) (if (< x 1e-5) (* x x) (- 1 x)))")
    assert isinstance(b.expression, Piecewise)


def test_annotations_of_the_same_precision_and_cast_are_read():
    b = one("(FPCore (x) :precision binary32 (cast (! :precision binary32 (+ x 1))))")
    assert b.dtype == "float32" and b.expression == b.variables[0] + 1
    b = one("(FPCore ((! :precision binary64 x)) (! :round nearestEven (* x x)))")
    assert b.expression == b.variables[0] ** 2


def test_fpcore_2_names_and_odd_argument_names():
    b = one("(FPCore f (x-1 lambda) (+ x-1 lambda))")
    assert [s.name for s in b.variables] == ["x_1", "v_lambda"]
    assert b.name == "FPCore at line 1"


# ---- preconditions as boxes -------------------------------------------------------------


def test_a_box():
    b = one("(FPCore (x y z) :pre (and (<= -1/2 x 3/2) (< 0 y) (>= 10 z)) (+ x (+ y z)))")
    x, y, z = b.variables
    assert b.domain == {x: (Rational(-1, 2), Rational(3, 2)), y: (5e-324, oo), z: (-oo, 10)}
    assert b.box_exact and b.box_note == "" and b.pre == "(and (<= -1/2 x 3/2) (< 0 y) (>= 10 z))"


def test_strict_bounds_are_the_nearest_floats_inside():
    b = one("(FPCore (x) :pre (< 1/3 x 1) x)")
    lo, hi = b.domain[b.variables[0]]
    assert lo == np.nextafter(1 / 3, 2) and hi == 1 - 2**-53
    assert Rational(lo) > Rational(1, 3)


def test_fabs_bounds_and_the_tightest_box():
    b = one("(FPCore (x) :pre (< (fabs x) 2) x)")  # -2 < x < 2
    assert b.domain[b.variables[0]] == (np.nextafter(-2, 0), np.nextafter(2, 0))
    assert b.box_exact
    b = one("(FPCore (x) :pre (>= (fabs x) 2) x)")  # two intervals: not a box
    assert not b.box_exact and b.domain[b.variables[0]] == (-oo, oo)


def test_what_a_box_cannot_state_is_said():
    b = one("(FPCore (x y) :pre (and (<= 0 x 1) (!= y 0) (< x y)) (/ x y))")
    x, y = b.variables
    assert b.domain == {x: (0, 1), y: (-oo, oo)} and not b.box_exact
    assert "`(!= y 0)` excludes points" in b.box_note
    assert "`(< x y)` is not a bound on one variable" in b.box_note
    assert b.box_note.endswith("the domain is the tightest box the rest implies")


def test_or_is_the_hull_of_its_boxes():
    b = one("(FPCore (x) :pre (or (<= 0 x 1) (<= 3 x 4)) x)")
    assert b.domain[b.variables[0]] == (0, 4) and not b.box_exact
    b = one("(FPCore (x) :pre (or (< 2 1) (<= 3 x 4)) x)")  # a false branch adds nothing
    assert b.domain[b.variables[0]] == (3, 4)


def test_a_bound_on_one_variable_is_solved():
    b = one("(FPCore (c) :pre (let ([a 3] [b 3.5]) (and (<= -2 c 2) "
            "(> (- (* b b) (* (* a c) 4.0)) 0.1))) c)")
    lo, hi = b.domain[b.variables[0]]
    assert lo == -2 and b.box_exact  # 12.25 - 12c > 0.1: c < 81/80, strictly
    assert Rational(hi) < Rational(81, 80) < Rational(float(np.nextafter(hi, 2)))


def test_an_empty_precondition_is_refused():
    with pytest.raises(FPCoreError, match="holds for no x"):
        one('(FPCore (x) :name "e" :pre (and (< 2 x) (< x 1)) x)')
    with pytest.raises(FPCoreError, match="is false"):
        one('(FPCore (x) :name "e" :pre (< 2 1) x)')


# ---- what is refused --------------------------------------------------------------------


@pytest.mark.parametrize("text, construct, words", [
    ("(FPCore (x) :name \"w\" (while (< x 1) ([x x (* 2 x)]) x))", "while", "loops"),
    ("(FPCore (x) :name \"w\" (for ([i 3]) ([x x (* 2 x)]) x))", "for", "loops"),
    ("(FPCore ((x 3)) :name \"w\" (ref x 0))", "tensor", "not scalars"),
    ("(FPCore (x) :name \"w\" (tensor ([i 3]) x))", "tensor", "not scalars"),
    ("(FPCore ((! :precision integer n)) :name \"w\" n)", "integer", "data type integer"),
    ("(FPCore (x) :name \"w\" :precision binary80 x)", "binary80", "binary64"),
    ("(FPCore (x) :name \"w\" (! :precision binary32 (+ x 1)))", "!", "mixed precisions"),
    ("(FPCore (x) :name \"w\" (if (isnan x) 0 x))", "isnan", "float format"),
    ("(FPCore (x) :name \"w\" (+ x NAN))", "NAN", "not a real"),
    ("(FPCore (x) :name \"w\" (__import__ x))", "__import__", "not an FPCore operation"),
    ("(FPCore (x) :name \"w\" (sqrt x 2))", "sqrt", "takes 1 argument, got 2"),
])
def test_refused_constructs_are_named(text, construct, words):
    with pytest.raises(FPCoreError, match=words) as info:
        read_fpcore(text)
    assert info.value.name == "w" and info.value.construct == construct
    assert str(info.value).startswith("benchmark 'w' (line 1): ")


@pytest.mark.parametrize("text, words", [
    ("(FPCore (x) (+ x 1)", "never closed"),
    ("(FPCore (x) x))", "closes nothing"),
    ("(FPCore (x) [+ x 1))", "expected `]`"),
    ('(FPCore (x) :name "a x)', "string is not closed"),
    ("(FPCore (x) (+ y 1))", "`y` is not a variable"),
    ("(FPCore (x) (+ (< x 1) 1))", "is a condition where a number is expected"),
    ("(FPCore (x) (if x 1 0))", "is a number where a condition is expected"),
    ("(FPCore (x) ())", "empty expression"),
    ("(+ x 1)", "is not an FPCore"),
    ("(FPCore (x) 1e99999)", "exponent"),
])
def test_syntax_and_type_errors(text, words):
    with pytest.raises(FPCoreError, match=words):
        read_fpcore(text)


def test_errors_list_skips_what_cannot_be_expressed():
    refused: list = []
    bs = read_fpcore('(FPCore (x) :name "a" x)\n(FPCore (x) :name "b" (while TRUE () x))\n'
                     '(FPCore (x) :name "c" (* 2 x))', errors=refused)
    assert [b.name for b in bs] == ["a", "c"]
    assert [(e.name, e.construct, e.line) for e in refused] == [("b", "while", 2)]


def test_strings_are_refused():
    with pytest.raises(TypeError, match="give the file's text"):
        read_fpcore(b"(FPCore (x) x)")


def test_deep_nesting_is_a_clear_error():
    text = "(FPCore (x) " + "(- " * 1000 + "x" + ")" * 1001
    with pytest.raises(FPCoreError, match="nesting deeper"):
        read_fpcore(text)


def test_huge_exact_powers_stay_unevaluated():
    b = one("(FPCore (x) (+ x (pow 10 100000)))")
    assert b.expression.args  # built in no time, not a 100,001-digit integer


# ---- the command on a file --------------------------------------------------------------

SMALL = """;; a small file
(FPCore (x)
 :name "NMSE example 3.1"
 :pre (>= x 0)
 (- (sqrt (+ x 1)) (sqrt x)))

(FPCore (x)
 :name "loop: refused"
 (while (< x 1) ([x x (* 2 x)]) x))

(FPCore (x)
 :name "control"
 :precision binary32
 :pre (<= 0 x 999)
 (/ x (+ x 1)))
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


def test_cli_check_runs_every_benchmark(tmp_path):
    path = tmp_path / "small.fpcore"
    path.write_text(SMALL, encoding="utf-8")
    code, out, err = run("check", str(path), "--samples", "128", "--as-written")
    assert code == 1 and err == ""  # 3.1 is not ok as written
    lines = out.splitlines()
    assert lines[0] == "[1/3] NMSE example 3.1 (float64; domain x=0:oo, from :pre (>= x 0))"
    assert "[2/3] loop: refused: not read: `while` is not supported" in out
    assert "[3/3] control (float32; domain x=0:999, from :pre (<= 0 x 999))" in out
    assert out.count("verdict: NOT ok") == 1 and out.count("verdict: ok") == 1
    assert lines[-1] == (f"{path}: 3 benchmarks, 1 ok, 1 NOT ok, 1 not read or not "
                         "measured")
    code, out, _ = run("check", str(path), "--samples", "64", "--dtype", "float64")
    assert "[3/3] control (float64;" in out


def test_cli_stabilize_runs_every_benchmark(tmp_path):
    path = tmp_path / "small.fpcore"
    path.write_text(SMALL, encoding="utf-8")
    code, out, err = run("stabilize", str(path), "--samples", "64", "--text")
    assert code == 0 and err == ""
    assert "stable = 1/(sqrt(x) + sqrt(x + 1))" in out
    assert out.count("verdict: ok") == 2


@pytest.mark.parametrize("argv, words", [
    (["check", "{dir}/none.fpcore"], "No such file"),
    (["check", "{dir}/small.fpcore", "--domain", "x=0:1"], "--domain does not apply"),
    (["check", "{dir}/bad.fpcore"], "bad.fpcore: line 1: the `(` of line 1 is never closed"),
    (["stabilize", "{dir}/loops.fpcore"], ""),
])
def test_cli_file_errors(tmp_path, argv, words):
    (tmp_path / "small.fpcore").write_text(SMALL, encoding="utf-8")
    (tmp_path / "bad.fpcore").write_text("(FPCore (x) x", encoding="utf-8")
    (tmp_path / "loops.fpcore").write_text("(FPCore (x) (while TRUE () x))", encoding="utf-8")
    code, out, err = run(*(a.format(dir=tmp_path) for a in argv))
    assert code == 2
    assert words in err
    if argv[0] == "stabilize":  # nothing could be run: said on stdout, exit 2
        assert "not read: `while`" in out


def test_reading_is_exact_against_mpmath():
    b = one("(FPCore (x) (- (exp x) 1))")
    assert value(b, x="1e-20") == pytest.approx(float(mpmath.expm1(mpmath.mpf("1e-20"))))


def test_symbols_are_plain_real_symbols():
    b = one("(FPCore (x) (fabs x))")
    assert b.expression == Abs(Symbol("x", real=True)) and b.expression != sqrt(2)
