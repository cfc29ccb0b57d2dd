"""Batched engine speed: random play of whole standard deals, B at a time, beside OpenSpiel's C++ loop.

Ours: ``hearts_env.batched.BatchedHearts`` with the standard rules, B deals in lockstep on ``--device``;
every decision of every row takes a uniformly random legal action (``UniformRandomPolicy``), and after
each step the engine produces the legal masks ``(B, 68)`` and the observations ``(B, D)`` of the seats to
move (``hearts_env.env.encoding``, 2,577 float32 per row, written into a reused buffer as a rollout
would). ``--obs packed`` produces them packed losslessly instead (``observe_packed``: the card rows as
52-bit masks plus the other segments, a twelfth of the bytes, exactly unpackable to the vectors);
``--obs none`` produces masks only. ``--obs ceiling`` writes zeros over the same float32 buffer instead
of observations: a memset of the bytes the vectors take, so its figure is the most any observation
builder could reach on top of this engine at this batch size. A decision is one row's action: B per step.

Peer: OpenSpiel's ``hearts`` played whole in C++ by ``pyspiel.evaluate_bots`` with
``pyspiel.make_uniform_random_bot`` for every seat; it produces no observations. Its decisions are its
non-chance moves: 52 plays plus 12 passes unless the pass-direction chance node picks no pass (1 in 4),
61 per game on average, which is what is counted per game (our standard cycle also averages 61).

The two run in alternating rounds in one process, so machine noise hits both; each figure is the median
over rounds. Peak memory per deal is the process's peak resident memory growth while ours ran, divided by
B (on CUDA: ``torch.cuda.max_memory_allocated`` / B), beside the exact bytes of the state tensors per row.

    python benchmarks/batched_speed.py --device cpu --batch 4096 [--obs full|packed|none|ceiling] [--seconds 3]
        [--rounds 3] [--threads 1]

Last line: ``ours=<decisions/s> peer=<decisions/s> ratio=<ours/peer>``.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import statistics
import time

import torch

from hearts_env import Rules
from hearts_env.batched import BatchedHearts
from hearts_env.batched.policies import UniformRandomPolicy

OPENSPIEL_DECISIONS_PER_GAME = 52 + 12 * 3 / 4


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class Ours:
    def __init__(self, batch: int, device: str, observations: str, seed: int) -> None:
        self.device = torch.device(device)
        self.observations = observations
        if self.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(self.device)
        self.rss_before = _rss_bytes()
        self.engine = BatchedHearts(Rules.preset("standard"), batch, device=self.device, seed=seed)
        self.policy = UniformRandomPolicy(self.device, seed=seed + 1)
        full = observations in ("full", "ceiling")
        self.obs = torch.empty(batch, self.engine.observation_size, device=self.device) if full else None
        self.packed = self.engine.observe_packed() if observations == "packed" else None  # reused buffers
        self.batch = batch
        self.mask_sum = 0

    def step(self) -> None:
        self.engine.step(self.policy(self.engine))
        mask = self.engine.legal_mask()
        if self.observations == "ceiling":
            self.obs.zero_()  # the bytes of the vectors written, none of the work of computing them
        elif self.obs is not None:
            self.engine.observe(out=self.obs)
        elif self.packed is not None:
            self.engine.observe_packed(out=self.packed)
        del mask

    def run(self, seconds: float) -> float:
        for _ in range(3):
            self.step()
        _sync(self.device)
        steps = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            for _ in range(10):
                self.step()
            steps += 10
            _sync(self.device)
        return steps * self.batch / (time.perf_counter() - start)

    def memory_per_deal(self) -> tuple[float, float]:
        state = self.engine.state
        state_bytes = sum(
            getattr(state, f.name).element_size() * getattr(state, f.name).numel() for f in dataclasses.fields(state)
        )
        if self.device.type == "cuda":
            peak = torch.cuda.max_memory_allocated(self.device)
        else:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - self.rss_before
        return peak / self.batch, state_bytes / self.batch


def run_openspiel(seconds: float, seed: int) -> float:
    import pyspiel

    game = pyspiel.load_game("hearts")
    bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(game.num_players())]
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(200):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + games)
            games += 1
    return games * OPENSPIEL_DECISIONS_PER_GAME / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--batch", type=int, default=4096, help="deals in lockstep (B)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per side per round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (the median is reported)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (OpenSpiel's loop uses one)")
    parser.add_argument(
        "--obs",
        default="full",
        choices=["full", "packed", "none", "ceiling"],
        help="observation vectors, packed, none, or zeros written over the vectors' bytes (the ceiling)",
    )
    parser.add_argument("--no-peer", action="store_true", help="skip OpenSpiel (peer=0)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    ours = Ours(args.batch, args.device, args.obs, seed=0)
    what = {
        "none": "masks only",
        "packed": "packed observations and masks",
        "full": f"observations ({ours.engine.observation_size} float32) and masks",
        "ceiling": f"masks, and zeros over {ours.engine.observation_size} float32 per row (the ceiling)",
    }[args.obs]
    print(f"ours: batch {args.batch} on {args.device}, {args.threads} thread(s), {what}", flush=True)
    mine, peer = [], []
    memory = (0.0, 0.0)
    for r in range(args.rounds):
        mine.append(ours.run(args.seconds))
        if r == 0:
            memory = ours.memory_per_deal()  # before OpenSpiel is loaded into the process
        peer.append(0.0 if args.no_peer else run_openspiel(args.seconds, r))
        print(f"round {r + 1}: ours {mine[-1]:,.0f}/s  openspiel {peer[-1]:,.0f}/s", flush=True)
    peak, state = memory
    print(f"memory per deal: peak {peak / 1024:.1f} KiB (state tensors {state / 1024:.2f} KiB)")
    o, p = statistics.median(mine), statistics.median(peer)
    print(f"ours={o:.0f} peer={p:.0f} ratio={(o / p) if p else float('nan'):.3f}")


if __name__ == "__main__":
    main()
