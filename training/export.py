"""Export a trained network as a playable model directory: ``weights.npz`` + ``model.json`` + README.

The directory format is ``hearts_env.policy``'s (read its docstring); playing it needs numpy only,
and loading it never runs code (plain arrays, ``allow_pickle=False``). The export is written to a
temporary directory beside the target and renamed into place, then loaded back and its numpy
forward pass compared with the torch network's, so a model directory that exists is complete and
plays exactly like the network it came from.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

import hearts_env
from hearts_env.core import HeartsError
from hearts_env.core.presets import PRESETS
from hearts_env.core.rules import Rules
from hearts_env.nets import (
    CARD_FILE,
    MODEL_FORMAT,
    README_FILE,
    WEIGHTS_FILE,
    NumpyPolicy,
    current_encoding,
    effective_rules,
    load_policy,
    sha256_file,
    user_models_dir,
    validate_config,
)

from .checkpoint import load_checkpoint
from .network import build_network, network_arrays, parameter_count

_REPO_ROOT = Path(__file__).resolve().parents[1]


def git_commit(root: str | Path = _REPO_ROOT) -> tuple[str | None, bool | None]:
    """``(commit, dirty)`` of the checkout at ``root``; ``(None, None)`` without git or a repository."""
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None, None
    try:  # read-only: --no-optional-locks keeps git status from rewriting the index
        status = subprocess.run(
            ["git", "--no-optional-locks", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return head or None, None
    return head or None, bool(status.strip())


def preset_name(rules: Rules) -> str | None:
    """The preset these rules are (up to spelling), or ``None`` for a custom rule set."""
    mine = effective_rules(rules)
    for name in PRESETS:
        if effective_rules(Rules.preset(name)) == mine:
            return name
    return None


def _json_ready(value: Any) -> Any:
    """Plain JSON data from numpy scalars/arrays, tuples, paths and nested mappings."""
    if isinstance(value, Mapping):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return _json_ready(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"cannot record {type(value).__name__} {value!r} in model.json")


def _readme(card: Mapping[str, Any]) -> str:
    net = card["network"]
    shape = f"hidden {net['hidden']}"
    if net["kind"] == "cardset":
        shape = (
            f"{len(net['card_planes'])} card planes, card_dim {net['card_dim']}, {net['card_layers']} set layers, "
            + shape
        )
    rules_label = ", ".join(p or "custom (see model.json)" for p in card["presets"])
    training = card.get("training") or {}
    lines = [
        f"# {card['name']}",
        "",
        "A Hearts policy exported by `training/export.py`. Play it with numpy only:",
        "",
        "```python",
        "from hearts_env.bots import make_bot",
        "",
        f'bot = make_bot("models/{card["name"]}", rules="{card["presets"][0] or "<rules>"}")',
        "```",
        "",
        "| | |",
        "|---|---|",
        f"| rules | {rules_label} |",
        f"| observation encoding | version {card['encoding_version']}, {card['obs_dim']} entries |",
        f"| network | `{net['kind']}`: {shape}, {net['activation']} |",
        f"| parameters | {card['parameters']:,} ({card['weights_bytes']:,} bytes of weights) |",
        f"| weights sha256 | `{card['weights_sha256']}` |",
        f"| trained at commit | `{card['git_commit']}`{' (with uncommitted changes)' if card['git_dirty'] else ''} |",
    ]
    for key in ("decisions", "updates", "wall_time_s", "device", "seed", "config"):
        if key in training:
            lines.append(f"| training {key.replace('_', ' ')} | {training[key]} |")
    for key in ("imitation_samples", "imitation_teacher", "imitation_accuracy", "imitation_wall_time_s"):
        if key in training:
            lines.append(f"| {key.replace('_', ' ')} | {training[key]} |")
    lines += ["", "## Evaluation", ""]
    evaluation = card.get("evaluation")
    tables = {k: v for k, v in evaluation.items() if isinstance(v, Mapping) and "bots" in v} if evaluation else {}
    if tables:
        lines += [
            "| table | bot | seats | points per deal | 95% interval | duplicate deals |",
            "|---|---|---|---|---|---|",
        ]
        for name, table in tables.items():
            for bot in table["bots"]:
                lines.append(
                    f"| {name.replace('_', ' ')} | {bot['label']} | {bot['seats']} | {bot['mean']:.2f} "
                    f"| [{bot['ci_low']:.2f}, {bot['ci_high']:.2f}] | {table.get('duplicate_sets', '')} |"
                )
        lines.append("")
    if evaluation:
        lines += ["```json", json.dumps(evaluation, indent=2), "```"]
    else:
        lines.append("Not evaluated at export.")
    lines += ["", "Loading refuses this model for another encoding version, observation size or rule set."]
    return "\n".join(lines) + "\n"


def check_model_name(name: str) -> None:
    """A model name is a plain directory name (``my-model``): ``ValueError`` otherwise."""
    if not name or Path(name).name != name or name.startswith("."):
        raise ValueError(f"a model name is a plain directory name, such as my-model; got {name!r}")


def export_model(
    network: nn.Module,
    path: str | Path,
    *,
    name: str,
    rules: Rules | str | Path | Sequence[Rules],
    encoding_version: int | None = None,
    obs_dim: int | None = None,
    training_info: Mapping[str, Any] | None = None,
    evaluation: Mapping[str, Any] | Sequence[Any] | None = None,
    overwrite: bool = False,
) -> Path:
    """Write the model directory ``path`` (conventionally ``models/<name>``) and return it.

    ``rules``: the rule set it was trained for (a ``Rules``, preset name or rule file), or a list
    of rule sets for a model trained across several. ``encoding_version``/``obs_dim`` default to
    the current encoding's. ``training_info`` (decisions, wall time, seed, config...) and
    ``evaluation`` (results with intervals) go into the card as given (JSON data)."""
    path = Path(path)
    if getattr(network, "config", None) is None:
        raise TypeError("the network has no .config; build it with training.network.build_network")
    config = validate_config(network.config)  # type: ignore[arg-type]
    if encoding_version is None or obs_dim is None:
        current_version, current_size = current_encoding()
        encoding_version = current_version if encoding_version is None else encoding_version
        obs_dim = current_size if obs_dim is None else obs_dim
    if config["obs_dim"] != obs_dim:
        raise ValueError(f"the network reads obs_dim={config['obs_dim']}, but obs_dim={obs_dim} was given")
    check_model_name(name)
    rule_sets = (
        [Rules.load(r) for r in rules] if isinstance(rules, list | tuple) else [Rules.load(rules)]  # type: ignore[arg-type]
    )
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")

    commit, dirty = git_commit()
    arrays = network_arrays(network)
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".export", dir=path.parent))
    os.chmod(staging, 0o755)  # mkdtemp makes it private; a model directory is meant to be shared
    try:
        weights = staging / WEIGHTS_FILE
        with open(weights, "wb") as f:
            np.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        card = {
            "format": MODEL_FORMAT,
            "name": name,
            "created": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "rules": [r.to_dict() for r in rule_sets] if len(rule_sets) > 1 else rule_sets[0].to_dict(),
            "presets": [preset_name(r) for r in rule_sets],
            "encoding_version": int(encoding_version),
            "obs_dim": int(obs_dim),
            "num_actions": config["num_actions"],
            "network": config,
            "parameters": parameter_count(network),
            "weights_file": WEIGHTS_FILE,
            "weights_bytes": weights.stat().st_size,
            "weights_sha256": sha256_file(weights),
            "training": _json_ready(training_info or {}),
            "evaluation": _json_ready(evaluation if evaluation is not None else {}),
            "git_commit": commit,
            "git_dirty": dirty,
            "hearts_env_version": hearts_env.__version__,
            "torch_version": torch.__version__,
        }
        (staging / CARD_FILE).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
        (staging / README_FILE).write_text(_readme(card), encoding="utf-8")
        _check_export(network, staging, rule_sets[0], int(encoding_version), int(obs_dim))
        if path.exists():  # overwrite: move the old one aside first, so a failure keeps one intact
            old = path.with_name(f".{path.name}.old-{os.getpid()}")
            os.replace(path, old)
            os.replace(staging, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, path)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return path


def _check_export(network: nn.Module, directory: Path, rules: Rules, encoding_version: int, obs_dim: int) -> None:
    """Load the written model back and hold its numpy outputs to the torch network's."""
    policy: NumpyPolicy = load_policy(directory, rules, encoding_version=encoding_version, obs_dim=obs_dim)
    x = np.random.default_rng(0).random((16, obs_dim), dtype=np.float32)
    param = next(network.parameters())
    was_training = network.training
    network.eval()
    with torch.no_grad():
        logits, value = network(torch.from_numpy(x).to(param.device, param.dtype))
    network.train(was_training)
    np_logits, np_value = policy.forward(x)
    scale = 1.0 + float(np.abs(np_logits).max())
    if not np.allclose(np_logits, logits.float().cpu().numpy(), atol=1e-4 * scale, rtol=1e-4):
        raise AssertionError("the exported numpy forward pass differs from the torch network's logits")
    if not np.allclose(
        np_value, value.float().cpu().numpy(), atol=1e-4 * (1.0 + float(np.abs(np_value).max())), rtol=1e-4
    ):
        raise AssertionError("the exported numpy forward pass differs from the torch network's values")


__all__ = ["export_model", "git_commit", "preset_name"]


def run_training_info(
    *,
    decisions: int | None,
    learner_decisions: int | None,
    elapsed: float,
    updates: int,
    args: Mapping[str, Any],
    run: str,
    history: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """The model card's ``training`` entry for a PPO run (and its imitation warm start, if any)."""
    info: dict[str, Any] = {
        "decisions": decisions,
        "learner_decisions": learner_decisions,
        "wall_time_s": round(elapsed, 1),
        "updates": updates,
        "args": dict(args),
        "run": run,
    }
    for entry in history:
        if "imitation/samples" in entry:
            info["imitation_samples"] = int(entry["imitation/samples"])
            info["imitation_accuracy"] = round(float(entry["imitation/accuracy"]), 4)
            info["imitation_wall_time_s"] = round(float(entry["imitation/wall_s"]), 1)
            info["imitation_teacher"] = str(dict(args).get("imitation_teacher", "heuristic"))
    return info


#: The default model name of ``hearts export``: the first of ``my-model``, ``my-model-2``, ... that is free.
DEFAULT_NAME = "my-model"


def free_name(models_dir: Path, stem: str = DEFAULT_NAME) -> str:
    """The first of ``stem``, ``stem-2``, ``stem-3``, ... that is not a directory in ``models_dir``."""
    name, k = stem, 1
    while (models_dir / name).exists():
        k += 1
        name = f"{stem}-{k}"
    return name


def export_checkpoint(
    checkpoint: str | Path,
    name: str,
    *,
    models_dir: str | Path | None = None,
    evaluation: Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> Path:
    """Export the policy of a training checkpoint (``runs/<run>/checkpoint.pt``) to ``<models_dir>/<name>``
    (``models_dir`` default: ``hearts_env.nets.user_models_dir()``)."""
    if Path(checkpoint).is_dir() and (Path(checkpoint) / "checkpoint.pt").is_file():  # a run directory
        checkpoint = Path(checkpoint) / "checkpoint.pt"
    data = load_checkpoint(checkpoint, restore_rng=False)
    network = build_network(data["network"])
    network.load_state_dict(data["model"])
    args = data["args"]
    extra = data["extra"]
    history = extra.get("history") or [{}]
    if evaluation is None:
        evaluation = {k: v for k, v in history[-1].items() if k.startswith("eval/")}
    return export_model(
        network,
        Path(models_dir if models_dir is not None else user_models_dir()) / name,
        name=name,
        rules=[args["rules"], *args["more_rules"]] if args.get("more_rules") else args["rules"],
        training_info=run_training_info(
            decisions=extra.get("decisions"),
            learner_decisions=extra.get("learner_decisions"),
            elapsed=float(extra.get("elapsed", 0.0)),
            updates=data["update"],
            args=args,
            run=Path(checkpoint).parent.name,
            history=extra.get("history") or [],
        ),
        evaluation=evaluation,
        overwrite=overwrite,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``hearts export CHECKPOINT --name NAME``: write a checkpoint's policy as a playable model. A
    problem (no such checkpoint, not a checkpoint, the model exists) is one line and exit status 2."""
    parser = argparse.ArgumentParser(prog="hearts export", description=export_checkpoint.__doc__)
    parser.add_argument("checkpoint", help="a training checkpoint, e.g. runs/<run>/checkpoint.pt")
    parser.add_argument(
        "--name", help=f"model name: the model goes to <models-dir>/<name> (default: {DEFAULT_NAME}, or -2, -3, ...)"
    )
    parser.add_argument(
        "--models-dir",
        help="where models go (default: $HEARTS_MODELS_DIR, else $XDG_DATA_HOME/hearts-env/models, "
        "~/.local/share/hearts-env/models)",
    )
    parser.add_argument("--evaluation", help="JSON file of evaluation results to put in the model card")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing model of that name")
    args = parser.parse_args(argv)

    def fail(message: str) -> int:
        print(f"hearts export: {message}", file=sys.stderr)
        return 2

    models_dir = Path(args.models_dir) if args.models_dir else user_models_dir()
    if args.name is None:
        args.name = free_name(models_dir)
    target = models_dir / args.name
    try:
        check_model_name(args.name)
    except ValueError as err:
        return fail(f"--name: {err}")
    if target.exists() and not args.overwrite:
        return fail(f"{target} exists; pass --overwrite to replace it")
    evaluation = None
    if args.evaluation:
        try:
            evaluation = json.loads(Path(args.evaluation).read_text(encoding="utf-8"))
        except OSError as err:
            return fail(f"--evaluation {args.evaluation}: cannot read it: {err.strerror or err}")
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            return fail(f"--evaluation {args.evaluation}: not JSON: {err}")
    try:
        path = export_checkpoint(
            args.checkpoint, args.name, models_dir=models_dir, evaluation=evaluation, overwrite=args.overwrite
        )
    except FileExistsError:  # made meanwhile
        return fail(f"{target} exists; pass --overwrite to replace it")
    except FileNotFoundError:
        return fail(f"{args.checkpoint}: no such file")
    except OSError as err:
        return fail(f"{args.checkpoint}: {err.strerror or err}")
    except ValueError as err:  # load_checkpoint's reason: "<path>: not a valid checkpoint: ..."
        return fail(str(err))
    except (HeartsError, KeyError) as err:  # HeartsError: the rules it names, say
        return fail(f"{args.checkpoint}: cannot export it: {err}")
    print(f"exported {path}")
    print(f"next: hearts bench {path} --quick   (or hearts play --opponents {path})")
    return 0
