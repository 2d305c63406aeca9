"""Worker threads for blocked evaluation.

NumPy releases the GIL inside its ufunc loops, so blocks of a generated
function evaluated on several threads run in parallel.  One executor per
thread count (and per process: a forked child gets its own, since it
inherits none of its parent's threads) is shared by every function
``lambdify`` returns.

NumPy's floating-point error state (``np.errstate``, ``np.seterr``) is
local to a thread, and a worker starts from the default one: every block
runs under the error state (and error callback) of the thread that called.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["worker_pool", "available_cores", "Workers"]

_POOLS: dict[tuple[int, int], ThreadPoolExecutor] = {}
_LOCK = threading.Lock()


def available_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Workers:
    """What a generated function calls ``.map`` on: the executor of the
    current process, created on first use."""

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = n

    def map(self, fn: Callable, items: Iterable) -> Iterator:
        """``fn`` over ``items`` on the workers, each call under the caller's
        floating-point error state."""
        state, call = np.geterr(), np.geterrcall()

        def run(item: object) -> object:
            with np.errstate(call=call, **state):
                return fn(item)

        key = (os.getpid(), self.n)
        pool = _POOLS.get(key)
        if pool is None:
            with _LOCK:
                pool = _POOLS.get(key)
                if pool is None:
                    pool = _POOLS[key] = ThreadPoolExecutor(
                        self.n, thread_name_prefix="symgrad-block"
                    )
        return pool.map(run, items)


def worker_pool(threads: int | None) -> Workers | None:
    """Workers for ``threads`` threads (``None``: one per available core),
    or None where that is a single thread.

    >>> worker_pool(1) is None
    True
    >>> sorted(worker_pool(2).map(abs, [-1, 2]))
    [1, 2]
    """
    n = available_cores() if threads is None else threads
    return None if n <= 1 else Workers(n)
