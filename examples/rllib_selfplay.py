"""RLlib PPO (new API stack) on ``HeartsMultiAgentEnv`` with the masking module, used directly.

One trained module ("main") plays one seat of every table against three heuristic bots
(``HeuristicModule``), through RLlib's policy mapping; illegal actions get probability zero because
``MaskedPPOModule`` masks the logits with the observation's ``action_mask`` before RLlib's action
distribution. After training, the module is evaluated over duplicate deals against the heuristic bot
with ``hearts_env.tournament.evaluate`` (a plain function ``observation dict -> action`` wraps it).
``hearts train --backend rllib`` is the full version (snapshots, checkpoints, export, clusters).

    python examples/rllib_selfplay.py --iterations 1 --tiny     # about a minute on 2 cores
    python examples/rllib_selfplay.py --iterations 50

The last lines printed: ``illegal actions: <n>`` and the module's ``points per deal`` with its 95% interval.
"""

from __future__ import annotations

import argparse
import random

import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from hearts_env.core.rules import Rules
from hearts_env.envs.rllib import HeartsMultiAgentEnv
from hearts_env.tournament.evaluate import evaluate
from hearts_env.training.rllib.modules import HeuristicModule, MaskedPPOModule


def one_learner_seat(agent_id, episode, **kwargs):
    """Per episode, one seat (drawn from the episode's id) plays "main", the others the heuristic bot."""
    learner = random.Random(str(episode.id_)).randrange(4)
    return "main" if agent_id == f"seat_{learner}" else "heuristic"


def main() -> None:
    p = argparse.ArgumentParser(description="RLlib PPO with action masking on HeartsMultiAgentEnv")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--tiny", action="store_true", help="a tiny batch and network: checks the recipe quickly")
    p.add_argument("--eval-deals", type=int, default=20)
    args = p.parse_args()
    torch.set_num_threads(1)  # a small MLP: more threads only contend on a small or shared machine

    rules = Rules.load("standard")
    batch, hidden = (400, [32]) if args.tiny else (8000, [128, 128])
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
    main_config = {"hidden": hidden, "num_players": rules.num_players}
    config = (
        PPOConfig()
        .environment(HeartsMultiAgentEnv, env_config={"rules": "standard"})
        .env_runners(num_env_runners=1, num_envs_per_env_runner=2)
        .multi_agent(policies={"main", "heuristic"}, policy_mapping_fn=one_learner_seat, policies_to_train=["main"])
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "main": RLModuleSpec(module_class=MaskedPPOModule, model_config=main_config),
                    "heuristic": RLModuleSpec(module_class=HeuristicModule, model_config={"rules": rules.to_dict()}),
                }
            )
        )
        .training(train_batch_size_per_learner=batch, minibatch_size=batch // 2, num_epochs=2, lr=3e-4, gamma=1.0)
    )
    algo = config.build_algo()
    for i in range(args.iterations):
        result = algo.train()
        returns = result["env_runners"].get("module_episode_returns_mean", {})
        print(f"iteration {i + 1}: main's mean return per deal {returns.get('main', float('nan')):.3f}")
    module = algo.get_module("main")
    algo.stop()
    ray.shutdown()

    illegal = 0

    def policy(observation: dict) -> int:
        """The trained module, greedy: its masked logits' argmax on one observation."""
        nonlocal illegal
        obs = {
            "observations": torch.as_tensor(observation["observation"]).unsqueeze(0),
            "action_mask": torch.as_tensor(observation["action_mask"], dtype=torch.float32).unsqueeze(0),
        }
        with torch.no_grad():
            logits = module.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS]
        action = int(logits.argmax())
        illegal += int(observation["action_mask"][action] == 0)
        return action

    result = evaluate(policy, rules, opponents="heuristic", deals=args.eval_deals, name="rllib-main")
    me = result.bots[0]
    print(f"illegal actions: {illegal}")
    print(f"points per deal: {me.mean:.2f} [{me.ci_low:.2f}, {me.ci_high:.2f}] over {result.sets} duplicate sets")


if __name__ == "__main__":
    main()
