"""Decisions per second of the moon guard (``guard:base=<model>``) at several world budgets, beside its
bare model, on the decisions of one seat at real tables.

    python benchmarks/guard_speed.py [--base ppo-robust] [--worlds 16 32 64] [--deals 12] [--options shoot=2]
    python benchmarks/guard_speed.py --base ppo-mixed-tuned --rules omnibus --options shoot=2,bonus=1

Positions: every decision of seat 0 over ``--deals`` seeded deals of ``--rules`` (default standard), the
model in seat 0 and the seats around it taken in turn from three heuristic bots and a persistent moon seeker
among two heuristic bots (so the guard meets both ordinary tables and moon attempts). The guard fires only
where one opponent holds every point won; each line says on how many of the positions it did and what those
cost; with ``shoot=`` among ``--options`` (the guard's other options, e.g. ``margin=1,threat=0.03,wins=2,shoot=2``),
how often the seat's own moon plan was played; with ``bonus=``, how often the bonus card's search changed the
base's move. Rates are positions / CPU seconds of this process (``time.process_time``).

The last line is ``ours=<decisions/s> peer=<decisions/s> ratio=<ours/peer>``: ``ours`` is the guard
at its default budget, ``peer`` the bare model on the same positions in the same process.
"""

from __future__ import annotations

import argparse
import inspect
import time

from hearts_env.bots import make_bot
from hearts_env.bots.guard import GuardedBot
from hearts_env.core import Rules
from hearts_env.core.deal import DONE, seeded_deal
from hearts_env.obs import SeatedTable


def positions(rules: Rules, base: str, deals: int) -> list[dict]:
    """Seat 0's observations (those with a choice) over ``deals`` deals, the bare model playing it."""
    model = make_bot(base, rules, seed=0)
    out: list[dict] = []
    for d in range(deals):
        lineup = ["heuristic"] * 3 if d % 2 == 0 else ["moon:giveup=never", "heuristic", "heuristic"]
        others = [make_bot(spec, rules, seed=d) for spec in lineup]
        deal = seeded_deal(rules, 7000 + d)
        table = SeatedTable(rules)
        table.start(deal)
        while deal.phase != DONE:
            seat = deal.current_player
            obs = table.observation(seat)
            if seat == 0:
                if int(obs["action_mask"].sum()) > 1:
                    out.append(obs)
                action = model.act(obs)
            else:
                action = others[seat - 1].act(obs)
            table.apply(action)
    return out


def rate(bot, observations: list[dict]) -> float:
    """Decisions per CPU second."""
    cpu = time.process_time()
    for obs in observations:
        bot.act(obs)
    return len(observations) / max(time.process_time() - cpu, 1e-9)


def main() -> None:
    default_worlds = inspect.signature(GuardedBot).parameters["worlds"].default
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="ppo-robust", help="the guarded bot (a model name or directory)")
    parser.add_argument("--worlds", type=int, nargs="+", default=[16, 32, 64])
    parser.add_argument("--deals", type=int, default=12)
    parser.add_argument("--rules", default="standard", help="a preset or rule file")
    parser.add_argument("--options", default="", help="the guard's other options, e.g. margin=1,threat=0.03,shoot=2")
    args = parser.parse_args()
    rules = Rules.load(args.rules)
    observations = positions(rules, args.base, args.deals)
    peer = rate(make_bot(args.base, rules, seed=0), observations)
    print(f"{args.base}: {peer:,.0f} decisions/s (CPU) on {len(observations)} positions")
    ours = 0.0
    extra = f",{args.options}" if args.options else ""
    for worlds in sorted(set(args.worlds) | {default_worlds}):
        bot = make_bot(f"guard:base={args.base},worlds={worlds}{extra}", rules, seed=0)
        assert isinstance(bot, GuardedBot)
        cpu = rate(bot, observations)
        share = bot.guarded / max(1, len(observations))
        each = (len(observations) / cpu - len(observations) / peer) / max(1, bot.guarded) * 1000  # per firing
        default = " (default)" if worlds == default_worlds else ""
        shots = f"; its moon plan played {bot.shots} times" if bot.shoot is not None else ""
        if bot.critic is not None:
            shots += f"; the search changed {bot.bonus_plays} moves for the bonus card, {bot.critic_plays} others"
        print(
            f"guard worlds={worlds}{default}: {cpu:,.1f} decisions/s (CPU); fired on {bot.guarded} "
            f"({share:.0%}), {each:,.0f} ms each{shots}"
        )
        if worlds == default_worlds:
            ours = cpu
    print(f"ours={ours:.1f} peer={peer:.1f} ratio={ours / peer:.4f}")


if __name__ == "__main__":
    main()
