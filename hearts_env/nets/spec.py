"""The network spec of an exported model: its file names, its config (``kind``, sizes) checked,
and the parameter shapes both the numpy forward pass and ``training.network`` build from."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..core.cards import NUM_CARDS
from ..core.errors import HeartsError

MODEL_FORMAT = "hearts_env.model/1"
WEIGHTS_FILE = "weights.npz"
CARD_FILE = "model.json"
README_FILE = "README.md"
NETWORK_KINDS = ("mlp", "cardset")
ACTIVATIONS = ("relu", "tanh")
#: What a masked (illegal) logit becomes: far below any real logit, yet finite in float32 so
#: ``softmax`` and ``logit - logsumexp`` never produce NaN.
MASK_VALUE = -1e9


class ModelError(HeartsError, ValueError):
    """An exported model that cannot be played here; ``reason`` says what mismatched."""

    def __init__(self, path: str | Path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"model {self.path}: {reason}")


# ---------------------------------------------------------------------------------------------
# Network configs and parameter shapes: the single definition both torch and numpy follow
# ---------------------------------------------------------------------------------------------


#: Bounds on every number of a network config, checked before anything is allocated, so a
#: hostile ``model.json`` cannot make the loader allocate gigabytes (the shipped networks are far
#: inside them: obs_dim 2,577, widths of a few hundred, under a million parameters).
MAX_OBS_DIM = 1 << 16
MAX_NUM_ACTIONS = 1 << 12
MAX_WIDTH = 1 << 14
MAX_HIDDEN_LAYERS = 64
MAX_CARD_LAYERS = 64
MAX_PARAMETERS = 1 << 27  # 512 MiB of float32


def _bounded_int(key: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not low <= value <= high:
        raise ValueError(f"network config {key!r} must be an integer in {low}..{high}, got {_short(value)}")
    return int(value)


def _short(value: Any) -> str:
    """``repr(value)``, cut short (a hostile config may hold a huge list)."""
    if isinstance(value, int) and value.bit_length() > 200:  # repr of a huge int is slow, or refused
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _int_list(config: Mapping[str, Any], key: str, *, min_len: int, max_len: int, high: int) -> list[int]:
    value = config.get(key)
    if not isinstance(value, list | tuple) or not min_len <= len(value) <= max_len:
        raise ValueError(
            f"network config {key!r} must be a list of {min_len}..{max_len} positive integers, got {_short(value)}"
        )
    return [_bounded_int(key, v, 1, high) for v in value]


def _positive_int(config: Mapping[str, Any], key: str, high: int) -> int:
    return _bounded_int(key, config.get(key), 1, high)


def validate_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """A checked, JSON-ready copy of a network config; ``ValueError`` names the bad entry.

    ``mlp``: ``obs_dim``, ``num_actions``, ``hidden`` (layer widths), ``activation``.
    ``cardset``: the same plus ``card_planes`` (start offsets of the 52-entry card planes in the
    observation), ``global_ranges`` (``[start, stop)`` ranges of the other entries), ``card_dim``
    and ``card_layers`` (the per-card embedding width and its number of set layers).
    Every number is bounded (``MAX_OBS_DIM``, ``MAX_WIDTH``, ... and ``MAX_PARAMETERS`` in all)
    before anything is allocated.
    """
    if not isinstance(config, Mapping):
        raise ValueError(f"a network config is a mapping, got {type(config).__name__}")
    kind = config.get("kind")
    if kind not in NETWORK_KINDS:
        raise ValueError(f"network config 'kind' must be one of {', '.join(NETWORK_KINDS)}, got {_short(kind)}")
    out: dict[str, Any] = {"kind": kind}
    out["obs_dim"] = _positive_int(config, "obs_dim", MAX_OBS_DIM)
    out["num_actions"] = _positive_int(config, "num_actions", MAX_NUM_ACTIONS)
    out["hidden"] = _int_list(config, "hidden", min_len=1, max_len=MAX_HIDDEN_LAYERS, high=MAX_WIDTH)
    activation = config.get("activation", "relu")
    if activation not in ACTIVATIONS:
        raise ValueError(
            f"network config 'activation' must be one of {', '.join(ACTIVATIONS)}, got {_short(activation)}"
        )
    out["activation"] = activation
    if kind == "cardset":
        obs_dim = out["obs_dim"]
        if out["num_actions"] < NUM_CARDS:
            raise ValueError(f"a cardset network needs num_actions >= {NUM_CARDS} (one logit per card)")
        out["card_dim"] = _positive_int(config, "card_dim", MAX_WIDTH)
        out["card_layers"] = _bounded_int("card_layers", config.get("card_layers"), 0, MAX_CARD_LAYERS)
        planes = config.get("card_planes")
        if not isinstance(planes, list | tuple) or not 1 <= len(planes) <= obs_dim // NUM_CARDS:
            raise ValueError(
                f"network config 'card_planes' must be a list of 1..{obs_dim // NUM_CARDS} offsets "
                f"(52-card planes inside obs_dim={obs_dim}), got {_short(planes)}"
            )
        out["card_planes"] = [_bounded_int("card_planes", p, 0, MAX_OBS_DIM) for p in planes]
        ranges = config.get("global_ranges")
        if not isinstance(ranges, list | tuple) or len(ranges) > obs_dim:
            raise ValueError(
                f"network config 'global_ranges' must be a list of at most {obs_dim} [start, stop] pairs, "
                f"got {_short(ranges)}"
            )
        out["global_ranges"] = []
        for r in ranges:
            if not isinstance(r, list | tuple) or len(r) != 2:
                raise ValueError(f"network config 'global_ranges' entries are [start, stop] pairs, got {_short(r)}")
            out["global_ranges"].append([_bounded_int("global_ranges", x, 0, MAX_OBS_DIM) for x in r])
        covered = np.zeros(obs_dim, np.int64)
        for p in out["card_planes"]:
            if not 0 <= p <= obs_dim - NUM_CARDS:
                raise ValueError(f"card plane offset {p} does not fit obs_dim={obs_dim}")
            covered[p : p + NUM_CARDS] += 1
        for start, stop in out["global_ranges"]:
            if not 0 <= start < stop <= obs_dim:
                raise ValueError(f"global range [{start}, {stop}) does not fit obs_dim={obs_dim}")
            covered[start:stop] += 1
        if covered.max(initial=0) > 1:
            raise ValueError("card planes and global ranges overlap")
    count = sum(math.prod(shape) for shape in _shapes(out).values())
    if count > MAX_PARAMETERS:
        raise ValueError(f"the network config describes {count} parameters, more than the {MAX_PARAMETERS} allowed")
    return out


def global_indices(config: Mapping[str, Any]) -> np.ndarray:
    """The observation entries a cardset network reads as global (non-card) features."""
    ranges = config["global_ranges"]
    if not ranges:
        return np.zeros(0, np.int64)
    return np.concatenate([np.arange(start, stop, dtype=np.int64) for start, stop in ranges])


def card_indices(config: Mapping[str, Any]) -> np.ndarray:
    """``(planes, 52)`` observation indices of a cardset network's card planes."""
    planes = np.asarray(config["card_planes"], np.int64)
    return planes[:, None] + np.arange(NUM_CARDS, dtype=np.int64)[None, :]


def parameter_shapes(config: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """Every parameter of the network ``config`` describes, by ``state_dict`` name, in order."""
    return _shapes(validate_config(config))


def _shapes(c: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """``parameter_shapes`` of a config ``validate_config`` has checked (no allocation)."""
    shapes: dict[str, tuple[int, ...]] = {}
    a = c["num_actions"]
    if c["kind"] == "mlp":
        width = c["obs_dim"]
        for i, h in enumerate(c["hidden"]):
            shapes[f"layers.{i}.weight"] = (h, width)
            shapes[f"layers.{i}.bias"] = (h,)
            width = h
        shapes["policy.weight"] = (a, width)
        shapes["policy.bias"] = (a,)
    else:
        d, planes = c["card_dim"], len(c["card_planes"])
        shapes["card_embed"] = (NUM_CARDS, d)
        shapes["card_in.weight"] = (d, planes)
        shapes["card_in.bias"] = (d,)
        for layer in range(c["card_layers"]):
            shapes[f"card_layers.{layer}.own.weight"] = (d, d)
            shapes[f"card_layers.{layer}.own.bias"] = (d,)
            shapes[f"card_layers.{layer}.pool.weight"] = (d, d)
        width = 2 * d + sum(stop - start for start, stop in c["global_ranges"])
        for i, h in enumerate(c["hidden"]):
            shapes[f"layers.{i}.weight"] = (h, width)
            shapes[f"layers.{i}.bias"] = (h,)
            width = h
        shapes["card_query.weight"] = (d, width)
        shapes["card_query.bias"] = (d,)
        shapes["special.weight"] = (a - NUM_CARDS, width)
        shapes["special.bias"] = (a - NUM_CARDS,)
    shapes["value.weight"] = (1, width)
    shapes["value.bias"] = (1,)
    return shapes


# ---------------------------------------------------------------------------------------------
# The numpy forward pass
# ---------------------------------------------------------------------------------------------


def params_problem(config: Mapping[str, Any], params: Mapping[str, np.ndarray]) -> str | None:
    """Why ``params`` do not fit ``config`` (missing, extra, misshapen, not float32, non-finite), or None."""
    shapes = parameter_shapes(config)
    missing = [k for k in shapes if k not in params]
    if missing:
        return f"weights lack arrays the network config needs: {', '.join(missing)}"
    extra = sorted(k for k in params if k not in shapes)
    if extra:
        return f"weights have arrays the network config does not use: {', '.join(extra)}"
    for k, shape in shapes.items():
        a = params[k]
        if tuple(a.shape) != shape:
            return f"array {k!r} has shape {tuple(a.shape)}, the network config needs {shape}"
        if a.dtype != np.float32:
            return f"array {k!r} has dtype {a.dtype}, expected float32"
        if not np.isfinite(a).all():
            return f"array {k!r} holds non-finite values"
    return None
