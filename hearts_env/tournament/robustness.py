"""The exploitability suite: how much simple adversaries gain against a model, beside what they gain
against the heuristic bot.

``robustness(model, rules, deals, seed, workers)`` seats each scripted adversary of
``hearts_env.bots.scripted.ADVERSARIES`` (moon seekers that differ in how they pass and when they give
up, a duck-everything player, a queen-dumper, the highest-card probe) in one seat of a table of
three copies of the model under test, and again at a table of three copies of the baseline (the
heuristic bot), over the same duplicate deals (``run_tournament``: every deal once per seat rotation,
so the adversary holds every hand from every seat). Per adversary and table:

- the adversary's points per deal and the three others' mean, each with its 95% interval (Student t
  over duplicate sets, as in every tournament);
- the adversary's *gain*: the others' mean minus the adversary's points, per duplicate set (positive:
  the adversary does better than the players it sits with), with its interval;
- the moon shots (or sun shots): the share of its deals in which the adversary shot, which the three
  others conceded, and the shots of the three others per deal, which the adversary (and the two
  others) conceded, with Wilson 95% intervals over the games (an approximation: the rotations of one
  duplicate set share their cards).

And per adversary, the paired difference of the two gains over the same deals: gain against the
model minus gain against the baseline, with its interval (positive: the model is more exploitable by
this adversary than the heuristic bot is). A row's verdict says whether the interval lies above 0
(more exploitable), below 0 (less) or straddles it.

    report = robustness("models/ppo-standard", "standard", deals=200)
    print(report.table()); report.to_dict()

Command line: ``hearts tournament models/ppo-standard --robustness --deals 200``. The learned best
response (``hearts_env.training.best_response``, ``--learned DECISIONS``) adds its rows to a report
through ``learned``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..bots import spec_label
from ..core.rules import Rules
from .results import TournamentResult, json_ready
from .runner import run_tournament
from .stats import mean_interval, wilson_interval


def default_adversaries() -> dict[str, str]:
    """The suite's scripted adversaries, label -> ``make_bot`` spec."""
    from ..bots.scripted import ADVERSARIES

    return dict(ADVERSARIES)


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% interval."""

    mean: float
    low: float
    high: float

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Interval:
        """From ``{"mean", "low", "high"}`` (JSON: ``None`` where there is no interval)."""
        return cls(*(math.nan if data.get(k) is None else float(data[k]) for k in ("mean", "low", "high")))

    def text(self, signed: bool = False, digits: int = 2) -> str:
        sign = "+" if signed else ""
        if math.isnan(self.low):
            return f"{self.mean:{sign}.{digits}f}"
        return f"{self.mean:{sign}.{digits}f} [{self.low:{sign}.{digits}f}, {self.high:{sign}.{digits}f}]"


@dataclass(frozen=True)
class AdversaryTable:
    """One adversary in one seat, three copies of ``field`` in the others."""

    field: str
    adversary_points: Interval  # points per deal
    field_points: Interval  # the three others' mean points per deal
    gain: Interval  # field_points - adversary_points, paired over the duplicate sets
    adversary_moons: Interval  # share of the adversary's deals in which it shot (moons the field conceded), Wilson
    field_moons: Interval  # shots by the three others per deal (moons the adversary conceded), Wilson
    games: int


_INTERVALS = ("adversary_points", "field_points", "gain", "adversary_moons", "field_moons")


@dataclass(frozen=True)
class AdversaryRow:
    """One adversary against the model and against the baseline, over the same deals."""

    adversary: str
    spec: str
    model: AdversaryTable
    baseline: AdversaryTable
    gain_difference: Interval  # model gain - baseline gain, paired over the same duplicate sets

    @property
    def verdict(self) -> str:
        d = self.gain_difference
        if math.isnan(d.low):
            return "-"
        if d.low > 0:
            return "more exploitable"
        if d.high < 0:
            return "less exploitable"
        return "no difference shown"


@dataclass
class RobustnessReport:
    """Every adversary's rows; ``table()`` for people (and the model card), ``to_dict()`` for machines."""

    model: str
    baseline: str
    rules_label: str
    sets: int
    seed: int
    seconds: float
    rows: list[AdversaryRow]
    #: the model under test is the baseline itself (its tables are played once; no difference to show)
    model_is_baseline: bool = False
    #: the learned best responses (``hearts_env.training.best_response.learned_best_response``), if measured
    learned: dict[str, Any] | None = None
    results: dict[tuple[str, str], TournamentResult] = field(default_factory=dict, repr=False)

    def row(self, adversary: str) -> AdversaryRow:
        return next(r for r in self.rows if r.adversary == adversary)

    def to_dict(self) -> dict[str, Any]:
        rows = [{**asdict(r), "verdict": r.verdict} for r in self.rows]
        return json_ready(
            {
                "model": self.model,
                "baseline": self.baseline,
                "model_is_baseline": self.model_is_baseline,
                "rules": self.rules_label,
                "duplicate_sets": self.sets,
                "seed": self.seed,
                "seconds": self.seconds,
                "confidence": 0.95,
                "method": "each adversary in one seat, three copies of the model (then of the baseline) in the others, "
                "over the same duplicate deals with the seats rotated; gain = the three's mean minus the adversary's "
                "points per deal, Student t over duplicate sets; gain difference = model gain - baseline gain, paired "
                "over the same sets (positive: the model is more exploitable); moon shots: Wilson over games",
                "adversaries": rows,
                **({"learned": self.learned} if self.learned is not None else {}),
            }
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RobustnessReport:
        """The report of a saved ``to_dict()`` (``--json --output``), to render or to write into a
        model card again without replaying it; ``ValueError`` names what a malformed one lacks."""
        try:

            def table(t: Mapping[str, Any]) -> AdversaryTable:
                return AdversaryTable(
                    field=str(t["field"]),
                    **{k: Interval.of(t[k]) for k in _INTERVALS},
                    games=int(t["games"]),
                )

            rows = [
                AdversaryRow(
                    adversary=str(r["adversary"]),
                    spec=str(r["spec"]),
                    model=table(r["model"]),
                    baseline=table(r["baseline"]),
                    gain_difference=Interval.of(r["gain_difference"]),
                )
                for r in data["adversaries"]
            ]
            return cls(
                model=str(data["model"]),
                baseline=str(data["baseline"]),
                rules_label=str(data["rules"]),
                sets=int(data["duplicate_sets"]),
                seed=int(data["seed"]),
                seconds=float(data["seconds"]),
                rows=rows,
                model_is_baseline=bool(data.get("model_is_baseline", False)),
                learned=data.get("learned"),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ValueError(f"not a robustness report: {type(err).__name__} {err}") from None

    def table(self) -> str:
        lines = [
            f"Robustness of {self.model} · {self.rules_label} · {self.sets:,} duplicate deals per table · seed "
            f"{self.seed}",
            "",
            "Each adversary in one seat, three copies of the model (then of the baseline) in the others. Points "
            "per deal (lower is better), 95% intervals; gain = the three's mean − the adversary's points (higher: "
            "the adversary exploits them more); moons: the adversary's shots as a share of its deals, and the "
            "three's shots per deal.",
            "",
            "| adversary | against 3 | adversary's points | the three's points | adversary's gain "
            "| adversary's moons | the three's moons |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in self.rows:
            for t in (r.model,) if self.model_is_baseline else (r.model, r.baseline):
                lines.append(
                    f"| {r.adversary} | {t.field} | {t.adversary_points.text()} | {t.field_points.text()} "
                    f"| {t.gain.text(signed=True)} | {_percent(t.adversary_moons)} | {t.field_moons.text(digits=3)} |"
                )
        if self.model_is_baseline:
            lines += ["", f"{self.model} is the baseline: no gain difference to show."]
        else:
            lines += [
                "",
                f"Gain against {self.model} − gain against {self.baseline}, paired over the same deals (positive: "
                f"{self.model} is more exploitable than {self.baseline}):",
                "",
                "| adversary | gain difference | verdict |",
                "|---|---|---|",
            ]
            lines += [f"| {r.adversary} | {r.gain_difference.text(signed=True)} | {r.verdict} |" for r in self.rows]
        if self.learned is not None:
            lines += ["", *learned_table(self.learned)]
        return "\n".join(lines)


def _percent(x: Interval) -> str:
    if math.isnan(x.low):
        return f"{100 * x.mean:.1f}%"
    return f"{100 * x.mean:.1f}% [{100 * x.low:.1f}, {100 * x.high:.1f}]"


def learned_table(learned: Mapping[str, Any]) -> list[str]:
    """The learned best responses' lines of a report (``learned_best_response``'s dict)."""
    lines = [
        f"Learned best response: PPO for {learned['decisions']:,} decisions against three frozen copies of "
        f"{learned['target']}, and the same against three {learned['baseline']} bots ({learned['start']}); each "
        f"evaluated at its own table over {learned['deals']:,} duplicate deals. Gain = its opponents' mean − its "
        "points per deal.",
        "",
        "| best response against 3 | its points | its opponents' points | its gain | its moons |",
        "|---|---|---|---|---|",
    ]
    for key in ("target", "baseline"):
        row = learned[f"against_{key}"]
        lines.append(
            f"| {learned[key]} | {Interval.of(row['points']).text()} | {Interval.of(row['opponent_points']).text()} "
            f"| {Interval.of(row['gain']).text(signed=True)} | {100 * row['moon_rate']:.1f}% |"
        )
    lines += [
        "",
        f"Gain against {learned['target']} − gain against {learned['baseline']}: "
        f"{Interval.of(learned['gain_difference']).text(signed=True)} (paired over the same deals; positive: "
        f"{learned['target']} is more exploitable).",
    ]
    return lines


def gain_samples(result: TournamentResult) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(adversary, field, gain)`` per duplicate set of a table whose first bot is the adversary."""
    first, others = result.bots[0], result.bots[1]
    adversary = np.asarray(result.set_samples[first.label], dtype=np.float64)
    field_points = np.asarray(result.set_samples[others.label], dtype=np.float64)
    return adversary, field_points, field_points - adversary


def _interval(samples: np.ndarray) -> Interval:
    mean, _, low, high = mean_interval(samples)
    return Interval(mean, low, high)


def _rate(count: float, trials: int) -> Interval:
    low, high = wilson_interval(count, trials)
    return Interval(count / trials if trials else math.nan, low, high)


def adversary_table(result: TournamentResult) -> AdversaryTable:
    """The figures of one table (``[adversary, field]``: the adversary first, three copies of the field)."""
    if len(result.bots) != 2:
        raise ValueError(f"an adversary table has two bots (the adversary and its field), got {len(result.bots)}")
    first, others = result.bots[0], result.bots[1]
    adversary, field_points, gain = gain_samples(result)
    return AdversaryTable(
        field=others.label,
        adversary_points=_interval(adversary),
        field_points=_interval(field_points),
        gain=_interval(gain),
        adversary_moons=_rate(first.moons, first.deals),
        field_moons=_rate(others.moons, result.games),
        games=result.games,
    )


def robustness(
    model_spec: str | Path,
    rules: Rules | str | Path | None = "standard",
    deals: int = 200,
    seed: int = 0,
    workers: int = 1,
    adversaries: Mapping[str, str] | None = None,
    baseline: str = "heuristic",
    *,
    progress: bool = True,
    rules_label: str | None = None,
    on_table: Callable[[str, str], None] | None = None,
) -> RobustnessReport:
    """Every adversary (label -> bot spec; default: the scripted ``ADVERSARIES``) against three copies of
    ``model_spec`` and against three copies of ``baseline``, over the same ``deals`` duplicate deals."""
    loaded = Rules.load(rules) if not isinstance(rules, Rules) else rules
    if loaded.num_players < 2:
        raise ValueError("a robustness table needs at least two seats")
    chosen = dict(default_adversaries() if adversaries is None else adversaries)
    if not chosen:
        raise ValueError("robustness needs at least one adversary")
    model, base = str(model_spec), str(baseline)
    for name, spec in chosen.items():
        if spec in (model, base):
            raise ValueError(f"adversary {name!r} ({spec}) is the model or the baseline itself: its gain is zero")
    start = time.perf_counter()
    rows: list[AdversaryRow] = []
    results: dict[tuple[str, str], TournamentResult] = {}
    label: str | None = rules_label
    for name, spec in chosen.items():
        tables: dict[str, TournamentResult] = {}
        for opponent in dict.fromkeys([model, base]):  # a model that is the baseline plays once
            if on_table is not None:
                on_table(name, spec_label(opponent))
            tables[opponent] = run_tournament(
                [spec, opponent], loaded, deals=deals, seed=seed, progress=progress, workers=workers, rules_label=label
            )
            label = tables[opponent].rules_label
            results[(name, spec_label(opponent))] = tables[opponent]
        model_gain = gain_samples(tables[model])[2]
        base_gain = gain_samples(tables[base])[2]
        rows.append(
            AdversaryRow(
                adversary=name,
                spec=spec,
                model=adversary_table(tables[model]),
                baseline=adversary_table(tables[base]),
                gain_difference=_interval(model_gain - base_gain),
            )
        )
    return RobustnessReport(
        model=spec_label(model),
        baseline=spec_label(base),
        rules_label=label or "standard",
        sets=deals,
        seed=seed,
        seconds=time.perf_counter() - start,
        rows=rows,
        model_is_baseline=model == base,
        results=results,
    )
