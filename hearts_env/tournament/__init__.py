"""Tournaments: any bots on any rule set over duplicate deals, with 95% confidence intervals.

``seeding`` (the duplicate deals and every seed), ``stats`` (Student-t and Wilson intervals),
``results`` (``TournamentResult``: the table and the JSON), ``runner`` (``run_tournament``: the
games at one seated table per process, the worker pool) and ``evaluate`` (any policy against the
standard opponents by the benchmark protocol) and ``robustness`` (the exploitability suite: every
scripted adversary against three copies of a model and of the heuristic bot, gains paired over the
same deals). Needs numpy only.

May import: ``hearts_env.core``, ``hearts_env.obs``, ``hearts_env.bots`` and numpy.
"""

from .evaluate import PolicyBot, as_bot, evaluate, load_policy_spec, resolve_bot_specs
from .results import BotStats, Difference, TournamentResult, paired_difference
from .robustness import AdversaryRow, AdversaryTable, Interval, RobustnessReport, robustness
from .runner import run_tournament
from .seeding import deal_for_seed, deal_seeds, game_seed
from .stats import mean_interval, t_quantile, wilson_interval

__all__ = [
    "AdversaryRow",
    "AdversaryTable",
    "BotStats",
    "Difference",
    "Interval",
    "PolicyBot",
    "RobustnessReport",
    "TournamentResult",
    "as_bot",
    "deal_for_seed",
    "deal_seeds",
    "evaluate",
    "game_seed",
    "load_policy_spec",
    "mean_interval",
    "paired_difference",
    "resolve_bot_specs",
    "robustness",
    "run_tournament",
    "t_quantile",
    "wilson_interval",
]
