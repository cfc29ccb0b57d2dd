"""The observation contract: what each seat sees, as one vector, for every rule set.

The room holds the layout (``spec``: segments, offsets, bounds, ``live_columns``), the visibility
rule (``view``: ``SeatView``, ``seat_view``), the reference encoder and decoder (``reference``), the
incremental encoder the environments and tournaments run (``encoder``; always equal to the
reference, and a copy or pickle of it keeps updating its own buffer) and the one seated table
(``table``: a deal or match, its encoder and each seat's observation dict).

May import: ``hearts_env.core`` and numpy. Nothing above it (no bots, no environments, no torch).
"""

from .encoder import ObservationEncoder
from .reference import decode_observation, encode, encode_view
from .spec import (
    ENCODING_VERSION,
    MAX_SEATS,
    OBSERVATION_SIZE,
    OFFSETS,
    RULE_FEATURES,
    SEGMENTS,
    live_columns,
    observation_bounds,
    rule_features,
    rules_block,
    segment,
)
from .table import SeatedTable
from .view import SeatView, seat_view

__all__ = [
    "ENCODING_VERSION",
    "MAX_SEATS",
    "OBSERVATION_SIZE",
    "OFFSETS",
    "RULE_FEATURES",
    "SEGMENTS",
    "ObservationEncoder",
    "SeatView",
    "SeatedTable",
    "decode_observation",
    "encode",
    "encode_view",
    "live_columns",
    "observation_bounds",
    "rule_features",
    "rules_block",
    "seat_view",
    "segment",
]
