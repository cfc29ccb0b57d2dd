"""End-to-end training decisions/s of our own PPO (``hearts_env.training.ppo.train``, the batched engine)
beside the RLlib backend (``hearts train --backend rllib``, RLlib 2.60 PPO) on both its envs: the vector env
(the default: single-agent env runners stepping many tables of the batched engine) and ``HeartsMultiAgentEnv``
(``--env multi-agent``), on the same rules (standard) and the same network (the project's MLP, ``--hidden``).

A decision is one seat's move (every seat's, learners' and opponents' alike), so both count the same
thing; the figure is decisions over the wall time of the training loop itself (rollouts and PPO
updates; the setup before the first rollout, Ray's start and the final evaluation are left out).
Both run in this machine's CPUs; the RLlib figure is also given per env runner (env runners are
separate processes, so a cluster with k runners samples about k times that, until its one learner
is the bottleneck). Wall time, not CPU time: RLlib's work is spread over processes, so on a shared
machine both figures move with the load.

- ``ours``: ``--ours-envs`` tables × 64 steps per update, ``--ours-updates`` updates, ``--threads`` torch threads
  (RLlib's learner, in this process, trains with the same);
- ``peer``: RLlib on the vector env, ``--iterations`` iterations of ``--vector-batch`` learner decisions with
  ``--env-runners`` runners × ``--vector-tables`` tables, one local learner;
- RLlib on the multi-agent env: ``--iterations`` iterations of ``--batch`` decisions with ``--env-runners``
  runners × ``--envs-per-runner`` tables (printed beside, as the slower path).

The last line is ``ours=<decisions/s> peer=<RLlib on the vector env, decisions/s> ratio=<ours/peer>``.

    python benchmarks/train_speed.py [--hidden 128 128] [--env-runners 2] [--iterations 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from hearts_env.training.config import Args
from hearts_env.training.ppo import train as train_ours

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rllib_speed import run as rllib_run


def run_ours(hidden: list[int], num_envs: int, updates: int, threads: int, runs_dir: str) -> float:
    steps = 64
    args = Args(
        rules="standard",
        hidden=hidden,
        num_envs=num_envs,
        num_steps=steps,
        total_decisions=num_envs * steps * updates,
        minibatch_size=2048,
        update_epochs=4,
        eval_every=0,
        eval_deals=16,
        checkpoint_every=1000,
        progress=False,
        threads=threads,
        runs_dir=runs_dir,
        run_name="ours",
    )
    final = train_ours(args)
    return float(final["decisions_per_s"])


def run_peer(
    hidden: list[int],
    runners: int,
    envs: int,
    iterations: int,
    batch: int,
    runs_dir: str,
    env: str = "multi-agent",
    threads: int = 0,
) -> float:
    final = rllib_run(env, hidden, runners, envs, iterations, batch, runs_dir, threads, minibatch=1000)
    return float(final["decisions_per_s"])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hidden", type=int, nargs="+", default=[128, 128])
    p.add_argument("--ours-envs", type=int, default=512)
    p.add_argument("--ours-updates", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--env-runners", type=int, default=2)
    p.add_argument("--envs-per-runner", type=int, default=4)
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--batch", type=int, default=4000)
    p.add_argument("--vector-tables", type=int, default=512)
    p.add_argument("--vector-batch", type=int, default=8192)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as runs:
        ours = run_ours(args.hidden, args.ours_envs, args.ours_updates, args.threads, runs)
        print(f"ours (hearts_env PPO, batched engine, hidden {args.hidden}): {ours:,.0f} decisions/s")
        runners = max(1, args.env_runners)
        peer = run_peer(
            args.hidden,
            args.env_runners,
            args.vector_tables,
            args.iterations,
            args.vector_batch,
            runs,
            "vector",
            args.threads,
        )
        print(
            f"peer (RLlib PPO on the vector env, {args.env_runners} env runners x {args.vector_tables} tables, "
            f"hidden {args.hidden}): {peer:,.0f} decisions/s, {peer / runners:,.0f} per env runner",
            flush=True,
        )
        multi = run_peer(
            args.hidden, args.env_runners, args.envs_per_runner, args.iterations, args.batch, runs, threads=args.threads
        )
        print(
            f"RLlib PPO on the multi-agent env ({args.env_runners} env runners x {args.envs_per_runner} tables, "
            f"hidden {args.hidden}): {multi:,.0f} decisions/s, {multi / runners:,.0f} per env runner"
        )
    print(f"ours={ours:.0f} peer={peer:.0f} ratio={ours / peer:.1f}")


if __name__ == "__main__":
    main()
