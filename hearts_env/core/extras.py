"""Optional dependencies: one place that turns a missing extra into a message naming the extra.

The project's extras (``pyproject.toml``): ``env`` (PettingZoo, Gymnasium), ``train`` (torch, ...),
``web`` (Starlette, uvicorn), ``rllib`` (Ray RLlib) and ``recipes`` (TorchRL, Tianshou,
sb3-contrib). Code that needs one imports it through ``import_extra`` so that a user without it
reads ``pip install 'hearts-env[rllib]'`` rather than a bare ``ModuleNotFoundError``.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class MissingExtraError(ModuleNotFoundError):
    """A package of an optional extra is not installed; the message says which extra to install."""


def missing_extra_message(package: str, extra: str, purpose: str) -> str:
    """The one sentence said when ``package`` (of ``extra``) is missing for ``purpose``."""
    return f"{purpose} needs {package}, from the {extra} extra: pip install 'hearts-env[{extra}]'"


def import_extra(module: str, extra: str, purpose: str) -> ModuleType:
    """``importlib.import_module(module)``; without it installed, ``MissingExtraError`` naming
    ``extra`` (an import error inside an installed package is not hidden)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        top = module.split(".")[0]
        missing = (err.name or "").split(".")[0]
        if missing != top:
            raise
        raise MissingExtraError(missing_extra_message(top, extra, purpose), name=top) from None
