"""Differential harnesses users can run on their own engines and bots (like ``pettingzoo.test``).

Each harness plays an implementation beside the reference one and raises ``AssertionError``
describing the first difference; this project's tests call them, and so can anyone who writes an
engine or a vectorised bot of their own:

- ``check_batched_engine(engine_factory, rules, deals)``: an engine made by ``engine_factory(rules,
  batch_size, device, seed)`` against the reference engine (``hearts_env.Deal``): seats to move, legal
  sets, observations, done flags and scores under random play, and its ``heuristic_actions`` against
  ``HeuristicBot``. ``play_against_reference`` is the same with every knob (``batched_diff``).
- ``ReferenceHeuristicPolicy``: ``hearts_env.bots.HeuristicBot`` row by row as a ``BatchPolicy``: the
  exact answer a vector form of the bot must give.
- ``hearts_env.testing.golden``: a golden file of the bot's decisions (seeds, actions, observations,
  masks), replayed through the reference bot (``check_reference_bot``) and through an engine
  (``check_engine``); ``python -m hearts_env.testing.golden`` regenerates it.

May import: ``hearts_env.batched``, ``hearts_env.bots``, ``hearts_env.envs``, ``hearts_env.obs``,
``hearts_env.core`` (and torch, numpy). Nothing imports it but tests, training and the CLI.
"""

from .batched_diff import DiffReport, check_batched_engine, pass_kinds_of, play_against_reference
from .reference_heuristic import ReferenceHeuristicPolicy

__all__ = [
    "DiffReport",
    "ReferenceHeuristicPolicy",
    "check_batched_engine",
    "pass_kinds_of",
    "play_against_reference",
]
