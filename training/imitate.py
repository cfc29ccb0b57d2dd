"""Imitation warm start: teach a network the heuristic bot's choices before PPO takes over.

PPO from random weights spends tens of millions of decisions rediscovering what a rule-based bot
already knows (lead low, dump the ♠Q, keep ♠A/♠K out of danger). Behaviour cloning gives that
for a few million samples: tables play on the batched engine, every decision is labelled with the
batched heuristic bot's choice, and the network minimises the masked cross-entropy of the label
plus the squared error of its value against the seat's final reward (the same reward PPO uses:
minus the deal points over the deal's penalty total), so PPO starts with a value function too.

``teacher`` names whose choices are imitated: the heuristic bot (the default), or one of the scripted
adversaries' batched policies (``moon-late``, ...). A learned best response that starts as a moon
seeker (``imitation_teacher = "moon-late"``) looks for what PPO can add to the moon attack, where one
that starts as the heuristic bot rarely tries to shoot at all.

The played action is the teacher's, except with probability ``dagger`` it is the network's own
sample (a DAgger-style mix): the network then also sees, with the right labels, the states its own
mistakes lead to, not only those on the heuristic's path.

``training.ppo`` calls ``imitate`` when ``imitation_samples > 0``; on its own:

    python -m hearts_env.training.imitate --rules standard --samples 4000000 --export-name imitation-standard
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from hearts_env.batched import heuristic_actions
from hearts_env.core.rules import Rules
from hearts_env.nets import user_models_dir

from .engines import make_engine, reward_scales
from .export import export_model
from .network import PolicyValueNetwork, build_network, greedy_actions, masked_log_probs, mlp_config, sample_actions
from .opponents import scripted_adversaries


@dataclass(frozen=True)
class ImitationSettings:
    """How the warm start runs (``training.ppo.Args`` carries these as ``imitation_*`` fields)."""

    samples: int = 4_000_000  # labelled decisions to collect (each is trained on ``epochs`` times)
    num_envs: int = 1024  # tables in lockstep
    num_steps: int = 192  # steps per table per rollout; decisions of deals unfinished at its end are dropped
    epochs: int = 2  # passes over each rollout
    minibatch_size: int = 2048
    learning_rate: float = 1e-3
    vf_coef: float = 0.5
    dagger: float = 0.25  # probability that a decision is played by the network (labelled all the same)
    seed: int = 1
    teacher: str = "heuristic"  # whose choices are the labels: heuristic, or a scripted adversary's label


def teacher_policy(name: str) -> Callable[[Any], torch.Tensor]:
    """Labels for every row of an engine: the batched heuristic bot's, or a scripted adversary's
    (``ValueError`` names an unknown teacher and the valid ones)."""
    if name == "heuristic":
        return lambda engine: heuristic_actions(engine, None)
    scripted = scripted_adversaries()
    if name not in scripted:
        raise ValueError(f"unknown imitation teacher {name!r}; use heuristic, {', '.join(sorted(scripted))}")
    return scripted[name]()


def deal_returns(rewards: torch.Tensor, done: torch.Tensor, current: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The final reward of the deciding seat for every decision of a rollout.

    ``rewards`` is ``(T, B, N)`` (nonzero only where ``done``), ``done`` and ``current`` ``(T, B)``.
    Returns ``(returns, known)``: ``known`` is false for decisions of deals still running at the end."""
    steps, batch, _ = rewards.shape
    returns = torch.zeros(steps, batch, device=rewards.device)
    known = torch.zeros(steps, batch, dtype=torch.bool, device=rewards.device)
    final = torch.zeros(batch, rewards.shape[2], device=rewards.device)
    seen = torch.zeros(batch, dtype=torch.bool, device=rewards.device)
    cols = torch.arange(batch, device=rewards.device)
    for t in range(steps - 1, -1, -1):
        final = torch.where(done[t].unsqueeze(1), rewards[t], final)
        seen = seen | done[t]
        returns[t] = final[cols, current[t]]
        known[t] = seen
    return returns, known


def imitate(
    network: PolicyValueNetwork,
    rules: Rules | Sequence[Rules],
    settings: ImitationSettings,
    device: torch.device | str = "cpu",
    report: Callable[[dict[str, float]], None] | None = None,
) -> dict[str, float]:
    """Train ``network`` in place on the teacher's labelled decisions; returns the last rollout's figures
    (``accuracy``: share of decisions where the greedy choice equals the teacher's). Several rule
    sets share the tables evenly (``MixedBatchedHearts``)."""
    device = torch.device(device)
    teacher = teacher_policy(settings.teacher)
    engine = make_engine("batched", rules, settings.num_envs, device, settings.seed)
    generator = torch.Generator(device=device).manual_seed(settings.seed + 1)
    optimizer = torch.optim.Adam(network.parameters(), lr=settings.learning_rate, eps=1e-5)
    B, T, n = settings.num_envs, settings.num_steps, engine.num_players
    full_obs = torch.zeros(B, engine.observation_size, device=device)
    obs_buf = torch.zeros(T, B, network.input_size, device=device)  # only the entries the network reads
    mask_buf = torch.zeros(T, B, 68, dtype=torch.bool, device=device)
    label_buf = torch.zeros(T, B, dtype=torch.int64, device=device)
    current_buf = torch.zeros(T, B, dtype=torch.int64, device=device)
    reward_buf = torch.zeros(T, B, n, device=device)
    done_buf = torch.zeros(T, B, dtype=torch.bool, device=device)
    scale = reward_scales(engine).unsqueeze(1)  # (B, 1)
    rollouts = max(1, math.ceil(settings.samples / (B * T)))
    figures: dict[str, float] = {}
    start = time.perf_counter()
    for rollout in range(rollouts):
        for group in optimizer.param_groups:  # linear decay to a tenth
            group["lr"] = settings.learning_rate * (1.0 - 0.9 * rollout / rollouts)
        network.eval()
        with torch.no_grad():
            for t in range(T):
                obs = network.select_inputs(engine.observe(out=full_obs), out=obs_buf[t])
                mask = engine.legal_mask()
                mask_buf[t] = mask
                labels = teacher(engine)
                label_buf[t] = labels
                current_buf[t] = engine.current_player
                played = labels
                if settings.dagger > 0 and rollout > 0:
                    own = torch.rand(B, generator=generator, device=device) < settings.dagger
                    if bool(own.any()):
                        logits, _ = network(obs[own])
                        played = labels.clone()
                        played[own] = sample_actions(logits, mask[own], generator)
                result = engine.step(played)
                reward_buf[t] = result.rewards * scale
                done_buf[t] = result.done
        returns, known = deal_returns(reward_buf, done_buf, current_buf)
        b_obs, b_mask, b_label, b_ret = obs_buf[known], mask_buf[known], label_buf[known], returns[known]
        count = b_obs.shape[0]
        network.train()
        sums = {"policy_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        steps = 0
        for _ in range(settings.epochs):
            order = torch.randperm(count, device=device, generator=generator)
            for begin in range(0, count, settings.minibatch_size):
                idx = order[begin : begin + settings.minibatch_size]
                logits, value = network(b_obs[idx])
                logp = masked_log_probs(logits, b_mask[idx])
                policy_loss = -logp.gather(1, b_label[idx].unsqueeze(1)).mean()
                value_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                loss = policy_loss + settings.vf_coef * value_loss
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                with torch.no_grad():
                    sums["policy_loss"] += float(policy_loss)
                    sums["value_loss"] += float(value_loss)
                    sums["accuracy"] += float((greedy_actions(logits, b_mask[idx]) == b_label[idx]).float().mean())
                steps += 1
        figures = {k: v / max(1, steps) for k, v in sums.items()}
        figures.update(rollout=rollout + 1, rollouts=rollouts, samples=(rollout + 1) * B * T)
        figures["samples_per_s"] = figures["samples"] / (time.perf_counter() - start)
        if report is not None:
            report(figures)
    return figures


def print_report(figures: dict[str, float]) -> None:
    print(
        f"imitation rollout {figures['rollout']}/{figures['rollouts']}: accuracy {figures['accuracy']:.3f} "
        f"policy loss {figures['policy_loss']:.3f} value loss {figures['value_loss']:.4f} "
        f"({figures['samples_per_s']:,.0f} samples/s)",
        file=sys.stderr,
        flush=True,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hearts_env.training.imitate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="standard", help="preset name or rule file")
    parser.add_argument("--hidden", type=int, nargs="+", default=[128, 128], help="MLP hidden layer sizes")
    parser.add_argument("--samples", type=int, default=ImitationSettings.samples, help="labelled decisions")
    parser.add_argument("--dagger", type=float, default=ImitationSettings.dagger, help="share played by the network")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--teacher", default="heuristic", help="heuristic, or a scripted adversary (moon-late, ...)")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: default)")
    parser.add_argument("--export-name", default="", help="export the result to models/<name>")
    ns = parser.parse_args(argv)
    if ns.threads:
        torch.set_num_threads(ns.threads)
    torch.manual_seed(ns.seed)
    rules = Rules.load(ns.rules)
    network = build_network(mlp_config(hidden=ns.hidden), rules.num_players)
    try:
        teacher_policy(ns.teacher)
    except ValueError as err:
        parser.error(f"--teacher: {err}")
    settings = ImitationSettings(samples=ns.samples, dagger=ns.dagger, seed=ns.seed, teacher=ns.teacher)
    started = time.perf_counter()
    figures: dict[str, Any] = imitate(network, rules, settings, report=print_report)
    if ns.export_name:
        export_model(
            network.eval(),
            user_models_dir() / ns.export_name,
            name=ns.export_name,
            rules=rules,
            training_info={
                "imitation_samples": figures["samples"],
                "imitation_teacher": ns.teacher,
                "imitation_accuracy": round(figures["accuracy"], 4),
                "wall_time_s": round(time.perf_counter() - started, 1),
            },
            overwrite=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
