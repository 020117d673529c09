"""The command line's argument types (argparse ``type=`` readers) and the exit codes' help text.

Each reader turns one option's text into its value or raises
``argparse.ArgumentTypeError`` with a message naming what was wrong.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from langchain_jev.datasets.exit_codes import EXIT_CODES

__all__ = [
    "base_url",
    "exit_codes_epilog",
    "int_at_least",
    "non_negative_int",
    "positive_float",
    "positive_int",
    "rate",
    "workers",
]


def rate(text: str) -> float:
    """``--fail-under``: a fraction (0 to 1), or a percentage (``80%``, or a number above 1: ``80``).

    A number from 0 to 1 is a fraction, so ``1`` is 100% and ``0.5`` is 50%; 1%
    is written ``1%`` (or ``0.01``).

    Example:
        >>> rate("80"), rate("0.8"), rate("80%"), rate("1"), rate("1%")
        (0.8, 0.8, 0.8, 1.0, 0.01)

    """
    stripped = text.strip()
    percent = stripped.endswith("%")
    try:
        number = float(stripped.rstrip("%").strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(number) or not 0 <= number <= 100:
        raise argparse.ArgumentTypeError(
            f"must be a fraction from 0 to 1 or a percentage from 0 to 100, got {text}"
        )
    return number / 100 if percent or number > 1 else number


def base_url(text: str) -> str:
    """``--base-url``: an http(s) URL with a host.

    Example:
        >>> base_url("http://localhost:8000")
        'http://localhost:8000'

    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a server address: give the scheme and the host, "
            "e.g. http://localhost:8000 or https://jev.example.com"
        )
    return text.strip()


def int_at_least(minimum: int, wording: str) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum`` (``wording`` says the bound)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {wording}, got {value}")
        return value

    return parse


positive_int = int_at_least(1, "at least 1")
non_negative_int = int_at_least(0, "0 or more")


def workers(text: str) -> int | None:
    """``--workers``: ``auto`` (None: chosen from the run) or a whole number of at least 1."""
    if text.strip().lower() == "auto":
        return None
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"must be 'auto' or a whole number of at least 1, got {text!r}"
        ) from None


def positive_float(text: str) -> float:
    """A finite number above 0 (``--timeout``, ``--rate-limit``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def exit_codes_epilog() -> str:
    """The help's list of exit codes and what each means (from `EXIT_CODES`)."""
    import textwrap

    lines = ["exit codes:"]
    for code, meaning in EXIT_CODES.items():
        lines.extend(textwrap.wrap(meaning, 78, initial_indent=f"  {code:<4}", subsequent_indent=" " * 6))
    return "\n".join(lines)

