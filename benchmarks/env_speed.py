"""Decisions per second of the Hearts AEC environment, side by side with OpenSpiel's ``hearts``.

Every contender plays whole deals of the standard 4-player game with uniformly random legal moves,
in this one process, for about ``--seconds`` each, split over ``--rounds`` interleaved rounds. Only
real decisions count (not OpenSpiel's chance nodes, nor PettingZoo's ``step(None)`` for finished
agents), but all of their time is timed. Time is this process's CPU time (``time.process_time``),
so other work on the machine does not skew one contender against another; on an idle machine it
equals wall time.

- ``ours``: ``hearts_env.env()`` (PettingZoo's standard wrappers): ``env.last()`` (observation
  vector and action mask), a uniform choice from the mask, ``env.step(action)``.
- ``peer``: ``pyspiel.load_game("hearts")`` driven from Python, fetching
  ``state.information_state_tensor()`` before every decision.
- also shown: the bare ``raw_env``, ``env()`` with PettingZoo's unmodified wrapper classes, the
  engine alone (no observations), and OpenSpiel's ``rl_environment.Environment("hearts")``.

The last line is ``ours=<decisions/s> peer=<decisions/s> ratio=<ours/peer>``.

    python benchmarks/env_speed.py [--seconds 4] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hearts_env.core import Deal, Rules
from hearts_env.envs.aec import raw_env
from hearts_env.envs.hearts_v1 import env as make_env
from hearts_env.envs.wrappers import wrap


def run_for(seconds: float, play_deal: Callable[[int], int], first_deal: int = 0) -> tuple[int, float, int]:
    """Play whole deals until ``seconds`` of CPU time have passed: (decisions, CPU seconds, deals)."""
    decisions = 0
    deal = first_deal
    start = time.process_time()
    while True:
        decisions += play_deal(deal)
        deal += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return decisions, elapsed, deal - first_deal


def aec_player(env) -> Callable[[int], int]:
    rng = random.Random(0)

    def play(seed: int) -> int:
        env.reset(seed=seed)
        decisions = 0
        while env.agents:
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[rng.randrange(legal.size)]))
            decisions += 1
        return decisions

    return play


def engine_player() -> Callable[[int], int]:
    rules = Rules()
    rng = random.Random(0)

    def play(seed: int) -> int:
        deal = Deal(rules, seed=seed, dealer=seed % 4, pass_kind=rules.pass_kind_for_deal(seed % 4))
        decisions = 0
        while not deal.is_terminal():
            legal = deal.legal_actions()
            deal.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
        return decisions

    return play


def openspiel_state_player() -> Callable[[int], int]:
    import pyspiel

    game = pyspiel.load_game("hearts")
    rng = random.Random(0)

    def play(seed: int) -> int:
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            state.information_state_tensor()
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
        return decisions

    return play


def openspiel_rl_player() -> Callable[[int], int]:
    from open_spiel.python import rl_environment

    env = rl_environment.Environment("hearts")
    rng = random.Random(0)

    def play(seed: int) -> int:
        step = env.reset()
        decisions = 0
        while not step.last():
            player = step.observations["current_player"]
            legal = step.observations["legal_actions"][player]
            step = env.step([legal[rng.randrange(len(legal))]])
            decisions += 1
        return decisions

    return play


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per contender (default 5)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--profile", action="store_true", help="cProfile the wrapped env and print the top entries")
    args = parser.parse_args(argv)

    if args.profile:
        play = aec_player(make_env())
        profiler = cProfile.Profile()
        profiler.runcall(run_for, args.seconds, play)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)

    contenders = {
        "engine": ("hearts_env engine (Deal, no observations)", engine_player),
        "raw": ("hearts_env raw_env (AEC, no wrappers)", lambda: aec_player(raw_env())),
        "ours": ("hearts_env env() (AEC, standard wrappers)      [ours]", lambda: aec_player(make_env())),
        "plain": ("hearts_env env(), unmodified PettingZoo wrappers", lambda: aec_player(wrap(raw_env(), fast=False))),
        "peer": ("open_spiel hearts + information_state_tensor() [peer]", openspiel_state_player),
        "rl": ("open_spiel rl_environment", openspiel_rl_player),
    }
    players: dict[str, Callable[[int], int]] = {}
    for key, (label, factory) in contenders.items():
        try:
            players[key] = factory()
        except ImportError as err:
            print(f"{label:<54} skipped ({err})", flush=True)
            continue
        players[key](10**6)  # warm up (first-use caches)
    totals = {key: [0, 0.0, 0] for key in players}
    for _ in range(args.rounds):
        for key, play in players.items():
            decisions, seconds, deals = run_for(args.seconds / args.rounds, play, totals[key][2])
            totals[key][0] += decisions
            totals[key][1] += seconds
            totals[key][2] += deals
    results = {key: decisions / seconds for key, (decisions, seconds, _) in totals.items()}
    for key, rate in results.items():
        print(f"{contenders[key][0]:<54} {rate:>10,.0f} decisions/s ({totals[key][2]:,} deals)")

    ours = results["ours"]
    peer = results.get("peer", float("nan"))
    if "rl" in results:
        print(f"ours / rl_environment: {ours / results['rl']:.1f}x")
    print(f"ours={ours:.0f} peer={peer:.0f} ratio={ours / peer:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
