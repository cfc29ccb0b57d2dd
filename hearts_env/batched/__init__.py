"""Batched Hearts in torch: B deals of one rule set advanced together on CPU or GPU.

Training needs millions of decisions per minute, which one Python object per deal cannot give. This
room keeps B deals as tensors (card sets as 52-bit masks in ``int64``) and advances all of them with
a few tensor operations per decision, on any torch device, so that a policy network and the game can
share a device. It is imported only when used: ``hearts_env`` and ``hearts_env.core`` never import torch.

What it holds:

- ``BatchEngine`` and ``BatchPolicy`` (``protocols``): the two interfaces, declared once; code that
  takes an engine or a policy asks for these, never for a class.
- ``BatchedHearts(rules, batch_size, device=..., seed=...)``: the engine with its state; ``step``,
  ``legal_mask`` ``(B, 68)``, ``observe`` ``(B, D)`` (exactly ``hearts_env.obs.encode``),
  ``observe_packed`` (the same, packed losslessly), ``heuristic_actions(rows)``, ``load``/``export``
  of explicit deals.
- ``MixedBatchedHearts(rules_list, batch_size, ...)``: several rule sets side by side in one batch,
  behind the same interface (one network can play them all: the encoding carries the rule options).
- ``HeartsKernel``, ``BatchState``, ``BatchedParams``: the same as pure functions over an explicit
  state (Gymnasium ``FuncEnv`` style) for those who keep the state themselves.
- ``VectorHeuristic``: the heuristic bot's decisions as tensor operations over a state's rows.
- Policies: ``UniformRandomPolicy``, ``ModulePolicy`` (a torch module from observations to logits),
  ``HeuristicPolicy``; ``heuristic_actions(engine, rows)`` (= ``engine.heuristic_actions(rows)``).

May import: ``hearts_env.core``, ``hearts_env.obs`` and torch (numpy too). Not ``hearts_env.bots``:
the checks of the engine and of ``VectorHeuristic`` against the reference engine and bot live in
``hearts_env.testing``.

Each row plays deal after deal; every deal is its own episode, scored as ``hearts_env.Deal`` scores it.
Masks, transitions and scores equal the reference engine's (``hearts_env.core``) for every rule set.

On a CPU shared with other work, ``torch.set_num_threads(1)``: a second intra-op thread that has to
wait for a busy core stalls every large tensor operation for milliseconds.
"""

from .batch import BatchedHearts
from .engine import BatchedActionError, HeartsKernel, StepResult
from .heuristic import VectorHeuristic, heuristic_actions
from .multi import MixedBatchedHearts
from .observation import PackedObservations
from .params import BatchedParams
from .policies import HeuristicPolicy, ModulePolicy, UniformRandomPolicy, sample_uniform
from .protocols import BatchEngine, BatchPolicy
from .state import BatchState

__all__ = [
    "BatchEngine",
    "BatchPolicy",
    "BatchState",
    "BatchedActionError",
    "BatchedHearts",
    "BatchedParams",
    "HeartsKernel",
    "HeuristicPolicy",
    "MixedBatchedHearts",
    "ModulePolicy",
    "PackedObservations",
    "StepResult",
    "UniformRandomPolicy",
    "VectorHeuristic",
    "heuristic_actions",
    "sample_uniform",
]
