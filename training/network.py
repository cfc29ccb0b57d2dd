"""The policy/value networks (torch), described by plain config dicts so an export can record them.

Two kinds, both small enough to play fast in numpy (``hearts_env.policy`` runs the same forward
pass) and both with parameter names and shapes from ``hearts_env.policy.parameter_shapes``:

- ``mlp`` (the baseline): observation → ``hidden`` ReLU layers → 68 action logits and a value.
  Its first layer dominates its size (``obs_dim × hidden[0]``: about 2,600 × 128 ≈ 1.3 MB float32).
- ``cardset`` (the alternative): the observation's 46 card planes (hand, played by, won by,
  trick, passed, received, deck, card points...) are read as 52 cards with 46 features each; a
  per-card embedding (shared weights plus a learned identity vector per card) goes through
  permutation-equivariant set layers (each card sees the mean of all cards); the mean and max over
  cards plus the non-card features feed an MLP context ``h``; each card's logit is its embedding
  dotted with a query from ``h``, the special actions and the value come from ``h``. Weight
  sharing across cards makes it about 4× smaller than the MLP (84k parameters against 355k), but
  its 52 per-card activations cost about 2–3× the MLP's CPU time per training sample.

Masking: ``masked_logits`` sets illegal actions to ``MASK_VALUE`` (finite, so no NaN); the
masked log-probabilities, entropy (illegal actions contribute exactly 0) and sampling all derive
from it, so an illegal action has probability 0 and is never sampled.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from hearts_env.core.actions import NUM_ACTIONS
from hearts_env.core.cards import NUM_CARDS
from hearts_env.nets import current_encoding
from hearts_env.nets.spec import MASK_VALUE, card_indices, global_indices, parameter_shapes, validate_config
from hearts_env.obs import live_columns
from hearts_env.obs import spec as encoding

#: The observation segments a ``cardset`` network reads as card planes (one row of 52 per plane).
CARD_SEGMENTS = (
    "hand",
    "played_by",
    "won_by",
    "trick",
    "passed_to",
    "received_from",
    "forwarded",
    "deck",
    "card_points",
)


# ---------------------------------------------------------------------------------------------
# Configs
# ---------------------------------------------------------------------------------------------


def _current_obs_dim() -> int:
    return current_encoding()[1]


def mlp_config(
    obs_dim: int | None = None, *, hidden: Sequence[int] = (128, 128), activation: str = "relu"
) -> dict[str, Any]:
    """The baseline MLP's config; ``obs_dim`` defaults to the current encoding's size."""
    return validate_config(
        {
            "kind": "mlp",
            "obs_dim": _current_obs_dim() if obs_dim is None else obs_dim,
            "num_actions": NUM_ACTIONS,
            "hidden": list(hidden),
            "activation": activation,
        }
    )


def encoding_card_layout() -> tuple[list[int], list[list[int]]]:
    """``(card_planes, global_ranges)`` of the current encoding: the start of every 52-entry row of
    the ``CARD_SEGMENTS``, and the ``[start, stop)`` ranges of everything else."""
    planes: list[int] = []
    for seg in encoding.SEGMENTS:
        if seg.name in CARD_SEGMENTS:
            if seg.width != NUM_CARDS:
                raise ValueError(f"encoding segment {seg.name!r} has width {seg.width}, not {NUM_CARDS}")
            start = encoding.OFFSETS[seg.name]
            planes.extend(start + r * NUM_CARDS for r in range(seg.rows))
    return planes, complement_ranges(planes, int(encoding.OBSERVATION_SIZE))


def complement_ranges(card_planes: Sequence[int], obs_dim: int) -> list[list[int]]:
    """The ``[start, stop)`` ranges of ``0..obs_dim`` not covered by the 52-entry card planes."""
    covered = np.zeros(obs_dim, bool)
    for p in card_planes:
        covered[p : p + NUM_CARDS] = True
    ranges: list[list[int]] = []
    start = None
    for i in range(obs_dim + 1):
        free = i < obs_dim and not covered[i]
        if free and start is None:
            start = i
        elif not free and start is not None:
            ranges.append([start, i])
            start = None
    return ranges


def cardset_config(
    obs_dim: int | None = None,
    *,
    card_planes: Sequence[int] | None = None,
    global_ranges: Sequence[Sequence[int]] | None = None,
    card_dim: int = 32,
    card_layers: int = 2,
    hidden: Sequence[int] = (256,),
    activation: str = "relu",
) -> dict[str, Any]:
    """The card-set network's config. Without ``card_planes`` the layout is the current encoding's;
    with them (a synthetic layout), ``global_ranges`` defaults to every other entry."""
    if card_planes is None:
        planes, ranges = encoding_card_layout()
        obs_dim = _current_obs_dim() if obs_dim is None else obs_dim
    else:
        if obs_dim is None:
            raise ValueError("a synthetic card layout needs obs_dim")
        planes = list(card_planes)
        ranges = [list(r) for r in global_ranges] if global_ranges is not None else complement_ranges(planes, obs_dim)
    return validate_config(
        {
            "kind": "cardset",
            "obs_dim": obs_dim,
            "num_actions": NUM_ACTIONS,
            "hidden": list(hidden),
            "activation": activation,
            "card_dim": card_dim,
            "card_layers": card_layers,
            "card_planes": planes,
            "global_ranges": ranges,
        }
    )


# ---------------------------------------------------------------------------------------------
# Networks
# ---------------------------------------------------------------------------------------------


def _activation(name: str) -> nn.Module:
    return nn.ReLU() if name == "relu" else nn.Tanh()


def _init_linear(layer: nn.Linear, gain: float) -> None:
    nn.init.orthogonal_(layer.weight, gain)
    if layer.bias is not None:
        nn.init.zeros_(layer.bias)


class PolicyValueNetwork(nn.Module):
    """Base of the networks: ``forward(obs) -> (logits (B, 68), value (B,))``; ``config`` is the
    plain dict that rebuilds it (``build_network``) and that an export records."""

    config: dict[str, Any]

    def _check_parameters(self) -> None:
        got = {k: tuple(v.shape) for k, v in self.state_dict().items()}
        want = parameter_shapes(self.config)
        if got != want:
            raise AssertionError(f"network parameters {got} differ from the config's {want}")

    def forward(self, obs: Tensor) -> tuple[Tensor, Tensor]:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def input_size(self) -> int:
        """How many entries of each observation the network reads: what a training buffer holds."""
        columns = getattr(self, "input_columns", None)
        return int(self.config["obs_dim"]) if columns is None else int(columns.numel())

    def select_inputs(self, obs: Tensor, out: Tensor | None = None) -> Tensor:
        """The entries of full observations that the network reads (into ``out`` when given): what
        training stores. ``forward`` takes these or the full vectors."""
        columns = getattr(self, "input_columns", None)
        if columns is None:
            return obs if out is None else out.copy_(obs)
        return torch.index_select(obs, -1, columns, out=out) if out is not None else obs.index_select(-1, columns)


class MLPNetwork(PolicyValueNetwork):
    """The baseline: a shared ReLU trunk, a linear policy head and a linear value head.

    With ``input_columns`` (``hearts_env.env.encoding.live_columns(N)``), the first layer reads only
    those observation entries: for observations that are zero everywhere else (every observation of
    an N-player rule set), the outputs are the same up to float rounding and the skipped weights get
    no gradient either way, for about 40% less work at N = 4. The parameters keep every column.
    ``forward`` then takes full observations or just those entries (``select_inputs``)."""

    input_columns: Tensor | None

    def __init__(self, config: Mapping[str, Any], input_columns: Sequence[int] | np.ndarray | None = None):
        super().__init__()
        self.config = validate_config(config)
        if self.config["kind"] != "mlp":
            raise ValueError(f"MLPNetwork needs kind 'mlp', got {self.config['kind']!r}")
        widths = [self.config["obs_dim"], *self.config["hidden"]]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(widths))
        self.act = _activation(self.config["activation"])
        self.policy = nn.Linear(widths[-1], self.config["num_actions"])
        self.value = nn.Linear(widths[-1], 1)
        for layer in self.layers:
            _init_linear(layer, math.sqrt(2))
        _init_linear(self.policy, 0.01)
        _init_linear(self.value, 1.0)
        self._check_parameters()
        columns = None if input_columns is None else torch.tensor(np.array(input_columns), dtype=torch.int64)
        if columns is not None and not bool(((columns >= 0) & (columns < widths[0])).all()):
            raise ValueError(f"input_columns must lie in 0..{widths[0] - 1}")
        self.register_buffer("input_columns", columns, persistent=False)  # derived: not in the state_dict
        self._live_weight: tuple[tuple[int, int, int], Tensor] | None = None  # see _first_weight

    def _first_weight(self) -> Tensor:
        """The first layer's weight columns of ``input_columns``. Selected afresh when gradients flow;
        without them (rollouts, frozen snapshots) kept until the weight changes (an optimizer step or a
        load bumps its version) or moves, so inference does not copy it on every call."""
        weight = self.layers[0].weight
        assert self.input_columns is not None
        if torch.is_grad_enabled() and weight.requires_grad:
            return weight.index_select(1, self.input_columns)
        key = (weight._version, weight.data_ptr(), self.input_columns.data_ptr())
        if self._live_weight is None or self._live_weight[0] != key:
            self._live_weight = (key, weight.detach().index_select(1, self.input_columns))
        return self._live_weight[1]

    def forward(self, obs: Tensor) -> tuple[Tensor, Tensor]:
        first, *rest = self.layers
        if self.input_columns is None:
            h = self.act(first(obs))
        else:
            cols = self.input_columns
            if obs.shape[-1] != cols.numel():
                obs = obs.index_select(-1, cols)
            h = self.act(F.linear(obs, self._first_weight(), first.bias))
        for layer in rest:
            h = self.act(layer(h))
        return self.policy(h), self.value(h).squeeze(-1)


class _SetLayer(nn.Module):
    """A permutation-equivariant layer over the 52 cards: each card sees itself and the mean."""

    def __init__(self, dim: int, act: nn.Module):
        super().__init__()
        self.own = nn.Linear(dim, dim)
        self.pool = nn.Linear(dim, dim, bias=False)
        self.act = act
        _init_linear(self.own, math.sqrt(2))
        _init_linear(self.pool, 1.0)

    def forward(self, e: Tensor) -> Tensor:
        return e + self.act(self.own(e) + self.pool(e.mean(dim=1, keepdim=True)))


class CardSetNetwork(PolicyValueNetwork):
    """Cards as a set of 52 embeddings with shared weights (see the module docstring)."""

    card_index: Tensor
    global_index: Tensor

    def __init__(self, config: Mapping[str, Any]):
        super().__init__()
        self.config = validate_config(config)
        if self.config["kind"] != "cardset":
            raise ValueError(f"CardSetNetwork needs kind 'cardset', got {self.config['kind']!r}")
        c = self.config
        d, planes = c["card_dim"], len(c["card_planes"])
        # Derived from the config, so not in the state_dict: the config alone rebuilds them.
        self.register_buffer("card_index", torch.from_numpy(card_indices(c).T.reshape(-1).copy()), persistent=False)
        self.register_buffer("global_index", torch.from_numpy(global_indices(c)), persistent=False)
        self.act = _activation(c["activation"])
        self.card_embed = nn.Parameter(torch.randn(NUM_CARDS, d) * 0.1)
        self.card_in = nn.Linear(planes, d)
        self.card_layers = nn.ModuleList(_SetLayer(d, self.act) for _ in range(c["card_layers"]))
        widths = [2 * d + int(self.global_index.numel()), *c["hidden"]]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(widths))
        self.card_query = nn.Linear(widths[-1], d)
        self.special = nn.Linear(widths[-1], c["num_actions"] - NUM_CARDS)
        self.value = nn.Linear(widths[-1], 1)
        _init_linear(self.card_in, math.sqrt(2))
        for layer in self.layers:
            _init_linear(layer, math.sqrt(2))
        _init_linear(self.card_query, 0.01)
        _init_linear(self.special, 0.01)
        _init_linear(self.value, 1.0)
        self._check_parameters()

    def forward(self, obs: Tensor) -> tuple[Tensor, Tensor]:
        b = obs.shape[0]
        cards = obs[:, self.card_index].reshape(b, NUM_CARDS, -1)  # (B, 52, planes)
        e = self.act(self.card_in(cards) + self.card_embed)
        for layer in self.card_layers:
            e = layer(e)
        h = torch.cat([e.mean(dim=1), e.amax(dim=1), obs[:, self.global_index]], dim=1)
        for layer in self.layers:
            h = self.act(layer(h))
        card_logits = torch.bmm(e, self.card_query(h).unsqueeze(-1)).squeeze(-1)
        logits = torch.cat([card_logits, self.special(h)], dim=1)
        return logits, self.value(h).squeeze(-1)


def build_network(config: Mapping[str, Any], num_players: int | None = None) -> PolicyValueNetwork:
    """The network a config describes (``mlp_config``/``cardset_config`` or a model card's). With
    ``num_players``, an MLP of the current encoding reads only ``live_columns(num_players)`` (see
    ``MLPNetwork``); the card-set network reads its planes by index already."""
    kind = validate_config(config)["kind"]
    if kind != "mlp":
        return CardSetNetwork(config)
    columns = None
    if num_players is not None and config["obs_dim"] == _current_obs_dim():
        columns = live_columns(num_players)
        if len(columns) == config["obs_dim"]:  # eight players: every entry is live
            columns = None
    return MLPNetwork(config, columns)


def parameter_count(network: nn.Module) -> int:
    return sum(p.numel() for p in network.parameters())


def network_arrays(network: nn.Module) -> dict[str, np.ndarray]:
    """The network's parameters as float32 numpy arrays, by ``state_dict`` name (for export).

    An MLP that reads only ``input_columns`` ignores the other columns of its first layer (they can
    hold anything, e.g. the never-trained weights of a model it started from); they are exported as
    zeros, so the numpy model computes exactly the torch network's function on every input."""
    arrays = {k: v.detach().to("cpu", torch.float32).numpy().copy() for k, v in network.state_dict().items()}
    columns = getattr(network, "input_columns", None)
    if isinstance(network, MLPNetwork) and columns is not None:
        first = arrays["layers.0.weight"]
        live = np.zeros(first.shape[1], dtype=bool)
        live[columns.cpu().numpy()] = True
        first[:, ~live] = 0.0
    return arrays


# ---------------------------------------------------------------------------------------------
# Masked distributions
# ---------------------------------------------------------------------------------------------


def mask_value(dtype: torch.dtype) -> float:
    """``MASK_VALUE``, or the most negative safe value where the dtype (float16) cannot hold it."""
    return max(MASK_VALUE, torch.finfo(dtype).min / 2)


def masked_logits(logits: Tensor, mask: Tensor) -> Tensor:
    """``logits`` with illegal actions (``mask`` false/0) replaced by a large finite negative."""
    return logits.masked_fill(~mask.bool(), mask_value(logits.dtype))


def masked_log_probs(logits: Tensor, mask: Tensor) -> Tensor:
    """Log-probabilities of the masked softmax (illegal actions: about ``MASK_VALUE``)."""
    return torch.log_softmax(masked_logits(logits, mask), dim=-1)


def masked_entropy(logits: Tensor, mask: Tensor) -> Tensor:
    """The entropy over legal actions only (illegal ones contribute exactly 0; an empty mask: 0)."""
    logp = masked_log_probs(logits, mask)
    legal = mask.bool()
    return -torch.where(legal, logp.exp() * logp, torch.zeros_like(logp)).sum(dim=-1)


def sample_actions(logits: Tensor, mask: Tensor, generator: torch.Generator | None = None) -> Tensor:
    """One action per row from the masked softmax (Gumbel-max: exact, and one kernel on CUDA).
    An illegal action is never chosen while its row has a legal one."""
    z = masked_logits(logits.float(), mask)
    u = torch.rand(z.shape, generator=generator, device=z.device, dtype=z.dtype)
    u = u.clamp_(torch.finfo(z.dtype).tiny, 1.0 - torch.finfo(z.dtype).eps)
    return torch.argmax(z - torch.log(-torch.log(u)), dim=-1)


def greedy_actions(logits: Tensor, mask: Tensor) -> Tensor:
    return torch.argmax(masked_logits(logits, mask), dim=-1)


def policy_terms(
    network: nn.Module, obs: Tensor, mask: Tensor, actions: Tensor
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """``evaluate_actions``' terms and the masked log-probabilities of every action they come from, from one
    forward pass (a term on the whole distribution, such as a KL, needs no second one)."""
    logits, value = network(obs)
    logp = masked_log_probs(logits, mask)
    log_prob = logp.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
    return log_prob, masked_entropy(logits, mask), value, logp


def evaluate_actions(network: nn.Module, obs: Tensor, mask: Tensor, actions: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """What PPO's loss needs: ``(log_prob of actions, masked entropy, value)`` per row."""
    return policy_terms(network, obs, mask, actions)[:3]


__all__ = [
    "CARD_SEGMENTS",
    "CardSetNetwork",
    "MLPNetwork",
    "PolicyValueNetwork",
    "build_network",
    "cardset_config",
    "complement_ranges",
    "encoding_card_layout",
    "evaluate_actions",
    "greedy_actions",
    "mask_value",
    "masked_entropy",
    "masked_log_probs",
    "masked_logits",
    "mlp_config",
    "network_arrays",
    "parameter_count",
    "policy_terms",
    "sample_actions",
]
