"""Where a bot's points go: the bot in one seat of a field, against a reference bot in the same seat of the
same deals, split into what each took (hearts, the queen, the bonus card) and the moons it shot and conceded.

Both tables are dealt as ``hearts tournament`` deals them (the same duplicate sets, seats rotated, every bot's
seed from the tournament seed), so each component is a paired difference over the sets, with a 95% interval.
This is how the README found where the guarded mixed model lost its points to ``pimc`` on omnibus (the ♦J,
and the moon choice).

    python examples/points_breakdown.py 'guard:base=ppo-mixed-tuned,margin=1,threat=0.03,wins=2,shoot=2' \\
        --reference pimc --field pimc --rules omnibus --deals 100 --seed 22 --workers 2   # about 11 minutes

The last line printed is ``final: ...`` (the bot's and the reference's points per deal and their difference).
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from hearts_env.bots import make_bot
from hearts_env.core import Rules
from hearts_env.core.cards import HEARTS_MASK, QS
from hearts_env.core.deal import DONE
from hearts_env.obs import SeatedTable
from hearts_env.tournament.seeding import deal_for_seed, deal_seeds, game_seed
from hearts_env.tournament.stats import mean_interval

#: The per-game components, in the order printed.
COMPONENTS = ("points", "hearts", "queen", "bonus card", "shot", "conceded", "others' mean")


def play(rules_spec: str, first: str, field: str, deals: int, seed: int) -> np.ndarray:
    """``(deals, components)``: for each duplicate set, the mean over its rotations of what ``first`` took in its
    seat at a table of ``field`` bots."""
    rules = Rules.load(rules_spec)
    n = rules.num_players
    bots = [make_bot(first, rules, game_seed(seed, -1, 0))]
    bots += [make_bot(field, rules, game_seed(seed, -1, j)) for j in range(1, n)]
    bonus = rules.tables.bonus_card
    table = SeatedTable(rules)
    rows = np.zeros((deals, len(COMPONENTS)))
    for i, set_seed in enumerate(deal_seeds(seed, deals)):
        for r in range(n):
            seat_of = [(j + r) % n for j in range(n)]
            seat_bots = [bots[0]] * n
            for j, seat in enumerate(seat_of):
                seat_bots[seat] = bots[j]
                bots[j].reset(game_seed(set_seed, r, j))
            deal = deal_for_seed(rules, set_seed)
            table.start(deal)
            while deal.phase != DONE:
                seat = deal.current_player
                table.apply(int(seat_bots[seat].act(table.observation(seat))))
            result = deal.result
            assert result is not None
            me = seat_of[0]
            won = deal.won[me]
            rows[i] += (
                result.scores[me],
                (won & HEARTS_MASK).bit_count(),
                won >> QS & 1,
                won >> bonus & 1 if bonus >= 0 else 0,
                result.shooter == me,
                result.shooter is not None and result.shooter != me,
                (sum(result.scores) - result.scores[me]) / (n - 1),
            )
    return rows / n


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bot", help="the bot under study (any tournament spec)")
    p.add_argument("--reference", default="pimc", help="the bot in the same seat of the same deals")
    p.add_argument("--field", default="pimc", help="the other seats")
    p.add_argument("--rules", default="standard")
    p.add_argument("--deals", type=int, default=100, help="duplicate sets")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="2: the two tables in two processes")
    args = p.parse_args()
    jobs = [(args.rules, who, args.field, args.deals, args.seed) for who in (args.bot, args.reference)]
    if args.workers > 1:
        with ProcessPoolExecutor(2) as pool:
            mine, theirs = pool.map(play, *zip(*jobs, strict=True))
    else:
        mine, theirs = (play(*job) for job in jobs)
    print(f"{args.bot} against {args.reference} in its seat, three {args.field}, {args.rules}, {args.deals} sets")
    print(f"{'per deal':14s} {'bot':>8s} {'reference':>10s}   difference [95%]")
    for k, name in enumerate(COMPONENTS):
        mean, _, low, high = mean_interval(mine[:, k] - theirs[:, k])
        print(
            f"{name:14s} {mine[:, k].mean():8.3f} {theirs[:, k].mean():10.3f}   {mean:+.3f} [{low:+.3f}, {high:+.3f}]"
        )
    mean, _, low, high = mean_interval(mine[:, 0] - theirs[:, 0])
    print(
        f"final: bot={mine[:, 0].mean():.3f} reference={theirs[:, 0].mean():.3f} "
        f"difference={mean:+.3f} [{low:+.3f}, {high:+.3f}]"
    )


if __name__ == "__main__":
    main()
