"""Play an exported model with numpy only: load ``models/<name>/``, check it, run its forward pass.

A model directory (written by ``training.export.export_model``) holds:

- ``weights.npz``: one float32 array per network parameter, named as in the torch ``state_dict``,
  written by numpy and read with ``np.load(..., allow_pickle=False)``: loading never runs code.
- ``model.json``: the model card: format, name, rules, encoding version, ``obs_dim``, the network
  config (``kind`` and shapes), the parameter count, the weights' byte size and sha256, training
  decisions and time, evaluation results, the git commit it was trained at.
- ``README.md``: the same card as text.

``load_policy(path, rules)`` refuses (``ModelError``, naming what mismatched) a model whose weights
are truncated, corrupt or altered (sha256), whose arrays do not match its network config, whose
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
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .core.actions import NUM_ACTIONS
from .core.cards import NUM_CARDS
from .core.errors import HeartsError, RulesError
from .core.rules import Rules

MODEL_FORMAT = "hearts_env.model/1"
WEIGHTS_FILE = "weights.npz"
CARD_FILE = "model.json"
README_FILE = "README.md"
NETWORK_KINDS = ("mlp", "cardset")
ACTIVATIONS = ("relu", "tanh")
#: What a masked (illegal) logit becomes: far below any real logit, yet finite in float32 so
#: ``softmax`` and ``logit - logsumexp`` never produce NaN.
MASK_VALUE = -1e9


class ModelError(HeartsError, ValueError):
    """An exported model that cannot be played here; ``reason`` says what mismatched."""

    def __init__(self, path: str | Path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"model {self.path}: {reason}")


# ---------------------------------------------------------------------------------------------
# Network configs and parameter shapes: the single definition both torch and numpy follow
# ---------------------------------------------------------------------------------------------


def _int_list(config: Mapping[str, Any], key: str, *, min_len: int = 0) -> list[int]:
    value = config.get(key)
    if not isinstance(value, list | tuple) or len(value) < min_len:
        raise ValueError(f"network config {key!r} must be a list of at least {min_len} integers, got {value!r}")
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v <= 0:
            raise ValueError(f"network config {key!r} must hold positive integers, got {value!r}")
        out.append(int(v))
    return out


def _positive_int(config: Mapping[str, Any], key: str) -> int:
    value = config.get(key)
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value <= 0:
        raise ValueError(f"network config {key!r} must be a positive integer, got {value!r}")
    return int(value)


def validate_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """A checked, JSON-ready copy of a network config; ``ValueError`` names the bad entry.

    ``mlp``: ``obs_dim``, ``num_actions``, ``hidden`` (layer widths), ``activation``.
    ``cardset``: the same plus ``card_planes`` (start offsets of the 52-entry card planes in the
    observation), ``global_ranges`` (``[start, stop)`` ranges of the other entries), ``card_dim``
    and ``card_layers`` (the per-card embedding width and its number of set layers).
    """
    if not isinstance(config, Mapping):
        raise ValueError(f"a network config is a mapping, got {type(config).__name__}")
    kind = config.get("kind")
    if kind not in NETWORK_KINDS:
        raise ValueError(f"network config 'kind' must be one of {', '.join(NETWORK_KINDS)}, got {kind!r}")
    out: dict[str, Any] = {"kind": kind}
    out["obs_dim"] = _positive_int(config, "obs_dim")
    out["num_actions"] = _positive_int(config, "num_actions")
    out["hidden"] = _int_list(config, "hidden", min_len=1)
    activation = config.get("activation", "relu")
    if activation not in ACTIVATIONS:
        raise ValueError(f"network config 'activation' must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    out["activation"] = activation
    if kind == "cardset":
        if out["num_actions"] < NUM_CARDS:
            raise ValueError(f"a cardset network needs num_actions >= {NUM_CARDS} (one logit per card)")
        out["card_dim"] = _positive_int(config, "card_dim")
        layers = config.get("card_layers")
        if isinstance(layers, bool) or not isinstance(layers, int | np.integer) or layers < 0:
            raise ValueError(f"network config 'card_layers' must be an integer >= 0, got {layers!r}")
        out["card_layers"] = int(layers)
        planes = config.get("card_planes")
        if not isinstance(planes, list | tuple) or not planes:
            raise ValueError(f"network config 'card_planes' must be a non-empty list of offsets, got {planes!r}")
        out["card_planes"] = [int(p) for p in planes]
        ranges = config.get("global_ranges")
        if not isinstance(ranges, list | tuple):
            raise ValueError(f"network config 'global_ranges' must be a list of [start, stop], got {ranges!r}")
        out["global_ranges"] = [[int(r[0]), int(r[1])] for r in ranges]
        covered = np.zeros(out["obs_dim"], np.int64)
        for p in out["card_planes"]:
            if not 0 <= p <= out["obs_dim"] - NUM_CARDS:
                raise ValueError(f"card plane offset {p} does not fit obs_dim={out['obs_dim']}")
            covered[p : p + NUM_CARDS] += 1
        for start, stop in out["global_ranges"]:
            if not 0 <= start < stop <= out["obs_dim"]:
                raise ValueError(f"global range [{start}, {stop}) does not fit obs_dim={out['obs_dim']}")
            covered[start:stop] += 1
        if covered.max(initial=0) > 1:
            raise ValueError("card planes and global ranges overlap")
    return out


def global_indices(config: Mapping[str, Any]) -> np.ndarray:
    """The observation entries a cardset network reads as global (non-card) features."""
    ranges = config["global_ranges"]
    if not ranges:
        return np.zeros(0, np.int64)
    return np.concatenate([np.arange(start, stop, dtype=np.int64) for start, stop in ranges])


def card_indices(config: Mapping[str, Any]) -> np.ndarray:
    """``(planes, 52)`` observation indices of a cardset network's card planes."""
    planes = np.asarray(config["card_planes"], np.int64)
    return planes[:, None] + np.arange(NUM_CARDS, dtype=np.int64)[None, :]


def parameter_shapes(config: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """Every parameter of the network ``config`` describes, by ``state_dict`` name, in order."""
    c = validate_config(config)
    shapes: dict[str, tuple[int, ...]] = {}
    a = c["num_actions"]
    if c["kind"] == "mlp":
        width = c["obs_dim"]
        for i, h in enumerate(c["hidden"]):
            shapes[f"layers.{i}.weight"] = (h, width)
            shapes[f"layers.{i}.bias"] = (h,)
            width = h
        shapes["policy.weight"] = (a, width)
        shapes["policy.bias"] = (a,)
    else:
        d, planes = c["card_dim"], len(c["card_planes"])
        shapes["card_embed"] = (NUM_CARDS, d)
        shapes["card_in.weight"] = (d, planes)
        shapes["card_in.bias"] = (d,)
        for layer in range(c["card_layers"]):
            shapes[f"card_layers.{layer}.own.weight"] = (d, d)
            shapes[f"card_layers.{layer}.own.bias"] = (d,)
            shapes[f"card_layers.{layer}.pool.weight"] = (d, d)
        width = 2 * d + int(global_indices(c).size)
        for i, h in enumerate(c["hidden"]):
            shapes[f"layers.{i}.weight"] = (h, width)
            shapes[f"layers.{i}.bias"] = (h,)
            width = h
        shapes["card_query.weight"] = (d, width)
        shapes["card_query.bias"] = (d,)
        shapes["special.weight"] = (a - NUM_CARDS, width)
        shapes["special.bias"] = (a - NUM_CARDS,)
    shapes["value.weight"] = (1, width)
    shapes["value.bias"] = (1,)
    return shapes


# ---------------------------------------------------------------------------------------------
# The numpy forward pass
# ---------------------------------------------------------------------------------------------


def _activation(name: str) -> Any:
    if name == "relu":
        return lambda x: np.maximum(x, np.float32(0.0))
    return np.tanh


class NumpyPolicy:
    """A policy/value network in numpy (float32): ``forward(obs) -> (logits, value)``.

    ``obs`` is one observation vector ``(obs_dim,)`` or a batch ``(B, obs_dim)``; results have the
    matching leading shape. ``card`` is the model card it was loaded from (``{}`` when built
    directly from arrays)."""

    def __init__(
        self, config: Mapping[str, Any], params: Mapping[str, np.ndarray], card: Mapping[str, Any] | None = None
    ):
        self.config = validate_config(config)
        problem = _params_problem(self.config, params)
        if problem is not None:
            raise ValueError(problem)
        self.params = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in params.items()}
        self.card = dict(card or {})
        self._act = _activation(self.config["activation"])
        # Transposed copies: ``x @ W.T`` on a contiguous ``W.T`` is the fast path for one vector.
        self._wt = {
            k[: -len(".weight")]: np.ascontiguousarray(v.T) for k, v in self.params.items() if k.endswith(".weight")
        }
        if self.config["kind"] == "cardset":
            self._card_index = card_indices(self.config).T.reshape(-1)  # card-major: (52 * planes,)
            self._global_index = global_indices(self.config)

    @property
    def obs_dim(self) -> int:
        return int(self.config["obs_dim"])

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        if x.ndim == 2 and x.shape[0] == 1 and x.shape[1] >= 256:
            # One wide, mostly-zero observation: read only the weight rows of its nonzero entries
            # (the encoding is ~90% zeros), not the whole matrix; a matrix-vector product is
            # memory-bound, so this is what makes a single decision fast.
            nz = np.flatnonzero(x[0])
            return (x[0, nz] @ self._wt[name][nz] + self.params[f"{name}.bias"])[None, :]
        if x.ndim == 3:  # (B, 52, features): one 2-D product, not B small ones
            b, c, f = x.shape
            return (x.reshape(b * c, f) @ self._wt[name]).reshape(b, c, -1) + self.params[f"{name}.bias"]
        return x @ self._wt[name] + self.params[f"{name}.bias"]

    def _trunk(self, x: np.ndarray) -> np.ndarray:
        for i in range(len(self.config["hidden"])):
            x = self._act(self._linear(x, f"layers.{i}"))
        return x

    def forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Raw (unmasked) logits ``(..., num_actions)`` and values ``(...)``."""
        x = np.asarray(obs, dtype=np.float32)
        single = x.ndim == 1
        if single:
            x = x[None, :]
        if x.ndim != 2 or x.shape[1] != self.obs_dim:
            raise ValueError(
                f"observations must have shape (obs_dim,) or (B, obs_dim) with obs_dim={self.obs_dim}, "
                f"got {np.shape(obs)}"
            )
        if self.config["kind"] == "mlp":
            h = self._trunk(x)
            logits = self._linear(h, "policy")
        else:
            logits, h = self._cardset(x)
        value = self._linear(h, "value")[:, 0]
        if single:
            return logits[0], value[0]
        return logits, value

    def _cardset(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        b = x.shape[0]
        cards = x[:, self._card_index].reshape(b, NUM_CARDS, -1)  # (B, 52, planes)
        e = self._act(self._linear(cards, "card_in") + self.params["card_embed"])
        for layer in range(self.config["card_layers"]):
            pooled = (e.mean(axis=1) @ self._wt[f"card_layers.{layer}.pool"])[:, None, :]
            e = e + self._act(self._linear(e, f"card_layers.{layer}.own") + pooled)
        g = x[:, self._global_index]
        h = self._trunk(np.concatenate([e.mean(axis=1), e.max(axis=1), g], axis=1))
        query = self._linear(h, "card_query")  # (B, d)
        card_logits = np.matmul(e, query[:, :, None])[:, :, 0]
        special = self._linear(h, "special")
        return np.concatenate([card_logits, special], axis=1), h

    def logits(self, obs: np.ndarray) -> np.ndarray:
        return self.forward(obs)[0]

    def value(self, obs: np.ndarray) -> np.ndarray:
        return self.forward(obs)[1]

    def masked_logits(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Logits with every illegal action (``mask`` 0) set to ``MASK_VALUE``."""
        return masked_logits(self.logits(obs), mask)

    def choose(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        *,
        greedy: bool = True,
        rng: np.random.Generator | None = None,
        temperature: float = 1.0,
    ) -> int:
        """One legal action for one observation: the best one, or sampled from the masked softmax."""
        return choose_action(self.logits(obs), mask, greedy=greedy, rng=rng, temperature=temperature)


def masked_logits(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``logits`` with the entries where ``mask`` is false replaced by ``MASK_VALUE``."""
    legal = np.asarray(mask).astype(bool)
    return np.where(legal, logits, np.float32(MASK_VALUE)).astype(np.float32)


def choose_action(
    logits: np.ndarray,
    mask: np.ndarray,
    *,
    greedy: bool = True,
    rng: np.random.Generator | None = None,
    temperature: float = 1.0,
) -> int:
    """A legal action: the highest-logit one, or a sample from the softmax over legal actions only
    (so an illegal action is never chosen, whatever its logit)."""
    legal = np.flatnonzero(np.asarray(mask).reshape(-1))
    if legal.size == 0:
        raise ValueError("the action mask has no legal action")
    z = np.asarray(logits, dtype=np.float64).reshape(-1)[legal]
    if greedy or temperature <= 0:
        return int(legal[int(np.argmax(z))])
    if rng is None:
        raise ValueError("sampling an action needs a numpy Generator (rng)")
    z = (z - z.max()) / temperature
    p = np.exp(z)
    p /= p.sum()
    return int(rng.choice(legal, p=p))


class ModelBot:
    """An exported model as a bot: ``act(observation) -> int`` on the AEC env's observation dict.

    Greedy by default (the model's best legal action); ``greedy=False`` samples from the masked
    softmax with a generator seeded by ``seed`` (and re-seeded by ``reset(seed)``)."""

    def __init__(self, policy: NumpyPolicy, seed: int | None = None, *, greedy: bool = True, temperature: float = 1.0):
        self.policy = policy
        self.greedy = greedy
        self.temperature = temperature
        self.rng = np.random.default_rng(seed)

    @property
    def name(self) -> str:
        return str(self.policy.card.get("name", "model"))

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        return self.policy.choose(
            observation["observation"],
            observation["action_mask"],
            greedy=self.greedy,
            rng=self.rng,
            temperature=self.temperature,
        )


# ---------------------------------------------------------------------------------------------
# Loading, with every check
# ---------------------------------------------------------------------------------------------


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _params_problem(config: Mapping[str, Any], params: Mapping[str, np.ndarray]) -> str | None:
    """Why ``params`` do not fit ``config`` (missing, extra, misshapen, not float32, non-finite), or None."""
    shapes = parameter_shapes(config)
    missing = [k for k in shapes if k not in params]
    if missing:
        return f"weights lack arrays the network config needs: {', '.join(missing)}"
    extra = sorted(k for k in params if k not in shapes)
    if extra:
        return f"weights have arrays the network config does not use: {', '.join(extra)}"
    for k, shape in shapes.items():
        a = params[k]
        if tuple(a.shape) != shape:
            return f"array {k!r} has shape {tuple(a.shape)}, the network config needs {shape}"
        if a.dtype != np.float32:
            return f"array {k!r} has dtype {a.dtype}, expected float32"
        if not np.isfinite(a).all():
            return f"array {k!r} holds non-finite values"
    return None


def current_encoding() -> tuple[int, int]:
    """``(ENCODING_VERSION, OBSERVATION_SIZE)`` of this hearts_env's observation encoding."""
    from .env import encoding  # imported here: the encoding is only needed when checking a model

    return int(encoding.ENCODING_VERSION), int(encoding.OBSERVATION_SIZE)


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


#: The models shipped with hearts_env: ``models/`` next to the ``hearts_env`` package (in a
#: checkout, and so in an editable install: the repository's ``models/``).
SHIPPED_MODELS_DIR = Path(__file__).resolve().parent.parent / "models"


def shipped_models() -> list[str]:
    """The names of the model directories in ``SHIPPED_MODELS_DIR`` (none when it does not exist)."""
    if not SHIPPED_MODELS_DIR.is_dir():
        return []
    return sorted(p.name for p in SHIPPED_MODELS_DIR.iterdir() if is_model_dir(p))


def model_candidates(spec: str | Path) -> list[Path]:
    """Where the model ``spec`` names is looked for, in order: the path as given (relative to the
    current directory), then, for a relative ``models/<name>`` or a bare ``<name>``,
    ``SHIPPED_MODELS_DIR / <name>``."""
    path = Path(spec).expanduser()
    out = [path]
    parts = path.parts
    if not path.is_absolute() and (len(parts) == 1 or (len(parts) == 2 and parts[0] == "models")):
        name = parts[-1]
        if name not in (".", ".."):
            shipped = SHIPPED_MODELS_DIR / name
            if shipped.resolve() != path.resolve():
                out.append(shipped)
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
        card = json.loads(card_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
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
        except RulesError as err:
            raise ModelError(path, f"the model card's rules are not a valid rule set here: {err}") from None
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
        config = validate_config(card.get("network"))
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
    size = weights_path.stat().st_size
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
    try:
        with np.load(weights_path, allow_pickle=False) as npz:
            params = {k: npz[k] for k in npz.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as err:
        raise ModelError(path, f"{weights_name} is corrupt (not a readable .npz of plain arrays): {err}") from None
    problem = _params_problem(config, params)
    if problem is not None:
        raise ModelError(path, f"{weights_name} does not match the network config: {problem}")
    return NumpyPolicy(config, params, card)


def load_bot(
    path: str | Path,
    rules: Rules | str | Path | None = None,
    seed: int | None = None,
    *,
    greedy: bool = True,
    temperature: float = 1.0,
) -> ModelBot:
    """``make_bot("models/<name>", rules, seed)``: the checked model at ``path`` as a bot."""
    return ModelBot(load_policy(path, rules), seed, greedy=greedy, temperature=temperature)


def is_model_dir(path: str | Path) -> bool:
    """Whether ``path`` itself looks like an exported model directory (it has a ``model.json``);
    ``find_model`` also looks among the shipped models."""
    return (Path(path).expanduser() / CARD_FILE).is_file()


__all__: Sequence[str] = [
    "CARD_FILE",
    "IGNORED_OPTIONS",
    "MASK_VALUE",
    "MODEL_FORMAT",
    "NETWORK_KINDS",
    "SHIPPED_MODELS_DIR",
    "WEIGHTS_FILE",
    "ModelBot",
    "ModelError",
    "NumpyPolicy",
    "choose_action",
    "current_encoding",
    "effective_rules",
    "find_model",
    "is_model_dir",
    "load_bot",
    "load_policy",
    "masked_logits",
    "model_candidates",
    "parameter_shapes",
    "read_model_card",
    "resolve_model",
    "rules_difference",
    "sha256_file",
    "shipped_models",
    "validate_config",
]
