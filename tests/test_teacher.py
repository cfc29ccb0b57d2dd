"""The moon-defence teacher's trigger (``hearts_env.training.teacher.moon_threat``) read from the
observation, against the heuristic bot's own ``_moon_threat`` on the reference engine: every play
decision of deals where a moon seeker sits among heuristic bots, over rule sets with different moon
rules, penalty totals, deck sizes and seat counts."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from hearts_env.bots import HeuristicBot, make_bot  # noqa: E402
from hearts_env.core.deal import PLAYING, seeded_deal  # noqa: E402
from hearts_env.core.rules import Rules  # noqa: E402
from hearts_env.obs import SeatedTable, seat_view  # noqa: E402
from hearts_env.training.teacher import moon_threat  # noqa: E402

PRESETS = [
    "standard", "omnibus", "source_heart_ace_30", "three_player_kitty", "six_to_eight", "spot_hearts", "pre_black_lady",
]  # fmt: skip


@pytest.mark.parametrize("preset", PRESETS)
def test_the_teacher_sees_a_moon_attempt_exactly_where_the_heuristic_bot_does(preset) -> None:
    rules = Rules.load(preset)
    n = rules.num_players
    bot = HeuristicBot(rules)
    seated = 0
    agree = {True: 0, False: 0}
    for deal_number in range(24):
        deal = seeded_deal(rules, 1000 + deal_number)
        table = SeatedTable(rules)
        table.start(deal)
        seeker = deal_number % n
        players = [make_bot("moon:giveup=never" if s == seeker else "heuristic", rules=rules) for s in range(n)]
        while True:
            seat = table.current_player
            if deal.phase == PLAYING:
                expected = bot._moon_threat(seat_view(deal, seat)) is not None
                got = bool(moon_threat(torch.from_numpy(table.vector(seat)).unsqueeze(0))[0])
                assert got == expected, f"{preset} deal {deal_number}, seat {seat}, trick {deal.trick_number}"
                agree[expected] += 1
            if table.apply(players[seat].act(table.observation(seat))):
                break
        seated += 1
    assert seated == 24
    if rules.moon_enabled and rules.moon_mode != "cancel_deal":
        assert agree[True] > 0  # the seeker's deals do raise the alarm
    else:
        assert agree[True] == 0
