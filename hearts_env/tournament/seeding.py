"""Duplicate deals: the seed of each deal, of each game and of each bot, from the tournament seed."""

from __future__ import annotations

import random

from ..core import Rules
from ..core.deal import Deal, seeded_deal

_MASK63 = (1 << 63) - 1


def deal_for_seed(rules: Rules, seed: int) -> Deal:
    """The deal ``env.reset(seed=seed)`` deals in deal episodes: dealer, pass kind and hands from ``seed``."""
    return seeded_deal(rules, seed)


def deal_seeds(seed: int, count: int) -> list[int]:
    """The seeds of a tournament's ``count`` duplicate sets."""
    rng = random.Random(f"hearts_env tournament {seed}")
    return [rng.getrandbits(63) for _ in range(count)]


def _mix(x: int) -> int:
    """splitmix64's finaliser: a well-spread 64-bit function of ``x`` (stable across processes)."""
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 31)


def game_seed(set_seed: int, rotation: int, entry: int) -> int:
    """A bot's seed for one game: a function of the set, the rotation and the entry only."""
    return _mix(_mix(_mix(set_seed) ^ (rotation & 0xFFFF)) ^ entry) & _MASK63
