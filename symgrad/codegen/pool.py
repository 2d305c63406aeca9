"""Worker threads for blocked evaluation.

NumPy releases the GIL inside its ufunc loops, so blocks of a generated
function evaluated on several threads run in parallel.  One executor per
thread count is shared by every function ``lambdify`` returns.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["worker_pool", "available_cores"]

_POOLS: dict[int, ThreadPoolExecutor] = {}
_LOCK = threading.Lock()


def available_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def worker_pool(threads: int | None) -> ThreadPoolExecutor | None:
    """The shared executor with ``threads`` workers (``None``: one per
    available core), or None where that is a single thread.

    >>> worker_pool(1) is None
    True
    >>> worker_pool(2) is worker_pool(2)
    True
    """
    n = available_cores() if threads is None else threads
    if n <= 1:
        return None
    with _LOCK:
        pool = _POOLS.get(n)
        if pool is None:
            pool = _POOLS[n] = ThreadPoolExecutor(n, thread_name_prefix="symgrad-block")
        return pool
