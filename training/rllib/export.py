"""``hearts export --backend rllib CHECKPOINT --name NAME``: an RLlib checkpoint's "main" module to
``models/<name>``, a model like every other (numpy play, model card, safe loading).

It reads only this project's sidecar of the checkpoint (``hearts_rllib.json`` and the plain arrays
of ``hearts_main.npz``, through ``hearts_env.nets.weights.read_weights``: never RLlib's pickles),
checks it, rebuilds the project's torch network with those weights and writes the model with
``training.export.export_model`` (which loads it back and compares the numpy forward pass with the
torch one). Refused, with the reason: a directory without the sidecar, a checkpoint of another
observation encoding version or size, a checkpoint of other rules than ``--rules`` (every differing
option named), weights that do not match their hash or the network.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from hearts_env.core import HeartsError
from hearts_env.core.rules import Rules
from hearts_env.nets import (
    ModelError,
    current_encoding,
    parameter_shapes,
    rules_difference,
    sha256_file,
    validate_config,
)
from hearts_env.nets.weights import read_weights

from ..export import check_model_name, export_model, preset_name
from ..network import build_network

#: The sidecar files a checkpoint directory of this backend holds (next to RLlib's own files).
SIDECAR = "hearts_rllib.json"
SIDECAR_WEIGHTS = "hearts_main.npz"
SIDECAR_FORMAT = "hearts-env-rllib-checkpoint/1"
MAX_SIDECAR_BYTES = 1 << 20


def write_sidecar(
    path: Path, weights: Mapping[str, np.ndarray], rules: Rules, network: Mapping[str, Any], info: Mapping[str, Any]
) -> None:
    """Write ``hearts_main.npz`` and then ``hearts_rllib.json`` (each atomically) into the checkpoint ``path``:
    the "main" network's parameters (``network``: its config), the rules and the encoding; ``info`` joins the card."""
    version, obs_dim = current_encoding()
    fd, tmp = tempfile.mkstemp(prefix=".hearts_main.", suffix=".npz", dir=path)
    with os.fdopen(fd, "wb") as fh:
        np.savez(fh, **weights)
    os.replace(tmp, path / SIDECAR_WEIGHTS)
    card = {
        "format": SIDECAR_FORMAT,
        "module": "main",
        "rules": rules.to_dict(),
        "preset": preset_name(rules),
        "encoding_version": version,
        "obs_dim": obs_dim,
        "network": validate_config(network),
        "weights_file": SIDECAR_WEIGHTS,
        "weights_sha256": sha256_file(path / SIDECAR_WEIGHTS),
        **info,
    }
    tmp_card = path / f".{SIDECAR}.tmp"
    tmp_card.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp_card, path / SIDECAR)


class CheckpointError(ValueError):
    """An RLlib checkpoint that cannot be exported: the message says why, in one line."""


def read_checkpoint(
    path: str | Path, rules: Rules | str | Path | None = None
) -> tuple[dict[str, Any], torch.nn.Module]:
    """The sidecar card and the "main" network of the checkpoint at ``path``, checked against this
    hearts_env's encoding and (when given) ``rules``; ``CheckpointError`` says why not."""
    path = Path(path)
    card_path = path / SIDECAR
    if not path.is_dir():
        raise CheckpointError(f"{path}: no such checkpoint directory")
    if not card_path.is_file():
        raise CheckpointError(
            f"{path}: not a hearts-env RLlib checkpoint (no {SIDECAR}; hearts train --backend rllib and "
            "hearts_env.training.rllib.save_checkpoint write it)"
        )
    raw = card_path.read_bytes()[: MAX_SIDECAR_BYTES + 1]
    if len(raw) > MAX_SIDECAR_BYTES:
        raise CheckpointError(f"{card_path}: larger than {MAX_SIDECAR_BYTES} bytes")
    try:
        card = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise CheckpointError(f"{card_path}: not JSON: {err}") from None
    if not isinstance(card, dict) or card.get("format") != SIDECAR_FORMAT:
        raise CheckpointError(f"{card_path}: unknown format {card.get('format') if isinstance(card, dict) else card!r}")
    version, obs_dim = current_encoding()
    if card.get("encoding_version") != version:
        raise CheckpointError(
            f"{path}: trained on observation encoding version {card.get('encoding_version')!r}, this hearts_env "
            f"encodes version {version}; retrain it"
        )
    if card.get("obs_dim") != obs_dim:
        raise CheckpointError(
            f"{path}: trained on observations of {card.get('obs_dim')!r} entries, this hearts_env has {obs_dim}"
        )
    try:
        trained = Rules.from_dict(card["rules"])
        config = validate_config(card["network"])
    except (HeartsError, KeyError, TypeError, ValueError) as err:
        raise CheckpointError(f"{card_path}: invalid rules or network: {err}") from None
    if rules is not None:
        diffs = rules_difference(trained, Rules.load(rules))
        if diffs:
            raise CheckpointError(f"{path}: trained for other rules than {rules}: " + "; ".join(diffs))
    weights_name = card.get("weights_file")
    if not isinstance(weights_name, str) or Path(weights_name).name != weights_name:
        raise CheckpointError(f"{card_path}: weights_file must be a plain file name, got {weights_name!r}")
    weights = path / weights_name
    if not weights.is_file():
        raise CheckpointError(f"{path}: the weights file {weights_name} is missing")
    if sha256_file(weights) != card.get("weights_sha256"):
        raise CheckpointError(f"{path}: {weights_name} does not match the sha256 in {SIDECAR} (modified or corrupted)")
    try:
        arrays = read_weights(path, weights, parameter_shapes(config))
    except ModelError as err:
        raise CheckpointError(str(err)) from None
    network = build_network(config)
    network.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in arrays.items()})
    return card, network


def export_rllib_checkpoint(
    checkpoint: str | Path,
    name: str,
    *,
    models_dir: str | Path = "models",
    rules: Rules | str | Path | None = None,
    overwrite: bool = False,
) -> Path:
    """Export the "main" module of an RLlib checkpoint of this backend to ``models_dir/name``."""
    card, network = read_checkpoint(checkpoint, rules)
    training = {
        "backend": "rllib",
        "decisions": card.get("decisions"),
        "iterations": card.get("iteration"),
        "wall_time_s": card.get("wall_time_s"),
        "args": card.get("args", {}),
        "run": Path(checkpoint).resolve().parent.name,
    }
    return export_model(
        network,
        Path(models_dir) / name,
        name=name,
        rules=Rules.from_dict(card["rules"]),
        training_info=training,
        overwrite=overwrite,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``hearts export --backend rllib``; a problem is one line and exit status 2."""
    parser = argparse.ArgumentParser(prog="hearts export --backend rllib", description=export_rllib_checkpoint.__doc__)
    parser.add_argument("checkpoint", help="an RLlib checkpoint directory, e.g. runs/<run>/checkpoint")
    parser.add_argument("--name", required=True, help="model name: the model goes to <models-dir>/<name>")
    parser.add_argument("--models-dir", default="models")
    parser.add_argument(
        "--rules", help="the rules the model is for (default: the checkpoint's); other rules are refused"
    )
    parser.add_argument("--overwrite", action="store_true", help="replace an existing model of that name")
    args = parser.parse_args(argv)
    target = Path(args.models_dir) / args.name
    try:
        check_model_name(args.name)
        if target.exists() and not args.overwrite:
            raise CheckpointError(f"{target} exists; pass --overwrite to replace it")
        path = export_rllib_checkpoint(
            args.checkpoint, args.name, models_dir=args.models_dir, rules=args.rules, overwrite=args.overwrite
        )
    except (CheckpointError, HeartsError, ValueError, OSError) as err:
        print(f"hearts export: {err}", file=sys.stderr)
        return 2
    print(f"exported {path}")
    return 0


__all__ = [
    "SIDECAR",
    "SIDECAR_WEIGHTS",
    "CheckpointError",
    "export_rllib_checkpoint",
    "main",
    "read_checkpoint",
    "write_sidecar",
]
