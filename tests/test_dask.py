"""A generated gradient evaluated chunk by chunk over a dask array, on a
local dask.distributed cluster, against the in-memory result (the ``dask``
extra; the ``test`` extra pulls it in)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import numpy as np
import sympy as sp

import symgrad

x, y = sp.symbols("x y", real=True)
f = sp.log(1 + sp.exp(x * y)) + sp.sin(x) * sp.cos(y)


def test_gradient_over_a_chunked_array_on_a_local_cluster():
    # imported here, not at collection: dask and distributed cost each xdist
    # worker ~1 s of CPU; these tests run on one worker (tests/conftest.py)
    import dask.array as da
    from dask.distributed import Client, LocalCluster

    # outputs stacked in one array (an sp.Array): map_blocks takes one result per block
    grad_f = symgrad.lambdify([x, y], sp.Array(list(symgrad.grad(f, [x, y]))), threads=1)
    rng = np.random.default_rng(0)
    xs, ys = rng.uniform(-3, 3, 200_000), rng.uniform(-3, 3, 200_000)
    in_memory = grad_f(xs, ys)

    X, Y = da.from_array(xs, chunks=50_000), da.from_array(ys, chunks=50_000)
    G = da.map_blocks(grad_f, X, Y, new_axis=0, chunks=((2,), *X.chunks), dtype=xs.dtype)
    # workers in this process, but the task graph (and grad_f in it) is pickled
    # on its way to the scheduler, as for a remote cluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster):
        chunked = G.compute()
    assert G.numblocks == (1, 4)
    assert np.isfinite(in_memory).all()
    assert np.array_equal(chunked, in_memory)  # the same code on each block: the same bits


def test_generated_functions_pickle_as_dask_sends_them():
    import cloudpickle

    for threads in (1, 2):  # with or without symgrad's worker threads
        fn = symgrad.lambdify([x, y], list(symgrad.grad(f, [x, y])), threads=threads)
        copy = cloudpickle.loads(cloudpickle.dumps(fn))
        pts = np.linspace(-5, 5, 50_000), np.linspace(3, -3, 50_000)
        assert all(np.array_equal(a, b) for a, b in zip(copy(*pts), fn(*pts)))


def test_a_worker_runs_a_pickled_function_without_importing_symgrad(tmp_path):
    """docs/scale.md: with threads=1 a worker needs NumPy (and SciPy) only."""
    import cloudpickle

    e = symgrad.grad(sp.erf(x) * sp.log(1 + sp.exp(x * y)), [x, y])
    fn = symgrad.lambdify([x, y], list(e), threads=1)
    (tmp_path / "fn.pkl").write_bytes(cloudpickle.dumps(fn))
    worker = ("import pickle, sys, numpy as np\n"
              "fn = pickle.load(open('fn.pkl', 'rb'))\n"
              "print(repr([v.tolist() for v in fn(np.array([0.5, -2.0]), 1.5)]))\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] == 'symgrad'))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", worker], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    values, modules = done.stdout.splitlines()
    expected = fn(np.array([0.5, -2.0]), 1.5)
    assert ast.literal_eval(values) == [v.tolist() for v in expected] and modules == "[]"
