"""Training checkpoints: written atomically, read without unpickling code, complete enough to resume.

A checkpoint holds the model and optimizer state dicts, every random state that drives training
(Python ``random``, numpy's global generator, torch CPU and CUDA, and any named numpy/torch
generators the trainer owns), the run's arguments and the update counter, plus free-form
``extra`` data. ``save_checkpoint`` writes a temporary file in the target's directory, fsyncs it
and renames it over the target (``os.replace``), so a crash mid-write leaves the previous
checkpoint intact. ``load_checkpoint`` reads with ``torch.load(weights_only=True)``, which only
rebuilds tensors and plain containers: a checkpoint file cannot execute code.

Everything stored must be plain data (dicts, lists, tuples, str, int, float, bool, None, tensors);
numpy arrays in random states are converted to tagged lists and back.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

CHECKPOINT_FORMAT = "hearts_env.checkpoint/1"

Generators = Mapping[str, np.random.Generator | torch.Generator]


# ---------------------------------------------------------------------------------------------
# Plain data
# ---------------------------------------------------------------------------------------------


def _plain(value: Any, where: str = "value") -> Any:
    """``value`` as data ``torch.load(weights_only=True)`` reads back (numpy arrays tagged)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain(dataclasses.asdict(value), where)
    if isinstance(value, Mapping):
        return {str(k): _plain(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, tuple):
        return tuple(_plain(v, f"{where}[{i}]") for i, v in enumerate(value))
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    if value is None or isinstance(value, bool | int | float | str | torch.Tensor):
        return value
    raise TypeError(f"{where}: cannot store {type(value).__name__} in a checkpoint (plain data and tensors only)")


def _unplain(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"__ndarray__", "dtype"}:
            return np.asarray(value["__ndarray__"], dtype=value["dtype"])
        return {k: _unplain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unplain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_unplain(v) for v in value)
    return value


# ---------------------------------------------------------------------------------------------
# Random states
# ---------------------------------------------------------------------------------------------


def capture_rng_states(generators: Generators | None = None) -> dict[str, Any]:
    """Every random state that drives a run, as plain data."""
    states: dict[str, Any] = {
        "python": random.getstate(),
        "numpy": _plain(np.random.get_state(legacy=False)),
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        "generators": {},
    }
    for name, gen in (generators or {}).items():
        if isinstance(gen, torch.Generator):
            states["generators"][name] = {"torch": gen.get_state()}
        elif isinstance(gen, np.random.Generator):
            states["generators"][name] = {"numpy": _plain(gen.bit_generator.state)}
        else:
            raise TypeError(
                f"generator {name!r}: expected a numpy Generator or torch.Generator, got {type(gen).__name__}"
            )
    return states


def restore_rng_states(states: Mapping[str, Any], generators: Generators | None = None) -> None:
    """Put back what ``capture_rng_states`` captured (``generators`` are restored in place)."""
    version, internal, gauss = states["python"]
    random.setstate((version, tuple(internal), gauss))
    np.random.set_state(_unplain(states["numpy"]))
    torch.set_rng_state(states["torch"])
    cuda = states.get("cuda") or []
    if cuda and torch.cuda.is_available():
        for i, state in enumerate(cuda[: torch.cuda.device_count()]):
            torch.cuda.set_rng_state(state, i)
    saved = states.get("generators", {})
    for name, gen in (generators or {}).items():
        if name not in saved:
            raise KeyError(f"the checkpoint has no state for generator {name!r} (it has {sorted(saved)})")
        if isinstance(gen, torch.Generator):
            gen.set_state(saved[name]["torch"])
        else:
            gen.bit_generator.state = _unplain(saved[name]["numpy"])


# ---------------------------------------------------------------------------------------------
# Save and load
# ---------------------------------------------------------------------------------------------


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform can open a directory
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_torch_save(obj: Any, path: str | Path) -> Path:
    """``torch.save`` to a temporary file beside ``path``, fsync, then rename over ``path``.
    On any failure the temporary file is removed and ``path`` keeps its old content."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)
    return path


def save_checkpoint(
    path: str | Path,
    *,
    model: nn.Module,
    optimizer: torch.optim.Optimizer | None,
    args: Mapping[str, Any] | Any,
    update: int,
    generators: Generators | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Atomically write everything needed to resume at ``update`` (``args``: a dict or dataclass)."""
    data = {
        "format": CHECKPOINT_FORMAT,
        "update": int(update),
        "args": _plain(args, "args"),
        "network": _plain(getattr(model, "config", None), "network"),
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict() if optimizer is not None else None,
        "rng": capture_rng_states(generators),
        "extra": _plain(extra or {}, "extra"),
    }
    return atomic_torch_save(data, path)


def _unreadable(err: BaseException) -> str:
    """Why ``torch.load(weights_only=True)`` refused a file, in words (not torch's advice)."""
    text = str(err)
    if "Unsupported global" in text:
        found = re.search(r"GLOBAL (\S+)", text)
        what = f" ({found.group(1)})" if found else ""
        return f"it holds Python objects{what}, not only tensors and plain data; refused: loading them could run code"
    if isinstance(err, EOFError):
        return "the file is empty or truncated"
    return "unreadable (truncated, corrupt, or not a training checkpoint at all)"


def load_checkpoint(
    path: str | Path,
    *,
    model: nn.Module | None = None,
    optimizer: torch.optim.Optimizer | None = None,
    generators: Generators | None = None,
    restore_rng: bool = True,
    map_location: str | torch.device = "cpu",
) -> dict[str, Any]:
    """Read a checkpoint (``weights_only=True``), load it into ``model``/``optimizer``, restore the
    random states unless ``restore_rng`` is false, and return the whole record (``update``,
    ``args``, ``network``, ``extra``...)."""
    path = Path(path)
    if path.is_dir():
        inside = path / "checkpoint.pt"
        hint = f"did you mean {inside}?" if inside.is_file() else "a checkpoint is a file: runs/<run>/checkpoint.pt"
        raise IsADirectoryError(21, f"{path} is a directory; {hint}")
    try:
        data = torch.load(path, map_location=map_location, weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as err:  # torch's message advises weights_only=False: never pass that on
        raise ValueError(f"{path}: not a valid checkpoint: {_unreadable(err)}") from None
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{path}: not a valid checkpoint: unknown format {got!r}, expected {CHECKPOINT_FORMAT!r}")
    if model is not None:
        config = getattr(model, "config", None)
        if config is not None and data.get("network") is not None and _plain(config) != data["network"]:
            raise ValueError(
                f"checkpoint {path}: its network config {data['network']} differs from the model's {config}"
            )
        model.load_state_dict(data["model"])
    if optimizer is not None:
        if data.get("optimizer") is None:
            raise ValueError(f"checkpoint {path} holds no optimizer state")
        optimizer.load_state_dict(data["optimizer"])
    if restore_rng:
        restore_rng_states(data["rng"], generators)
    data["args"] = _unplain(data["args"])
    data["extra"] = _unplain(data["extra"])
    return data


__all__ = [
    "CHECKPOINT_FORMAT",
    "atomic_torch_save",
    "capture_rng_states",
    "load_checkpoint",
    "restore_rng_states",
    "save_checkpoint",
]
