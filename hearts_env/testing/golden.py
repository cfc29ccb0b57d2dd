"""A golden file of the reference heuristic bot's decisions, and its replay through a bot and an engine.

The file (``tests/data/heuristic_golden.npz``) holds situations of many rule sets (every pass kind,
dealer's choice, pass-through, the moon choice, 3 to 8 players), each as the seed of a
``hearts_env.core.deal.seeded_deal`` plus the actions played from its start (half random, half the
heuristic's), together with the situation's observation vector and legal mask and the action
``hearts_env.bots.HeuristicBot`` takes there. Replaying it checks three things:

- ``check_reference_bot``: the bot still takes the recorded action from the recorded observation and
  mask, and the reference engine still reaches that observation and mask from the seed and actions;
- ``check_engine``: a batched engine loaded with the same seeds and actions (``load_seeded``) reaches
  the same observations and masks, and its ``heuristic_actions`` takes the recorded actions.

So a change of the bot's behaviour fails a test (regenerate the file only if the change is meant, and
mirror it in ``hearts_env.batched.heuristic.VectorHeuristic``); a change of its comments or its
code's shape does not. Regenerate with::

    python -m hearts_env.testing.golden tests/data/heuristic_golden.npz

Observations are stored exactly: the nonzero entries as a packed bit plane and the few entries that are
neither 0 nor 1 as (flat index, float32 value) pairs; masks as packed bits.
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..batched.protocols import BatchEngine
from ..bots import HeuristicBot
from ..core.actions import NUM_ACTIONS, NUM_CARDS, mask_array
from ..core.deal import Deal, mask_to_actions, seeded_deal
from ..core.rules import Rules
from ..obs import OBSERVATION_SIZE, encode
from .batched_diff import EngineFactory, default_engine

#: The rule sets of the golden file: (preset, option overrides) for ``Rules.load``.
GOLDEN_RULES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("standard", {}),
    ("omnibus", {}),
    ("spot_hearts", {}),
    ("source_diamond_ten", {}),
    ("pre_black_lady", {}),
    ("three_player_scatter", {}),
    ("three_player_kitty", {}),
    ("five_player_long_cycle", {}),
    ("six_to_eight", {}),
    ("six_to_eight", {"num_players": 7, "allow_pass_through": True}),
    ("six_to_eight", {"num_players": 8, "pass_cycle": ["dealer_choice", "smoosh"]}),
    (
        "standard",
        {
            "pass_cycle": ["dealer_choice", "scatter", "smoosh"],
            "allow_pass_through": True,
            "pass_through_visible": True,
        },
    ),
    ("omnibus", {"moon_mode": "shooter_choice", "sun_enabled": True}),
    ("standard", {"all_hearts_leader_unbroken": "leader_may_void", "pass_cycle": ["hold"]}),
)

DEFAULT_PATH = Path("tests/data/heuristic_golden.npz")


@dataclass
class Golden:
    """The situations of a golden file, decoded: situation ``i`` is ``seeded_deal(rules_list[rules_of[i]],
    seeds[i])`` after ``prefixes[i]``, where the bot sees ``observations[i]`` and ``masks[i]`` and takes
    ``actions[i]``. The rule sets are stored whole (``Rules.to_dict``), so a later edit of a preset
    does not change what the file means; ``labels`` names them as they were made."""

    labels: list[str]
    rules_list: list[Rules]
    rules_of: np.ndarray  # (S,) int
    seeds: np.ndarray  # (S,) int64
    prefixes: list[list[int]]
    observations: np.ndarray  # (S, D) float32
    masks: np.ndarray  # (S, 68) int8
    actions: np.ndarray  # (S,) int64

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def _replay(rules: Rules, seed: int, prefix: list[int]) -> Deal:
    deal = seeded_deal(rules, seed)
    for action in prefix:
        deal.apply_action(action)
    return deal


def _observation(deal: Deal) -> dict[str, np.ndarray]:
    return {"observation": encode(deal, deal.current_player), "action_mask": mask_array(deal.legal_mask())}


def generate(
    per_rules: int = 24, seed: int = 0, rules_specs: tuple[tuple[str, dict[str, Any]], ...] = GOLDEN_RULES
) -> Golden:
    """``per_rules`` situations of each rule set: deals ``seeded_deal(rules, s)`` played through with a
    random legal action or the bot's at each decision (even odds); from each deal, one decision with a
    choice picked at random and, where the deal had one, one special decision (pass-through, dealer's
    choice, moon or void choice). Deterministic for a given ``seed`` and bot."""
    rng = random.Random(seed)
    rules_list = [Rules.load(preset, **overrides) for preset, overrides in rules_specs]
    rules_of, seeds, prefixes, observations, masks, actions = [], [], [], [], [], []
    for k, rules in enumerate(rules_list):
        bot = HeuristicBot(rules)
        count = 0
        while count < per_rules:
            deal_seed = rng.getrandbits(31)
            deal = seeded_deal(rules, deal_seed)
            played: list[int] = []
            choices_at: list[int] = []
            special_at: list[int] = []
            while not deal.is_terminal():
                legal = mask_to_actions(deal.legal_mask())
                if len(legal) > 1:
                    choices_at.append(len(played))
                    if legal[-1] >= NUM_CARDS:
                        special_at.append(len(played))
                action = rng.choice(legal) if rng.random() < 0.5 else bot.act(_observation(deal))
                deal.apply_action(action)
                played.append(action)
            picked = [rng.choice(choices_at)] if choices_at else []
            if special_at:
                picked.append(rng.choice(special_at))
            for t in dict.fromkeys(picked):
                if count == per_rules:
                    break
                situation = _replay(rules, deal_seed, played[:t])
                observation = _observation(situation)
                rules_of.append(k)
                seeds.append(deal_seed)
                prefixes.append(played[:t])
                observations.append(observation["observation"])
                masks.append(observation["action_mask"])
                actions.append(bot.act(observation))
                count += 1
    return Golden(
        labels=[label(preset, overrides) for preset, overrides in rules_specs],
        rules_list=rules_list,
        rules_of=np.array(rules_of, dtype=np.int64),
        seeds=np.array(seeds, dtype=np.int64),
        prefixes=prefixes,
        observations=np.stack(observations).astype(np.float32),
        masks=np.stack(masks).astype(np.int8),
        actions=np.array(actions, dtype=np.int64),
    )


def save(golden: Golden, path: Path | str) -> None:
    """Write ``golden`` as a compressed ``.npz`` (observations as bit planes plus their other values)."""
    obs = golden.observations
    flat = obs.reshape(-1)
    other = np.flatnonzero((flat != 0) & (flat != 1))
    lengths = np.array([len(p) for p in golden.prefixes], dtype=np.int64)
    arrays: dict[str, Any] = {
        "labels": np.array(golden.labels),
        "rules": np.array([json.dumps(rules.to_dict(), sort_keys=True) for rules in golden.rules_list]),
        "rules_of": golden.rules_of.astype(np.int8),
        "seeds": golden.seeds,
        "prefix_lengths": lengths.astype(np.int16),
        "prefix_actions": np.array([a for p in golden.prefixes for a in p], dtype=np.int8),
        "obs_nonzero": np.packbits(obs != 0, axis=1),
        "obs_other_index": other.astype(np.int32),
        "obs_other_value": flat[other].astype(np.float32),
        "masks": np.packbits(golden.masks != 0, axis=1),
        "actions": golden.actions.astype(np.int8),
        "observation_size": np.array(obs.shape[1], dtype=np.int64),
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)
    back = load(path)
    if not (np.array_equal(back.observations, obs) and np.array_equal(back.masks, golden.masks)):
        raise AssertionError(f"{path}: the stored situations do not read back exactly")


def load(path: Path | str) -> Golden:
    """Read a golden file written by ``save``."""
    with np.load(path, allow_pickle=False) as data:
        size = int(data["observation_size"])
        count = data["actions"].shape[0]
        nonzero = np.unpackbits(data["obs_nonzero"], axis=1, count=size).astype(np.float32)
        flat = nonzero.reshape(-1)
        flat[data["obs_other_index"]] = data["obs_other_value"]
        ends = np.cumsum(data["prefix_lengths"].astype(np.int64))
        actions = data["prefix_actions"].astype(np.int64).tolist()
        prefixes = [
            actions[end - length : end] for end, length in zip(ends, data["prefix_lengths"].tolist(), strict=True)
        ]
        return Golden(
            labels=[str(name) for name in data["labels"].tolist()],
            rules_list=[Rules.from_dict(json.loads(text)) for text in data["rules"].tolist()],
            rules_of=data["rules_of"].astype(np.int64),
            seeds=data["seeds"].astype(np.int64),
            prefixes=prefixes,
            observations=flat.reshape(count, size),
            masks=np.unpackbits(data["masks"], axis=1, count=NUM_ACTIONS).astype(np.int8),
            actions=data["actions"].astype(np.int64),
        )


def label(preset: str, overrides: dict[str, Any]) -> str:
    """How a rule set of ``GOLDEN_RULES`` is named in the file and in messages."""
    return preset + "".join(f" {key}={value}" for key, value in sorted(overrides.items()))


def _where(golden: Golden, i: int) -> str:
    name = golden.labels[int(golden.rules_of[i])]
    prefix = golden.prefixes[i]
    return f"situation {i} ({name}, seed {int(golden.seeds[i])}, after {len(prefix)} actions {prefix})"


REGENERATE = (
    "if the bot's new behaviour is meant, mirror it in hearts_env.batched.heuristic.VectorHeuristic and "
    "regenerate: python -m hearts_env.testing.golden"
)


def check_reference_bot(golden: Golden) -> int:
    """Every situation through the reference engine and ``HeuristicBot``: the seed and actions reach the
    recorded observation and mask, and the bot takes the recorded action. Returns the situations checked;
    raises ``AssertionError`` at the first difference."""
    if golden.observations.shape[1] != OBSERVATION_SIZE:
        raise AssertionError(
            f"the golden file's observations have {golden.observations.shape[1]} entries, the encoding "
            f"{OBSERVATION_SIZE}: regenerate it (python -m hearts_env.testing.golden)"
        )
    rules_list = golden.rules_list
    bots = [HeuristicBot(rules) for rules in rules_list]
    for i in range(len(golden)):
        k = int(golden.rules_of[i])
        deal = _replay(rules_list[k], int(golden.seeds[i]), golden.prefixes[i])
        seen = _observation(deal)
        if not np.array_equal(seen["action_mask"], golden.masks[i]):
            raise AssertionError(f"{_where(golden, i)}: the reference engine's legal mask differs from the file's")
        if not np.array_equal(seen["observation"], golden.observations[i]):
            raise AssertionError(f"{_where(golden, i)}: the reference observation differs from the file's")
        chosen = bots[k].act({"observation": golden.observations[i], "action_mask": golden.masks[i]})
        if chosen != int(golden.actions[i]):
            raise AssertionError(
                f"{_where(golden, i)}: HeuristicBot now takes {chosen}, the golden file says {int(golden.actions[i])}; "
                + REGENERATE
            )
    return len(golden)


def check_engine(golden: Golden, engine_factory: EngineFactory = default_engine, device: str = "cpu") -> int:
    """Every situation through a batched engine (one row per situation of a rule set): ``load_seeded``
    with the situation's seed, the recorded actions stepped, then the engine's observation and legal
    mask must be the recorded ones and ``heuristic_actions`` must take the recorded action. Returns the
    situations checked; raises ``AssertionError`` at the first difference."""
    checked = 0
    for k, rules in enumerate(golden.rules_list):
        which = np.flatnonzero(golden.rules_of == k).tolist()
        if not which:
            continue
        engine: BatchEngine = engine_factory(rules, len(which), device, 0)
        engine.load_seeded(range(len(which)), [int(golden.seeds[i]) for i in which])
        lengths = [len(golden.prefixes[i]) for i in which]
        for t in range(max(lengths) + 1):
            mask = engine.legal_mask()
            here = [row for row, length in enumerate(lengths) if length == t]
            if here:
                rows = torch.tensor(here, dtype=torch.int64, device=engine.device)
                obs = engine.observe()[rows].cpu().numpy()
                masks = mask[rows].cpu().numpy().astype(np.int8)
                chosen = engine.heuristic_actions(rows).tolist()
                for j, row in enumerate(here):
                    i = which[row]
                    if not np.array_equal(masks[j], golden.masks[i]):
                        raise AssertionError(f"{_where(golden, i)}: the engine's legal mask differs from the file's")
                    if not np.array_equal(obs[j], golden.observations[i]):
                        raise AssertionError(f"{_where(golden, i)}: the engine's observation differs from the file's")
                    if chosen[j] != int(golden.actions[i]):
                        raise AssertionError(
                            f"{_where(golden, i)}: the engine's heuristic_actions takes {chosen[j]}, the reference "
                            f"HeuristicBot {int(golden.actions[i])}"
                        )
                    checked += 1
            if t == max(lengths):
                break
            first_legal = mask.float().argmax(1)  # rows past their situation play on legally
            step = [golden.prefixes[which[row]][t] if t < lengths[row] else -1 for row in range(len(which))]
            planned = torch.tensor(step, dtype=torch.int64, device=engine.device)
            engine.step(torch.where(planned >= 0, planned, first_legal))
    return checked


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m hearts_env.testing.golden",
        description="Write the golden file of the reference heuristic bot's decisions (and check it reads back).",
    )
    parser.add_argument(
        "path", nargs="?", default=str(DEFAULT_PATH), help=f"where to write it (default {DEFAULT_PATH})"
    )
    parser.add_argument("--per-rules", type=int, default=24, help="situations per rule set")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.per_rules < 1:
        parser.error(f"--per-rules must be at least 1, got {args.per_rules}")
    golden = generate(args.per_rules, args.seed)
    save(golden, args.path)
    check_reference_bot(load(args.path))
    size = Path(args.path).stat().st_size
    print(f"{args.path}: {len(golden)} situations of {len(golden.rules_list)} rule sets, {size:,} bytes")


if __name__ == "__main__":
    main()


__all__ = [
    "DEFAULT_PATH",
    "GOLDEN_RULES",
    "Golden",
    "check_engine",
    "check_reference_bot",
    "generate",
    "label",
    "load",
    "save",
]
