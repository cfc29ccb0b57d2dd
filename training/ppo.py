"""PPO with action masking, self-play and an opponent pool, on the batched engine (CPU or CUDA).

The whole algorithm reads top to bottom in ``train``: collect a rollout from ``num_envs`` tables in
lockstep, compute GAE along each seat's own chain of decisions, run clipped PPO epochs, log,
evaluate, checkpoint. Hearts is a multi-agent game: at every step one seat moves at each table.
Each table has *learner* seats (played by the current network; their decisions are training
samples) and *opponent* seats (played by a frozen snapshot of the network, the heuristic bot, a
random bot, a frozen exported model (``model:<path>``) or a scripted adversary (``moon``, ...), drawn
per table from the pool at every rollout; ``training.opponents``). A seat's reward
(minus its deal points, divided by the deal's penalty total) arrives with the step that ends the
deal; with ``gamma = 1`` the value of a decision is that seat's expected final reward. A decision
whose chain runs past the rollout's end (its deal is not over yet) is left out of the update: it
has no target yet.

With ``open_deal_coef`` some of the learner's decisions where a moon is still possible (and, with
``open_deal_anywhere``, some of any kind) are also played out after the rollout, every legal action on
a copy of the true deal (``training.open_deal``), and an all-actions policy term on those values joins
PPO's loss; ``oracle_critic`` scores decisions with a critic that reads the whole deal
(``training.oracle``).

Before the first update a fresh run can imitate the heuristic bot (``imitation_samples``, see
``training.imitate``), and ``more_rules`` trains one network on several rule sets at once (the tables
split evenly between them; evaluations per rule set). The settings are ``training.config.Args``.

    hearts train --config configs/train/standard.toml --total-decisions 2000000
    hearts train --resume runs/<name>          # continue a killed run

Every run is named (``<rules>-<network>-s<seed>-<time>`` unless ``--run-name``) and writes to
``runs/<name>/``: TensorBoard logs, ``checkpoint.pt`` (atomically, every ``checkpoint_every``
updates), ``learning_curve.png`` and ``metrics.jsonl``. A fresh run refuses a directory that holds a
run already (``--resume`` continues it, ``--overwrite`` replaces it); a resume cuts ``metrics.jsonl``
back to the checkpoint's update, so the file never repeats an update.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import math
import random
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor

from hearts_env.batched import BatchedHearts, HeuristicPolicy
from hearts_env.batched.state import BatchState
from hearts_env.core.rules import Rules
from hearts_env.nets import load_policy, user_models_dir

from . import imitate as imitation
from .checkpoint import load_checkpoint, save_checkpoint
from .config import Args, ConfigError, Launch, args_from_dict, check_args, network_config, parse_args
from .distributed import NullWriter, check_share, reseed
from .distributed import setup as setup_distributed
from .engines import engine_generators, engine_parts, make_engine, reward_scales
from .export import export_model, run_training_info
from .network import build_network, greedy_actions, masked_log_probs, policy_terms, sample_actions
from .open_deal import Continuation, Score, all_actions_loss, moon_alive, open_deal_values, pick_decisions
from .opponents import OpponentPool, RandomOpponent, pool_opponent
from .oracle import OracleCritic, magnet_kl, oracle_state, oracle_width
from .plotting import Progress, plot_learning_curve
from .teacher import drop_calm_labels, moon_shot, moon_threat

__all__ = ["Args", "ConfigError", "RunError", "args_from_dict", "compute_advantages", "main", "parse_args", "train"]


class RunError(RuntimeError):
    """A run that cannot go on (a full disk, a read-only run directory): ``main`` prints the message
    as one line; the last checkpoint written stays intact."""


# ---------------------------------------------------------------------------------------------------------------
# Advantages
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
def _play_seeded(
    network: torch.nn.Module,
    rules: Rules,
    policy: Any,
    deals: int,
    device: str,
    seed: int,
    engine: str,
    network_alone: bool,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The deals ``seeded_deal(rules, seed + i)`` played out, row ``i``'s marked seat ``i % n``: the
    tournaments' deals, every pass kind of the cycle (the batched engine's own first deals would all
    be the cycle's first kind). The greedy network sits at the marked seat alone (``network_alone``)
    or at every other seat, ``policy`` at the rest. Returns the deal points ``(deals, n)`` and the
    marked seats."""
    n = rules.num_players
    table = make_engine(engine, rules, deals, torch.device(device), seed)
    table.load_seeded(range(deals), [seed + i for i in range(deals)])
    generator = torch.Generator(device=table.device).manual_seed(seed)
    rows = torch.arange(deals, device=table.device)
    marked = rows % n
    finished = torch.zeros(deals, dtype=torch.bool, device=table.device)
    points = torch.zeros(deals, n, dtype=torch.float64, device=table.device)
    while not bool(finished.all()):
        obs = table.observe()
        mask = table.legal_mask()
        mine = (table.current_player == marked) == network_alone
        actions = torch.zeros(deals, dtype=torch.int64, device=table.device)
        if bool(mine.any()):
            logits, _ = network(obs[mine])
            actions[mine] = greedy_actions(logits, mask[mine])
        theirs = ~mine
        if bool(theirs.any()):
            actions[theirs] = policy.act(table, rows[theirs], obs[theirs], mask[theirs], generator)
        result = table.step(actions)
        newly = result.done & ~finished
        points[newly] = result.scores[newly].double()
        finished |= result.done
    return points, marked


def evaluate_against(
    network: torch.nn.Module, rules: Rules, opponent: str, deals: int, device: str, seed: int, engine: str = "batched"
) -> dict[str, float]:
    """Mean points per deal of the greedy learner (rotating over the seats) and of its three
    opponents (``heuristic`` or ``random``), over the deals ``seeded_deal(rules, seed + i)``."""
    n = rules.num_players
    policy = HeuristicPolicy() if opponent == "heuristic" else RandomOpponent()
    points, seat = _play_seeded(network, rules, policy, deals, device, seed, engine, network_alone=True)
    own = points[torch.arange(deals, device=points.device), seat]
    others = (points.sum(dim=1) - own) / (n - 1)
    return {
        "points": float(own.mean()),
        "points_se": float(own.std() / math.sqrt(deals)),
        "opponent_points": float(others.mean()),
    }


def evaluate_exploitation(
    network: torch.nn.Module, rules: Rules, adversary: str, deals: int, device: str, seed: int, engine: str = "batched"
) -> dict[str, float]:
    """A scripted adversary (``hearts_env.batched.scripted``) at one seat (rotating), the greedy
    learner at every other, over the deals ``seeded_deal(rules, seed + i)``: the robustness suite's
    table, batched and quick, so a run can watch its moon defence. ``gain``: the learners' mean points
    minus the adversary's (what it takes from them); ``moons``: the share of deals it shot, read from
    the scores (every other seat at least the moon value, or the adversary at minus it)."""
    n = rules.num_players
    policy = pool_opponent(adversary, [rules], torch.device(device), n)
    points, seat = _play_seeded(network, rules, policy, deals, device, seed, engine, network_alone=False)
    rows = torch.arange(deals, device=points.device)
    own = points[rows, seat]
    others = points.clone()
    others[rows, seat] = float("inf")
    learners = (points.sum(dim=1) - own) / (n - 1)
    moon = rules.tables.moon_value
    shot = (others.min(dim=1).values >= moon) | (own <= -moon) if rules.moon_enabled else torch.zeros_like(own) > 0
    gain = learners - own
    return {
        "gain": float(gain.mean()),
        "gain_se": float(gain.std() / math.sqrt(deals)),
        "points": float(own.mean()),
        "learner_points": float(learners.mean()),
        "moons": float(shot.double().mean()),
    }


# ---------------------------------------------------------------------------------------------------------------
# The run directory
# ---------------------------------------------------------------------------------------------------------------

#: What a run writes in its directory; ``--overwrite`` removes exactly these.
RUN_FILES = ("checkpoint.pt", "metrics.jsonl", "learning_curve.png", "tb")


def relative_rewards(rewards: torch.Tensor) -> torch.Tensor:
    """Each seat's reward minus the other seats' mean (rows: tables, columns: seats): zero-sum, so
    what one seat gains (a moon shot) the others lose, as in a match between the seats."""
    n = rewards.shape[1]
    return rewards - (rewards.sum(1, keepdim=True) - rewards) / (n - 1)


def prioritised(weights: np.ndarray, kinds: list[str], win_rate: dict[str, float], power: float) -> np.ndarray:
    """Prioritised fictitious self-play's draw: each kind's weight times (1 - its win rate)^power,
    renormalised; a kind the learner always beats keeps a floor of 5% of its weight."""
    losing = np.array([max(0.05, 1.0 - win_rate[k]) ** power for k in kinds])
    draw = weights * losing
    return draw / draw.sum() if draw.sum() > 0 else weights


def default_run_name(args: Args) -> str:
    rules = Path(args.rules).stem
    return f"{rules}-{args.network}-s{args.seed}-{time.strftime('%Y%m%d-%H%M%S')}"


def check_run_dir(run_dir: Path, resume: Path | None, overwrite: bool) -> None:
    """A fresh run never writes over another run: refuse a directory that holds one, naming the two ways out."""
    if resume is not None or overwrite:
        return
    found = [name for name in RUN_FILES if (run_dir / name).exists()]
    if found:
        raise ConfigError(
            f"{run_dir} holds a run already ({', '.join(found)}): continue it with --resume {run_dir}, "
            "or replace it with --overwrite (or choose another --run-name)"
        )


def prepare_run_dir(run_dir: Path, resume: Path | None, overwrite: bool, update: int) -> None:
    """Make the run directory ready to write: remove the stale temporary files of killed checkpoint
    writes; ``overwrite``: remove the old run's files; a resume at ``update``: drop the lines of
    ``metrics.jsonl`` after it (they are trained again)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in run_dir.glob(".checkpoint.pt.*.tmp"):
        stale.unlink()
    if overwrite and resume is None:
        for name in RUN_FILES:
            path = run_dir / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
    metrics = run_dir / "metrics.jsonl"
    if resume is not None and metrics.is_file():
        kept = []
        for line in metrics.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:  # a line torn by the kill
                continue
            if isinstance(record, dict) and record.get("update", 0) <= update:
                kept.append(line + "\n")
        tmp = metrics.with_name(".metrics.jsonl.tmp")
        tmp.write_text("".join(kept), encoding="utf-8")
        tmp.replace(metrics)


def _write_failed(err: OSError, what: Path, run_dir: Path) -> RunError:
    why = err.strerror or str(err)
    if err.errno == errno.ENOSPC:
        hint = f"free some space, then continue with hearts train --resume {run_dir}"
    elif err.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        hint = f"make {run_dir} writable, then continue with hearts train --resume {run_dir}"
    else:
        hint = f"then continue with hearts train --resume {run_dir}"
    return RunError(f"cannot write {what}: {why}; the last checkpoint written is kept: {hint}")


# ---------------------------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------------------------


def train(args: Args, resume: Path | None = None, overwrite: bool = False) -> dict[str, Any]:
    """Run PPO as configured; returns the final metrics (also written to the run directory). Settings
    that cannot start a run raise ``ConfigError`` (``check_args``) before anything is written; a write
    that fails on the way (a full disk) raises ``RunError``."""
    check_args(args, resume)
    ddp = setup_distributed(args.device)  # under torchrun: this rank's share of the tables, on its device
    problem = check_share(args.num_envs, ddp.world_size)
    if problem:
        ddp.close()
        raise ConfigError(f"--num-envs: {problem}")
    all_rules = [Rules.load(r) for r in [args.rules, *args.more_rules]]
    rules = all_rules[0]
    run_dir = resume if resume is not None else Path(args.runs_dir) / (args.run_name or default_run_name(args))
    check_run_dir(run_dir, resume, overwrite)
    if args.threads:
        torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = ddp.device
    n = rules.num_players
    B, T = ddp.share(args.num_envs), args.num_steps

    engine = make_engine(args.engine, all_rules, B, device, ddp.seed(args.seed))
    obs_dim = engine.observation_size
    if resume is not None:  # the checkpoint's own network (it may have come from --init-from)
        network = build_network(load_checkpoint(resume / "checkpoint.pt", restore_rng=False)["network"], n).to(device)
    elif args.init_from:
        start_from = load_policy(args.init_from, rules)  # refuses a model of other rules or encoding, with the reason
        network = build_network(start_from.config, n)
        network.load_state_dict({k: torch.tensor(v) for k, v in start_from.params.items()})
        network = network.to(device)
    else:
        network = build_network(network_config(args, obs_dim), n).to(device)
    # the oracle critic (training only: never exported) learns beside the network, in the same optimizer
    critic = OracleCritic(network.input_size, n, args.critic_hidden).to(device) if args.oracle_critic else None
    groups: list[dict[str, Any]] = [{"params": list(network.parameters()), "lr": args.learning_rate}]
    if critic is not None:  # a fresh critic beside a trained policy learns at a rate of its own
        groups.append({"params": list(critic.parameters()), "lr": args.critic_learning_rate or args.learning_rate})
    base_rates = [group["lr"] for group in groups]
    optimizer = torch.optim.Adam(groups, lr=args.learning_rate, eps=1e-5, foreach=True)
    sampler = torch.Generator(device=device).manual_seed(ddp.seed(args.seed) + 1)
    table_rng = np.random.default_rng(ddp.seed(args.seed) + 2)
    snapshots: list[dict[str, torch.Tensor]] = []
    update, decisions, learner_decisions, elapsed = 0, 0, 0, 0.0
    history: list[dict[str, Any]] = []
    generators = {**engine_generators(engine), "sampler": sampler, "tables": table_rng}
    ckpt_path = run_dir / "checkpoint.pt"
    if resume is not None:
        # the other ranks keep their own tables and random streams (the checkpoint holds rank 0's)
        streams = generators if ddp.is_main else {}
        data = load_checkpoint(ckpt_path, model=network, optimizer=optimizer, generators=streams)
        extra = data["extra"]
        update, decisions = data["update"], extra["decisions"]
        learner_decisions, elapsed = extra["learner_decisions"], extra["elapsed"]
        history = extra["history"]
        snapshots = [{k: torch.as_tensor(v) for k, v in snap.items()} for snap in extra["snapshots"]]
        if ddp.is_main:
            engine.load_state_dict(extra["engine_state"])
        else:  # fresh streams at each resume, so a resumed rank does not replay the tables of the run's start
            reseed(generators, ddp.seed(args.seed) + update)
        if critic is not None:
            critic.load_state_dict(extra["critic"])
        print(f"resumed {run_dir} at update {update} ({decisions:,} decisions)", file=sys.stderr)
    try:  # after the engine and network: a failed start leaves no run dir
        if ddp.is_main:
            prepare_run_dir(run_dir, resume, overwrite, update)
    except OSError as err:
        raise _write_failed(err, Path(err.filename or run_dir), run_dir) from None
    num_updates = max(1, math.ceil(args.total_decisions / (B * T * ddp.world_size)))

    def checkpoint() -> None:
        if not ddp.is_main:
            return
        extra = {
            "decisions": decisions,
            "learner_decisions": learner_decisions,
            "elapsed": elapsed,
            "history": history,
            "snapshots": snapshots,
            "engine_state": engine.state_dict(),
            **({"critic": critic.state_dict()} if critic is not None else {}),
        }
        try:
            save_checkpoint(
                ckpt_path,
                model=network,
                optimizer=optimizer,
                args=args,
                update=update,
                generators=generators,
                extra=extra,
            )
        except OSError as err:
            raise _write_failed(err, ckpt_path, run_dir) from None

    def log(metrics: dict[str, Any]) -> None:
        if not ddp.is_main:
            return
        try:
            with open(run_dir / "metrics.jsonl", "a", encoding="utf-8") as fh:
                fh.write(json.dumps(metrics) + "\n")
        except OSError as err:
            raise _write_failed(err, run_dir / "metrics.jsonl", run_dir) from None

    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tb")) if ddp.is_main else NullWriter()
    if update == 0:
        writer.add_text("args", json.dumps(dataclasses.asdict(args), indent=1))
    if resume is None and not args.init_from and args.imitation_samples > 0 and ddp.is_main:  # then broadcast
        started = time.perf_counter()
        settings = imitation.ImitationSettings(
            samples=args.imitation_samples,
            dagger=args.imitation_dagger,
            learning_rate=args.imitation_learning_rate,
            seed=args.seed + 3,
            teacher=args.imitation_teacher,
        )
        report = imitation.print_report if args.progress else None
        figures = imitation.imitate(network, all_rules, settings, device, report=report)
        figures["wall_s"] = time.perf_counter() - started  # kept out of ``elapsed``: decisions/s is PPO's own
        history.append({"update": 0, "decisions": 0, **{f"imitation/{k}": v for k, v in figures.items()}})
        log(history[-1])
        for key in ("accuracy", "policy_loss", "value_loss"):
            writer.add_scalar(f"imitation/{key}", figures[key], 0)
        checkpoint()  # a crash from here on resumes after the warm start
    ddp.broadcast([network, critic])  # every rank starts from rank 0's weights
    progress = Progress(num_updates, update, args.progress and ddp.is_main)

    full_obs = torch.zeros(B, obs_dim, device=device)
    obs_buf = torch.zeros(T, B, network.input_size, device=device)  # only the entries the network reads
    mask_buf = torch.zeros(T, B, 68, dtype=torch.bool, device=device)
    act_buf = torch.zeros(T, B, dtype=torch.int64, device=device)
    logp_buf = torch.zeros(T, B, device=device)
    val_buf = torch.zeros(T, B, device=device)
    rew_buf = torch.zeros(T, B, device=device)
    term_buf = torch.zeros(T, B, dtype=torch.bool, device=device)
    learn_buf = torch.zeros(T, B, dtype=torch.bool, device=device)
    teach_buf = torch.full((T, B), -1, dtype=torch.int64, device=device)  # the teacher's move, -1: none
    next_buf = torch.full((T, B), -1, dtype=torch.int64, device=device)
    # the hidden deal at each decision, as bit sets (what the oracle critic reads besides the observation)
    oracle_buf = torch.zeros(T, B, oracle_width(n) if critic is not None else 0, dtype=torch.int64, device=device)
    # every legal action's value on the open deal, at the decisions played out (open_deal_coef)
    open_on = args.open_deal_coef > 0
    value_buf = torch.zeros(T if open_on else 0, B, 68, device=device)
    valued_buf = torch.zeros(T if open_on else 0, B, dtype=torch.bool, device=device)
    per_alive = math.ceil(args.open_deal_states * (1 - args.open_deal_anywhere) / T)  # per rollout step
    per_any = math.ceil(args.open_deal_states * args.open_deal_anywhere / T)
    # the policy the magnet term pulls toward: the latest snapshot (the starting weights before the first)
    magnet = build_network(network.config, n).to(device) if args.magnet_coef > 0 else None
    if magnet is not None:
        magnet.load_state_dict(snapshots[-1] if snapshots else network.state_dict())
        magnet.eval()
    rows = torch.arange(B, device=device)
    reward_scale = reward_scales(engine)
    moon_values = torch.tensor(  # a deal score at least this (or at most minus it) is a moon shot
        [r.tables.moon_value if r.moon_enabled else 10**9 for r in engine.rules_list], device=device
    )[engine.rules_index]
    kinds = list(args.pool)
    alone_kind = torch.tensor([kind in args.alone_kinds for kind in kinds], device=device)
    weights = np.asarray(args.pool_weights, dtype=float)
    weights = weights / weights.sum()  # check_args: one weight >= 0 per kind, not all zero
    # frozen exported models (model:<path>) and scripted adversaries (moon, ...) are built once, fixed all run
    pool = OpponentPool(kinds, all_rules, device, n, args.bot_workers)
    parts = engine_parts(engine)  # the open-deal copies are made per rule set
    open_states: list[list[BatchState]] = [[] for _ in parts]  # the decisions given open-deal values
    open_at: list[list[Tensor]] = [[] for _ in parts]  # their (step, table) in the rollout

    def continuation(offset: int) -> Continuation:
        """The run's own play at the copies of a part's decisions (its rows start at table ``offset``):
        the learner seats sample the network, the others are played as their table's pool kind."""

        def play(copies: BatchedHearts, tables: Tensor) -> Tensor:
            tables = tables + offset
            full = copies.observe()
            inputs = network.select_inputs(full)
            mask = copies.legal_mask()
            mine = learner[tables, copies.current_player]
            actions = torch.zeros(copies.batch_size, dtype=torch.int64, device=device)
            if bool(mine.any()):
                logits, _ = network(inputs[mine])
                actions[mine] = sample_actions(logits, mask[mine], sampler)
            pool.act(copies, ~mine, kind_of_table[tables], snap_of_table[tables], inputs, full, mask, sampler, actions)
            return actions

        return play

    def score(offset: int) -> Score:
        """The rewards the learner trains on, from the final rewards of copies of a part's tables."""

        def rewards(final: Tensor, tables: Tensor) -> Tensor:
            final = relative_rewards(final) if args.relative_reward else final
            return final * reward_scale[tables + offset].unsqueeze(1)

        return rewards

    # PFSP: the learner's recent win rate per kind (kept in the metrics history, so a resumed run continues it)
    win_rate = {kind: float(history[-1].get(f"pool/win/{kind}", 0.5)) if history else 0.5 for kind in kinds}

    try:
        while update < num_updates:
            start = time.perf_counter()
            if args.anneal_lr:
                for group, rate in zip(optimizer.param_groups, base_rates, strict=True):
                    group["lr"] = rate * (1.0 - update / num_updates)
            # ---- seat roles for this rollout: which seats learn, and who plays the others
            learner = torch.zeros(B, n, dtype=torch.bool, device=device)
            selfplay = torch.as_tensor(table_rng.random(B) < args.selfplay_fraction, device=device)
            learner[selfplay] = True
            solo_seat = torch.as_tensor(table_rng.integers(0, n, B), device=device)
            learner[rows, solo_seat] = True
            draw = weights if args.pool_priority == 0 else prioritised(weights, kinds, win_rate, args.pool_priority)
            kind_of_table = torch.as_tensor(table_rng.choice(len(kinds), size=B, p=draw), device=device)
            snap_of_table = torch.as_tensor(table_rng.integers(0, max(1, len(snapshots)), B), device=device)
            if args.exploiter_fraction > 0 or args.alone_kinds:  # turned around: the opponent alone among learners
                lone = ~selfplay & torch.as_tensor(table_rng.random(B) < args.exploiter_fraction, device=device)
                lone |= ~selfplay & alone_kind[kind_of_table]
                learner[lone] = True
                learner[rows[lone], torch.as_tensor(table_rng.integers(0, n, B), device=device)[lone]] = False
            wins = torch.zeros(len(kinds), device=device)  # learner results per pool kind in this rollout
            games = torch.zeros(len(kinds), device=device)
            pool.refresh(network.config, snapshots)

            last_step = torch.full((B, n), -1, dtype=torch.int64, device=device)
            deal_start = torch.zeros(B, dtype=torch.int64, device=device)  # the first step of each row's deal here
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
                    if critic is not None:
                        oracle_buf[t] = oracle_state(engine, current)
                    if bool(is_learner.any()):  # the network runs on the learner rows only
                        logits, value = network(obs[is_learner])
                        lmask = mask[is_learner]
                        chosen = sample_actions(logits, lmask, sampler)
                        logp = masked_log_probs(logits, lmask)
                        sampled[is_learner] = chosen
                        logp_buf[t, is_learner] = logp.gather(1, chosen.unsqueeze(1)).squeeze(1)
                        if critic is not None:
                            value = critic(obs[is_learner], oracle_buf[t, is_learner])
                        val_buf[t, is_learner] = value
                    if args.moon_teacher > 0:  # the heuristic bot's move where it sees a moon attempt
                        taught = is_learner & moon_threat(full_obs)
                        teach_buf[t] = -1
                        if bool(taught.any()):
                            teach_buf[t, taught] = engine.heuristic_actions(rows[taught])
                    if args.open_deal_coef > 0:  # keep a few decisions (moon-alive ones first) to play out later
                        take = pick_decisions(is_learner, moon_alive(full_obs), per_alive, per_any, sampler)
                        for i, (part, a, b) in enumerate(parts):
                            mine = take[(take >= a) & (take < b)]
                            if mine.numel():
                                open_states[i].append(part.state.rows(mine - a))
                                open_at[i].append(torch.stack([torch.full_like(mine, t), mine]))
                    pool.act(
                        engine, ~is_learner, kind_of_table, snap_of_table, obs, full_obs, mask, sampler, out=actions
                    )
                    act_buf[t] = torch.where(is_learner, sampled, actions)
                    # link this decision to the same seat's previous one at this table
                    prev = last_step[rows, current]
                    link = is_learner & (prev >= 0)
                    next_buf[prev[link], rows[link]] = t
                    last_step[rows[is_learner], current[is_learner]] = t
                    result = engine.step(act_buf[t])
                    decisions += B * ddp.world_size
                    learner_decisions += int(is_learner.sum())
                    if bool(result.done.any()):
                        done_rows = rows[result.done]
                        final = relative_rewards(result.rewards) if args.relative_reward else result.rewards
                        for seat in range(n):
                            step_of = last_step[done_rows, seat]
                            has = step_of >= 0
                            r, s = done_rows[has], step_of[has]
                            term_buf[s, r] = True
                            rew_buf[s, r] = final[r, seat] * reward_scale[r]
                        last_step[done_rows] = -1
                        if args.moon_teacher > 0 and args.moon_teacher_hindsight:  # labels stand in moon deals only
                            moon = moon_shot(result.scores[done_rows], moon_values[done_rows])
                            drop_calm_labels(teach_buf, deal_start, t, done_rows, moon)
                        # a win: the learner seats' mean reward above the other seats' (ties count half)
                        mixed = done_rows[~selfplay[done_rows]]
                        if args.pool_priority > 0 and mixed.numel():
                            seats = learner[mixed].float()
                            rewards = result.rewards[mixed]
                            mine = (rewards * seats).sum(1) / seats.sum(1)
                            theirs = (rewards * (1 - seats)).sum(1) / (1 - seats).sum(1).clamp(min=1)
                            outcome = (mine > theirs).float() + 0.5 * (mine == theirs).float()
                            wins.index_add_(0, kind_of_table[mixed], outcome)
                            games.index_add_(0, kind_of_table[mixed], torch.ones_like(outcome))

            open_s = time.perf_counter()
            if open_on:  # play every legal action of the kept decisions out on its deal
                valued_buf.zero_()
                network.eval()
                for i, (part, a, _) in enumerate(parts):
                    if open_at[i]:
                        at = torch.cat(open_at[i], dim=1)
                        values, _ = open_deal_values(
                            part, BatchState.concat(open_states[i]), at[1] - a, continuation(a), score(a), sampler
                        )
                        value_buf[at[0], at[1]] = values
                        valued_buf[at[0], at[1]] = True
                    open_states[i].clear()
                    open_at[i].clear()
            open_s = time.perf_counter() - open_s
            if args.moon_teacher > 0 and args.moon_teacher_hindsight:  # deals still in play: no outcome, no label
                teach_buf.masked_fill_(torch.arange(T, device=device).unsqueeze(1) >= deal_start.unsqueeze(0), -1)
            learner_decisions += ddp.others(int(learn_buf.sum()))
            rollout_s = time.perf_counter() - start
            advantages, valid = compute_advantages(val_buf, rew_buf, term_buf, next_buf, args.gamma, args.gae_lambda)
            sample = learn_buf & valid
            returns = advantages + val_buf
            b_obs, b_mask, b_act = obs_buf[sample], mask_buf[sample], act_buf[sample]
            b_teach = teach_buf[sample] if args.moon_teacher > 0 else teach_buf[:0, 0]  # teacher labels
            b_logp, b_adv, b_ret, b_val = logp_buf[sample], advantages[sample], returns[sample], val_buf[sample]
            b_oracle = oracle_buf[sample]
            b_values, b_valued = (value_buf[sample], valued_buf[sample]) if open_on else (None, None)
            # ---- PPO epochs (in a critic warm-up the oracle critic learns alone: the network's gradients are dropped)
            warming_up = update < args.critic_warmup
            network.train()
            count = ddp.minimum(b_obs.shape[0])  # every rank takes the same number of gradient steps
            stats: dict[str, list[float]] = {
                k: [] for k in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac")
            }
            if critic is not None:
                stats["observation_value_loss"] = []
            if magnet is not None:
                stats["magnet_kl"] = []
            if args.moon_teacher > 0:
                stats.update(teacher_loss=[], teacher_agreement=[], teacher_share=[])
            if open_on:
                stats.update(open_deal_loss=[], open_deal_agreement=[], open_deal_share=[])
            stop = False
            for _ in range(args.update_epochs):
                order = torch.randperm(b_obs.shape[0], device=device, generator=sampler)[:count]
                for begin in range(0, count, args.minibatch_size):
                    idx = order[begin : begin + args.minibatch_size]
                    new_logp, entropy, value, logp_all = policy_terms(network, b_obs[idx], b_mask[idx], b_act[idx])
                    log_ratio = new_logp - b_logp[idx]
                    ratio = log_ratio.exp()
                    adv = b_adv[idx]
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                    pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                    v_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                    loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                    if critic is not None:  # the targets come from the oracle critic; the network's own value
                        # head still learns them (an observation-only estimate, as search priors read it)
                        stats["observation_value_loss"].append(float(v_loss.detach()))
                        v_loss = 0.5 * ((critic(b_obs[idx], b_oracle[idx]) - b_ret[idx]) ** 2).mean()
                        loss = loss + args.vf_coef * v_loss
                    if magnet is not None:
                        with torch.no_grad():
                            magnet_logits, _ = magnet(b_obs[idx])
                        pull = magnet_kl(logp_all, masked_log_probs(magnet_logits, b_mask[idx]), b_mask[idx]).mean()
                        loss = loss + args.magnet_coef * pull
                        stats["magnet_kl"].append(float(pull.detach()))
                    if args.moon_teacher > 0:  # kickstarting on the moon-threat states only
                        teach = b_teach[idx]
                        taught = teach >= 0
                        stats["teacher_share"].append(float(taught.float().mean()))
                        if bool(taught.any()):
                            logits, _ = network(b_obs[idx][taught])
                            t_logp = masked_log_probs(logits, b_mask[idx][taught]).gather(1, teach[taught].unsqueeze(1))
                            teacher_loss = -t_logp.mean()  # per taught decision, as logged
                            # weighed per decision of the minibatch, as the PPO terms are: a mean over the few
                            # taught decisions alone would weigh each of them ~50 times a PPO sample
                            loss = loss + args.moon_teacher * teacher_loss * (t_logp.numel() / idx.numel())
                            stats["teacher_loss"].append(float(teacher_loss.detach()))
                            agreement = greedy_actions(logits.detach(), b_mask[idx][taught]) == teach[taught]
                            stats["teacher_agreement"].append(float(agreement.float().mean()))
                    if b_values is not None and b_valued is not None:  # all actions, valued on the open deal
                        valued = b_valued[idx]
                        stats["open_deal_share"].append(float(valued.float().mean()))
                        if int(valued.sum()) > 1:
                            open_loss, agreement = all_actions_loss(
                                logp_all[valued], b_values[idx[valued]], b_mask[idx[valued]]
                            )
                            # weighed per decision of the minibatch, as the PPO terms are
                            loss = loss + args.open_deal_coef * open_loss.sum() / idx.numel()
                            stats["open_deal_loss"].append(float(open_loss.mean().detach()))
                            stats["open_deal_agreement"].append(float(agreement.mean()))
                    optimizer.zero_grad(set_to_none=True)
                    loss.backward()
                    if warming_up:  # Adam neither moves nor counts the network's steps: the policy stays put
                        for p in network.parameters():
                            p.grad = None
                    ddp.average_gradients(p for group in optimizer.param_groups for p in group["params"])
                    torch.nn.utils.clip_grad_norm_(network.parameters(), args.max_grad_norm)
                    if critic is not None:
                        torch.nn.utils.clip_grad_norm_(critic.parameters(), args.max_grad_norm)
                    optimizer.step()
                    with torch.no_grad():
                        kl = ((ratio - 1) - log_ratio).mean()
                        stats["policy_loss"].append(float(pg_loss))
                        stats["value_loss"].append(float(v_loss))
                        stats["entropy"].append(float(entropy.mean()))
                        stats["approx_kl"].append(float(kl))
                        stats["clipfrac"].append(float(((ratio - 1).abs() > args.clip_coef).float().mean()))
                    if args.target_kl and ddp.mean(float(kl)) > args.target_kl:
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
                **({"open_deal_s": open_s, "open_deal_states": int(valued_buf.sum())} if open_on else {}),
                update_s=time.perf_counter() - start - rollout_s,
                explained_variance=explained,
                learning_rate=optimizer.param_groups[0]["lr"],
            )
            if args.pool_priority > 0:
                for k, kind in enumerate(kinds):
                    if float(games[k]) > 0:  # a running mean over recent rollouts
                        win_rate[kind] += 0.2 * (float(wins[k] / games[k]) - win_rate[kind])
                    metrics[f"pool/win/{kind}"] = win_rate[kind]
                    metrics[f"pool/weight/{kind}"] = float(draw[k])
            if update % args.snapshot_every == 0:
                snapshots.append({k: v.detach().clone() for k, v in network.state_dict().items()})
                snapshots = snapshots[-args.max_snapshots :]
                if magnet is not None:
                    magnet.load_state_dict(snapshots[-1])
            if ddp.is_main and ((args.eval_every and update % args.eval_every == 0) or update == num_updates):
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
                for adversary in args.eval_adversaries:  # moon defence: the adversary alone among learners
                    found = [
                        evaluate_exploitation(
                            network, r, adversary, args.eval_deals, args.device, 20_000 + update, args.engine
                        )
                        for r in all_rules
                    ]
                    for key in ("gain", "points", "learner_points", "moons"):
                        metrics[f"eval/{adversary}/{key}"] = float(np.mean([f[key] for f in found]))
                    metrics[f"eval/{adversary}/gain_se"] = math.sqrt(sum(f["gain_se"] ** 2 for f in found)) / len(found)
            for key, value in metrics.items():
                if isinstance(value, float | int) and key != "update":
                    writer.add_scalar(key if "/" in key else f"train/{key}", value, decisions)
            history.append(metrics)
            log(metrics)
            progress.update(metrics)
            if update % args.checkpoint_every == 0 or update == num_updates:
                checkpoint()
    finally:  # a bot opponent's worker processes stop with the run, however it ends
        pool.close()
        ddp.close()
    progress.close()
    writer.close()
    final = history[-1] if history else {}
    if not ddp.is_main:
        return {"run_dir": str(run_dir), **final}
    plot_learning_curve(history, run_dir / "learning_curve.png", title=run_dir.name)
    exported = None
    if args.export_name:
        exported = export_model(
            network.cpu(),
            user_models_dir() / args.export_name,
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
    return {"run_dir": str(run_dir), **({"model_dir": str(exported)} if exported else {}), **final}


# ---------------------------------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------------------------------


def summary(final: dict[str, Any], args: Args) -> str:
    """What a finished run did and where it is, for a person: updates, decisions, speed, the final
    evaluation (with 95% intervals), the files, and the next command."""
    run_dir = Path(final["run_dir"])
    lines = [
        f"trained {final.get('update', 0)} updates, {final.get('decisions', 0):,} decisions "
        f"({final.get('decisions_per_s', 0.0):,.0f} decisions/s)"
    ]
    names = [Path(r).stem for r in [args.rules, *args.more_rules]]
    if "eval/random/points" in final or "eval/heuristic/points" in final:
        lines.append(f"final evaluation, the policy's points per deal (lower is better; {args.eval_deals} deals each):")
        for opponent in ("random", "heuristic"):
            if f"eval/{opponent}/points" not in final:
                continue
            half = 1.96 * final[f"eval/{opponent}/points_se"]
            lines.append(
                f"  vs 3 {opponent + ':':<11}{final[f'eval/{opponent}/points']:6.2f} ± {half:.2f}"
                f" (the {opponent} seats {final[f'eval/{opponent}/opponent_points']:.2f})"
            )
            if len(names) > 1:
                for name in names:
                    key = f"eval/{name}/{opponent}"
                    lines.append(
                        f"    {name + ':':<14}{final[key + '/points']:6.2f} ± {1.96 * final[key + '/points_se']:.2f}"
                    )
    for adversary in args.eval_adversaries:
        if f"eval/{adversary}/gain" in final:
            lines.append(
                f"  {adversary} alone among 3 learners: gain {final[f'eval/{adversary}/gain']:+.2f}"
                f" ± {1.96 * final[f'eval/{adversary}/gain_se']:.2f},"
                f" moons {100 * final[f'eval/{adversary}/moons']:.1f}%"
            )
    lines += [
        f"checkpoint:  {run_dir / 'checkpoint.pt'}",
        f"metrics:     {run_dir / 'metrics.jsonl'}  (tensorboard --logdir {run_dir / 'tb'})",
        f"curve:       {run_dir / 'learning_curve.png'}",
    ]
    if "model_dir" in final:
        lines.append(f"model:       {final['model_dir']}")
        lines.append(f"next: hearts tournament {final['model_dir']} heuristic --deals 20000")
    else:
        lines.append(f"next: hearts export {run_dir} --name {run_dir.name}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``hearts train``: a bad setting is one line on stderr and exit status 2, with nothing written; a
    write that fails during the run (a full disk) is one line and exit status 1. Ends with a summary
    (``--json``: the final metrics as JSON)."""
    try:
        launch: Launch = parse_args(argv)
        final = train(launch.args, launch.resume, launch.overwrite)  # checks the settings first (check_args)
    except ConfigError as err:
        print(f"hearts train: {err}", file=sys.stderr)
        return 2
    except RunError as err:
        print(f"hearts train: {err}", file=sys.stderr)
        return 1
    if launch.json:
        print(json.dumps({k: v for k, v in final.items() if not isinstance(v, list)}, indent=1))
    else:
        print(summary(final, launch.args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
