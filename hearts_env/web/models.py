"""The web table's bots with one loaded copy of each network for every game (``SharedModels``).

An exported model is numpy arrays that playing only reads (``hearts_env.nets.forward.NumpyPolicy``),
so every game's model bots, guards over a model and searches with a model prior can play the same
loaded copy from any thread; each bot keeps its own random state.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import OrderedDict
from typing import Any

from ..bots.guard import GUARD_SPEC, guard_bot
from ..bots.make import make_bot
from ..bots.model import ModelBot
from ..bots.roster import ROSTER, roster_spec
from ..bots.search import PIMCBot
from ..core import Rules
from ..nets.forward import NumpyPolicy
from ..nets.store import find_model, load_policy

_PRIOR = re.compile(r"pimc:prior=([^,:=]+)")
_NOT_MODELS = frozenset({"random", "heuristic", "pimc", "ismcts"})


class SharedModels:
    """Loaded networks, shared (thread-safe). A model is loaded and checked against the rules it is asked
    to play once per rules (the last ``max_rules`` pairs are remembered); loads of the same weights for
    other rules give the copy already loaded, kept while any bot or pair holds it."""

    def __init__(self, max_rules: int = 64) -> None:
        self.max_rules = max_rules
        self._lock = threading.Lock()
        self._checked: OrderedDict[tuple[str, Rules], NumpyPolicy] = OrderedDict()
        self._by_weights: weakref.WeakValueDictionary[str, NumpyPolicy] = weakref.WeakValueDictionary()
        self.loads = 0  # networks read from disk

    def policy(self, model: str, rules: Rules) -> NumpyPolicy:
        """The network of ``model`` (a shipped model's name or a model directory) checked for ``rules``."""
        key = (model, rules)
        with self._lock:  # held while loading: the same model asked for by two games at once loads once
            policy = self._checked.get(key)
            if policy is None:
                loaded = load_policy(model, rules)
                self.loads += 1
                # the same weights under the same card: one copy (another name keeps its own card, and so its name)
                weights = f"{loaded.card.get('weights_sha256') or id(loaded)}/{loaded.card.get('name', model)}"
                policy = self._by_weights.setdefault(weights, loaded)
                self._checked[key] = policy
                while len(self._checked) > self.max_rules:
                    self._checked.popitem(last=False)
            self._checked.move_to_end(key)
            return policy

    def bot(self, spec: str, rules: Rules, seed: int | None) -> Any:
        """The bot ``spec`` names, as ``make_bot`` builds it, with its networks shared: a model, a guard over
        a model, the search with a model as its prior. Any other spec is ``make_bot``'s own."""
        if spec in ROSTER:  # a roster name: its spec for these rules, so its network is shared too
            spec = roster_spec(spec, rules)
        kind = spec.partition(":")[0]
        if kind == GUARD_SPEC:
            return guard_bot(spec, rules, seed, self.bot)
        prior = _PRIOR.fullmatch(spec)
        if prior is not None:
            search = PIMCBot(rules, seed)
            search.prior = ModelBot(self.policy(prior[1], rules), seed)
            return search
        if ":" not in spec and spec not in _NOT_MODELS and find_model(spec) is not None:
            return ModelBot(self.policy(spec, rules), seed)
        return make_bot(spec, rules, seed)
