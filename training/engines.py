"""The engines training plays on, and what it reads from any of them.

``make_engine`` builds the batched torch engine (``BatchedHearts``; ``MixedBatchedHearts`` for several
rule sets side by side) or many tables of the reference engine behind the same interface
(``ReferenceVecHearts``, ``--engine reference``). PPO and the imitation warm start both build their
engine here, and scale rewards with ``reward_scales``; checkpoints store ``engine_generators``;
``engine_parts`` gives the single-rule-set engines whose state a batched engine's rows live in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from hearts_env.batched import BatchedHearts, MixedBatchedHearts
from hearts_env.batched.protocols import BatchEngine
from hearts_env.core.rules import Rules

from .reference_vec import ReferenceVecHearts

ENGINES = ("batched", "reference")


def make_engine(
    kind: str, rules: Rules | Sequence[Rules], batch_size: int, device: torch.device, seed: int
) -> BatchEngine | ReferenceVecHearts:
    """The batched torch engine (several rule sets side by side when given a list of more than one),
    or many reference-engine tables behind the same interface. ``ValueError`` names a bad ``kind``."""
    if kind not in ENGINES:
        raise ValueError(f"unknown engine {kind!r}; use batched or reference")
    if not isinstance(rules, Rules):
        if len(rules) > 1:
            if kind != "batched":
                raise ValueError("training on several rule sets at once needs engine = batched")
            return MixedBatchedHearts(rules, batch_size, device=device, seed=seed)
        rules = rules[0]
    if kind == "batched":
        return BatchedHearts(rules, batch_size=batch_size, device=device, seed=seed)
    return ReferenceVecHearts(rules, batch_size, seed=seed, device=device)


def engine_generators(engine: BatchEngine | ReferenceVecHearts) -> dict[str, Any]:
    """The engine's random generators, by the names checkpoints store them under."""
    return dict(engine.generators)


def reward_scales(engine: BatchEngine | ReferenceVecHearts) -> torch.Tensor:
    """``(B,)`` 1 / the deal's penalty total of each row's rule set: rewards of about -1..1 everywhere."""
    scales = torch.tensor([1.0 / max(1, r.tables.penalty_total) for r in engine.rules_list], device=engine.device)
    return scales[engine.rules_index]


def engine_parts(engine: BatchEngine | ReferenceVecHearts) -> list[tuple[BatchedHearts, int, int]]:
    """The ``BatchedHearts`` a batched engine is made of, each with its first row and the row after its
    last (one for ``BatchedHearts``, each part of ``MixedBatchedHearts``); none for the reference engine."""
    if isinstance(engine, MixedBatchedHearts):
        return [(part, engine.bounds[i], engine.bounds[i + 1]) for i, part in enumerate(engine.parts)]
    if isinstance(engine, BatchedHearts):
        return [(engine, 0, engine.batch_size)]
    return []
