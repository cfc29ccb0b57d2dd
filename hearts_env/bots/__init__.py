"""Bots: players that act on exactly the observation dict the AEC env gives the seat to move.

One protocol, ``bot.act(observation) -> int``: ``observation`` is ``{"observation": vector,
"action_mask": mask}`` as returned by ``env.last()`` / ``env.observe(agent)``, and the result is a
legal action id. So the same bot object plays in the environment, in the single-seat Gymnasium env,
in tournaments and on the command line. Bots may also have ``reset(seed)``, called at the start of
an episode (the Gymnasium env does, so seeded episodes replay exactly).

``make_bot(spec, rules, seed=None)``:

- ``"random"``: uniform over the mask (``RandomBot``), seeded.
- ``"heuristic"``: the rule-based yardstick (``HeuristicBot``): reads only the decoded observation.
- an object that already has ``act``: returned as it is.
- an exported model directory: a path (``models/<name>`` or any other), or the bare name of a
  shipped model (``ppo-standard``), played by ``hearts_env.policy.load_bot``; a relative
  ``models/<name>`` or ``<name>`` that is not there from the current directory is looked for among
  the shipped models (``hearts_env.policy.resolve_model``), so it works from any directory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..core.rules import Rules
from .heuristic import HeuristicBot
from .random_bot import RandomBot

BOT_SPECS = ("random", "heuristic")


@runtime_checkable
class Bot(Protocol):
    """A player: the legal action it takes for the observation dict of the seat to move."""

    def act(self, observation: Mapping[str, np.ndarray]) -> int: ...


def make_bot(spec: str | Path | Bot, rules: Rules | str | Path | None = None, seed: int | None = None) -> Bot:
    """The bot ``spec`` names for ``rules`` (a ``Rules``, preset name or rule file; default standard)."""
    if not isinstance(spec, str | Path):
        if isinstance(spec, Bot):
            return spec
        raise TypeError(f"a bot spec is 'random', 'heuristic' or a bot object with act(), got {spec!r}")
    loaded = Rules.load(rules) if not isinstance(rules, Rules) else rules
    text = str(spec)
    if text == "random":
        return RandomBot(seed)
    if text == "heuristic":
        return HeuristicBot(loaded, seed)
    from ..policy import find_model, load_bot, shipped_models

    if Path(text).suffix or Path(text).exists() or "/" in text or "\\" in text or find_model(text) is not None:
        return load_bot(text, loaded, seed)
    shipped = shipped_models()
    names = f" or the name of a shipped model ({', '.join(shipped)})" if shipped else ""
    raise ValueError(
        f"unknown bot {text!r}; use {', '.join(BOT_SPECS)}, or a model directory: a path such as "
        f"models/ppo-standard{names}"
    )


def lineup_of(bots: Sequence[Any], num_players: int) -> list[Any]:
    """The seat lineup: ``bots`` with its last entry repeated to fill the table (``heuristic random``
    at a 4-player table is heuristic and three random)."""
    if not bots:
        raise ValueError("a tournament needs at least one bot")
    if len(bots) > num_players:
        raise ValueError(f"{len(bots)} bots for {num_players} seats: give at most one bot per seat")
    return list(bots) + [bots[-1]] * (num_players - len(bots))


def legal_actions(observation: Mapping[str, Any]) -> list[int]:
    """The legal action ids of an observation dict."""
    return np.flatnonzero(observation["action_mask"]).tolist()


__all__ = ["BOT_SPECS", "Bot", "HeuristicBot", "RandomBot", "legal_actions", "lineup_of", "make_bot"]
