"""Tianshou 2.0 on the PettingZoo AEC env: ``PettingZooEnv``, one DQN seat, masked random seats.

``tianshou.env.PettingZooEnv`` turns the AEC env's observation dict into ``obs.obs`` and
``obs.mask`` (the legal actions) plus ``obs.agent_id``; ``MultiAgentOffPolicyAlgorithm`` (Tianshou
2.0's multi-agent manager) hands each transition to the algorithm of the seat that moved: DQN at
``player_0`` (its Q-values of illegal actions are masked out, so are its exploration moves) and
``MARLRandomDiscreteMaskedOffPolicyAlgorithm`` (uniform over the mask) at the others. Tianshou's
multi-agent buffer puts the deal's reward on the env step that ends the deal, whoever made it; an
n-step horizon at least a deal long with ``gamma = 1`` makes each DQN target the learner's own final
deal reward. The env is the bare ``hearts_v1.raw_env``, which raises ``IllegalActionError`` on an
illegal action; every stored action is also checked against its mask and counted.

    python examples/tianshou_multiagent.py                                           # ~20 s of CPU
    python examples/tianshou_multiagent.py --epochs 1 --steps-per-epoch 256 --eval-deals 2   # seconds

Measured on this project's 2-core machine (``/usr/bin/time python examples/tianshou_multiagent.py``):
the default run (2 epochs of 1,024 env steps, about 32 deals, then 20 evaluation deals) uses 21 s of
CPU, so it takes well under a minute on an idle machine (119 s of wall time with the machine shared
five ways, load 9). It ends with ``learner_points_per_deal=7.85 ... illegal_actions=0``: at this
budget the DQN seat is no better than the random seats (6.5 points per deal each, and 20 deals give
an interval of about +-3); the recipe shows the plumbing, not strength.

The last line printed is ``final: ...`` (env steps, the learner's points per deal over the
evaluation deals against random seats, illegal actions: always 0).
"""

from __future__ import annotations

import argparse
import logging
import os
import time

# Tianshou's numba buffer helpers take ~20 s of CPU to compile: more than they save in a short run.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, ReplayBuffer, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from hearts_env.envs import hearts_v1

REWARD_SCALE = 1 / 26  # a standard deal's points in [-1, 0]


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Tianshou DQN at one seat of the Hearts PettingZoo AEC env")
    p.add_argument("--rules", default="standard")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--steps-per-epoch", type=int, default=1024, help="env steps (all seats) per epoch")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--eval-deals", type=int, default=20, help="deals played by the trained learner at the end")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    for name in ("epochs", "steps_per_epoch", "hidden", "eval_deals"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1, not {getattr(args, name)}")
    return args


def make_env(rules: str) -> PettingZooEnv:
    return PettingZooEnv(hearts_v1.raw_env(rules=rules, episode="deal", reward_scale=REWARD_SCALE))


def count_illegal(buffer: ReplayBuffer) -> int:
    """Stored actions that their seat's mask forbids (the raw env would have raised on the first)."""
    if len(buffer) == 0:
        return 0
    data = buffer[buffer.sample_indices(0)]  # every stored transition
    mask = np.asarray(data.obs.mask, dtype=bool)
    acts = np.asarray(data.act, dtype=np.int64)
    return int((~mask[np.arange(len(acts)), acts]).sum())


def main() -> None:
    args = parse_args()
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)  # "only 1D sequences": the per-seat returns
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)  # the random seats draw from numpy's global generator
    torch.set_num_threads(1)
    env = make_env(args.rules)
    agents = list(env.agents)
    obs_size = env.observation_space["observation"].shape[0]
    num_actions = int(env.action_space.n)
    deal_steps = 2 * 13 * len(agents)  # more than any deal of these rules takes: no bootstrap across a deal

    net = Net(state_shape=obs_size, action_shape=num_actions, hidden_sizes=[args.hidden, args.hidden])
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0),
        optim=AdamOptimizerFactory(lr=args.learning_rate),
        gamma=1.0,
        n_step_return_horizon=deal_steps,
        target_update_freq=100,
    )
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in agents[1:]]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env)

    total_steps = args.epochs * args.steps_per_epoch
    train_envs = DummyVectorEnv([lambda: make_env(args.rules)])
    train_envs.seed(args.seed)
    train_collector = Collector(
        algorithm, train_envs, VectorReplayBuffer(total_steps + 1000, 1), exploration_noise=True
    )
    start = time.time()
    algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            max_epochs=args.epochs,
            epoch_num_steps=args.steps_per_epoch,
            collection_step_num_env_steps=64,
            update_step_num_gradient_steps_per_sample=0.1,
            batch_size=128,
            test_in_training=False,
            verbose=False,
            show_progress=False,
        )
    )
    illegal = count_illegal(train_collector.buffer)
    steps = len(train_collector.buffer)

    eval_envs = DummyVectorEnv([lambda: make_env(args.rules)])
    eval_envs.seed(10_000 + args.seed)
    eval_collector = Collector(algorithm, eval_envs, VectorReplayBuffer(2 * deal_steps * args.eval_deals, 1))
    algorithm.eval()
    stats = eval_collector.collect(n_episode=args.eval_deals, reset_before_collect=True)
    illegal += count_illegal(eval_collector.buffer)
    returns = np.asarray(stats.returns, dtype=float).reshape(args.eval_deals, len(agents))
    points = -returns[:, 0] / REWARD_SCALE
    print(
        f"final: env_steps={steps} learner_points_per_deal={points.mean():.2f} eval_deals={len(points)} "
        f"illegal_actions={illegal} seconds={time.time() - start:.0f}"
    )


if __name__ == "__main__":
    main()
