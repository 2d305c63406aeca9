"""Progress on stderr: a running count on a terminal, nothing in a pipe."""

import io
import os

import pytest

import symgrad.progress as progress
from symgrad.cli import main


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def at_once(monkeypatch):
    """Lines from the first moment on, every update drawn."""
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "EVERY", 0.0)


CHECK = ["check", "exp(x)/(1 + exp(x))", "--domain", "x=-1000:1000", "--samples", "32"]


def test_check_counts_points_on_a_terminal_and_erases_the_line(at_once):
    err, out = Terminal(), io.StringIO()
    assert main(CHECK, out=out, err=err) == 1  # NOT ok: exp overflows
    text = err.getvalue()
    assert "\rsymgrad check: points measured 1/" in text
    # the structural search measures no point for seconds on a large form: its
    # rounds of bisection and climbing are counted
    assert "symgrad check: searching for points 1" in text
    assert "explaining the losses" in text
    last = text.rsplit("\r", 2)
    assert last[-1] == "" and last[-2].strip() == ""  # erased: the report is on stdout
    assert "\r" not in out.getvalue() and "NOT ok" in out.getvalue()


def test_stabilize_says_which_output(at_once):
    err = Terminal()
    main(["stabilize", "sqrt(x + 1) - sqrt(x)", "--domain", "x=0:1e6", "--samples", "32"],
         out=io.StringIO(), err=err)
    text = err.getvalue()
    assert "symgrad stabilize: output 1/1: choosing a form, points measured" in text
    # (the structural search's rounds counted in stabilize's verification too; the
    # report of the formula as written is computed only where read, 9dd03d6, and the
    # command's summary does not read it)
    assert "symgrad stabilize: output 1/1: verifying it on fresh points, steps 1" in text


def test_nothing_when_stderr_is_not_a_terminal(at_once):
    err = io.StringIO()  # a file or a pipe: isatty() is False
    main(CHECK, out=io.StringIO(), err=err)
    assert err.getvalue() == ""


def test_nothing_in_a_pipe(at_once):
    r, w = os.pipe()
    with os.fdopen(w, "w") as pipe, os.fdopen(r) as reader:
        with progress.shown_on(pipe) as p:
            progress.stage("anything", 3)
            progress.tick()
        assert p is None
        pipe.close()
        assert reader.read() == ""


def test_quick_work_prints_nothing_before_the_delay(monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 3600.0)
    err = Terminal()
    main(CHECK, out=io.StringIO(), err=err)
    assert err.getvalue() == ""


def test_fpcore_runs_name_the_benchmark(at_once, tmp_path):
    f = tmp_path / "two.fpcore"
    f.write_text("(FPCore (x) :name \"first\" :pre (<= 1 x 2) (- (sqrt (+ x 1)) (sqrt x)))\n"
                 "(FPCore (x) :name \"second\" :pre (<= 1 x 2) (* x x))\n")
    err = Terminal()
    main(["check", str(f), "--samples", "16"], out=io.StringIO(), err=err)
    assert "[1/2] first: points measured" in err.getvalue()
    assert "[2/2] second: points measured" in err.getvalue()


def test_the_library_alone_shows_nothing(capsys):
    progress.stage("anything", 3)
    progress.tick()
    assert capsys.readouterr() == ("", "")

