"""The engine's error types. Each one says what was wrong and why, in words a user can act on.

``brief`` is the one way an error message shows a value it was given: a short ``repr`` that never
echoes a huge value (a 500,000-entry list, a 5000-digit number, a deeply nested table) and never fails.
"""

from __future__ import annotations

import reprlib

#: About how many characters of a bad value an error message shows.
BRIEF_LIMIT = 80


class _BriefRepr(reprlib.Repr):
    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxstring = BRIEF_LIMIT
        self.maxother = BRIEF_LIMIT
        self.maxlong = 40

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 128:  # str() of a number past 4300 digits raises; no message needs its digits
            digits = int(x.bit_length() * 0.30103) + 1
            return f"<a {'negative ' if x < 0 else ''}number of about {digits} digits>"
        return repr(x)


_BRIEF = _BriefRepr()


def brief(value: object, limit: int = BRIEF_LIMIT) -> str:
    """``repr(value)``, cut to about ``limit`` characters (nested containers shown 3 levels deep)."""
    try:
        text = _BRIEF.repr(value)
    except Exception:  # a broken __repr__, or nesting reprlib cannot walk
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class HeartsError(Exception):
    """Base class of every error the engine raises on purpose."""


class RulesError(HeartsError, ValueError):
    """An invalid rule set. ``option`` names the offending option (or ``None`` for the preset name).

    Messages show bad values through ``brief``; an option name that is not a short string (an
    unknown key from a hostile file) is shown the same way."""

    def __init__(self, option: str | None, reason: str):
        if option is not None and (not isinstance(option, str) or len(option) > BRIEF_LIMIT):
            option = brief(option)
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


class NotResetError(HeartsError, RuntimeError, AttributeError):
    """An environment used before its first ``reset()``: it has no episode yet. An ``AttributeError``
    too, as PettingZoo's wrappers raise for the episode attributes, so ``hasattr`` answers ``False``."""


class EpisodeOverError(HeartsError, RuntimeError):
    """A step (or ``last()``) of an environment whose episode is over: ``reset()`` starts the next."""
