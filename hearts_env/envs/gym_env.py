"""Hearts as a single-agent Gymnasium environment: one learning seat, the other seats played by bots.

```python
import gymnasium
import numpy as np
import hearts_env.envs  # registers "hearts_env/Hearts-v1"

env = gymnasium.make("hearts_env/Hearts-v1", rules="standard", opponents="heuristic")
obs, info = env.reset(seed=0)
while True:
    action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(action)
    if terminated or truncated:
        break
```

- Observation: the seat-relative vector of ``hearts_env.obs`` (``Box``, 2,577 ``float32``),
  the same as the AEC env's ``observation["observation"]``; the legal actions come from
  ``action_masks()`` (a ``bool`` array, what sb3-contrib's ``MaskablePPO`` asks for) and from
  ``info["action_mask"]``.
- Action: ``Discrete(68)``, the AEC env's numbering.
- Reward: the learning seat's AEC reward (minus its deal points by default; ``reward_scale``,
  ``zero_sum`` and ``final_rank_reward`` as in the AEC env), summed over its own step and the bots'
  steps until it is to move again or the episode ends.
- Episode: one deal (``episode="deal"``) or a match (``"match"``); never truncated.
- ``seat``: the learning seat, or ``"random"`` for a fresh seat each episode.
- ``opponents``: one bot spec (``"heuristic"``, ``"random"``) or bot object for every other seat,
  or a list with one per other seat, in seat order after the learner. Bots are re-seeded from
  ``reset(seed=...)``, so a seeded episode replays exactly.
- ``illegal_action``: ``"terminate"`` (default: the episode ends with ``illegal_reward`` and
  ``info["illegal_action"] = True``) or ``"raise"`` (the engine's ``IllegalActionError``; the state
  is unchanged). An integer outside ``0..67`` is an illegal action like any other.
- ``illegal_reward``: unless given, the AEC env's default for the learner at that moment
  (``raw_env.illegal_move_reward``): in a deal episode minus the worst deal score; in a match
  minus the most points the learner could still take before the match ends
  (``game_end_threshold`` plus the worst deal score, more if its total is below zero), and the
  lowest ``final_rank_reward``; all scaled by ``abs(reward_scale)``. So resigning by an illegal
  move is never better than playing on (see the AEC env's documentation for the exact bound).
- Actions are Python ints, numpy integer scalars or 0-d integer arrays, as in the AEC env;
  anything else (a float such as ``4.0``, a bool, a string, an array of shape ``(1,)``, ``None``)
  raises ``IllegalActionError`` naming the value and the legal actions, whatever ``illegal_action``
  says (``hearts_env.core.actions.as_action``, the AEC env's one check).
- Order of calls: before the first ``reset()``, ``step``, ``action_masks`` and ``render`` raise
  ``hearts_env.core.NotResetError``; ``step`` after the episode's end (played out or ended by an
  illegal action) raises ``hearts_env.core.EpisodeOverError``, while ``action_masks`` is all
  ``False`` and ``render`` shows the final table. Both are ``RuntimeError``s naming the call and
  saying to call ``reset()``. (``gymnasium.make`` adds Gymnasium's order check, which raises its
  own ``ResetNeeded`` first.)
- ``reset(options=...)``: the AEC env's options, checked first (a bad one raises ``InvalidDealError``
  naming it, and nothing changes).
- Copies: ``copy.deepcopy(env)`` and ``pickle`` give an independent env, its opponents included
  (random, heuristic or model bots), that goes on exactly as the original; that is the snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from ..bots import Bot, make_bot
from ..core.actions import NUM_ACTIONS, as_action
from ..core.rules import Rules
from ..obs import OBSERVATION_SIZE, observation_bounds
from .aec import episode_over_error, not_reset_error, raw_env

ILLEGAL_ACTION_MODES = ("terminate", "raise")


class HeartsGymEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One learning seat against bots; see the module docstring."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012 (Gymnasium reads the class attribute)

    def __init__(
        self,
        rules: Rules | str | Path | Mapping[str, Any] | None = None,
        episode: str = "deal",
        seat: int | str = 0,
        opponents: str | Bot | Sequence[str | Bot] = "heuristic",
        reward_scale: float = 1.0,
        zero_sum: bool = False,
        final_rank_reward: Sequence[float] | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float | None = None,
        render_mode: str | None = None,
    ) -> None:
        loaded = Rules.load(rules)
        self._aec = raw_env(
            rules=loaded,
            episode=episode,
            render_mode=render_mode,
            reward_scale=reward_scale,
            zero_sum=zero_sum,
            final_rank_reward=final_rank_reward,
        )
        self.rules = loaded
        n = loaded.num_players
        if seat != "random" and not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n):
            raise ValueError(f"seat must be 'random' or a seat 0..{n - 1}, got {seat!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTION_MODES)}, got {illegal_action!r}")
        specs = (
            [opponents] * (n - 1) if isinstance(opponents, str | Path) or hasattr(opponents, "act") else list(opponents)
        )
        if len(specs) != n - 1:
            raise ValueError(f"opponents: give one bot for all, or {n - 1} (one per other seat), got {len(specs)}")
        self._bots = [make_bot(spec, loaded) for spec in specs]
        self.seat_option = seat
        self.seat = 0 if seat == "random" else int(seat)
        self.illegal_action = illegal_action
        #: ``None``: the default, ``aec_env.illegal_move_reward`` of the learner at the illegal move.
        self.illegal_reward = float(illegal_reward) if illegal_reward is not None else None
        self.render_mode = render_mode
        low, high = observation_bounds()
        self.observation_space = spaces.Box(low, high, (OBSERVATION_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._agent = self._aec.possible_agents[self.seat]
        self._seat_bots: dict[str, Bot] = {}
        self._deal_info: dict[str, Any] = {}
        self._over = True
        self._started = False  # a first reset() was made

    @property
    def aec_env(self) -> raw_env:
        """The AEC environment underneath (read it; do not step it)."""
        return self._aec

    # ---- gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        aec = self._aec
        aec.check_reset_options(options)  # a bad option raises before anything changes
        super().reset(seed=seed)
        aec.reset(seed=seed, options=options)
        n = self.rules.num_players
        if self.seat_option == "random":
            self.seat = int(self.np_random.integers(n))
        self._agent = aec.possible_agents[self.seat]
        others = [aec.possible_agents[(self.seat + k) % n] for k in range(1, n)]
        self._seat_bots = dict(zip(others, self._bots, strict=True))
        for bot in self._bots:
            reset = getattr(bot, "reset", None)
            if callable(reset):
                reset(int(self.np_random.integers(2**63)))
        self._over = False
        self._started = True
        self._deal_info = {}
        self._play_bots()
        while aec.terminations[self._agent]:
            # The deal ended before the learner had a decision (a cancelled hold deal): deal again,
            # from the stream the seeded reset started.
            aec.reset()
            self._play_bots()
        return self._observation(), self._info()

    def step(self, action: int | np.integer) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._over:
            raise episode_over_error("step()") if self._started else not_reset_error("step()")
        aec = self._aec
        if type(action) is not int:
            action = as_action(action, aec.deal.legal_mask())
        if self.illegal_action == "terminate" and not (0 <= action < NUM_ACTIONS and self.action_masks()[action]):
            reward = self.illegal_reward if self.illegal_reward is not None else aec.illegal_move_reward(self._agent)
            self._over = True
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), reward, True, False, info
        self._deal_info = {}
        aec.step(action)
        reward = aec.rewards[self._agent]
        if aec.infos[self._agent]:
            self._deal_info = aec.infos[self._agent]
        reward += self._play_bots()
        terminated = aec.terminations[self._agent]
        self._over = terminated
        info = self._info()
        info.update(self._deal_info)
        return self._observation(), float(reward), terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learning seat now, as ``bool`` (all ``False`` once it is over)."""
        if not self._started:
            raise not_reset_error("action_masks()")
        if self._over:  # ended by an illegal action too, where the deal itself is still in play
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return self._aec.observe(self._agent)["action_mask"].astype(bool)

    def render(self) -> Any:
        """The table as text (``render_mode="ansi"``), or ``None``; typed ``Any`` because Gymnasium's
        own return type differs between its releases."""
        return self._aec.render()

    def close(self) -> None:
        self._aec.close()

    # ---- internals
    def _play_bots(self) -> float:
        """Let the bots move until the learner is to move or the episode is over; its reward meanwhile."""
        aec = self._aec
        learner = self._agent
        reward = 0.0
        while not aec.terminations[learner] and aec.agent_selection != learner:
            agent = aec.agent_selection
            aec.step(self._seat_bots[agent].act(aec.observe(agent)))
            reward += aec.rewards[learner]
            if aec.infos[learner]:
                self._deal_info = aec.infos[learner]
        return reward

    def _observation(self) -> np.ndarray:
        return self._aec.observe(self._agent)["observation"]

    def _info(self) -> dict[str, Any]:
        """``action_mask`` and ``seat``; at a deal's end also the AEC env's deal infos."""
        return {"action_mask": self.action_masks(), "seat": self.seat}


__all__ = ["ILLEGAL_ACTION_MODES", "HeartsGymEnv"]
