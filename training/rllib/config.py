"""The settings of an RLlib training run: ``RLlibArgs``, read by ``tyro`` from ``--config`` TOML and
flags as ``training.config.Args`` is (the TOML's keys are fields; an unknown key is refused by name),
and the checks that refuse, in one line and before anything is written, settings that cannot start.

The launch flags ``--config``, ``--address``, ``--overwrite`` and ``--json`` say how to start, not
what to train (``--backend rllib`` is taken off by ``hearts train`` before these are read).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hearts_env.core import RulesError
from hearts_env.core.rules import Rules

from ..config import Bool, ConfigError, _tokens, flag, settings_from_tokens
from ..config import read_toml as read_settings_file
from ..export import check_model_name

#: The opponent kinds a learner seat's table may draw per episode.
POOL_KINDS = ("selfplay", "snapshot", "heuristic")
#: The envs RLlib samples: ``vector`` (``HeartsRLlibVectorEnv``, the batched engine, single-agent env runners;
#: the default) or ``multi-agent`` (``HeartsMultiAgentEnv``, one table at a time, per-agent modules; slower).
ENV_KINDS = ("vector", "multi-agent")
#: Tables per env runner when ``envs_per_runner`` is 0, by env.
DEFAULT_TABLES = {"vector": 512, "multi-agent": 4}


@dataclass
class RLlibArgs:
    """Every setting of an RLlib PPO self-play run (TOML keys of ``--config`` and ``--flags``)."""

    rules: str = "standard"
    """preset name or rule file to train on"""
    seed: int = 1
    """seed of RLlib (weights, sampling) and of the deals"""
    run_name: str = ""
    """name of the run (default: derived from the settings)"""
    runs_dir: str = "runs"
    """where runs write checkpoints and logs"""
    iterations: int = 20
    """RLlib training iterations (each samples train_batch_size decisions, then updates)"""
    max_minutes: float = 0.0
    """stop after the iteration that reaches this much wall time (0: no limit)"""
    env: str = "vector"
    """vector (the batched engine: each env runner steps envs_per_runner tables at once, one learner seat per
    table, the other seats played by the pool inside the env) or multi-agent (one RLlib agent per seat, tables
    stepped one after another in Python; per-agent modules, much slower)"""
    num_env_runners: int = 2
    """RLlib env runners (one process each; many on a cluster)"""
    envs_per_runner: int = 0
    """tables each env runner plays at once (0: 512 on the vector env, 4 on the multi-agent env)"""
    env_device: str = "cpu"
    """device of the vector env's batched engine on each env runner (cuda: give gpus_per_env_runner)"""
    gpus_per_env_runner: float = 0.0
    """GPUs Ray reserves per env runner (with env_device cuda)"""
    num_learners: int = 0
    """RLlib learner processes (0: learn in the driver; on a GPU cluster one per GPU)"""
    gpus_per_learner: float = 0.0
    """GPUs per learner (with num_learners >= 1, or 0 learners: the driver's learner on a GPU)"""
    threads: int = 0
    """torch CPU threads of this process, where the local learner (0 learners) trains (0: torch's default)"""
    train_batch_size: int = 8000
    """decisions sampled per iteration: env steps (multi-agent: every seat's; vector: the learner seats')"""
    minibatch_size: int = 1000
    """samples per gradient step"""
    num_epochs: int = 4
    """PPO epochs per iteration"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    gamma: float = 1.0
    """discount along a seat's decisions"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_param: float = 0.2
    """PPO ratio clip"""
    entropy_coeff: float = 0.01
    """entropy bonus (masked entropy)"""
    vf_loss_coeff: float = 0.5
    """value loss weight"""
    grad_clip: float = 0.5
    """gradient norm clip"""
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    """hidden layer sizes of the MLP (the project's network, so it exports)"""
    pool: list[str] = field(default_factory=lambda: ["selfplay", "snapshot", "heuristic"])
    """opponent kinds drawn per episode: selfplay (every seat main), snapshot, heuristic"""
    pool_weights: list[float] = field(default_factory=lambda: [0.25, 0.35, 0.4])
    """draw weights of the pool kinds"""
    snapshot_every: int = 5
    """iterations between frozen snapshots of main"""
    max_snapshots: int = 5
    """snapshots kept in the pool"""
    checkpoint_every: int = 5
    """iterations between checkpoints (and one at the end)"""
    export_name: str = ""
    """export main to models/<name> at the end"""
    progress: Bool = True
    """print a progress line per iteration"""


FIELDS = tuple(f.name for f in dataclasses.fields(RLlibArgs))

_DESCRIPTION = (
    "PPO self-play training with Ray RLlib (the rllib extra). Launch flags: --config FILE (TOML of these "
    "settings, under the command line), --address auto|HOST:PORT|ray://HOST:PORT (join a running Ray "
    "cluster; default: start a local Ray), --overwrite (replace a run of the same name), --json."
)


@dataclass(frozen=True)
class RLlibLaunch:
    """What ``hearts train --backend rllib`` was asked: the settings and how to start."""

    args: RLlibArgs
    address: str | None = None
    overwrite: bool = False
    json: bool = False


def _tyro(tokens: Sequence[str], default: RLlibArgs, source: str) -> RLlibArgs:
    return settings_from_tokens(RLlibArgs, tokens, default, source, "hearts train --backend rllib", _DESCRIPTION)


def read_toml(path: str) -> dict[str, Any]:
    """The settings of a TOML file; ``ConfigError`` says why it cannot be read or names an unknown key."""
    return read_settings_file(path, FIELDS)


def parse_args(argv: Sequence[str] | None = None) -> RLlibLaunch:
    """The launch from the command line: defaults, then ``--config``, then flags."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--config")
    parser.add_argument("--address")
    parser.add_argument("--overwrite", action="store_true")
    parser.add_argument("--json", action="store_true")
    launch, rest = parser.parse_known_args(list(argv) if argv is not None else None)
    base = RLlibArgs()
    if launch.config:
        base = _tyro(_tokens(read_toml(launch.config)), base, f"--config {launch.config}")
    args = _tyro(rest, base, "hearts train --backend rllib")
    return RLlibLaunch(args, launch.address, launch.overwrite, launch.json)


def check_args(args: RLlibArgs) -> Rules:
    """Refuse, naming the option, settings that cannot start a run; returns the rules."""
    try:
        rules = Rules.load(args.rules)
    except (RulesError, OSError, ValueError) as err:
        raise ConfigError(f"--rules {args.rules}: {err}") from None
    if args.env not in ENV_KINDS:
        raise ConfigError(f"--env must be one of {', '.join(ENV_KINDS)}, got {args.env!r}")
    if args.envs_per_runner < 0:
        raise ConfigError(f"--envs-per-runner must be at least 0 (0: the env's default), got {args.envs_per_runner}")
    for name in ("num_learners", "gpus_per_learner", "gpus_per_env_runner", "threads"):
        if not getattr(args, name) >= 0:
            raise ConfigError(f"{flag(name)} must be at least 0, got {getattr(args, name)}")
    if args.env_device not in ("cpu", "cuda") and not args.env_device.startswith("cuda:"):
        raise ConfigError(f"--env-device must be cpu or cuda[:N], got {args.env_device!r}")
    for name in ("iterations", "train_batch_size", "minibatch_size", "num_epochs"):
        if getattr(args, name) < 1:
            raise ConfigError(f"{flag(name)} must be at least 1, got {getattr(args, name)}")
    for name in ("snapshot_every", "max_snapshots", "checkpoint_every"):
        if getattr(args, name) < 1:
            raise ConfigError(f"{flag(name)} must be at least 1, got {getattr(args, name)}")
    if args.num_env_runners < 0:
        raise ConfigError(
            f"--num-env-runners must be at least 0 (0: sample in this process), got {args.num_env_runners}"
        )
    if args.minibatch_size > args.train_batch_size:
        raise ConfigError(
            f"--minibatch-size {args.minibatch_size} is larger than --train-batch-size {args.train_batch_size}"
        )
    if not args.max_minutes >= 0:
        raise ConfigError(f"--max-minutes must be at least 0 (0: no limit), got {args.max_minutes}")
    if not args.learning_rate > 0:
        raise ConfigError(f"--learning-rate must be positive, got {args.learning_rate}")
    if not args.hidden or min(args.hidden) < 1:
        raise ConfigError(f"--hidden: layer sizes must be at least 1, got {args.hidden}")
    bad = sorted(set(args.pool) - set(POOL_KINDS))
    if bad or not args.pool:
        raise ConfigError(
            f"--pool: unknown opponent kind(s) {', '.join(bad) or '(none given)'}; use {', '.join(POOL_KINDS)}"
        )
    if len(args.pool_weights) != len(args.pool) or sum(args.pool_weights) <= 0 or min(args.pool_weights) < 0:
        raise ConfigError(
            f"--pool-weights {args.pool_weights}: give one weight >= 0 per pool kind {args.pool}, not all zero"
        )
    if args.export_name:
        try:
            check_model_name(args.export_name)
        except ValueError as err:
            raise ConfigError(f"--export-name: {err}") from None
    if args.run_name and (Path(args.run_name).name != args.run_name or args.run_name.startswith(".")):
        raise ConfigError(f"--run-name: a run name is a plain directory name, such as my-run; got {args.run_name!r}")
    return rules


def tables_per_runner(args: RLlibArgs) -> int:
    """The tables each env runner plays: ``envs_per_runner``, or the env's default."""
    return args.envs_per_runner or DEFAULT_TABLES[args.env]


__all__ = [
    "DEFAULT_TABLES",
    "ENV_KINDS",
    "FIELDS",
    "POOL_KINDS",
    "RLlibArgs",
    "RLlibLaunch",
    "check_args",
    "parse_args",
    "read_toml",
    "tables_per_runner",
]
