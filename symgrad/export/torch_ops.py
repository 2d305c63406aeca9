"""The NumPy functions whose PyTorch form differs (a Python number among
the arguments, or no function of that name), as generated PyTorch code calls
them (``_sg.maximum(t0, 0)``).  Only forward values: the derivatives of
exported code are symgrad's, never PyTorch's autograd of these."""

from __future__ import annotations

import torch

__all__ = ["maximum", "minimum", "heaviside", "mod", "arctan2", "hypot", "cbrt",
           "polygamma", "gamma", "loggamma", "zeta"]


def _pair(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a, b
    like = a if isinstance(a, torch.Tensor) else b
    if not isinstance(like, torch.Tensor):
        d = torch.get_default_dtype()
        return torch.as_tensor(a, dtype=d), torch.as_tensor(b, dtype=d)

    def conv(v):
        if isinstance(v, torch.Tensor):
            return v
        return torch.as_tensor(v, dtype=like.dtype, device=like.device)

    return conv(a), conv(b)


def maximum(a, b):
    return torch.maximum(*_pair(a, b))  # NaN propagates, as np.maximum


def minimum(a, b):
    return torch.minimum(*_pair(a, b))


def heaviside(x, h0):
    x, h = _pair(x, h0)
    return torch.heaviside(x, h.to(x.dtype))


def mod(a, b):
    return torch.remainder(*_pair(a, b))  # the sign of the divisor, as np.mod


def arctan2(y, x):
    return torch.atan2(*_pair(y, x))


def hypot(a, b):
    return torch.hypot(*_pair(a, b))


def cbrt(x):
    return torch.sign(x) * torch.abs(x) ** (1 / 3)


def polygamma(n, x):
    return torch.special.polygamma(int(n), x)


def loggamma(x):
    return torch.where(x >= 0, torch.special.gammaln(x), torch.nan)  # real only above 0


def gamma(x):
    # |gamma(x)| = exp(lgamma(x)); below 0 the sign alternates between the poles
    odd = torch.remainder(torch.floor(x), 2) == 1
    sign = torch.where((x < 0) & odd, -1.0, 1.0).to(x.dtype)
    return sign * torch.exp(torch.lgamma(x))


def zeta(s, q=1.0):
    s, q = _pair(s, q)
    return torch.special.zeta(s, q)
