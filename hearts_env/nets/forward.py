"""The numpy forward pass of an exported network (``NumpyPolicy``) and masked action choice.

The reference for ``hearts_env.training.network``: the tests hold the two outputs equal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..core.cards import NUM_CARDS
from .spec import MASK_VALUE, card_indices, global_indices, params_problem, validate_config


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, np.float32(0.0))


def _activation(name: str) -> Any:
    """A module-level function (not a lambda), so a policy pickles."""
    return _relu if name == "relu" else np.tanh


class NumpyPolicy:
    """A policy/value network in numpy (float32): ``forward(obs) -> (logits, value)``.

    ``obs`` is one observation vector ``(obs_dim,)`` or a batch ``(B, obs_dim)``; results have the
    matching leading shape. ``card`` is the model card it was loaded from (``{}`` when built
    directly from arrays)."""

    def __init__(
        self, config: Mapping[str, Any], params: Mapping[str, np.ndarray], card: Mapping[str, Any] | None = None
    ):
        self.config = validate_config(config)
        problem = params_problem(self.config, params)
        if problem is not None:
            raise ValueError(problem)
        self.params = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in params.items()}
        self.card = dict(card or {})
        self._derive()

    def _derive(self) -> None:
        """The activation, the transposed weights and the index arrays, all derived from
        ``config`` and ``params``: left out of copies and pickles, rebuilt by ``__setstate__``."""
        self._act = _activation(self.config["activation"])
        # Transposed copies: ``x @ W.T`` on a contiguous ``W.T`` is the fast path for one vector.
        self._wt = {
            k[: -len(".weight")]: np.ascontiguousarray(v.T) for k, v in self.params.items() if k.endswith(".weight")
        }
        if self.config["kind"] == "cardset":
            self._card_index = card_indices(self.config).T.reshape(-1)  # card-major: (52 * planes,)
            self._global_index = global_indices(self.config)

    def __getstate__(self) -> dict[str, Any]:
        return {"config": self.config, "params": self.params, "card": self.card}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.config, self.params, self.card = state["config"], state["params"], state["card"]
        self._derive()

    @property
    def obs_dim(self) -> int:
        return int(self.config["obs_dim"])

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        if x.ndim == 2 and x.shape[0] == 1 and x.shape[1] >= 256:
            # One wide, mostly-zero observation: read only the weight rows of its nonzero entries
            # (the encoding is ~90% zeros), not the whole matrix; a matrix-vector product is
            # memory-bound, so this is what makes a single decision fast.
            nz = np.flatnonzero(x[0])
            return (x[0, nz] @ self._wt[name][nz] + self.params[f"{name}.bias"])[None, :]
        if x.ndim == 3:  # (B, 52, features): one 2-D product, not B small ones
            b, c, f = x.shape
            return (x.reshape(b * c, f) @ self._wt[name]).reshape(b, c, -1) + self.params[f"{name}.bias"]
        return x @ self._wt[name] + self.params[f"{name}.bias"]

    def _trunk(self, x: np.ndarray) -> np.ndarray:
        for i in range(len(self.config["hidden"])):
            x = self._act(self._linear(x, f"layers.{i}"))
        return x

    def forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Raw (unmasked) logits ``(..., num_actions)`` and values ``(...)``."""
        x = np.asarray(obs, dtype=np.float32)
        single = x.ndim == 1
        if single:
            x = x[None, :]
        if x.ndim != 2 or x.shape[1] != self.obs_dim:
            raise ValueError(
                f"observations must have shape (obs_dim,) or (B, obs_dim) with obs_dim={self.obs_dim}, "
                f"got {np.shape(obs)}"
            )
        if self.config["kind"] == "mlp":
            h = self._trunk(x)
            logits = self._linear(h, "policy")
        else:
            logits, h = self._cardset(x)
        value = self._linear(h, "value")[:, 0]
        if single:
            return logits[0], value[0]
        return logits, value

    def _cardset(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        b = x.shape[0]
        cards = x[:, self._card_index].reshape(b, NUM_CARDS, -1)  # (B, 52, planes)
        e = self._act(self._linear(cards, "card_in") + self.params["card_embed"])
        for layer in range(self.config["card_layers"]):
            pooled = (e.mean(axis=1) @ self._wt[f"card_layers.{layer}.pool"])[:, None, :]
            e = e + self._act(self._linear(e, f"card_layers.{layer}.own") + pooled)
        g = x[:, self._global_index]
        h = self._trunk(np.concatenate([e.mean(axis=1), e.max(axis=1), g], axis=1))
        query = self._linear(h, "card_query")  # (B, d)
        card_logits = np.matmul(e, query[:, :, None])[:, :, 0]
        special = self._linear(h, "special")
        return np.concatenate([card_logits, special], axis=1), h

    def logits(self, obs: np.ndarray) -> np.ndarray:
        return self.forward(obs)[0]

    def value(self, obs: np.ndarray) -> np.ndarray:
        return self.forward(obs)[1]

    def masked_logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Logits with every illegal action (``mask`` 0) set to ``MASK_VALUE``."""
        return masked_logits(self.logits(obs), mask)

    def choose(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        *,
        greedy: bool = True,
        rng: np.random.Generator | None = None,
        temperature: float = 1.0,
    ) -> int:
        """One legal action for one observation: the best one, or sampled from the masked softmax."""
        return choose_action(self.logits(obs), mask, greedy=greedy, rng=rng, temperature=temperature)


def masked_logits(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``logits`` with the entries where ``mask`` is false replaced by ``MASK_VALUE``."""
    legal = np.asarray(mask).astype(bool)
    return np.where(legal, logits, np.float32(MASK_VALUE)).astype(np.float32)


def choose_action(
    logits: np.ndarray,
    mask: np.ndarray,
    *,
    greedy: bool = True,
    rng: np.random.Generator | None = None,
    temperature: float = 1.0,
) -> int:
    """A legal action: the highest-logit one, or a sample from the softmax over legal actions only
    (so an illegal action is never chosen, whatever its logit)."""
    legal = np.flatnonzero(np.asarray(mask).reshape(-1))
    if legal.size == 0:
        raise ValueError("the action mask has no legal action")
    z = np.asarray(logits, dtype=np.float64).reshape(-1)[legal]
    if greedy or temperature <= 0:
        return int(legal[int(np.argmax(z))])
    if rng is None:
        raise ValueError("sampling an action needs a numpy Generator (rng)")
    z = (z - z.max()) / temperature
    p = np.exp(z)
    p /= p.sum()
    return int(rng.choice(legal, p=p))
