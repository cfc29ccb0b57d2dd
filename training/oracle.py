"""The oracle critic: a value network that sees the whole deal while training.

Perfect-information training, imperfect-information execution (PerfectDou's and Suphx's oracle
guiding): the policy reads only its seat's observation, as the exported bot does; the critic that
scores its decisions also reads the hidden state of the deal from the batched engine: every seat's
hand, the cards each seat passed and has won, the points each has taken, and the kitty, with the
seats rotated so the acting seat comes first. A moon attempt in progress is then visible to the
critic, so the advantage of blocking one stops being noise. The critic exists in training alone:
checkpoints carry it, exports never do.

The engine's state is read as bit sets (``(B, F)`` int64, ``oracle_state``), a compact form for the
rollout buffers, and expanded to the critic's inputs (``oracle_features``) per minibatch.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor, nn

from hearts_env.core.cards import NUM_CARDS

from .engines import engine_parts

#: the state fields read per seat as 52-card bit sets, in the order of ``oracle_state``'s columns
CARD_FIELDS = ("hands", "passed", "won")

#: points are scaled by this, so one deal's penalty total is about one
POINT_SCALE = 26.0


def oracle_width(num_players: int) -> int:
    """Columns of ``oracle_state``: the card bit sets of every seat, the kitty, and every seat's points."""
    return len(CARD_FIELDS) * num_players + 1 + num_players


def oracle_feature_size(num_players: int) -> int:
    """Entries of ``oracle_features`` per row."""
    return (len(CARD_FIELDS) * num_players + 1) * NUM_CARDS + num_players


def oracle_state(engine: Any, seat: Tensor) -> Tensor:
    """``(B, oracle_width(n))`` int64: the hidden deal of every row as seen from ``seat`` (``(B,)``, the seat
    to move): per field of ``CARD_FIELDS`` the bit sets of the seats ``seat, seat+1, ...``, then the kitty's
    bit set, then the same seats' deal points so far."""
    n = int(engine.num_players)
    order = (seat.unsqueeze(1) + torch.arange(n, device=seat.device)) % n
    columns: list[Tensor] = []
    parts = engine_parts(engine)
    if not parts:
        raise TypeError(f"the oracle critic reads the batched engine's state; {type(engine).__name__} has none")
    states = [part.state for part, _, _ in parts]
    for name in CARD_FIELDS:
        columns.append(torch.cat([getattr(s, name) for s in states]).gather(1, order))
    columns.append(torch.cat([s.kitty_mask for s in states]).unsqueeze(1))
    columns.append(torch.cat([s.points for s in states]).gather(1, order))
    return torch.cat(columns, dim=1)


def oracle_features(packed: Tensor, num_players: int) -> Tensor:
    """``(B, oracle_feature_size(n))`` float32 from ``oracle_state``'s rows: each bit set as 52 zeros and
    ones, then the points divided by ``POINT_SCALE``."""
    cards = len(CARD_FIELDS) * num_players + 1
    bits = torch.arange(NUM_CARDS, device=packed.device)
    card_bits = ((packed[:, :cards].unsqueeze(-1) >> bits) & 1).flatten(1).float()
    return torch.cat([card_bits, packed[:, cards:].float() / POINT_SCALE], dim=1)


class OracleCritic(nn.Module):
    """An MLP value ``(B,)`` from the seat's observation inputs (what the policy reads) and the hidden deal
    (``oracle_state``'s rows): the critic of the oracle-critic recipe, never exported."""

    def __init__(self, obs_inputs: int, num_players: int, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        self.num_players = num_players
        widths = [obs_inputs + oracle_feature_size(num_players), *hidden]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(widths))
        self.value = nn.Linear(widths[-1], 1)
        for layer in self.layers:
            nn.init.orthogonal_(layer.weight, math.sqrt(2))
            nn.init.zeros_(layer.bias)
        nn.init.orthogonal_(self.value.weight, 1.0)
        nn.init.zeros_(self.value.bias)

    def forward(self, obs_inputs: Tensor, packed: Tensor) -> Tensor:
        h = torch.cat([obs_inputs, oracle_features(packed, self.num_players)], dim=1)
        for layer in self.layers:
            h = torch.relu(layer(h))
        return self.value(h).squeeze(-1)


def magnet_kl(logp: Tensor, magnet_logp: Tensor, mask: Tensor) -> Tensor:
    """``(B,)`` KL(policy || magnet) over the legal actions, from both masked log-probabilities: the
    magnetic-mirror-descent term that keeps the policy near a recent snapshot of itself."""
    p = logp.exp()
    return torch.where(mask, p * (logp - magnet_logp), torch.zeros_like(p)).sum(-1)


__all__ = [
    "CARD_FIELDS",
    "POINT_SCALE",
    "OracleCritic",
    "magnet_kl",
    "oracle_feature_size",
    "oracle_features",
    "oracle_state",
    "oracle_width",
]
