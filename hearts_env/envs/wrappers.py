"""PettingZoo's classic wrapper chain (``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper``,
``OrderEnforcingWrapper``) as thin subclasses that read the per-step attributes from the bare env
directly; see "Wrappers and speed" in ``hearts_env.envs.aec``."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from ..core.actions import as_action
from .aec import EPISODE_ATTRIBUTES, done_agent_error, episode_over_error, not_reset_error, raw_env
from .rewards import illegal_move_reward


class _Direct:
    """Reads the per-step attributes from the bare env directly (``self._bare``), not through
    ``BaseWrapper.__getattr__``. None of the wrappers below overrides them, so the values are
    exactly those the ``__getattr__`` chain would find."""

    _bare: raw_env

    @property
    def agent_selection(self) -> str:
        return self._bare.agent_selection

    @property
    def agents(self) -> list[str]:
        return self._bare.agents

    @property
    def rewards(self) -> dict[str, float]:
        return self._bare.rewards

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._bare._cumulative_rewards

    @property
    def terminations(self) -> dict[str, bool]:
        return self._bare.terminations

    @property
    def truncations(self) -> dict[str, bool]:
        return self._bare.truncations

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        return self._bare.infos

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._bare.action_spaces[agent]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._bare.observation_spaces[agent]


class _TerminateIllegal(_Direct, wrappers.TerminateIllegalWrapper):
    """``illegal_reward=None``: the offender's ``raw_env.illegal_move_reward()`` at the time of the move."""

    def __init__(self, env: raw_env, illegal_reward: float | None) -> None:
        start = illegal_move_reward(env.rules, env.episode, env.reward_scale, env.final_rank_reward)
        super().__init__(env, start if illegal_reward is None else illegal_reward)
        self._bare = env
        self._default_illegal = illegal_reward is None

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        # TerminateIllegalWrapper.observe: remember the mask the agent to move saw
        obs = self.env.observe(agent)
        bare = self._bare
        if agent == bare.agent_selection:
            self._prev_obs = obs
            self._prev_info = bare.infos.get(agent, {})
        return obs

    def step(self, action: int | np.integer | None) -> None:
        # The common case of TerminateIllegalWrapper.step (a live agent, a legal move, observed
        # first) without the attribute chain; every other case runs PettingZoo's code.
        prev = self._prev_obs
        if prev is not None and not self._terminated and action is not None:
            bare = self._bare
            agent = bare.agent_selection
            if not (bare.terminations[agent] or bare.truncations[agent]) and prev["action_mask"][action]:
                self._prev_obs = None
                self._prev_info = None  # type: ignore[assignment]  # PettingZoo's own reset value
                self.env.step(action)
                return
        if self._default_illegal and self._bare.agents:
            self._illegal_value = self._bare.illegal_move_reward()  # the offender's, should it be illegal
        super().step(action)


class _AssertOutOfBounds(_Direct, wrappers.AssertOutOfBoundsWrapper):
    def __init__(self, env: AECEnv, bare: raw_env) -> None:
        super().__init__(env)
        self._bare = bare

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        return self.env.observe(agent)

    def step(self, action: int | np.integer | None) -> None:
        # AssertOutOfBoundsWrapper.step, after the one action check of every entry point
        # (``as_action``: a bool, a float, a string, a shaped array or None for a live agent
        # raise ``IllegalActionError``, as in the bare env)
        bare = self._bare
        agent = bare.agent_selection
        if bare.terminations[agent] or bare.truncations[agent]:
            if action is not None:  # as the bare env: a done agent's only action is None
                raise done_agent_error(agent, action)
        else:
            if type(action) is not int:
                action = as_action(action, bare.deal.legal_mask())
            assert bare.action_spaces[agent].contains(action), "action is not in action space"
        self.env.step(action)


class _OrderEnforcing(_Direct, wrappers.OrderEnforcingWrapper):
    """As PettingZoo's, with the bare env's errors: before ``reset`` the per-step attributes and the
    methods raise ``NotResetError`` (an ``AttributeError``, as PettingZoo's attributes raise);
    ``last()`` after the episode's end raises ``EpisodeOverError``; ``step`` then warns (PettingZoo's)."""

    def __init__(self, env: AECEnv, bare: raw_env) -> None:
        super().__init__(env)
        self._bare = bare

    def __getattr__(self, name: str) -> Any:
        # reached when a property above raises too, so its error must not become PettingZoo's
        if name in EPISODE_ATTRIBUTES and not self.__dict__.get("_has_reset", False):
            raise not_reset_error(name)
        return super().__getattr__(name)

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise not_reset_error("agent_selection")
        return self._bare.agent_selection

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise not_reset_error("agents")
        return self._bare.agents

    @property
    def rewards(self) -> dict[str, float]:
        if not self._has_reset:
            raise not_reset_error("rewards")
        return self._bare.rewards

    @property
    def terminations(self) -> dict[str, bool]:
        if not self._has_reset:
            raise not_reset_error("terminations")
        return self._bare.terminations

    @property
    def truncations(self) -> dict[str, bool]:
        if not self._has_reset:
            raise not_reset_error("truncations")
        return self._bare.truncations

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        if not self._has_reset:
            raise not_reset_error("infos")
        return self._bare.infos

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        if not self._has_reset:
            raise not_reset_error("observe()")
        return self.env.observe(agent)

    def state(self) -> np.ndarray:
        if not self._has_reset:
            raise not_reset_error("state()")
        return super().state()

    def render(self) -> Any:
        if not self._has_reset:
            raise not_reset_error("render()")
        return super().render()

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        if not self._has_reset:
            raise not_reset_error("agent_iter()")
        return super().agent_iter(max_iter)

    def step(self, action: int | np.integer | None) -> None:
        if not self._has_reset:
            raise not_reset_error("step()")
        elif not self._bare.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        # AECEnv.last, reading the bare env's dicts directly
        bare = self._bare
        if not self._has_reset:
            raise not_reset_error("last()")
        if not bare.agents:
            raise episode_over_error("last()")
        agent = bare.agent_selection
        observation = self.observe(agent) if observe else None
        return (
            observation,
            bare._cumulative_rewards[agent],
            bare.terminations[agent],
            bare.truncations[agent],
            bare.infos[agent],
        )


def wrap(raw: raw_env, *, illegal_reward: float | None = None, fast: bool = True) -> AECEnv:
    """PettingZoo's classic wrapper chain around ``raw``. ``fast=False``: the unmodified classes.

    ``illegal_reward=None``: the offender's ``raw.illegal_move_reward()`` when it moves illegally;
    with ``fast=False`` (PettingZoo's class takes a fixed value) the value for a total of 0."""
    if not fast:
        if illegal_reward is None:
            illegal_reward = illegal_move_reward(raw.rules, raw.episode, raw.reward_scale, raw.final_rank_reward)
        env: AECEnv = wrappers.TerminateIllegalWrapper(raw, illegal_reward=illegal_reward)
        env = wrappers.AssertOutOfBoundsWrapper(env)
        return wrappers.OrderEnforcingWrapper(env)
    env = _TerminateIllegal(raw, illegal_reward)
    env = _AssertOutOfBounds(env, raw)
    return _OrderEnforcing(env, raw)
