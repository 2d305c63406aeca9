"""The ``symgrad`` command (also ``python -m symgrad``).

Formulas are read with :func:`symgrad.parse`, which executes nothing.
Exit codes: 0 success; 1 a stability verdict that is not ok; 2 bad usage or
input (one line on stderr, never a traceback); 3 an internal error (a bug in
symgrad: the traceback is printed for a report); 141 the reader of the
output went away (``symgrad demo | head``), quietly.

>>> main(["grad", "x*sin(y)", "--wrt", "x,y", "--text"])
∂f/∂x = sin(y)
∂f/∂y = x*cos(y)
0
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import runpy
import sys
import traceback
import warnings
from collections.abc import Sequence
from math import inf
from pathlib import Path
from typing import TextIO

from sympy import Basic, Expr, Symbol, latex
from sympy.printing.pretty.pretty import PrettyPrinter

from .autodiff import grad
from .codegen import numpy_code
from .errors import StabilityWarning, SymgradError
from .fpcore import FPCoreBenchmark, FPCoreError, read_fpcore
from .graph import free_symbols, postorder
from .overrides import gradient_override_map
from .parsing import ParseError, parse
from .printing import latex_output_name, pretty_assignment, program
from .progress import shown_on
from .stability import check_stability
from .stability.stabilize import stabilize

__all__ = ["main", "EXIT_OK", "EXIT_UNSTABLE", "EXIT_USAGE", "EXIT_INTERNAL", "EXIT_PIPE",
           "TREE_LIMIT"]

EXIT_OK, EXIT_UNSTABLE, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command whose reader went away
TREE_LIMIT = 300  # nodes in a printed tree past which a formula prints as a program

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


class UsageError(Exception):
    """A mistake in the command line: one line on stderr, exit code 2."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse prints usage and exits
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


# ---- reading arguments ----------------------------------------------------------------


def _quoted(text: str, limit: int = 60) -> str:
    """``text`` quoted for a message, cut short in the middle if long."""
    if len(text) > limit:
        text = f"{text[: limit - 20]}…{text[-19:]}"
    return repr(text)


def _formula(text: str) -> Expr:
    try:
        f = parse(text)
    except ParseError as exc:
        raise UsageError(f"EXPR {_quoted(text)}: {exc.brief}") from None
    if not isinstance(f, Expr):
        raise UsageError(f"EXPR {_quoted(text)} is a condition, not a formula")
    return f


def _symbols(text: str | None, f: Expr) -> list[Symbol]:
    free = {s.name: s for s in free_symbols([f]) if isinstance(s, Symbol)}
    if text is None:
        return [free[n] for n in sorted(free, key=_natural)]
    out = []
    for name in (n.strip() for n in text.split(",")):
        try:
            s = parse(name) if name.isidentifier() else None
        except ParseError as exc:  # a dunder, a look-alike letter, a function's name
            raise UsageError(f"--wrt {_quoted(name)}: {exc.reason}") from None
        if not isinstance(s, Symbol):
            raise UsageError(f"--wrt: {_quoted(name)} is not a symbol name (give x or x,y)")
        out.append(free.get(s.name) or s)
    return out


def _natural(name: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def _domain(items: Sequence[str], f: Expr, flag: str) -> dict[Symbol, tuple[float, float]]:
    """``x=LO:HI`` items as check_stability's domain (``inf``, ``-inf`` allowed)."""
    free = {s.name: s for s in free_symbols([f]) if isinstance(s, Symbol)}
    domain: dict[Symbol, tuple[float, float]] = {}
    for item in items:
        name, sep, rng = item.partition("=")
        lo, colon, hi = rng.partition(":")
        try:
            bounds = (float(lo), float(hi))
        except ValueError:
            bounds = None
        if not sep or not colon or bounds is None or not name.strip().isidentifier():
            raise UsageError(f"{flag} {item!r}: give NAME=LO:HI, e.g. x=-1000:1000 or x=0:inf")
        lo_, hi_ = bounds
        if lo_ != lo_ or hi_ != hi_:
            raise UsageError(f"{flag} {item!r}: an end is NaN; give numbers (inf allowed)")
        if lo_ > hi_:
            raise UsageError(f"{flag} {item!r}: the range is empty ({lo_:g} > {hi_:g}); "
                             "give LO <= HI")
        if lo_ == hi_ and lo_ in (inf, -inf):
            raise UsageError(f"{flag} {item!r}: the range holds no finite point; "
                             f"give e.g. {name.strip()}=0:inf")
        domain[free.get(name.strip()) or Symbol(name.strip(), real=True)] = bounds
    missing = sorted(set(free) - {s.name for s in domain}, key=_natural)
    if missing:
        raise UsageError(f"{flag}: give a range for every symbol; missing: {', '.join(missing)} "
                         f"(e.g. {flag} {missing[0]}=-1:1)")
    return domain


def _plot_target(path: str) -> None:
    """Refuse a plot file that cannot be written before the check runs."""
    target = Path(path)
    if not target.parent.is_dir():
        raise UsageError(f"--plot {path}: no directory {target.parent}")
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:  # report.plot says which extra to install
        return
    suffix = target.suffix.lower().lstrip(".")
    kinds = FigureCanvasBase.get_supported_filetypes()
    if suffix and suffix not in kinds:
        raise UsageError(f"--plot {path}: the file type .{suffix} is not one matplotlib writes "
                         f"(give {', '.join('.' + k for k in sorted(kinds))})")


def _verdict(exprs: object, domain: dict, args: argparse.Namespace, out: TextIO,
             err: TextIO, dtype: str | None = None) -> int:
    if getattr(args, "plot", None):
        _plot_target(args.plot)
    with shown_on(err, getattr(args, "progress_prefix", "symgrad check")):
        report = check_stability(exprs, domain, dtype=dtype or args.dtype or "float64",
                                 samples=args.samples,
                                 rewrites=not getattr(args, "as_written", False))
    print(report, file=out)
    if getattr(args, "plot", None):
        try:
            report.plot(args.plot)
        except ImportError as exc:  # the optional extra is not installed
            raise UsageError(f"--plot: {exc}") from None
        except (OSError, ValueError) as exc:
            raise UsageError(f"--plot {args.plot}: {getattr(exc, 'strerror', None) or exc}"
                             ) from None
        print(f"(plot written to {args.plot})", file=out)
    return EXIT_OK if report.ok else EXIT_UNSTABLE


def _overrides(items: Sequence[str]) -> dict[str, str]:
    mapping = {}
    for item in items:
        node, sep, rule = item.partition("=")
        if not sep or not node.strip() or not rule.strip():
            raise UsageError(f"--override {item!r}: give NODE=RULE, e.g. floor=Identity")
        mapping[node.strip()] = rule.strip()
    return mapping


# ---- printing formulas ------------------------------------------------------------------


def _unicode_ok(stream: TextIO) -> bool:
    """Whether ``stream`` can show ∂ and SymPy's Unicode (a text buffer can)."""
    encoding = getattr(stream, "encoding", None)
    try:
        "∂⋅─".encode(encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def tree_size(exprs: Sequence[Basic], cap: int = 10**9) -> int:
    """Nodes of the printed trees (shared subexpressions counted at each use)."""
    order, kids = postorder(exprs, lambda n: n.args)
    size: dict = {}
    for n in order:
        size[n] = min(cap, 1 + sum(size[k] for k in kids[n]))
    return min(cap, sum(size[e] for e in exprs))


def show(exprs: Sequence[Expr], names: Sequence[str], style: str, as_program: bool,
         out: TextIO, err: TextIO) -> None:
    """Formulas as trees, or (asked for, or past ``TREE_LIMIT``) as a program."""
    if not as_program and tree_size(exprs) > TREE_LIMIT:
        as_program = True
        print(f"(printed as a program: its tree has more than {TREE_LIMIT} nodes; "
              "shared parts are named t1, t2, ...)", file=err)
    if as_program:
        p = program(list(exprs), list(names))
        text = {"text": p.text, "latex": p.latex, "pretty": p.pretty,
                "ascii": lambda: p.pretty(use_unicode=False)}[style]()
        print(text, file=out)
        return
    printer = PrettyPrinter({"use_unicode": style == "pretty", "wrap_line": False})
    for name, e in zip(names, exprs):
        if style == "latex":
            print(f"{latex_output_name(name)} = {latex(e)}", file=out)
        elif style == "text":
            print(f"{name} = {e}", file=out)
        else:
            print(pretty_assignment(name, e, printer), file=out)


# ---- subcommands ------------------------------------------------------------------------


def cmd_grad(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    f = _formula(args.expr)
    wrt = _symbols(args.wrt, f)
    if not wrt:
        raise UsageError(f"EXPR {_quoted(args.expr)} has no symbols to differentiate with "
                         "respect to")
    mapping = _overrides(args.override)
    domain = _domain(args.check, f, "--check") if args.check else None  # read all, then print
    if mapping:
        # grad always runs inside this block: the map's warning that no
        # differentiation consulted it (f = x has no node to ask) says nothing here
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "gradient_override_map", UserWarning)
            with gradient_override_map(mapping):
                g = grad(f, wrt)
    else:
        g = grad(f, wrt)
    g = list(g) if isinstance(g, (tuple, list)) else [g]
    style = args.style if args.style != "pretty" or _unicode_ok(out) else "ascii"
    d = "∂" if style != "ascii" else "d"
    names = [f"{d}f/{d}{w}" for w in wrt]
    show(g, names, style, args.program, out, err)
    if args.stabilize:  # what follows (code, check) is of the stabilized gradient
        where = "over the --check domain" if domain else "over all floats"
        print(f"\n# Stabilized ({args.dtype}, {where}):", file=out)
        with shown_on(err, "symgrad grad --stabilize"):
            s = _stabilize(g, domain, dtype=args.dtype, explain=True)
        g = list(s.result)
        show(g, names, style, args.program, out, err)
        print(s, file=out)
    if args.numpy:
        others = sorted((s for s in free_symbols([f]) if s not in wrt),
                        key=lambda s: _natural(s.name))
        params = [*wrt, *others]
        print(f"\n# NumPy code: grad_f({', '.join(map(str, params))}) -> "
              f"[{', '.join(f'df/d{w}' for w in wrt)}]", file=out)
        print(numpy_code(params, g, name="grad_f").rstrip(), file=out)
    if domain:
        what = "stabilized gradient" if args.stabilize else "gradient"
        print(f"\n# Stability of the {what} ({args.dtype}):", file=out)
        return _verdict(g if len(g) > 1 else g[0], domain, args, out, err)
    return EXIT_OK


def _stabilize(*args, **kw):
    """``stabilize`` without its StabilityWarning: the command prints what
    it could not fix in its report and verdict."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StabilityWarning)
        return stabilize(*args, **kw)


def _stabilized(f: Expr, domain: dict | None, dtype: str, args: argparse.Namespace,
                out: TextIO, err: TextIO) -> int:
    with shown_on(err, getattr(args, "progress_prefix", "symgrad stabilize")):
        s = _stabilize(f, domain, dtype=dtype, samples=args.samples, explain=True,
                       widen=args.widen)
    style = args.style if args.style != "pretty" or _unicode_ok(out) else "ascii"
    show([f, s.result], ["f", "stable"], style, False, out, err)
    print(s, file=out)
    verdict = "ok" if s.after.ok else "NOT ok, even after stabilize"
    if s.unfixed:
        verdict = "NOT ok: symgrad cannot fix this (the reason is above)"
    print(f"verdict: {verdict}", file=out)
    return EXIT_OK if s.after.ok else EXIT_UNSTABLE


def cmd_stabilize(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if _is_fpcore(args.expr):
        return _each_benchmark(args, out, err, lambda b, dtype: _stabilized(
            b.expression, b.domain, dtype, args, out, err))
    f = _formula(args.expr)
    domain = _domain(args.domain, f, "--domain") if args.domain else None
    return _stabilized(f, domain, args.dtype or "float64", args, out, err)


def cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if _is_fpcore(args.expr):
        return _each_benchmark(args, out, err, lambda b, dtype: _verdict(
            b.expression, b.domain, args, out, err, dtype))
    if not args.domain:
        raise UsageError("symgrad check: the following arguments are required: --domain "
                         "(see symgrad check --help)")
    f = _formula(args.expr)
    return _verdict(f, _domain(args.domain, f, "--domain"), args, out, err)


# ---- FPCore files ---------------------------------------------------------------------


def _is_fpcore(arg: str) -> bool:
    return arg.lower().endswith(".fpcore")


def _each_benchmark(args: argparse.Namespace, out: TextIO, err: TextIO, run) -> int:
    """``run(benchmark, dtype)`` on every benchmark of the FPCore file
    ``args.expr``, one after another, each under a header; a benchmark
    that cannot be read or measured is said so and skipped.  The exit
    code: 1 if a verdict is not ok, 2 if no benchmark could be run."""
    if args.domain:
        raise UsageError(f"--domain does not apply to the FPCore file {args.expr}: each "
                         "benchmark's domain is its precondition (:pre)")
    try:
        text = Path(args.expr).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{args.expr}: {getattr(exc, 'strerror', None) or exc}") from None
    refused: list[FPCoreError] = []
    try:
        found = read_fpcore(text, errors=refused)
    except FPCoreError as exc:
        raise UsageError(f"{args.expr}: {exc}") from None
    items = sorted([*found, *refused], key=lambda b: b.line)
    codes = []
    for i, b in enumerate(items, 1):
        if isinstance(b, FPCoreError):
            print(f"[{i}/{len(items)}] {b.name}: not read: {b.reason}", file=out)
            continue
        dtype = args.dtype or b.dtype
        print(f"[{i}/{len(items)}] {b.name} ({dtype}; {_box_text(b)})", file=out)
        args.progress_prefix = f"[{i}/{len(items)}] {b.name[:40]}"
        try:
            codes.append(run(b, dtype))
        except SymgradError as exc:
            print(f"  not measured: {_one_line(exc)}", file=out)
        print(file=out)
    bad = sum(c != EXIT_OK for c in codes)
    print(f"{args.expr}: {len(items)} benchmarks, {len(codes) - bad} ok, {bad} NOT ok, "
          f"{len(items) - len(codes)} not read or not measured", file=out)
    if not codes:
        return EXIT_USAGE
    return EXIT_UNSTABLE if bad else EXIT_OK


def _box_text(b: FPCoreBenchmark) -> str:
    box = ", ".join(f"{s}={lo}:{hi}" for s, (lo, hi) in b.domain.items()) or "no variables"
    if b.pre is None:
        return f"domain {box}"
    return f"domain {box}, from :pre {b.pre}" + ("" if b.box_exact else f" ({b.box_note})")


def demo_scripts() -> list[Path]:
    """The scenarios of ``symgrad demo``: the scripts in examples/, in order."""
    if not EXAMPLES.is_dir():
        raise UsageError(
            f"the demo runs the scripts in examples/, which are not here ({EXAMPLES}): it "
            "needs a source checkout (pip install -e . from the repository)")
    return sorted(p for p in EXAMPLES.glob("[0-9][0-9]_*.py"))


def _summary(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    m = re.match(r'\s*"""(.*?)(?:\n\s*\n|""")', text, re.S)
    return " ".join(m.group(1).split()) if m else path.stem


def cmd_demo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    scripts = demo_scripts()
    if args.only:
        scripts = [p for p in scripts if args.only in p.stem]
        if not scripts:
            names = ", ".join(p.stem for p in demo_scripts())
            raise UsageError(f"demo: no scenario matches {args.only!r} (there are: {names})")
    if args.list:
        for p in scripts:
            print(f"{p.stem}: {_summary(p)}", file=out)
        return EXIT_OK
    for i, path in enumerate(scripts, 1):
        rule = "=" * 78
        print(f"{rule}\n[{i}/{len(scripts)}] {_summary(path)}\n    "
              f"(examples/{path.name}; run it alone with: python examples/{path.name})\n{rule}",
              file=out)
        old = sys.stdout
        sys.stdout = out
        try:
            runpy.run_path(str(path), run_name="__main__")
        finally:
            sys.stdout = old
        print(file=out)
    print(f"All {len(scripts)} scenarios ran. Each is a short script in examples/; "
          "the guides are in docs/.", file=out)
    return EXIT_OK


# ---- the parser ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(
        prog="symgrad",
        description="Symbolic gradients with overridable rules: print them, emit NumPy code.",
        epilog="Formulas are parsed safely (nothing in them is executed): numbers, names "
        "(real symbols), + - * / // %% ** and comparisons, and calls of known functions "
        "(exp, log, floor, where, stop_gradient, sigmoid, ...). Exit codes: 0 ok, "
        "1 a stability verdict that is not ok, 2 bad usage or input, 3 internal error.",
    )
    p.add_argument("--version", action="version", version=f"symgrad {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_ArgumentParser)
    sub.required = True

    g = sub.add_parser("grad", help="print the gradient of a formula (and its NumPy code)",
                       description="Print the gradient of EXPR with respect to the symbols "
                       "in --wrt (default: all of them, sorted by name).")
    g.add_argument("expr", metavar="EXPR", help="the formula, e.g. 'log(1 + exp(x*y))'")
    g.add_argument("--wrt", metavar="X[,Y...]", help="symbols to differentiate with respect to")
    g.add_argument("--override", metavar="NODE=RULE", action="append", default=[],
                   help="differentiate NODE nodes with RULE (e.g. floor=Identity); repeatable")
    fmt = g.add_mutually_exclusive_group()
    fmt.add_argument("--pretty", dest="style", action="store_const", const="pretty",
                     help="Unicode pretty printing (the default)")
    fmt.add_argument("--text", dest="style", action="store_const", const="text",
                     help="one line per formula, as Python/SymPy reads it")
    fmt.add_argument("--latex", dest="style", action="store_const", const="latex",
                     help="LaTeX")
    g.add_argument("--program", action="store_true",
                   help="print as a program: shared subexpressions named t1, t2, ..., then "
                   f"the outputs (automatic past {TREE_LIMIT} nodes)")
    g.add_argument("--numpy", action="store_true", help="also print the generated NumPy code")
    g.add_argument("--check", metavar="X=LO:HI", action="append", default=[],
                   help="also check the gradient's stability over this range (one per "
                   "symbol); exit code 1 if the verdict is not ok")
    g.add_argument("--stabilize", action="store_true",
                   help="also print the gradient rewritten to evaluate accurately (over the "
                   "--check domain, else all floats); --numpy and --check then apply to it")
    _stability_options(g)
    g.set_defaults(run=cmd_grad, style="pretty")

    c = sub.add_parser("check", help="where a formula overflows, turns NaN or loses bits",
                       description="Check the code symgrad generates for EXPR against a "
                       "correctly rounded ground truth over the domain; exit code 1 if the "
                       "verdict is not ok.  EXPR may be an FPCore file (FILE.fpcore, "
                       "FPBench's format): every benchmark in it is checked over the box "
                       "its precondition gives.")
    c.add_argument("expr", metavar="EXPR", help="the formula, or FILE.fpcore")
    c.add_argument("--domain", metavar="X=LO:HI", action="append", default=[],
                   help="the range of a symbol (one per symbol; inf allowed); required for "
                   "a formula")
    _stability_options(c, fpcore=True)
    c.add_argument("--as-written", action="store_true",
                   help="check the formula as written (no accurate forms), not as symgrad runs it")
    c.add_argument("--plot", metavar="OUT.png", help="also draw the report (needs matplotlib)")
    c.set_defaults(run=cmd_check)

    st = sub.add_parser("stabilize", help="rewrite a formula to evaluate accurately",
                        description="An equal formula that evaluates accurately over the "
                        "domain (default: all floats), chosen by measurement, with its error "
                        "before and after; exit code 1 if it is still not ok.  EXPR may be "
                        "an FPCore file (FILE.fpcore): every benchmark in it is stabilized "
                        "over the box its precondition gives.")
    st.add_argument("expr", metavar="EXPR", help="the formula, or FILE.fpcore")
    st.add_argument("--domain", metavar="X=LO:HI", action="append", default=[],
                    help="the range of a symbol (one per symbol; default: all floats)")
    sfmt = st.add_mutually_exclusive_group()
    for flag, const in (("--pretty", "pretty"), ("--text", "text"), ("--latex", "latex")):
        sfmt.add_argument(flag, dest="style", action="store_const", const=const)
    st.add_argument("--dtype", choices=("float64", "float32"), default=None,
                    help="the float type (default float64; for an FPCore file, each "
                    "benchmark's :precision)")
    st.add_argument("--samples", type=_samples, default=512, metavar="N",
                    help="points that choose the form (as many fresh ones verify it)")
    st.add_argument("--no-widen", dest="widen", action="store_false",
                    help="stay in the float type: never evaluate a form in a wider one "
                    "(widen(...): long double for float64 where the platform has it)")
    st.set_defaults(run=cmd_stabilize, style="pretty")

    d = sub.add_parser("demo", help="the tour: run every scenario in examples/",
                       description="Run the scenarios in examples/ one after another.")
    d.add_argument("only", nargs="?", metavar="NAME", help="run only the scenarios whose "
                   "file name contains NAME")
    d.add_argument("--list", action="store_true", help="list the scenarios")
    d.set_defaults(run=cmd_demo)
    return p


MAX_SAMPLES = 1_000_000


def _samples(text: str) -> int:
    """``--samples``: a count of points the check can measure in reasonable time."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"give a whole number, not {text!r}") from None
    if not 1 <= n <= MAX_SAMPLES:
        raise argparse.ArgumentTypeError(
            f"{n}: give from 1 to at most {MAX_SAMPLES:,} points (each is measured against "
            "a correctly rounded ground truth)")
    return n


def _version() -> str:
    from . import __version__  # the package's, read when the parser is built

    return __version__


def _stability_options(p: argparse.ArgumentParser, fpcore: bool = False) -> None:
    p.add_argument("--dtype", choices=("float64", "float32"),
                   default=None if fpcore else "float64",
                   help="the float type checked (default float64; for an FPCore file, each "
                   "benchmark's :precision)" if fpcore else
                   "the float type checked (default float64)")
    p.add_argument("--samples", type=_samples, default=4096, metavar="N",
                   help="points sampled over the domain (default 4096)")


def _one_line(exc: BaseException, limit: int = 500) -> str:
    text = exc.brief if isinstance(exc, ParseError) else " ".join(str(exc).split())
    if len(text) > limit:  # a message quoting a huge input: its start and its end
        text = f"{text[: limit - 100]} … {text[-99:]}"
    return text or type(exc).__name__


def _dash_hint(argv: Sequence[str]) -> str | None:
    """Advice when a formula starting with ``-`` was read as an option."""
    argv = list(argv)
    head = argv[: argv.index("--")] if "--" in argv else argv
    command = next((a for a in head if a in ("grad", "check", "stabilize")), "grad")
    for a in head:
        if a.startswith("-") and not a.startswith("--") and a != "-h" and not re.fullmatch(
                r"-\d+(\.\d*)?|-\.\d+", a):
            return (f"a formula starting with '-' reads as an option: put it last, after -- "
                    f"(symgrad {command} [OPTIONS] -- {a!r}), or start it with a space "
                    f"({' ' + a!r})")
    return None


def main(argv: Sequence[str] | None = None, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    """Run the command with ``argv`` (default ``sys.argv[1:]``); the exit code."""
    out, err = out or sys.stdout, err or sys.stderr
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        try:
            args = build_parser().parse_args(argv)
        except UsageError as exc:
            raise UsageError(_dash_hint(argv) or str(exc)) from None
        return args.run(args, out, err)
    except UsageError as exc:
        print(f"symgrad: error: {_one_line(exc)}", file=err)
    except SymgradError as exc:  # the input reached symgrad and was refused there
        print(f"symgrad: error: {_one_line(exc)}", file=err)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader stopped early (symgrad demo | head): not an error
        if out is sys.stdout:  # nothing more reaches it, not even the final flush
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except Exception:  # a bug in symgrad, not a mistake of the user's
        traceback.print_exc(file=err)
        print("symgrad: internal error (a bug in symgrad; please report it with the command "
              "line above)", file=err)
        return EXIT_INTERNAL
    return EXIT_USAGE
