"""How each framework takes and gives arrays, and the exported function's
front door shared by ``to_jax``, ``to_torch`` and ``lambdify(backend=...)``:
the positional values split into one array per symbol (a Matrix argument
along its leading axes), brought to one floating type, and the outputs
rebuilt into the user's structure (a Matrix output stacked in front)."""

from __future__ import annotations

from collections.abc import Callable

from .args import Signature

__all__ = ["Frame", "frame", "front_door"]


class Frame:
    """A framework's array operations, as the front door uses them."""

    name: str

    def taker(self, values: tuple) -> Callable:
        """A function turning one value into an array (on the values' device)."""
        raise NotImplementedError

    def reshape(self, a, shape: tuple):
        raise NotImplementedError

    def floats(self, flat: list) -> list:
        """``flat`` in their common floating type (the default float if none is)."""
        raise NotImplementedError

    def stack(self, entries: list, shape: tuple):
        """One array holding ``entries`` (broadcast together) along leading axes ``shape``."""
        raise NotImplementedError

    def zeros_like(self, a):
        raise NotImplementedError


class _Jax(Frame):
    name = "jax"

    def __init__(self) -> None:
        import jax.numpy as jnp

        self.np = jnp

    def taker(self, values: tuple) -> Callable:
        return self.np.asarray

    def reshape(self, a, shape: tuple):
        return self.np.reshape(a, shape)

    def floats(self, flat: list) -> list:
        jnp = self.np
        if not flat:  # a function of no arguments
            return []
        dt = jnp.result_type(*flat)
        if not jnp.issubdtype(dt, jnp.floating):
            dt = jnp.result_type(float)
        return [jnp.asarray(v, dt) for v in flat]

    def stack(self, entries: list, shape: tuple):
        jnp = self.np
        es = jnp.broadcast_arrays(*(jnp.asarray(e) for e in entries))
        return jnp.stack(es).reshape(shape + jnp.shape(es[0]))

    def zeros_like(self, a):
        return self.np.zeros_like(a)


class _Torch(Frame):
    name = "torch"

    def __init__(self) -> None:
        import torch

        self.torch = torch

    def taker(self, values: tuple) -> Callable:
        torch = self.torch
        dev = next((v.device for v in values if isinstance(v, torch.Tensor)), None)
        return lambda v: v if isinstance(v, torch.Tensor) else torch.as_tensor(v, device=dev)

    def reshape(self, a, shape: tuple):
        return self.torch.reshape(a, shape)

    def floats(self, flat: list) -> list:
        torch = self.torch
        if not flat:  # a function of no arguments
            return []
        dt = flat[0].dtype
        for v in flat[1:]:
            dt = torch.promote_types(dt, v.dtype)
        if not dt.is_floating_point:
            dt = torch.get_default_dtype()
        return [v.to(dt) for v in flat]

    def stack(self, entries: list, shape: tuple):
        torch = self.torch
        ts = torch.broadcast_tensors(*(torch.as_tensor(e) for e in entries))
        return torch.stack(ts).reshape(shape + tuple(ts[0].shape))

    def zeros_like(self, a):
        return self.torch.zeros_like(a)


_FRAMES: dict[str, Frame] = {}


def frame(backend: str) -> Frame:
    """The :class:`Frame` of ``backend`` (``"jax"`` or ``"torch"``; imports it)."""
    if backend not in _FRAMES:
        _FRAMES[backend] = (_Jax if backend == "jax" else _Torch)()
    return _FRAMES[backend]


def front_door(sig: Signature, fr: Frame, run: Callable, *, floats: bool = True) -> Callable:
    """The exported function: ``run(*arrays)`` (one array per symbol of
    ``sig``, in one floating type when ``floats``) returns the flat outputs,
    rebuilt into ``sig``'s structure."""

    def call(*values):
        take = fr.taker(values)
        flat = sig.split(values[0:1] if sig.single else values, take, fr.reshape)
        flat = [take(v) for v in flat]
        if floats:
            flat = fr.floats(flat)
        return sig.build(list(run(*flat)), fr.stack)

    return call
