"""The fast path of the RLlib backend: single-agent env runners on ``HeartsRLlibVectorEnv`` (hundreds to
thousands of tables on the batched engine per env runner), the other seats played inside the env by the pool.

- ``PoolOpponent``: a ``BatchPolicy`` that plays every opponent seat of a table with one pool member drawn
  per deal with the pool's weights: ``heuristic`` (the heuristic bot), ``selfplay`` (the learner's latest
  weights, sampling its masked policy) or ``snapshot`` (one of the frozen snapshots, drawn uniformly; the
  latest weights until the first snapshot exists). A new deal is seen by its cards, so the draw happens
  before any opponent moves in it. It tells the env which rows it plays by a network (``input_rows``), so the
  env builds observations for those rows only.
- ``PoolVectorEnv``: the env RLlib builds (from ``env_config`` plus ``num_envs``).
- ``VectorPoolCallback``: pushes the learner's weights to every env runner's pool (at the start and after
  every iteration) and a frozen snapshot every ``snapshot_every`` iterations (the last ``max_snapshots``
  kept), through ``env_runner_group.foreach_env_runner``; logs per deal the learner's points by opponent
  kind, the opponents' decisions and an independent count of sampled actions outside their mask.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from ray.rllib.callbacks.callbacks import RLlibCallback

from hearts_env.batched import HeuristicPolicy
from hearts_env.batched.protocols import BatchEngine
from hearts_env.core.rules import Rules
from hearts_env.envs.rllib import HeartsRLlibVectorEnv

from ..opponents import NetworkOpponent

#: The module id of the learner on the vector env (RLlib's single-agent default).
VECTOR_MODULE = "default_policy"
#: Pool members by slot: 0 heuristic, 1 the latest weights, 2.. the snapshots.
HEURISTIC_SLOT, SELFPLAY_SLOT = 0, 1

Weights = Mapping[str, np.ndarray]


class PoolOpponent:
    """Every opponent seat of a table played by one pool member, drawn per deal (see the module docstring)."""

    name = "pool"

    def __init__(self, kinds: Sequence[str], weights: Sequence[float], network: Mapping[str, Any], num_players: int):
        self.kinds = list(kinds)
        self.weights = torch.tensor([float(w) for w in weights], dtype=torch.float64)
        self.network = dict(network)
        self.num_players = num_players
        self.heuristic = HeuristicPolicy()
        #: the pool's own random numbers (the env seeds it at a seeded reset), so the env's draws are unchanged
        self.generator = torch.Generator()
        self.latest: NetworkOpponent | None = None
        self.snapshots: list[tuple[str, NetworkOpponent]] = []
        self.decisions = 0  # opponents' decisions over the pool's life
        self._slot: torch.Tensor | None = None  # (B,) the member of each row's deal
        self._previous: torch.Tensor | None = None  # (B,) the member of each row's deal before it
        self._key: torch.Tensor | None = None  # (B,) the dealt cards of the deal the draw is for

    # ---- weights from the learner
    def install(self, latest: Weights | None, snapshots: Sequence[tuple[str, Weights]] | None) -> None:
        """Load the learner's ``latest`` weights and the snapshots (by name; known names are kept as they are)."""
        device = torch.device("cpu") if self._key is None else self._key.device
        if latest is not None:
            self.latest = self._frozen(latest, device, 0)
        if snapshots is not None:
            known = dict(self.snapshots)
            self.snapshots = [
                (name, known.get(name) or self._frozen(w, device, i)) for i, (name, w) in enumerate(snapshots)
            ]

    def _frozen(self, weights: Weights, device: torch.device, i: int) -> NetworkOpponent:
        tensors = {k: torch.from_numpy(np.array(v, np.float32)) for k, v in weights.items()}
        return NetworkOpponent.frozen(self.network, tensors, device, i, self.num_players)

    # ---- the draw
    def _draw(self, k: int, generator: torch.Generator | None, device: torch.device) -> torch.Tensor:
        """Member slots for ``k`` new deals: a kind by the weights, a snapshot uniformly among those kept."""
        gen = _cpu(generator)
        kind = torch.multinomial(self.weights, k, replacement=True, generator=gen)
        to_slot = [HEURISTIC_SLOT if name == "heuristic" else SELFPLAY_SLOT for name in self.kinds]
        slots = torch.tensor(to_slot, dtype=torch.int64).index_select(0, kind)
        if self.snapshots and "snapshot" in self.kinds:
            snap = kind == self.kinds.index("snapshot")
            picks = torch.randint(len(self.snapshots), (int(snap.sum()),), generator=gen)
            slots[snap] = 2 + picks
        return slots.to(device)

    def _redraw(self, engine: BatchEngine, rows: torch.Tensor, generator: torch.Generator | None) -> None:
        b, device = engine.state.batch_size, engine.state.current.device
        if self._key is None or self._key.shape[0] != b:
            self._slot = torch.zeros(b, dtype=torch.int64, device=device)
            self._previous = torch.zeros(b, dtype=torch.int64, device=device)
            self._key = torch.full((b,), -1, dtype=torch.int64, device=device)
        assert self._slot is not None and self._previous is not None
        key = engine.state.dealt.index_select(0, rows)[:, 0]
        fresh = rows[key != self._key.index_select(0, rows)]
        if fresh.numel():
            self._previous[fresh] = self._slot[fresh]
            self._slot[fresh] = self._draw(int(fresh.numel()), generator, device)
            self._key[fresh] = engine.state.dealt.index_select(0, fresh)[:, 0]

    def slot_kind(self, slot: int) -> str:
        """The pool kind of a member slot."""
        return "heuristic" if slot == HEURISTIC_SLOT else "selfplay" if slot == SELFPLAY_SLOT else "snapshot"

    def finished_kind(self, engine: BatchEngine, row: int) -> str:
        """The pool kind that played the deal which has just ended in ``row`` (the engine holds the next deal)."""
        if self._slot is None or self._previous is None or self._key is None:
            return "heuristic"
        drawn_for_next = int(self._key[row]) == int(engine.state.dealt[row, 0])
        return self.slot_kind(int((self._previous if drawn_for_next else self._slot)[row]))

    def input_rows(
        self, engine: BatchEngine, rows: torch.Tensor, generator: torch.Generator | None = None
    ) -> torch.Tensor:
        """``(len(rows),)`` bool: the rows whose member reads observations and masks (a network, not the
        heuristic bot); the env builds those rows' inputs only. Draws the members of new deals first."""
        self._redraw(engine, rows, generator)
        assert self._slot is not None
        return self._slot.index_select(0, rows) != HEURISTIC_SLOT

    # ---- BatchPolicy
    @torch.no_grad()
    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """Each row's action by its deal's pool member."""
        self._redraw(engine, rows, generator)
        if generator is not None and generator.device != obs.device:
            generator = None  # a member on another device samples with that device's default generator
        assert self._slot is not None
        self.decisions += int(rows.numel())
        slots = self._slot.index_select(0, rows)
        out = torch.zeros(rows.shape, dtype=torch.int64, device=rows.device)
        for slot in torch.unique(slots).tolist():
            pick = torch.nonzero(slots == slot).flatten()
            member: Any = self.heuristic if slot == HEURISTIC_SLOT else self._network(slot)
            got = member.act(engine, rows.index_select(0, pick), obs[pick], mask[pick], generator)
            out.index_copy_(0, pick, got)
        return out

    def _network(self, slot: int) -> NetworkOpponent:
        if slot >= 2 and slot - 2 < len(self.snapshots):
            return self.snapshots[slot - 2][1]
        if self.latest is None:
            raise RuntimeError("the pool has no weights of the learner yet (VectorPoolCallback installs them)")
        return self.latest


def _cpu(generator: torch.Generator | None) -> torch.Generator | None:
    """``generator`` if it draws on the CPU (the draws are made there), else none."""
    return generator if generator is not None and generator.device.type == "cpu" else None


#: The keys of the vector env's ``env_config`` (RLlib adds ``num_envs``).
VECTOR_ENV_KEYS = ("rules", "pool", "pool_weights", "network", "device", "num_envs")


class PoolVectorEnv(HeartsRLlibVectorEnv):
    """The env RLlib builds on the vector path, from its ``env_config`` (plus ``num_envs``): that many
    tables, one learner seat each (drawn per deal), the other seats played by a ``PoolOpponent``."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        config = dict(config or {})
        unknown = sorted(set(config) - set(VECTOR_ENV_KEYS))
        if unknown:
            raise ValueError(f"env_config: unknown key(s) {', '.join(unknown)}; known: {', '.join(VECTOR_ENV_KEYS)}")
        rules = Rules.load(config.get("rules", "standard"))
        pool = PoolOpponent(
            config.get("pool", ["heuristic"]),
            config.get("pool_weights", [1.0]),
            config.get("network", {}),
            rules.num_players,
        )
        super().__init__(
            int(config.get("num_envs", 1)), rules, seat="random", opponents=pool, device=config.get("device", "cpu")
        )
        self.pool = pool


def env_pool(env: Any) -> PoolOpponent | None:
    """The ``PoolOpponent`` of an env runner's env (any wrapper of ``HeartsVectorEnv``), if it has one."""
    opponents = getattr(getattr(env, "unwrapped", None), "opponents", None) or []
    return opponents[0] if opponents and isinstance(opponents[0], PoolOpponent) else None


def _install(runner: Any, latest: Weights | None, snapshots: list[tuple[str, Weights]] | None) -> int:
    pool = env_pool(getattr(runner, "env", None))
    if pool is not None:
        pool.install(latest, snapshots)
    return 0


def _illegal_samples(episode: Any) -> int:
    """Sampled actions of a single-agent episode chunk outside the mask of the observation they answered."""
    actions = np.asarray(episode.get_actions())
    if actions.size == 0:
        return 0
    answered = episode.get_observations(slice(0, len(actions)))
    if isinstance(answered, dict):
        masks = np.asarray(answered["action_mask"])
    else:
        masks = np.stack([np.asarray(o["action_mask"]) for o in answered])
    return int((masks[np.arange(len(actions)), actions.astype(np.int64)] == 0).sum())


class VectorPoolCallback(RLlibCallback):
    """Pushes the learner's weights and snapshots to the env runners' pools; logs the pool's figures."""

    def __init__(self, kinds: Sequence[str], snapshot_every: int, max_snapshots: int):
        super().__init__()
        self.kinds = list(kinds)
        self.snapshot_every, self.max_snapshots = snapshot_every, max_snapshots
        self.snapshots: list[tuple[str, dict[str, np.ndarray]]] = []
        self.made = 0
        self._reported = 0  # the pool's decisions already logged (on an env runner)

    def _push(self, algorithm: Any, snapshots_changed: bool) -> None:
        from .train import module_weights

        latest = module_weights(algorithm, VECTOR_MODULE)
        snapshots = list(self.snapshots) if snapshots_changed else None
        algorithm.env_runner_group.foreach_env_runner(
            lambda runner: _install(runner, latest, snapshots), local_env_runner=True
        )

    def on_algorithm_init(self, *, algorithm: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        self._push(algorithm, snapshots_changed=False)

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        changed = False
        if "snapshot" in self.kinds and algorithm.iteration % self.snapshot_every == 0:
            from .train import module_weights

            self.made += 1
            self.snapshots.append((f"main_v{self.made}", module_weights(algorithm, VECTOR_MODULE)))
            self.snapshots = self.snapshots[-self.max_snapshots :]
            changed = True
        self._push(algorithm, changed)
        result["hearts_snapshots"] = len(self.snapshots)

    def on_sample_end(self, *, env_runner: Any = None, metrics_logger: Any = None, **kwargs: Any) -> None:
        pool = env_pool(getattr(env_runner, "env", None))
        if pool is None or metrics_logger is None:
            return
        metrics_logger.log_value("hearts/opponent_decisions", pool.decisions - self._reported, reduce="lifetime_sum")
        self._reported = pool.decisions

    def on_episode_end(
        self, *, episode: Any, env: Any = None, env_index: int = 0, metrics_logger: Any = None, **kwargs: Any
    ) -> None:
        pool = env_pool(env)
        if metrics_logger is None or pool is None:
            return
        info = episode.get_infos(-1)
        metrics_logger.log_value("hearts/illegal_samples", _illegal_samples(episode), reduce="sum")
        if "scores" not in info:
            return
        scores = np.asarray(info["scores"], np.float64)
        seat = int(info["seat"])
        kind = pool.finished_kind(env.engine, env_index)
        theirs = float(np.delete(scores, seat).mean())
        metrics_logger.log_value(f"hearts/{kind}/main_points", float(scores[seat]), window=200)
        metrics_logger.log_value(f"hearts/{kind}/opponent_points", theirs, window=200)


__all__ = [
    "VECTOR_ENV_KEYS",
    "VECTOR_MODULE",
    "PoolOpponent",
    "PoolVectorEnv",
    "VectorPoolCallback",
    "env_pool",
]
