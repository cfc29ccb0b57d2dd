"""End-to-end RLlib PPO decisions/s per env runner: on the vector env (``hearts train --backend rllib``'s
default: single-agent env runners, each stepping ``--tables`` tables of ``HeartsRLlibVectorEnv`` on the
batched engine, the opponents played inside the env by the pool) against the multi-agent env
(``--env multi-agent``: ``HeartsMultiAgentEnv``, ``--ma-envs`` tables per env runner stepped one after
another), on the same rules (standard), the same network (the project's MLP, ``--hidden``), the same
machine, in one run.

A decision is one seat's move (every seat's: on the vector env the learner seats' env steps plus the
opponents' moves inside the env, on the multi-agent env every agent's step), as in ``train_speed.py``;
the figure is decisions over the wall time of the training loop (sampling and PPO updates; Ray's start
and the algorithm's build are left out), divided by the env runners. Wall time: on a shared machine the
figures move with the load, so both run here one after the other with the same settings.

The last line is ``ours=<vector env, decisions/s per env runner> peer=<multi-agent env, per env runner>
ratio=<ours/peer>``.

Both learners train with ``--threads`` torch threads (default 1: on a shared 2-core machine a second
thread makes each gradient step slower, not faster).

    python benchmarks/rllib_speed.py [--env-runners 1] [--tables 512] [--iterations 3] [--hidden 128 128] [--threads 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hearts_env.training.rllib.config import RLlibArgs, RLlibLaunch
from hearts_env.training.rllib.train import train


def run(
    env: str,
    hidden: list[int],
    runners: int,
    tables: int,
    iterations: int,
    batch: int,
    runs_dir: str,
    threads: int,
    minibatch: int = 2048,
) -> dict:
    """One RLlib run of ``iterations``; its final figures (``decisions_per_s``: every seat's, all runners).
    ``benchmarks/train_speed.py`` runs its RLlib peers through it too."""
    args = RLlibArgs(
        threads=threads,
        rules="standard",
        env=env,
        hidden=hidden,
        iterations=iterations,
        num_env_runners=runners,
        envs_per_runner=tables,
        train_batch_size=batch,
        minibatch_size=min(minibatch, batch),
        num_epochs=4,
        checkpoint_every=1000,
        progress=False,
        runs_dir=runs_dir,
        run_name=env,
    )
    return train(RLlibLaunch(args))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hidden", type=int, nargs="+", default=[128, 128])
    p.add_argument("--env-runners", type=int, default=1)
    p.add_argument("--tables", type=int, default=512, help="tables per env runner on the vector env")
    p.add_argument("--batch", type=int, default=8192, help="learner decisions per iteration on the vector env")
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--ma-envs", type=int, default=4, help="tables per env runner on the multi-agent env")
    p.add_argument("--ma-batch", type=int, default=4000, help="decisions per iteration on the multi-agent env")
    p.add_argument("--ma-iterations", type=int, default=3)
    p.add_argument("--threads", type=int, default=1, help="torch threads of the learner (this process); 0: torch's")
    args = p.parse_args()
    runners = max(1, args.env_runners)
    with tempfile.TemporaryDirectory() as runs:
        ours = run(
            "vector", args.hidden, args.env_runners, args.tables, args.iterations, args.batch, runs, args.threads
        )
        ours_rate = ours["decisions_per_s"] / runners
        print(
            f"ours (RLlib PPO on the vector env, {args.env_runners} env runners x {args.tables} tables, "
            f"hidden {args.hidden}): {ours['decisions_per_s']:,.0f} decisions/s "
            f"({ours['learner_decisions'] / max(1, ours['decisions']):.0%} of them the learner's), "
            f"{ours_rate:,.0f} per env runner",
            flush=True,
        )
        peer = run(
            "multi-agent",
            args.hidden,
            args.env_runners,
            args.ma_envs,
            args.ma_iterations,
            args.ma_batch,
            runs,
            args.threads,
        )
        peer_rate = peer["decisions_per_s"] / runners
        print(
            f"peer (RLlib PPO on the multi-agent env, {args.env_runners} env runners x {args.ma_envs} tables, "
            f"hidden {args.hidden}): {peer['decisions_per_s']:,.0f} decisions/s, {peer_rate:,.0f} per env runner"
        )
    print(f"ours={ours_rate:.0f} peer={peer_rate:.0f} ratio={ours_rate / peer_rate:.1f}")


if __name__ == "__main__":
    main()
