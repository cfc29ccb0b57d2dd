"""Tournaments: any bots on any rule set over duplicate deals, with 95% confidence intervals.

``seeding`` (the duplicate deals and every seed), ``stats`` (Student-t and Wilson intervals),
``results`` (``TournamentResult``: the table and the JSON) and ``runner`` (``run_tournament``: the
games at one seated table per process, the worker pool). Needs numpy only.

May import: ``hearts_env.core``, ``hearts_env.obs``, ``hearts_env.bots`` and numpy.
"""

from .results import BotStats, Difference, TournamentResult
from .runner import run_tournament
from .seeding import deal_for_seed, deal_seeds, game_seed
from .stats import mean_interval, t_quantile, wilson_interval

__all__ = [
    "BotStats",
    "Difference",
    "TournamentResult",
    "deal_for_seed",
    "deal_seeds",
    "game_seed",
    "mean_interval",
    "run_tournament",
    "t_quantile",
    "wilson_interval",
]
