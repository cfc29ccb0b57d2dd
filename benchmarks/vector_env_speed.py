"""Learner decisions per second of ``HeartsVectorEnv`` (the batched engine, opponents on the device) against
Gymnasium's ``SyncVectorEnv`` of ``HeartsGymEnv`` (one Python env per table), in this one process.

Both play the standard 4-player game, the learner at seat 0 choosing uniformly among its legal actions
(from ``info["action_mask"]``), the three other seats played by the heuristic bot (``opponents=
"heuristic"``: ``engine.heuristic_actions`` on tensors for ours, ``HeuristicBot`` per decision for the
peer). A learner decision is one sub-env's step; the opponents' decisions in between are part of the
cost but not counted. Each contender runs for about ``--seconds`` after one warm-up step; time is this
process's CPU time (``time.process_time``), so other work on the machine does not skew one against
another (on an idle machine it equals wall time). One torch thread (``torch.set_num_threads(1)``).

- ``ours``: ``HeartsVectorEnv(num_envs=256)`` and ``(1024)`` (``--device cuda`` for a GPU; then wall
  time is used, as CPU time does not see the device);
- ``peer``: ``gymnasium.vector.SyncVectorEnv([HeartsGymEnv] * k)`` for k = 8 and 32.

The last line is ``ours=<learner decisions/s> peer=<learner decisions/s> ratio=<ours/peer>``: the best
of our sizes over the best of the peer's.

    python benchmarks/vector_env_speed.py [--seconds 3] [--device cpu]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium
import numpy as np
import torch

from hearts_env.batched import sample_uniform
from hearts_env.envs import HeartsGymEnv
from hearts_env.envs.vector import HeartsVectorEnv


def clock(device: str) -> float:
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        return time.perf_counter()
    return time.process_time()


def run_ours(num_envs: int, seconds: float, device: str) -> float:
    env = HeartsVectorEnv(num_envs, "standard", opponents="heuristic", device=device, array_type="torch")
    _, info = env.reset(seed=0)
    gen = torch.Generator(device=env.device).manual_seed(0)
    _, _, _, _, info = env.step(sample_uniform(info["action_mask"], gen))  # warm-up
    steps = 0
    start = clock(device)
    while True:
        _, _, _, _, info = env.step(sample_uniform(info["action_mask"], gen))
        steps += 1
        elapsed = clock(device) - start
        if elapsed >= seconds:
            return steps * num_envs / elapsed


def run_peer(num_envs: int, seconds: float) -> float:
    env = gymnasium.vector.SyncVectorEnv(
        [lambda: HeartsGymEnv("standard", opponents="heuristic") for _ in range(num_envs)],
        autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP,
    )
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)

    def actions(mask: np.ndarray) -> np.ndarray:
        return np.array([rng.choice(np.flatnonzero(row)) for row in mask])

    _, _, _, _, info = env.step(actions(info["action_mask"]))
    steps = 0
    start = time.process_time()
    while True:
        _, _, _, _, info = env.step(actions(info["action_mask"]))
        steps += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps * num_envs / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per contender (default 3)")
    parser.add_argument("--device", default="cpu", help="device of HeartsVectorEnv (default cpu)")
    parser.add_argument("--ours", type=int, nargs="+", default=[256, 1024], help="num_envs of ours")
    parser.add_argument("--peer", type=int, nargs="+", default=[8, 32], help="num_envs of the SyncVectorEnv")
    args = parser.parse_args()
    torch.set_num_threads(1)
    ours = {}
    for n in args.ours:
        ours[n] = run_ours(n, args.seconds, args.device)
        print(f"HeartsVectorEnv num_envs={n:5d} device={args.device}: {ours[n]:10.0f} learner decisions/s", flush=True)
    peer = {}
    for n in args.peer:
        peer[n] = run_peer(n, args.seconds)
        print(f"SyncVectorEnv(HeartsGymEnv) num_envs={n:3d}: {peer[n]:10.0f} learner decisions/s", flush=True)
    best_ours, best_peer = max(ours.values()), max(peer.values())
    print(f"ours={best_ours:.0f} peer={best_peer:.0f} ratio={best_ours / best_peer:.1f}")


if __name__ == "__main__":
    main()
