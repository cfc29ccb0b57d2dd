"""CleanRL-style masked PPO on ``HeartsVectorEnv``: one file, torch only.

The learner sits at one seat of every table (``--seat``, default random per deal) against the heuristic
bot (``--opponents``); the tables are ``HeartsVectorEnv`` sub-envs on ``--device`` with torch arrays, so
observations, masks and actions never leave the device. Illegal actions are masked out of the policy's
softmax (``info["action_mask"]``; never all False, also right after a deal ends). Autoreset is
``SAME_STEP``: after a deal ends the next observation already belongs to the next deal, which is the
convention CleanRL's PPO loop assumes (``dones[t]`` marks the first observation of a new episode).

    python examples/cleanrl_ppo_vector.py --total-timesteps 4096 --num-envs 64 --num-steps 16   # < 1 minute
    python examples/cleanrl_ppo_vector.py --total-timesteps 20000000 --num-envs 1024 --device cuda

The last line printed is ``final: ...`` (steps, episodes, mean return of the last 100 deals, steps/s).
"""

from __future__ import annotations

import argparse
import time
from collections import deque

import numpy as np
import torch
from torch import nn

from hearts_env.envs.vector import HeartsVectorEnv


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description="masked PPO on HeartsVectorEnv")
    p.add_argument("--total-timesteps", type=int, default=1_000_000, help="learner decisions in all")
    p.add_argument("--num-envs", type=int, default=256)
    p.add_argument("--num-steps", type=int, default=32, help="steps per env per rollout")
    p.add_argument("--rules", default="standard")
    p.add_argument("--opponents", default="heuristic", help="heuristic, random or a model directory")
    p.add_argument("--seat", default="random", help="a seat number or 'random'")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0, help="1: a deal is short and paid at its end")
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--reward-scale", type=float, default=0.1, help="rewards are minus deal points times this")
    p.add_argument("--hidden", type=int, default=256)
    return p.parse_args()


def layer(i: int, o: int, std: float = float(np.sqrt(2))) -> nn.Linear:
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    def __init__(self, obs_dim: int, num_actions: int, hidden: int) -> None:
        super().__init__()
        self.trunk = nn.Sequential(layer(obs_dim, hidden), nn.ReLU(), layer(hidden, hidden), nn.ReLU())
        self.actor = layer(hidden, num_actions, 0.01)
        self.critic = layer(hidden, 1, 1.0)

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(self.trunk(x)).squeeze(-1)

    def act(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        h = self.trunk(x)
        logits = self.actor(h).masked_fill(~mask, -1e8)  # illegal actions get no probability
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(h).squeeze(-1)


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    device = torch.device(args.device)
    seat = args.seat if args.seat == "random" else int(args.seat)
    envs = HeartsVectorEnv(
        args.num_envs,
        args.rules,
        device=device,
        seat=seat,
        opponents=args.opponents,
        reward_scale=args.reward_scale,
        array_type="torch",
    )
    n, t_len = args.num_envs, args.num_steps
    batch_size = n * t_len
    minibatch = max(1, batch_size // args.num_minibatches)
    updates = max(1, args.total_timesteps // batch_size)
    obs_dim, num_actions = envs.single_observation_space.shape[0], envs.single_action_space.n
    agent = Agent(obs_dim, num_actions, args.hidden).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros(t_len, n, obs_dim, device=device)
    masks = torch.zeros(t_len, n, num_actions, dtype=torch.bool, device=device)
    actions = torch.zeros(t_len, n, dtype=torch.long, device=device)
    logprobs = torch.zeros(t_len, n, device=device)
    rewards = torch.zeros(t_len, n, device=device)
    dones = torch.zeros(t_len, n, device=device)
    values = torch.zeros(t_len, n, device=device)

    next_obs, info = envs.reset(seed=args.seed)
    next_mask = info["action_mask"]
    next_done = torch.zeros(n, device=device)
    episode_return = torch.zeros(n, device=device)
    recent: deque[float] = deque(maxlen=100)
    episodes, global_step, start = 0, 0, time.time()
    for update in range(1, updates + 1):
        for group in optimizer.param_groups:
            group["lr"] = (1.0 - (update - 1) / updates) * args.learning_rate
        for t in range(t_len):
            global_step += n
            obs[t], masks[t], dones[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.act(next_obs, next_mask)
            actions[t], logprobs[t], values[t] = action, logprob, value
            next_obs, reward, terminated, truncated, info = envs.step(action)
            next_mask = info["action_mask"]
            rewards[t] = reward
            next_done = (terminated | truncated).float()
            episode_return += reward
            if bool(terminated.any()):
                finished = episode_return[terminated] / args.reward_scale
                recent.extend(finished.tolist())
                episodes += int(terminated.sum())
                episode_return = torch.where(terminated, 0.0, episode_return)

        with torch.no_grad():  # GAE; dones[t] flags obs[t] as the first of a new deal
            next_value = agent.value(next_obs)
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(n, device=device)
            for t in reversed(range(t_len)):
                nonterminal = 1.0 - (next_done if t == t_len - 1 else dones[t + 1])
                following = next_value if t == t_len - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * nonterminal - values[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                advantages[t] = last
            returns = advantages + values

        b_obs, b_masks = obs.reshape(batch_size, obs_dim), masks.reshape(batch_size, num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_adv, b_returns = advantages.reshape(-1), returns.reshape(-1)
        for _ in range(args.update_epochs):
            order = torch.randperm(batch_size, device=device)
            for i in range(0, batch_size, minibatch):
                mb = order[i : i + minibatch]
                _, newlogprob, entropy, newvalue = agent.act(b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                adv = b_adv[mb]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8) if adv.numel() > 1 else adv
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        mean = float(np.mean(recent)) if recent else float("nan")
        print(
            f"update {update}/{updates} steps={global_step} episodes={episodes} mean_return={mean:.2f} "
            f"pg_loss={pg_loss.item():.4f} v_loss={v_loss.item():.4f} sps={global_step / (time.time() - start):.0f}",
            flush=True,
        )
    mean = float(np.mean(recent)) if recent else float("nan")
    sps = global_step / (time.time() - start)
    print(f"final: steps={global_step} episodes={episodes} mean_return_last100={mean:.2f} sps={sps:.0f}")


if __name__ == "__main__":
    main()
