"""The opponents of the learner in training and its evaluations, each a
``hearts_env.batched.protocols.BatchPolicy``: actions for chosen rows of an engine, given those rows'
observations and masks.

- ``RandomOpponent``: uniformly random legal actions (the masked softmax of zero logits).
- ``NetworkOpponent``: a frozen network: a snapshot of the learner, sampling from its masked policy,
  or (``NetworkOpponent.exported``) an exported model (pool kind ``model:<path or shipped name>``),
  loaded into a torch network as ``init_from`` loads one, playing greedily as ``make_bot`` plays it
  in tournaments; it reads the full observation through its own input selection, so its network
  may differ from the learner's.
- the scripted adversaries (pool kinds ``moon``, ``moon-stubborn``, ...): the batched policies of
  ``hearts_env.batched.scripted.BATCHED_ADVERSARIES``, by the same labels as the bots' ``ADVERSARIES``.
- the rule-based bot is ``hearts_env.batched.HeuristicPolicy`` (the engine's ``heuristic_actions``).
- ``BotOpponent`` (pool kind ``bot:<spec>``): any bot ``make_bot`` builds (``bot:pimc``,
  ``bot:guard:base=ppo-robust``, ...), asked seat by seat with the seat's own observation dict. It
  needs the reference engine (``engine = "reference"``), whose tables are reference-engine games; the
  search bots and the moon guard have no batched twin. Before each decision the bot is reset with a
  seed drawn from the table's deal seed, the seat and the actions played so far, so its choices do
  not depend on how rows are split or on where a run was resumed. With ``workers`` > 1 (``Args.bot_workers``)
  the rows' decisions go to that many worker processes, each holding its own copy of the bot: a search bot or
  the guard's critic costs tens of milliseconds a decision, so a run against one is bound by them, and the
  seeds make the choices the same as in one process. ``close()`` stops the workers.

``OpponentPool`` plays the opponent seats of a rollout: each table's kind (and snapshot), asked of the
opponent that plays it. ``pool_opponent(kind, rules, device, num_players)`` builds the opponent of a
model or scripted kind;
``pool_kinds`` and ``pool_problem`` are what ``check_args`` validates a pool with.

The random and snapshot opponents sample with the rollout's generator (``generator``), so a seeded
run draws the same actions however the rows are split between opponents.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from hearts_env.batched import HeuristicPolicy
from hearts_env.batched.protocols import BatchEngine, BatchPolicy
from hearts_env.batched.scripted import BATCHED_ADVERSARIES
from hearts_env.bots import make_bot
from hearts_env.core.rules import Rules
from hearts_env.nets import load_policy

from .network import build_network, greedy_actions, sample_actions

#: The pool kinds built into the rollout itself; ``model:<path>`` and the scripted labels come on top.
BUILTIN_KINDS = ("snapshot", "heuristic", "random")
#: The prefix of a frozen exported model in the pool: ``model:models/ppo-standard``, ``model:ppo-standard``.
MODEL_PREFIX = "model:"
#: The prefix of any bot of ``make_bot`` in the pool (reference engine only): ``bot:guard:base=ppo-robust``.
BOT_PREFIX = "bot:"


def scripted_adversaries() -> dict[str, Callable[[], BatchPolicy]]:
    """The scripted adversaries' batched policies by label (``moon``, ``moon-stubborn``, ...)."""
    return dict(BATCHED_ADVERSARIES)


def pool_kinds() -> list[str]:
    """Every valid pool kind, as an error message lists them."""
    return [
        *BUILTIN_KINDS,
        f"{MODEL_PREFIX}<model directory or shipped name>",
        f"{BOT_PREFIX}<bot spec> (engine reference)",
        *sorted(scripted_adversaries()),
    ]


def pool_problem(pool: Sequence[str], rules_list: Sequence[Rules]) -> str | None:
    """Why ``pool`` cannot be the opponent pool of a run on ``rules_list`` (``None``: it can): the
    unknown kinds with the valid ones listed, or a ``model:`` kind whose model cannot play these rules."""
    scripted = scripted_adversaries()
    prefixes = (MODEL_PREFIX, BOT_PREFIX)
    unknown = [k for k in pool if k not in BUILTIN_KINDS and k not in scripted and not k.startswith(prefixes)]
    if unknown:
        return f"unknown opponent kind(s) {', '.join(unknown)}; use {', '.join(pool_kinds())}"
    for kind in pool:
        if not kind.startswith(BOT_PREFIX):
            continue
        spec = kind[len(BOT_PREFIX) :]
        if not spec:
            return f"{kind!r} names no bot; use bot:<spec>, e.g. bot:pimc or bot:guard:base=ppo-robust"
        for rules in rules_list:
            try:
                make_bot(spec, rules)
            except (ValueError, OSError) as err:  # ModelError and bad bot options are ValueErrors
                return f"{kind}: {getattr(err, 'reason', err)}"
    for kind in pool:
        if not kind.startswith(MODEL_PREFIX):
            continue
        spec = kind[len(MODEL_PREFIX) :]
        if not spec:
            return f"{kind!r} names no model; use model:models/<name> or model:<shipped name>"
        for rules in rules_list:
            try:
                load_policy(spec, rules)
            except (ValueError, OSError) as err:  # ModelError is a ValueError
                return f"{kind}: {getattr(err, 'reason', err)}"
    return None


def pool_opponent(
    kind: str, rules_list: Sequence[Rules], device: torch.device, num_players: int, bot_workers: int = 1
) -> BatchPolicy:
    """The opponent of a ``model:<path>``, ``bot:<spec>`` or scripted pool kind (the built-in kinds live in
    the rollout); a bot's decisions go to ``bot_workers`` processes."""
    if kind.startswith(MODEL_PREFIX):
        return NetworkOpponent.exported(kind[len(MODEL_PREFIX) :], rules_list, device, num_players)
    if kind.startswith(BOT_PREFIX):
        return BotOpponent(kind[len(BOT_PREFIX) :], rules_list, bot_workers)
    return scripted_adversaries()[kind]()


def uses_bots(pool: Sequence[str]) -> bool:
    """Whether ``pool`` holds a ``bot:`` kind (which needs the reference engine)."""
    return any(kind.startswith(BOT_PREFIX) for kind in pool)


def decision_seed(deal_seed: int, seat: int, played: int) -> int:
    """The seed a bot opponent is reset with before a decision: a function of the table's deal, the seat
    and how many actions were played before it, so the same decision always draws the same way."""
    mixed = np.random.SeedSequence([deal_seed % 2**63, seat, played]).generate_state(2, np.uint32)
    return int(mixed[0]) << 32 | int(mixed[1])


_WORKER_BOT: Any = None  # the bot of a BotOpponent's worker process


def _bot_worker_init(spec: str, rules_data: dict[str, Any]) -> None:
    global _WORKER_BOT
    _WORKER_BOT = make_bot(spec, Rules.from_dict(rules_data))


def _bot_worker_act(items: list[tuple[int, dict[str, Any]]]) -> list[int]:
    """The worker's bot's choice for each (decision seed, observation)."""
    return [_seeded_choice(_WORKER_BOT, seed, obs) for seed, obs in items]


def _seeded_choice(bot: Any, seed: int, obs: dict[str, Any]) -> int:
    reset = getattr(bot, "reset", None)
    if reset is not None:
        reset(seed)
    return int(bot.act(obs))


class BotOpponent:
    """Any bot of ``make_bot`` as an opponent on the reference engine (pool kind ``bot:<spec>``): each
    row's seat to move is asked with its own observation dict, as a tournament asks it; with ``workers``
    > 1, in that many worker processes (started at the first call; ``close()`` stops them)."""

    def __init__(self, spec: str, rules_list: Sequence[Rules], workers: int = 1) -> None:
        if len(rules_list) != 1:
            raise ValueError(f"{BOT_PREFIX}{spec}: a bot opponent plays one rule set (engine reference)")
        if workers < 1:
            raise ValueError(f"{BOT_PREFIX}{spec}: workers must be at least 1, got {workers}")
        self.bot = make_bot(spec, rules_list[0])  # here too: a bad spec fails now, with its reason
        self.name = f"{BOT_PREFIX}{spec}"
        self.spec, self.rules, self.workers = spec, rules_list[0], workers
        self._pool: Any = None

    def act(
        self,
        engine: Any,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """The bot's action for the seat to move in each of ``rows`` (``obs`` and ``mask`` are not read:
        the bot reads the seat's observation dict from the engine's table)."""
        tables = getattr(engine, "tables", None)
        if tables is None:
            raise ValueError(f"{self.name}: a bot opponent needs engine = reference (the reference engine's tables)")
        items = []
        for row in rows.tolist():
            table = tables[row]
            seat = table.current_player
            items.append((decision_seed(engine.seeds[row], seat, len(table.deal.actions)), table.observation(seat)))
        if self.workers > 1 and len(items) > 1:
            if self._pool is None:
                context = multiprocessing.get_context("spawn")  # torch in this process: no fork
                self._pool = context.Pool(
                    self.workers, initializer=_bot_worker_init, initargs=(self.spec, self.rules.to_dict())
                )
            size = max(1, len(items) // (4 * self.workers))
            chunks = [items[i : i + size] for i in range(0, len(items), size)]
            actions = [a for chunk in self._pool.map(_bot_worker_act, chunks) for a in chunk]
        else:
            actions = [_seeded_choice(self.bot, seed, o) for seed, o in items]
        return torch.as_tensor(actions, dtype=torch.int64, device=mask.device)

    def close(self) -> None:
        """Stop the worker processes (a no-op without them); a later ``act`` starts new ones."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


class RandomOpponent:
    """Uniformly random legal actions, drawn with ``generator``."""

    name = "random"

    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """A random legal action per row of ``mask``."""
        return sample_actions(torch.zeros(mask.shape, device=mask.device), mask, generator)


class NetworkOpponent:
    """A frozen network as an opponent: a past snapshot of the learner (sampling from its masked
    policy) or an exported model (``exported``: its greedy action, as ``make_bot`` plays it)."""

    def __init__(
        self,
        network: torch.nn.Module,
        name: str,
        weights: dict[str, torch.Tensor] | None = None,
        greedy: bool = False,
    ) -> None:
        self.network = network
        self.name = name
        self.weights = weights  # the snapshot it was built from: the pool rebuilds it only when this changes
        self.greedy = greedy

    @classmethod
    def frozen(
        cls, config: dict[str, Any], weights: dict[str, torch.Tensor], device: torch.device, i: int, num_players: int
    ) -> NetworkOpponent:
        """Snapshot ``i`` of the pool: a network of ``config`` holding ``weights``, in eval mode."""
        net = build_network(config, num_players).to(device)
        net.load_state_dict(weights)
        return cls(net.eval(), f"snapshot{i}", weights)

    @classmethod
    def exported(
        cls, spec: str, rules_list: Sequence[Rules], device: torch.device, num_players: int
    ) -> NetworkOpponent:
        """The exported model ``spec`` (a directory or shipped name), checked against every rule set of
        the run. It is given full observations (not the learner's input selection): its own network
        picks the entries it reads, so any exported network can sit beside any learner."""
        policy = load_policy(spec, rules_list[0])
        for rules in rules_list[1:]:
            load_policy(spec, rules)
        net = build_network(policy.config, num_players)
        net.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in policy.params.items()})  # writable copies
        return cls(net.to(device).eval(), f"{MODEL_PREFIX}{spec}", greedy=True)

    @torch.no_grad()
    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """The network's action per row: greedy for an exported model, else a sample of its masked policy."""
        logits, _ = self.network(obs)
        return greedy_actions(logits, mask) if self.greedy else sample_actions(logits, mask, generator)


class OpponentPool:
    """The opponents of a run's pool: ``act`` plays the opponent seats of chosen rows, each row by the kind
    its table drew (a snapshot table: by its snapshot; no snapshot yet: at random). Models and scripted
    adversaries are built once (``fixed``); the snapshots are rebuilt when ``refresh`` sees them change."""

    def __init__(
        self,
        kinds: Sequence[str],
        rules_list: Sequence[Rules],
        device: torch.device,
        num_players: int,
        bot_workers: int,
    ) -> None:
        self.kinds = list(kinds)
        self.num_players = num_players
        self.device = device
        self.heuristic = HeuristicPolicy()
        self.random = RandomOpponent()
        self.fixed = {
            kind: pool_opponent(kind, rules_list, device, num_players, bot_workers)
            for kind in self.kinds
            if kind not in BUILTIN_KINDS
        }
        self.frozen: list[NetworkOpponent] = []

    def refresh(self, config: dict[str, Any], snapshots: Sequence[dict[str, torch.Tensor]]) -> None:
        """Rebuild the snapshot opponents if the snapshots are not those they were built from."""
        if len(self.frozen) != len(snapshots) or any(
            f.weights is not w for f, w in zip(self.frozen, snapshots, strict=True)
        ):
            self.frozen = [
                NetworkOpponent.frozen(config, w, self.device, i, self.num_players) for i, w in enumerate(snapshots)
            ]

    def act(
        self,
        engine: BatchEngine,
        chosen: torch.Tensor,
        kind: torch.Tensor,
        snapshot: torch.Tensor,
        obs: torch.Tensor,
        full_obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator,
        out: torch.Tensor,
    ) -> None:
        """Write into ``out`` (``(B,)``) the actions of the ``chosen`` rows (``(B,)`` bool), row ``r`` played
        by kind ``kind[r]`` (an index into ``kinds``) and snapshot ``snapshot[r]``. Networks read ``obs`` (the
        learner's inputs; a snapshot shares its network), the heuristic and fixed opponents ``full_obs``."""
        rows = torch.arange(engine.batch_size, device=out.device)
        for k, name in enumerate(self.kinds):
            sel = chosen & (kind == k)
            if not bool(sel.any()):
                continue
            if name == "snapshot" and self.frozen:
                for s, opponent in enumerate(self.frozen):
                    sub = sel & (snapshot == s)
                    if bool(sub.any()):
                        out[sub] = opponent.act(engine, rows[sub], obs[sub], mask[sub], generator)
            elif name == "heuristic":
                out[sel] = self.heuristic.act(engine, rows[sel], full_obs[sel], mask[sel])
            elif name in self.fixed:
                out[sel] = self.fixed[name].act(engine, rows[sel], full_obs[sel], mask[sel], generator)
            else:  # random, or a snapshot before the first snapshot exists
                out[sel] = self.random.act(engine, rows[sel], obs[sel], mask[sel], generator)

    def close(self) -> None:
        """Stop any bot opponent's worker processes."""
        for opponent in self.fixed.values():
            close = getattr(opponent, "close", None)
            if close is not None:
                close()
