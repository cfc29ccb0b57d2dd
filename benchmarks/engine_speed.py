"""Engine speed: uniform random legal play of whole standard deals, ours beside OpenSpiel's `hearts`.

Both engines are driven from Python the same way in the same process: chance outcomes sampled
(OpenSpiel) or a seeded deal (ours), then `legal_actions()`, a uniform choice, `apply_action`,
until the deal ends. A decision is a non-chance move (passing cards and playing cards). The two
engines run in alternating rounds, timed in this process's CPU time (``time.process_time``), so
that other work on the machine skews neither; the figure per engine is the median over rounds,
and the spread of the per-round ratios is printed before the last line.

    python benchmarks/engine_speed.py [--seconds 2] [--rounds 5]

Last line: ``ours=<decisions/s> peer=<decisions/s> ratio=<ours/peer>``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from hearts_env import Deal, Rules


def run_ours(seconds: float, seed: int) -> float:
    rules = Rules.preset("standard")
    rng = random.Random(seed)
    rand = rng.random
    decisions = 0
    deals = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for _ in range(20):
            deal = Deal(rules, seed=rng.getrandbits(32), pass_kind=rules.pass_kind_for_deal(deals))
            deals += 1
            legal_actions = deal.legal_actions
            apply_action = deal.apply_action
            while deal.current_player >= 0:
                legal = legal_actions()
                apply_action(legal[int(rand() * len(legal))])
                decisions += 1
    return decisions / (time.process_time() - start)


def run_openspiel(seconds: float, seed: int) -> float:
    import pyspiel

    game = pyspiel.load_game("hearts")
    rng = random.Random(seed)
    rand = rng.random
    decisions = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for _ in range(20):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[int(rand() * len(outcomes))][0])
                    continue
                legal = state.legal_actions()
                state.apply_action(legal[int(rand() * len(legal))])
                decisions += 1
    return decisions / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per engine per round")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (the median is reported)")
    args = parser.parse_args()
    ours, peer = [], []
    for r in range(args.rounds):
        ours.append(run_ours(args.seconds, r))
        peer.append(run_openspiel(args.seconds, r))
        print(
            f"round {r + 1}: ours {ours[-1]:,.0f}/s  openspiel {peer[-1]:,.0f}/s  ratio {ours[-1] / peer[-1]:.3f}",
            flush=True,
        )
    ratios = [a / b for a, b in zip(ours, peer, strict=True)]
    print(f"ratio per round: min={min(ratios):.3f} median={statistics.median(ratios):.3f} max={max(ratios):.3f}")
    o, p = statistics.median(ours), statistics.median(peer)
    print(f"ours={o:.0f} peer={p:.0f} ratio={o / p:.3f}")


if __name__ == "__main__":
    main()
