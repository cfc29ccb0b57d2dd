"""The RL modules of the RLlib backend: the masked PPO module ("main"), its frozen snapshots and the
heuristic bot as a module.

Masking: every forward pass (``_forward`` serves inference, exploration and training alike) returns
``training.network.masked_logits``: the logits of illegal actions replaced by a large finite negative
(``MASK_VALUE``) before RLlib builds its ``TorchCategorical``. So an illegal action has probability
zero when sampled, zero in the log-probabilities of the PPO ratio and contributes exactly zero to
the entropy; no action is ever replaced by another. The network is ``training.network``'s
``MLPNetwork`` (``build_network(mlp_config(hidden=...), num_players)``, reading only the live
columns), so the weights export to ``models/<name>`` unchanged. Its value rides along as
``Columns.EMBEDDINGS`` from ``_forward_train`` so the PPO loss needs one forward pass.

``model_config`` of each module: ``{"hidden": [..], "activation": "relu", "num_players": N}``, and
for the heuristic module ``{"rules": Rules.to_dict()}``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule

from hearts_env.bots import HeuristicBot
from hearts_env.core.rules import Rules

from ..network import PolicyValueNetwork, build_network, masked_logits, mlp_config


def network_config(model_config: dict[str, Any]) -> dict[str, Any]:
    """The project's network config a module's ``model_config`` describes."""
    return mlp_config(hidden=model_config.get("hidden", [256, 256]), activation=model_config.get("activation", "relu"))


class _MaskedNetworkModule(TorchRLModule):
    """The project's MLP behind RLlib's module interface, logits masked by the observation's mask."""

    net: PolicyValueNetwork

    def setup(self) -> None:
        config = dict(self.model_config or {})
        self.net = build_network(network_config(config), config.get("num_players"))

    def _inputs(self, batch: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        obs = batch[Columns.OBS]
        return obs["observations"], obs["action_mask"]

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        x, mask = self._inputs(batch)
        logits, _ = self.net(x)
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, mask)}


class MaskedPPOModule(_MaskedNetworkModule, ValueFunctionAPI):
    """The trained module: masked policy and value (PPO's learner needs ``ValueFunctionAPI``)."""

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        x, mask = self._inputs(batch)
        logits, value = self.net(x)
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, mask), Columns.EMBEDDINGS: value}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is not None:  # the value of _forward_train's pass
            return embeddings
        x, _ = self._inputs(batch)
        return self.net(x)[1]


class FrozenSnapshotModule(_MaskedNetworkModule):
    """A frozen copy of "main" (same parameters, same masking); no value function, so the learner
    neither computes its values nor builds it an optimizer. Never trained."""

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError("a frozen snapshot is not trained: keep it out of policies_to_train")


class HeuristicModule(RLModule):
    """``hearts_env.bots.HeuristicBot`` on each observation vector: returns actions. A plain (not a
    torch) module, so the learner gives it no optimizer; never trained."""

    def setup(self) -> None:
        self.bot = HeuristicBot(Rules.from_dict((self.model_config or {})["rules"]))

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        vectors = np.asarray(_numpy(obs["observations"]), np.float32)
        masks = np.asarray(_numpy(obs["action_mask"]))
        actions = [self.bot.act({"observation": v, "action_mask": m}) for v, m in zip(vectors, masks, strict=True)]
        return {Columns.ACTIONS: np.asarray(actions, np.int64)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError("the heuristic bot is not trained: keep it out of policies_to_train")


def _numpy(x: Any) -> np.ndarray:
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


__all__ = ["FrozenSnapshotModule", "HeuristicModule", "MaskedPPOModule", "network_config"]
