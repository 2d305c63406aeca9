"""The test suite's CPU profile: a pytest plugin (docs/performance.md, "The test suite").

Each process (each xdist worker, or the one process of ``-n 0``) writes one
file: the CPU seconds (process time plus waited-for children, so the tests
that run a subprocess count it) of its collection and of each test (setup,
call and teardown), one line each; the wall seconds beside them.  Load on a
shared machine stretches wall time, hardly CPU time: quote CPU.

    PYTHONPATH=$PWD SUITE_PROFILE=/tmp/prof python -m pytest -q -n 0 -p benchmarks.suite_profile
    python -m benchmarks.suite_profile /tmp/prof.main      # the summary
"""

from __future__ import annotations

import os
import resource
import sys
import time

import pytest

_OUT = os.environ.get("SUITE_PROFILE", "suite_profile")
_start: dict[str, float] = {}
_file: list = []


def _cpu() -> float:
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime


def _write(name: str, cpu: float, wall: float) -> None:
    """One line, written at once: a run cut short (a timeout) keeps its rows."""
    if not _file:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _file.append(open(f"{_OUT}.{worker}", "w", buffering=1))
    _file[0].write(f"{cpu:.4f}\t{wall:.4f}\t{name}\n")


def pytest_configure(config):
    _start["cpu"], _start["wall"] = _cpu(), time.perf_counter()


def pytest_collection_finish(session):
    _write("<collection>", _cpu() - _start["cpu"], time.perf_counter() - _start["wall"])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    c, w = _cpu(), time.perf_counter()
    yield
    _write(item.nodeid, _cpu() - c, time.perf_counter() - w)


def pytest_unconfigure(config):
    if _file:
        _file[0].close()


def two_workers(tests: dict[str, float], workers: int = 2) -> tuple[float, float]:
    """The CPU each of ``workers`` idle workers spends on the tests (not the
    collection), dispatched as tests/conftest.py's scheduler does: the
    framework tests as one unit first, then one test at a time in the run's
    order, each to the first free worker.  (busiest, least busy): the wall
    time of the real command at idle is about the collection plus the first;
    their difference is the idle tail."""
    from tests.conftest import FRAMEWORK_TESTS

    fw = sum(c for n, c in tests.items() if n.startswith(FRAMEWORK_TESTS))
    units = [fw] + [c for n, c in tests.items() if not n.startswith(FRAMEWORK_TESTS)]
    free = [0.0] * workers
    for c in units:
        free[free.index(min(free))] += c
    return max(free), min(free)


def summary(paths: list[str], top: int = 30) -> str:
    """Collection per process, the per-test CPU sum, the two workers' load
    (from a ``-n 0`` run: its order is the run's), and the costliest tests
    and files."""
    tests, lines, files = {}, [], {}
    for p in paths:
        for line in open(p):
            cpu, _, name = line.rstrip("\n").split("\t", 2)
            if name == "<collection>":
                lines.append(f"collection ({os.path.basename(p)}): {float(cpu):.1f} s CPU")
            else:
                tests[name] = float(cpu)
                f = name.split("::")[0]
                files[f] = files.get(f, 0.0) + float(cpu)
    lines.append(f"{len(tests)} tests, per-test CPU sum {sum(tests.values()):.1f} s")
    busy, idle = two_workers(tests)
    lines.append(f"2 workers: the busiest {busy:.1f} s of tests, the other {idle:.1f} s")
    lines += [f"{c:7.2f}  {n}" for n, c in sorted(tests.items(), key=lambda t: -t[1])[:top]]
    lines.append("by file:")
    lines += [f"{c:7.2f}  {n}" for n, c in sorted(files.items(), key=lambda t: -t[1])[:top]]
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(sys.argv[1:]))
