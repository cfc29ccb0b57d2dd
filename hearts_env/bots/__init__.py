"""Bots: players that act on exactly the observation dict the AEC env gives the seat to move.

One protocol, ``bot.act(observation) -> int``: ``observation`` is ``{"observation": vector,
"action_mask": mask}`` as returned by ``env.last()`` / ``env.observe(agent)``, and the result is a
legal action id. So the same bot object plays in the environment, in the single-seat Gymnasium env,
in tournaments and on the command line. Bots may also have ``reset(seed)``, called at the start of
an episode (the Gymnasium env does, so seeded episodes replay exactly). Every bot here can be
copied (``copy.deepcopy``) and pickled, at any point: the copy chooses exactly as the original
would, random stream included.

``make_bot(spec, rules, seed=None)``, where ``spec`` is a roster name (``hearts_env.bots.roster``: ``random``,
``heuristic``, ``pimc``, ``net``, ``strongest`` and the short names of the shipped guard combinations; ``hearts
bots`` lists them) or a spec of this grammar, for researchers:

- ``"random"``: uniform over the mask (``RandomBot``), seeded.
- ``"heuristic"``: the rule-based yardstick (``HeuristicBot``): reads only the decoded observation.
- ``"pimc"`` / ``"ismcts"``: search over worlds dealt by the belief sampler (``belief``: uniform
  over the deals consistent with the seat's decoded view, nothing else), determinized Monte-Carlo
  (``pimc:worlds=48,rollout=heuristic,weigh=1``, the default) or single-observer information-set MCTS
  (``ismcts:iterations=300``); see ``hearts_env.bots.search``.
- ``"guard"`` (``guard:base=ppo-robust,worlds=32,points=1,penalty=0``): any bot with a moon guard: where
  one opponent holds every point taken so far, a relative-objective PIMC that plays that opponent out
  as a moon seeker decides instead of the base (``hearts_env.bots.guard``); ``penalty=25`` makes it
  moon-averse, ``margin=1,threat=0.03`` keeps the base's move where the search sees nothing at stake.
- ``"moon"`` (``moon:pass=heuristic``, ``moon:giveup=late|never``, ``moon:when=strong``), ``"duck"``,
  ``"queendump"``, ``"highest"``: the scripted adversaries of the exploitability suite
  (``hearts_env.bots.scripted``; ``ADVERSARIES`` maps the suite's labels to their specs).
- an object that already has ``act``: returned as it is.
- an exported model directory: a path (``models/<name>`` or any other), or the bare name of a
  shipped model (``ppo-standard``), played by ``hearts_env.bots.model.load_bot``; a relative
  ``models/<name>`` or ``<name>`` that is not there from the current directory is looked for among
  the shipped models (``hearts_env.nets.store.resolve_model``), so it works from any directory.

May import: ``hearts_env.core``, ``hearts_env.obs`` (bots read decoded observations), ``hearts_env.nets``
(model bots) and numpy.
"""

from .base import Bot, legal_actions
from .guard import (
    BONUS_CRITIC_OPTIONS,
    CRITIC_OPTIONS,
    MOON_AVERSE_PENALTY,
    SHOOTING_OPTIONS,
    TRUSTING_OPTIONS,
    WAITING_OPTIONS,
    GuardedBot,
)
from .heuristic import HeuristicBot
from .make import BOT_SPECS, lineup_of, make_bot, spec_label
from .model import ModelBot, load_bot
from .random_bot import RandomBot
from .roster import DEFAULT_BOT, ROSTER, default_bot_spec, roster_names, roster_spec
from .scripted import ADVERSARIES, DuckBot, HighestBot, MoonSeeker, QueenDumper, ScriptedBot, scripted_bot

__all__ = [
    "ADVERSARIES",
    "BONUS_CRITIC_OPTIONS",
    "BOT_SPECS",
    "CRITIC_OPTIONS",
    "DEFAULT_BOT",
    "MOON_AVERSE_PENALTY",
    "ROSTER",
    "SHOOTING_OPTIONS",
    "TRUSTING_OPTIONS",
    "WAITING_OPTIONS",
    "Bot",
    "DuckBot",
    "GuardedBot",
    "HeuristicBot",
    "HighestBot",
    "ModelBot",
    "MoonSeeker",
    "QueenDumper",
    "RandomBot",
    "ScriptedBot",
    "default_bot_spec",
    "legal_actions",
    "lineup_of",
    "load_bot",
    "make_bot",
    "roster_names",
    "roster_spec",
    "scripted_bot",
    "spec_label",
]
