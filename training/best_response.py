"""The learned best response: the honest measure of how exploitable a model is.

``learned_best_response(target, rules, decisions, seed)`` trains PPO for a fixed budget of
``decisions`` (environment decisions, every seat's; the learner makes a quarter of them at four
players) with the frozen target in the other three seats (``pool = ["model:<target>"]``, no
self-play), and the same budget, same settings and same seed against three heuristic bots (the
baseline). The target may be any bot: an exported model plays as a frozen network on the batched
engine (pool kind ``model:<target>``); a search bot, the moon guard or a scripted adversary plays
as itself on the reference engine (``bot:<target>``, ``training.opponents.BotOpponent``), seat by
seat, a few milliseconds per decision for the guard. Each best response is then evaluated at its
own table (best response + three targets, best response + three heuristic bots) over the same
duplicate deals (``run_tournament``), and the report gives how many points per deal each gains over
its opponents (their mean minus its points, paired over duplicate sets, 95% intervals) and the
difference of the two gains (positive: the target is more exploitable than the baseline).

The start is the same for both: a fresh network warm-started by imitating the heuristic bot
(``imitation_samples`` heuristic-labelled decisions, ``training.imitate``; not counted in the
budget), seeded alike, so both runs begin from identical weights and differ only in whom they learn
to beat. A fresh network without it would spend a small budget learning the rules of thumb rather
than the target's weaknesses. ``teacher`` (``--learned-start``) names whom both imitate: a scripted
adversary such as ``moon-late`` makes both learned exploiters start as moon seekers, which PPO from
a heuristic start does not become within these budgets. ``BEST_RESPONSE_SETTINGS`` are the PPO
settings (those of ``configs/train/standard.toml``, at a larger learning rate for short budgets); ``settings``
overrides any of them.

Runs go to a temporary directory, removed afterwards, unless ``runs_dir`` is given (``--learned-dir``):
there each run checkpoints after every update, and a call that finds a run's checkpoint continues it
(``ppo.train``'s resume: the same settings, or a refusal naming the one that differs), so a budget of hours
against a search bot survives a kill, and a finished run is evaluated without training again. ``workers``
plays the evaluation's games in that many processes and, against a bot, the bot's decisions in training
(``Args.bot_workers``). ``progress`` shows each run's bar and says on stderr which stage is running.

    report = learned_best_response("ppo-standard", "standard", decisions=1_000_000)

Command line: ``hearts tournament models/ppo-standard --robustness --learned 2000000``.
"""

from __future__ import annotations

import math
import re
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hearts_env.bots import BOT_SPECS, spec_label
from hearts_env.core.rules import Rules
from hearts_env.tournament import run_tournament
from hearts_env.tournament.robustness import gain_samples
from hearts_env.tournament.stats import mean_interval

from . import ppo
from .checkpoint import load_checkpoint
from .export import export_checkpoint
from .opponents import BOT_PREFIX, MODEL_PREFIX, uses_bots

#: The PPO settings of every best response (``training.config.Args`` fields); ``settings`` overrides them.
BEST_RESPONSE_SETTINGS: dict[str, Any] = {
    "network": "mlp",
    "hidden": [128, 128],
    "imitation_samples": 1_000_000,
    "imitation_dagger": 0.25,
    "num_envs": 256,
    "num_steps": 128,
    "learning_rate": 3e-4,
    "anneal_lr": True,
    "update_epochs": 3,
    "minibatch_size": 2048,
    "ent_coef": 0.003,
    "target_kl": 0.03,
    "eval_every": 0,
    "eval_deals": 256,
    "checkpoint_every": 1,
}


def pool_kind(spec: str) -> str:
    """The training pool kind that plays ``spec``: ``heuristic``, ``random``, ``model:<spec>`` for an
    exported model, or ``bot:<spec>`` for any other bot of ``make_bot`` (a search bot, the moon guard, a
    scripted adversary), which trains on the reference engine."""
    if spec in ("heuristic", "random"):
        return spec
    if spec.partition(":")[0] in BOT_SPECS:
        return BOT_PREFIX + spec
    return MODEL_PREFIX + spec


def run_engine(kind: str, chosen: Mapping[str, Any]) -> str:
    """The engine of the run against pool ``kind``: the reference engine for a bot (its tables are what a
    bot reads), else the settings' engine (the batched one by default)."""
    return "reference" if uses_bots([kind]) else str(chosen.get("engine", "batched"))


def _interval(samples: Any) -> dict[str, float]:
    mean, _, low, high = mean_interval(samples)
    return {"mean": mean, "low": low, "high": high}


def _plain_name(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", label).strip("-") or "opponent"


def _check_budget(run_dir: Path, decisions: int) -> None:
    """Refuse to continue a run of another budget: its learning rate anneals over its own length, so
    stretching it would not train what a fresh run of ``decisions`` trains."""
    before = load_checkpoint(run_dir / "checkpoint.pt", restore_rng=False)["args"].get("total_decisions")
    if before != decisions:
        raise ValueError(
            f"--learned {decisions}: {run_dir} holds a best response of {before:,} decisions; "
            "use that budget, or another --learned-dir"
        )


def learned_best_response(
    target_spec: str | Path,
    rules: Rules | str | Path = "standard",
    decisions: int = 2_000_000,
    seed: int = 0,
    baseline: str = "heuristic",
    *,
    deals: int = 1000,
    workers: int = 1,
    settings: Mapping[str, Any] | None = None,
    runs_dir: str | Path | None = None,
    progress: bool = True,
    teacher: str = "heuristic",
) -> dict[str, Any]:
    """Best responses to ``target_spec`` and to ``baseline``, trained alike, evaluated over ``deals``
    duplicate deals each; the dict of figures (JSON-ready; see the module docstring).

    With ``workers`` > 1 a bot target's decisions run in spawned processes, which import the
    calling script's main module: a script that calls this must do so under
    ``if __name__ == "__main__":`` (the ``hearts`` CLI does)."""
    if decisions < 1:
        raise ValueError(f"--learned: the budget must be at least 1 decision, got {decisions}")
    target, base = str(target_spec), str(baseline)
    kinds = {target: pool_kind(target), base: pool_kind(base)}
    loaded = Rules.load(rules) if not isinstance(rules, Rules) else rules
    chosen = {**BEST_RESPONSE_SETTINGS, "imitation_teacher": teacher, **(settings or {})}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hearts-best-response-") as scratch:
        root = Path(runs_dir) if runs_dir is not None else Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        rules_file = root / "rules.toml"  # training reads rules by name or file
        rules_file.write_text(loaded.to_toml(), encoding="utf-8")
        trained: dict[str, dict[str, Any]] = {}
        rules_label = ""
        for opponent in dict.fromkeys([target, base]):  # a target that is the baseline trains once
            label = spec_label(opponent)
            name = f"best-response-to-{_plain_name(label)}"
            if progress:
                print(
                    f"learned best response: training against 3 {label} ({decisions:,} decisions)",
                    file=sys.stderr,
                    flush=True,
                )
            args = ppo.Args(
                **{
                    **chosen,
                    "rules": str(rules_file),
                    "seed": seed,
                    "runs_dir": str(root / "runs"),
                    "run_name": name,
                    "total_decisions": decisions,
                    "engine": run_engine(kinds[opponent], chosen),
                    "pool": [kinds[opponent]],
                    "pool_weights": [1.0],
                    "selfplay_fraction": 0.0,
                    "export_name": "",
                    "progress": progress,
                    "bot_workers": workers,
                }
            )
            run_dir = root / "runs" / name
            resume = run_dir if runs_dir is not None and (run_dir / "checkpoint.pt").is_file() else None
            if resume is not None:
                _check_budget(run_dir, decisions)
                if progress:
                    print(f"learned best response: continuing {run_dir}", file=sys.stderr, flush=True)
            begin = time.perf_counter()
            final = ppo.train(args, resume=resume, overwrite=runs_dir is not None and resume is None)
            seconds = time.perf_counter() - begin
            model = export_checkpoint(Path(final["run_dir"]), name, models_dir=root / "models", overwrite=True)
            if progress:
                print(f"learned best response: evaluating it against 3 {label}", file=sys.stderr, flush=True)
            result = run_tournament(
                [str(model), opponent], loaded, deals=deals, seed=seed, progress=progress, workers=workers
            )
            own, others, gain = gain_samples(result)
            rules_label = result.rules_label
            trained[opponent] = {
                "opponent": label,
                "points": _interval(own),
                "opponent_points": _interval(others),
                "gain": _interval(gain),
                "moon_rate": result.bots[0].moons / result.bots[0].deals,
                "training": {
                    "decisions": final.get("decisions"),
                    "learner_decisions": final.get("learner_decisions"),
                    "updates": final.get("update"),
                    "seconds": round(seconds, 1),  # this call's (a continued run: since it continued)
                    "ppo_seconds": round(final.get("decisions", 0) / max(final.get("decisions_per_s", 0), 1e-9), 1),
                    "continued": resume is not None,
                    "engine": run_engine(kinds[opponent], chosen),
                },
                "gain_samples": gain,
            }
    difference = trained[target]["gain_samples"] - trained[base]["gain_samples"]
    for entry in trained.values():
        entry.pop("gain_samples", None)
    imitation = int(chosen.get("imitation_samples", 0) or 0)
    start = (
        f"both warm-started by imitating the {chosen['imitation_teacher']} bot on {imitation:,} decisions"
        if imitation
        else "both from a fresh network"
    )
    return _clean(
        {
            "target": spec_label(target),
            "baseline": spec_label(base),
            "rules": rules_label,
            "decisions": decisions,
            "deals": deals,
            "seed": seed,
            "start": start,
            "settings": chosen,
            "against_target": trained[target],
            "against_baseline": trained[base],
            "gain_difference": _interval(difference),
            "seconds": round(time.perf_counter() - started, 1),
            "method": "PPO against three frozen copies (no self-play), then the best response in one seat of three "
            "copies over duplicate deals with the seats rotated; gain = the three's mean minus its points per deal, "
            "Student t over duplicate sets; gain difference paired over the same sets",
        }
    )


def _clean(x: Any) -> Any:
    if isinstance(x, float):
        return None if math.isnan(x) else round(x, 6)
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    return x
