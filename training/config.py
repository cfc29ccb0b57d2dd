"""The settings of a training run: the ``Args`` dataclass, read by ``tyro`` (CleanRL style), and the
checks that refuse, in one line and before anything is written, settings that cannot start a run.

Where a setting comes from, lowest first: ``Args``' defaults, the checkpoint of ``--resume RUN_DIR``,
the TOML file of ``--config`` (its keys are ``Args`` fields; an unknown key is refused by name), the
command line (``--num-envs 512``). The launch flags ``--config``, ``--resume``, ``--overwrite`` and
``--json`` say how to start, not what to train, so they are not ``Args`` fields (nor checkpointed).

A resumed run continues the same training: only ``RESUMABLE`` settings may differ from the
checkpoint's (the length of the run, evaluation, checkpoints, export, progress, threads, bot workers); any other
change is refused with the option named, since it would silently train something else.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypeVar

import torch
import tyro
from tyro.constructors import PrimitiveConstructorSpec

from hearts_env.core import RulesError
from hearts_env.core.rules import Rules
from hearts_env.nets import load_policy

from .checkpoint import load_checkpoint
from .export import check_model_name
from .network import cardset_config, mlp_config
from .opponents import BOT_PREFIX, pool_problem, scripted_adversaries, uses_bots

SettingsT = TypeVar("SettingsT")


class ConfigError(ValueError):
    """Settings that cannot start a run (a missing file, a bad value): ``main`` prints the message
    as one line, before anything is written."""


def _parse_bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not true or false")


#: A boolean given as a value (``--progress false``), as TOML gives it, rather than tyro's ``--no-x`` flags.
Bool = Annotated[
    bool,
    tyro.conf.FlagConversionOff,
    PrimitiveConstructorSpec(
        nargs=1,
        metavar="true|false",
        instance_from_str=lambda args: _parse_bool(args[0]),
        is_instance=lambda value: isinstance(value, bool),
        str_from_instance=lambda value: ["true" if value else "false"],
    ),
]


@dataclass
class Args:
    """Every setting of a training run; all can be set in a TOML file (``--config``) and on the
    command line (``--num-envs 512``)."""

    rules: str = "standard"
    """preset name or rule file to train on"""
    more_rules: list[str] = field(default_factory=list)
    """more rule sets to train on at once (same player count): the tables split evenly"""
    seed: int = 1
    """seed of everything: deals, sampling, initial weights"""
    run_name: str = ""
    """name of the run (default: derived from the settings)"""
    runs_dir: str = "runs"
    """where runs write logs and checkpoints"""
    device: str = "cpu"
    """torch device: cpu or cuda"""
    engine: str = "batched"
    """batched (torch, any device) or reference (the reference engine on many tables; CPU)"""
    threads: int = 0
    """torch CPU threads (0: torch's default)"""
    bot_workers: int = 1
    """processes that play a bot: opponent's decisions (1: this process; a search bot or the guard's critic
    costs tens of milliseconds a decision, so a run against one goes about as many times faster as cores)"""
    # network
    network: str = "mlp"
    """mlp (baseline) or cardset (shared card embeddings)"""
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    """hidden layer sizes"""
    init_from: str = ""
    """start from the weights of an exported model (models/<name>); its network wins"""
    # imitation warm start (training.imitate), before the first PPO update of a fresh run
    imitation_samples: int = 0
    """teacher-labelled decisions to imitate before PPO (0: none; skipped with init_from)"""
    imitation_dagger: float = 0.25
    """share of imitation decisions played by the network itself (DAgger mix)"""
    imitation_learning_rate: float = 1e-3
    """Adam learning rate of the imitation"""
    imitation_teacher: str = "heuristic"
    """whose choices the warm start imitates: heuristic, or a scripted adversary (moon-late, ...: a moon seeker)"""
    # rollouts
    total_decisions: int = 2_000_000
    """environment decisions to train for"""
    num_envs: int = 256
    """tables played in lockstep"""
    num_steps: int = 128
    """steps per table per rollout (one decision each)"""
    # PPO
    learning_rate: float = 3e-4
    """Adam learning rate"""
    anneal_lr: Bool = True
    """decay the learning rate linearly to zero"""
    gamma: float = 1.0
    """discount along a seat's decisions within a deal"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    update_epochs: int = 4
    """PPO epochs per rollout"""
    minibatch_size: int = 2048
    """samples per gradient step"""
    clip_coef: float = 0.2
    """PPO ratio clip"""
    ent_coef: float = 0.01
    """entropy bonus (masked entropy)"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient norm clip"""
    target_kl: float = 0.0
    """stop an update's epochs early above this KL (0: off)"""
    # opponents
    selfplay_fraction: float = 0.5
    """share of tables where every seat learns"""
    pool: list[str] = field(default_factory=lambda: ["snapshot", "heuristic", "random"])
    """opponent kinds drawn for the other tables: snapshot, heuristic, random, model:<model directory or shipped
    name> (a frozen exported model, greedy), a scripted adversary's label (moon, moon-stubborn, ...), or
    bot:<bot spec> (any bot of make_bot, e.g. bot:guard:base=ppo-robust or bot:pimc; needs engine reference)"""
    pool_weights: list[float] = field(default_factory=lambda: [0.5, 0.4, 0.1])
    """draw weights of the pool kinds"""
    relative_reward: Bool = False
    """reward a seat's points relative to the other seats' mean (zero-sum: a moon shot costs the others what
    it gains the shooter) instead of its own points alone"""
    oracle_critic: Bool = False
    """score decisions with a critic that sees the whole deal (every hand, pass, won card and the kitty) besides
    the seat's observation; the policy still reads the observation alone and exports without it (engine batched)"""
    critic_hidden: list[int] = field(default_factory=lambda: [256, 256])
    """hidden layer sizes of the oracle critic"""
    critic_learning_rate: float = 0.0
    """Adam learning rate of the oracle critic (0: learning_rate), annealed alike"""
    critic_warmup: int = 0
    """updates at the start of a run in which only the value networks learn (a fresh critic on a trained policy)"""
    magnet_coef: float = 0.0
    """weight of a KL term toward the latest snapshot of the policy (magnetic mirror descent; 0: off)"""
    moon_teacher: float = 0.0
    """weight of a kickstarting term toward the heuristic bot's move in the states where it sees a moon
    attempt, in the deals that ended in a moon shot (hearts_env.training.teacher; 0: none)"""
    moon_teacher_hindsight: Bool = True
    """keep the moon teacher's labels only in deals that ended in a moon shot (false: wherever it sees one)"""
    open_deal_coef: float = 0.0
    """weight of the all-actions term on open-deal values: at decisions where a moon is still possible, every
    legal action played out on the true deal by the run's own policies (hearts_env.training.open_deal; 0: off)"""
    open_deal_states: int = 1024
    """decisions per update given open-deal values (drawn among the learner's moon-alive decisions, but for the
    share open_deal_anywhere)"""
    open_deal_anywhere: float = 0.0
    """share of those decisions drawn among all the learner's decisions, passes included, rather than the
    moon-alive ones: the same per-action values then teach ordinary play as well"""
    exploiter_fraction: float = 0.0
    """share of the other tables turned around: the pool's opponent sits alone among copies of the learner (as an
    exploiter meets a model; where moon defence is learned)"""
    alone_kinds: list[str] = field(default_factory=list)
    """pool kinds that always sit alone among copies of the learner, as the exploitability suite seats them
    (the moon seekers: a table of three seekers teaches a defence no real table asks for)"""
    pool_priority: float = 0.0
    """prioritise the pool toward what the learner loses to (PFSP): a kind's weight is multiplied by
    (1 - win rate)^pool_priority, win rates tracked per kind over recent rollouts (0: the fixed weights)"""
    snapshot_every: int = 10
    """updates between frozen snapshots"""
    max_snapshots: int = 8
    """snapshots kept in the pool"""
    # evaluation, checkpoints, export
    eval_every: int = 10
    """updates between evaluations (0: only at the end)"""
    eval_deals: int = 2048
    """deals per evaluation opponent"""
    eval_adversaries: list[str] = field(default_factory=list)
    """scripted adversaries (moon-stubborn, ...) to evaluate against as well, each alone at a table of
    three greedy learners: their gain and moon shots per deal (eval/<adversary>/gain, .../moons)"""
    checkpoint_every: int = 10
    """updates between checkpoints"""
    export_name: str = ""
    """export the final policy to models/<name>"""
    progress: Bool = True
    """show a progress bar"""


#: The settings a resumed run may change (applied from the resume on); every other one is fixed by the checkpoint.
RESUMABLE = (
    "total_decisions",
    "eval_every",
    "eval_deals",
    "eval_adversaries",
    "checkpoint_every",
    "export_name",
    "progress",
    "threads",
    "bot_workers",
)

FIELDS = tuple(f.name for f in dataclasses.fields(Args))


def flag(name: str) -> str:
    """The command-line flag of the ``Args`` field ``name``."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class Launch:
    """What ``hearts train`` was asked: the settings, and how to start (not checkpointed)."""

    args: Args
    #: the run directory to continue (``--resume``), or ``None`` for a fresh run
    resume: Path | None = None
    #: replace an existing run of the same name (``--overwrite``)
    overwrite: bool = False
    #: end with the final metrics as JSON rather than the summary (``--json``)
    json: bool = False


_DESCRIPTION = (
    "PPO self-play training on the batched engine. Launch flags: --config FILE (TOML of these settings, "
    "under the command line), --resume RUN_DIR (continue a run from its checkpoint; only "
    + ", ".join(flag(n) for n in RESUMABLE)
    + " may change), --overwrite (replace an existing run of the same name), --json (end with the final "
    "metrics as JSON)."
)


def _launch_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--config")
    parser.add_argument("--resume")
    parser.add_argument("--overwrite", action="store_true")
    parser.add_argument("--json", action="store_true")
    return parser


def _one_line(text: str) -> str:
    """tyro's boxed error message as one line: the paragraph after the title (not the helptext)."""
    kept: list[str] = []
    for line in text.splitlines()[1:]:  # the first line is the box's title
        inner = line.strip().strip("│╭╮╰╯").strip()
        if not inner.strip("─━-= "):  # a rule: the reason is over once it has begun
            if kept:
                break
            continue
        kept.append(inner)
    return " ".join(kept) or "invalid arguments"


def settings_from_tokens(
    cls: type[SettingsT], tokens: Sequence[str], default: SettingsT, source: str, prog: str, description: str
) -> SettingsT:
    """``cls`` (a settings dataclass) from ``tokens`` over ``default``, read by tyro; a bad value is a
    ``ConfigError`` naming ``source``. Help goes to the terminal as tyro writes it."""
    if any(t in ("-h", "--help") for t in tokens):
        return tyro.cli(cls, args=list(tokens), default=default, prog=prog, description=description)
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured), contextlib.redirect_stdout(captured):
            return tyro.cli(cls, args=list(tokens), default=default, prog=prog, description=description)
    except SystemExit:
        raise ConfigError(f"{source}: {_one_line(captured.getvalue())}") from None


def _tyro(tokens: Sequence[str], default: Args, source: str) -> Args:
    """``Args`` from ``tokens`` over ``default``; a bad value is a ``ConfigError`` naming ``source``."""
    return settings_from_tokens(Args, tokens, default, source, "hearts train", _DESCRIPTION)


def _tokens(data: dict[str, Any]) -> list[str]:
    """TOML settings as command-line tokens, so tyro checks their types as it checks the flags'."""
    tokens: list[str] = []
    for key, value in data.items():
        tokens.append(flag(key))
        for item in value if isinstance(value, list) else [value]:
            tokens.append(("true" if item else "false") if isinstance(item, bool) else str(item))
    return tokens


def read_toml(path: str, fields: Sequence[str] = FIELDS) -> dict[str, Any]:
    """The settings of a TOML file (keys among ``fields``); ``ConfigError`` says why it cannot be read or
    names an unknown key."""
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"--config {path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"--config {path}: is a directory, not a TOML file") from None
    except OSError as err:
        raise ConfigError(f"--config {path}: cannot read it: {err.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(f"--config {path}: not valid TOML: {err}") from None
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(f"--config {path}: unknown setting(s) {', '.join(unknown)}; known: {', '.join(fields)}")
    return data


def args_from_dict(data: dict[str, Any], source: str) -> Args:
    """``Args`` from a dict of settings (a TOML file's), type-checked; unknown keys refused by name."""
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ConfigError(f"{source}: unknown setting(s) {', '.join(unknown)}; known: {', '.join(FIELDS)}")
    return _tyro(_tokens(data), Args(), source)


def checkpoint_args(run_dir: Path) -> Args:
    """The settings a run was trained with, from its checkpoint (``ConfigError`` says why not)."""
    if not run_dir.is_dir():
        raise ConfigError(f"--resume {run_dir}: no such run directory")
    if not (run_dir / "checkpoint.pt").is_file():
        raise ConfigError(f"--resume {run_dir}: no checkpoint.pt there (it is written after the first update)")
    try:
        saved = load_checkpoint(run_dir / "checkpoint.pt", restore_rng=False)["args"]
    except (OSError, ValueError) as err:  # load_checkpoint says why, in one line
        raise ConfigError(f"--resume {run_dir}: {err}") from None
    return Args(**{k: v for k, v in saved.items() if k in FIELDS})


def parse_args(argv: Sequence[str] | None = None) -> Launch:
    """The launch from the command line: ``--resume``'s checkpoint, then ``--config``, then flags.
    ``ConfigError`` says why a file cannot be read, a value is wrong or a resume would change a fixed setting."""
    launch, rest = _launch_parser().parse_known_args(list(argv) if argv is not None else None)
    resume = Path(launch.resume) if launch.resume else None
    base = checkpoint_args(resume) if resume is not None else Args()
    if launch.config:
        base = _tyro(_tokens(read_toml(launch.config)), base, f"--config {launch.config}")
    args = _tyro(rest, base, "hearts train")
    if resume is not None:
        check_resume(checkpoint_args(resume), args, resume)
    if resume is not None and launch.overwrite:
        raise ConfigError("--overwrite and --resume: choose one (replace the run, or continue it)")
    return Launch(args, resume, launch.overwrite, launch.json)


def check_resume(saved: Args, args: Args, run_dir: Path) -> None:
    """Refuse a resume that changes a setting other than ``RESUMABLE``, naming the option."""
    for name in FIELDS:
        before, after = getattr(saved, name), getattr(args, name)
        if before != after and name not in RESUMABLE:
            raise ConfigError(
                f"{flag(name)}: cannot change on --resume {run_dir} (the run has {before!r}, got {after!r}); "
                f"only {', '.join(flag(n) for n in RESUMABLE)} may; start a new run to train with it"
            )


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
    "bot_workers",
)
_AT_LEAST_ZERO = (
    "total_decisions",
    "imitation_samples",
    "eval_every",
    "threads",
    "pool_priority",
    "moon_teacher",
    "critic_warmup",
    "critic_learning_rate",
    "magnet_coef",
    "open_deal_coef",
    "open_deal_states",
)


def network_config(args: Args, obs_dim: int | None) -> dict[str, Any]:
    """The network ``args`` ask for (``obs_dim`` ``None``: the current encoding's size)."""
    if args.network == "mlp":
        return mlp_config(obs_dim, hidden=args.hidden)
    if args.network == "cardset":
        return cardset_config(obs_dim, hidden=args.hidden)
    raise ConfigError(f"--network {args.network}: unknown network; use mlp or cardset")


def load_rules(args: Args) -> list[Rules]:
    """Every rule set of the run, ``--rules`` first (``ConfigError`` names the flag of a bad one)."""
    loaded = []
    for option, spec in [("--rules", args.rules)] + [("--more-rules", r) for r in args.more_rules]:
        try:
            loaded.append(Rules.load(spec))
        except RulesError as err:
            detail = f" (option {err.option})" if err.option else ""
            raise ConfigError(f"{option} {spec}: invalid rules{detail}: {err}") from None
        except OSError as err:
            raise ConfigError(f"{option} {spec}: cannot read it: {err.strerror}") from None
    return loaded


def check_args(args: Args, resume: Path | None = None) -> None:
    """Refuse, with the reason, settings that cannot start a run; run before anything is written, so
    a failed start leaves no empty run directory. Raises ``ConfigError``."""
    for name in _AT_LEAST_ONE:
        if getattr(args, name) < 1:
            raise ConfigError(f"{flag(name)} must be at least 1, got {getattr(args, name)}")
    for name in _AT_LEAST_ZERO:
        if getattr(args, name) < 0:
            raise ConfigError(f"{flag(name)} must be at least 0, got {getattr(args, name)}")
    for name in ("selfplay_fraction", "imitation_dagger", "exploiter_fraction", "open_deal_anywhere"):
        if not 0.0 <= getattr(args, name) <= 1.0:
            raise ConfigError(f"{flag(name)} is a share between 0 and 1, got {getattr(args, name)}")
    loaded = load_rules(args)
    counts = {spec: r.num_players for spec, r in zip([args.rules, *args.more_rules], loaded, strict=True)}
    if len(set(counts.values())) > 1:
        listed = ", ".join(f"{spec} ({k} players)" for spec, k in counts.items())
        raise ConfigError(f"--more-rules: every rule set must have the same number of players, got {listed}")
    if args.engine not in ("batched", "reference"):
        raise ConfigError(f"--engine {args.engine}: unknown engine; use batched or reference")
    if args.engine != "batched" and args.more_rules:
        raise ConfigError("--more-rules: training on several rule sets at once needs --engine batched")
    _check_device(args.device)
    for name in ("hidden", "critic_hidden"):
        sizes = getattr(args, name)
        if not sizes or min(sizes) < 1:
            raise ConfigError(f"{flag(name)}: layer sizes must be at least 1, got {sizes}")
    if args.critic_warmup and not args.oracle_critic:
        raise ConfigError(
            "--critic-warmup trains the oracle critic alone (the network's value head shares its trunk with the "
            "policy); add --oracle-critic true, or set --critic-warmup 0"
        )
    if args.open_deal_coef and args.engine != "batched":
        raise ConfigError(
            "--open-deal-coef plays decisions out on copies of the batched engine's deals; use --engine batched"
        )
    if args.oracle_critic and args.engine != "batched":
        raise ConfigError("--oracle-critic reads the whole deal from the batched engine's state; use --engine batched")
    try:
        network_config(args, None)
    except ValueError as err:
        raise ConfigError(f"--network {args.network}: {err}") from None
    problem = pool_problem(args.pool, loaded)  # a model is checked against every rule set of the run
    if problem is not None:
        raise ConfigError(f"--pool: {problem}")
    if uses_bots(args.pool) and args.engine != "reference":
        bots = ", ".join(k for k in args.pool if k.startswith(BOT_PREFIX))
        raise ConfigError(f"--pool: {bots} plays on the reference engine's tables; add --engine reference")
    if args.imitation_teacher != "heuristic" and args.imitation_teacher not in scripted_adversaries():
        raise ConfigError(
            f"--imitation-teacher {args.imitation_teacher}: unknown teacher; "
            f"use heuristic, {', '.join(sorted(scripted_adversaries()))}"
        )
    unknown = sorted(set(args.eval_adversaries) - set(scripted_adversaries()))
    if unknown:
        raise ConfigError(
            f"--eval-adversaries: unknown adversary {', '.join(unknown)}; "
            f"use {', '.join(sorted(scripted_adversaries()))}"
        )
    stray = [kind for kind in args.alone_kinds if kind not in args.pool]
    if stray:
        raise ConfigError(f"--alone-kinds: {', '.join(stray)} is not in --pool {args.pool}")
    if len(args.pool_weights) != len(args.pool) or sum(args.pool_weights) <= 0 or min(args.pool_weights) < 0:
        raise ConfigError(
            f"--pool-weights {args.pool_weights}: give one weight >= 0 per pool kind {args.pool}, not all zero"
        )
    if args.export_name:
        try:
            check_model_name(args.export_name)
        except ValueError as err:
            raise ConfigError(f"--export-name: {err}") from None
    if args.run_name and (Path(args.run_name).name != args.run_name or args.run_name.startswith(".")):
        raise ConfigError(f"--run-name: a run name is a plain directory name, such as my-run; got {args.run_name!r}")
    # the starting weights: a model of these rules and this encoding (a resumed run has its own)
    if args.init_from and resume is None:
        try:
            load_policy(args.init_from, loaded[0])
        except (ValueError, OSError) as err:  # ModelError is a ValueError
            raise ConfigError(f"--init-from {args.init_from}: {getattr(err, 'reason', err)}") from None


def _check_device(name: str) -> None:
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ConfigError(f"--device {name}: not a torch device; use cpu or cuda") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            why = "this torch is built without CUDA" if torch.version.cuda is None else "no CUDA GPU is visible"
            raise ConfigError(f"--device {name}: CUDA is not available ({why}); use --device cpu")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise ConfigError(f"--device {name}: there are {torch.cuda.device_count()} CUDA device(s)")
    elif device.type == "mps" and not torch.backends.mps.is_available():
        raise ConfigError(f"--device {name}: MPS is not available; use --device cpu")
    elif device.type not in ("cpu", "cuda", "mps"):
        raise ConfigError(f"--device {name}: use cpu or cuda")
