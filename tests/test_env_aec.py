"""The PettingZoo AEC environment: conformance, masks, seeding, options, rewards, bad input."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import hearts_env
from hearts_env import PRESETS, Rules
from hearts_env.core import IllegalActionError, InvalidDealError, NotResetError, RulesError
from hearts_env.core.actions import NUM_ACTIONS
from hearts_env.core.cards import card_name
from hearts_env.core.deal import mask_to_actions
from hearts_env.core.rulesets import sample_rules
from hearts_env.envs.aec import raw_env
from hearts_env.envs.gym_env import HeartsGymEnv
from hearts_env.envs.hearts_v1 import env as make_env
from hearts_env.envs.rewards import rank_rewards
from hearts_env.envs.wrappers import wrap
from hearts_env.obs import OBSERVATION_SIZE

RANDOM_RULES = [sample_rules(1000 + seed) for seed in range(30)]


@pytest.fixture(autouse=True)
def _quiet_pettingzoo_warnings():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*Observation.*")
        warnings.filterwarnings("ignore", message="reset ignores unknown options")
        yield


def play_out(env, rng: random.Random) -> int:
    """Random play to the end through the AEC API; the number of decisions."""
    decisions = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        decisions += 1
        del agent
    return decisions


# ---------------------------------------------------------------------------------------------
# PettingZoo's own tests
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_api_seed_render_presets(preset: str) -> None:
    api_test(make_env(rules=preset), num_cycles=200)
    seed_test(lambda: make_env(rules=preset), num_cycles=100)
    render_test(lambda render_mode=None: make_env(rules=preset, render_mode=render_mode))


@pytest.mark.parametrize("index", range(len(RANDOM_RULES)))
def test_pettingzoo_api_seed_render_random_rules(index: int) -> None:
    rules = RANDOM_RULES[index]
    api_test(make_env(rules=rules), num_cycles=200)
    seed_test(lambda: make_env(rules=rules), num_cycles=100)
    render_test(lambda render_mode=None: make_env(rules=rules, render_mode=render_mode))


@pytest.mark.parametrize("preset", ["standard", "omnibus", "three_player", "openspiel_default"])
def test_pettingzoo_api_match_episodes(preset: str) -> None:
    rules = Rules.preset(preset, game_end_threshold=30) if preset != "openspiel_default" else preset
    api_test(
        make_env(rules=rules, episode="match", final_rank_reward=[1, 0, 0, -1][: 3 if preset == "three_player" else 4])
    )
    seed_test(lambda: make_env(rules=rules, episode="match"), num_cycles=100)


def test_pettingzoo_api_with_unmodified_wrappers() -> None:
    api_test(wrap(raw_env(), fast=False), num_cycles=200)
    api_test(raw_env(), num_cycles=200)


# ---------------------------------------------------------------------------------------------
# masks, spaces, observations
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [Rules.preset(p) for p in PRESETS[::3]] + RANDOM_RULES, ids=str)
def test_masks_are_the_engines_legal_sets(rules: Rules) -> None:
    rng = random.Random(0)
    for episode in ("deal", "match"):
        env = raw_env(rules=rules, episode=episode)
        env.reset(seed=rng.randrange(10**6))
        steps = 0
        while env.agents and steps < 300:
            agent = env.agent_selection
            if env.terminations[agent]:
                env.step(None)
                continue
            deal = env.deal
            for p, name in enumerate(env.possible_agents):
                mask = env.observe(name)["action_mask"]
                assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
                if p == deal.current_player:
                    assert name == agent
                    assert np.flatnonzero(mask).tolist() == deal.legal_actions() == mask_to_actions(deal.legal_mask())
                else:
                    assert not mask.any()
            env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
            steps += 1


def test_spaces_are_fixed_objects_and_contain_the_observations() -> None:
    env = make_env(rules="five_player")
    env.reset(seed=1)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == NUM_ACTIONS
    rng = random.Random(1)
    for agent in env.agent_iter():
        obs, _, terminated, _, _ = env.last()
        assert env.observation_space(agent).contains(obs)
        assert obs["observation"].dtype == np.float32 and obs["observation"].shape == (OBSERVATION_SIZE,)
        env.step(None if terminated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_observations_are_fresh_arrays() -> None:
    env = raw_env()
    env.reset(seed=2)
    first = env.observe("player_0")
    first["observation"][:] = 7
    first["action_mask"][:] = 1
    again = env.observe("player_0")
    assert not np.array_equal(again["observation"], first["observation"])
    assert again["action_mask"].sum() < NUM_ACTIONS


# ---------------------------------------------------------------------------------------------
# seeding and reset options
# ---------------------------------------------------------------------------------------------


def deal_signature(env) -> tuple:
    deal = env.deal
    return deal.dealt_hands, tuple(deal.kitty_cards), deal.dealer, deal.cycle_kind


def test_reset_seed_fixes_the_deal_alone() -> None:
    a, b = raw_env(), raw_env()
    a.reset(seed=123)
    sig = deal_signature(a)
    play_out(a, random.Random(1))
    for _ in range(3):
        b.reset()
        play_out(b, random.Random(2))
    b.reset(seed=123)
    assert deal_signature(b) == sig
    a.reset(seed=124)
    assert deal_signature(a) != sig


def test_reset_seed_draws_dealer_and_pass_kind_from_the_cycle() -> None:
    env = raw_env(rules="standard")
    kinds, dealers = set(), set()
    for seed in range(60):
        env.reset(seed=seed)
        kinds.add(env.deal.cycle_kind)
        dealers.add(env.deal.dealer)
    assert kinds == {"left", "right", "across", "hold"}
    assert dealers == {0, 1, 2, 3}


def test_unseeded_resets_continue_a_seeded_stream() -> None:
    a, b = raw_env(), raw_env()
    a.reset(seed=9)
    b.reset(seed=9)
    for _ in range(3):
        a.reset()
        b.reset()
        assert deal_signature(a) == deal_signature(b)


def test_same_deal_under_another_seating_is_reproducible() -> None:
    """The same seed gives the same deal whatever the agents do, so seats can be swapped."""
    env = raw_env(episode="match", rules={"game_end_threshold": 30})
    env.reset(seed=5)
    first = deal_signature(env)
    env.reset(seed=5)
    assert deal_signature(env) == first


def test_reset_options_pin_the_deal() -> None:
    rules = Rules()
    hands = [list(range(13 * p, 13 * p + 13)) for p in range(4)]
    env = raw_env(rules=rules)
    env.reset(seed=1, options={"hands": hands, "dealer": 2, "pass_kind": "across", "totals": [10, 20, 30, 40]})
    deal = env.deal
    assert [sorted(c for c in range(52) if h >> c & 1) for h in deal.dealt_hands] == hands
    assert deal.dealer == 2 and deal.pass_kind == "across" and deal.totals_before == [10, 20, 30, 40]
    assert env.agent_selection == "player_3"  # eldest hand passes first
    env.reset(options={"hands": [[card_name(c) for c in hand] for hand in reversed(hands)]})
    assert env.deal.dealt_hands[3] & 1
    env.reset(seed=2, options={"pass_kind": "dealer_choice"})
    assert env.deal.phase == 0 and env.agent_selection == f"player_{env.deal.dealer}"

    match = raw_env(rules=rules, episode="match")
    match.reset(seed=3, options={"hands": hands, "dealer": 1, "pass_kind": "hold", "totals": [90, 0, 0, 0]})
    assert match.deal.dealer == 1 and match.deal.pass_kind == "hold" and match.match.totals == [90, 0, 0, 0]
    assert match.seat_view("player_1").totals == (0, 0, 0, 90)
    match.reset(seed=3, options={"hands": hands, "dealer": 1})
    assert match.deal.dealer == 1 and match.deal.dealt_hands == deal.dealt_hands


def test_reset_option_errors_are_the_engines() -> None:
    env = raw_env()
    with pytest.raises(InvalidDealError):
        env.reset(options={"hands": [[0, 1], [2], [3], [4]]})
    with pytest.raises(InvalidDealError):
        env.reset(options={"pass_kind": "sideways"})
    with pytest.raises(InvalidDealError):
        env.reset(options={"dealer": 9})
    with pytest.warns(UserWarning, match="unknown options"):
        env.reset(options={"pass_knd": "left"})


HANDS = [list(range(13 * p, 13 * p + 13)) for p in range(4)]
BAD_OPTIONS = [
    ({"totals": [float("nan")] * 4}, "totals"),  # used to give NaN observations
    ({"totals": [float("inf"), 0, 0, 0]}, "totals"),
    ({"totals": [0.5, 0, 0, 0]}, "totals"),
    ({"totals": [0, 0, 0]}, "totals"),
    ({"totals": "0000"}, "totals"),
    ({"totals": [10**9, 0, 0, 0]}, "totals"),
    ({"totals": [10**40, 0, 0, 0]}, "totals"),  # past numpy's integers: used to give a raw numpy TypeError
    ({"totals": [-(10**400), 0, 0, 0]}, "totals"),  # past float's range
    ({"totals": [True, 0, 0, 0]}, "totals"),
    ({"totals": 5}, "totals"),
    ({"dealer": 4}, "dealer"),
    ({"dealer": -1}, "dealer"),
    ({"dealer": True}, "dealer"),
    ({"dealer": 1.0}, "dealer"),
    ({"pass_kind": "sideways"}, "pass_kind"),
    ({"pass_kind": 3}, "pass_kind"),
    ({"hands": 5}, "hands"),
    ({"hands": "QS"}, "hands"),
    ({"hands": HANDS[:3]}, "hands"),
    ({"hands": [[0, 1], [2], [3], [4]]}, "hands"),
    ({"hands": [HANDS[0], HANDS[0], HANDS[2], HANDS[3]]}, "hands"),
    ({"hands": [[*HANDS[0][:12], 3.0], *HANDS[1:]]}, "hands"),
    ({"hands": [[*HANDS[0][:12], "ZZ"], *HANDS[1:]]}, "hands"),
    ({"kitty": [0, 1, 2]}, "kitty"),
    ({"hands": HANDS, "kitty": [0]}, "hands/kitty"),
]


@pytest.mark.parametrize("episode", ["deal", "match"])
@pytest.mark.parametrize(("options", "option"), BAD_OPTIONS, ids=[f"{o}-{i}" for i, (_, o) in enumerate(BAD_OPTIONS)])
def test_bad_reset_options_name_the_option_and_change_nothing(episode: str, options: dict, option: str) -> None:
    env = raw_env(episode=episode)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    before = [env.observe(a)["observation"] for a in env.possible_agents]
    actions, selection = list(env.deal.actions), env.agent_selection
    with pytest.raises(InvalidDealError, match=f"^reset option '{option}': "):
        env.reset(seed=2, options=options)
    assert env.deal.actions == actions and env.agent_selection == selection
    after = [env.observe(a)["observation"] for a in env.possible_agents]
    assert all(np.array_equal(b, a) for a, b in zip(after, before, strict=True))
    gym = HeartsGymEnv(episode=episode, opponents="random")
    with pytest.raises(ValueError, match=f"^reset option '{option}': "):
        gym.reset(seed=2, options=options)


def test_reset_options_must_be_a_dict_and_take_numpy_values() -> None:
    env = raw_env(episode="match")
    with pytest.raises(ValueError, match="reset options must be a dict"):
        env.reset(options=[("dealer", 1)])  # type: ignore[arg-type]
    env.reset(seed=0, options={"totals": np.array([5, 0, 0, 1]), "dealer": np.int64(2), "hands": np.array(HANDS)})
    assert env.match.totals == [5, 0, 0, 1] and env.deal.dealer == 2
    assert all(isinstance(t, int) for t in env.match.totals)
    env.reset(seed=0, options={"totals": [5.0, 0.0, -3.0, 1.0]})  # whole floats are whole numbers
    assert env.match.totals == [5, 0, -3, 1]
    assert np.isfinite(env.observe("player_0")["observation"]).all()


def test_bad_rules_raise_the_engines_error_unchanged() -> None:
    with pytest.raises(RulesError, match="num_players"):
        make_env(rules={"num_players": 9})
    with pytest.raises(RulesError, match="unknown preset"):
        make_env(rules="no_such_preset")
    with pytest.raises(RulesError, match="unknown option"):
        raw_env(rules={"moon_mood": "add_to_others"})
    with pytest.raises(ValueError, match="episode"):
        raw_env(episode="season")


# ---------------------------------------------------------------------------------------------
# rewards and infos
# ---------------------------------------------------------------------------------------------


def collect_rewards(env, rng: random.Random) -> tuple[dict[str, float], list[dict]]:
    """Total reward per agent as ``last()`` hands it out, and every deal-end info seen."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    infos = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if info and info not in infos:
            infos.append(info)
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals, infos


@pytest.mark.parametrize("preset", ["standard", "omnibus", "spot_hearts", "six_to_eight", "pagat_main"])
def test_deal_rewards_are_minus_the_deal_points(preset: str) -> None:
    for seed in range(4):
        env = raw_env(rules=preset)
        env.reset(seed=seed)
        rewards_seen = []
        rng = random.Random(seed)
        while env.agents:
            agent = env.agent_selection
            obs, _, terminated, _, _ = env.last()
            env.step(None if terminated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if any(env.rewards.values()):
                rewards_seen.append(dict(env.rewards))
            del agent
        scores = env.deal.scores
        assert rewards_seen == [] or rewards_seen[0] == {f"player_{p}": -s for p, s in enumerate(scores)}
        assert len(rewards_seen) <= 1

        scaled = make_env(rules=preset, reward_scale=1 / 26, zero_sum=True)
        scaled.reset(seed=seed)
        totals, infos = collect_rewards(scaled, random.Random(seed))
        scores = infos[0]["deal_scores"]
        mean = sum(scores) / len(scores)
        for p, agent in enumerate(scaled.possible_agents):
            assert totals[agent] == pytest.approx(-(scores[p] - mean) / 26)
        assert sum(totals.values()) == pytest.approx(0.0)


def test_match_rewards_accrue_and_rank_reward_is_added() -> None:
    rules = Rules.preset("standard", game_end_threshold=60)
    values = [3.0, 1.0, -1.0, -3.0]
    env = make_env(rules=rules, episode="match", final_rank_reward=values)
    env.reset(seed=8)
    totals, infos = collect_rewards(env, random.Random(8))
    match = env.unwrapped.match
    assert match.over and len(infos) == len(match.history)
    assert infos[-1]["totals"] == tuple(match.totals) and infos[-1]["deal_number"] == match.deals_counted
    bonus = rank_rewards(match.totals, match.winners, values)
    for p, agent in enumerate(env.possible_agents):
        assert totals[agent] == pytest.approx(-match.totals[p] + bonus[p])


def test_rank_rewards_share_tied_places() -> None:
    assert rank_rewards([10, 50, 30, 70], [0], [3, 1, -1, -3]) == [3, -1, 1, -3]
    assert rank_rewards([10, 10, 30, 30], [0, 1], [3, 1, -1, -3]) == [2, 2, -2, -2]
    assert rank_rewards([69, 20, 90, 101], [0], [3, 1, -1, -3]) == [3, 1, -1, -3]


def test_infos_are_empty_except_at_a_deal_end() -> None:
    env = raw_env()
    env.reset(seed=3)
    rng = random.Random(3)
    while not env.terminations["player_0"]:
        assert all(info == {} for info in env.infos.values())
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    assert all(set(info) == {"deal_scores", "cancelled"} for info in env.infos.values())


def test_cancelled_deal_ends_a_deal_episode_with_zero_rewards() -> None:
    rules = Rules.from_dict(
        {"all_hearts_leader_unbroken": "leader_may_void", "pass_cycle": ["hold"], "first_lead": "eldest_any_card"}
    )
    hearts = [f"{r}H" for r in "23456789TJQKA"]
    others = [[f"{r}{s}" for r in "23456789TJQKA"] for s in "CDS"]
    env = raw_env(rules=rules)
    env.reset(options={"hands": [others[0], hearts, others[1], others[2]], "dealer": 0})
    assert env.agent_selection == "player_1"
    assert np.flatnonzero(env.observe("player_1")["action_mask"]).tolist() == [64, 65]
    env.step(64)
    assert all(env.terminations.values()) and all(r == 0 for r in env.rewards.values())
    assert env.infos["player_0"]["cancelled"] is True


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------


def test_raw_env_rejects_illegal_actions_and_keeps_the_state() -> None:
    env = raw_env()
    env.reset(seed=4)
    agent = env.agent_selection
    before = env.observe(agent)
    legal = np.flatnonzero(before["action_mask"]).tolist()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)
    for bad in (illegal, 99, -1, "QS", 3.0):
        with pytest.raises(IllegalActionError) as err:
            env.step(bad)  # type: ignore[arg-type]
        assert "legal:" in str(err.value)
        assert err.value.legal == legal
    after = env.observe(agent)
    assert env.agent_selection == agent and env.deal.actions == []
    assert np.array_equal(before["observation"], after["observation"])
    env.step(np.int64(legal[0]))  # numpy integers are fine
    assert env.deal.actions == [legal[0]]


NON_INTEGERS = [True, False, 3.0, "QS", np.array([5]), np.array([[1]]), None, np.float32(2), np.array(True)]


@pytest.mark.parametrize("bad", NON_INTEGERS, ids=repr)
def test_every_env_refuses_a_non_integer_action_with_the_same_error(bad: object) -> None:
    """One check (``as_action``) on every path: ``step(True)`` on the wrapped env used to fail with
    numpy's "ambiguous truth value" and ``None`` with an assertion."""
    raw, wrapped = raw_env(), make_env()
    gym = HeartsGymEnv(opponents="random", illegal_action="terminate")
    raw.reset(seed=0)
    wrapped.reset(seed=0)
    gym.reset(seed=0)
    messages = []
    for env, bare in ((raw, raw), (wrapped, wrapped.unwrapped), (gym, gym.aec_env)):
        actions = list(bare.deal.actions)
        with pytest.raises(IllegalActionError, match="actions are integers") as err:
            env.step(bad)  # type: ignore[arg-type]
        assert err.value.action == -1 and err.value.legal == mask_to_actions(bare.deal.legal_mask())
        assert bare.deal.actions == actions
        messages.append(str(err.value))
    assert messages[0] == messages[1]  # the same state, the same message
    obs, *_ = wrapped.last()
    wrapped.step(np.int64(np.flatnonzero(obs["action_mask"])[0]))  # the env goes on
    assert not any(wrapped.terminations.values())


@pytest.mark.parametrize("fast", [True, False])
def test_wrapped_env_terminates_on_an_illegal_move(fast: bool) -> None:
    env = wrap(raw_env(), fast=fast, illegal_reward=-5.0)
    env.reset(seed=4)
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    offender = env.agent_selection
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[offender] == -5.0 and sum(env.rewards.values()) == -5.0
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated
        if agent == offender:
            assert reward == -5.0
        env.step(None)


@pytest.mark.parametrize("fast", [True, False])
def test_wrapped_env_asserts_on_out_of_space_actions_and_order(fast: bool) -> None:
    env = wrap(raw_env(), fast=fast)
    # PettingZoo's errors in its own classes; the bare env's NotResetError (an AttributeError) in the fast chain
    with pytest.raises(AttributeError, match=r"call reset\(\) first" if fast else "before reset"):
        env.agent_selection  # noqa: B018
    with pytest.raises(NotResetError if fast else AssertionError):
        env.step(0)
    env.reset(seed=0)
    for bad in (68, -1):
        with pytest.raises(AssertionError, match="action space"):
            env.step(bad)
    # not an integer at all: the one action check (``as_action``) in the fast chain, PettingZoo's
    # assertion in its unmodified classes
    with pytest.raises(IllegalActionError if fast else AssertionError):
        env.step("QS")
    assert env.unwrapped.deal.actions == []


def test_default_illegal_reward_is_below_every_deal_score() -> None:
    env = make_env(rules="spot_hearts", reward_scale=0.5)
    env.reset(seed=0)
    obs, *_ = env.last()
    offender = env.agent_selection
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert env.rewards[offender] == -0.5 * Rules.preset("spot_hearts").tables.penalty_total


# ---------------------------------------------------------------------------------------------
# rendering
# ---------------------------------------------------------------------------------------------


def test_ansi_render_shows_the_table() -> None:
    env = raw_env(render_mode="ansi")
    env.reset(seed=6)
    text = env.render()
    assert isinstance(text, str) and text.count("player_") == 4 and "♣" in text
    assert text.count(">") == 1
    hidden = raw_env(render_mode="ansi", render_seat=2)
    hidden.reset(seed=6)
    table = hidden.render()
    assert table.count("(13 cards)") == 3
    play_out(env, random.Random(0))
    assert "deal scores" in env.render()


def test_render_without_mode_warns() -> None:
    env = raw_env()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


# ---------------------------------------------------------------------------------------------
# package-level API
# ---------------------------------------------------------------------------------------------


def run_python(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_import_hearts_env_loads_neither_pettingzoo_nor_gymnasium() -> None:
    out = run_python(
        "import sys, hearts_env; print('pettingzoo' in sys.modules, 'gymnasium' in sys.modules);"
        "e = hearts_env.env(rules='three_player'); from pettingzoo.utils import wrappers;"
        "print(isinstance(e, wrappers.OrderEnforcingWrapper), type(hearts_env.raw_env()).__name__)"
    )
    assert out.splitlines() == ["False False", "True raw_env"]


def test_env_is_the_latest_version_whatever_is_imported_first() -> None:
    out = run_python(
        "import hearts_env.obs, hearts_env.envs.gym_env, hearts_env;"
        "e = hearts_env.env(); e.reset(seed=0); print(e.agent_selection.startswith('player_'),"
        " e.metadata['name'])"
    )
    assert out == "True hearts_v1"
    assert isinstance(hearts_env.raw_env(), raw_env)


def test_gymnasium_registration_after_a_later_import() -> None:
    out = run_python(
        "import gymnasium; env = gymnasium.make('hearts_env.envs:hearts_env/Hearts-v1', opponents='random');"
        "obs, info = env.reset(seed=0); print(obs.shape)"
    )
    assert out == f"({OBSERVATION_SIZE},)"


def test_import_without_gymnasium_and_pettingzoo() -> None:
    out = run_python(
        "import sys\n"
        "sys.modules['gymnasium'] = sys.modules['pettingzoo'] = None  # as if not installed\n"
        "import hearts_env, hearts_env.obs\n"
        "from hearts_env.core import Deal\n"
        "print(hearts_env.obs.OBSERVATION_SIZE > 0, Deal().num_players)\n"
    )
    assert out == "True 4"


# ---------------------------------------------------------------------------------------------
# the default illegal-move reward: never better than playing on
# ---------------------------------------------------------------------------------------------


def returns_to_go(env: raw_env, rng: random.Random) -> list[tuple[float, float]]:
    """Random legal play to the end; at every decision (the default illegal reward of the seat to
    move, what that seat's rewards from there on summed to)."""
    seen: list[tuple[str, float, float]] = []  # (agent, penalty, its return before the decision)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        agent = env.agent_selection
        obs, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        seen.append((agent, env.illegal_move_reward(agent), returns[agent]))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        for a, r in env.rewards.items():
            returns[a] += r
    return [(penalty, returns[agent] - before) for agent, penalty, before in seen]


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("standard", {}),
        ("standard", {"reward_scale": 1 / 26, "final_rank_reward": [1, 0, 0, -1]}),
        ("omnibus", {"final_rank_reward": [3, 2, 1, 0]}),
        ("spot_hearts", {"reward_scale": 0.5}),
        ("five_player", {}),
        ("openspiel_default", {"final_rank_reward": [1, 0, 0, -1]}),  # no threshold: one deal
    ],
)
def test_match_illegal_reward_is_below_every_legal_continuation(preset: str, options: dict) -> None:
    env = raw_env(rules=preset, episode="match", **options)
    rules = env.rules
    scale = abs(options.get("reward_scale", 1.0))
    worst_rank = min(options.get("final_rank_reward", [0.0]))
    threshold = rules.game_end_threshold
    # The bound, reasoned: a seat enters a match's last deal with at most threshold - 1 and takes at
    # most one deal's worst in it (in these presets every penalty card: the moon's value is the
    # penalty total, no sun, no no-trick adjustment); a match without a threshold is one deal.
    worst = rules.tables.penalty_total
    most = worst if threshold is None else threshold - 1 + worst
    env.reset(seed=0)
    assert env.illegal_move_reward() < -most * scale + worst_rank + 1e-9
    rng = random.Random(1)
    for episode in range(3):
        env.reset(seed=episode)
        pairs = returns_to_go(env, rng)
        assert pairs
        for penalty, to_go in pairs:
            assert penalty <= to_go, (penalty, to_go)
        if threshold is not None:
            assert all(t <= threshold - 1 + worst for t in env.match.totals)


def test_match_illegal_reward_from_the_wrapped_env() -> None:
    for fast in (True, False):
        env = wrap(raw_env(episode="match"), fast=fast)
        env.reset(seed=0)
        obs, *_ = env.last()
        offender = env.agent_selection
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        assert env.rewards[offender] == -126.0  # threshold 100 + one deal's 26
    ranked = make_env(episode="match", reward_scale=1 / 26, final_rank_reward=[1, 0, 0, -1])
    ranked.reset(seed=0)
    obs, *_ = ranked.last()
    offender = ranked.agent_selection
    ranked.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert ranked.rewards[offender] == pytest.approx(-126 / 26 - 1)
    single = make_env(rules="openspiel_default", episode="match")  # no threshold: a one-deal match
    single.reset(seed=0)
    obs, *_ = single.last()
    offender = single.agent_selection
    single.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert single.rewards[offender] == -26.0


def test_match_illegal_reward_grows_with_a_negative_total() -> None:
    # After a moon shot subtracted from the shooter a seat's total is below zero, and it can take
    # that much more before the match ends: the wrapped env's default follows the offender's total.
    env = make_env(episode="match")
    env.reset(seed=3, options={"totals": [-40, 10, 0, 0]})
    bare = env.unwrapped
    assert bare.illegal_move_reward("player_0") == -166.0
    assert bare.illegal_move_reward("player_1") == -126.0
    obs, *_ = env.last()
    offender = env.agent_selection
    expected = bare.illegal_move_reward(offender)
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert env.rewards[offender] == expected


def test_illegal_reward_counts_what_can_prolong_a_match() -> None:
    from hearts_env.core.scoring import most_points_to_come
    from hearts_env.envs.rewards import illegal_move_reward

    assert most_points_to_come(Rules(), "deal") == 26
    assert most_points_to_come(Rules(), "match") == 126
    assert most_points_to_come(Rules(), "match", total=-30) == 156
    assert most_points_to_come(Rules(), "match", total=50) == 126  # never milder than at 0
    assert most_points_to_come(Rules(exact_score_resets={50: 0, 60: 70}), "match") == 126 + 50
    assert most_points_to_come(Rules(tie_for_lowest="play_another_deal"), "match") == 126 + 26
    assert most_points_to_come(Rules(game_end_threshold=None, instant_win={"score": 20}), "match") == 26
    assert illegal_move_reward(Rules(), "match", -2.0, [5, 1, 0, -3]) == -252.0 - 3
    assert illegal_move_reward(Rules(), "deal", 0.5) == -13.0


# ---------------------------------------------------------------------------------------------
# action types
# ---------------------------------------------------------------------------------------------


def test_raw_env_accepts_integer_kinds_and_rejects_the_rest_clearly() -> None:
    env = raw_env()
    env.reset(seed=4)
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()
    for bad in (np.array([legal[0]]), float(legal[0]), True, np.bool_(False), np.float32(legal[0]), "5", None):
        with pytest.raises(IllegalActionError) as err:
            env.step(bad)  # type: ignore[arg-type]
        message = str(err.value)
        assert repr(bad) in message and "legal:" in message and f"({legal[0]})" in message
        assert err.value.legal == legal
    assert env.deal.actions == []
    env.step(np.array(legal[0]))  # a 0-d integer array
    assert env.deal.actions == [legal[0]]
    second = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]
    env.step(np.uint8(second))
    assert env.deal.actions == [legal[0], int(second)]


@pytest.mark.parametrize("missing", ["pettingzoo", "gymnasium", "pettingzoo.utils"])
def test_env_without_the_env_extra_names_it(missing: str) -> None:
    """``hearts_env.env()`` without PettingZoo or Gymnasium (or with a broken install: a submodule
    missing) names the package and the extra to install."""
    code = (
        "import sys\n"
        f"sys.modules[{missing!r}] = None\n"
        "import hearts_env\n"
        "for make in (hearts_env.env, hearts_env.raw_env):\n"
        "    try:\n"
        "        make()\n"
        "    except ModuleNotFoundError as err:\n"
        "        print(err.name, '|', err)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        package = missing.split(".")[0]
        assert line.startswith(f"{package} | ") and "pip install 'hearts-env[env]'" in line


@pytest.mark.parametrize("preset", ["standard", "three_player_kitty", "five_player"])
def test_state_holds_every_seats_observation_and_the_kitty(preset: str) -> None:
    from hearts_env.envs.aec import STATE_SIZE
    from hearts_env.obs import MAX_SEATS, encode

    env = make_env(rules=preset)
    env.reset(seed=3)
    bare = env.unwrapped
    n = bare.rules.num_players
    size = OBSERVATION_SIZE
    rng = np.random.default_rng(0)
    for step, _agent in enumerate(env.agent_iter()):
        obs, _, termination, truncation, _ = env.last()
        state = env.state()
        assert state.shape == (STATE_SIZE,) and state.dtype == np.float32 and env.state_space.contains(state)
        done = termination or truncation
        if not done:  # the seat to move sees its own row of the state
            mover = bare.deal.current_player
            assert np.array_equal(state[mover * size : (mover + 1) * size], obs["observation"])
        if step % 7 == 0 and not done:
            for seat in range(n):
                assert np.array_equal(state[seat * size : (seat + 1) * size], encode(bare.deal, seat, bare.match))
            assert not state[n * size : MAX_SEATS * size].any()
            kitty = np.flatnonzero(state[MAX_SEATS * size :])
            assert sorted(kitty.tolist()) == sorted(bare.deal.kitty_cards)
        env.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_a_huge_bad_reset_option_is_named_briefly() -> None:
    env = raw_env()
    with pytest.raises(ValueError) as err:
        env.reset(seed=0, options={"hands": "x" * 1_000_000})
    assert "reset option 'hands'" in str(err.value) and len(str(err.value)) < 1_000
