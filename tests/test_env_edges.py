"""The envs at their edges: every public method before the first ``reset()`` and after the episode
ends, and every kind of bad action, on the bare ``raw_env``, the wrapped ``env()`` (fast chain and
PettingZoo's unmodified one), ``hearts_v1`` and the Gymnasium single-seat env. Each misuse raises one
documented error whose message says what to do (``EpisodeOverError``, ``NotResetError``,
``IllegalActionError``), never a ``KeyError`` or a numpy error from inside."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from hearts_env.core import EpisodeOverError, IllegalActionError, NotResetError
from hearts_env.core.actions import NUM_ACTIONS
from hearts_env.envs import HeartsGymEnv, hearts_v1
from hearts_env.envs.aec import raw_env
from hearts_env.envs.wrappers import wrap

A = "player_0"

#: The per-step attributes of an AEC env (``num_agents`` reads ``agents``).
EPISODE_ATTRIBUTES = (
    "agents",
    "agent_selection",
    "rewards",
    "terminations",
    "truncations",
    "infos",
    "num_agents",
)

#: Every public method of ``raw_env`` that needs an episode, called with valid arguments.
NEEDS_EPISODE: dict[str, Callable[[Any], object]] = {
    "step(legal)": lambda env: env.step(0),
    "step(None)": lambda env: env.step(None),
    "step(True)": lambda env: env.step(True),
    "step(99)": lambda env: env.step(99),
    "last()": lambda env: env.last(),
    "last(observe=False)": lambda env: env.last(observe=False),
    "observe": lambda env: env.observe(A),
    "state": lambda env: env.state(),
    "render": lambda env: env.render(),
    "agent_iter": lambda env: list(env.agent_iter()),
    "deal": lambda env: env.unwrapped.deal,
    "match": lambda env: env.unwrapped.match,
    "seat_view": lambda env: env.unwrapped.seat_view(A),
    "save_state": lambda env: env.unwrapped.save_state(),
    "illegal_move_reward": lambda env: env.unwrapped.illegal_move_reward(),
}


def raw(**options: Any) -> Any:
    return raw_env(render_mode="ansi", **options)


def fast(**options: Any) -> Any:
    return hearts_v1.env(render_mode="ansi", **options)


AEC_ENVS = {"raw_env": raw, "hearts_v1.raw_env": lambda **o: hearts_v1.raw_env(render_mode="ansi", **o), "env()": fast}


def finished(make: Callable[..., Any], episode: str = "deal") -> Any:
    """An env whose episode has been played to its end (every agent stepped out)."""
    env = make(episode=episode)
    env.reset(seed=3)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agents == []
    return env


# ---------------------------------------------------------------------------------------------
# before reset
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", AEC_ENVS)
@pytest.mark.parametrize("call", NEEDS_EPISODE)
def test_aec_methods_before_reset_raise_not_reset(name: str, call: str) -> None:
    env = AEC_ENVS[name]()
    with pytest.raises(NotResetError, match=r"call reset\(\) first"):
        NEEDS_EPISODE[call](env)
    env.reset(seed=0)  # and the env is fine afterwards
    NEEDS_EPISODE["last()"](env)


@pytest.mark.parametrize("name", AEC_ENVS)
@pytest.mark.parametrize("attribute", EPISODE_ATTRIBUTES)
def test_aec_episode_attributes_before_reset_raise_not_reset(name: str, attribute: str) -> None:
    env = AEC_ENVS[name]()
    with pytest.raises(NotResetError, match=rf"{attribute}.*call reset\(\) first"):
        getattr(env, attribute)
    # an AttributeError too, as PettingZoo's wrappers raise for these: hasattr answers
    assert not hasattr(env, attribute)
    env.reset(seed=0)
    assert hasattr(env, attribute)


@pytest.mark.parametrize("name", AEC_ENVS)
def test_aec_methods_that_need_no_episode_work_before_reset(name: str) -> None:
    env = AEC_ENVS[name]()
    assert env.observation_space(A)["observation"].shape == (2577,)
    assert env.action_space(A).n == NUM_ACTIONS
    assert env.max_num_agents == 4 and env.possible_agents[0] == A
    assert env.unwrapped.check_reset_options({"dealer": 1}) == {"dealer": 1}
    env.close()
    with pytest.raises(AttributeError, match="no_such_thing"):
        env.unwrapped.no_such_thing  # noqa: B018  (an unknown name stays a plain AttributeError)


def test_load_state_needs_no_earlier_reset() -> None:
    source = raw()
    source.reset(seed=5)
    source.step(int(np.flatnonzero(source.observe(source.agent_selection)["action_mask"])[0]))
    target = raw()
    target.load_state(source.save_state())
    assert target.deal.actions == source.deal.actions
    assert target.agent_selection == source.agent_selection


# ---------------------------------------------------------------------------------------------
# after the episode's end
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("episode", ["deal", "match"])
@pytest.mark.parametrize("action", [0, None, True, 99, np.int64(1)], ids=repr)
def test_raw_step_after_the_end_raises_episode_over(episode: str, action: object) -> None:
    env = finished(raw, episode)
    history = env.save_state()["actions"]
    with pytest.raises(EpisodeOverError, match=r"episode is over.*reset\(\)"):
        env.step(action)
    assert env.save_state()["actions"] == history and env.agents == []


@pytest.mark.parametrize("name", AEC_ENVS)
def test_last_after_the_end_raises_episode_over(name: str) -> None:
    env = finished(AEC_ENVS[name])
    for observe in (True, False):
        with pytest.raises(EpisodeOverError, match=r"episode is over.*reset\(\)"):
            env.last(observe=observe)


@pytest.mark.parametrize("name", AEC_ENVS)
def test_the_final_position_stays_readable_after_the_end(name: str) -> None:
    env = finished(AEC_ENVS[name])
    assert env.agents == [] and list(env.agent_iter()) == [] and env.num_agents == 0
    assert env.rewards == {} and env.terminations == {} and env.infos == {}
    bare = env.unwrapped
    assert bare.deal.is_terminal()
    assert env.observe(A)["action_mask"].sum() == 0
    assert env.state().shape == bare.state_space.shape
    assert "player_0" in env.render()
    assert bare.seat_view(A).phase == "done"
    assert isinstance(bare.illegal_move_reward(A), float)
    assert bare.save_state()["actions"]
    env.reset(seed=1)  # and a new episode starts
    assert len(env.agents) == 4


def test_wrapped_step_after_the_end_is_pettingzoos_warning_and_changes_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """PettingZoo's ``OrderEnforcingWrapper`` convention, kept by the fast chain: a warning, no error."""
    env = finished(fast)
    history = env.unwrapped.save_state()["actions"]
    for action in (0, None, True):
        env.step(action)
    assert env.unwrapped.save_state()["actions"] == history and env.agents == []
    assert "step() called after all agents are terminated" in caplog.text


def test_a_done_agent_steps_only_with_none() -> None:
    """Between the deal's end and the episode's: each done agent is stepped out with ``None``."""
    for make in (raw, fast):
        env = make()
        env.reset(seed=3)
        while not any(env.terminations.values()):
            obs = env.observe(env.agent_selection)
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        agent = env.agent_selection
        for bad in (0, np.int64(0), True):
            with pytest.raises(IllegalActionError, match=rf"{agent} is done.*only action is None"):
                env.step(bad)
        assert env.agent_selection == agent and agent in env.agents
        env.step(None)
        assert agent not in env.agents


# ---------------------------------------------------------------------------------------------
# bad actions on a live env
# ---------------------------------------------------------------------------------------------

NON_INTEGERS = [True, False, np.bool_(True), 3.0, np.float64(2.0), np.float32(1), "0", np.array([0]), None]
OUT_OF_RANGE = [68, 99, -1, np.int64(68), np.uint8(200), np.int32(-3), np.array(70)]


@pytest.mark.parametrize("bad", NON_INTEGERS + OUT_OF_RANGE, ids=repr)
def test_raw_env_refuses_bad_actions_with_illegal_action_error(bad: object) -> None:
    env = raw()
    env.reset(seed=2)
    with pytest.raises(IllegalActionError, match="legal:"):
        env.step(bad)
    assert env.deal.actions == []


@pytest.mark.parametrize("bad", OUT_OF_RANGE, ids=repr)
@pytest.mark.parametrize("fast_chain", [True, False])
def test_wrapped_env_asserts_on_out_of_space_integers(bad: object, fast_chain: bool) -> None:
    env = wrap(raw(), fast=fast_chain)
    env.reset(seed=2)
    with pytest.raises(AssertionError, match="action space"):
        env.step(bad)
    assert env.unwrapped.deal.actions == []


@pytest.mark.parametrize("bad", NON_INTEGERS, ids=repr)
def test_unmodified_wrappers_assert_on_every_non_integer(bad: object) -> None:
    """PettingZoo's own chain checks the action space first: a bool (whose ``True`` indexes a
    mask as a new axis) fails that check like a float does, never with a numpy error."""
    env = wrap(raw(), fast=False)
    env.reset(seed=2)
    with pytest.raises(AssertionError, match="action space"):
        env.step(bad)
    assert env.unwrapped.deal.actions == []
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))  # the env goes on


@pytest.mark.parametrize("kind", [int, np.int64, np.int32, np.uint8, np.array], ids=lambda k: k.__name__)
def test_every_env_takes_numpy_integer_actions(kind: Callable[[int], object]) -> None:
    envs = [raw(), fast(), wrap(raw(), fast=False)]
    for env in envs:
        env.reset(seed=2)
        obs = env.observe(env.agent_selection)
        legal = int(np.flatnonzero(obs["action_mask"])[0])
        env.last()
        env.step(kind(legal))
        assert env.unwrapped.deal.actions == [legal]
    gym = HeartsGymEnv(opponents="random")
    gym.reset(seed=2)
    legal = int(np.flatnonzero(gym.action_masks())[0])
    _, _, _, _, info = gym.step(kind(legal))
    assert "illegal_action" not in info


# ---------------------------------------------------------------------------------------------
# the Gymnasium env
# ---------------------------------------------------------------------------------------------

GYM_CALLS: dict[str, Callable[[HeartsGymEnv], object]] = {
    "step(legal)": lambda env: env.step(0),
    "step(True)": lambda env: env.step(True),
    "step(3.0)": lambda env: env.step(3.0),  # type: ignore[arg-type]
    "step(99)": lambda env: env.step(99),
    "step(np.int64)": lambda env: env.step(np.int64(0)),
    "action_masks": lambda env: env.action_masks(),
    "render": lambda env: env.render(),
}


@pytest.mark.parametrize("mode", ["terminate", "raise"])
@pytest.mark.parametrize("call", GYM_CALLS)
def test_gym_env_before_reset_raises_not_reset(mode: str, call: str) -> None:
    env = HeartsGymEnv(opponents="random", illegal_action=mode, render_mode="ansi")
    with pytest.raises(NotResetError, match=r"call reset\(\) first"):
        GYM_CALLS[call](env)
    env.close()
    env.reset(seed=0)
    assert env.action_masks().any()


def finished_gym(mode: str, illegal: bool) -> HeartsGymEnv:
    env = HeartsGymEnv(opponents="random", illegal_action=mode, render_mode="ansi")
    env.reset(seed=1)
    if illegal:  # ends the episode by an illegal move (its deal is still in play)
        _, _, terminated, _, _ = env.step(int(np.flatnonzero(~env.action_masks())[0]))
        assert terminated
        return env
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    return env


@pytest.mark.parametrize("how", ["played out", "illegal move"])
@pytest.mark.parametrize("call", [c for c in GYM_CALLS if c.startswith("step")])
def test_gym_step_after_the_end_raises_episode_over(how: str, call: str) -> None:
    env = finished_gym("terminate", how == "illegal move")
    actions = list(env.aec_env.deal.actions)
    with pytest.raises(EpisodeOverError, match=r"episode is over.*reset\(\)"):
        GYM_CALLS[call](env)
    assert env.aec_env.deal.actions == actions
    assert not env.action_masks().any()  # documented: all False once it is over
    assert "player_0" in env.render()
    env.close()
    env.reset(seed=2)
    assert env.action_masks().any()


def test_gym_env_bad_actions() -> None:
    for mode in ("terminate", "raise"):
        for bad in NON_INTEGERS:
            env = HeartsGymEnv(opponents="random", illegal_action=mode)
            env.reset(seed=0)
            actions = list(env.aec_env.deal.actions)
            with pytest.raises(IllegalActionError, match="actions are integers"):
                env.step(bad)  # type: ignore[arg-type]
            assert env.aec_env.deal.actions == actions and env.action_masks().any()
        for bad in OUT_OF_RANGE:
            env = HeartsGymEnv(opponents="random", illegal_action=mode, illegal_reward=-9.0)
            env.reset(seed=0)
            if mode == "raise":
                with pytest.raises(IllegalActionError, match="legal:"):
                    env.step(bad)  # type: ignore[arg-type]
                assert env.action_masks().any()
            else:
                _, reward, terminated, _, info = env.step(bad)  # type: ignore[arg-type]
                assert terminated and reward == -9.0 and info["illegal_action"]


def test_the_errors_are_the_documented_families() -> None:
    """``NotResetError`` is a ``RuntimeError`` (as ``deal``, ``state`` and ``save_state`` raised before)
    and an ``AttributeError`` (as PettingZoo's wrappers raise for the episode attributes);
    ``EpisodeOverError`` a ``RuntimeError`` (as the Gymnasium env's ``step`` raised after the end)."""
    assert issubclass(NotResetError, RuntimeError) and issubclass(NotResetError, AttributeError)
    assert issubclass(EpisodeOverError, RuntimeError)
    assert not issubclass(EpisodeOverError, AttributeError)
    doc = raw_env.__module__
    import importlib

    text = importlib.import_module(doc).__doc__ or ""
    for name in ("NotResetError", "EpisodeOverError", "IllegalActionError"):
        assert name in text


@pytest.mark.parametrize("fast_chain", [True, False])
def test_after_an_illegal_move_done_agents_step_only_with_none(fast_chain: bool) -> None:
    env = wrap(raw(), fast=fast_chain, illegal_reward=-3.0)
    env.reset(seed=4)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))  # illegal: the episode ends
    agent = env.agent_selection
    with pytest.raises(IllegalActionError, match=rf"{agent} is done.*only action is None"):
        env.step(0)
    for _ in env.agent_iter():
        env.step(None)
    assert env.agents == []
