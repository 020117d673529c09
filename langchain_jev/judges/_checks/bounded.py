"""Regular expressions and work on data under a time bound.

A pattern that backtracks (``^(a|a)+$`` on forty ``a``'s and a ``!``) takes
longer than the age of the universe with Python's ``re``, which cannot be
interrupted, not even by Ctrl-C. Every regular expression the built-in checks
run on data goes through this module instead: it compiles with the `regex`
package and matches with its ``timeout``, against one `Deadline` per check, so
a check ends within its bound whatever the data and the patterns, and a
Ctrl-C is acted on as soon as it does.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator

import regex

from langchain_jev._errors import JevInputError

__all__ = ["DEFAULT_TIMEOUT", "Deadline", "compile_pattern", "finditer", "search"]

DEFAULT_TIMEOUT = 1.0
"""Seconds one built-in check may take on one input."""


class Deadline:
    """The time a check may still take; `left` raises once it has run out.

    Example:
        >>> deadline = Deadline(5.0, "the no_sensitive_data check")
        >>> 0 < deadline.left() <= 5.0
        True

    """

    def __init__(self, seconds: float, what: str) -> None:
        if not seconds > 0:
            raise ValueError(f"a time bound must be positive, got {seconds!r}")
        self.seconds = seconds
        """The whole bound, in seconds."""
        self.what = what
        """What is bounded, for the message (``the tool_arguments_valid check``)."""
        self._end = time.monotonic() + seconds

    def left(self) -> float:
        """The seconds left; raises `JevInputError` when none are."""
        remaining = self._end - time.monotonic()
        if remaining <= 0:
            raise self.expired()
        return remaining

    def expired(self) -> JevInputError:
        """The error of a check that ran out of time: it cannot be decided, so it never passes."""
        return JevInputError(
            f"{self.what} took longer than its bound of {self.seconds:g} s (a regular expression "
            "that backtracks, or data too large to check), so it cannot be decided"
        )


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """``pattern`` compiled by `regex` (cached); raises `regex.error` when it is not one."""
    return regex.compile(pattern, flags)


def search(pattern: str | regex.Pattern[str], text: str, deadline: Deadline) -> bool:
    """Whether ``pattern`` matches somewhere in ``text``, within the deadline.

    Example:
        >>> search(r"^(a|a)+$", "a" * 40 + "!", Deadline(0.05, "the check"))
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevInputError: the check took longer than its bound of 0.05 s (a regular \
expression that backtracks, or data too large to check), so it cannot be decided

    """
    compiled = compile_pattern(pattern) if isinstance(pattern, str) else pattern
    try:
        return compiled.search(text, timeout=deadline.left()) is not None
    except TimeoutError:
        raise deadline.expired() from None


def finditer(pattern: regex.Pattern[str], text: str, deadline: Deadline) -> Iterator[regex.Match[str]]:
    """Every match of ``pattern`` in ``text``, all found within the deadline."""
    try:
        yield from pattern.finditer(text, timeout=deadline.left())
    except TimeoutError:
        raise deadline.expired() from None
