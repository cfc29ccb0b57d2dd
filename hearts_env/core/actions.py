"""Action ids: one numbering for every decision of RULES.md §10.

| ids      | action                                                                 |
|----------|------------------------------------------------------------------------|
| 0..51    | a card (see ``cards``): pass it, or play it                            |
| 52       | ``PASS_FROM_HAND``: pass-through declaration, pass from my own hand    |
| 53       | ``PASS_THROUGH``: pass-through declaration, forward what I am passed   |
| 54..60   | dealer's choice: a single-target pass to the seat ``1..7`` places left |
| 61/62/63 | dealer's choice: ``hold`` / ``scatter`` / ``smoosh``                   |
| 64       | ``VOID_DEAL``: an all-hearts leader cancels the deal                   |
| 65       | ``LEAD_HEART``: the same leader declines, and will lead a heart        |
| 66       | ``MOON_SUBTRACT``: the shooter takes -moon (the others score 0)        |
| 67       | ``MOON_ADD``: the shooter scores 0 and the others take +moon           |
"""

from __future__ import annotations

import numpy as np

from .cards import CARD_NAMES, NUM_CARDS, parse_card
from .errors import IllegalActionError, brief
from .rules import canonical_pass_kind, pass_offset

PASS_FROM_HAND = 52
PASS_THROUGH = 53
CHOOSE_OFFSET_BASE = 53  # offset k (1..7) is action 53 + k
CHOOSE_HOLD = 61
CHOOSE_SCATTER = 62
CHOOSE_SMOOSH = 63
VOID_DEAL = 64
LEAD_HEART = 65
MOON_SUBTRACT = 66
MOON_ADD = 67
NUM_ACTIONS = 68

_SPECIAL_NAMES = {
    PASS_FROM_HAND: "PASS_FROM_HAND",
    PASS_THROUGH: "PASS_THROUGH",
    CHOOSE_HOLD: "CHOOSE_HOLD",
    CHOOSE_SCATTER: "CHOOSE_SCATTER",
    CHOOSE_SMOOSH: "CHOOSE_SMOOSH",
    VOID_DEAL: "VOID_DEAL",
    LEAD_HEART: "LEAD_HEART",
    MOON_SUBTRACT: "MOON_SUBTRACT",
    MOON_ADD: "MOON_ADD",
    **{CHOOSE_OFFSET_BASE + k: f"CHOOSE_OFFSET_{k}" for k in range(1, 8)},
}
ACTION_NAMES: tuple[str, ...] = CARD_NAMES + tuple(_SPECIAL_NAMES[a] for a in range(NUM_CARDS, NUM_ACTIONS))
_BY_NAME = {name: a for a, name in enumerate(ACTION_NAMES)}


def action_name(action: int) -> str:
    """``QS`` for a card, ``PASS_THROUGH`` and the like for the special actions."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is outside 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[action]


def parse_action(name: str) -> int:
    """The inverse of ``action_name``; card spellings such as ``10D`` or ``Q♠`` work too."""
    key = name.strip().upper()
    if key in _BY_NAME:
        return _BY_NAME[key]
    return parse_card(name)


def pass_kind_action(kind: str, num_players: int) -> int:
    """The dealer's-choice action that announces ``kind``."""
    offset = pass_offset(kind, num_players)
    if offset is not None:
        return CHOOSE_OFFSET_BASE + offset
    return {"hold": CHOOSE_HOLD, "scatter": CHOOSE_SCATTER, "smoosh": CHOOSE_SMOOSH}[kind]


def action_pass_kind(action: int, num_players: int) -> str:
    """The pass kind a dealer's-choice action announces, in its canonical spelling."""
    if CHOOSE_OFFSET_BASE < action < CHOOSE_HOLD:
        return canonical_pass_kind(f"offset:{action - CHOOSE_OFFSET_BASE}", num_players)
    return {CHOOSE_HOLD: "hold", CHOOSE_SCATTER: "scatter", CHOOSE_SMOOSH: "smoosh"}[action]


_BYTE_BITS = [bytes((b >> i) & 1 for i in range(8)) for b in range(256)]


def mask_array(legal: int) -> np.ndarray:
    """The ``int8`` action mask of a legal-action bitmask (bit ``a`` set: action ``a`` legal); a
    new, writable array (one byte per bit through a 256-entry table: faster than ``unpackbits``)."""
    return np.frombuffer(
        bytearray(b"".join([_BYTE_BITS[b] for b in legal.to_bytes(9, "little")])), np.int8, NUM_ACTIONS
    )


def as_action(action: object, legal: int) -> int:
    """``action`` as a plain ``int``: a Python int, a numpy integer scalar or a 0-d integer array.
    Anything else (a float, a bool, a string, an array with a shape) raises ``IllegalActionError``
    naming the value and the legal actions (``legal``: their bitmask). Every entry point checks
    its actions here; whether the integer is legal is the engine's (or the caller's) check."""
    if type(action) is int:
        return action
    if isinstance(action, np.integer) or (
        isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu"
    ):
        return int(action)
    if isinstance(action, int) and not isinstance(action, bool):  # an int subclass (IntEnum)
        return int(action)
    legal_list = [a for a in range(NUM_ACTIONS) if legal >> a & 1]
    names = " ".join(f"{action_name(a)} ({a})" for a in legal_list) or "none"
    raise IllegalActionError(
        f"actions are integers 0..{NUM_ACTIONS - 1} (a Python int, a numpy integer or a 0-d integer array; "
        f"see hearts_env.core.actions), got {brief(action)} of type {type(action).__name__}; legal: {names}",
        -1,
        legal_list,
    )
