"""``make_bot(spec, rules, seed)``: the bot a spec names (see ``hearts_env.bots``)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.rules import Rules
from ..nets.store import find_model, shipped_models
from .base import Bot
from .guard import GUARD_SPEC, guard_bot
from .heuristic import HeuristicBot
from .model import load_bot
from .random_bot import RandomBot
from .roster import ROSTER, roster_spec
from .scripted import SCRIPTED_SPECS, scripted_bot
from .search import SEARCH_SPECS, search_bot

BOT_SPECS = ("random", "heuristic", "pimc", "ismcts", GUARD_SPEC, *SCRIPTED_SPECS)


def make_bot(spec: str | Path | Bot, rules: Rules | str | Path | None = None, seed: int | None = None) -> Bot:
    """The bot ``spec`` names for ``rules`` (a ``Rules``, preset name or rule file; default standard): a roster
    name (``hearts_env.bots.roster``: ``net``, ``strongest``, ...) or a spec of the grammar above."""
    if not isinstance(spec, str | Path):
        if isinstance(spec, Bot):
            return spec
        raise TypeError(f"a bot spec is 'random', 'heuristic' or a bot object with act(), got {spec!r}")
    loaded = Rules.load(rules) if not isinstance(rules, Rules) else rules
    text = str(spec)
    if text in ROSTER:  # a roster name: the spec it seats under these rules
        text = roster_spec(text, loaded)
    if text == "random":
        return RandomBot(seed)
    if text == "heuristic":
        return HeuristicBot(loaded, seed)
    if text.partition(":")[0] in SEARCH_SPECS:  # pimc, pimc:worlds=64,rollout=heuristic, ismcts:iterations=500
        return search_bot(text, loaded, seed)
    if text.partition(":")[0] == GUARD_SPEC:  # guard:base=ppo-robust,worlds=32,points=1
        return guard_bot(text, loaded, seed, make_bot)
    if text.partition(":")[0] in SCRIPTED_SPECS:  # moon, moon:giveup=never,pass=heuristic, duck, queendump, highest
        return scripted_bot(text, loaded, seed)
    if Path(text).suffix or Path(text).exists() or "/" in text or "\\" in text or find_model(text) is not None:
        return load_bot(text, loaded, seed)
    shipped = shipped_models()
    names = f" or the name of a shipped model ({', '.join(shipped)})" if shipped else ""
    raise ValueError(
        f"unknown bot {text!r}; use a roster name ({', '.join(ROSTER)}), a spec ({', '.join(BOT_SPECS)}:...), "
        f"or a model directory: a path such as models/ppo-standard{names}"
    )


def lineup_of(bots: Sequence[Any], num_players: int) -> list[Any]:
    """The seat lineup: ``bots`` with its last entry repeated to fill the table (``heuristic random``
    at a 4-player table is heuristic and three random)."""
    if not bots:
        raise ValueError("a tournament needs at least one bot")
    if len(bots) > num_players:
        raise ValueError(f"{len(bots)} bots for {num_players} seats: give at most one bot per seat")
    return list(bots) + [bots[-1]] * (num_players - len(bots))


def spec_label(spec: Any) -> str:
    """How a bot spec is named in tables: ``heuristic``, a model directory's name, a bot's ``name``; a
    guard's base as its own label (``guard:base=/x/models/ppo-robust`` is ``guard:base=ppo-robust``)."""
    if isinstance(spec, str | Path):
        text = str(spec).rstrip("/")
        if text.partition(":")[0] == GUARD_SPEC:
            return re.sub(r"base=([^,:]+)", lambda m: "base=" + spec_label(m.group(1)), text)
        return Path(text).name if ("/" in text or os.sep in text or Path(text).exists()) else text
    return str(getattr(spec, "name", type(spec).__name__))
