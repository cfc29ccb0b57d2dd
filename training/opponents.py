"""The opponents of the learner in training and its evaluations, each a
``hearts_env.batched.protocols.BatchPolicy``: actions for chosen rows of an engine, given those rows'
observations and masks.

- ``RandomOpponent``: uniformly random legal actions (the masked softmax of zero logits).
- ``NetworkOpponent``: a frozen network: a snapshot of the learner, sampling from its masked policy,
  or (``NetworkOpponent.exported``) an exported model (pool kind ``model:<path or shipped name>``),
  loaded into a torch network as ``init_from`` loads one, playing greedily as ``make_bot`` plays it
  in tournaments; it reads the full observation through its own input selection, so its network
  may differ from the learner's.
- the scripted adversaries (pool kinds ``moon``, ``moon-stubborn``, ...): the batched policies of
  ``hearts_env.batched.scripted.BATCHED_ADVERSARIES``, by the same labels as the bots' ``ADVERSARIES``.
- the rule-based bot is ``hearts_env.batched.HeuristicPolicy`` (the engine's ``heuristic_actions``).

``pool_opponent(kind, rules, device, num_players)`` builds the opponent of a model or scripted kind;
``pool_kinds`` and ``pool_problem`` are what ``check_args`` validates a pool with.

The random and snapshot opponents sample with the rollout's generator (``generator``), so a seeded
run draws the same actions however the rows are split between opponents.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from hearts_env.batched.protocols import BatchEngine, BatchPolicy
from hearts_env.batched.scripted import BATCHED_ADVERSARIES
from hearts_env.core.rules import Rules
from hearts_env.nets import load_policy

from .network import build_network, greedy_actions, sample_actions

#: The pool kinds built into the rollout itself; ``model:<path>`` and the scripted labels come on top.
BUILTIN_KINDS = ("snapshot", "heuristic", "random")
#: The prefix of a frozen exported model in the pool: ``model:models/ppo-standard``, ``model:ppo-standard``.
MODEL_PREFIX = "model:"


def scripted_adversaries() -> dict[str, Callable[[], BatchPolicy]]:
    """The scripted adversaries' batched policies by label (``moon``, ``moon-stubborn``, ...)."""
    return dict(BATCHED_ADVERSARIES)


def pool_kinds() -> list[str]:
    """Every valid pool kind, as an error message lists them."""
    return [*BUILTIN_KINDS, f"{MODEL_PREFIX}<model directory or shipped name>", *sorted(scripted_adversaries())]


def pool_problem(pool: Sequence[str], rules_list: Sequence[Rules]) -> str | None:
    """Why ``pool`` cannot be the opponent pool of a run on ``rules_list`` (``None``: it can): the
    unknown kinds with the valid ones listed, or a ``model:`` kind whose model cannot play these rules."""
    scripted = scripted_adversaries()
    unknown = [k for k in pool if k not in BUILTIN_KINDS and k not in scripted and not k.startswith(MODEL_PREFIX)]
    if unknown:
        return f"unknown opponent kind(s) {', '.join(unknown)}; use {', '.join(pool_kinds())}"
    for kind in pool:
        if not kind.startswith(MODEL_PREFIX):
            continue
        spec = kind[len(MODEL_PREFIX) :]
        if not spec:
            return f"{kind!r} names no model; use model:models/<name> or model:<shipped name>"
        for rules in rules_list:
            try:
                load_policy(spec, rules)
            except (ValueError, OSError) as err:  # ModelError is a ValueError
                return f"{kind}: {getattr(err, 'reason', err)}"
    return None


def pool_opponent(kind: str, rules_list: Sequence[Rules], device: torch.device, num_players: int) -> BatchPolicy:
    """The opponent of a ``model:<path>`` or scripted pool kind (the built-in kinds live in the rollout)."""
    if kind.startswith(MODEL_PREFIX):
        return NetworkOpponent.exported(kind[len(MODEL_PREFIX) :], rules_list, device, num_players)
    return scripted_adversaries()[kind]()


class RandomOpponent:
    """Uniformly random legal actions, drawn with ``generator``."""

    name = "random"

    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """A random legal action per row of ``mask``."""
        return sample_actions(torch.zeros(mask.shape, device=mask.device), mask, generator)


class NetworkOpponent:
    """A frozen network as an opponent: a past snapshot of the learner (sampling from its masked
    policy) or an exported model (``exported``: its greedy action, as ``make_bot`` plays it)."""

    def __init__(
        self,
        network: torch.nn.Module,
        name: str,
        weights: dict[str, torch.Tensor] | None = None,
        greedy: bool = False,
    ) -> None:
        self.network = network
        self.name = name
        self.weights = weights  # the snapshot it was built from: the pool rebuilds it only when this changes
        self.greedy = greedy

    @classmethod
    def frozen(
        cls, config: dict[str, Any], weights: dict[str, torch.Tensor], device: torch.device, i: int, num_players: int
    ) -> NetworkOpponent:
        """Snapshot ``i`` of the pool: a network of ``config`` holding ``weights``, in eval mode."""
        net = build_network(config, num_players).to(device)
        net.load_state_dict(weights)
        return cls(net.eval(), f"snapshot{i}", weights)

    @classmethod
    def exported(
        cls, spec: str, rules_list: Sequence[Rules], device: torch.device, num_players: int
    ) -> NetworkOpponent:
        """The exported model ``spec`` (a directory or shipped name), checked against every rule set of
        the run. It is given full observations (not the learner's input selection): its own network
        picks the entries it reads, so any exported network can sit beside any learner."""
        policy = load_policy(spec, rules_list[0])
        for rules in rules_list[1:]:
            load_policy(spec, rules)
        net = build_network(policy.config, num_players)
        net.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in policy.params.items()})  # writable copies
        return cls(net.to(device).eval(), f"{MODEL_PREFIX}{spec}", greedy=True)

    @torch.no_grad()
    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """The network's action per row: greedy for an exported model, else a sample of its masked policy."""
        logits, _ = self.network(obs)
        return greedy_actions(logits, mask) if self.greedy else sample_actions(logits, mask, generator)
