"""Progress of long computations: a running count on a terminal.

The library says what it is doing (:func:`stage`) and counts its units of
work (:func:`tick`: a ground-truth point, a candidate form); both are
no-ops unless a caller has asked to be shown them with :func:`shown_on`,
as ``symgrad check`` and ``symgrad stabilize`` do on stderr.  Nothing is
written when the stream is not a terminal (a pipe, a file, a test's
``StringIO``), nor before ``DELAY`` seconds have passed (quick commands
print nothing extra), and the line is erased when the work ends.

>>> import io
>>> with shown_on(io.StringIO()) as p:  # not a terminal: nothing shown
...     stage("measuring"); tick(3)
>>> p is None
True
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TextIO

__all__ = ["Progress", "shown_on", "stage", "tick"]

DELAY = 1.5  # seconds of work before the first line
EVERY = 0.2  # seconds between redraws

_current: ContextVar[Progress | None] = ContextVar("symgrad_progress", default=None)


class Progress:
    """One status line on ``stream``, redrawn in place: the stage, the
    units counted in it and the seconds elapsed."""

    def __init__(self, stream: TextIO, prefix: str = "symgrad") -> None:
        self.stream, self.prefix = stream, prefix
        self.start = time.monotonic()
        self.label, self.count, self.total = "", 0, None
        self._drawn_at = -1.0
        self._width = 0

    def stage(self, label: str, total: int | None = None) -> None:
        self.label, self.count, self.total = label, 0, total
        self._draw(force=True)

    def tick(self, n: int = 1) -> None:
        self.count += n
        self._draw()

    def _draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if now - self.start < DELAY or (not force and now - self._drawn_at < EVERY):
            return
        self._drawn_at = now
        done = f" {self.count}/{self.total}" if self.total and self.count <= self.total \
            else f" {self.count}" if self.count else ""
        text = f"{self.prefix}: {self.label}{done} ({now - self.start:.0f} s)"
        pad = max(self._width - len(text), 0)
        self._width = len(text)
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()

    def close(self) -> None:
        if self._width:  # erase the line: the report follows on stdout
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


@contextlib.contextmanager
def shown_on(stream: TextIO, prefix: str = "symgrad") -> Iterator[Progress | None]:
    """Show the progress of the work in the block on ``stream`` when it is
    a terminal; yields the :class:`Progress` (None when not shown)."""
    if not _is_terminal(stream):
        yield None
        return
    p = Progress(stream, prefix)
    token = _current.set(p)
    try:
        yield p
    finally:
        _current.reset(token)
        p.close()


def stage(label: str, total: int | None = None) -> None:
    """Start a stage of the work (``total`` units, where known)."""
    p = _current.get()
    if p is not None:
        p.stage(label, total)


def tick(n: int = 1) -> None:
    """Count ``n`` units of work done in the current stage."""
    p = _current.get()
    if p is not None:
        p.tick(n)
