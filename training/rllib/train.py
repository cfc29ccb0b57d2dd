"""``hearts train --backend rllib``: RLlib PPO, locally or on a cluster.

    hearts train --backend rllib --config configs/train/rllib_local.toml
    hearts train --backend rllib --config configs/train/rllib_cluster.toml --address auto

Two envs (``--env``): ``vector`` (the default) samples ``HeartsRLlibVectorEnv`` with single-agent env
runners, each stepping ``envs_per_runner`` tables on the batched engine at once
(``gym_env_vectorize_mode="vector_entry_point"``), one learner seat per table and the other seats played
inside the env by the pool (``pool.PoolOpponent``: the heuristic bot, the learner's latest weights and
frozen snapshots, pushed to the env runners by ``pool.VectorPoolCallback``); ``multi-agent`` samples
``HeartsMultiAgentEnv`` (one agent per seat, a module per agent through the policy mapping, tables
stepped one after another in Python: the slower path).

Without ``--address`` it starts an embedded local Ray (``ray.init``: no dashboard, as many CPUs as
env runners + 1); ``--address auto`` (a cluster started on this machine with ``ray start --head``),
``HOST:PORT`` or ``ray://HOST:PORT`` joins a running cluster, whose nodes need hearts-env installed.
An address that cannot be reached is refused in one line before anything is written.

The run writes ``runs/<name>/``: ``checkpoint/`` (``algo.save_to_path`` every ``checkpoint_every``
iterations and at the end, with this project's sidecar ``hearts_rllib.json`` + ``hearts_main.npz``:
the rules, the encoding version and the "main" module's weights as plain arrays, which ``hearts
export --backend rllib`` reads, never RLlib's pickles), ``metrics.jsonl`` (one line per iteration),
TensorBoard scalars under ``tb/`` and a progress line per iteration on stderr.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import shutil
import socket
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from hearts_env.core.rules import Rules
from hearts_env.envs.rllib import HeartsMultiAgentEnv

from ..config import ConfigError
from .config import RLlibArgs, RLlibLaunch, check_args, parse_args, tables_per_runner
from .export import SIDECAR, SIDECAR_WEIGHTS, write_sidecar
from .modules import HeuristicModule, MaskedPPOModule, network_config
from .pool import VECTOR_MODULE, PoolVectorEnv, VectorPoolCallback
from .selfplay import HEURISTIC, MAIN, SelfPlayCallback

#: What a run writes in its directory; ``--overwrite`` removes exactly these.
RUN_FILES = ("checkpoint", "metrics.jsonl", "tb")


# ---------------------------------------------------------------------------------------------------------------
# Ray
# ---------------------------------------------------------------------------------------------------------------


def check_address(address: str) -> None:
    """Refuse, in one line, a cluster address that cannot be reached (a TCP connect, 3 s at most)."""
    if address == "auto":
        return  # ray.init finds the cluster on this machine, or fails at once
    split = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = split.hostname, split.port
    except ValueError:
        host, port = None, None
    if not host or not port:
        raise ConfigError(f"--address {address}: not a Ray address; use auto, HOST:PORT or ray://HOST:PORT")
    try:
        with socket.create_connection((host, port), timeout=3):
            pass
    except OSError as err:
        why = err.strerror or type(err).__name__
        raise ConfigError(
            f"--address {address}: cannot reach {host}:{port} ({why}); start the cluster with `ray start --head`, "
            "or leave --address out to train on a local Ray"
        ) from None


def connect(address: str | None, num_cpus: int) -> bool:
    """Join the cluster at ``address``, or start a local Ray; ``True`` when this call started Ray
    (then the caller shuts it down). A Ray already running in this process is used as it is."""
    if ray.is_initialized():
        return False
    if address:
        check_address(address)
    try:
        if address:
            ray.init(address=address, logging_level="ERROR", log_to_driver=True)
        else:
            ray.init(num_cpus=num_cpus, include_dashboard=False, logging_level="ERROR", log_to_driver=True)
    except (ConnectionError, RuntimeError, TimeoutError, ValueError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ConfigError(f"--address {address or '(local)'}: cannot start or join Ray: {first}") from None
    return True


# ---------------------------------------------------------------------------------------------------------------
# The algorithm
# ---------------------------------------------------------------------------------------------------------------


def module_config(args: RLlibArgs, rules: Rules) -> dict[str, Any]:
    """The ``model_config`` of "main" and its snapshots."""
    return {"hidden": list(args.hidden), "activation": "relu", "num_players": rules.num_players}


def learner_module(args: RLlibArgs) -> str:
    """The module id of the trained network: ``main`` (multi-agent) or RLlib's single-agent default (vector)."""
    return VECTOR_MODULE if args.env == "vector" else MAIN


def build_config(args: RLlibArgs, rules: Rules) -> PPOConfig:
    """RLlib's PPO config for ``args``: the env, the modules, the opponents and the PPO settings."""
    config = _vector_config(args, rules) if args.env == "vector" else _multi_agent_config(args, rules)
    return (
        config.learners(num_learners=args.num_learners, num_gpus_per_learner=args.gpus_per_learner)
        .training(
            train_batch_size_per_learner=args.train_batch_size // max(1, args.num_learners),
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            lr=args.learning_rate,
            gamma=args.gamma,
            lambda_=args.gae_lambda,
            clip_param=args.clip_param,
            entropy_coeff=args.entropy_coeff,
            vf_loss_coeff=args.vf_loss_coeff,
            vf_clip_param=float("inf"),
            grad_clip=args.grad_clip,
            use_kl_loss=False,
        )
        .fault_tolerance(restart_failed_env_runners=False)  # an env runner's error (an illegal action) ends the run
        .debugging(seed=args.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=200)
    )


def _vector_config(args: RLlibArgs, rules: Rules) -> PPOConfig:
    """Single-agent env runners on the vector env: the masked module, the pool inside the env."""
    env_config = {
        "rules": rules.to_dict(),
        "pool": list(args.pool),
        "pool_weights": list(args.pool_weights),
        "network": network_config({"hidden": list(args.hidden)}),
        "device": args.env_device,
    }
    callback = functools.partial(
        VectorPoolCallback, kinds=list(args.pool), snapshot_every=args.snapshot_every, max_snapshots=args.max_snapshots
    )
    return (
        PPOConfig()
        .environment(PoolVectorEnv, env_config=env_config)
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=tables_per_runner(args),
            gym_env_vectorize_mode="vector_entry_point",
            num_cpus_per_env_runner=1,
            num_gpus_per_env_runner=args.gpus_per_env_runner,
        )
        .rl_module(rl_module_spec=RLModuleSpec(module_class=MaskedPPOModule, model_config=module_config(args, rules)))
        .callbacks(callback)
    )


def _multi_agent_config(args: RLlibArgs, rules: Rules) -> PPOConfig:
    """Multi-agent env runners on ``HeartsMultiAgentEnv``: "main", its snapshots and the heuristic module."""
    callback = functools.partial(
        SelfPlayCallback,
        kinds=list(args.pool),
        weights=list(args.pool_weights),
        num_players=rules.num_players,
        snapshot_every=args.snapshot_every,
        max_snapshots=args.max_snapshots,
    )
    mapping = callback().mapping()
    specs = {
        MAIN: RLModuleSpec(module_class=MaskedPPOModule, model_config=module_config(args, rules)),
        HEURISTIC: RLModuleSpec(module_class=HeuristicModule, model_config={"rules": rules.to_dict()}),
    }
    return (
        PPOConfig()
        .environment(HeartsMultiAgentEnv, env_config={"rules": rules.to_dict()})
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=tables_per_runner(args),
            num_cpus_per_env_runner=1,
        )
        .multi_agent(policies={MAIN, HEURISTIC}, policy_mapping_fn=mapping, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(callback)
    )


def module_weights(algo: Any, module_id: str = MAIN) -> dict[str, np.ndarray]:
    """A module's network parameters (from the learner), by the network's own names."""
    state = algo.learner_group.get_state(components=f"learner/rl_module/{module_id}")
    return {
        k.removeprefix("net."): np.asarray(v, np.float32)
        for k, v in state["learner"]["rl_module"][module_id].items()
        if k.startswith("net.")
    }


def save_checkpoint(
    algo: Any,
    path: str | Path,
    rules: Rules,
    hidden: Sequence[int],
    info: Mapping[str, Any],
    module_id: str = MAIN,
) -> Path:
    """``algo.save_to_path(path)`` plus this project's sidecar: the rules, the encoding and the trained
    module's weights as plain arrays (what ``hearts export --backend rllib`` reads). ``info`` goes into the sidecar."""
    path = Path(path)
    algo.save_to_path(str(path.resolve()))
    write_sidecar(path, module_weights(algo, module_id), rules, network_config({"hidden": list(hidden)}), info)
    return path


# ---------------------------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------------------------


def default_run_name(args: RLlibArgs) -> str:
    return f"{Path(args.rules).stem}-rllib-s{args.seed}-{time.strftime('%Y%m%d-%H%M%S')}"


#: The lifetime counters of the env runners' episodes (summed, never decreasing).
COUNTERS = ("illegal_actions", "illegal_samples", "decisions_checked", "decisions", "learner_decisions")


def _count(value: Any) -> int:
    """A counter of the results; 0 where RLlib reports none (NaN: no episode ended yet)."""
    try:
        number = float(value)  # RLlib's figures may be numpy scalars
    except (TypeError, ValueError):
        return 0
    return int(number) if math.isfinite(number) else 0


def _figures(result: Mapping[str, Any], iteration: int, elapsed: float, module_id: str = MAIN) -> dict[str, Any]:
    """The figures of one iteration's result that the run logs (flat keys). ``decisions`` counts every
    seat's moves (on the vector env: the learner seats' env steps plus the opponents' moves inside the
    env), ``learner_decisions`` the samples PPO trains on."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(module_id, {})
    learner_decisions = int(runners.get("num_env_steps_sampled_lifetime", 0))
    decisions = learner_decisions + _count(runners.get("hearts/opponent_decisions"))
    out: dict[str, Any] = {
        "iteration": iteration,
        "decisions": decisions,
        "learner_decisions": learner_decisions,
        "decisions_per_s": decisions / max(elapsed, 1e-9),
        "iteration_s": float(result.get("time_this_iter_s", 0.0)),
        "illegal_actions": _count(runners.get("hearts/illegal_actions")),
        "illegal_samples": _count(runners.get("hearts/illegal_samples")),
        "decisions_checked": _count(runners.get("hearts/decisions")),
        "snapshots": int(result.get("hearts_snapshots", 0)),
    }
    for key in ("entropy", "policy_loss", "vf_loss", "vf_explained_var", "mean_kl_loss"):
        if key in learner:
            out[f"learner/{key}"] = float(learner[key])
    for kind in ("heuristic", "snapshot", "selfplay"):
        for who in ("main_points", "opponent_points"):
            key = f"hearts/{kind}/{who}"
            if key in runners:
                out[f"vs_{kind}/{who}"] = float(runners[key])
    return out


def _progress_line(figures: Mapping[str, Any], total: int) -> str:
    text = (
        f"iteration {figures['iteration']}/{total}: {figures['decisions']:,} decisions, "
        f"{figures['decisions_per_s']:,.0f}/s, illegal {figures['illegal_actions']}"
    )
    if "learner/entropy" in figures:
        text += f", entropy {figures['learner/entropy']:.2f}"
    if "vs_heuristic/main_points" in figures:
        text += (
            f", vs heuristic {figures['vs_heuristic/main_points']:.2f} points/deal "
            f"(theirs {figures['vs_heuristic/opponent_points']:.2f})"
        )
    return text


def train(launch: RLlibLaunch) -> dict[str, Any]:
    """Run RLlib PPO as ``launch`` says; returns the final figures. ``ConfigError`` (before anything is
    written) for settings that cannot start, an unknown run directory or an unreachable address."""
    args = launch.args
    rules = check_args(args)
    run_dir = Path(args.runs_dir) / (args.run_name or default_run_name(args))
    found = [name for name in RUN_FILES if (run_dir / name).exists()]
    if found and not launch.overwrite:
        raise ConfigError(
            f"{run_dir} holds a run already ({', '.join(found)}): "
            "replace it with --overwrite or choose another --run-name"
        )
    started = connect(launch.address, num_cpus=args.num_env_runners + 1)
    threads = torch.get_num_threads()
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        return _run(args, rules, run_dir, launch.overwrite)
    finally:
        torch.set_num_threads(threads)
        if started:
            ray.shutdown()


def _run(args: RLlibArgs, rules: Rules, run_dir: Path, overwrite: bool) -> dict[str, Any]:
    algo = build_config(args, rules).build_algo()
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        if overwrite:
            for name in RUN_FILES:
                target = run_dir / name
                if target.is_dir():
                    shutil.rmtree(target)
                elif target.exists():
                    target.unlink()
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(run_dir / "tb"))
        writer.add_text("args", json.dumps(dataclasses.asdict(args), indent=1))
        start = time.perf_counter()
        figures: dict[str, Any] = {}
        for iteration in range(1, args.iterations + 1):
            result = algo.train()
            elapsed = time.perf_counter() - start
            previous = figures
            figures = _figures(result, iteration, elapsed, learner_module(args))
            for key in COUNTERS:  # an iteration in which a runner finished no episode reports none
                figures[key] = max(figures[key], previous.get(key, 0))
            figures["decisions_per_s"] = figures["decisions"] / max(elapsed, 1e-9)
            with open(run_dir / "metrics.jsonl", "a", encoding="utf-8") as fh:
                fh.write(json.dumps(figures) + "\n")
            for key, value in figures.items():
                if key not in ("iteration",) and isinstance(value, int | float) and math.isfinite(value):
                    writer.add_scalar(key if "/" in key else f"train/{key}", value, figures["decisions"])
            if args.progress:
                print(_progress_line(figures, args.iterations), file=sys.stderr, flush=True)
            out_of_time = bool(args.max_minutes) and elapsed >= 60 * args.max_minutes
            if iteration % args.checkpoint_every == 0 or iteration == args.iterations or out_of_time:
                info = {
                    "iteration": iteration,
                    "decisions": figures["decisions"],
                    "wall_time_s": round(elapsed, 1),
                    "args": dataclasses.asdict(args),
                }
                save_checkpoint(algo, run_dir / "checkpoint", rules, args.hidden, info, learner_module(args))
            if out_of_time:
                break
        writer.close()
    finally:
        algo.stop()
    final: dict[str, Any] = {"run_dir": str(run_dir), "checkpoint": str(run_dir / "checkpoint"), **figures}
    if args.export_name:
        from .export import export_rllib_checkpoint

        final["model_dir"] = str(export_rllib_checkpoint(run_dir / "checkpoint", args.export_name, overwrite=True))
    return final


def summary(final: Mapping[str, Any]) -> str:
    run_dir = Path(final["run_dir"])
    lines = [
        f"trained {final.get('iteration', 0)} iterations, {final.get('decisions', 0):,} decisions "
        f"({final.get('decisions_per_s', 0.0):,.0f} decisions/s), illegal actions {final.get('illegal_actions', 0)}",
        f"checkpoint:  {final['checkpoint']}",
        f"metrics:     {run_dir / 'metrics.jsonl'}  (tensorboard --logdir {run_dir / 'tb'})",
    ]
    if "model_dir" in final:
        lines.append(f"model:       {final['model_dir']}")
        lines.append(f"next: hearts tournament {final['model_dir']} heuristic --deals 2000")
    else:
        lines.append(f"next: hearts export --backend rllib {final['checkpoint']} --name {Path(final['run_dir']).name}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``hearts train --backend rllib``: a bad setting or an unreachable address is one line and exit
    status 2, with nothing written. Ends with a summary (``--json``: the final figures as JSON)."""
    try:
        launch = parse_args(argv)
        final = train(launch)
    except ConfigError as err:
        print(f"hearts train: {err}", file=sys.stderr)
        return 2
    print(json.dumps(final, indent=1) if launch.json else summary(final))
    return 0


__all__ = [
    "SIDECAR",
    "SIDECAR_WEIGHTS",
    "build_config",
    "check_address",
    "connect",
    "learner_module",
    "main",
    "module_weights",
    "save_checkpoint",
    "train",
]
