"""Derivative rules: their forms, the table, and the defaults."""

from .defaults import DEFAULT_TABLE, NONSMOOTH
from .forms import (
    FdiffRule,
    IdentityRule,
    JVPRule,
    Opts,
    PartialsRule,
    Rule,
    SympyChainRule,
    SympyLeafRule,
    VJPRule,
    ZeroRule,
)
from .table import TF_ALIASES, TF_ALSO, RuleTable

__all__ = [
    "DEFAULT_TABLE",
    "NONSMOOTH",
    "TF_ALIASES",
    "TF_ALSO",
    "FdiffRule",
    "IdentityRule",
    "JVPRule",
    "Opts",
    "PartialsRule",
    "Rule",
    "RuleTable",
    "SympyChainRule",
    "SympyLeafRule",
    "VJPRule",
    "ZeroRule",
]
