"""The model store: find an exported model (``models/<name>`` or a shipped name) and load it safely.

A model directory (written by ``training.export.export_model``) holds:

- ``weights.npz``: one float32 array per network parameter, named as in the torch ``state_dict``,
  written by numpy and read by ``weights.read_weights``, which trusts nothing in it: every member,
  header and size is checked against the network config before its data is read, and loading
  never runs code (no pickles).
- ``model.json``: the model card: format, name, rules, encoding version, ``obs_dim``, the network
  config (``kind`` and shapes), the parameter count, the weights' byte size and sha256, training
  decisions and time, evaluation results, the git commit it was trained at.
- ``README.md``: the same card as text.

``load_policy(path, rules)`` refuses (``ModelError``, naming what mismatched) a model whose card is
oversized or holds absurd numbers (every config number is bounded before anything is allocated),
whose weights are truncated, corrupt, altered (sha256) or larger than its arrays can be, whose
arrays do not match its network config, whose outputs are not finite (a forward pass on a zero and
on a real observation), whose
encoding version, observation size or number of actions differ from the current encoding's (or
its card contradicts its network config), or whose rules differ from the rules it is asked to
play in an option that changes the observation or the play (``rules_difference``: who deals
first, ``first_dealer``, does not count, nor an option neither rule set uses). ``load_bot(path,
rules, seed)`` wraps the policy in the bot protocol (``act(observation) -> int``) that
``make_bot("models/<name>")`` returns.

A model is named by its directory. ``resolve_model`` (used by ``load_policy``, so by ``make_bot``,
the Gymnasium env's ``opponents`` and the tournaments) tries the path as given, then, for a
relative ``models/<name>`` or a bare ``<name>``, the shipped model ``SHIPPED_MODELS_DIR/<name>``
(the ``models/`` directory next to the package), so ``models/ppo-standard`` works from any
directory; when neither is a model, ``ModelError`` lists where it looked.

The forward pass here is the reference for ``training.network``: both build their parameter
shapes from ``parameter_shapes(config)``, and the tests hold the two outputs equal.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..core.actions import NUM_ACTIONS
from ..core.cards import NUM_CARDS
from ..core.deal import seeded_deal
from ..core.errors import RulesError
from ..core.rules import Rules
from ..obs.reference import encode
from ..obs.spec import ENCODING_VERSION, OBSERVATION_SIZE
from .forward import NumpyPolicy
from .spec import CARD_FILE, MODEL_FORMAT, WEIGHTS_FILE, ModelError, parameter_shapes, params_problem, validate_config
from .weights import max_weights_bytes, read_weights


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def current_encoding() -> tuple[int, int]:
    """``(ENCODING_VERSION, OBSERVATION_SIZE)`` of this hearts_env's observation encoding."""
    return int(ENCODING_VERSION), int(OBSERVATION_SIZE)


def effective_rules(rules: Rules) -> dict[str, Any]:
    """``rules.to_dict()`` with the ``auto``/``total`` shorthands resolved, so two spellings of the
    same game (``Rules()`` and the ``standard`` preset) compare equal."""
    out = rules.to_dict()
    tables = rules.tables
    out["pass_cycle"] = list(tables.pass_cycle)
    out["moon_value"] = int(tables.moon_value)
    out["removed_cards"] = sorted(c for c in range(NUM_CARDS) if tables.removed_mask >> c & 1)
    return out


#: Options that never change the observation or the play of a seat: who deals the first deal of a
#: match (``first_dealer``; the dealer of every deal is in the observation, and the cards, the
#: legal moves and the scoring do not depend on who was first).
IGNORED_OPTIONS = frozenset({"first_dealer"})


def _dead_options(rules: Rules) -> set[str]:
    """Options that have no effect under ``rules`` and are left out of the observation (the
    encoding's ``rule_features`` writes them only when they apply): the kitty's taker without a
    kitty, the bonus card's points without a bonus card, the pass count without passing."""
    dead = set()
    if rules.tables.kitty_size == 0:
        dead.add("kitty_taker")
    if rules.bonus_card == "none":
        dead.add("bonus_card_points")
    if not rules.passing_enabled:
        dead.add("pass_count")
    return dead


def rules_difference(model_rules: Rules, asked: Rules) -> list[str]:
    """``option: model X, asked Y`` for every option in which the two rule sets differ in a way that
    matters to a model: options in ``IGNORED_OPTIONS`` and options neither rule set uses (a kitty
    taker with no kitty in either, a bonus card's points with no bonus card in either, a pass count
    with passing off in both) do not count; every option the observation vector or the play
    depends on does."""
    a, b = effective_rules(model_rules), effective_rules(asked)
    skip = IGNORED_OPTIONS | (_dead_options(model_rules) & _dead_options(asked))
    return [f"{k}: model {a[k]!r}, asked {b[k]!r}" for k in a if k not in skip and a[k] != b.get(k)]


#: The models shipped with hearts_env: package data at ``hearts_env/_models`` (in a checkout a link
#: to the repository's ``models/``, so an editable install and a wheel find the same models).
SHIPPED_MODELS_DIR = (Path(__file__).resolve().parent.parent / "_models").resolve()


def shipped_models() -> list[str]:
    """The names of the model directories in ``SHIPPED_MODELS_DIR`` (none when it does not exist)."""
    if not SHIPPED_MODELS_DIR.is_dir():
        return []
    return sorted(p.name for p in SHIPPED_MODELS_DIR.iterdir() if is_model_dir(p))


def user_models_dir() -> Path:
    """The user's own models folder, where ``hearts export`` and ``hearts train --export-name`` write:
    ``$HEARTS_MODELS_DIR``, else ``$XDG_DATA_HOME/hearts-env/models`` (``~/.local/share/hearts-env/models``),
    never the checkout's shipped ``models/``."""
    env = os.environ.get("HEARTS_MODELS_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "hearts-env" / "models"


def model_candidates(spec: str | Path) -> list[Path]:
    """Where the model ``spec`` names is looked for, in order: the path as given (relative to the
    current directory), then, for a relative ``models/<name>`` or a bare ``<name>``,
    ``SHIPPED_MODELS_DIR / <name>`` and the user's ``user_models_dir() / <name>`` (a shipped name wins)."""
    path = Path(spec).expanduser()
    out = [path]
    parts = path.parts
    if not path.is_absolute() and (len(parts) == 1 or (len(parts) == 2 and parts[0] == "models")):
        name = parts[-1]
        if name not in (".", ".."):
            for folder in (SHIPPED_MODELS_DIR, user_models_dir()):
                candidate = folder / name
                if candidate.resolve() != path.resolve():
                    out.append(candidate)
    return out


def find_model(spec: str | Path) -> Path | None:
    """The model directory ``spec`` names (see ``model_candidates``), or ``None``."""
    return next((p for p in model_candidates(spec) if is_model_dir(p)), None)


def resolve_model(spec: str | Path) -> Path:
    """The model directory ``spec`` names: the path itself when it is one, else for
    ``models/<name>`` or ``<name>`` the shipped model of that name, so a model path works from any
    directory. ``ModelError`` says where it looked."""
    found = find_model(spec)
    if found is not None:
        return found
    candidates = model_candidates(spec)
    if len(candidates) == 1:
        read_model_card(candidates[0])  # raises, saying why
    looked = "; ".join(f"{p.resolve()} ({_why_not_model(p)})" for p in candidates)
    shipped = shipped_models()
    known = f"; shipped models: {', '.join(shipped)}" if shipped else ""
    raise ModelError(spec, f"not a model directory: looked for {CARD_FILE} in {looked}{known}")


def _why_not_model(path: Path) -> str:
    if not path.is_dir():
        return "does not exist" if not path.exists() else "not a directory"
    return f"no {CARD_FILE}"


#: The largest ``model.json`` read (the shipped ones are about 6 kB).
MAX_CARD_BYTES = 1 << 20
_MAX_CARD_INT_DIGITS = 30


def _card_int(text: str) -> int:
    """A JSON integer of the model card; a huge one (thousands of digits) is refused as a ``ValueError``."""
    if len(text.lstrip("-")) > _MAX_CARD_INT_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits (at most {_MAX_CARD_INT_DIGITS})")
    return int(text)


def _no_constant(text: str) -> float:
    raise ValueError(f"{text} is not JSON")


def read_model_card(path: str | Path) -> dict[str, Any]:
    """The parsed ``model.json`` of a model directory, unchecked (``ModelError`` if unreadable)."""
    path = Path(path)
    card_path = path / CARD_FILE
    if not path.is_dir():
        raise ModelError(
            path, f"not a model directory ({path.resolve()} {_why_not_model(path)}; a model is a directory)"
        )
    if not card_path.is_file():
        raise ModelError(path, f"not a model directory: it has no {CARD_FILE} ({card_path.resolve()})")
    try:
        with open(card_path, "rb") as f:
            raw = f.read(MAX_CARD_BYTES + 1)  # bounded, whatever the file's size
        if len(raw) > MAX_CARD_BYTES:
            raise ModelError(path, f"{CARD_FILE} is larger than {MAX_CARD_BYTES} bytes; a model card is a few kB")
        card = json.loads(raw.decode("utf-8"), parse_int=_card_int, parse_constant=_no_constant)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
        if isinstance(err, ModelError):
            raise
        raise ModelError(path, f"{CARD_FILE} is unreadable: {err}") from None
    if not isinstance(card, dict):
        raise ModelError(path, f"{CARD_FILE} must hold a JSON object")
    return card


def _model_rules(path: Path, card: Mapping[str, Any]) -> list[Rules]:
    raw = card.get("rules")
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for item in items:
        if not isinstance(item, dict):
            raise ModelError(path, f"the model card's rules must be a rule dict (or a list of them), got {item!r}")
        try:
            out.append(Rules.from_dict(item))
        except (RulesError, TypeError, ValueError) as err:
            raise ModelError(path, f"the model card's rules are not a valid rule set here: {err}") from None
    if not out:
        raise ModelError(path, "the model card's rules are an empty list; it needs the rules it was trained for")
    return out


def load_policy(
    path: str | Path,
    rules: Rules | str | Path | None = None,
    *,
    encoding_version: int | None = None,
    obs_dim: int | None = None,
) -> NumpyPolicy:
    """Load and check the model at ``path``; ``ModelError`` says why one cannot be played.

    ``rules`` (a ``Rules``, preset name or rule file) are the rules it is asked to play; ``None``
    skips that check (it plays the rules on its card). ``encoding_version`` and ``obs_dim`` default
    to the current encoding's; pass them only to check a model of a synthetic encoding (tests).
    ``path`` is resolved by ``resolve_model``: ``models/<name>`` and ``<name>`` also find the
    shipped model from outside the repository."""
    path = resolve_model(path)
    card = read_model_card(path)
    if card.get("format") != MODEL_FORMAT:
        raise ModelError(path, f"unknown model format {card.get('format')!r}; this hearts_env reads {MODEL_FORMAT!r}")
    try:
        config = validate_config(card.get("network"))  # type: ignore[arg-type]  # it checks the type
    except ValueError as err:
        raise ModelError(path, f"invalid network config: {err}") from None
    if card.get("num_actions") != config["num_actions"]:
        raise ModelError(
            path,
            f"num_actions mismatch inside the model card: num_actions={card.get('num_actions')!r}, "
            f"network num_actions={config['num_actions']}",
        )
    if config["num_actions"] != NUM_ACTIONS:
        raise ModelError(
            path, f"action space mismatch: the model has {config['num_actions']} actions, hearts_env has {NUM_ACTIONS}"
        )

    # The encoding it was trained on must be the one this hearts_env produces.
    if encoding_version is None or obs_dim is None:
        current_version, current_size = current_encoding()
        encoding_version = current_version if encoding_version is None else encoding_version
        obs_dim = current_size if obs_dim is None else obs_dim
    model_version = card.get("encoding_version")
    if model_version != encoding_version:
        raise ModelError(
            path,
            f"encoding version mismatch: the model was trained on observation encoding version {model_version!r}, "
            f"this hearts_env encodes version {encoding_version}; "
            f"retrain or re-export it for version {encoding_version}",
        )
    if card.get("obs_dim") != config["obs_dim"]:
        raise ModelError(
            path,
            f"obs_dim mismatch inside the model card: obs_dim={card.get('obs_dim')!r}, "
            f"network obs_dim={config['obs_dim']}",
        )
    if config["obs_dim"] != obs_dim:
        raise ModelError(
            path,
            f"observation size mismatch: the model expects obs_dim={config['obs_dim']}, "
            f"encoding version {encoding_version} produces {obs_dim}",
        )

    # The rules it is asked to play must be (one of) the rules it was trained for.
    model_rules = _model_rules(path, card)
    if rules is not None:
        asked = Rules.load(rules)
        diffs = [rules_difference(r, asked) for r in model_rules]
        if all(diffs):
            closest = min(diffs, key=len)
            raise ModelError(path, "rules mismatch: the model was trained for other rules: " + "; ".join(closest))

    # The weights: size, hash, then the arrays themselves.
    weights_name = card.get("weights_file", WEIGHTS_FILE)
    if not isinstance(weights_name, str) or Path(weights_name).name != weights_name:
        raise ModelError(path, f"weights_file must be a plain file name, got {weights_name!r}")
    weights_path = path / weights_name
    if not weights_path.is_file():
        raise ModelError(path, f"the weights file {weights_name} is missing")
    shapes = parameter_shapes(config)
    size = weights_path.stat().st_size
    if size > max_weights_bytes(shapes):
        raise ModelError(
            path,
            f"{weights_name} has {size} bytes, more than the {max_weights_bytes(shapes)} the network config's "
            "arrays can take",
        )
    if size != card.get("weights_bytes"):
        raise ModelError(
            path,
            f"{weights_name} is truncated or altered: it has {size} bytes, "
            f"the model card records {card.get('weights_bytes')!r}",
        )
    digest = sha256_file(weights_path)
    if digest != card.get("weights_sha256"):
        raise ModelError(
            path,
            f"{weights_name} sha256 mismatch: the model card records {card.get('weights_sha256')!r}, "
            f"the file hashes to {digest!r} (the file was modified or corrupted)",
        )
    params = read_weights(path, weights_path, shapes)
    problem = params_problem(config, params)
    if problem is not None:
        raise ModelError(path, f"{weights_name} does not match the network config: {problem}")
    policy = NumpyPolicy(config, params, card)
    _check_outputs(path, weights_name, policy, model_rules[0])
    return policy


def _check_outputs(path: Path, weights_name: str, policy: NumpyPolicy, rules: Rules) -> None:
    """Refuse a network whose outputs are not finite (finite but huge weights overflow float32):
    on a zero observation and on a real one (the first decision of a deal of its rules; a fixed
    0/1 pattern for a synthetic encoding of another size)."""
    zero = np.zeros(policy.obs_dim, np.float32)
    if policy.obs_dim == OBSERVATION_SIZE:
        deal = seeded_deal(rules, 0)
        real = encode(deal, deal.current_player)
    else:
        real = (np.arange(policy.obs_dim) % 3 == 0).astype(np.float32)
    with np.errstate(all="ignore"):
        for label, obs in (("a zero observation", zero), ("a real observation", real)):
            logits, value = policy.forward(obs)
            if not (np.isfinite(logits).all() and np.isfinite(value)):
                raise ModelError(
                    path,
                    f"{weights_name} gives non-finite outputs (logits or value) on {label}: "
                    "its weights overflow float32",
                )


def is_model_dir(path: str | Path) -> bool:
    """Whether ``path`` itself looks like an exported model directory (it has a ``model.json``);
    ``find_model`` also looks among the shipped models."""
    return (Path(path).expanduser() / CARD_FILE).is_file()
