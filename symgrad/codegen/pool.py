"""Worker threads for blocked evaluation.

NumPy releases the GIL inside its ufunc loops, so blocks of a generated
function evaluated on several threads run in parallel.  One executor per
thread count (and per process: a forked child gets its own, since it
inherits none of its parent's threads) is shared by every function
``lambdify`` returns.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

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
        key = (os.getpid(), self.n)
        pool = _POOLS.get(key)
        if pool is None:
            with _LOCK:
                pool = _POOLS.get(key)
                if pool is None:
                    pool = _POOLS[key] = ThreadPoolExecutor(
                        self.n, thread_name_prefix="symgrad-block"
                    )
        return pool.map(fn, items)


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
