"""Observations of the seat to move, ``(B, D)`` float32, identical to ``hearts_env.obs``.

The layout (segment names, sizes and offsets) is read from ``hearts_env.obs`` when the builder
is made, so the batched vectors follow that module; a segment this builder does not know raises
``NotImplementedError`` naming it, rather than leaving it silently wrong. Values are computed the way
the reference encoder computes them (scaled in float64, clipped, then stored as float32), so the
vectors are equal entry by entry; ``tests/test_batched_observation.py`` checks that over random play.

Card segments (``hand``, ``played_by``, ``won_by``, ``trick``, ``passed_to``, ``received_from``,
``forwarded``) are first gathered as 52-bit masks per row, seat-relative, then expanded to 0/1 floats
in one lookup. The rule-set segments (from ``match_episode`` on) are constant and are copied from
``encoding.rules_block``. Deal episodes only: ``totals`` are the row's totals before the deal,
``deal_number`` and ``match_episode`` are 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..core.cards import QS_BIT
from ..obs import spec as encoding
from .engine import HeartsKernel
from .params import DEALER_CHOICE_KIND, MOON_CHOICE, PASSING, PLAYING, SCATTER, SMOOSH
from .state import BatchState

#: Segments the builder fills, with the shape it expects (rows, width).
KNOWN_SEGMENTS: dict[str, tuple[int, int]] = {
    "hand": (1, 52),
    "played_by": (8, 52),
    "won_by": (8, 52),
    "trick": (8, 52),
    "trick_leader": (1, 8),
    "to_move": (1, 8),
    "dealer": (1, 8),
    "passed_to": (9, 52),
    "received_from": (9, 52),
    "forwarded": (1, 52),
    "pass_through": (1, 8),
    "kitty_taken": (1, 8),
    "tricks_won": (1, 8),
    "points_taken": (1, 8),
    "void_in": (8, 4),
    "phase": (1, 5),
    "pass_kind": (1, 10),
    "dealer_choice": (1, 1),
    "trick_number": (1, 1),
    "hearts_broken": (1, 1),
    "queen_played": (1, 1),
    "lead_heart_declared": (1, 1),
    "totals": (1, 8),
    "deal_number": (1, 1),
}
CARD_SEGMENTS = ("hand", "played_by", "won_by", "trick", "passed_to", "received_from", "forwarded")
MAX_SEATS = 8
POOL_ROW = 8

# pass-kind code -> slot of the ``pass_kind`` segment (offset k -> k - 1, hold, scatter, smoosh; -1: none yet)
_KIND_SLOTS = [7, 0, 1, 2, 3, 4, 5, 6, 8, 9, -1]


@dataclass(frozen=True)
class PackedObservations:
    """Observations packed losslessly: ``cards`` ``(B, 44)`` int64, one 52-bit mask per card row of the
    vector (``hand``, ``played_by``, ``won_by``, ``trick``, ``passed_to``, ``received_from``,
    ``forwarded``, in vector order); ``small`` ``(B, S)`` float32, the other deal segments. The rule-set
    segments are constant and not stored. ``ObservationBuilder.unpack`` gives the exact vectors; a
    network can also expand ``cards`` itself, on its own device."""

    cards: torch.Tensor
    small: torch.Tensor


class ObservationBuilder:
    """Builds ``(B, D)`` observations for one kernel (rule set and device)."""

    def __init__(self, kernel: HeartsKernel) -> None:
        self.kernel = kernel
        self.params = p = kernel.params
        self.device = d = kernel.device
        self.n = n = p.num_players
        self.size = int(encoding.OBSERVATION_SIZE)
        offsets = dict(encoding.OFFSETS)
        segments = {seg.name: (seg.rows, seg.width) for seg in encoding.SEGMENTS}
        self.constant_start = offsets["match_episode"]
        for name, shape in segments.items():
            if offsets[name] >= self.constant_start:
                continue
            if name not in KNOWN_SEGMENTS:
                raise NotImplementedError(
                    f"the observation encoding has a segment {name!r} the batched engine does not produce"
                )
            if KNOWN_SEGMENTS[name] != shape:
                raise NotImplementedError(
                    f"the observation segment {name!r} has shape {shape}; the batched engine knows "
                    f"{KNOWN_SEGMENTS[name]}"
                )
        missing = [name for name in KNOWN_SEGMENTS if name not in segments or offsets[name] >= self.constant_start]
        if missing:
            raise NotImplementedError(f"the observation encoding lacks segments {missing} the batched engine expects")
        self.offsets = offsets
        self.constant = torch.tensor(encoding.rules_block(p.rules, False), dtype=torch.float32, device=d)
        # card segments: one 52-bit mask per row of a segment, gathered in vector order, expanded in one go
        self.card_order = sorted(CARD_SEGMENTS, key=lambda name: offsets[name])
        self.mask_column: dict[str, int] = {}
        runs: list[list[int]] = []  # [vector offset, mask column, rows]
        column = 0
        for name in self.card_order:
            rows = KNOWN_SEGMENTS[name][0]
            self.mask_column[name] = column
            if runs and runs[-1][0] + runs[-1][2] * 52 == offsets[name]:
                runs[-1][2] += rows
            else:
                runs.append([offsets[name], column, rows])
            column += rows
        self.mask_rows = column
        # Unpacking writes only the card rows that can be nonzero with n seats (``encoding.live_columns``):
        # it expands those masks (``live_masks``) and copies them in runs (vector offset, position among
        # the live masks, rows); the padded seats' rows are written as zeros (``padding_runs``).
        live = np.zeros(self.size, bool)
        live[encoding.live_columns(n)] = True
        live_masks: list[int] = []
        copy_runs: list[list[int]] = []
        padding_runs: list[list[int]] = []
        for start, first, count in runs:
            for k in range(count):
                offset = start + 52 * k
                row_live = live[offset : offset + 52]
                if row_live.all():
                    j = len(live_masks)
                    live_masks.append(first + k)
                    if copy_runs and copy_runs[-1][0] + 52 * copy_runs[-1][2] == offset:
                        copy_runs[-1][2] += 1
                    else:
                        copy_runs.append([offset, j, 1])
                elif not row_live.any():
                    if padding_runs and sum(padding_runs[-1]) == offset:
                        padding_runs[-1][1] += 52
                    else:
                        padding_runs.append([offset, 52])
                else:  # pragma: no cover - live_columns keeps or drops whole seat rows
                    raise NotImplementedError(f"card row at {offset} is partly live for {n} players")
        self.live_masks = torch.tensor(live_masks, dtype=torch.int64, device=d)
        self.all_masks_live = len(live_masks) == self.mask_rows
        self.copy_runs = [(a, b, c) for a, b, c in copy_runs]
        self.padding_runs = [(a, b) for a, b in padding_runs]
        # the other deal segments: zeroed, then written; runs of adjacent segments are zeroed together
        small = sorted((name for name in KNOWN_SEGMENTS if name not in CARD_SEGMENTS), key=lambda x: offsets[x])
        zero_runs: list[list[int]] = []
        for name in small:
            width = KNOWN_SEGMENTS[name][0] * KNOWN_SEGMENTS[name][1]
            if zero_runs and zero_runs[-1][0] + zero_runs[-1][1] == offsets[name]:
                zero_runs[-1][1] += width
            else:
                zero_runs.append([offsets[name], width])
        self.zero_runs = [(a, b) for a, b in zero_runs]
        # ``small`` holds those runs one after another: the column of each segment there
        self.small_column: dict[str, int] = {}
        base = 0
        for start, width in self.zero_runs:
            for name in small:
                if start <= offsets[name] < start + width:
                    self.small_column[name] = base + offsets[name] - start
            base += width
        self.small_width = base

        def tensor(values: list[int]) -> torch.Tensor:
            return torch.tensor(values, dtype=torch.int64, device=d)

        self.rel_index = tensor(list(range(n)))
        self.kind_slots = tensor(_KIND_SLOTS)
        self.suit_bits = tensor([1, 2, 4, 8])
        self.flag_columns = tensor(
            [
                self.small_column[name]
                for name in ("to_move", "dealer_choice", "hearts_broken", "queen_played", "lead_heart_declared")
            ]
        )
        self.total = max(p.rules.tables.penalty_total, 1)
        self.share = p.pass_count // (n - 1) if p.pass_count % (n - 1) == 0 else 0
        self._scratch: dict[tuple[int, torch.device], tuple[torch.Tensor, torch.Tensor]] = {}

    def _buffers(self, b: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        """Reused scratch space for ``b`` rows: the card masks' suit fields and their expansion (as
        uint8: a quarter of the bytes of float32, converted on the copy into the vector)."""
        key = (b, device)
        if key not in self._scratch:
            rows = int(self.live_masks.numel())
            fields = torch.empty(b, rows, 4, dtype=torch.int64, device=device)
            planes = torch.empty(b * rows * 4, 13, dtype=torch.uint8, device=device)
            self._scratch = {key: (fields, planes)}
        return self._scratch[key]

    # ------------------------------------------------------------------ the vector
    def observe(self, state: BatchState, out: torch.Tensor | None = None) -> torch.Tensor:
        """``(B, D)`` float32 observations of the seat to move in each row; into ``out`` if given."""
        return self.unpack(self.observe_packed(state), out)

    def observe_packed(self, state: BatchState, out: PackedObservations | None = None) -> PackedObservations:
        """The same observations, packed: every card row of the vector as a 52-bit mask, and the
        other deal segments as floats (into ``out``'s tensors when given). ``unpack`` turns them into
        the ``(B, D)`` vectors."""
        s = state
        b = s.batch_size
        n = self.n
        p = self.params
        observer = s.current
        o = observer.unsqueeze(1)
        seat_of = (o + self.rel_index) % n  # (B, n): the absolute seat r places left of the observer
        playing = s.phase == PLAYING
        resolved = playing | (s.phase == MOON_CHOICE)

        # ---- card segments
        if out is None:
            out = PackedObservations(
                cards=torch.empty(b, self.mask_rows, dtype=torch.int64, device=self.device),
                small=torch.empty(b, self.small_width, dtype=torch.float32, device=self.device),
            )
        elif out.cards.shape != (b, self.mask_rows) or out.small.shape != (b, self.small_width):
            raise ValueError(
                f"out must hold cards ({b}, {self.mask_rows}) int64 and small ({b}, {self.small_width}) float32"
            )
        masks = out.cards
        masks.zero_()
        col = self.mask_column
        masks[:, col["hand"]] = s.hands.gather(1, o).squeeze(1)
        masks[:, col["played_by"] : col["played_by"] + n] = s.played.gather(1, seat_of)
        won = s.won if not p.kitty_size else s.won & ~s.kitty_mask.unsqueeze(1)
        masks[:, col["won_by"] : col["won_by"] + n] = won.gather(1, seat_of)
        masks[:, col["trick"] : col["trick"] + n] = torch.where(s.trick_cards >= 0, 1 << s.trick_cards.clamp(min=0), 0)
        flat_seat = torch.arange(b, device=self.device) * n + observer
        rows = s.pass_rows.view(b * n, 18).index_select(0, flat_seat)  # (B, 18) the observer's pass rows
        if bool((s.phase == PASSING).any()):
            rows = torch.where((s.phase == PASSING).unsqueeze(1), self._intended(s, o), rows)
        masks[:, col["passed_to"] : col["passed_to"] + 9] = rows[:, :9]
        masks[:, col["received_from"] : col["received_from"] + 9] = rows[:, 9:]
        if p.rules.pass_through_visible:
            mine = s.forwarded.gather(1, o).squeeze(1)
            masks[:, col["forwarded"]] = torch.where(resolved & s.through.gather(1, o).squeeze(1), mine, 0)

        # ---- the other deal segments, in ``small`` (the runs of the vector between the card runs)
        small = out.small
        small.zero_()
        at = self.small_column
        slot = self.kind_slots.gather(0, s.kind)
        hot_columns = torch.stack(
            [
                at["trick_leader"] + (s.leader - observer) % n,
                at["dealer"] + (s.dealer - observer) % n,
                at["phase"] + s.phase,
                at["pass_kind"] + slot.clamp(min=0),
            ],
            1,
        )
        ones = torch.ones_like(playing)
        hot_values = torch.stack(
            [
                playing,
                ones,
                ones,
                slot >= 0,
                ones,  # to_move: the observer itself
                s.deal_kind == DEALER_CHOICE_KIND,
                s.hearts_broken,
                (s.played & QS_BIT).sum(1) != 0,
                s.void_declined,
            ],
            1,
        )
        hot_columns = torch.cat([hot_columns, self.flag_columns.expand(b, -1)], 1)
        small.scatter_(1, hot_columns, hot_values.float())
        through = s.through.gather(1, seat_of) & ((seat_of == o) | resolved.unsqueeze(1))
        small[:, at["pass_through"] : at["pass_through"] + n] = through.float()
        if p.kitty_size:
            taken = self.kernel.bits.count((s.won & s.kitty_mask.unsqueeze(1)).gather(1, seat_of))
            small[:, at["kitty_taken"] : at["kitty_taken"] + n] = (taken.double() / p.kitty_size).float()
        small[:, at["tricks_won"] : at["tricks_won"] + n] = (
            s.tricks_won.gather(1, seat_of).double() / p.num_tricks
        ).float()
        small[:, at["points_taken"] : at["points_taken"] + n] = (
            (s.points.gather(1, seat_of).double() / self.total).clamp(-4, 4).float()
        )
        void = s.void.gather(1, seat_of)
        small[:, at["void_in"] : at["void_in"] + 4 * n] = (
            ((void.unsqueeze(2) & self.suit_bits) != 0).view(b, -1).float()
        )
        small[:, at["trick_number"]] = (s.trick_number.double() / p.num_tricks).float()
        small[:, at["totals"] : at["totals"] + n] = (s.totals.gather(1, seat_of).double() / 100).clamp(-10, 10).float()
        return out

    def unpack(self, packed: PackedObservations, out: torch.Tensor | None = None) -> torch.Tensor:
        """The ``(B, D)`` float32 vectors of ``packed`` observations (into ``out`` when given)."""
        masks, small = packed.cards, packed.small
        b = masks.shape[0]
        if out is None:
            out = torch.empty(b, self.size, dtype=torch.float32, device=masks.device)
        elif out.shape != (b, self.size) or out.dtype != torch.float32 or out.device != masks.device:
            raise ValueError(f"out must be a float32 tensor of shape ({b}, {self.size}) on {masks.device}")
        fields, planes = self._buffers(b, masks.device)
        bits = self.kernel.bits
        live = masks if self.all_masks_live else masks.index_select(1, self.live_masks.to(masks.device))
        torch.index_select(bits.expand_uint8, 0, bits.fields(live, out=fields).view(-1), out=planes)
        flat = planes.view(b, -1)
        for start, column, count in self.copy_runs:
            out[:, start : start + count * 52] = flat[:, column * 52 : (column + count) * 52]
        for start, width in self.padding_runs:
            out[:, start : start + width] = 0.0
        column = 0
        for start, width in self.zero_runs:
            out[:, start : start + width] = small[:, column : column + width]
            column += width
        out[:, self.constant_start :] = self.constant
        return out

    def _intended(self, s: BatchState, o: torch.Tensor) -> torch.Tensor:
        """Passing: the seat to move's chosen cards by intended target (``passed_to``), 18 rows as
        ``BatchState.pass_rows`` (nothing received yet)."""
        n = self.n
        b = s.batch_size
        chosen = s.chosen.gather(1, o)  # (B, 1)
        kind = s.kind.unsqueeze(1)
        rows = torch.arange(18, device=self.device).unsqueeze(0)
        intended = torch.where((rows == kind) & (kind >= 1) & (kind < n), chosen, 0)
        intended = torch.where((rows == POOL_ROW) & (kind == SMOOSH), chosen, intended)
        if self.share:
            pos = (s.pass_pos.clamp(max=n - 1) * self.params.pass_count).unsqueeze(1)
            idx = pos + torch.arange(self.params.pass_count, device=self.device)
            mine = s.chosen_cards.view(b, -1).gather(1, idx)  # (B, P): this seat's chosen cards, in order
            bits = torch.where(mine >= 0, 1 << mine.clamp(min=0), 0)
            blocks = bits.view(b, n - 1, self.share).sum(2)  # block j goes to the seat j + 1 places left
            by_target = torch.cat([blocks.new_zeros(b, 1), blocks, blocks.new_zeros(b, 18 - n)], 1)
            intended = torch.where(kind == SCATTER, by_target, intended)
        return intended


__all__ = ["KNOWN_SEGMENTS", "ObservationBuilder", "PackedObservations"]
