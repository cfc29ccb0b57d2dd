"""Tournaments (hearts_env.tournament): duplicate deals, the AEC env's exact observations, intervals,
strength ordering, JSON, matches and win rates."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from hearts_env import Rules
from hearts_env.bots import make_bot
from hearts_env.cli.tournament import main
from hearts_env.envs.aec import raw_env
from hearts_env.obs import segment
from hearts_env.tournament import (
    deal_for_seed,
    deal_seeds,
    mean_interval,
    run_tournament,
    t_quantile,
    wilson_interval,
)


class Recorder:
    """Wraps a bot; logs every observation it is shown and every action it takes, in one shared
    log, and a game boundary whenever the tournament resets it."""

    def __init__(self, inner: Any, entry: int, log: list[tuple[Any, ...]]) -> None:
        self.inner = inner
        self.entry = entry
        self.log = log
        self.name = f"rec{entry}"

    def reset(self, seed: int | None = None) -> None:
        self.log.append(("reset", self.entry, seed))
        if hasattr(self.inner, "reset"):
            self.inner.reset(seed)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        action = int(self.inner.act(observation))
        self.log.append(
            ("act", self.entry, observation["observation"].copy(), observation["action_mask"].copy(), action)
        )
        return action


def recorded_games(log: list[tuple[Any, ...]], n: int) -> list[list[tuple[Any, ...]]]:
    """The log cut into games (each game starts with ``n`` resets)."""
    games: list[list[tuple[Any, ...]]] = []
    for item in log:
        if item[0] == "reset":
            if not games or games[-1]:
                games.append([])
            continue
        games[-1].append(item)
    assert all(games)
    return games


RULE_SETS = [
    Rules.preset("standard"),
    Rules.preset("omnibus", num_players=5),
    Rules.preset("three_player_kitty"),
    Rules.preset("standard", pass_cycle=["smoosh", "scatter", "across"]),
    Rules.preset("microsoft", allow_pass_through=True, pass_cycle=["dealer_choice"]),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.num_players}p-{r.moon_mode}")
def test_deal_for_seed_is_the_deal_env_reset_deals(rules: Rules) -> None:
    env = raw_env(rules=rules)
    for seed in deal_seeds(3, 6):
        env.reset(seed=seed)
        ours = deal_for_seed(rules, seed)
        assert ours.dealt_hands == env.deal.dealt_hands
        assert ours.dealer == env.deal.dealer
        assert ours.cycle_kind == env.deal.cycle_kind
        assert ours.kitty_cards == env.deal.kitty_cards


@pytest.mark.parametrize("matches", [False, True])
@pytest.mark.parametrize("rules", RULE_SETS[:3] + RULE_SETS[4:], ids=lambda r: f"{r.num_players}p-{r.moon_mode}")
def test_bots_see_exactly_the_aec_env_observation(rules: Rules, matches: bool) -> None:
    """Replay the tournament's games through the bare AEC env: at every decision the env's
    observation of the seat to move equals, array for array, what the bot was given."""
    if matches:
        rules = rules.replace(game_end_threshold=30)
    n = rules.num_players
    log: list[tuple[Any, ...]] = []
    specs = ["heuristic", "random"] + ["heuristic"] * (n - 2)
    lineup = [Recorder(make_bot(s, rules, seed=j), j, log) for j, s in enumerate(specs)]
    seed = 5
    run_tournament(lineup, rules, deals=1, seed=seed, matches=matches, progress=False)
    games = recorded_games(log, n)
    assert len(games) == n  # one game per rotation
    set_seed = deal_seeds(seed, 1)[0]
    env = raw_env(rules=rules, episode="match" if matches else "deal")
    for rotation, game in enumerate(games):
        env.reset(seed=set_seed)
        for _, entry, vector, mask, action in game:
            agent = env.agent_selection
            seat = int(agent.split("_")[1])
            assert seat == (entry + rotation) % n  # entry j sits at seat (j + r) % N
            expected = env.observe(agent)
            assert expected["observation"].dtype == vector.dtype and expected["action_mask"].dtype == mask.dtype
            np.testing.assert_array_equal(expected["observation"], vector)
            np.testing.assert_array_equal(expected["action_mask"], mask)
            env.step(action)
        assert all(env.terminations.values())


def test_rotation_gives_every_bot_every_seat_on_the_same_hands() -> None:
    rules = Rules.preset("standard")
    n = 4
    log: list[tuple[Any, ...]] = []
    lineup = [Recorder(make_bot("random", rules, seed=j), j, log) for j in range(n)]
    sets = 3
    run_tournament(lineup, rules, deals=sets, seed=11, progress=False)
    games = recorded_games(log, n)
    assert len(games) == sets * n
    for i, set_seed in enumerate(deal_seeds(11, sets)):
        deal = deal_for_seed(rules, set_seed)
        dealt = [tuple(np.flatnonzero(_hand_bits(h))) for h in deal.dealt_hands]
        seen: dict[int, list[int]] = {j: [] for j in range(n)}  # entry -> seats it held, by the hand it saw
        pass_kinds = set()
        for game in games[i * n : (i + 1) * n]:
            first: dict[int, tuple[int, ...]] = {}
            for _, entry, vector, _, _ in game:
                if entry not in first:
                    first[entry] = tuple(np.flatnonzero(segment(vector, "hand")[0]))
                    kind_slots = tuple(np.flatnonzero(segment(vector, "pass_kind")[0]))
                    pass_kinds.add(kind_slots)
            for entry, hand in first.items():
                seen[entry].append(dealt.index(hand))
        for entry in range(n):
            assert sorted(seen[entry]) == list(range(n)), f"entry {entry} held seats {seen[entry]}"
        assert len(pass_kinds) == 1  # every rotation sees the same pass


def _hand_bits(mask: int) -> np.ndarray:
    return np.array([mask >> c & 1 for c in range(52)])


def test_intervals() -> None:
    for df, value in [(1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423), (1000, 1.9623)]:
        assert t_quantile(0.975, df) == pytest.approx(value, abs=2e-3)
    mean, se, low, high = mean_interval(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert mean == 3.0
    assert se == pytest.approx(math.sqrt(2.5 / 5))
    assert (low, high) == pytest.approx((3 - 2.7764 * se, 3 + 2.7764 * se), abs=1e-3)
    assert math.isnan(mean_interval(np.array([1.0]))[2])
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    assert wilson_interval(10, 10)[1] == 1.0


def test_heuristic_beats_random_clearly() -> None:
    result = run_tournament(["heuristic", "random"], "standard", deals=150, seed=1, progress=False)
    heuristic, random_ = result.bot("heuristic"), result.bot("random")
    assert heuristic.seats == 1 and random_.seats == 3
    assert heuristic.samples == random_.samples == 150
    assert heuristic.deals == 150 * 4 and random_.deals == 150 * 4 * 3
    assert heuristic.ci_high < random_.ci_low  # the intervals do not overlap
    assert heuristic.mean < 4.0 < 6.0 < random_.mean
    (diff,) = result.differences
    assert diff.label == "random" and diff.versus == "heuristic" and diff.ci_low > 3.0
    assert diff.mean == pytest.approx(random_.mean - heuristic.mean)
    assert result.games == 600 and result.decisions > 600 * 50
    table = result.table()
    assert "heuristic" in table and "random" in table and "95% CI" in table and "decisions/s" in table


def test_same_seed_same_result_and_workers_do_not_change_it() -> None:
    one = run_tournament(["heuristic", "random"], "standard", deals=6, seed=4, progress=False)
    again = run_tournament(["heuristic", "random"], "standard", deals=6, seed=4, progress=False)
    two = run_tournament(["heuristic", "random"], "standard", deals=6, seed=4, progress=False, workers=2)
    other = run_tournament(["heuristic", "random"], "standard", deals=6, seed=5, progress=False)
    assert one.set_samples == again.set_samples == two.set_samples
    assert one.set_samples != other.set_samples


def test_lineup_fills_from_the_last_bot_and_rejects_too_many() -> None:
    result = run_tournament(["random"], "three_player", deals=2, progress=False)
    assert result.lineup == ["random"] * 3 and [b.seats for b in result.bots] == [3]
    with pytest.raises(ValueError, match="at most one bot per seat"):
        run_tournament(["random"] * 5, "standard", deals=1, progress=False)
    with pytest.raises(ValueError, match="unknown bot"):
        run_tournament(["nonsense"], "standard", deals=1, progress=False)


def test_json_output(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    out = tmp_path / "result.json"
    args = ["heuristic", "random", "--deals", "20", "--rules", "omnibus", "--players", "5", "--json"]
    code = main([*args, "--no-progress", "--output", str(out)])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data == json.loads(out.read_text())
    assert data["mode"] == "deals" and data["duplicate_sets"] == 20 and data["rotations"] == 5
    assert data["games"] == 100 and data["rule_options"]["num_players"] == 5
    assert data["rules"] == "omnibus (num_players=5)"
    labels = [b["label"] for b in data["bots"]]
    assert labels == ["heuristic", "random"]
    for b in data["bots"]:
        assert b["ci_low"] <= b["mean"] <= b["ci_high"] and b["std_err"] > 0 and b["samples"] == 20
    assert data["decisions_per_second"] > 0


def test_bad_rules_name_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["random", "--players", "9", "--no-progress"]) == 2
    assert "num_players" in capsys.readouterr().err


def test_matches_mode_win_rates() -> None:
    rules = Rules.preset("standard", game_end_threshold=40)
    result = run_tournament(["heuristic", "random"], rules, deals=10, seed=2, matches=True, progress=False)
    assert result.matches and result.games == 40
    total = sum(b.win_rate * b.seats for b in result.bots)
    assert total == pytest.approx(1.0)
    for b in result.bots:
        assert b.matches == 40 * b.seats
        assert 0.0 <= b.win_low <= b.win_rate <= b.win_high <= 1.0
        assert b.deals > b.matches  # several deals per match
    assert result.bot("heuristic").win_rate > 0.5 > result.bot("random").win_rate
    assert result.bot("heuristic").mean < result.bot("random").mean
    data = result.to_dict()
    assert data["mode"] == "matches" and "win rate" in result.table()


def export_tiny_model(path: Any, rules: Any = "standard") -> Any:
    """A small random MLP exported as ``path`` (needs torch, like every export)."""
    torch = pytest.importorskip("torch")
    from hearts_env.training.export import export_model
    from hearts_env.training.network import build_network, mlp_config

    torch.manual_seed(0)
    return export_model(build_network(mlp_config(hidden=(32,))), path, name=path.name, rules=rules)


def test_a_model_directory_plays_in_a_tournament(tmp_path: Any) -> None:
    model = export_tiny_model(tmp_path / "tiny")
    result = run_tournament([str(model), "heuristic"], "standard", deals=3, seed=0, progress=False)
    assert [b.label for b in result.bots] == ["tiny", "heuristic"]
    assert result.bot("tiny").deals == 12 and result.decisions > 0
    with pytest.raises(Exception, match="rules mismatch"):
        run_tournament([str(model)], "omnibus", deals=1, progress=False)


def test_a_bad_model_with_workers_fails_at_once_with_the_reason(tmp_path):
    """A spec that cannot be loaded must fail before any worker process starts (no endless restarts)."""
    import subprocess
    import sys

    missing = tmp_path / "no-such-model"
    missing.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "hearts_env", "tournament", str(missing), "heuristic", "--deals", "8", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0
    assert "model.json" in proc.stderr + proc.stdout
