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


def summary(paths: list[str], top: int = 30) -> str:
    """Collection per process, the per-test CPU sum, and the costliest tests
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
    lines += [f"{c:7.2f}  {n}" for n, c in sorted(tests.items(), key=lambda t: -t[1])[:top]]
    lines.append("by file:")
    lines += [f"{c:7.2f}  {n}" for n, c in sorted(files.items(), key=lambda t: -t[1])[:top]]
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(sys.argv[1:]))
