"""Exported networks, played with numpy only: the network spec (``spec``: the config, every number
bounded, and the parameter shapes), the forward pass (``forward``), the weights reader
(``weights``: a ``weights.npz`` read without trusting it, bounded in memory and time) and the model
store (``store``: finding ``models/<name>`` or a shipped model, and loading it without running any
code; a hostile model file is a ``ModelError`` naming the file and the reason). Not ``models/``:
that folder holds the artefacts.

May import: ``hearts_env.core``, ``hearts_env.obs`` (the encoding a model was trained on) and numpy.
"""

from .forward import NumpyPolicy, choose_action, masked_logits
from .spec import (
    CARD_FILE,
    MASK_VALUE,
    MODEL_FORMAT,
    NETWORK_KINDS,
    README_FILE,
    WEIGHTS_FILE,
    ModelError,
    parameter_shapes,
    validate_config,
)
from .store import (
    IGNORED_OPTIONS,
    SHIPPED_MODELS_DIR,
    current_encoding,
    effective_rules,
    find_model,
    is_model_dir,
    load_policy,
    model_candidates,
    read_model_card,
    resolve_model,
    rules_difference,
    sha256_file,
    shipped_models,
    user_models_dir,
)

__all__ = [
    "CARD_FILE",
    "IGNORED_OPTIONS",
    "MASK_VALUE",
    "MODEL_FORMAT",
    "NETWORK_KINDS",
    "README_FILE",
    "SHIPPED_MODELS_DIR",
    "WEIGHTS_FILE",
    "ModelError",
    "NumpyPolicy",
    "choose_action",
    "current_encoding",
    "effective_rules",
    "find_model",
    "is_model_dir",
    "load_policy",
    "masked_logits",
    "model_candidates",
    "parameter_shapes",
    "read_model_card",
    "resolve_model",
    "rules_difference",
    "sha256_file",
    "shipped_models",
    "user_models_dir",
    "validate_config",
]
