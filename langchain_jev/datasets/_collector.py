"""The garbage collector tuned for a judging run: what is loaded is frozen, and it runs less often.

Both engines judge in processes that make many short-lived objects per row (the
local engine's worker processes and this process, the Ray engine's actors).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["lean_gc", "lean_gc_for_good"]


@contextlib.contextmanager
def lean_gc(threshold: int = 10_000) -> Iterator[None]:
    """Keep the garbage collector off what is loaded already, and let it run less often, meanwhile.

    Judging makes many short-lived objects per row; by default the collector
    runs every 700 of them and keeps scanning the libraries' long-lived objects.
    Frozen (``gc.freeze``), those are left alone, and collecting every
    ``threshold`` objects costs a fraction of the time. Both are undone after.

    Example:
        >>> import gc
        >>> with lean_gc():
        ...     gc.get_threshold()[0]
        10000

    """
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(threshold, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def lean_gc_for_good(threshold: int = 10_000) -> None:
    """`lean_gc` for the rest of a process that only judges (a Ray actor), never undone.

    Example:
        >>> import gc
        >>> before = gc.get_threshold()
        >>> lean_gc_for_good()
        >>> gc.get_threshold()[0]
        10000
        >>> gc.unfreeze(); gc.set_threshold(*before)

    """
    gc.freeze()
    gc.set_threshold(threshold, *gc.get_threshold()[1:])
