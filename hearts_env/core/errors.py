"""The engine's error types. Each one says what was wrong and why, in words a user can act on."""

from __future__ import annotations


class HeartsError(Exception):
    """Base class of every error the engine raises on purpose."""


class RulesError(HeartsError, ValueError):
    """An invalid rule set. ``option`` names the offending option (or ``None`` for the preset name)."""

    def __init__(self, option: str | None, reason: str):
        self.option = option
        self.reason = reason
        super().__init__(f"{option}: {reason}" if option else reason)


class IllegalActionError(HeartsError, ValueError):
    """An action that is not in the legal set of the decision at hand. The state is unchanged."""

    def __init__(self, message: str, action: int, legal: list[int]):
        self.action = action
        self.legal = legal
        super().__init__(message)


class InvalidDealError(HeartsError, ValueError):
    """Explicit hands, kitty or pass kind that do not form a valid deal for the rule set."""


class RecordError(HeartsError, ValueError):
    """A game record that is malformed, or does not replay to what it claims."""
