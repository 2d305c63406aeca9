"""What the code of ``certified(u)`` calls (:mod:`symgrad.codegen.certifying`).

Real code, linted and tested here; a generated module carries this text
(after this docstring and the imports).  Only the rare path (elements the
bound does not certify) imports symgrad, for its ground truth.
"""

import numpy as np

# certified(u): the pair's rounded value r of u, beside the bound C (eps**2 E2
# + eps E1 + tiny E0) on its error (E2: the pairs' own roundings, E1: values of
# functions rounded to one float, E0: low parts lost below the normal range,
# each carried to the root by |derivative| factors); where |r| is not above
# 2**p times the bound, or r or the bound is not finite, the element is
# recomputed by the ground truth (interval arithmetic at increasing precision
# until it rounds to one float).
_ZV_C = 64.0  # the bound's constant (measured: 0.55 of it at most, docs/api.md)
_ZV_FORMS = {}  # srepr text -> the formula, as code generation made it
_ZV_TRUTHS = {}  # (text, dtype) -> its ground truth, built on the first rare element
# (text, formula or None, dtype) -> a ground truth: set by symgrad.stability.truth
# (code generation does not import the verification; symgrad imports both)
_ZV_MAKER = None


def _zv_truth(text, dtype):
    got = _ZV_TRUTHS.get((text, dtype))
    if got is not None:
        return got
    from symgrad.codegen import certify_helpers

    if certify_helpers._ZV_MAKER is None:
        raise RuntimeError("certified(...): its uncertified elements need symgrad's ground "
                           "truth: import symgrad before calling this function")
    got = certify_helpers._ZV_MAKER(text, certify_helpers._ZV_FORMS.get(text), dtype)
    _ZV_TRUTHS[text, dtype] = got
    return got


def _zv_bad(r, e2, e1, e0):
    """The elements whose rounded pair ``r`` the bound does not certify
    within about an ulp (NaN or inf among them: not certified)."""
    fi = np.finfo(r.dtype)
    eps = fi.eps / 2
    bound = _ZV_C * (eps * eps * e2 + eps * e1 + fi.smallest_subnormal * e0)
    with np.errstate(invalid="ignore", over="ignore"):
        return ~(np.abs(r) * eps > bound) | ~np.isfinite(r)


def _zv(r, e2, e1, e0, text, *inputs):
    """``r`` with its uncertified elements replaced by the ground truth's
    correctly rounded values (where it resolves them; else ``r``'s)."""
    scalar = np.ndim(r) == 0 and all(np.ndim(a) == 0 for a in inputs)
    r = np.asarray(r)
    dt = r.dtype if r.dtype.kind == "f" else np.dtype(np.float64)
    shape = np.broadcast_shapes(r.shape, *(np.shape(a) for a in inputs))
    flat = np.broadcast_to(r, shape).astype(dt).reshape(-1)
    bad = _zv_bad(flat, *(np.broadcast_to(m, shape).reshape(-1) for m in (e2, e1, e0)))
    if bad.any():
        idx = np.flatnonzero(bad)
        rows = np.stack([np.broadcast_to(np.asarray(a, dtype=dt), shape).reshape(-1)[idx]
                         for a in inputs], axis=-1) if inputs else np.zeros((len(idx), 0), dt)
        vals, status = _zv_truth(text, dt.name).batch(rows)
        ok = status[0] == 0  # RESOLVED
        flat[idx[ok]] = vals[0][ok]
    return flat[0] if scalar else flat.reshape(shape)
