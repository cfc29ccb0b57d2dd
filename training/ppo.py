"""PPO with action masking, self-play and an opponent pool, on the batched engine (CPU or CUDA).

The whole algorithm reads top to bottom in ``train``: collect a rollout from ``num_envs`` tables in
lockstep, compute GAE along each seat's own chain of decisions, run clipped PPO epochs, log,
evaluate, checkpoint. Hearts is a multi-agent game: at every step one seat moves at each table.
Each table has *learner* seats (played by the current network; their decisions are training
samples) and *opponent* seats (played by a frozen snapshot of the network, the heuristic bot or a
random bot, drawn per table from the pool at every rollout). A seat's reward (minus its deal points,
divided by the deal's penalty total) arrives with the step that ends the deal; with ``gamma = 1``
the value of a decision is that seat's expected final reward. A decision whose chain runs past the
rollout's end (its deal is not over yet) is left out of the update: it has no target yet.

Before the first update a fresh run can imitate the heuristic bot (``imitation_samples``, see
``training.imitate``), and ``more_rules`` trains one network on several rule sets at once (the tables
split evenly between them; evaluations per rule set).

    python -m training.ppo --config configs/train/standard.toml --total-decisions 2000000
    python -m training.ppo --resume runs/<name>          # continue a killed run

Every run is named (``<rules>-<network>-s<seed>-<time>`` unless ``--run-name``) and writes to
``runs/<name>/``: TensorBoard logs, ``checkpoint.pt`` (atomically, every ``checkpoint_every``
updates), ``learning_curve.png`` and ``metrics.jsonl``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import sys
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from hearts_env.batched import BatchedHearts, MixedBatchedHearts
from hearts_env.core.rules import Rules

from .checkpoint import load_checkpoint, save_checkpoint
from .network import (
    build_network,
    cardset_config,
    evaluate_actions,
    greedy_actions,
    masked_log_probs,
    mlp_config,
    sample_actions,
)


@dataclass
class Args:
    """Every setting of a training run. Each field documents itself; all can be set from a TOML file
    (``--config``) and overridden on the command line (``--num-envs 512``)."""

    rules: str = field(default="standard", metadata={"help": "preset name or rule file to train on"})
    more_rules: list[str] = field(
        default_factory=list,
        metadata={"help": "more rule sets to train on at once (same player count): the tables split evenly"},
    )
    seed: int = field(default=1, metadata={"help": "seed of everything: deals, sampling, initial weights"})
    run_name: str = field(default="", metadata={"help": "name of the run (default: derived from the settings)"})
    runs_dir: str = field(default="runs", metadata={"help": "where runs write logs and checkpoints"})
    device: str = field(default="cpu", metadata={"help": "torch device: cpu or cuda"})
    engine: str = field(
        default="batched",
        metadata={"help": "batched (torch, any device) or reference (the reference engine on many tables; CPU)"},
    )
    threads: int = field(default=0, metadata={"help": "torch CPU threads (0: torch's default)"})
    # network
    network: str = field(default="mlp", metadata={"help": "mlp (baseline) or cardset (shared card embeddings)"})
    hidden: list[int] = field(default_factory=lambda: [256, 256], metadata={"help": "hidden layer sizes"})
    init_from: str = field(
        default="", metadata={"help": "start from the weights of an exported model (models/<name>); its network wins"}
    )
    # imitation warm start (training.imitate), before the first PPO update of a fresh run
    imitation_samples: int = field(
        default=0,
        metadata={"help": "heuristic-labelled decisions to imitate before PPO (0: none; skipped with init_from)"},
    )
    imitation_dagger: float = field(
        default=0.25, metadata={"help": "share of imitation decisions played by the network itself (DAgger mix)"}
    )
    imitation_learning_rate: float = field(default=1e-3, metadata={"help": "Adam learning rate of the imitation"})
    # rollouts
    total_decisions: int = field(default=2_000_000, metadata={"help": "environment decisions to train for"})
    num_envs: int = field(default=256, metadata={"help": "tables played in lockstep"})
    num_steps: int = field(default=128, metadata={"help": "steps per table per rollout (one decision each)"})
    # PPO
    learning_rate: float = field(default=3e-4, metadata={"help": "Adam learning rate"})
    anneal_lr: bool = field(default=True, metadata={"help": "decay the learning rate linearly to zero"})
    gamma: float = field(default=1.0, metadata={"help": "discount along a seat's decisions within a deal"})
    gae_lambda: float = field(default=0.95, metadata={"help": "GAE lambda"})
    update_epochs: int = field(default=4, metadata={"help": "PPO epochs per rollout"})
    minibatch_size: int = field(default=2048, metadata={"help": "samples per gradient step"})
    clip_coef: float = field(default=0.2, metadata={"help": "PPO ratio clip"})
    ent_coef: float = field(default=0.01, metadata={"help": "entropy bonus (masked entropy)"})
    vf_coef: float = field(default=0.5, metadata={"help": "value loss weight"})
    max_grad_norm: float = field(default=0.5, metadata={"help": "gradient norm clip"})
    target_kl: float = field(default=0.0, metadata={"help": "stop an update's epochs early above this KL (0: off)"})
    # opponents
    selfplay_fraction: float = field(default=0.5, metadata={"help": "share of tables where every seat learns"})
    pool: list[str] = field(
        default_factory=lambda: ["snapshot", "heuristic", "random"],
        metadata={"help": "opponent kinds drawn for the other tables: snapshot, heuristic, random"},
    )
    pool_weights: list[float] = field(
        default_factory=lambda: [0.5, 0.4, 0.1], metadata={"help": "draw weights of the pool kinds"}
    )
    snapshot_every: int = field(default=10, metadata={"help": "updates between frozen snapshots"})
    max_snapshots: int = field(default=8, metadata={"help": "snapshots kept in the pool"})
    # evaluation, checkpoints, export
    eval_every: int = field(default=10, metadata={"help": "updates between evaluations (0: only at the end)"})
    eval_deals: int = field(default=2048, metadata={"help": "deals per evaluation opponent"})
    checkpoint_every: int = field(default=10, metadata={"help": "updates between checkpoints"})
    export_name: str = field(default="", metadata={"help": "export the final policy to models/<name>"})
    progress: bool = field(default=True, metadata={"help": "show a progress bar"})


# ---------------------------------------------------------------------------------------------------------------
# Configuration: TOML file, then command line
# ---------------------------------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hearts train", description="PPO self-play training on the batched engine.")
    parser.add_argument("--config", help="TOML file of Args fields (configs/train/*.toml)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last checkpoint")
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        default = f.default if f.default is not dataclasses.MISSING else None
        if f.type in ("bool", bool):
            parser.add_argument(flag, type=_bool, metavar="true|false", help=f.metadata["help"])
        elif f.type.startswith("list"):
            kind = int if "int" in f.type else (float if "float" in f.type else str)
            parser.add_argument(flag, type=kind, nargs="+", help=f.metadata["help"])
        else:
            kind = {"int": int, "float": float, "str": str}[f.type]
            parser.add_argument(flag, type=kind, help=f"{f.metadata['help']} (default {default!r})")
    return parser


def _bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not true or false")


def args_from_dict(data: dict[str, Any], source: str) -> Args:
    known = {f.name for f in dataclasses.fields(Args)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise SystemExit(f"{source}: unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return Args(**data)


class ConfigError(ValueError):
    """Settings that cannot start a run (a missing file, a bad value): ``main`` prints the message
    as one line, before anything is written."""


def parse_args(argv: Sequence[str] | None = None) -> tuple[Args, Path | None]:
    """``Args`` from the command line (``--resume``'s checkpoint, then ``--config``, then flags)
    and the run directory to resume; ``ConfigError`` says why a file cannot be read."""
    ns = _parser().parse_args(argv)
    data: dict[str, Any] = {}
    resume = Path(ns.resume) if ns.resume else None
    if resume is not None:
        if not resume.is_dir():
            raise ConfigError(f"--resume {resume}: no such run directory")
        if not (resume / "checkpoint.pt").is_file():
            raise ConfigError(f"--resume {resume}: no checkpoint.pt there (it is written after the first update)")
        try:
            data.update(load_checkpoint(resume / "checkpoint.pt", restore_rng=False)["args"])
        except (OSError, ValueError) as err:  # load_checkpoint says why, in one line
            raise ConfigError(f"--resume {resume}: {err}") from None
    if ns.config:
        try:
            with open(ns.config, "rb") as fh:
                data.update(tomllib.load(fh))
        except FileNotFoundError:
            raise ConfigError(f"--config {ns.config}: no such file") from None
        except IsADirectoryError:
            raise ConfigError(f"--config {ns.config}: is a directory, not a TOML file") from None
        except OSError as err:
            raise ConfigError(f"--config {ns.config}: cannot read it: {err.strerror}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise ConfigError(f"--config {ns.config}: not valid TOML: {err}") from None
    for f in dataclasses.fields(Args):
        value = getattr(ns, f.name)
        if value is not None:
            data[f.name] = value
    return args_from_dict(data, ns.config or "arguments"), resume


# ---------------------------------------------------------------------------------------------------------------
# Opponents: each acts for a subset of rows of the batch
# ---------------------------------------------------------------------------------------------------------------


class RandomOpponent:
    name = "random"

    def act(self, obs: torch.Tensor, mask: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        return sample_actions(torch.zeros(mask.shape, device=mask.device), mask, generator)


class NetworkOpponent:
    """A frozen copy of the network (a past snapshot), sampling from its masked policy."""

    def __init__(self, network: torch.nn.Module, name: str, weights: dict[str, torch.Tensor] | None = None) -> None:
        self.network = network
        self.name = name
        self.weights = weights  # the snapshot it was built from

    @torch.no_grad()
    def act(self, obs: torch.Tensor, mask: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        logits, _ = self.network(obs)
        return sample_actions(logits, mask, generator)


def _frozen_opponent(
    config: dict[str, Any], weights: dict[str, torch.Tensor], device: torch.device, i: int, num_players: int
) -> NetworkOpponent:
    net = build_network(config, num_players).to(device)
    net.load_state_dict(weights)
    return NetworkOpponent(net.eval(), f"snapshot{i}", weights)


class HeuristicOpponent:
    """The rule-based bot. Uses the batched form (``hearts_env.batched.heuristic_actions``) when this
    build has one, else the reference bot on each row's observation (identical choices, slower)."""

    name = "heuristic"

    def __init__(self, engine: BatchedHearts) -> None:
        self.engine = engine
        try:
            if not isinstance(engine, BatchedHearts | MixedBatchedHearts):
                raise ImportError("the batched heuristic plays the batched engine only")
            from hearts_env.batched import heuristic_actions  # type: ignore[attr-defined]
        except ImportError:
            from hearts_env.bots.heuristic import HeuristicBot

            self._batched = None
            self._bot = HeuristicBot(engine.rules)
        else:
            self._batched = heuristic_actions

    def act_rows(self, rows: torch.Tensor, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Actions for ``rows`` of the engine, given those rows' observations and masks."""
        if self._batched is not None:
            return self._batched(self.engine, rows)
        obs_np = obs.cpu().numpy()
        mask_np = mask.cpu().numpy().astype(np.int8)
        chosen = [self._bot.act({"observation": o, "action_mask": m}) for o, m in zip(obs_np, mask_np, strict=True)]
        return torch.as_tensor(chosen, dtype=torch.int64, device=rows.device)


# ---------------------------------------------------------------------------------------------------------------
# Rollout storage and advantages
# ---------------------------------------------------------------------------------------------------------------


def compute_advantages(
    values: torch.Tensor,
    rewards: torch.Tensor,
    terminal: torch.Tensor,
    next_index: torch.Tensor,
    gamma: float,
    gae_lambda: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """GAE along each seat's chain of decisions.

    All tensors are ``(T, B)``: ``next_index[t, b]`` is the step of the same seat's next decision at
    table ``b`` (-1 if none inside the rollout), ``terminal`` marks a seat's last decision of a deal and
    ``rewards`` its deal reward there. Returns ``(advantages, valid)``: ``valid`` is false for
    decisions whose chain reaches the rollout's end before its deal ends (no target yet)."""
    steps, batch = values.shape
    advantages = torch.zeros_like(values)
    valid = torch.zeros_like(terminal)
    cols = torch.arange(batch, device=values.device)
    for t in range(steps - 1, -1, -1):
        nxt = next_index[t]
        has_next = nxt >= 0
        safe = nxt.clamp(min=0)
        next_value = torch.where(has_next, values[safe, cols], torch.zeros_like(values[t]))
        next_adv = torch.where(has_next, advantages[safe, cols], torch.zeros_like(values[t]))
        next_valid = torch.where(has_next, valid[safe, cols], torch.zeros_like(valid[t]))
        term = terminal[t]
        delta = rewards[t] + gamma * next_value * (~term) - values[t]
        advantages[t] = delta + gamma * gae_lambda * next_adv * (~term)
        valid[t] = term | next_valid
    return advantages, valid


# ---------------------------------------------------------------------------------------------------------------
# Evaluation inside training (quick, batched): the learner at one seat, three opponents of one kind
# ---------------------------------------------------------------------------------------------------------------


@torch.no_grad()
def evaluate_against(
    network: torch.nn.Module, rules: Rules, opponent: str, deals: int, device: str, seed: int, engine: str = "batched"
) -> dict[str, float]:
    """Mean points per deal of the greedy learner (rotating over the seats) and of its opponents, over
    the deals ``seeded_deal(rules, seed + i)``: the tournaments' deals, every pass kind of the cycle
    (the batched engine's own first deals would all be the cycle's first kind)."""
    n = rules.num_players
    engine = make_engine(engine, rules, deals, torch.device(device), seed)
    if isinstance(engine, BatchedHearts):
        engine.load_seeded(range(deals), [seed + i for i in range(deals)])
    generator = torch.Generator(device=engine.device).manual_seed(seed)
    rows = torch.arange(deals, device=engine.device)
    learner_seat = rows % n
    finished = torch.zeros(deals, dtype=torch.bool, device=engine.device)
    points = torch.zeros(deals, n, dtype=torch.float64, device=engine.device)
    heuristic = HeuristicOpponent(engine) if opponent == "heuristic" else None
    while not bool(finished.all()):
        obs = engine.observe()
        mask = engine.legal_mask()
        current = engine.current_player
        actions = torch.zeros(deals, dtype=torch.int64, device=engine.device)
        mine = current == learner_seat
        if bool(mine.any()):
            logits, _ = network(obs[mine])
            actions[mine] = greedy_actions(logits, mask[mine])
        theirs = ~mine
        if bool(theirs.any()):
            if heuristic is not None:
                actions[theirs] = heuristic.act_rows(rows[theirs], obs[theirs], mask[theirs])
            else:
                actions[theirs] = RandomOpponent().act(obs[theirs], mask[theirs], generator)
        result = engine.step(actions)
        newly = result.done & ~finished
        points[newly] = result.scores[newly].double()
        finished |= result.done
    own = points[rows, learner_seat]
    others = (points.sum(dim=1) - own) / (n - 1)
    return {
        "points": float(own.mean()),
        "points_se": float(own.std() / math.sqrt(deals)),
        "opponent_points": float(others.mean()),
    }


# ---------------------------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------------------------


def make_engine(kind: str, rules: Rules | Sequence[Rules], batch_size: int, device: torch.device, seed: int) -> Any:
    """The batched torch engine (several rule sets side by side when given a list of more than one),
    or many reference-engine tables behind the same interface."""
    if not isinstance(rules, Rules):
        if len(rules) > 1:
            if kind != "batched":
                raise SystemExit("training on several rule sets at once needs engine = batched")
            return MixedBatchedHearts(rules, batch_size, device=device, seed=seed)
        rules = rules[0]
    if kind == "batched":
        return BatchedHearts(rules, batch_size=batch_size, device=device, seed=seed)
    if kind == "reference":
        from .reference_vec import ReferenceVecHearts

        return ReferenceVecHearts(rules, batch_size, seed=seed, device=device)
    raise SystemExit(f"unknown engine {kind!r}; use batched or reference")


def engine_generators(engine: Any) -> dict[str, Any]:
    """The engine's random generators, by the names checkpoints store them under."""
    return dict(engine.generators) if hasattr(engine, "generators") else {"engine": engine.generator}


def reward_scales(engine: Any) -> torch.Tensor:
    """``(B,)`` 1 / the deal's penalty total of each row's rule set: rewards of about -1..1 everywhere."""
    rules_list = getattr(engine, "rules_list", [engine.rules])
    scales = torch.tensor([1.0 / max(1, r.tables.penalty_total) for r in rules_list], device=engine.device)
    index = getattr(engine, "rules_index", None)
    if index is None:
        return scales[0].expand(engine.batch_size).clone()
    return scales[index]


def _network_config(args: Args, obs_dim: int) -> dict[str, Any]:
    if args.network == "mlp":
        return mlp_config(obs_dim, hidden=args.hidden)
    if args.network == "cardset":
        return cardset_config(obs_dim, hidden=args.hidden)
    raise SystemExit(f"unknown network {args.network!r}; use mlp or cardset")


def default_run_name(args: Args) -> str:
    rules = Path(args.rules).stem
    return f"{rules}-{args.network}-s{args.seed}-{time.strftime('%Y%m%d-%H%M%S')}"


def train(args: Args, resume: Path | None = None) -> dict[str, Any]:
    """Run PPO as configured; returns the final metrics (also written to the run directory). Settings
    that cannot start a run raise ``ConfigError`` (``check_args``) before anything is written."""
    check_args(args, resume)
    rules = Rules.load(args.rules)
    all_rules = [rules, *(Rules.load(r) for r in args.more_rules)]
    if args.threads:
        torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    run_dir = resume if resume is not None else Path(args.runs_dir) / (args.run_name or default_run_name(args))
    n = rules.num_players
    B, T = args.num_envs, args.num_steps

    engine = make_engine(args.engine, all_rules, B, device, args.seed)
    obs_dim = engine.observation_size
    if resume is not None:  # the checkpoint's own network (it may have come from --init-from)
        network = build_network(load_checkpoint(resume / "checkpoint.pt", restore_rng=False)["network"], n).to(device)
    elif args.init_from:
        from hearts_env.nets import load_policy

        start_from = load_policy(args.init_from, rules)  # refuses a model of other rules or encoding, with the reason
        network = build_network(start_from.config, n)
        network.load_state_dict({k: torch.from_numpy(v) for k, v in start_from.params.items()})
        network = network.to(device)
    else:
        network = build_network(_network_config(args, obs_dim), n).to(device)
    run_dir.mkdir(parents=True, exist_ok=True)  # after the engine and network: a failed start leaves no run dir
    optimizer = torch.optim.Adam(network.parameters(), lr=args.learning_rate, eps=1e-5, foreach=True)
    sampler = torch.Generator(device=device).manual_seed(args.seed + 1)
    table_rng = np.random.default_rng(args.seed + 2)
    snapshots: list[dict[str, torch.Tensor]] = []
    frozen: list[NetworkOpponent] = []  # the snapshots as networks, rebuilt only when the pool changes
    update, decisions, learner_decisions, elapsed = 0, 0, 0, 0.0
    history: list[dict[str, Any]] = []
    generators = {**engine_generators(engine), "sampler": sampler, "tables": table_rng}
    ckpt_path = run_dir / "checkpoint.pt"
    if resume is not None:
        data = load_checkpoint(ckpt_path, model=network, optimizer=optimizer, generators=generators)
        extra = data["extra"]
        update, decisions = data["update"], extra["decisions"]
        learner_decisions, elapsed = extra["learner_decisions"], extra["elapsed"]
        history = extra["history"]
        snapshots = [{k: torch.as_tensor(v) for k, v in snap.items()} for snap in extra["snapshots"]]
        engine.load_state_dict(extra["engine_state"])
        print(f"resumed {run_dir} at update {update} ({decisions:,} decisions)", file=sys.stderr)
    num_updates = max(1, math.ceil(args.total_decisions / (B * T)))

    def checkpoint() -> None:
        extra = {
            "decisions": decisions,
            "learner_decisions": learner_decisions,
            "elapsed": elapsed,
            "history": history,
            "snapshots": snapshots,
            "engine_state": engine.state_dict(),
        }
        save_checkpoint(
            ckpt_path, model=network, optimizer=optimizer, args=args, update=update, generators=generators, extra=extra
        )

    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tb"))
    if update == 0:
        writer.add_text("args", json.dumps(dataclasses.asdict(args), indent=1))
    if resume is None and not args.init_from and args.imitation_samples > 0:
        from .imitate import ImitationSettings, imitate, print_report

        started = time.perf_counter()
        settings = ImitationSettings(
            samples=args.imitation_samples,
            dagger=args.imitation_dagger,
            learning_rate=args.imitation_learning_rate,
            seed=args.seed + 3,
        )
        figures = imitate(network, all_rules, settings, device, report=print_report if args.progress else None)
        figures["wall_s"] = time.perf_counter() - started  # kept out of ``elapsed``: decisions/s is PPO's own
        history.append({"update": 0, "decisions": 0, **{f"imitation/{k}": v for k, v in figures.items()}})
        with open(run_dir / "metrics.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(history[-1]) + "\n")
        for key in ("accuracy", "policy_loss", "value_loss"):
            writer.add_scalar(f"imitation/{key}", figures[key], 0)
        checkpoint()  # a crash from here on resumes after the warm start
    progress = _progress(num_updates, update, args.progress)

    full_obs = torch.zeros(B, obs_dim, device=device)
    obs_buf = torch.zeros(T, B, network.input_size, device=device)  # only the entries the network reads
    mask_buf = torch.zeros(T, B, 68, dtype=torch.bool, device=device)
    act_buf = torch.zeros(T, B, dtype=torch.int64, device=device)
    logp_buf = torch.zeros(T, B, device=device)
    val_buf = torch.zeros(T, B, device=device)
    rew_buf = torch.zeros(T, B, device=device)
    term_buf = torch.zeros(T, B, dtype=torch.bool, device=device)
    learn_buf = torch.zeros(T, B, dtype=torch.bool, device=device)
    next_buf = torch.full((T, B), -1, dtype=torch.int64, device=device)
    rows = torch.arange(B, device=device)
    reward_scale = reward_scales(engine)
    kinds = list(args.pool)
    weights = np.asarray(args.pool_weights, dtype=float)
    weights = weights / weights.sum()  # check_args: one weight >= 0 per kind, not all zero
    heuristic = HeuristicOpponent(engine)
    random_opponent = RandomOpponent()

    while update < num_updates:
        start = time.perf_counter()
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - update / num_updates)
        # ---- seat roles for this rollout: which seats learn, and who plays the others
        learner = torch.zeros(B, n, dtype=torch.bool, device=device)
        selfplay = torch.as_tensor(table_rng.random(B) < args.selfplay_fraction, device=device)
        learner[selfplay] = True
        solo_seat = torch.as_tensor(table_rng.integers(0, n, B), device=device)
        learner[rows, solo_seat] = True
        kind_of_table = torch.as_tensor(table_rng.choice(len(kinds), size=B, p=weights), device=device)
        snap_of_table = torch.as_tensor(table_rng.integers(0, max(1, len(snapshots)), B), device=device)
        if len(frozen) != len(snapshots) or any(f.weights is not w for f, w in zip(frozen, snapshots, strict=True)):
            frozen = [_frozen_opponent(network.config, w, device, i, n) for i, w in enumerate(snapshots)]

        last_step = torch.full((B, n), -1, dtype=torch.int64, device=device)
        next_buf.fill_(-1)
        term_buf.zero_()
        rew_buf.zero_()
        network.eval()
        with torch.no_grad():
            for t in range(T):
                obs = network.select_inputs(engine.observe(out=full_obs), out=obs_buf[t])
                mask = engine.legal_mask()
                mask_buf[t] = mask
                current = engine.current_player
                is_learner = learner[rows, current]
                learn_buf[t] = is_learner
                actions = torch.zeros(B, dtype=torch.int64, device=device)
                sampled = torch.zeros(B, dtype=torch.int64, device=device)
                logp_buf[t] = 0.0
                val_buf[t] = 0.0
                if bool(is_learner.any()):  # the network runs on the learner rows only
                    logits, value = network(obs[is_learner])
                    lmask = mask[is_learner]
                    chosen = sample_actions(logits, lmask, sampler)
                    logp = masked_log_probs(logits, lmask)
                    sampled[is_learner] = chosen
                    logp_buf[t, is_learner] = logp.gather(1, chosen.unsqueeze(1)).squeeze(1)
                    val_buf[t, is_learner] = value
                others = ~is_learner
                if bool(others.any()):
                    for k, kind in enumerate(kinds):
                        sel = others & (kind_of_table == k)
                        if not bool(sel.any()):
                            continue
                        if kind == "snapshot" and frozen:
                            for s, opp in enumerate(frozen):
                                sub = sel & (snap_of_table == s)
                                if bool(sub.any()):
                                    actions[sub] = opp.act(obs[sub], mask[sub], sampler)
                        elif kind == "heuristic" and heuristic is not None:
                            actions[sel] = heuristic.act_rows(rows[sel], full_obs[sel], mask[sel])
                        else:  # random, or a snapshot before the first snapshot exists
                            actions[sel] = random_opponent.act(obs[sel], mask[sel], sampler)
                act_buf[t] = torch.where(is_learner, sampled, actions)
                # link this decision to the same seat's previous one at this table
                prev = last_step[rows, current]
                link = is_learner & (prev >= 0)
                next_buf[prev[link], rows[link]] = t
                last_step[rows[is_learner], current[is_learner]] = t
                result = engine.step(act_buf[t])
                decisions += B
                learner_decisions += int(is_learner.sum())
                if bool(result.done.any()):
                    done_rows = rows[result.done]
                    for seat in range(n):
                        step_of = last_step[done_rows, seat]
                        has = step_of >= 0
                        r, s = done_rows[has], step_of[has]
                        term_buf[s, r] = True
                        rew_buf[s, r] = result.rewards[r, seat] * reward_scale[r]
                    last_step[done_rows] = -1

        rollout_s = time.perf_counter() - start
        advantages, valid = compute_advantages(val_buf, rew_buf, term_buf, next_buf, args.gamma, args.gae_lambda)
        sample = learn_buf & valid
        returns = advantages + val_buf
        b_obs, b_mask, b_act = obs_buf[sample], mask_buf[sample], act_buf[sample]
        b_logp, b_adv, b_ret, b_val = logp_buf[sample], advantages[sample], returns[sample], val_buf[sample]
        # ---- PPO epochs
        network.train()
        count = b_obs.shape[0]
        stats: dict[str, list[float]] = {
            k: [] for k in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac")
        }
        stop = False
        for _ in range(args.update_epochs):
            order = torch.randperm(count, device=device, generator=sampler)
            for begin in range(0, count, args.minibatch_size):
                idx = order[begin : begin + args.minibatch_size]
                new_logp, entropy, value = evaluate_actions(network, b_obs[idx], b_mask[idx], b_act[idx])
                log_ratio = new_logp - b_logp[idx]
                ratio = log_ratio.exp()
                adv = b_adv[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(network.parameters(), args.max_grad_norm)
                optimizer.step()
                with torch.no_grad():
                    kl = ((ratio - 1) - log_ratio).mean()
                    stats["policy_loss"].append(float(pg_loss))
                    stats["value_loss"].append(float(v_loss))
                    stats["entropy"].append(float(entropy.mean()))
                    stats["approx_kl"].append(float(kl))
                    stats["clipfrac"].append(float(((ratio - 1).abs() > args.clip_coef).float().mean()))
                if args.target_kl and float(kl) > args.target_kl:
                    stop = True
                    break
            if stop:
                break
        update += 1
        elapsed += time.perf_counter() - start
        var_y = b_ret.var()
        explained = float(1 - (b_ret - b_val).var() / var_y) if count > 1 and var_y > 0 else float("nan")
        metrics: dict[str, Any] = {k: float(np.mean(v)) if v else float("nan") for k, v in stats.items()}
        metrics.update(
            update=update,
            decisions=decisions,
            learner_decisions=learner_decisions,
            samples=count,
            decisions_per_s=decisions / max(elapsed, 1e-9),
            rollout_s=rollout_s,
            update_s=time.perf_counter() - start - rollout_s,
            explained_variance=explained,
            learning_rate=optimizer.param_groups[0]["lr"],
        )
        if update % args.snapshot_every == 0:
            snapshots.append({k: v.detach().clone() for k, v in network.state_dict().items()})
            snapshots = snapshots[-args.max_snapshots :]
        if (args.eval_every and update % args.eval_every == 0) or update == num_updates:
            network.eval()
            for opponent in ("random", "heuristic"):
                # one rule set: eval/<opponent>/...; several: eval/<rules>/<opponent>/... and their mean
                results = {
                    Path(name).stem: evaluate_against(
                        network, r, opponent, args.eval_deals, args.device, 10_000 + update, args.engine
                    )
                    for name, r in zip([args.rules, *args.more_rules], all_rules, strict=True)
                }
                for name, result in results.items():
                    for key, value in result.items():
                        if len(results) > 1:
                            metrics[f"eval/{name}/{opponent}/{key}"] = value
                for key in ("points", "opponent_points"):
                    metrics[f"eval/{opponent}/{key}"] = float(np.mean([r[key] for r in results.values()]))
                metrics[f"eval/{opponent}/points_se"] = math.sqrt(
                    sum(r["points_se"] ** 2 for r in results.values())
                ) / len(results)
        for key, value in metrics.items():
            if isinstance(value, float | int) and key != "update":
                writer.add_scalar(key if "/" in key else f"train/{key}", value, decisions)
        history.append(metrics)
        with open(run_dir / "metrics.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(metrics) + "\n")
        progress.update(metrics)
        if update % args.checkpoint_every == 0 or update == num_updates:
            checkpoint()
    progress.close()
    writer.close()
    plot_learning_curve(history, run_dir / "learning_curve.png", title=run_dir.name)
    final = history[-1] if history else {}
    if args.export_name:
        from .export import export_model, run_training_info

        export_model(
            network.cpu(),
            Path("models") / args.export_name,
            name=args.export_name,
            rules=all_rules if len(all_rules) > 1 else rules,
            training_info=run_training_info(
                decisions=decisions,
                learner_decisions=learner_decisions,
                elapsed=elapsed,
                updates=update,
                args=dataclasses.asdict(args),
                run=run_dir.name,
                history=history,
            ),
            evaluation={k: v for k, v in final.items() if k.startswith("eval/")},
            overwrite=True,
        )
    return {"run_dir": str(run_dir), **final}


class _progress:
    """A tqdm bar when available and wanted, otherwise one line per update on stderr."""

    def __init__(self, total: int, initial: int, enabled: bool) -> None:
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, initial=initial, unit="update", dynamic_ncols=True)
            except ImportError:
                pass
        self.enabled = enabled

    def update(self, metrics: dict[str, Any]) -> None:
        text = f"dec/s {metrics['decisions_per_s']:,.0f} ent {metrics['entropy']:.2f}"
        if "eval/random/points" in metrics:
            text += f" vs-random {metrics['eval/random/points']:.2f}"
        if "eval/heuristic/points" in metrics:
            text += f" vs-heuristic {metrics['eval/heuristic/points']:.2f}"
        if self.bar is not None:
            self.bar.set_postfix_str(text)
            self.bar.update(1)
        elif self.enabled:
            print(f"update {metrics['update']}: {text}", file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def plot_learning_curve(history: list[dict[str, Any]], path: Path, title: str = "") -> Path | None:
    """Evaluation points per deal (and policy entropy) against training decisions."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for opponent, colour in (("random", "tab:blue"), ("heuristic", "tab:red")):
        pts = [
            (h["decisions"], h[f"eval/{opponent}/points"], h[f"eval/{opponent}/opponent_points"])
            for h in history
            if f"eval/{opponent}/points" in h
        ]
        if pts:
            xs, ys, opp = zip(*pts, strict=True)
            ax1.plot(xs, ys, "o-", color=colour, label=f"policy vs 3 {opponent}")
            ax1.plot(xs, opp, "--", color=colour, alpha=0.6, label=f"{opponent} seats")
    ax1.set_xlabel("training decisions")
    ax1.set_ylabel("points per deal (lower is better)")
    ax1.legend()
    ax1.grid(alpha=0.3)
    trained = [h for h in history if "entropy" in h]
    ax2.plot([h["decisions"] for h in trained], [h["entropy"] for h in trained], color="tab:green")
    ax2.set_xlabel("training decisions")
    ax2.set_ylabel("policy entropy")
    ax2.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


#: Settings that must be at least 1 (a table, a step, a gradient step...) and at least 0.
_AT_LEAST_ONE = (
    "num_envs",
    "num_steps",
    "minibatch_size",
    "update_epochs",
    "snapshot_every",
    "max_snapshots",
    "checkpoint_every",
    "eval_deals",
)
_AT_LEAST_ZERO = ("total_decisions", "imitation_samples", "eval_every", "threads")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _check_types(args: Args) -> None:
    """Each setting of the type ``Args`` declares (a TOML file can hold anything)."""
    for f in dataclasses.fields(Args):
        value = getattr(args, f.name)
        kind = str(f.type)
        if kind.startswith("list"):
            item = int if "int" in kind else (float if "float" in kind else str)
            ok = isinstance(value, list) and all(_is_a(v, item) for v in value)
            want = f"a list of {item.__name__}"
        else:
            item = {"int": int, "float": float, "str": str, "bool": bool}[kind]
            ok = _is_a(value, item)
            want = {"int": "a whole number", "float": "a number", "str": "a string", "bool": "true or false"}[kind]
        if not ok:
            raise ConfigError(f"{f.name} must be {want}, got {value!r}")


def _is_a(value: Any, kind: type) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    return isinstance(value, int | float) if kind is float else isinstance(value, kind)


def check_args(args: Args, resume: Path | None = None) -> None:
    """Refuse, with the reason, settings that cannot start a run; run before anything is written, so
    a failed start leaves no empty run directory. Raises ``ConfigError``."""
    from hearts_env.core import RulesError

    _check_types(args)
    for name in _AT_LEAST_ONE:
        if getattr(args, name) < 1:
            raise ConfigError(f"{_flag(name)} must be at least 1, got {getattr(args, name)}")
    for name in _AT_LEAST_ZERO:
        if getattr(args, name) < 0:
            raise ConfigError(f"{_flag(name)} must be at least 0, got {getattr(args, name)}")
    if not 0.0 <= args.selfplay_fraction <= 1.0 or not 0.0 <= args.imitation_dagger <= 1.0:
        raise ConfigError("--selfplay-fraction and --imitation-dagger are shares between 0 and 1")
    # rules: every one valid, all with the same number of players
    loaded = []
    for flag, spec in [("--rules", args.rules)] + [("--more-rules", r) for r in args.more_rules]:
        try:
            loaded.append(Rules.load(spec))
        except RulesError as err:
            option = f" (option {err.option})" if err.option else ""
            raise ConfigError(f"{flag} {spec}: invalid rules{option}: {err}") from None
        except OSError as err:
            raise ConfigError(f"{flag} {spec}: cannot read it: {err.strerror}") from None
    counts = {spec: r.num_players for spec, r in zip([args.rules, *args.more_rules], loaded, strict=True)}
    if len(set(counts.values())) > 1:
        listed = ", ".join(f"{spec} ({k} players)" for spec, k in counts.items())
        raise ConfigError(f"--more-rules: every rule set must have the same number of players, got {listed}")
    # engine, device, network, opponent pool
    if args.engine not in ("batched", "reference"):
        raise ConfigError(f"--engine {args.engine}: unknown engine; use batched or reference")
    if args.engine != "batched" and args.more_rules:
        raise ConfigError("--more-rules: training on several rule sets at once needs --engine batched")
    try:
        device = torch.device(args.device)
    except RuntimeError:
        raise ConfigError(f"--device {args.device}: not a torch device; use cpu or cuda") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            why = "this torch is built without CUDA" if torch.version.cuda is None else "no CUDA GPU is visible"
            raise ConfigError(f"--device {args.device}: CUDA is not available ({why}); use --device cpu")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise ConfigError(f"--device {args.device}: there are {torch.cuda.device_count()} CUDA device(s)")
    elif device.type == "mps" and not torch.backends.mps.is_available():
        raise ConfigError(f"--device {args.device}: MPS is not available; use --device cpu")
    elif device.type not in ("cpu", "cuda", "mps"):
        raise ConfigError(f"--device {args.device}: use cpu or cuda")
    if args.network not in ("mlp", "cardset"):
        raise ConfigError(f"--network {args.network}: unknown network; use mlp or cardset")
    bad = [h for h in args.hidden if h < 1]
    if not args.hidden or bad:
        raise ConfigError(f"--hidden: layer sizes must be at least 1, got {args.hidden}")
    try:
        _network_config(args, None)  # type: ignore[arg-type]  # None: the current encoding's size
    except ValueError as err:
        raise ConfigError(f"--network {args.network}: {err}") from None
    bad_kinds = sorted(set(args.pool) - {"snapshot", "heuristic", "random"})
    if bad_kinds:
        raise ConfigError(f"--pool: unknown opponent kind(s) {', '.join(bad_kinds)}; use snapshot, heuristic, random")
    if len(args.pool_weights) != len(args.pool) or sum(args.pool_weights) <= 0 or min(args.pool_weights) < 0:
        raise ConfigError(
            f"--pool-weights {args.pool_weights}: give one weight >= 0 per pool kind {args.pool}, not all zero"
        )
    # the starting weights: a model of these rules and this encoding (a resumed run has its own)
    if args.init_from and resume is None:
        from hearts_env.nets import load_policy

        try:
            load_policy(args.init_from, loaded[0])
        except (ValueError, OSError) as err:  # ModelError is a ValueError
            raise ConfigError(f"--init-from {args.init_from}: {getattr(err, 'reason', err)}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """``hearts train``: a bad setting is one line on stderr and exit status 2, with nothing written."""
    try:
        args, resume = parse_args(argv)
        final = train(args, resume)  # checks the settings first (check_args)
    except ConfigError as err:
        print(f"hearts train: {err}", file=sys.stderr)
        return 2
    except SystemExit as err:  # args_from_dict's refusal of unknown settings (argparse exits with a number)
        if not isinstance(err.code, str):
            raise
        print(f"hearts train: {err.code}", file=sys.stderr)
        return 2
    print(json.dumps({k: v for k, v in final.items() if not isinstance(v, list)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
