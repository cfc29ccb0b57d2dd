"""The one bot protocol: ``bot.act(observation) -> int`` on the AEC env's observation dict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Bot(Protocol):
    """A player: the legal action it takes for the observation dict of the seat to move. Bots may
    also have ``reset(seed)``, called at the start of an episode so seeded episodes replay exactly."""

    def act(self, observation: Mapping[str, np.ndarray]) -> int: ...


def legal_actions(observation: Mapping[str, Any]) -> list[int]:
    """The legal action ids of an observation dict."""
    return np.flatnonzero(observation["action_mask"]).tolist()
