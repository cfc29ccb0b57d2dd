"""``HeartsVectorEnv``: a ``gymnasium.vector.VectorEnv`` of ``num_envs`` single-seat Hearts tables on the
batched torch engine, the opponents played inside it on the same device.

```python
import gymnasium
import torch
import hearts_env.envs  # registers hearts_env/Hearts-v1 and hearts_env/HeartsVector-v0 (its vector entry point)
from hearts_env.batched import sample_uniform

envs = gymnasium.make_vec("hearts_env/HeartsVector-v0", num_envs=1024)
# or: envs = HeartsVectorEnv(num_envs=1024, rules="standard", opponents="heuristic", device="cuda")
obs, info = envs.reset(seed=0)
for _ in range(100):
    actions = sample_uniform(torch.as_tensor(info["action_mask"]))  # any policy; the mask is never all False
    obs, rewards, terminated, truncated, info = envs.step(actions)
```

What each sub-environment is: ``hearts_env.envs.HeartsGymEnv`` with single-deal episodes.

- Observation: ``(num_envs, 2577)`` ``float32`` (``hearts_env.obs``, the learner's seat-relative vector).
- Action: one id ``0..67`` per sub-env (``MultiDiscrete``); a numpy array, a list or a torch tensor.
- Reward: the learner's reward as in ``HeartsGymEnv``: minus its deal points when its deal ends, zero
  before (``zero_sum=True``: plus the mean of all seats' deal points), times ``reward_scale``.
- Episode: one deal. ``terminated`` when the learner's deal ends; ``truncated`` is always False.
- Learner seat: ``seat`` fixed (an int), or ``"random"``: drawn per row at the start of every deal.
  ``info["seat"]`` holds each row's seat.
- Opponents: ``"heuristic"`` (the heuristic bot, as tensor operations: ``engine.heuristic_actions``),
  ``"random"`` (uniform over the legal actions), an exported model (a model directory or shipped
  model name, or a ``ModelBot`` of one; greedy, like ``make_bot``'s), any ``torch.nn.Module`` mapping
  observations ``(k, 2577)`` to logits ``(k, 68)`` (greedy over the legal actions unless
  ``opponent_sample=True``), or any ``hearts_env.batched.BatchPolicy``. One for every other seat, or a
  list with one per other seat in seat order after the learner. Per-decision Python bots (a plain
  ``Bot``) are refused: use ``HeartsGymEnv`` for those. A single opponent policy with a method
  ``input_rows(engine, rows, generator)`` (``(len(rows),)`` bool: the rows whose observation and mask it
  reads) is given those rows' observations and masks only, zeros in the others, so rows it plays from the
  engine's state (as the heuristic does) cost no observation.
- Action mask: ``info["action_mask"]`` ``(num_envs, 68)`` ``bool`` and ``action_masks()``; every row
  is always at a decision of its learner, so **no row's mask is ever all False** (after a deal ends
  the row's mask is already the next deal's first decision of its learner).

Autoreset: ``AutoresetMode.SAME_STEP`` by default (``metadata["autoreset_mode"]``). The step in which a row's deal
ends returns ``terminated=True``, the reward of that deal, and already the **next** deal's first
observation and mask of that row; ``info["final_obs"]`` ``(num_envs, 2577)`` (rows flagged by
``info["_final_obs"]``) is the learner's observation at its last decision of the finished deal (the
batched engine deals the next deal inside the transition, so the position after the last card is not
materialised; Hearts episodes never truncate, so no value bootstrap reads it), and
``info["final_info"]`` holds ``scores`` ``(num_envs, N)`` (every seat's deal points), ``points`` (the
learner's), ``cancelled`` and ``seat`` of the finished deals (``info["_final_info"]`` flags the rows).
Wrappers that assume ``NEXT_STEP`` do not apply: Gymnasium's vector observation wrappers, and its vector
``RecordEpisodeStatistics`` (1.2), which skips the step after a row's end as if it were a reset step and so
reports every episode after a row's first one step short; use ``RecordEpisodeStatistics`` from this module,
the same statistics (``info["episode"]``: ``r``, ``l``, ``t``; the queues) counted for ``SAME_STEP``.
A deal cancelled before the learner's first decision is skipped, as ``HeartsGymEnv`` skips it.

``autoreset_mode=AutoresetMode.NEXT_STEP`` (or ``"next_step"``), Gymnasium's default, for libraries that
assume it (RLlib's single-agent env runners): the step in which a row's deal ends returns that row's
``terminated=True``, the deal's reward and, as its observation and ``action_mask``, the learner's last
decision of the finished deal (no ``final_obs``; ``final_info`` as above); the row's next step ignores
its action, moves nothing in it and returns the next deal's first observation with reward 0 and
``terminated=False``. The rows' deals, seats and opponents' moves are those of ``SAME_STEP``.

Illegal actions: ``illegal_action="raise"`` (default): ``step`` raises
``hearts_env.batched.BatchedActionError`` (an ``IllegalActionError``) naming the rows, their actions
and each row's legal actions; the state is unchanged. ``"terminate"``: a row whose action is illegal
ends its episode with ``illegal_reward`` (default minus the worst deal score times
``abs(reward_scale)``, as ``HeartsGymEnv``), ``terminated=True`` and ``info["illegal_action"]`` True
for it, and gets a fresh deal; the other rows step as usual. A malformed action batch (wrong shape or
dtype) raises in either mode.

Seeding: ``reset(seed=s)`` (an int) makes everything after it reproducible: the deals, the seats and
the opponents' random choices. ``reset(seed=[s_0, ..., s_{B-1}])`` also deals row ``i`` exactly the
deal ``HeartsGymEnv.reset(seed=s_i)`` (``hearts_env.core.deal.seeded_deal``; the deals after it come
from ``s_0``). Later deals of a row follow each other as in a match (dealer rotation and pass cycle),
with fresh cards; so the pass kinds are spread evenly over the cycle, as a seeded reset's are.

Arrays: numpy by default (``array_type="numpy"``: observations, rewards, flags and info arrays), or
torch tensors on ``device`` (``array_type="torch"``), for a policy on the same GPU.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium
import gymnasium.wrappers.vector
import numpy as np
import torch
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..batched import (
    BatchedHearts,
    BatchPolicy,
    HeuristicPolicy,
    ModulePolicy,
    StepResult,
    UniformRandomPolicy,
)
from ..batched.state import FIELD_NAMES, BatchState
from ..bots import ModelBot
from ..core.actions import NUM_ACTIONS
from ..core.errors import NotResetError
from ..core.rules import Rules
from ..nets import NumpyPolicy, load_policy
from ..obs import OBSERVATION_SIZE, observation_bounds
from .rewards import illegal_move_reward

ARRAY_TYPES = ("numpy", "torch")
VECTOR_ILLEGAL_ACTION_MODES = ("raise", "terminate")


class ExportedModelPolicy:
    """An exported model (``NumpyPolicy``) as a ``BatchPolicy``: the best legal action of its logits (or a
    sample of the masked softmax). An ``mlp`` network runs in torch on the rows' device (its weights
    copied there once); a ``cardset`` network runs its numpy forward pass on the CPU."""

    def __init__(self, policy: NumpyPolicy, *, greedy: bool = True, name: str | None = None) -> None:
        self.policy = policy
        self.greedy = greedy
        self.name = name or str(policy.card.get("name", "model"))
        self._weights: dict[torch.device, list[tuple[torch.Tensor, torch.Tensor]]] = {}

    def _mlp(self, device: torch.device) -> list[tuple[torch.Tensor, torch.Tensor]]:
        if device not in self._weights:
            params = self.policy.params
            names = [f"layers.{i}" for i in range(len(self.policy.config["hidden"]))] + ["policy"]
            self._weights[device] = [
                (torch.tensor(params[f"{k}.weight"], device=device), torch.tensor(params[f"{k}.bias"], device=device))
                for k in names
            ]
        return self._weights[device]

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Raw logits ``(k, 68)`` for observations ``(k, D)``, on ``obs``'s device."""
        if self.policy.config["kind"] != "mlp":
            return torch.from_numpy(np.ascontiguousarray(self.policy.logits(obs.cpu().numpy()))).to(obs.device)
        act = torch.relu if self.policy.config["activation"] == "relu" else torch.tanh
        layers = self._mlp(obs.device)
        x = obs
        for weight, bias in layers[:-1]:
            x = act(torch.nn.functional.linear(x, weight, bias))
        weight, bias = layers[-1]
        return torch.nn.functional.linear(x, weight, bias)

    @torch.no_grad()
    def act(
        self,
        engine: Any,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        logits = self.logits(obs).masked_fill(~mask, float("-inf"))
        if self.greedy:
            return logits.argmax(1)
        return torch.multinomial(torch.softmax(logits, 1), 1, generator=generator).squeeze(1)


def _is_batch_policy(spec: Any) -> bool:
    """A ``BatchPolicy`` (``act(engine, rows, obs, mask, ...)``), not a one-observation ``Bot``."""
    act = getattr(spec, "act", None)
    if not callable(act):
        return False
    try:
        return len(inspect.signature(act).parameters) >= 4
    except (TypeError, ValueError):
        return False


def make_opponent(
    spec: Any, rules: Rules, device: torch.device, *, sample: bool = False, seed: int | None = None
) -> Any:
    """The ``BatchPolicy`` an opponent spec names (see the module docstring)."""
    if isinstance(spec, str | Path):
        text = str(spec)
        if text == "heuristic":
            return HeuristicPolicy()
        if text == "random":
            return UniformRandomPolicy(device, seed=seed)
        if text.partition(":")[0] in ("pimc", "ismcts"):
            raise ValueError(f"opponent {text!r}: search bots are not played inside the vector env; use HeartsGymEnv")
        return ExportedModelPolicy(load_policy(text, rules), name=Path(text.rstrip("/")).name)
    if isinstance(spec, torch.nn.Module):
        return ModulePolicy(spec.to(device).eval(), sample=sample, name=type(spec).__name__)
    if isinstance(spec, NumpyPolicy):
        return ExportedModelPolicy(spec, greedy=not sample)
    if isinstance(spec, ModelBot):
        return ExportedModelPolicy(spec.policy, greedy=spec.greedy)
    if _is_batch_policy(spec):
        return spec
    raise TypeError(
        f"opponent {spec!r}: give 'heuristic', 'random', a model directory, a torch module (observations to "
        "logits) or a hearts_env.batched.BatchPolicy; per-decision bots are played by HeartsGymEnv"
    )


class HeartsVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` single-seat Hearts tables on the batched engine; see the module docstring."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 1,
        rules: Rules | str | Path | Mapping[str, Any] | None = None,
        *,
        device: torch.device | str = "cpu",
        seat: int | str = 0,
        opponents: Any = "heuristic",
        reward_scale: float = 1.0,
        zero_sum: bool = False,
        illegal_action: str = "raise",
        illegal_reward: float | None = None,
        array_type: str = "numpy",
        opponent_sample: bool = False,
        episode: str = "deal",
        final_rank_reward: Sequence[float] | None = None,
        render_mode: str | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
    ) -> None:
        if episode != "deal":
            raise NotImplementedError(f"episode={episode!r}: HeartsVectorEnv plays single deals only (episode='deal')")
        if final_rank_reward is not None:
            raise NotImplementedError("final_rank_reward applies to match episodes; HeartsVectorEnv plays deals")
        if render_mode is not None:
            raise NotImplementedError("HeartsVectorEnv does not render; use HeartsGymEnv for render_mode")
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if array_type not in ARRAY_TYPES:
            raise ValueError(f"array_type must be one of {', '.join(ARRAY_TYPES)}, got {array_type!r}")
        if illegal_action not in VECTOR_ILLEGAL_ACTION_MODES:
            raise ValueError(
                f"illegal_action must be one of {', '.join(VECTOR_ILLEGAL_ACTION_MODES)}, got {illegal_action!r}"
            )
        modes = {m.value.lower(): m for m in (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)}
        key = autoreset_mode.value if isinstance(autoreset_mode, AutoresetMode) else str(autoreset_mode)
        mode = modes.get(key.lower().replace("_", ""))
        if mode is None:
            raise ValueError(f"autoreset_mode must be same_step or next_step, got {autoreset_mode!r}")
        self.autoreset_mode = mode
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        loaded = Rules.load(rules)
        n = loaded.num_players
        if seat != "random" and not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n):
            raise ValueError(f"seat must be 'random' or a seat 0..{n - 1}, got {seat!r}")
        self.rules = loaded
        self.num_envs = num_envs
        self.num_players = n
        self.engine = BatchedHearts(loaded, num_envs, device=device)
        self.device = self.engine.device
        self.array_type = array_type
        self.seat_option = seat
        self.reward_scale = float(reward_scale)
        self.zero_sum = bool(zero_sum)
        self.illegal_action = illegal_action
        self.illegal_reward = (
            float(illegal_reward)
            if illegal_reward is not None
            else illegal_move_reward(loaded, "deal", reward_scale=self.reward_scale)
        )
        self.render_mode = None
        self.generator = torch.Generator(device=self.device)
        self.generator.seed()
        specs = opponents if isinstance(opponents, list | tuple) else [opponents] * (n - 1)
        if len(specs) != n - 1:
            raise ValueError(f"opponents: give one for all, or {n - 1} (one per other seat), got {len(specs)}")
        made: dict[int, Any] = {}
        self.opponents = []
        for spec in specs:  # the same spec object is one policy (one call for all its rows)
            if id(spec) not in made:
                made[id(spec)] = make_opponent(spec, loaded, self.device, sample=opponent_sample)
            self.opponents.append(made[id(spec)])
        self._groups = self._opponent_groups()

        low, high = observation_bounds()
        self.single_observation_space = spaces.Box(low, high, (OBSERVATION_SIZE,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

        self._rows = torch.arange(num_envs, device=self.device)
        self.seats = torch.zeros(num_envs, dtype=torch.int64, device=self.device)
        self._obs: torch.Tensor | None = None
        self._mask: torch.Tensor | None = None
        #: NEXT_STEP: the rows whose deal ended in the last step (their next step only shows the next deal)
        self._held = torch.zeros(num_envs, dtype=torch.bool, device=self.device)
        self._shown_mask: torch.Tensor | None = None  # the mask of the observation last returned

    # ---- gymnasium API
    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if options:
            raise ValueError(f"HeartsVectorEnv.reset takes no options, got {sorted(options)}")
        deal_seeds: list[int] | None = None
        if seed is not None and not isinstance(seed, int | np.integer):
            deal_seeds = [int(s) for s in seed]
            if len(deal_seeds) != self.num_envs:
                raise ValueError(f"reset: {len(deal_seeds)} seeds for {self.num_envs} sub-envs (give one each)")
            seed = deal_seeds[0]
        super().reset(seed=None if seed is None else int(seed))
        engine = self.engine
        if seed is None:
            engine.reset(None)
            self.generator.seed()
        else:
            engine.reset(int(seed))
            self.generator.manual_seed(int(self.np_random.integers(2**62)))
            for policy in dict.fromkeys(self.opponents):
                gen = getattr(policy, "generator", None)
                if isinstance(gen, torch.Generator):
                    gen.manual_seed(int(self.np_random.integers(2**62)))
        if deal_seeds is not None:
            engine.load_seeded(list(range(self.num_envs)), deal_seeds)
        if self.seat_option == "random":
            self.seats = torch.randint(self.num_players, (self.num_envs,), generator=self.generator, device=self.device)
        else:
            self.seats = torch.full((self.num_envs,), int(self.seat_option), dtype=torch.int64, device=self.device)
        self._play_opponents(None)
        self._obs = engine.observe()
        self._mask = engine.legal_mask()
        self._held = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        self._shown_mask = self._mask
        return self._out(self._obs), {
            "action_mask": self._out(self._mask),
            "_action_mask": self._out(torch.ones(self.num_envs, dtype=torch.bool, device=self.device)),
            "seat": self._out(self.seats.clone()),
            "_seat": self._out(torch.ones(self.num_envs, dtype=torch.bool, device=self.device)),
        }

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        if self._obs is None or self._mask is None:
            raise NotResetError("step: the vector env has no episodes yet; call reset() first")
        engine = self.engine
        b = self.num_envs
        a = self._as_actions(actions)
        held = self._held
        next_step = self.autoreset_mode == AutoresetMode.NEXT_STEP
        any_held = next_step and bool(held.any())  # SAME_STEP holds no row: no device sync for it
        if any_held:  # NEXT_STEP: these rows show the next deal's start; their actions are ignored
            a = torch.where(held, self._mask.long().argmax(1), a)
        bad = None
        if self.illegal_action == "terminate":
            ok = (a >= 0) & (a < NUM_ACTIONS)
            ok &= self._mask.gather(1, a.clamp(0, NUM_ACTIONS - 1).unsqueeze(1)).squeeze(1)
            if not bool(ok.all()):
                bad = ~ok
                a = torch.where(bad, self._mask.long().argmax(1), a)
        seats_before = self.seats.clone()
        if any_held:
            result = self._step_rows(torch.nonzero(~held).flatten(), a)
        else:
            result = engine.step(a)  # "raise": BatchedActionError names the rows, actions and legal actions
        ended = result.done.clone()
        reward = self._learner_reward(result.rewards, result.scores, self.seats)
        scores = result.scores.clone()
        cancelled = result.cancelled.clone()
        if bad is not None:
            rows = torch.nonzero(bad).flatten()
            fresh = self.np_random.integers(2**62, size=int(rows.numel())).tolist()
            engine.load_seeded(rows.tolist(), fresh)
            reward = torch.where(bad, torch.tensor(self.illegal_reward, device=self.device), reward)
            scores = torch.where(bad.unsqueeze(1), 0, scores)
            cancelled = cancelled & ~bad
            ended |= bad
        self._new_seats(ended, self._rows)
        self._play_opponents(ended, reward, scores, cancelled)

        final_obs, final_mask = self._obs, self._mask
        self._obs = engine.observe()
        self._mask = engine.legal_mask()
        points = scores.gather(1, seats_before.unsqueeze(1)).squeeze(1)
        any_ended = bool(ended.any())
        obs, mask, seats = self._obs, self._mask, self.seats.clone()
        if next_step:
            self._held = ended
            if any_ended:  # the ended rows show their last decision now, the next deal at the next step
                obs = torch.where(ended.unsqueeze(1), final_obs, obs)
                mask = torch.where(ended.unsqueeze(1), final_mask, mask)
                seats = torch.where(ended, seats_before, seats)
        self._shown_mask = mask
        info: dict[str, Any] = {
            "action_mask": self._out(mask),
            "_action_mask": self._out(torch.ones(b, dtype=torch.bool, device=self.device)),
            "seat": self._out(seats),
            "_seat": self._out(torch.ones(b, dtype=torch.bool, device=self.device)),
        }
        if any_ended:
            out_ended = self._out(ended)
            if not next_step:
                info["final_obs"] = self._out(final_obs)
                info["_final_obs"] = out_ended
            info["final_info"] = {
                "scores": self._out(scores),
                "_scores": out_ended,
                "points": self._out(points),
                "_points": out_ended,
                "cancelled": self._out(cancelled),
                "_cancelled": out_ended,
                "seat": self._out(seats_before),
                "_seat": out_ended,
            }
            info["_final_info"] = out_ended
        if bad is not None:
            info["illegal_action"] = self._out(bad)
            info["_illegal_action"] = self._out(bad)
        truncated = torch.zeros(b, dtype=torch.bool, device=self.device)
        return self._out(obs), self._out(reward), self._out(ended), self._out(truncated), info

    def action_masks(self) -> Any:
        """``(num_envs, 68)`` bool: the legal actions of each row's learner now (never all False in a row;
        ``NEXT_STEP``: a row whose deal just ended shows its last decision's)."""
        if self._shown_mask is None:  # set with the mask by every reset
            raise NotResetError("action_masks: the vector env has no episodes yet; call reset() first")
        return self._out(self._shown_mask)

    def close_extras(self, **kwargs: Any) -> None:
        self._obs = self._mask = self._shown_mask = None

    # ---- internals
    def _out(self, x: torch.Tensor) -> Any:
        return x if self.array_type == "torch" else x.cpu().numpy()

    def _as_actions(self, actions: Any) -> torch.Tensor:
        """The actions as a ``(B,)`` int64 tensor on the device (the engine checks the shape and legality)."""
        if isinstance(actions, torch.Tensor):
            a = actions.to(self.device)
        else:
            arr = np.asarray(actions)
            if arr.dtype.kind not in "iu":
                raise ValueError(f"actions must be integers, one per sub-env, got dtype {arr.dtype}")
            a = torch.as_tensor(arr.astype(np.int64), device=self.device)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {tuple(a.shape)}")
        if a.dtype == torch.bool or a.is_floating_point() or a.is_complex():
            raise ValueError(f"actions must be integers, got {a.dtype}")
        return a.long()

    def _step_rows(self, idx: torch.Tensor, actions: torch.Tensor) -> StepResult:
        """Apply ``actions`` in the rows ``idx`` only (the others stay as they are); the result has every row,
        zero where nothing moved. Every row's action is checked first, so an error names the env's rows."""
        engine = self.engine
        engine.kernel.validate(engine.state, actions)
        b, n = self.num_envs, self.num_players
        if idx.numel() == 0:  # every row shows a fresh deal: nothing moves
            zeros = torch.zeros(b, dtype=torch.bool, device=self.device)
            points = torch.zeros(b, n, dtype=torch.int64, device=self.device)
            return StepResult(torch.zeros(b, n, device=self.device), zeros, points, zeros.clone())
        full = engine.state
        new, sub = engine.kernel.transition(full.rows(idx), actions.index_select(0, idx), engine.generator)
        engine.state = BatchState(
            **{name: getattr(full, name).index_copy(0, idx, getattr(new, name)) for name in FIELD_NAMES}
        )

        def spread(x: torch.Tensor) -> torch.Tensor:
            return torch.zeros((b, *x.shape[1:]), dtype=x.dtype, device=x.device).index_copy_(0, idx, x)

        return StepResult(spread(sub.rewards), spread(sub.done), spread(sub.scores), spread(sub.cancelled))

    def _learner_reward(self, rewards: torch.Tensor, scores: torch.Tensor, seats: torch.Tensor) -> torch.Tensor:
        """The learner's reward in each row of a step's result (zero where no deal ended)."""
        own = rewards.gather(1, seats.unsqueeze(1)).squeeze(1)
        if self.zero_sum:
            own = own + scores.float().mean(1)
        return own * self.reward_scale

    def _new_seats(self, done: torch.Tensor, rows: torch.Tensor) -> None:
        """Draw a new learner seat for the rows (of ``rows``) whose deal ended, when seats are random."""
        if self.seat_option != "random":
            return
        fresh = torch.randint(self.num_players, (rows.numel(),), generator=self.generator, device=self.device)
        self.seats = self.seats.index_put((rows,), torch.where(done, fresh, self.seats.index_select(0, rows)))

    def _opponent_groups(self) -> list[tuple[Any, list[int]]]:
        groups: dict[int, tuple[Any, list[int]]] = {}
        for k, policy in enumerate(self.opponents):
            groups.setdefault(id(policy), (policy, []))[1].append(k)
        return list(groups.values())

    def _opponent_actions(self, idx: torch.Tensor, sub: BatchState) -> torch.Tensor:
        """The opponents' actions in the rows ``idx`` of the engine (``sub``: those rows' state)."""
        engine = self.engine
        needs_obs = any(not isinstance(p, HeuristicPolicy | UniformRandomPolicy) for p, _ in self._groups)
        needs_mask = any(not isinstance(p, HeuristicPolicy) for p, _ in self._groups)
        k = int(idx.numel())
        empty = torch.zeros(k, 0, device=self.device)
        if len(self._groups) == 1 and needs_obs and callable(getattr(self._groups[0][0], "input_rows", None)):
            policy = self._groups[0][0]
            obs, mask = self._some_inputs(sub, policy.input_rows(engine, idx, self._policy_generator(policy)))
            return self._act(policy, idx, obs, mask)
        obs = engine.observation_builder.observe(sub) if needs_obs else empty
        mask = engine.kernel.legal_mask(sub) if needs_mask else empty.bool()
        if len(self._groups) == 1:
            return self._act(self._groups[0][0], idx, obs, mask)
        rel = (sub.current - self.seats.index_select(0, idx)) % self.num_players - 1
        out = torch.zeros(k, dtype=torch.int64, device=self.device)
        for policy, rels in self._groups:
            pick = torch.nonzero(torch.isin(rel, torch.tensor(rels, device=self.device))).flatten()
            if pick.numel():
                got = self._act(
                    policy,
                    idx.index_select(0, pick),
                    obs[pick] if needs_obs else obs[: pick.numel()],
                    mask[pick] if needs_mask else mask[: pick.numel()],
                )
                out = out.index_put((pick,), got)
        return out

    def _some_inputs(self, sub: BatchState, need: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Observations and masks of the rows of ``sub`` flagged by ``need``; zeros (False) in the others."""
        engine = self.engine
        k = sub.batch_size
        pick = torch.nonzero(need).flatten()
        if pick.numel() == k:
            return engine.observation_builder.observe(sub), engine.kernel.legal_mask(sub)
        obs = torch.zeros(k, OBSERVATION_SIZE, device=self.device)
        mask = torch.zeros(k, NUM_ACTIONS, dtype=torch.bool, device=self.device)
        if pick.numel():
            some = sub.rows(pick)
            obs.index_copy_(0, pick, engine.observation_builder.observe(some))
            mask.index_copy_(0, pick, engine.kernel.legal_mask(some))
        return obs, mask

    def _policy_generator(self, policy: Any) -> torch.Generator:
        gen = getattr(policy, "generator", None)
        return gen if isinstance(gen, torch.Generator) else self.generator

    def _act(self, policy: BatchPolicy, rows: torch.Tensor, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return policy.act(self.engine, rows, obs, mask, self._policy_generator(policy))

    def _play_opponents(
        self,
        ended: torch.Tensor | None,
        reward: torch.Tensor | None = None,
        scores: torch.Tensor | None = None,
        cancelled: torch.Tensor | None = None,
    ) -> None:
        """Let the opponents move in every row until its learner is to move. A row's first deal end
        (``ended`` False) is recorded into ``reward``, ``scores``, ``cancelled`` and ``ended``; later
        ones in the same call (deals voided before the learner's first decision) are skipped. With
        ``ended=None`` (at reset) nothing is recorded."""
        engine = self.engine
        b = self.num_envs
        while True:
            need = engine.state.current != self.seats
            idx = torch.nonzero(need).flatten()
            k = int(idx.numel())
            if k == 0:
                return
            if k == b:
                actions = self._opponent_actions(idx, engine.state)
                result = engine.step(actions)
            else:
                full = engine.state
                sub = full.rows(idx)
                actions = self._opponent_actions(idx, sub)
                new, result = engine.kernel.transition(sub, actions, engine.generator)
                engine.state = BatchState(
                    **{name: getattr(full, name).index_copy(0, idx, getattr(new, name)) for name in FIELD_NAMES}
                )
            done = result.done
            if ended is not None and reward is not None and scores is not None and cancelled is not None:
                first = done & ~ended.index_select(0, idx)
                seats = self.seats.index_select(0, idx)
                got = self._learner_reward(result.rewards, result.scores, seats)
                reward.index_add_(0, idx, torch.where(first, got, 0.0))
                scores.index_copy_(0, idx, torch.where(first.unsqueeze(1), result.scores, scores.index_select(0, idx)))
                cancelled.index_copy_(0, idx, torch.where(first, result.cancelled, cancelled.index_select(0, idx)))
                ended.index_copy_(0, idx, ended.index_select(0, idx) | done)
            self._new_seats(done, idx)


class RecordEpisodeStatistics(gymnasium.wrappers.vector.RecordEpisodeStatistics):
    """Gymnasium's vector ``RecordEpisodeStatistics`` for a ``SAME_STEP`` env such as ``HeartsVectorEnv``:
    the step that ends a row's episode is its last one, and the row's next step is already the next
    episode's first, so it is counted (Gymnasium's own, written for ``NEXT_STEP``, drops it)."""

    def __init__(self, env: gymnasium.vector.VectorEnv, buffer_length: int = 100, stats_key: str = "episode") -> None:
        mode = env.metadata.get("autoreset_mode")
        if mode is not None and mode != AutoresetMode.SAME_STEP:
            raise ValueError(f"this RecordEpisodeStatistics counts SAME_STEP autoreset; the env's is {mode}")
        super().__init__(env, buffer_length=buffer_length, stats_key=stats_key)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        self.episode_returns += _numpy(rewards).astype(np.float64)
        self.episode_lengths += 1
        dones = np.logical_or(_numpy(terminations), _numpy(truncations)).astype(bool)
        if dones.any():
            if self._stats_key in infos or f"_{self._stats_key}" in infos:
                raise ValueError(f"the info already holds the key {self._stats_key!r}: {list(infos)}")
            now = time.perf_counter()
            elapsed = np.round(now - self.episode_start_times, 6)
            infos[self._stats_key] = {
                "r": np.where(dones, self.episode_returns, 0.0),
                "l": np.where(dones, self.episode_lengths, 0),
                "t": np.where(dones, elapsed, 0.0),
            }
            infos[f"_{self._stats_key}"] = dones
            self.episode_count += int(dones.sum())
            self.time_queue.extend(elapsed[dones])
            self.return_queue.extend(self.episode_returns[dones])
            self.length_queue.extend(self.episode_lengths[dones])
            self.episode_returns[dones] = 0.0
            self.episode_lengths[dones] = 0
            self.episode_start_times[dones] = now
        self.prev_dones = np.zeros(self.num_envs, dtype=bool)
        return observations, rewards, terminations, truncations, infos


def _numpy(x: Any) -> np.ndarray:
    """A numpy copy of a batch (a torch tensor on any device, or an array)."""
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


def make_vector_env(num_envs: int = 1, **kwargs: Any) -> HeartsVectorEnv:
    """The vector entry point (``gymnasium.make_vec``): ``HeartsVectorEnv(num_envs, **kwargs)``."""
    return HeartsVectorEnv(num_envs=num_envs, **kwargs)


__all__ = [
    "ARRAY_TYPES",
    "VECTOR_ILLEGAL_ACTION_MODES",
    "ExportedModelPolicy",
    "HeartsVectorEnv",
    "RecordEpisodeStatistics",
    "make_opponent",
    "make_vector_env",
]
