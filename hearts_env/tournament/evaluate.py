"""Evaluate any policy against the standard opponents, over duplicate deals, by one protocol.

```python
from hearts_env.tournament.evaluate import evaluate

result = evaluate(model)                     # an SB3 model, a Bot, a callable, anything with act
print(result.table())                        # points per deal with 95% intervals, and the differences
result.to_dict()                             # the same for machines
```

What it accepts (``as_bot`` wraps it into the ``Bot`` protocol, ``act(obs_dict) -> int``):

- a ``Bot`` (anything with ``act(observation_dict)``), e.g. ``make_bot("models/ppo-standard")``;
- a plain callable ``policy(obs_dict) -> action`` or ``policy(obs, mask) -> action`` (``obs`` the
  2,577-float vector, ``mask`` the 68 ``int8`` legal flags), told apart by how many arguments it takes;
- a Stable-Baselines3 model (anything with ``predict``): ``model.predict(obs, action_masks=mask,
  deterministic=True)`` (sb3-contrib's ``MaskablePPO``), else ``model.predict(obs, deterministic=True)``;
- a spec string: ``"heuristic"``, ``"random"``, a model directory, or ``"package.module:function"``
  (``load_policy_spec``: the user's callable, imported by name).

The mask is respected: an action outside the legal set raises ``IllegalActionError`` naming the
policy, the action and the legal actions (it is never silently replaced).

Benchmark protocol (how results of this package are reported)
-------------------------------------------------------------
- Opponents: the **standard opponents** are three ``heuristic`` bots (the rule-based yardstick,
  ``hearts_env.bots.HeuristicBot``); report ``random`` opponents as a second table when useful.
  At an N-player table the policy takes one seat and N - 1 opponents the others.
- Deals: **duplicate deals**, 1,000 duplicate sets by default (``deals=1000``), seed 0
  (``seed=0``): set ``i`` is one deal (``seeded_deal(rules, s_i)``, ``s_i`` drawn from the seed),
  played N times with the lineup rotated one seat each time, so the policy holds every hand of the
  deal from every seat, with the same pass. Episodes are single deals (``matches=False``).
- Statistic: points per deal (lower is better); each set's sample is the mean over its rotations;
  the 95% interval is Student-t over the set samples (mean ± t(0.975, D - 1) · sd / sqrt(D)). The
  difference of the opponents minus the policy is paired over the sets (``result.differences``;
  positive: the policy takes fewer points than the heuristic bot in its seat would).
- The table to report: ``result.table()`` as printed (rule set, sets, games, every bot's points per
  deal with its interval, the paired difference), with the rule set name, the number of deals and the
  seed; ``hearts tournament my_pkg.policies:policy heuristic --deals 1000 --seed 0`` prints the same.
- Rule sets: ``standard`` always; other presets as named.

Needs numpy only (an SB3 model is called, never imported).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..bots import Bot, make_bot
from ..bots.search import SEARCH_SPECS
from ..core import Rules
from ..core.actions import NUM_ACTIONS, action_name
from ..core.errors import IllegalActionError
from .results import TournamentResult
from .runner import run_tournament

STANDARD_OPPONENTS = "heuristic"
STANDARD_DEALS = 1000
_POLICY_SPEC = re.compile(r"^(?P<module>[A-Za-z_][\w.]*|[^:]+\.py):(?P<attr>[A-Za-z_][\w.]*)$")


class PolicyBot:
    """A policy of any of the accepted kinds as a ``Bot``: ``act(obs_dict) -> int``, legal or raising."""

    def __init__(self, policy: Any, name: str | None = None, *, deterministic: bool = True) -> None:
        self.policy = policy
        self.deterministic = deterministic
        self.name = name or _name_of(policy)
        self._call = self._caller(policy)

    def _caller(self, policy: Any) -> Callable[[Mapping[str, np.ndarray]], Any]:
        predict = getattr(policy, "predict", None)
        if callable(predict) and not hasattr(policy, "act"):
            masked = _accepts(predict, "action_masks")

            def sb3(observation: Mapping[str, np.ndarray]) -> Any:
                obs = observation["observation"]
                if masked:
                    mask = np.asarray(observation["action_mask"]).astype(bool)
                    action, _ = predict(obs, action_masks=mask, deterministic=self.deterministic)
                else:
                    action, _ = predict(obs, deterministic=self.deterministic)
                return action

            return sb3
        forward_inference = getattr(policy, "forward_inference", None)
        if callable(forward_inference) and callable(getattr(policy, "parameters", None)):
            return self._rllib_caller(policy, forward_inference)
        act = getattr(policy, "act", None)
        if callable(act):
            return act
        if callable(policy):
            if _positional_count(policy) >= 2:
                return lambda observation: policy(observation["observation"], observation["action_mask"])
            return policy
        raise TypeError(
            f"cannot evaluate {policy!r}: give a Bot (act), a callable obs_dict -> action or (obs, mask) -> action, "
            "an SB3 model (predict), an RLlib RLModule (forward_inference) or a spec string"
        )

    @staticmethod
    def _rllib_caller(module: Any, forward_inference: Callable[..., Any]) -> Callable[[Mapping[str, np.ndarray]], Any]:
        """An RLlib ``RLModule`` (new API stack) on one observation, greedy: its ``action_dist_inputs``'
        argmax over the legal actions. The observation is given as ``hearts_env.envs.rllib`` gives it
        (``{"observations", "action_mask"}``); tensors are made with the module's own parameters'
        ``new_tensor``, so no RL library is imported here."""
        param = next(iter(module.parameters()), None)
        if param is None:
            raise TypeError(f"cannot evaluate {module!r}: an RLlib module without parameters")

        def rllib(observation: Mapping[str, np.ndarray]) -> Any:
            mask = np.asarray(observation["action_mask"]).astype(bool)
            obs = {
                "observations": param.new_tensor(np.asarray(observation["observation"], dtype=np.float32))[None],
                "action_mask": param.new_tensor(mask.astype(np.float32))[None],
            }
            logits = forward_inference({"obs": obs})["action_dist_inputs"]
            values = np.asarray(logits.detach().cpu().numpy(), dtype=np.float64)[0]
            return int(np.argmax(np.where(mask, values, -np.inf)))

        return rllib

    def reset(self, seed: int | None = None) -> None:
        reset = getattr(self.policy, "reset", None)
        if callable(reset) and hasattr(self.policy, "act"):
            reset(seed)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        raw = self._call(observation)
        mask = observation["action_mask"]
        action = _as_int(raw)
        if action is None or not (0 <= action < NUM_ACTIONS) or not mask[action]:
            legal = np.flatnonzero(mask).tolist()
            what = action_name(action) if action is not None and 0 <= action < NUM_ACTIONS else "not an action id"
            raise IllegalActionError(
                f"policy {self.name} chose {raw!r} ({what}), not a legal action; legal: "
                + " ".join(f"{a} ({action_name(a)})" for a in legal),
                -1 if action is None else action,
                legal,
            )
        return action


def _as_int(raw: Any) -> int | None:
    """An action id from an int, a numpy integer, or a one-element integer array (SB3's ``predict``)."""
    if isinstance(raw, bool | np.bool_):
        return None
    if isinstance(raw, int | np.integer):
        return int(raw)
    if isinstance(raw, np.ndarray) and raw.size == 1 and raw.dtype.kind in "iu":
        return int(raw.reshape(-1)[0])
    return None


def _accepts(fn: Callable[..., Any], keyword: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return keyword in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _positional_count(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return 2
    return sum(1 for p in params if p.kind in kinds and p.default is inspect.Parameter.empty)


def _name_of(policy: Any) -> str:
    name = getattr(policy, "name", None)
    if isinstance(name, str) and name:
        return name
    return str(getattr(policy, "__name__", None) or type(policy).__name__)


def is_policy_spec(text: str) -> bool:
    """``"package.module:function"`` (or ``"path/to/file.py:function"``), not a bot spec such as
    ``pimc:worlds=64``."""
    match = _POLICY_SPEC.match(text)
    return bool(match) and match.group("module") not in SEARCH_SPECS  # type: ignore[union-attr]


def _import_from_here(module_name: str) -> Any:
    """``importlib.import_module``, looking in the current directory as well (as ``python -m`` would): the
    ``hearts`` command's own ``sys.path`` does not hold it, and a user's ``mypol:fn`` lives there."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        here = str(Path.cwd())
        top = module_name.partition(".")[0]
        if err.name != top or here in sys.path or not (Path(top + ".py").is_file() or Path(top).is_dir()):
            raise
        sys.path.insert(0, here)
        try:
            return importlib.import_module(module_name)
        finally:
            sys.path.remove(here)


def load_policy_spec(spec: str) -> Any:
    """The object ``"package.module:function"`` names (attributes may be dotted: ``"pkg.mod:Class.policy"``),
    or ``"path/to/file.py:function"``, from the current directory too. The one place this package imports user
    code by name: only for a spec the user gave. Raises ``ValueError`` naming what is wrong."""
    match = _POLICY_SPEC.match(spec)
    if not match or match.group("module") in SEARCH_SPECS:
        raise ValueError(f"policy spec {spec!r}: expected 'package.module:function' or 'file.py:function'")
    module_name, attr = match.group("module"), match.group("attr")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise ValueError(f"policy spec {spec!r}: no file {module_name}")
            loader_spec = importlib.util.spec_from_file_location(f"hearts_policy_{path.stem}", path)
            if loader_spec is None or loader_spec.loader is None:
                raise ValueError(f"policy spec {spec!r}: cannot import {module_name}")
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[loader_spec.name] = module
            loader_spec.loader.exec_module(module)
        else:
            module = _import_from_here(module_name)
    except ImportError as err:
        raise ValueError(f"policy spec {spec!r}: cannot import {module_name}: {err}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"policy spec {spec!r}: {module_name} has no attribute {attr}")
        obj = getattr(obj, part)
    if not (callable(obj) or hasattr(obj, "act") or hasattr(obj, "predict")):
        raise ValueError(f"policy spec {spec!r}: {attr} is not a callable, a Bot or a model")
    return obj


def as_bot(policy: Any, rules: Rules | str | Path | None = None, name: str | None = None) -> Bot:
    """``policy`` (see the module docstring) as a ``Bot``. Spec strings: ``module:function`` is imported
    (``load_policy_spec``), any other goes to ``make_bot``."""
    if isinstance(policy, str | Path):
        text = str(policy)
        if is_policy_spec(text):
            return PolicyBot(load_policy_spec(text), name=name or text)
        return make_bot(text, rules)
    return PolicyBot(policy, name=name)


def resolve_bot_specs(specs: Sequence[Any], rules: Rules | str | Path | None = None) -> list[Any]:
    """``hearts tournament``'s bot arguments with every ``module:function`` replaced by its ``PolicyBot``
    (the other specs unchanged, so they still run in worker processes when no policy is given)."""
    return [as_bot(s, rules) if isinstance(s, str) and is_policy_spec(s) else s for s in specs]


def evaluate(
    policy: Any,
    rules: Rules | str | Path | None = "standard",
    opponents: Any = STANDARD_OPPONENTS,
    deals: int = STANDARD_DEALS,
    seed: int = 0,
    *,
    name: str | None = None,
    progress: bool = False,
    matches: bool = False,
) -> TournamentResult:
    """Play ``policy`` in one seat against ``opponents`` (one spec or bot for every other seat, or a list
    of them) over ``deals`` duplicate sets, by the protocol of the module docstring; the
    ``TournamentResult`` (``table()``, ``to_dict()``, ``bots[0]`` is the policy)."""
    loaded = Rules.load(rules) if not isinstance(rules, Rules) else rules
    bot = as_bot(policy, loaded, name)
    n = loaded.num_players
    others = list(opponents) if isinstance(opponents, list | tuple) else [opponents] * (n - 1)
    if len(others) != n - 1:
        raise ValueError(f"opponents: give one for all, or {n - 1} (one per other seat), got {len(others)}")
    return run_tournament([bot, *others], loaded, deals=deals, seed=seed, progress=progress, matches=matches)


__all__ = [
    "STANDARD_DEALS",
    "STANDARD_OPPONENTS",
    "PolicyBot",
    "as_bot",
    "evaluate",
    "is_policy_spec",
    "load_policy_spec",
    "resolve_bot_specs",
]
