"""Bots: the protocol, legality over random rule sets, and the heuristic's strength and habits."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from hearts_env import PRESETS, Rules
from hearts_env.bots import Bot, HeuristicBot, RandomBot, legal_actions, make_bot
from hearts_env.core.actions import MOON_ADD, MOON_SUBTRACT, PASS_FROM_HAND, PASS_THROUGH, VOID_DEAL
from hearts_env.core.cards import parse_card, parse_cards
from hearts_env.core.rulesets import sample_rules
from hearts_env.envs.aec import raw_env
from hearts_env.obs import SeatView, encode_view


def play_deals(rules: Rules, lineup: list[str], deals: int, seed: int = 0) -> np.ndarray:
    """Mean deal points per lineup position; the lineup rotates round the table deal by deal.
    The bare env raises on any illegal action, so this also checks the bots' legality."""
    env = raw_env(rules=rules)
    n = rules.num_players
    totals = np.zeros(n)
    for d in range(deals):
        shift = d % n
        bots = [make_bot(lineup[(p - shift) % n], rules, seed=seed * 1000 + d * 10 + p) for p in range(n)]
        env.reset(seed=seed * 100_000 + d)
        while env.agents:
            agent = env.agent_selection
            obs, _, terminated, _, _ = env.last()
            env.step(None if terminated else bots[int(agent.split("_")[1])].act(obs))
        for p, score in enumerate(env.deal.scores):
            totals[(p - shift) % n] += score
    return totals / deals


def test_make_bot_specs() -> None:
    rules = Rules()
    assert isinstance(make_bot("random", rules, seed=1), RandomBot)
    assert isinstance(make_bot("heuristic", "omnibus"), HeuristicBot)
    bot = RandomBot(3)
    assert make_bot(bot, rules) is bot
    assert isinstance(bot, Bot)
    with pytest.raises((NotImplementedError, ValueError)):  # no such model (or no model support)
        make_bot("models/no-such-model", rules)
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("genius", rules)
    with pytest.raises(TypeError):
        make_bot(42, rules)  # type: ignore[arg-type]


def test_random_bot_is_uniform_over_the_mask_and_seeded() -> None:
    mask = np.zeros(68, np.int8)
    mask[[3, 17, 40]] = 1
    obs = {"observation": np.zeros(10, np.float32), "action_mask": mask}
    picks = [RandomBot(7).act(obs) for _ in range(3)]
    assert len(set(picks)) == 1
    bot = RandomBot(0)
    counts = {a: 0 for a in (3, 17, 40)}
    for _ in range(3000):
        counts[bot.act(obs)] += 1
    assert all(800 < c < 1200 for c in counts.values())
    with pytest.raises(ValueError, match="no legal action"):
        bot.act({"observation": obs["observation"], "action_mask": np.zeros(68, np.int8)})


@pytest.mark.parametrize("index", range(60))
def test_bots_never_play_illegal_actions_over_random_rule_sets(index: int) -> None:
    rules = sample_rules(5000 + index)
    lineup = ["heuristic", "random"] * 4
    for episode in ("deal", "match"):
        env = raw_env(rules=rules, episode=episode)
        env.reset(seed=index)
        n = rules.num_players
        bots = [make_bot(lineup[p], rules, seed=p) for p in range(n)]
        steps = 0
        while env.agents and steps < 2000:
            agent = env.agent_selection
            obs, _, terminated, _, _ = env.last()
            if terminated:
                env.step(None)
                continue
            action = bots[int(agent.split("_")[1])].act(obs)
            assert action in legal_actions(obs)
            env.step(action)
            steps += 1


@pytest.mark.parametrize("preset", PRESETS)
def test_heuristic_plays_every_preset(preset: str) -> None:
    rules = Rules.preset(preset)
    points = play_deals(rules, ["heuristic"] + ["random"] * 7, 24, seed=1)
    assert points[0] < points[1:].mean()


def test_heuristic_takes_far_fewer_points_than_random() -> None:
    rules = Rules()
    points = play_deals(rules, ["heuristic", "random", "random", "random"], 1000, seed=2)
    random_only = play_deals(rules, ["random"] * 4, 100, seed=3)
    # measured: about 1.4 points per deal for the heuristic, 8 for its random opponents, 6.5 in all-random play
    assert points[0] < 3.0
    assert points[0] < 0.4 * points[1:].mean()
    assert points[0] < 0.5 * random_only.mean()


def test_heuristic_holds_its_own_against_itself() -> None:
    points = play_deals(Rules(), ["heuristic"] * 4, 60, seed=4)
    assert points.sum() <= 26.0 + 1e-9 and points.max() < 12


# ---------------------------------------------------------------------------------------------
# habits, in set-up positions
# ---------------------------------------------------------------------------------------------


def pass_three(rules: Rules, hand: str) -> set[int]:
    """The three cards the heuristic passes from ``hand`` (seat 0, passing left, eldest hand)."""
    others = [c for c in range(52) if c not in parse_cards(hand)]
    hands = [parse_cards(hand)] + [others[k * 13 : (k + 1) * 13] for k in range(3)]
    env = raw_env(rules=rules)
    env.reset(seed=0, options={"hands": hands, "dealer": 3, "pass_kind": "left"})
    bot = HeuristicBot(rules)
    chosen = set()
    for _ in range(3):
        assert env.agent_selection == "player_0"
        action = bot.act(env.observe("player_0"))
        chosen.add(action)
        env.step(action)
    return chosen


def test_heuristic_passes_the_unguarded_queen_and_high_hearts() -> None:
    assert pass_three(Rules(), "QS AS 2S 4C 5C 6C 7C 8D 9D TD JD KH AH") == set(parse_cards("QS AS AH"))


def test_heuristic_keeps_a_guarded_queen_and_voids_a_short_suit() -> None:
    chosen = pass_three(Rules(), "QS 2S 3S 4S 5S 6C 7C 8C 9C 4D TD 2H 3H")
    assert parse_card("QS") not in chosen and set(parse_cards("4D TD")) <= chosen


def test_heuristic_keeps_the_bonus_card() -> None:
    chosen = pass_three(Rules.preset("omnibus"), "JD AD KD 2S 3S 4S 2C 3C 4C 5C 9H TH 2H")
    assert not chosen & set(parse_cards("JD AD KD"))


# ---------------------------------------------------------------------------------------------
# habits, in positions written as seat views (seat 0 is the bot)
# ---------------------------------------------------------------------------------------------


def position(rules: Rules, hand: str, trick: str = "", leader: int | None = None, won: dict | None = None,
             **fields) -> SeatView:  # fmt: skip
    """A playing position: ``trick`` in play order from ``leader``; ``won`` maps a seat to the cards
    of the tricks it has won (also counted as played)."""
    n = rules.num_players
    played: list[list[int]] = [[] for _ in range(n)]
    won_by: list[list[int]] = [[] for _ in range(n)]
    trick_cards = parse_cards(trick)
    for i, card in enumerate(trick_cards):
        played[(leader + i) % n].append(card)
    for seat, cards in (won or {}).items():
        won_by[seat] = parse_cards(cards)
        for k, card in enumerate(won_by[seat]):
            played[k % n].append(card)
    values = rules.tables.card_values
    base = {
        "num_players": n,
        "hand": tuple(sorted(parse_cards(hand))),
        "played_by": tuple(tuple(sorted(row)) for row in played),
        "won_by": tuple(tuple(sorted(row)) for row in won_by),
        "trick": tuple(trick_cards),
        "trick_leader": leader if leader is not None else 0,
        "to_move": 0,
        "dealer": 3,
        "passed": (),
        "received": (),
        "forwarded": (),
        "pass_through": (False,) * n,
        "kitty_taken": (0,) * n,
        "tricks_won": tuple(len(row) // n for row in won_by),
        "points_taken": tuple(sum(values[c] for c in row) for row in won_by),
        "void_in": ((),) * n,
        "phase": "playing",
        "pass_kind": "hold",
        "dealer_choice": False,
        "trick_number": sum(len(row) for row in won_by) // n,
        "hearts_broken": any(c // 13 == 3 for row in played for c in row),
        "queen_played": any(parse_card("QS") in row for row in played),
        "lead_heart_declared": False,
        "totals": (0,) * n,
        "deal_number": 0,
        "match_episode": False,
    }
    base.update(fields)
    return SeatView(**base)


def decide(rules: Rules, view: SeatView, legal: str | list[int]) -> int:
    mask = np.zeros(68, np.int8)
    mask[parse_cards(legal) if isinstance(legal, str) else legal] = 1
    return HeuristicBot(rules).act({"observation": encode_view(view, rules), "action_mask": mask})


STANDARD = Rules()


def test_heuristic_ducks_with_the_highest_losing_card() -> None:
    view = position(STANDARD, "2D TD AD 5C 6C", trick="9D KD", leader=2)
    assert decide(STANDARD, view, "2D TD AD") == parse_card("TD")


def test_heuristic_drops_the_queen_under_the_king() -> None:
    view = position(STANDARD, "QS 3S 5C 6C", trick="5S KS", leader=2)
    assert decide(STANDARD, view, "QS 3S") == parse_card("QS")


def test_heuristic_dumps_the_queen_then_high_hearts_when_void() -> None:
    view = position(STANDARD, "QS AH 2H 5D 9D", trick="4C 9C 3C", leader=1)
    assert decide(STANDARD, view, "QS AH 2H 5D 9D") == parse_card("QS")
    view = position(STANDARD, "AH 2H 5D 6D", trick="4C 9C 3C", leader=1, won={2: "QS 2C 3S 4S"})
    assert decide(STANDARD, view, "AH 2H 5D 6D") == parse_card("AH")


def test_heuristic_takes_a_pointless_trick_as_last_seat_with_a_high_card() -> None:
    view = position(STANDARD, "5D AD 2C 3S", trick="6D 4D 8D", leader=1, won={1: "2C 3C 4C 5C"})
    assert decide(STANDARD, view, "5D AD") == parse_card("AD")


def test_heuristic_flushes_the_queen() -> None:
    view = position(STANDARD, "4S 9S 2C 3C 7D", won={1: "5C 6C 7C 8C"})
    assert decide(STANDARD, view, "4S 9S 2C 3C 7D") == parse_card("9S")


def test_heuristic_never_leads_into_a_known_void_with_a_high_card() -> None:
    view = position(STANDARD, "AC 2D 4S", won={1: "5C 6C 7C 8C"}, void_in=((), (0,), (0,), ()))
    assert decide(STANDARD, view, "AC 2D 4S") != parse_card("AC")


def test_heuristic_wins_the_bonus_card() -> None:
    omnibus = Rules.preset("omnibus")
    view = position(omnibus, "AD 3D 5C", trick="QD JD 4D", leader=1)
    assert decide(omnibus, view, "AD 3D") == parse_card("AD")


SHOOTER_WON = {1: "QS 2S 3S 4S AH KH QH JH TH 9H 5C 6C"}


def test_heuristic_keeps_points_from_a_moon_shooter() -> None:
    # seat 1 has taken every point so far (18 of 26) and is winning the trick: keep hearts back
    view = position(STANDARD, "2H 3H 7D JD", trick="AC 5C 9C", leader=1, won=SHOOTER_WON)
    assert decide(STANDARD, view, "2H 3H 7D JD") in parse_cards("7D JD")
    # the shooter is still to play: keep them back too
    view = position(STANDARD, "2H 3H 7D JD", trick="KC", leader=3, won=SHOOTER_WON)
    assert decide(STANDARD, view, "2H 3H 7D JD") in parse_cards("7D JD")


def test_heuristic_breaks_a_moon_by_feeding_another_seat() -> None:
    # the shooter (seat 1) led low and seat 2 is winning: throw a heart on seat 2's trick
    view = position(STANDARD, "2H 8H 7D JD", trick="2C KC 5C", leader=1, won=SHOOTER_WON)
    assert decide(STANDARD, view, "2H 8H 7D JD") == parse_card("8H")
    # following suit, with the shooter winning a trick with points: beat it
    view = position(STANDARD, "4H 7H KS 9D", trick="8H 3H", leader=1, won=SHOOTER_WON, hearts_broken=True)
    assert decide(STANDARD, view, "4H 7H") == parse_card("7H") or decide(STANDARD, view, "4H 7H") == parse_card("4H")


def test_heuristic_special_decisions() -> None:
    rules = Rules()
    view = position(rules, "2H 3H 4H")
    obs = encode_view(view, rules)
    bot = HeuristicBot(rules)

    def act(actions: list[int], v: np.ndarray = obs) -> int:
        mask = np.zeros(68, np.int8)
        mask[actions] = 1
        return bot.act({"observation": v, "action_mask": mask})

    assert act([VOID_DEAL, VOID_DEAL + 1]) == VOID_DEAL
    shooter = encode_view(position(rules, "2C", phase="moon_choice"), rules)
    assert act([MOON_SUBTRACT, MOON_ADD], shooter) == MOON_SUBTRACT  # a deal episode: -moon is worth more
    match_rules = Rules()

    def moon_position(totals: tuple[int, ...]) -> np.ndarray:
        view = position(match_rules, "2C", phase="moon_choice", match_episode=True, totals=totals)
        return encode_view(view, match_rules)

    leading = moon_position((10, 50, 60, 70))
    assert act([MOON_SUBTRACT, MOON_ADD], leading) == MOON_ADD  # in the lead: push the others up
    trailing = moon_position((90, 20, 30, 40))
    assert act([MOON_SUBTRACT, MOON_ADD], trailing) == MOON_SUBTRACT  # adding would end the game with us last

    through = Rules.from_dict({"allow_pass_through": True, "pass_cycle": ["left"]})
    harmless = position(through, "2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S 2H 3H", phase="passing", pass_kind="left")
    risky = position(through, "QS AS KS AH KH QH 4C 5C 2D 3D 4D 2H 3H", phase="passing", pass_kind="left")
    through_bot = HeuristicBot(through)
    for v, expected in ((harmless, PASS_THROUGH), (risky, PASS_FROM_HAND)):
        mask = np.zeros(68, np.int8)
        mask[[PASS_FROM_HAND, PASS_THROUGH]] = 1
        assert through_bot.act({"observation": encode_view(v, through), "action_mask": mask}) == expected


def test_unknown_bot_names_the_real_choices() -> None:
    with pytest.raises(ValueError) as err:
        make_bot("foo", Rules())
    message = str(err.value)
    assert "'foo'" in message and "random" in message and "heuristic" in message
    assert "model directory" in message and "models/ppo-standard" in message and "later" not in message


def test_model_paths_work_from_any_directory(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hearts_env.bots import ModelBot
    from hearts_env.nets import SHIPPED_MODELS_DIR, ModelError, resolve_model

    if not (SHIPPED_MODELS_DIR / "ppo-standard" / "model.json").is_file():
        pytest.skip("no shipped models next to the package")
    monkeypatch.chdir(tmp_path)  # outside the repository
    for spec in ("models/ppo-standard", "ppo-standard"):
        assert resolve_model(spec) == SHIPPED_MODELS_DIR / "ppo-standard"
        bot = make_bot(spec, "standard", seed=0)
        assert isinstance(bot, ModelBot)
    gymnasium = pytest.importorskip("gymnasium")
    import hearts_env.envs  # noqa: F401  (registers the Gymnasium env)

    gym = gymnasium.make("hearts_env/Hearts-v1", opponents="models/ppo-standard")
    gym.reset(seed=0)
    # a model at the path as given comes first
    local = tmp_path / "models" / "ppo-standard"
    shutil.copytree(SHIPPED_MODELS_DIR / "ppo-standard", local)
    assert resolve_model("models/ppo-standard") == Path("models/ppo-standard")
    assert make_bot("models/ppo-standard", "standard").policy.card["name"] == "ppo-standard"
    # a model that is nowhere: the error says where it looked
    with pytest.raises(ModelError) as err:
        make_bot("models/no-such-model", "standard")
    message = str(err.value)
    assert str(tmp_path / "models" / "no-such-model") in message
    assert str(SHIPPED_MODELS_DIR / "no-such-model") in message and "ppo-standard" in message
