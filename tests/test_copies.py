"""Copies and pickles of every env and bot behave exactly like the original (and stay independent).

A copy is what a search or a parallel rollout starts from, so a wrong one fails silently: these
tests step a copy and its original side by side, from a fresh env, mid-episode and after an
episode, and hold every observation equal to the reference encoder's."""

from __future__ import annotations

import copy
import json
import pickle
import random
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest

import hearts_env
import hearts_env.envs
from hearts_env import Rules
from hearts_env.bots import HeuristicBot, ModelBot, RandomBot, make_bot
from hearts_env.envs.aec import raw_env
from hearts_env.envs.gym_env import HeartsGymEnv
from hearts_env.obs import ObservationEncoder, encode


def deep(obj: Any) -> Any:
    return copy.deepcopy(obj)


def pickled(obj: Any) -> Any:
    return pickle.loads(pickle.dumps(obj))


COPIES = {"deepcopy": deep, "pickle": pickled}


def check_reference(env: Any) -> None:
    """Every seat's observation equals the reference encoder's."""
    bare = env.unwrapped
    for seat, agent in enumerate(bare.possible_agents):
        assert np.array_equal(bare.observe(agent)["observation"], encode(bare.deal, seat, bare.match))


def step_side_by_side(a: Any, b: Any, rng: random.Random, steps: int) -> None:
    """The same actions in both AEC envs; they must agree on everything, and match the reference."""
    for _ in range(steps):
        if not a.agents:
            break
        obs_a, rew_a, term_a, trunc_a, info_a = a.last()
        obs_b, rew_b, term_b, trunc_b, info_b = b.last()
        assert a.agent_selection == b.agent_selection
        assert np.array_equal(obs_a["observation"], obs_b["observation"])
        assert np.array_equal(obs_a["action_mask"], obs_b["action_mask"])
        assert (rew_a, term_a, trunc_a, info_a) == (rew_b, term_b, trunc_b, info_b)
        check_reference(a)
        check_reference(b)
        if term_a or trunc_a:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs_a["action_mask"])))
        a.step(action)
        b.step(action)


AEC_MAKERS: dict[str, Callable[..., Any]] = {"raw": raw_env, "wrapped": hearts_env.env}


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("maker", AEC_MAKERS)
@pytest.mark.parametrize("episode", ["deal", "match"])
def test_aec_copies_step_like_the_original(how: str, maker: str, episode: str) -> None:
    make = AEC_MAKERS[maker]
    original = make(rules="standard", episode=episode)
    original.reset(seed=3)
    # a copy right after reset, then both reset again with another seed
    twin = COPIES[how](original)
    original.reset(seed=5)
    twin.reset(seed=5)
    step_side_by_side(original, twin, random.Random(0), 30)
    # a copy mid-episode is independent: stepping it leaves the original where it was
    twin = COPIES[how](original)
    before = original.observe(original.agent_selection)["observation"]
    actions = list(original.unwrapped.deal.actions)
    obs, *_ = twin.last()
    twin.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert original.unwrapped.deal.actions == actions
    assert np.array_equal(original.observe(original.agent_selection)["observation"], before)
    # and steps like it to the end
    twin = COPIES[how](original)
    step_side_by_side(original, twin, random.Random(1), 2000 if episode == "deal" else 300)


@pytest.mark.parametrize("how", COPIES)
def test_a_copy_of_a_fresh_env_plays_a_whole_deal(how: str) -> None:
    original = raw_env(rules="spot_hearts")
    twin = COPIES[how](original)
    original.reset(seed=11)
    twin.reset(seed=11)
    step_side_by_side(original, twin, random.Random(2), 400)
    assert not original.agents and not twin.agents


def test_a_copied_encoder_updates_its_own_buffer() -> None:
    """The regression: the copy's flat view was an array of its own, so its updates were lost."""
    rules = Rules.preset("standard")
    encoder = ObservationEncoder(rules)
    twin = copy.deepcopy(encoder)
    assert np.shares_memory(twin._flat, twin.buffer)
    assert not np.shares_memory(twin.buffer, encoder.buffer)
    restored = pickle.loads(pickle.dumps(encoder))
    assert np.shares_memory(restored._flat, restored.buffer)


GYM_OPPONENTS = ["heuristic", "random", "ppo-standard"]


def gym_side_by_side(a: HeartsGymEnv, b: HeartsGymEnv, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        mask = a.action_masks()
        assert np.array_equal(mask, b.action_masks())
        action = int(rng.choice(np.flatnonzero(mask)))
        obs_a, rew_a, term_a, _, info_a = a.step(action)
        obs_b, rew_b, term_b, _, info_b = b.step(action)
        assert np.array_equal(obs_a, obs_b) and rew_a == rew_b and term_a == term_b
        assert np.array_equal(info_a.pop("action_mask"), info_b.pop("action_mask")) and info_a == info_b
        aec = a.aec_env
        assert np.array_equal(obs_a, encode(aec.deal, a.seat, aec.match))
        if term_a:
            return


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("opponents", GYM_OPPONENTS)
def test_gym_copies_step_like_the_original(how: str, opponents: str) -> None:
    original = HeartsGymEnv(opponents=opponents, episode="match")
    original.reset(seed=1)
    twin = COPIES[how](original)  # a deep copy with heuristic opponents used to crash on reset
    obs_a, _ = original.reset(seed=2)
    obs_b, _ = twin.reset(seed=2)
    assert np.array_equal(obs_a, obs_b)
    gym_side_by_side(original, twin, random.Random(0), 10)
    twin = COPIES[how](original)  # mid-episode
    gym_side_by_side(original, twin, random.Random(1), 60)


@pytest.mark.parametrize("how", COPIES)
def test_gymnasium_made_env_copies(how: str) -> None:
    original = gymnasium.make("hearts_env/Hearts-v1", opponents="heuristic")
    original.reset(seed=4)
    twin = COPIES[how](original)
    for _ in range(5):
        action = int(np.flatnonzero(original.unwrapped.action_masks())[0])
        a = original.step(action)
        b = twin.step(action)
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
        if a[2]:
            break


def bot_observations(seed: int) -> list[dict[str, np.ndarray]]:
    """The observations of the seat to move over one random deal."""
    env = raw_env()
    env.reset(seed=seed)
    rng = random.Random(seed)
    out = []
    while env.agents and not env.terminations[env.agent_selection]:
        obs = env.observe(env.agent_selection)
        out.append(obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("kind", ["random", "heuristic", "model-greedy", "model-sampling"])
def test_bot_copies_choose_like_the_original(how: str, kind: str) -> None:
    rules = Rules.preset("standard")
    bot: Any
    if kind == "random":
        bot = RandomBot(7)
    elif kind == "heuristic":
        bot = HeuristicBot(rules)
    else:
        model = make_bot("ppo-standard", rules, seed=7)
        assert isinstance(model, ModelBot)
        bot = ModelBot(model.policy, 7, greedy=kind == "model-greedy")
    observations = bot_observations(3)
    for obs in observations[:5]:
        bot.act(obs)  # advance any random stream before copying
    twin = COPIES[how](bot)
    assert [bot.act(o) for o in observations[5:]] == [twin.act(o) for o in observations[5:]]
    bot.reset(1)
    twin.reset(1)
    assert [bot.act(o) for o in observations] == [twin.act(o) for o in observations]


# ---- save_state / load_state: the plain-data snapshot ------------------------------------------


def random_steps(env: Any, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if not env.agents:
            return
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("episode", ["deal", "match"])
@pytest.mark.parametrize("steps", [0, 7, 120])
def test_a_saved_state_replays_to_the_same_env(episode: str, steps: int) -> None:
    original = raw_env(rules="standard", episode=episode, zero_sum=True)
    original.reset(seed=8, options={"totals": [3, 0, 0, 1], "dealer": 2})
    random_steps(original, random.Random(steps), steps)
    state = json.loads(json.dumps(original.save_state()))  # plain data: JSON round trip
    restored = raw_env(rules="standard", episode=episode, zero_sum=True)
    restored.load_state(state)  # a fresh env, never reset
    assert restored.unwrapped.deal.actions == original.deal.actions
    step_side_by_side(original, restored, random.Random(5), 400)
    original.reset()  # the reset stream goes on from the same place
    restored.reset()
    assert restored.deal.dealt_hands == original.deal.dealt_hands


def test_load_state_into_a_wrapped_env() -> None:
    original = hearts_env.env(episode="match")
    original.reset(seed=2)
    random_steps(original, random.Random(0), 30)
    restored = hearts_env.env(episode="match")
    restored.reset()
    restored.unwrapped.load_state(original.unwrapped.save_state())
    step_side_by_side(original, restored, random.Random(1), 200)


def test_a_bad_state_is_refused_and_changes_nothing() -> None:
    env = raw_env()
    with pytest.raises(RuntimeError, match="reset"):
        env.save_state()
    env.reset(seed=1)
    random_steps(env, random.Random(0), 5)
    good = env.save_state()
    actions = list(env.deal.actions)
    bad_states = {
        "not a state": {"format": "other"},
        "other rules": {**good, "rules": Rules.preset("omnibus").to_dict()},
        "other episode": {**good, "episode": "match"},
        "illegal action": {**good, "actions": [*good["actions"], 99]},
        "float action": {**good, "actions": [float(a) for a in good["actions"]]},
        "bad options": {**good, "options": {"totals": [float("nan")] * 4}},
        "bad stream": {**good, "stream": [3, [1, 2], None]},
    }
    for name, state in bad_states.items():
        with pytest.raises(ValueError):
            env.load_state(state)
        assert env.deal.actions == actions, name
    check_reference(env)
