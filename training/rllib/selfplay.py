"""Self-play for the RLlib backend: who plays which seat, and the callback that grows the pool.

Per episode (RLlib's policy mapping function, ``SeatMapping``) one opponent kind is drawn from the
pool with its weight: ``selfplay`` (every seat plays "main"), ``snapshot`` (one seat plays "main",
the others one frozen snapshot of it, ``main_v<k>``) or ``heuristic`` (one seat "main", the others
the heuristic bot). Before the first snapshot exists, ``snapshot`` plays as ``selfplay``. The draw
is a function of the episode's id, so every seat of an episode sees the same one.

``SelfPlayCallback`` adds a snapshot every ``snapshot_every`` iterations as RLlib's self-play
example does (``algorithm.add_module`` of a ``FrozenSnapshotModule``, then the learner group's
state of "main" copied into it, which also syncs it to every env runner), keeps the last
``max_snapshots`` (older ones are removed) and installs the new mapping everywhere. At each
episode's end it logs, from the env: decisions, the env's illegal-action count (must stay 0), an
independent count of sampled actions outside the mask they answered, and the points per deal of
the "main" seats and of their opponents.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from hearts_env.envs.rllib import seat_of

from .modules import FrozenSnapshotModule

MAIN = "main"
HEURISTIC = "heuristic"


class SeatMapping:
    """The agent-to-module mapping of one pool state (picklable: it travels to every env runner)."""

    def __init__(self, kinds: Sequence[str], weights: Sequence[float], snapshots: Sequence[str], num_players: int):
        self.kinds = list(kinds)
        self.weights = [float(w) for w in weights]
        self.snapshots = list(snapshots)
        self.num_players = num_players

    def table(self, episode_id: str) -> list[str]:
        """The module of every seat for the episode ``episode_id``."""
        rng = random.Random(f"hearts seats {episode_id}")
        kind = rng.choices(self.kinds, self.weights)[0]
        if kind == "snapshot" and not self.snapshots:
            kind = "selfplay"
        if kind == "selfplay":
            return [MAIN] * self.num_players
        opponent = rng.choice(self.snapshots) if kind == "snapshot" else HEURISTIC
        learner = rng.randrange(self.num_players)
        return [MAIN if seat == learner else opponent for seat in range(self.num_players)]

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        return self.table(str(episode.id_))[seat_of(agent_id)]


def _illegal_samples(episode: Any) -> int:
    """Sampled actions of the episode outside the mask of the observation they answered."""
    count = 0
    for agent_episode in episode.agent_episodes.values():
        actions = np.asarray(agent_episode.get_actions())
        if actions.size == 0:
            continue
        answered = agent_episode.get_observations(slice(0, len(actions)))  # a list of dicts, or a dict of arrays
        if isinstance(answered, dict):
            masks = np.asarray(answered["action_mask"])
        else:
            masks = np.stack([np.asarray(o["action_mask"]) for o in answered])
        count += int((masks[np.arange(len(actions)), actions.astype(np.int64)] == 0).sum())
    return count


class SelfPlayCallback(RLlibCallback):
    """Adds frozen snapshots of "main" to the pool; logs the env's counters per episode."""

    def __init__(
        self, kinds: Sequence[str], weights: Sequence[float], num_players: int, snapshot_every: int, max_snapshots: int
    ):
        super().__init__()
        self.kinds, self.weights, self.num_players = list(kinds), list(weights), num_players
        self.snapshot_every, self.max_snapshots = snapshot_every, max_snapshots
        self.snapshots: list[str] = []
        self.made = 0

    def mapping(self) -> SeatMapping:
        return SeatMapping(self.kinds, self.weights, self.snapshots, self.num_players)

    def on_episode_end(
        self, *, episode: Any, env: Any = None, env_index: int = 0, metrics_logger: Any = None, **kwargs: Any
    ) -> None:
        if metrics_logger is None:
            return
        hearts = env.envs[env_index].unwrapped if hasattr(env, "envs") else getattr(env, "unwrapped", env)
        stats = hearts.last_episode
        points = stats["points"]
        modules = [episode.module_for(f"seat_{p}") for p in range(len(points))]
        mine = [pt for pt, m in zip(points, modules, strict=True) if m == MAIN]
        theirs = [pt for pt, m in zip(points, modules, strict=True) if m != MAIN]
        metrics_logger.log_value("hearts/decisions", stats["decisions"], reduce="sum")
        metrics_logger.log_value("hearts/illegal_actions", stats["illegal_actions"], reduce="sum")
        metrics_logger.log_value("hearts/illegal_samples", _illegal_samples(episode), reduce="sum")
        if theirs:  # a table against opponents: the learner's points and theirs
            kind = "heuristic" if HEURISTIC in modules else "snapshot"
            metrics_logger.log_value(f"hearts/{kind}/main_points", float(np.mean(mine)), window=200)
            metrics_logger.log_value(f"hearts/{kind}/opponent_points", float(np.mean(theirs)), window=200)

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        result["hearts_snapshots"] = len(self.snapshots)
        if algorithm.iteration % self.snapshot_every:
            return
        self.made += 1
        new_id = f"main_v{self.made}"
        main = algorithm.get_module(MAIN)
        self.snapshots.append(new_id)
        dropped = self.snapshots[: -self.max_snapshots]
        self.snapshots = self.snapshots[-self.max_snapshots :]
        spec = RLModuleSpec(
            module_class=FrozenSnapshotModule,
            observation_space=main.observation_space,
            action_space=main.action_space,
            model_config=main.model_config,
        )
        algorithm.add_module(module_id=new_id, module_spec=spec, new_agent_to_module_mapping_fn=self.mapping())
        algorithm.set_state({"learner_group": {"learner": {"rl_module": {new_id: main.get_state()}}}})
        for old in dropped:
            algorithm.remove_module(old, new_agent_to_module_mapping_fn=self.mapping())
        result["hearts_snapshots"] = len(self.snapshots)


__all__ = ["HEURISTIC", "MAIN", "SeatMapping", "SelfPlayCallback"]
