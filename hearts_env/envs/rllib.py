"""Hearts as a native RLlib ``MultiAgentEnv`` (Ray RLlib 2.60, new API stack), turn based.

    from hearts_env.envs.rllib import HeartsMultiAgentEnv

    env = HeartsMultiAgentEnv({"rules": "standard"})  # any preset, rule file or dict of options
    obs, infos = env.reset(seed=0)  # {"seat_2": {"observations": ..., "action_mask": ...}}

- **Agents** ``seat_0 .. seat_{N-1}`` (3..8 players). Only the seat to move gets an observation,
  so every step's ``action_dict`` holds exactly one action, for that seat.
- **Observations** ``Dict(observations=Box(2577,) float32, action_mask=Box(68,) float32)``: the
  vector of ``hearts_env.obs`` and the engine's legal set as a 0/1 float mask (the keys and dtype
  RLlib's action-masking modules read). Underneath is the project's AEC ``raw_env``, so
  observations, seeding, reset options and rewards are exactly the PettingZoo env's.
- **Rewards** minus a seat's deal points times ``reward_scale`` (default ``"auto"``: 1 / the rule
  set's penalty total, about -1..1), accumulated between the seat's turns and handed over with its
  next observation, or at the episode's end. When the episode ends every seat that acted gets its
  last observation, its reward and ``terminateds[seat] = True``, with ``terminateds["__all__"]``.
- **Illegal actions** raise the engine's ``IllegalActionError`` (the game unchanged) and are
  counted in ``illegal_actions``; they are never replaced by a legal one. ``actions_checked``
  counts every action the env received. ``get_action_space(seat).sample()`` draws a *legal*
  action for the seat to move (a ``Discrete(68)`` carrying the mask), so RLlib's env check and
  random-action sampling respect the rules.

``env_config`` keys (anything else is refused by name): ``rules`` (default ``"standard"``),
``episode`` (``"deal"`` or ``"match"``), ``reward_scale`` (a number or ``"auto"``), ``zero_sum``,
``final_rank_reward`` (as ``hearts_v1``) and ``reset_options`` (options passed to every reset,
e.g. ``{"pass_kind": "hold"}``; a ``reset(options=...)`` adds to them).

``HeartsRLlibVectorEnv`` is the fast path: one RLlib single-agent env runner steps ``num_envs`` tables of
``HeartsVectorEnv`` (the batched engine) at once, one learner seat per table, the other seats played
inside the env by its ``opponents``; RLlib takes it as a natively vectorised env
(``env_runners(gym_env_vectorize_mode="vector_entry_point")``).

This module imports ray (the ``rllib`` extra); ``hearts_env.envs`` does not import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from ..core.actions import NUM_ACTIONS
from ..core.errors import IllegalActionError
from ..core.rules import Rules
from ..obs import OBSERVATION_SIZE, observation_bounds
from .aec import raw_env
from .vector import HeartsVectorEnv

#: The keys ``env_config`` may hold.
ENV_CONFIG_KEYS = ("rules", "episode", "reward_scale", "zero_sum", "final_rank_reward", "reset_options")


def agent_id(seat: int) -> str:
    """The RLlib agent id of ``seat``."""
    return f"seat_{seat}"


def seat_of(agent: str) -> int:
    """The seat of the agent id ``seat_<n>``."""
    return int(agent.rsplit("_", 1)[1])


def _reward_scale(value: Any, rules: Rules, name: str) -> float:
    """A reward scale setting as a number: ``"auto"`` is 1 / the rules' penalty total; anything but a
    number raises ``ValueError`` naming the setting."""
    if value == "auto":
        return 1.0 / max(1, rules.tables.penalty_total)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name}: a number or 'auto', got {value!r}")
    return float(value)


class LegalActions(spaces.Discrete):
    """``Discrete(68)`` whose ``sample()`` without a mask draws from ``legal`` (the seat's legal set)."""

    def __init__(self, legal: np.ndarray | None, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(NUM_ACTIONS, seed=seed)
        self.legal = None if legal is None else np.asarray(legal, np.int8)

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None and self.legal is not None:
            mask = self.legal
        return super().sample(mask=mask, probability=probability)


class HeartsMultiAgentEnv(MultiAgentEnv):
    """Turn-based Hearts for RLlib; see the module docstring."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(ENV_CONFIG_KEYS))
        if unknown:
            raise ValueError(f"env_config: unknown key(s) {', '.join(unknown)}; known: {', '.join(ENV_CONFIG_KEYS)}")
        raw = raw_env(rules=config.get("rules", "standard"), episode=config.get("episode", "deal"))
        scale = _reward_scale(config.get("reward_scale", "auto"), raw.rules, "env_config reward_scale")
        self._raw = raw_env(
            rules=raw.rules,
            episode=raw.episode,
            reward_scale=float(scale),
            zero_sum=bool(config.get("zero_sum", False)),
            final_rank_reward=config.get("final_rank_reward"),
        )
        self.rules = self._raw.rules
        self.reward_scale = scale
        options = config.get("reset_options") or {}
        if not isinstance(options, Mapping):
            raise ValueError(f"env_config reset_options: a mapping of reset options, got {options!r}")
        self._raw.check_reset_options(options)  # a bad option is refused now, naming it
        self.reset_options = dict(options)
        n = self.rules.num_players
        agents = [agent_id(p) for p in range(n)]
        self.possible_agents = list(agents)
        self.agents = list(agents)
        self._agent_names = agents
        space = observation_space()
        self._action_space: spaces.Discrete = spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(agents, space)
        self.action_spaces = dict.fromkeys(agents, self._action_space)
        self.illegal_actions = 0  # over the env's life
        self.actions_checked = 0
        self._episode_illegal = 0
        self._pending: dict[str, float] = {}
        self._acted: set[str] = set()
        self._to_move: str | None = None
        #: the last finished episode: every seat's points, its decisions and illegal actions tried
        self.last_episode: dict[str, Any] = {}
        self._decisions = 0

    # ---- spaces
    def get_action_space(self, agent_id: Any) -> gymnasium.Space[Any]:
        """``Discrete(68)``; for the seat to move, one whose ``sample()`` is legal."""
        if agent_id == self._to_move:
            return LegalActions(self._raw.observe(self._aec_name(agent_id))["action_mask"])
        return self._action_space

    # ---- the game
    @property
    def raw(self) -> raw_env:
        """The AEC env underneath (read only: stepping it behind this env's back desynchronises it)."""
        return self._raw

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        got = self._raw.observe(self._aec_name(agent))
        return {"observations": got["observation"], "action_mask": got["action_mask"].astype(np.float32)}

    @staticmethod
    def _aec_name(agent: str) -> str:
        return f"player_{seat_of(agent)}"

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        merged = {**self.reset_options, **(options or {})}
        self._raw.reset(seed=seed, options=merged)
        self.agents = list(self._agent_names)
        self._pending = dict.fromkeys(self._agent_names, 0.0)
        self._acted = set()
        self._decisions = 0
        self._episode_illegal = 0
        self._points = [0] * len(self._agent_names)
        if all(self._raw.terminations.values()):  # pinned hands that end the deal at once
            raise ValueError("these reset options end the episode before anyone acts")
        self._to_move = agent_id(seat_of(self._raw.agent_selection))
        return {self._to_move: self._observe(self._to_move)}, {self._to_move: {}}

    def step(self, action_dict: dict[Any, Any]) -> tuple[dict, dict, dict, dict, dict]:  # type: ignore[override]
        agent = self._to_move
        if agent is None:
            raise RuntimeError("call reset() first: the episode is over")
        if set(action_dict) != {agent}:
            raise ValueError(f"step: {agent} is to move; got actions for {sorted(action_dict)}")
        action = action_dict[agent]
        if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
            action = action.item()
        elif isinstance(action, np.integer):
            action = int(action)
        self.actions_checked += 1
        raw = self._raw
        try:
            raw.step(action)  # the engine checks it; an illegal action leaves the game unchanged
        except IllegalActionError:
            self.illegal_actions += 1
            self._episode_illegal += 1
            raise
        self._acted.add(agent)
        self._decisions += 1
        for aec_agent, reward in raw.rewards.items():
            if reward:
                self._pending[agent_id(seat_of(aec_agent))] += reward
        info = raw.infos[raw.possible_agents[0]]
        if "deal_scores" in info:
            self._points = [p + s for p, s in zip(self._points, info["deal_scores"], strict=True)]
        if all(raw.terminations.values()):
            return self._finish()
        self._to_move = nxt = agent_id(seat_of(raw.agent_selection))
        reward = self._pending[nxt]
        self._pending[nxt] = 0.0
        return {nxt: self._observe(nxt)}, {nxt: reward}, {"__all__": False}, {"__all__": False}, {}

    def _finish(self) -> tuple[dict, dict, dict, dict, dict]:
        """The episode's last step: every seat that acted gets its final observation and reward."""
        raw = self._raw
        acted = [a for a in self._agent_names if a in self._acted]
        observations = {a: self._observe(a) for a in acted}
        rewards = {a: self._pending[a] for a in acted}
        terminateds: dict[str, bool] = dict.fromkeys(acted, True)
        terminateds["__all__"] = True
        self.last_episode = {
            "points": list(self._points),
            "decisions": self._decisions,
            "illegal_actions": self._episode_illegal,
        }
        infos = {a: {**raw.infos[self._aec_name(a)], "illegal_actions": self.illegal_actions} for a in acted}
        self._to_move = None
        return observations, rewards, terminateds, {"__all__": False}, infos


def observation_space() -> spaces.Dict:
    """One seat's observation space for RLlib: the vector and the legal actions as a 0/1 float mask."""
    low, high = observation_bounds()
    return spaces.Dict(
        {
            "observations": spaces.Box(low, high, (OBSERVATION_SIZE,), np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        }
    )


class HeartsRLlibVectorEnv(gymnasium.vector.VectorWrapper):
    """``HeartsVectorEnv`` as RLlib's single-agent env runner takes it: ``NEXT_STEP`` autoreset, and
    observations ``{"observations": (B, 2577), "action_mask": (B, 68) float32}`` as ``HeartsMultiAgentEnv``'s.

    The info keeps what an episode's end needs, for the finished rows only: ``points`` (the learner's deal
    points), ``scores`` (every seat's) and ``seat``; the per-step masks travel in the observation, so
    RLlib's per-row info lists stay small. ``reward_scale`` ``"auto"`` is 1 / the rules' penalty total,
    as in ``HeartsMultiAgentEnv``. Keyword arguments go to ``HeartsVectorEnv`` (``opponents``, ``seat``,
    ``device``, ``zero_sum``...)."""

    def __init__(self, num_envs: int = 1, rules: Any = "standard", reward_scale: Any = "auto", **kwargs: Any) -> None:
        if kwargs.get("array_type", "numpy") != "numpy" or "autoreset_mode" in kwargs:
            raise ValueError("HeartsRLlibVectorEnv sets array_type (numpy) and autoreset_mode (next_step) itself")
        loaded = Rules.load(rules)
        scale = _reward_scale(reward_scale, loaded, "reward_scale")
        inner = HeartsVectorEnv(num_envs, loaded, reward_scale=scale, autoreset_mode=AutoresetMode.NEXT_STEP, **kwargs)
        super().__init__(inner)
        self.single_observation_space = observation_space()
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.metadata = dict(inner.metadata)

    @property
    def hearts(self) -> HeartsVectorEnv:
        """The ``HeartsVectorEnv`` underneath."""
        return self.env  # type: ignore[return-value]

    def _observation(self, obs: np.ndarray, info: Mapping[str, Any]) -> dict[str, np.ndarray]:
        return {"observations": obs, "action_mask": info["action_mask"].astype(np.float32)}

    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return self._observation(obs, info), {}

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        obs, rewards, terminated, truncated, info = self.env.step(actions)
        out: dict[str, Any] = {}
        final = info.get("final_info")
        if final is not None:
            ended = info["_final_info"]
            for key in ("points", "scores", "seat"):
                out[key], out[f"_{key}"] = final[key], ended
        return self._observation(obs, info), rewards, terminated, truncated, out


def make_env(config: Mapping[str, Any] | None = None) -> HeartsMultiAgentEnv:
    """The env creator RLlib's ``register_env`` takes."""
    return HeartsMultiAgentEnv(config)


__all__ = [
    "ENV_CONFIG_KEYS",
    "HeartsMultiAgentEnv",
    "HeartsRLlibVectorEnv",
    "LegalActions",
    "agent_id",
    "make_env",
    "observation_space",
    "seat_of",
]
