"""Decisions per second of the search bots at several budgets (PIMC's worlds, ISMCTS's iterations),
against the heuristic bot.

    python benchmarks/search_speed.py [--rules standard] [--worlds 8 16 32 64 96] [--iterations 100 300 1000]
                                      [--positions 40] [--rollout heuristic] [--prior ppo-robust]

Positions: every play decision with more than one legal action of a few seeded deals played by the
heuristic bot (the observations the AEC env gives the seat to move), the first ``--positions`` of
them. Each bot decides every position once; the figure is positions / CPU seconds of this process
(``time.process_time``: the machine may be shared, and the bots are single-threaded), with the wall
rate next to it.

Besides the budgets of ``--rollout`` (default: the bot's default rollout, the heuristic bot on the
engine's bitmasks), two lines at the default budget show what the rollout costs: ``rollout=lean``
(the cheaper rule-based player) and the heuristic bot on each world seat's encoded observation (the
same decisions as ``rollout=heuristic``, the way they were made before the bitmask version; on the
first 10 positions only, it is slow). Then PIMC with a model prior (``pimc:prior=<--prior>``, the
default budget: the model's move where it is sure, the search elsewhere), with the share of the
positions it searched, and the same with the model playing the seat's own moves in the rollouts
(``own=<--prior>``, the expert-iteration teacher's values). Then ISMCTS (``ismcts:iterations=K``, the same
rollout) at each of ``--iterations``.

The last line is ``ours=<decisions/s> peer=<decisions/s> ratio=<ours/peer>``: ``ours`` is PIMC at the
default budget (``PIMCBot``'s default ``worlds`` and ``rollout``), ``peer`` is the heuristic bot's
decisions/s on the same positions in the same process (the rule-based bot that the search bot is
meant to beat), ``ratio`` their quotient.
"""

from __future__ import annotations

import argparse
import inspect
import time

from hearts_env.bots import HeuristicBot
from hearts_env.bots.search import BotPolicy, ISMCTSBot, PIMCBot
from hearts_env.core import Rules
from hearts_env.core.deal import PLAYING, seeded_deal
from hearts_env.obs import SeatedTable


def positions(rules: Rules, count: int) -> list[dict]:
    """Play decisions with a real choice, from heuristic self-play on seeded deals."""
    bot = HeuristicBot(rules)
    out: list[dict] = []
    seed = 0
    while len(out) < count:
        table = SeatedTable(rules)
        deal = seeded_deal(rules, seed)
        table.start(deal)
        while not deal.is_terminal():
            obs = table.observation(deal.current_player)
            if deal.phase == PLAYING and len(deal.legal_actions()) > 1:
                out.append(obs)
            table.apply(bot.act(obs))
        seed += 1
    return out[:count]


def rate(bot, observations: list[dict]) -> tuple[float, float]:
    """(decisions per CPU second, decisions per wall second)."""
    cpu, wall = time.process_time(), time.perf_counter()
    for obs in observations:
        bot.act(obs)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return len(observations) / max(cpu, 1e-9), len(observations) / max(wall, 1e-9)


def report(label: str, bot, observations: list[dict]) -> float:
    """Print one budget's line; return its decisions per CPU second."""
    cpu, wall = rate(bot, observations)
    print(f"{label}: {cpu:,.1f} decisions/s (CPU), {wall:,.1f} wall, {1000 / cpu:,.0f} ms each")
    return cpu


def main() -> None:
    parameters = inspect.signature(PIMCBot).parameters
    default_worlds = parameters["worlds"].default
    default_rollout = parameters["rollout"].default
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--worlds", type=int, nargs="+", default=[8, 16, 32, 64, 96])
    parser.add_argument("--iterations", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--rollout", default=default_rollout)
    parser.add_argument("--prior", default="ppo-robust", help="a model for the prior's line ('' to skip it)")
    args = parser.parse_args()
    rules = Rules.load(args.rules)
    observations = positions(rules, args.positions)
    peer_cpu, peer_wall = rate(HeuristicBot(rules), observations)
    print(f"heuristic: {peer_cpu:,.0f} decisions/s (CPU), {peer_wall:,.0f} wall")
    budgets = sorted(set(args.worlds) | {default_worlds})
    ours = 0.0
    for worlds in budgets:
        default = worlds == default_worlds and args.rollout == default_rollout
        label = f"pimc worlds={worlds},rollout={args.rollout}{' (default)' if default else ''}"
        cpu = report(label, PIMCBot(rules, 0, worlds=worlds, rollout=args.rollout), observations)
        if default:
            ours = cpu
    if args.rollout != default_rollout:
        ours = report("pimc (default)", PIMCBot(rules, 0), observations)
    if default_rollout != "lean":
        report(f"pimc worlds={default_worlds},rollout=lean", PIMCBot(rules, 0, rollout="lean"), observations)
    slow = PIMCBot(rules, 0, weigh=False)
    slow.policy = BotPolicy(HeuristicBot(rules))  # the heuristic bot through each world seat's observation
    report(f"pimc worlds={default_worlds}, heuristic on observations (first 10)", slow, observations[:10])
    if args.prior:
        prior = PIMCBot(rules, 0, rollout=args.rollout, prior=args.prior)
        report(f"pimc prior={args.prior}, worlds={default_worlds}", prior, observations)
        print(f"  (searched {prior.searched} of {len(observations)} positions; the model decided the rest)")
        if args.rollout == "heuristic":
            own = PIMCBot(rules, 0, worlds=default_worlds, prior=args.prior, own=args.prior)
            report(f"pimc prior={args.prior},own={args.prior}, worlds={default_worlds}", own, observations)
    default_iterations = inspect.signature(ISMCTSBot).parameters["iterations"].default
    for iterations in sorted(set(args.iterations) | {default_iterations}):
        label = f"ismcts iterations={iterations}{' (default)' if iterations == default_iterations else ''}"
        report(label, ISMCTSBot(rules, 0, iterations=iterations, rollout=args.rollout), observations)
    print(f"ours={ours:.1f} peer={peer_cpu:.1f} ratio={ours / peer_cpu:.4f}")


if __name__ == "__main__":
    main()
