"""Search-guided targets: distil a search bot's judgement into a model.

The search bot (``pimc``) beats the heuristic bot by about 1.6 points per deal, and the models by
about 1; it costs about 50 ms a decision, the model 0.1 ms. Distillation carries the first into the
second, in two steps:

1. ``collect``: tables play on the reference engine with the *student* (a model) in some seats and
   a lineup of opponents in the others (``tables``, below). At every decision of a student seat
   with two or more legal actions outside the pass, the teacher (``PIMCBot.evaluate``) scores every
   legal action by its mean deal points over sampled worlds. The student's own greedy move is
   played, except with probability ``teacher_play`` the teacher's best (DAgger: the labels cover
   the states the student's own mistakes lead to, and some of the teacher's path). Labels are the
   teacher's *values*, not only its choice: ``q`` holds every legal action's mean points.
   The teacher reads only the seat's observation, as it does when it plays. A ``guard:...`` teacher
   (``hearts_env.bots.guard``) labels only the decisions where its moon guard fires, with the guard's
   search (the seat's relative result, the holder of every point played out as a moon seeker): a
   narrow, consistent skill the student lacks, where a general teacher's labels are noisy.
2. ``train``: the student's network, fine-tuned on the labels with the cross-entropy toward
   ``softmax(-(q - min q) / temperature)`` (the teacher's preference, soft where its values are
   close, which the noise of 48 worlds makes them often), plus a KL term that keeps the policy
   near the student's own where the labels say little (``kl_coef``), plus the value head's squared
   error against the deal's outcome as played (the PPO reward). Then ``export``.

``tables``: a bot spec per table kind, drawn in turn. ``self`` seats the student everywhere; a
scripted adversary (``moon:giveup=never``, ``duck``, ...) sits alone among three students, as in the
robustness suite; any other bot (``heuristic``, ``pimc``, a model) fills three seats around one
student. Only student seats are labelled.

Label files are numpy ``.npz`` archives, read with ``allow_pickle=False`` and checked (shapes,
dtypes, the encoding) before use: a file from elsewhere is refused with the reason.

    python -m hearts_env.training.distill collect --student ppo-robust --deals 400 --out labels/a.npz
    python -m hearts_env.training.distill train --student ppo-robust --labels labels/a.npz --export-name ppo-distill
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import random
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import torch
import tyro
from tqdm import tqdm

from hearts_env.bots import make_bot
from hearts_env.bots.guard import GuardedBot
from hearts_env.bots.scripted import SCRIPTED_SPECS
from hearts_env.bots.search import PIMCBot
from hearts_env.core.actions import NUM_ACTIONS
from hearts_env.core.cards import NUM_CARDS
from hearts_env.core.deal import DONE, PASSING
from hearts_env.core.rules import Rules
from hearts_env.nets.store import current_encoding, load_policy, user_models_dir
from hearts_env.obs import decode_observation
from hearts_env.obs.table import SeatedTable
from hearts_env.tournament.seeding import deal_for_seed, deal_seeds, game_seed

from .export import export_model
from .network import build_network, greedy_actions, masked_log_probs

LABEL_FORMAT = "hearts_env.distill-labels/1"
DEFAULT_TABLES = (
    "heuristic",
    "heuristic",
    "self",
    "heuristic",
    "moon:giveup=never",
    "heuristic",
    "heuristic",
    "moon:giveup=late",
)


# ---------------------------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------------------------


class LabelError(ValueError):
    """A label file that cannot be used, with the reason."""


@dataclass(frozen=True)
class LabelSet:
    """Teacher-labelled decisions of student seats (see the module docstring)."""

    obs: np.ndarray  # (N, obs_dim) float32: the seat's observation
    mask: np.ndarray  # (N, NUM_ACTIONS) bool: its legal actions
    q: np.ndarray  # (N, NUM_ACTIONS) float32: the teacher's mean deal points per legal action, NaN elsewhere
    played: np.ndarray  # (N,) int16: the action played there
    points: np.ndarray  # (N,) float32: the seat's points in the deal as played
    penalty_total: np.ndarray  # (N,) float32: the deal's penalty total (the PPO reward's scale)
    table: np.ndarray  # (N,) int16: index into ``tables``
    tables: tuple[str, ...]
    meta: dict[str, Any] = field(default_factory=dict)  # teacher, student, rules, encoding, seed, figures

    def __len__(self) -> int:
        return int(self.obs.shape[0])

    def save(self, path: str | Path) -> Path:
        """Write an ``.npz`` archive (through a temporary file: a crash leaves no half file)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        header = {"format": LABEL_FORMAT, "tables": list(self.tables), **self.meta}
        with open(tmp, "wb") as f:
            np.savez_compressed(
                f,
                obs=self.obs,
                mask=self.mask,
                q=self.q,
                played=self.played,
                points=self.points,
                penalty_total=self.penalty_total,
                table=self.table,
                header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
            )
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: str | Path) -> LabelSet:
        """Read and check a label file; ``LabelError`` names what is wrong with it."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as err:
            raise LabelError(f"{path}: not a label file ({err})") from err
        missing = {"obs", "mask", "q", "played", "points", "penalty_total", "table", "header"} - arrays.keys()
        if missing:
            raise LabelError(f"{path}: not a label file (missing {', '.join(sorted(missing))})")
        try:
            header = json.loads(arrays.pop("header").tobytes().decode())
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise LabelError(f"{path}: unreadable header ({err})") from err
        if not isinstance(header, dict) or header.get("format") != LABEL_FORMAT:
            found = header.get("format") if isinstance(header, dict) else header
            raise LabelError(f"{path}: format is {found!r}, not {LABEL_FORMAT}")
        tables = tuple(str(t) for t in header.pop("tables", []))
        header.pop("format")
        n = arrays["obs"].shape[0] if arrays["obs"].ndim == 2 else -1
        expected = {
            "obs": (np.float32, (n, header.get("obs_dim", -1))),
            "mask": (np.bool_, (n, NUM_ACTIONS)),
            "q": (np.float32, (n, NUM_ACTIONS)),
            "played": (np.int16, (n,)),
            "points": (np.float32, (n,)),
            "penalty_total": (np.float32, (n,)),
            "table": (np.int16, (n,)),
        }
        for key, (dtype, shape) in expected.items():
            a = arrays[key]
            if a.dtype != dtype or a.shape != shape:
                raise LabelError(f"{path}: {key} is {a.dtype}{list(a.shape)}, expected {np.dtype(dtype)}{list(shape)}")
        version, size = current_encoding()
        if header.get("encoding_version") != version or header.get("obs_dim") != size:
            raise LabelError(
                f"{path}: labelled with encoding {header.get('encoding_version')} ({header.get('obs_dim')} values); "
                f"this version reads encoding {version} ({size} values)"
            )
        mask, q = arrays["mask"], arrays["q"]
        if n and not (mask.sum(axis=1) >= 2).all():
            raise LabelError(f"{path}: a decision with fewer than two legal actions")
        if not np.array_equal(np.isfinite(q), mask):
            raise LabelError(f"{path}: q is not finite exactly on the legal actions")
        if n and not mask[np.arange(n), arrays["played"].astype(np.int64)].all():
            raise LabelError(f"{path}: a played action that was not legal")
        if n and (arrays["table"].min() < 0 or arrays["table"].max() >= len(tables)):
            raise LabelError(f"{path}: a table index outside its {len(tables)} tables")
        return cls(**arrays, tables=tables, meta=header)

    @classmethod
    def concatenate(cls, sets: Sequence[LabelSet]) -> LabelSet:
        """One set from several (tables merged by name)."""
        if not sets:
            raise LabelError("no label sets given")
        tables: list[str] = []
        for s in sets:
            tables.extend(t for t in s.tables if t not in tables)
        remap = [np.array([tables.index(t) for t in s.tables], dtype=np.int16) for s in sets]
        cat = {
            k: np.concatenate([getattr(s, k) for s in sets])
            for k in ("obs", "mask", "q", "played", "points", "penalty_total")
        }
        table = np.concatenate([r[s.table] if len(s) else s.table for r, s in zip(remap, sets, strict=True)])
        meta = dict(sets[0].meta)
        meta["sources"] = [s.meta for s in sets]
        return cls(**cat, table=table.astype(np.int16), tables=tuple(tables), meta=meta)


# ---------------------------------------------------------------------------------------------
# Collection
# ---------------------------------------------------------------------------------------------


def table_lineup(spec: str, student: Any, make: Callable[[str], Any], num_players: int) -> tuple[list[Any], list[bool]]:
    """The seats of one table kind (student first) and which of them are the student."""
    if spec == "self":
        return [student] * num_players, [True] * num_players
    if spec.partition(":")[0] in SCRIPTED_SPECS:  # an adversary alone among students, as in the suite
        return [make(spec)] + [student] * (num_players - 1), [False] + [True] * (num_players - 1)
    others = [make(spec) for _ in range(num_players - 1)]
    return [student, *others], [True] + [False] * (num_players - 1)


@dataclass
class _Collected:
    obs: list[np.ndarray] = field(default_factory=list)
    mask: list[np.ndarray] = field(default_factory=list)
    q: list[np.ndarray] = field(default_factory=list)
    played: list[int] = field(default_factory=list)
    seat: list[int] = field(default_factory=list)
    table: list[int] = field(default_factory=list)
    points: list[float] = field(default_factory=list)
    penalty_total: list[float] = field(default_factory=list)
    agree: int = 0
    decisions: int = 0


def _collect_deal(
    c: _Collected,
    rules: Rules,
    table_index: int,
    seats: list[Any],
    labelled: list[bool],
    teacher: PIMCBot | GuardedBot,
    set_seed: int,
    rng: random.Random,
    teacher_play: float,
) -> None:
    n = rules.num_players
    rotation = rng.randrange(n)
    seat_bots = [seats[(s - rotation) % n] for s in range(n)]
    seat_labelled = [labelled[(s - rotation) % n] for s in range(n)]
    for j, bot in enumerate(seats):
        reset = getattr(bot, "reset", None)
        if reset is not None:
            reset(game_seed(set_seed, rotation, j))
    teacher.reset(game_seed(set_seed, rotation, n))
    table = SeatedTable(rules)
    deal = deal_for_seed(rules, set_seed)
    table.start(deal)
    start = len(c.obs)
    while deal.phase != DONE:
        seat = deal.current_player
        observation = table.observation(seat)
        action = int(seat_bots[seat].act(observation))
        mask = observation["action_mask"].astype(bool)
        if seat_labelled[seat] and mask.sum() >= 2 and not (deal.phase == PASSING and action < NUM_CARDS):
            legal = [int(a) for a in np.flatnonzero(mask)]
            view = decode_observation(observation["observation"], rules)
            if isinstance(teacher, GuardedBot):
                found = teacher.search_values(view, legal)
            else:
                found = teacher.evaluate(view, legal)
            if found is None:  # the guard labels only where it fires
                table.apply(action)
                continue
            means = found
            q = np.full(NUM_ACTIONS, np.nan, dtype=np.float32)
            for a, v in means.items():
                q[a] = v
            best = min(legal, key=lambda a: (means[a], a))
            c.agree += int(means[action] <= means[best] + 1e-9)  # an equivalent card counts as the best
            c.decisions += 1
            if teacher_play > 0 and rng.random() < teacher_play:
                action = best
            c.obs.append(observation["observation"].astype(np.float32))
            c.mask.append(mask)
            c.q.append(q)
            c.played.append(action)
            c.seat.append(seat)
            c.table.append(table_index)
        table.apply(action)
    result = deal.result
    assert result is not None
    for i in range(start, len(c.obs)):
        c.points.append(float(result.scores[c.seat[i]]))
        c.penalty_total.append(float(rules.tables.penalty_total))


def _collect_chunk(
    job: tuple[str, str, dict[str, Any], tuple[str, ...], list[tuple[int, int]], float, int],
) -> _Collected:
    student_spec, teacher_spec, rules_data, tables, items, teacher_play, seed = job
    rules = Rules.from_dict(rules_data)
    student = make_bot(student_spec, rules, seed)
    teacher = make_bot(teacher_spec, rules, seed)
    if not isinstance(teacher, PIMCBot | GuardedBot):
        raise ValueError(
            f"the teacher is a pimc or guard spec (a search that scores every action), got {teacher_spec!r}"
        )
    lineups = [table_lineup(t, student, lambda s: make_bot(s, rules, seed), rules.num_players) for t in tables]
    c = _Collected()
    for index, set_seed in items:
        t = index % len(tables)
        seats, labelled = lineups[t]
        _collect_deal(c, rules, t, seats, labelled, teacher, set_seed, random.Random(set_seed), teacher_play)
    return c


def collect(
    student: str,
    rules: Rules,
    *,
    teacher: str = "pimc",
    tables: Sequence[str] = DEFAULT_TABLES,
    deals: int = 100,
    seed: int = 0,
    teacher_play: float = 0.25,
    workers: int = 1,
    progress: bool = True,
) -> LabelSet:
    """Label ``deals`` deals (see the module docstring); ``workers`` processes share them."""
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    if not tables:
        raise ValueError("tables must name at least one table kind")
    if not 0.0 <= teacher_play <= 1.0:
        raise ValueError(f"teacher_play is a probability, got {teacher_play}")
    make_bot(student, rules)  # refuse a bad student or teacher before any worker starts
    if not isinstance(make_bot(teacher, rules), PIMCBot | GuardedBot):
        raise ValueError(f"the teacher is a pimc or guard spec (a search scoring every action), got {teacher!r}")
    items = list(enumerate(deal_seeds(seed, deals)))
    size = max(1, min(8, math.ceil(deals / max(1, workers) / 4)))
    jobs = [
        (student, teacher, rules.to_dict(), tuple(tables), items[i : i + size], teacher_play, seed)
        for i in range(0, deals, size)
    ]
    started = time.perf_counter()
    parts: list[_Collected] = []
    bar = tqdm(total=deals, unit="deal", disable=not progress, file=sys.stderr, desc="labelling")
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            for part in pool.imap(_collect_chunk, jobs):
                parts.append(part)
                bar.update(len(jobs[len(parts) - 1][4]))
    else:
        for job in jobs:
            parts.append(_collect_chunk(job))
            bar.update(len(job[4]))
    bar.close()
    version, size_obs = current_encoding()
    n = sum(len(p.obs) for p in parts)
    decisions = sum(p.decisions for p in parts)

    def stack(key: str, dtype: Any, width: int | None = None) -> np.ndarray:
        rows = [x for p in parts for x in getattr(p, key)]
        if not rows:
            return np.zeros((0, width) if width else (0,), dtype=dtype)
        return np.asarray(np.stack(rows) if width else np.array(rows), dtype=dtype)

    meta = {
        "teacher": teacher,
        "student": str(student),
        "rules": rules.to_dict(),
        "encoding_version": version,
        "obs_dim": size_obs,
        "deals": deals,
        "seed": seed,
        "teacher_play": teacher_play,
        "agreement": round(sum(p.agree for p in parts) / max(1, decisions), 4),
        "wall_time_s": round(time.perf_counter() - started, 1),
    }
    labels = LabelSet(
        obs=stack("obs", np.float32, size_obs),
        mask=stack("mask", np.bool_, NUM_ACTIONS),
        q=stack("q", np.float32, NUM_ACTIONS),
        played=stack("played", np.int16),
        points=stack("points", np.float32),
        penalty_total=stack("penalty_total", np.float32),
        table=stack("table", np.int16),
        tables=tuple(tables),
        meta=meta,
    )
    assert len(labels) == n
    return labels


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DistillSettings:
    """How ``distil`` fine-tunes the student on labels."""

    epochs: int = 4
    minibatch_size: int = 512
    learning_rate: float = 1e-4
    temperature: float = 0.5  # points: the teacher's target is softmax(-(q - min q) / temperature)
    kl_coef: float = 0.5  # weight of KL(student before || after) on the labelled states
    min_gap: float = 0.0  # points: where the student's own choice is within this of the teacher's best, its target
    # is its own policy (a search's values carry noise: 48 worlds put about a point on each mean)
    floor: float = 0.0  # the prior search's filter (pimc:prior=<student>): the target ranks only the moves the
    # student gives at least this probability, and its favourite
    confident: float = 1.0  # ... and where the student puts at least this on one move, the target is its own policy
    vf_coef: float = 0.5
    holdout: float = 0.1  # share of the labels kept out of training, for the figures
    seed: int = 0


def soft_targets(q: torch.Tensor, mask: torch.Tensor, temperature: float) -> torch.Tensor:
    """``softmax(-(q - min q) / temperature)`` over the legal actions (zero elsewhere)."""
    filled = torch.where(mask, q, torch.full_like(q, float("inf")))
    best = filled.min(dim=1, keepdim=True).values
    logits = torch.where(mask, -(filled - best) / max(temperature, 1e-6), torch.full_like(q, -1e9))
    return torch.softmax(logits, dim=1)


def prior_search_targets(
    logits: torch.Tensor, logp: torch.Tensor, q: torch.Tensor, mask: torch.Tensor, settings: DistillSettings
) -> tuple[torch.Tensor, torch.Tensor]:
    """The targets of the search with the student as its prior (``PIMCBot`` with ``prior=``): where the
    student is ``confident`` its own policy; elsewhere the teacher's soft preference among the moves the
    student gives at least ``floor``, and its favourite. The prior rules out the moves that the teacher's
    noise would now and then prefer. Returns the targets and where the search would search."""
    probs = logp.exp() * mask
    favourite = greedy_actions(logits, mask)
    candidates = mask & (probs >= settings.floor)
    candidates[torch.arange(len(favourite)), favourite] = True
    searched = (probs.max(dim=1).values < settings.confident) & (candidates.sum(dim=1) > 1)
    ranked = soft_targets(q, candidates, settings.temperature)
    return torch.where(searched.unsqueeze(1), ranked, probs), searched


def regret(choice: torch.Tensor, q: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The teacher's points lost by ``choice`` against its best action, per decision."""
    filled = torch.where(mask, q, torch.full_like(q, float("inf")))
    return filled.gather(1, choice.unsqueeze(1)).squeeze(1) - filled.min(dim=1).values


def distil(
    network: torch.nn.Module,
    labels: LabelSet,
    settings: DistillSettings,
    report: Callable[[dict[str, float]], None] | None = None,
) -> dict[str, float]:
    """Fine-tune ``network`` in place on ``labels``; returns the held-out figures before and after:
    ``agreement`` (the greedy choice is one of the teacher's best: equivalent cards tie) and ``regret``
    (the teacher's points per decision lost by the greedy choice)."""
    generator = torch.Generator().manual_seed(settings.seed)
    n = len(labels)
    if n < 2:
        raise LabelError(f"{n} labelled decisions: too few to train on")
    order = torch.randperm(n, generator=generator)
    held = max(1, int(n * settings.holdout)) if settings.holdout > 0 else 0
    test_idx, train_idx = order[:held], order[held:]
    obs = network.select_inputs(torch.from_numpy(labels.obs))  # type: ignore[operator]
    mask = torch.from_numpy(labels.mask)
    q = torch.from_numpy(np.nan_to_num(labels.q, nan=0.0))
    value_target = torch.from_numpy(-labels.points / np.maximum(labels.penalty_total, 1.0))
    with torch.no_grad():
        network.eval()
        before_logits, _ = network(obs)
        before_logp = masked_log_probs(before_logits, mask)
        searched_share: float | None = None
        if settings.floor > 0 or settings.confident < 1:  # the target is what pimc:prior=<student> would play
            target, searched = prior_search_targets(before_logits, before_logp, q, mask, settings)
            searched_share = float(searched.float().mean())
        else:
            target = soft_targets(q, mask, settings.temperature)
        if settings.min_gap > 0:  # keep the student's own policy where the teacher is not clearly better
            close = regret(greedy_actions(before_logits, mask), q, mask) < settings.min_gap
            target = torch.where(close.unsqueeze(1), before_logp.exp() * mask, target)
        figures_gap = float((~close).float().mean()) if settings.min_gap > 0 else 1.0

    def held_out() -> dict[str, float]:
        if not held:
            return {}
        with torch.no_grad():
            network.eval()
            logits, _ = network(obs[test_idx])
            lost = regret(greedy_actions(logits, mask[test_idx]), q[test_idx], mask[test_idx])
            return {"agreement": float((lost <= 1e-6).float().mean()), "regret": float(lost.mean())}

    figures: dict[str, float] = {f"before_{k}": v for k, v in held_out().items()}
    figures["taught_share"] = figures_gap  # the labels whose target is the teacher's
    if searched_share is not None:
        figures["searched_share"] = searched_share  # the labels where the prior search would search
    optimizer = torch.optim.Adam(network.parameters(), lr=settings.learning_rate, eps=1e-5)
    steps_total = settings.epochs * math.ceil(len(train_idx) / settings.minibatch_size)
    step = 0
    for epoch in range(settings.epochs):
        network.train()
        perm = train_idx[torch.randperm(len(train_idx), generator=generator)]
        sums = {"policy_loss": 0.0, "kl": 0.0, "value_loss": 0.0}
        batches = 0
        for begin in range(0, len(perm), settings.minibatch_size):
            idx = perm[begin : begin + settings.minibatch_size]
            for group in optimizer.param_groups:  # linear decay to a tenth
                group["lr"] = settings.learning_rate * (1.0 - 0.9 * step / max(1, steps_total))
            logits, value = network(obs[idx])
            logp = masked_log_probs(logits, mask[idx])
            legal = mask[idx]
            zero = torch.zeros_like(logp)
            policy_loss = -(target[idx] * torch.where(legal, logp, zero)).sum(1).mean()
            old = before_logp[idx]
            kl = (old.exp() * torch.where(legal, old - logp, zero)).sum(1).mean()
            value_loss = 0.5 * ((value - value_target[idx]) ** 2).mean()
            loss = policy_loss + settings.kl_coef * kl + settings.vf_coef * value_loss
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(network.parameters(), 0.5)
            optimizer.step()
            sums["policy_loss"] += float(policy_loss.detach())
            sums["kl"] += float(kl.detach())
            sums["value_loss"] += float(value_loss.detach())
            batches += 1
            step += 1
        figures.update({k: v / max(1, batches) for k, v in sums.items()})
        figures.update(held_out())
        figures["epoch"] = epoch + 1
        if report is not None:
            report(dict(figures))
    network.eval()
    figures["train_decisions"] = len(train_idx)
    figures["held_out_decisions"] = held
    return figures


def student_network(student: str, rules: Rules) -> torch.nn.Module:
    """The student model as a torch network (its exported weights)."""
    policy = load_policy(student, rules)
    network = build_network(policy.config, rules.num_players)
    network.load_state_dict({k: torch.tensor(v) for k, v in policy.params.items()})
    return network


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


@dataclass
class Collect:
    """Label decisions of the student's seats with the teacher's values."""

    student: str = "ppo-robust"  # a model directory or shipped model name
    out: Path = Path("labels/labels.npz")
    rules: str = "standard"
    teacher: str = "pimc"  # a pimc spec (pimc:worlds=64), or a guard spec: labels only where the guard fires
    tables: tuple[str, ...] = DEFAULT_TABLES
    deals: int = 100
    seed: int = 0
    teacher_play: float = 0.25  # probability that a labelled decision plays the teacher's best
    workers: int = 1


@dataclass
class Train:
    """Fine-tune the student on label files and export it."""

    labels: tuple[Path, ...]
    export_name: str
    student: str = "ppo-robust"
    rules: str = "standard"
    settings: DistillSettings = DistillSettings()
    threads: int = 0  # torch CPU threads (0: the default)


Command = Annotated[Collect, tyro.conf.subcommand("collect")] | Annotated[Train, tyro.conf.subcommand("train")]


def main(argv: Sequence[str] | None = None) -> int:
    command = tyro.cli(Command, args=argv, prog="python -m hearts_env.training.distill")
    if isinstance(command, Collect):
        rules = Rules.load(command.rules)
        labels = collect(
            command.student,
            rules,
            teacher=command.teacher,
            tables=command.tables,
            deals=command.deals,
            seed=command.seed,
            teacher_play=command.teacher_play,
            workers=command.workers,
        )
        labels.save(command.out)
        print(
            f"{len(labels):,} labelled decisions from {command.deals} deals in {labels.meta['wall_time_s']} s; "
            f"the student's greedy move was the teacher's best in {labels.meta['agreement']:.1%}: {command.out}"
        )
        return 0
    if command.threads:
        torch.set_num_threads(command.threads)
    rules = Rules.load(command.rules)
    try:
        labels = LabelSet.concatenate([LabelSet.load(p) for p in command.labels])
    except LabelError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    network = student_network(command.student, rules)
    started = time.perf_counter()

    def show(f: dict[str, float]) -> None:
        print(
            f"epoch {int(f['epoch'])}: loss {f['policy_loss']:.4f} kl {f['kl']:.4f} value {f['value_loss']:.4f} | "
            f"held out: agreement {f.get('before_agreement', 0):.3f} -> {f.get('agreement', 0):.3f}, "
            f"regret {f.get('before_regret', 0):.3f} -> {f.get('regret', 0):.3f} points/decision",
            file=sys.stderr,
        )

    figures = distil(network, labels, command.settings, report=show)
    sources = labels.meta.get("sources", [labels.meta])
    export_model(
        network,
        user_models_dir() / command.export_name,
        name=command.export_name,
        rules=rules,
        training_info={
            "method": "distillation of a search bot's action values (training.distill)",
            "student": command.student,
            "teacher": labels.meta.get("teacher"),
            "label_decisions": len(labels),
            "label_deals": sum(int(s.get("deals", 0)) for s in sources),
            "label_wall_time_s": round(sum(float(s.get("wall_time_s", 0)) for s in sources), 1),
            "tables": list(labels.tables),
            "settings": {k: getattr(command.settings, k) for k in DistillSettings.__dataclass_fields__},
            "figures": {k: round(v, 4) for k, v in figures.items()},
            "wall_time_s": round(time.perf_counter() - started, 1),
        },
        overwrite=True,
    )
    print(f"exported models/{command.export_name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
