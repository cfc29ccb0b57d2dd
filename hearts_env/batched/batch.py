"""``BatchedHearts``: B deals of one rule set advanced together, with the state kept for you.

A thin stateful front over the pure functions of ``HeartsKernel`` (see ``engine.py``): it holds the
parameters, the current ``BatchState`` and a ``torch.Generator`` that seeds every shuffle, so that
the same seed gives the same deals and the same smoosh shuffles.

    engine = BatchedHearts(Rules(), batch_size=4096, device="cpu", seed=0)
    mask = engine.legal_mask()                      # (B, 68) bool
    result = engine.step(actions)                   # actions: (B,) int64, one per row
    result.rewards, result.done, result.scores      # (B, N), (B,), (B, N)
    engine.heuristic_actions(rows)                  # the heuristic bot's choices for those rows

It satisfies ``hearts_env.batched.protocols.BatchEngine``, as ``MixedBatchedHearts`` does.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import torch

from ..core.deal import Deal, mask_to_actions, seeded_deal
from ..core.rules import Rules
from ..obs.spec import OBSERVATION_SIZE
from .engine import HeartsKernel, StepResult
from .heuristic import VectorHeuristic
from .observation import ObservationBuilder, PackedObservations
from .params import BatchedParams
from .state import BatchState, row_index


class BatchedHearts:
    """B deals of ``rules`` (a ``Rules``, preset name or rule file) on ``device``; every row always has a
    seat to move (finished deals are replaced at once by the row's next deal).

    Episodes are single deals (``episode="deal"``, the only kind supported: another raises naming the
    match options it would need). Every deal-level option of RULES.md is played. Match-level options do
    not act between deals; the one place a deal reads them, ``moon_mode = add_unless_shooter_loses``,
    uses the row's totals before the deal (zero, as ``hearts_env.Deal``'s default, unless given to
    ``load``). A finished deal is followed by the deal a match would deal next (dealer rotation, pass
    cycle, the same dealer after a cancelled deal), with fresh cards.
    """

    def __init__(
        self,
        rules: Rules | str | None = None,
        batch_size: int = 1024,
        *,
        device: torch.device | str = "cpu",
        seed: int | None = None,
        episode: str = "deal",
    ) -> None:
        if episode != "deal":
            raise NotImplementedError(
                f"episode={episode!r}: the batched engine plays single deals only; whole matches (the options "
                "game_end_threshold, exact_score_resets, instant_win and tie_for_lowest across deals) are not "
                "supported: use hearts_env.Match or the AEC environment with episode='match'"
            )
        rules = Rules.load(rules)
        self.rules = rules
        self.rules_list = [rules]
        self.params = BatchedParams.from_rules(rules)
        self.kernel = HeartsKernel(self.params, device)
        self.device = self.kernel.device
        self.batch_size = int(batch_size)
        self.num_players = rules.num_players
        #: ``(B,)`` the index into ``rules_list`` of each row's rule set: all rows play ``rules``
        self.rules_index = torch.zeros(self.batch_size, dtype=torch.int64, device=self.device)
        self.generator = torch.Generator(device=self.device)
        self._observer: ObservationBuilder | None = None
        self._heuristic: VectorHeuristic | None = None
        self.reset(seed)

    @property
    def generators(self) -> dict[str, torch.Generator]:
        """The one generator (every shuffle), under the name checkpoints store it by."""
        return {"engine": self.generator}

    # ---- lifecycle
    def reset(self, seed: int | None = None) -> None:
        """New deals in every row (the first deal of a match in each); ``seed`` reseeds the generator."""
        if seed is None:
            self.generator.seed()
        else:
            self.generator.manual_seed(int(seed))
        self.state: BatchState = self.kernel.initial(self.batch_size, self.generator)

    def step(self, actions: torch.Tensor) -> StepResult:
        """One action per row (``(B,)`` integer tensor on the engine's device). Illegal, out-of-range or
        malformed actions raise ``BatchedActionError`` naming the rows and actions; the state is then
        unchanged."""
        self.state, result = self.kernel.transition(self.state, actions, self.generator)
        return result

    def fork(self, state: BatchState, generator: torch.Generator | None = None) -> BatchedHearts:
        """A new ``BatchedHearts`` of these rules over ``state`` (e.g. ``self.state.rows(index)``, cloned
        rows to play out), sharing this engine's kernel and tables; its deals after those in ``state`` are
        shuffled by ``generator`` (a fresh, unseeded one if none)."""
        fork = copy.copy(self)
        fork.state = state
        fork.batch_size = state.batch_size
        fork.rules_index = torch.zeros(state.batch_size, dtype=torch.int64, device=self.device)
        if generator is None:
            generator = torch.Generator(device=self.device)
            generator.seed()
        fork.generator = generator
        return fork

    # ---- what the seats see
    @property
    def current_player(self) -> torch.Tensor:
        """``(B,)`` the seat to move in each row."""
        return self.state.current

    @property
    def phase(self) -> torch.Tensor:
        """``(B,)`` 0 dealer's choice, 1 passing, 2 playing, 3 moon choice."""
        return self.state.phase

    def legal_mask(self) -> torch.Tensor:
        """``(B, 68)`` bool: the legal actions of the seat to move (``hearts_env.Deal.legal_mask``)."""
        return self.kernel.legal_mask(self.state)

    def observe(self, out: torch.Tensor | None = None) -> torch.Tensor:
        """``(B, D)`` float32: the observation of the seat to move in each row, exactly
        ``hearts_env.env.encoding.encode(deal, seat)``; written into ``out`` when given (e.g. a slice of
        a rollout buffer), else a new tensor."""
        return self.observation_builder.observe(self.state, out)

    def legal_sets(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The legal actions as bit sets, ``(B,)`` int64 each: cards (bit ``c``) and special actions
        (bit ``a - 52``); what ``legal_mask`` expands, for consumers that work on the bits."""
        return self.state.legal_cards, self.state.legal_special

    def heuristic_actions(self, rows: torch.Tensor | None = None) -> torch.Tensor:
        """The heuristic bot's (``hearts_env.bots.HeuristicBot``) action for the seat to move in each of
        ``rows`` (all rows for ``None``; indices or a ``(B,)`` boolean mask), ``(len(rows),)`` int64."""
        if self._heuristic is None:
            self._heuristic = VectorHeuristic(self.kernel)
        return self._heuristic(self.state, row_index(rows, self.batch_size, self.device))

    def observe_packed(self, out: PackedObservations | None = None) -> PackedObservations:
        """The same observations packed losslessly (``PackedObservations``: the card rows as 52-bit masks,
        ``(B, 44)`` int64, and the other deal segments, ``(B, S)`` float32): about a twelfth of the bytes,
        for a consumer that expands them itself (``unpack_observations`` gives the exact vectors). Written
        into ``out`` (a ``PackedObservations`` of the right shapes) when given."""
        return self.observation_builder.observe_packed(self.state, out)

    def unpack_observations(self, packed: PackedObservations, out: torch.Tensor | None = None) -> torch.Tensor:
        """The ``(B, D)`` vectors of ``observe_packed()``'s result, equal to ``observe()``'s."""
        return self.observation_builder.unpack(packed, out)

    @property
    def observation_builder(self) -> ObservationBuilder:
        """The ``ObservationBuilder`` of this engine (built on first use: an engine that is only stepped
        never pays for its tables)."""
        if self._observer is None:
            self._observer = ObservationBuilder(self.kernel)
        return self._observer

    @property
    def observation_size(self) -> int:
        return int(OBSERVATION_SIZE)

    # ---- explicit deals
    def load(self, rows: Sequence[int], hands: Sequence[Sequence[Sequence[int | str]]], **options: Any) -> None:
        """Put explicit deals at the start in ``rows`` (see ``HeartsKernel.load`` for the options:
        ``kitty``, ``dealer``, ``pass_kind``, ``smoosh_perm``, ``totals``, ``cycle_pos``)."""
        options.setdefault("generator", self.generator)
        self.state = self.kernel.load(self.state, rows, hands, **options)

    def load_seeded(self, rows: Sequence[int], seeds: Sequence[int]) -> None:
        """Put in ``rows`` the deals ``hearts_env.core.deal.seeded_deal(rules, seed)`` starts: the same
        hands, dealer, pass kind and smoosh shuffle as the environment's ``reset(seed=seed)`` and the
        tournaments' duplicate deals, so a batched evaluation plays the deals a tournament would."""
        deals = [seeded_deal(self.rules, int(seed)) for seed in seeds]
        self.load(
            rows,
            [[mask_to_actions(hand) for hand in deal.dealt_hands] for deal in deals],
            kitty=[list(deal.kitty_cards) for deal in deals],
            dealer=[deal.dealer for deal in deals],
            pass_kind=[deal.cycle_kind for deal in deals],
            smoosh_perm=[deal.smoosh_permutation() for deal in deals],
            totals=[list(deal.totals_before) for deal in deals],
        )

    def state_dict(self) -> dict[str, torch.Tensor]:
        """Every row's state as CPU tensors by field name (for checkpoints; the generator is saved apart)."""
        return {k: v.cpu() for k, v in asdict(self.state).items()}

    def load_state_dict(self, state: dict[str, torch.Tensor]) -> None:
        """Restore what ``state_dict`` returned, onto this engine's device."""
        self.state = BatchState(**{k: v.to(self.device) for k, v in state.items()})

    def export(self, row: int) -> dict[str, Any]:
        """The deal in ``row``: keyword arguments for ``hearts_env.Deal`` plus ``smoosh_perm`` and ``cycle_pos``."""
        return self.kernel.export(self.state, row)

    def reference_deal(self, row: int, seed: int | None = None) -> Any:
        """A ``hearts_env.Deal`` at the start of the deal in ``row`` (its smoosh shuffle is the Deal's
        own, from ``seed``, not the row's)."""
        spec = self.export(row)
        spec.pop("smoosh_perm")
        spec.pop("cycle_pos")
        return Deal(self.rules, seed=seed, **spec)


__all__ = ["BatchedHearts"]
