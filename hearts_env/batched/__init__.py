"""Batched Hearts in torch: B deals of one rule set advanced together on CPU or GPU.

Training needs millions of decisions per minute, which one Python object per deal cannot give. This
package keeps B deals as tensors (card sets as 52-bit masks in ``int64``) and advances all of them with
a few tensor operations per decision, on any torch device, so that a policy network and the game can
share a device. It is imported only when used: ``hearts_env`` and ``hearts_env.core`` never import torch.

- ``BatchedHearts(rules, batch_size, device=..., seed=...)``: the engine with its state; ``step``,
  ``legal_mask`` ``(B, 68)``, ``observe`` ``(B, D)`` (exactly ``hearts_env.env.encoding``),
  ``observe_packed`` (the same, packed losslessly), ``load``/``export`` of explicit deals.
- ``MixedBatchedHearts(rules_list, batch_size, ...)``: several rule sets side by side in one batch,
  behind the same interface (one network can play them all: the encoding carries the rule options).
- ``HeartsKernel``, ``BatchState``, ``BatchedParams``: the same as pure functions over an explicit
  state (Gymnasium ``FuncEnv`` style) for those who keep the state themselves.
- Policies: ``UniformRandomPolicy``, ``ModulePolicy`` (a torch module from observations to logits),
  ``heuristic_actions`` (the reference heuristic bot's choices for chosen rows).

Each row plays deal after deal; every deal is its own episode, scored as ``hearts_env.Deal`` scores it.
Masks, transitions and scores equal the reference engine's (``hearts_env.core``) for every rule set.

On a CPU shared with other work, ``torch.set_num_threads(1)``: a second intra-op thread that has to
wait for a busy core stalls every large tensor operation for milliseconds.
"""

from .batch import BatchedHearts
from .engine import BatchedActionError, HeartsKernel, StepResult
from .heuristic import BatchedHeuristic, heuristic_actions
from .multi import MixedBatchedHearts
from .observation import PackedObservations
from .params import BatchedParams
from .policies import ModulePolicy, UniformRandomPolicy, sample_uniform
from .state import BatchState

__all__ = [
    "BatchState",
    "BatchedActionError",
    "BatchedHearts",
    "BatchedHeuristic",
    "BatchedParams",
    "HeartsKernel",
    "MixedBatchedHearts",
    "ModulePolicy",
    "PackedObservations",
    "StepResult",
    "UniformRandomPolicy",
    "heuristic_actions",
    "sample_uniform",
]
