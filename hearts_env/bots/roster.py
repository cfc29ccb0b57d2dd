"""The bot roster: the names a user picks a bot by, and what each name seats under the rules in play.

One table, ``ROSTER``, read by ``make_bot`` (so by every subcommand, the tournaments, ``hearts serve`` and the
Gymnasium env's ``opponents``), by ``hearts bots`` and by the help texts: a roster name is a spec like any other.

- ``random``, ``heuristic``, ``pimc``: the rule-based and search bots, for any rules.
- ``net``: the best shipped bare network for the rules in play (``NET``; a new network is a change of that line).
- ``strongest``: the strongest shipped bot for the rules in play, ``hearts play``'s and ``hearts serve``'s default;
  the heuristic bot on rules no shipped network plays.
- The shipped guard combinations by short name (``guard-wait``, ``guard-shoot``, ``guard-critic``, ``guard-averse``)
  and ``pimc-net``, the search with the network as its prior: the measured bots of ``docs/bots.md``, for the
  researcher who wants them without their recipes.

A name resolves to a spec of the grammar of ``hearts_env.bots`` (``roster_spec``), keyed by the preset the rules
play as (``preset_of``: a preset a shipped model would accept the rules as, so ``--set first_dealer=2`` keeps
the preset's bots). The figures ``hearts bots`` shows (``figures``) are read from the model cards' ``results``
(``model.json``) for the bots built on a model, and from ``CARDLESS_RESULTS`` for the three without one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..core.rules import Rules
from ..nets.spec import ModelError
from ..nets.store import SHIPPED_MODELS_DIR, read_model_card, rules_difference
from .guard import BONUS_CRITIC_OPTIONS, CRITIC_OPTIONS, SHOOTING_OPTIONS, WAITING_OPTIONS

#: The presets the shipped bots are measured on, in the order ``preset_of`` tries them.
ROSTER_PRESETS = ("standard", "microsoft", "omnibus")
#: The key of ``RosterEntry.specs`` for rules that play as none of ``ROSTER_PRESETS``.
OTHER_RULES = "other"

#: The best shipped bare network per preset: ``net``'s row.
NET = {"standard": "ppo-open-deal", "microsoft": "ppo-mixed-tuned", "omnibus": "ppo-mixed-tuned"}


@dataclass(frozen=True)
class RosterEntry:
    """A roster name: what it is, and its spec per preset (``OTHER_RULES`` for any other rules; a missing key
    means the name has no bot for those rules)."""

    name: str
    what: str
    specs: Mapping[str, str]
    #: Shown first by ``hearts bots`` and in the web table's menu (the others are the research names).
    main: bool = True


def _everywhere(spec: str) -> dict[str, str]:
    return {**dict.fromkeys(ROSTER_PRESETS, spec), OTHER_RULES: spec}


def _on_mixed(standard: str, microsoft: str, omnibus: str | None = None) -> dict[str, str]:
    return {"standard": standard, "microsoft": microsoft, "omnibus": omnibus or microsoft}


ROSTER: dict[str, RosterEntry] = {
    entry.name: entry
    for entry in (
        RosterEntry("random", "uniform over the legal moves", _everywhere("random")),
        RosterEntry("heuristic", "the rule-based yardstick", _everywhere("heuristic")),
        RosterEntry("pimc", "search over 48 sampled deals", _everywhere("pimc")),
        RosterEntry("net", "the best shipped bare network", dict(NET)),
        RosterEntry(
            "strongest",
            "the strongest shipped bot (heuristic where no network plays)",
            {
                **_on_mixed(
                    f"guard:base=ppo-tuned,{SHOOTING_OPTIONS}",
                    f"guard:base=ppo-mixed-tuned,{CRITIC_OPTIONS}",
                    f"guard:base=ppo-mixed-tuned,{BONUS_CRITIC_OPTIONS}",
                ),
                OTHER_RULES: "heuristic",
            },
        ),
        RosterEntry(
            "guard-wait",
            "the tuned network under the moon guard that waits for a seeker",
            _on_mixed(f"guard:base=ppo-tuned,{WAITING_OPTIONS}", f"guard:base=ppo-mixed-tuned,{WAITING_OPTIONS}"),
            main=False,
        ),
        RosterEntry(
            "guard-shoot",
            "guard-wait that also shoots the moon",
            _on_mixed(
                f"guard:base=ppo-tuned,{SHOOTING_OPTIONS}",
                f"guard:base=ppo-mixed-tuned,{SHOOTING_OPTIONS}",
                f"guard:base=ppo-mixed-tuned,{SHOOTING_OPTIONS},bonus=1",
            ),
            main=False,
        ),
        RosterEntry(
            "guard-critic",
            "guard-shoot on the mixed net, search critic",
            _on_mixed(
                f"guard:base=ppo-mixed-tuned,{CRITIC_OPTIONS}",
                f"guard:base=ppo-mixed-tuned,{CRITIC_OPTIONS}",
                f"guard:base=ppo-mixed-tuned,{BONUS_CRITIC_OPTIONS}",
            ),
            main=False,
        ),
        RosterEntry(
            "guard-averse",
            "the moon-averse guard: hardest to shoot against",
            dict.fromkeys(ROSTER_PRESETS, "guard:base=ppo-mixed,penalty=25"),
            main=False,
        ),
        RosterEntry(
            "pimc-net",
            "pimc with the tuned network as its prior",
            _on_mixed("pimc:prior=ppo-tuned", "pimc:prior=ppo-mixed-tuned"),
            main=False,
        ),
    )
}

#: The default bot of ``hearts play`` and ``hearts serve``.
DEFAULT_BOT = "strongest"


@dataclass(frozen=True)
class Figures:
    """A bot's measured figures on one rule set: milliseconds per decision, points per deal at a table of three
    heuristic bots, and the paired margin at three ``pimc`` (their mean less the bot's points: positive is
    better), each with its 95% interval and the command that measured it."""

    ms_per_decision: float | None = None
    heuristic_points: float | None = None
    heuristic_ci95: tuple[float, float] | None = None
    pimc_margin: float | None = None
    pimc_ci95: tuple[float, float] | None = None
    source: str = ""


#: The figures of the bots without a model card (standard rules), each with its command (milliseconds per decision:
#: the time in ``act`` that ``hearts bench`` reports); ``pimc`` at three ``pimc`` is level by definition.
CARDLESS_RESULTS: dict[tuple[str, str], dict[str, Any]] = {
    ("random", "standard"): {
        "ms_per_decision": 0.008,
        "vs_heuristic": {"points_per_deal": 12.93, "ci95": [11.81, 14.06], "sets": 100, "seed": 0},
        "command": "hearts tournament random heuristic --deals 100",
    },
    ("heuristic", "standard"): {
        "ms_per_decision": 0.26,
        "vs_heuristic": {"points_per_deal": 6.25, "ci95": [6.17, 6.33], "sets": 2000, "seed": 0},
        "command": "hearts tournament heuristic --deals 2000",
    },
    ("pimc", "standard"): {
        "ms_per_decision": 49,
        "vs_heuristic": {"points_per_deal": 4.78, "ci95": [4.48, 5.09], "sets": 600, "seed": 1},
        "vs_pimc": {"margin": 0.0, "ci95": [0.0, 0.0]},
        "command": "hearts tournament pimc heuristic --deals 600 --seed 1; python benchmarks/search_speed.py",
    },
}


def roster_names(main_only: bool = False) -> list[str]:
    """The roster's names in table order (``main_only``: ``random heuristic pimc net strongest``)."""
    return [name for name, entry in ROSTER.items() if entry.main or not main_only]


def preset_of(rules: Rules) -> str | None:
    """The roster preset ``rules`` play as: the first of ``ROSTER_PRESETS`` that a model trained on it would
    accept these rules for (no difference in an option that changes the observation or the play), else ``None``."""
    for preset in ROSTER_PRESETS:
        if not rules_difference(Rules.preset(preset), rules):
            return preset
    return None


def _load(rules: Rules | str | None) -> Rules:
    return rules if isinstance(rules, Rules) else Rules.load(rules)


def roster_spec(name: str, rules: Rules | str | None = None) -> str:
    """The spec roster ``name`` seats under ``rules`` (default standard). ``ValueError`` names an unknown name,
    or a name with no bot for these rules (``net`` on rules no shipped network plays)."""
    entry = ROSTER.get(name)
    if entry is None:
        raise ValueError(f"unknown roster name {name!r}; the roster: {', '.join(ROSTER)}")
    preset = preset_of(_load(rules))
    spec = entry.specs.get(preset or OTHER_RULES)
    if spec is None:
        plays = ", ".join(p for p in ROSTER_PRESETS if p in entry.specs)
        raise ValueError(f"{name!r}: no shipped bot for these rules ({name} plays {plays}); use heuristic or pimc")
    return spec


def default_bot_spec(rules: Rules | str | None = None) -> str:
    """The spec of the default bot (``DEFAULT_BOT``) under ``rules``."""
    return roster_spec(DEFAULT_BOT, rules)


#: The shipped model a spec is built on: a bare model name, ``base=<name>`` or ``prior=<name>``.
_MODEL_OF = re.compile(r"(?:^|base=|prior=)(ppo-[a-z0-9-]+)")


@cache
def _card_results(model: str) -> tuple[dict[str, Any], ...]:
    try:
        card = read_model_card(SHIPPED_MODELS_DIR / model)
    except ModelError:
        return ()
    results = card.get("results", [])
    return tuple(r for r in results if isinstance(r, dict)) if isinstance(results, list) else ()


def _interval(raw: Any) -> tuple[float, float] | None:
    if isinstance(raw, list | tuple) and len(raw) == 2:
        return float(raw[0]), float(raw[1])
    return None


def figures_of(result: Mapping[str, Any]) -> Figures:
    """A model card's ``results`` entry (or a ``CARDLESS_RESULTS`` one) as ``Figures``."""
    heuristic = result.get("vs_heuristic") or {}
    pimc = result.get("vs_pimc") or {}
    ms = result.get("ms_per_decision")
    return Figures(
        ms_per_decision=None if ms is None else float(ms),
        heuristic_points=heuristic.get("points_per_deal"),
        heuristic_ci95=_interval(heuristic.get("ci95")),
        pimc_margin=pimc.get("margin"),
        pimc_ci95=_interval(pimc.get("ci95")),
        source=str(result.get("command", "")),
    )


def figures(name: str, rules: Rules | str | None = None) -> Figures:
    """The measured figures of roster ``name`` under ``rules``, from the card of the model its spec is built on
    (the card's ``results`` entry whose ``bot`` is the spec and whose ``rules`` is the preset), or from
    ``CARDLESS_RESULTS``; an empty ``Figures`` where nothing was measured."""
    loaded = _load(rules)
    try:
        spec = roster_spec(name, loaded)
    except ValueError:
        return Figures()
    preset = preset_of(loaded) or OTHER_RULES
    cardless = CARDLESS_RESULTS.get((spec, preset))
    if cardless is not None:
        return figures_of(cardless)
    model = _MODEL_OF.search(spec)
    if model is None:
        return Figures()
    for result in _card_results(model.group(1)):
        if result.get("bot") == spec and result.get("rules") == preset:
            return figures_of(result)
    return Figures()


__all__ = [
    "CARDLESS_RESULTS",
    "DEFAULT_BOT",
    "NET",
    "OTHER_RULES",
    "ROSTER",
    "ROSTER_PRESETS",
    "Figures",
    "RosterEntry",
    "default_bot_spec",
    "figures",
    "figures_of",
    "preset_of",
    "roster_names",
    "roster_spec",
]
