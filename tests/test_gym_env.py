"""The single-seat Gymnasium environment: checker, registration, masks, rewards, MaskablePPO."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import hearts_env.envs  # noqa: F401  (registers hearts_env/Hearts-v1)
from hearts_env import Rules
from hearts_env.bots import RandomBot
from hearts_env.core import IllegalActionError
from hearts_env.core.actions import NUM_ACTIONS
from hearts_env.envs.gym_env import HeartsGymEnv
from hearts_env.obs import OBSERVATION_SIZE, decode_observation


def first_legal(env: HeartsGymEnv) -> int:
    return int(np.flatnonzero(env.action_masks())[0])


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"rules": "three_player_kitty", "opponents": "random", "seat": "random"},
        {"rules": "omnibus", "episode": "match", "opponents": ["heuristic", "random", "random"]},
        {"rules": {"pass_cycle": ["dealer_choice"], "allow_pass_through": True}, "seat": 2, "zero_sum": True},
    ],
)
def test_gymnasium_check_env(kwargs: dict) -> None:
    check_env(HeartsGymEnv(**kwargs), skip_render_check=True)
    # made through gymnasium.make, so the checker also renders in every render mode
    check_env(gymnasium.make("hearts_env/Hearts-v1", render_mode="ansi", **kwargs).unwrapped)


def test_registered_with_gymnasium() -> None:
    env = gymnasium.make("hearts_env/Hearts-v1", rules="five_player", opponents="random")
    obs, info = env.reset(seed=0)
    assert obs.shape == (OBSERVATION_SIZE,) and obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    assert env.action_space == gymnasium.spaces.Discrete(NUM_ACTIONS)
    assert info["action_mask"].dtype == bool


def test_episode_masks_and_rewards() -> None:
    env = HeartsGymEnv(rules="standard", opponents="random", reward_scale=0.5)
    obs, info = env.reset(seed=3)
    total = 0.0
    steps = 0
    while True:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"]) and mask.any()
        view = decode_observation(obs, env.rules)
        assert view.to_move == 0  # the learner is always the seat to move
        obs, reward, terminated, truncated, info = env.step(first_legal(env))
        total += reward
        steps += 1
        assert not truncated
        if terminated:
            break
    deal = env.aec_env.deal
    assert total == -0.5 * deal.scores[env.seat]
    assert info["deal_scores"] == deal.scores
    assert not env.action_masks().any()
    assert steps >= 13
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_match_episode_accrues_every_deal() -> None:
    env = HeartsGymEnv(rules=Rules(game_end_threshold=40), episode="match", opponents="random", seat=1)
    env.reset(seed=4)
    total = 0.0
    while True:
        _, reward, terminated, _, _ = env.step(first_legal(env))
        total += reward
        if terminated:
            break
    match = env.aec_env.match
    assert match is not None and match.over
    assert total == -match.totals[1]


def test_seeded_episodes_replay_exactly() -> None:
    def run(seed: int) -> list:
        env = HeartsGymEnv(opponents=["heuristic", "random", "random"], seat="random")
        obs, _ = env.reset(seed=seed)
        trace = [obs.tobytes()]
        while True:
            obs, reward, terminated, _, _ = env.step(first_legal(env))
            trace.append((obs.tobytes(), reward))
            if terminated:
                return trace

    assert run(11) == run(11)
    assert run(11) != run(12)


def test_illegal_actions() -> None:
    env = HeartsGymEnv(opponents="random", illegal_reward=-7.0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -7.0 and info["illegal_action"]
    assert not info["action_mask"].any() and not env.action_masks().any()  # over, though its deal is not

    strict = HeartsGymEnv(opponents="random", illegal_action="raise")
    strict.reset(seed=0)
    before = strict.aec_env.deal.actions[:]
    with pytest.raises(IllegalActionError):
        strict.step(int(np.flatnonzero(~strict.action_masks())[0]))
    assert strict.aec_env.deal.actions == before
    strict.step(first_legal(strict))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="seat"):
        HeartsGymEnv(seat=4)
    with pytest.raises(ValueError, match="opponents"):
        HeartsGymEnv(opponents=["random"])
    with pytest.raises(ValueError, match="illegal_action"):
        HeartsGymEnv(illegal_action="ignore")
    env = HeartsGymEnv(opponents=RandomBot(1))
    env.reset(seed=0)


def test_maskable_ppo_trains_on_it(one_torch_thread: None) -> None:
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy

    env = gymnasium.make("hearts_env/Hearts-v1", opponents="random")
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, verbose=0, policy_kwargs={"net_arch": [32]}
    )
    model.learn(total_timesteps=128)
    mean_reward, _ = evaluate_policy(model, env, n_eval_episodes=3, warn=False)
    assert -26 * 3 <= mean_reward <= 26
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert env.unwrapped.action_masks()[int(action)]


def test_resigning_a_match_by_an_illegal_move_never_pays() -> None:
    env = gymnasium.make("hearts_env/Hearts-v1", episode="match", opponents="heuristic")
    _, info = env.reset(seed=0)
    _, penalty, terminated, _, info = env.step(int(np.flatnonzero(~info["action_mask"])[0]))
    assert terminated and info["illegal_action"]
    # the most a seat can take in a match: it enters the last deal below 100 and takes at most 26 in it
    assert penalty < -(99 + 26)
    rng = np.random.default_rng(0)
    for seed in range(3):  # random legal play over whole matches returns more (about -111)
        _, info = env.reset(seed=seed)
        total, terminated = 0.0, False
        while not terminated:
            _, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            total += reward
        assert penalty < total
    ranked = HeartsGymEnv(episode="match", opponents="random", reward_scale=1 / 26, final_rank_reward=[1, 0, 0, -1])
    ranked.reset(seed=1, options={"totals": [-26, 0, 0, 0]})  # after a moon shot: 26 more to take
    _, reward, *_ = ranked.step(int(np.flatnonzero(~ranked.action_masks())[0]))
    assert reward == pytest.approx(-(126 + 26) / 26 - 1)


def test_action_types_match_the_aec_env() -> None:
    env = HeartsGymEnv(opponents="random", illegal_action="terminate")
    env.reset(seed=0)
    legal = first_legal(env)
    for bad in (float(legal), np.array([legal]), True, "3", np.float64(legal)):
        with pytest.raises(IllegalActionError) as err:
            env.step(bad)  # type: ignore[arg-type]
        assert repr(bad) in str(err.value) and f"({legal})" in str(err.value)
    # the same message as the AEC env's for the same value
    aec = env.aec_env
    with pytest.raises(IllegalActionError) as aec_err:
        aec.step(float(legal))
    with pytest.raises(IllegalActionError) as gym_err:
        env.step(float(legal))
    assert str(aec_err.value) == str(gym_err.value)
    env.step(np.array(legal))  # a 0-d integer array
    env.step(np.int32(first_legal(env)))
