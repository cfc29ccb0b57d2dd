"""TorchRL 0.14 on the PettingZoo AEC env: ``PettingZooWrapper``, masked actors, a ``Collector`` and PPO.

Seat ``player_0`` learns (group ``learner``: a small MLP, logits through ``MaskedCategorical`` in a
``ProbabilisticActor``); the other seats (group ``others``) play uniformly at random over their legal
actions, also through ``MaskedCategorical``. ``PettingZooWrapper(use_mask=True)`` puts each seat's
legal actions in ``(group, "action_mask")`` and marks the seat to move in ``(group, "mask")``; PPO
(``ClipPPOLoss`` with GAE, ``gamma = 1``: a deal is paid at its end) trains on the learner's own
decisions only. The env is the bare ``hearts_v1.raw_env``, which raises ``IllegalActionError`` on an
illegal action (the wrapped ``env()`` would end the episode with a penalty instead); every collected
action is also checked against its mask and counted.

    python examples/torchrl_pettingzoo.py                                          # ~40 s of CPU
    python examples/torchrl_pettingzoo.py --iterations 1 --frames-per-batch 128 --eval-deals 1   # seconds

Measured on this project's 2-core machine (``/usr/bin/time python examples/torchrl_pettingzoo.py``):
the default run (4 iterations of 640 frames, about 40 deals, then 20 evaluation deals) uses 39 s of
CPU, so it takes under a minute on an idle machine (305 s of wall time with the machine shared five
ways, load 9); the wrapper steps about 100 frames per CPU second. It ends with
``learner_points_per_deal=6.70 ... illegal_actions=0``: after 640 decisions of its own the learner
still plays like the random seats (6.5 points per deal each; the heuristic bot takes 1.3 against
them). The recipe shows the plumbing; learning takes the project's trainer or far longer runs.

The last line printed is ``final: ...`` (iterations, frames, the learner's points per deal over the
evaluation deals against random seats, illegal actions: always 0).
"""

from __future__ import annotations

import argparse
import time
import warnings

import torch
from tensordict import TensorDictBase
from tensordict.nn import TensorDictModule, TensorDictSequential
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs import PettingZooWrapper
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss, ValueEstimators

from hearts_env.envs import hearts_v1

OBS = ("observation", "observation")  # PettingZoo's Dict observation: TorchRL keeps its "observation" entry


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description="TorchRL PPO on the Hearts PettingZoo AEC env")
    p.add_argument("--rules", default="standard")
    p.add_argument("--iterations", type=int, default=4, help="collect-and-train iterations")
    p.add_argument("--frames-per-batch", type=int, default=640, help="env steps (all seats) per iteration")
    p.add_argument("--epochs", type=int, default=4, help="PPO epochs per iteration")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--eval-deals", type=int, default=20, help="deals played by the trained learner at the end")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    for name in ("iterations", "frames_per_batch", "epochs", "hidden", "eval_deals"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1, not {getattr(args, name)}")
    return args


def make_env(rules: str, seed: int) -> PettingZooWrapper:
    """The bare AEC env wrapped for TorchRL: the learner in its own group, the other seats in one."""
    raw = hearts_v1.raw_env(rules=rules, episode="deal", reward_scale=1 / 26)
    agents = list(raw.possible_agents)
    groups = {"learner": agents[:1], "others": agents[1:]}
    return PettingZooWrapper(raw, use_mask=True, group_map=groups, categorical_actions=True, seed=seed)


def masked_actor(group: str, logits: nn.Module | TensorDictModule) -> ProbabilisticActor:
    """Samples ``(group, "action")`` from ``MaskedCategorical``: illegal actions get probability 0."""
    module = (
        logits
        if isinstance(logits, TensorDictModule)
        else TensorDictModule(logits, in_keys=[(group, *OBS)], out_keys=[(group, "logits")])
    )
    return ProbabilisticActor(
        module,
        in_keys={"logits": (group, "logits"), "mask": (group, "action_mask")},
        out_keys=[(group, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=(group, "action_log_prob"),
    )


class UniformLogits(nn.Module):
    """Zero logits: with the mask, a uniform choice among the legal actions."""

    def forward(self, mask: torch.Tensor) -> torch.Tensor:
        return torch.zeros(mask.shape, dtype=torch.float32)


def count_illegal(data: TensorDictBase) -> int:
    """Actions of the seat to move that its mask forbids (the raw env would have raised on the first)."""
    illegal = 0
    for group in ("learner", "others"):
        acting = data[group, "mask"]  # (T, seats): True for the seat that moved
        chosen = data[group, "action"].unsqueeze(-1)
        legal = data[group, "action_mask"].gather(-1, chosen).squeeze(-1)
        illegal += int((acting & ~legal).sum())
    return illegal


def main() -> None:
    args = parse_args()
    warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    env = make_env(args.rules, args.seed)
    obs_size = env.observation_spec["learner", *OBS].shape[-1]
    num_actions = env.full_action_spec["learner", "action"].space.n

    actor = masked_actor("learner", MLP(in_features=obs_size, out_features=num_actions, num_cells=[args.hidden] * 2))
    critic = ValueOperator(
        MLP(in_features=obs_size, out_features=1, num_cells=[args.hidden] * 2),
        in_keys=[("learner", *OBS)],
        out_keys=[("learner", "state_value")],
    )
    others = masked_actor(
        "others",
        TensorDictModule(UniformLogits(), in_keys=[("others", "action_mask")], out_keys=[("others", "logits")]),
    )
    policy = TensorDictSequential(actor, others)

    loss = ClipPPOLoss(actor, critic, entropy_coeff=0.01, normalize_advantage=True)
    loss.set_keys(
        action=("learner", "action"),
        sample_log_prob=("learner", "action_log_prob"),
        reward=("learner", "reward"),
        done=("learner", "done"),
        terminated=("learner", "terminated"),
        value=("learner", "state_value"),
        advantage=("learner", "advantage"),
        value_target=("learner", "value_target"),
    )
    loss.make_value_estimator(ValueEstimators.GAE, gamma=1.0, lmbda=0.95)
    optimizer = torch.optim.Adam(loss.parameters(), lr=args.learning_rate)

    collector = Collector(
        env,
        policy,
        frames_per_batch=args.frames_per_batch,
        total_frames=args.frames_per_batch * args.iterations,
        auto_register_policy_transforms=False,
    )
    start = time.time()
    frames = illegal = 0
    for iteration, data in enumerate(collector, 1):
        frames += data.numel()
        illegal += count_illegal(data)
        with torch.no_grad():  # GAE along the learner's observations (every frame), rewards at deal ends
            loss.value_estimator(
                data, params=loss.critic_network_params, target_params=loss.target_critic_network_params
            )
        own = data[data["learner", "mask"].squeeze(-1)]  # the learner's own decisions
        for _ in range(args.epochs):
            terms = loss(own)
            total = terms["loss_objective"] + terms["loss_critic"] + terms["loss_entropy"]
            optimizer.zero_grad()
            total.backward()
            nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
            optimizer.step()
        collector.update_policy_weights_()
        deals = int(data["next", "done"].sum())
        print(
            f"iteration {iteration}: frames={frames} deals_ended={deals} learner_decisions={own.numel()} "
            f"illegal={illegal} {time.time() - start:.0f}s",
            flush=True,
        )
    collector.shutdown()

    points: list[float] = []  # the trained learner against the random seats, deal by deal
    with torch.no_grad():
        for deal in range(args.eval_deals):
            env.set_seed(10_000 + args.seed + deal)
            rollout = env.rollout(10_000, policy, auto_reset=False, tensordict=env.reset())
            illegal += count_illegal(rollout)
            points.append(-26.0 * float(rollout["next", "learner", "reward"].sum()))
    mean = sum(points) / len(points)
    print(
        f"final: iterations={args.iterations} frames={frames} learner_points_per_deal={mean:.2f} "
        f"eval_deals={len(points)} illegal_actions={illegal} seconds={time.time() - start:.0f}"
    )


if __name__ == "__main__":
    main()
