"""A middleware's name: given, or made from its settings (pure).

- `middleware_name`: the ``name=`` a user gave (checked), or the default: the
  class's name, what tells instances apart at a glance in brackets (as
  LangChain's ``PIIMiddleware[email]``), and a short digest of every other
  setting that is not its default, so two instances whose settings differ never
  share a name (``create_agent`` refuses two middlewares of one name);
- `stable`: a value as it goes into the digest, the same in every process (an
  object by its class, a function by its qualified name), so a name stays the
  same across a restart, as the state keys built on it (`langchain_jev.middleware._state`) must.

Example:
    >>> middleware_name(None, "Guard", ["input"], {})
    'Guard[input]'
    >>> middleware_name(None, "Guard", ["input"], {"timeout": 5}) == middleware_name(
    ...     None, "Guard", ["input"], {"timeout": 6})
    False
    >>> middleware_name("mine", "Guard", ["input"], {})
    'mine'

"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_jev._errors import JevConfigurationError

__all__ = ["MAX_NAME", "middleware_name", "stable"]

MAX_NAME = 200
"""The longest name a middleware takes (it becomes a key of the agent's state)."""

_SHOWN = 4
"""How many items of a list the readable part shows before it counts the rest."""


def stable(value: Any) -> Any:
    """``value`` as plain JSON data that is the same in every process.

    Example:
        >>> stable([1, "a", len, object()])
        [1, 'a', 'builtins.len', 'builtins.object']

    """
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping):
        return {str(key): stable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [stable(item) for item in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, type) or callable(value):
        owner = value if isinstance(value, type) or hasattr(value, "__qualname__") else type(value)
        return f"{getattr(owner, '__module__', '?')}.{getattr(owner, '__qualname__', type(value).__name__)}"
    return f"{type(value).__module__}.{type(value).__qualname__}"


def shown(names: Sequence[str], joiner: str = "+") -> str:
    """Up to a few names joined, and how many more there are.

    Example:
        >>> shown(["a", "b"]), shown(list("abcdef"))
        ('a+b', 'a+b+c+d+2 more')

    """
    head = list(names[:_SHOWN])
    rest = len(names) - len(head)
    return joiner.join([*head, f"{rest} more"] if rest else head)


def middleware_name(given: Any, cls: str, readable: Sequence[str], described: Mapping[str, Any]) -> str:
    """The middleware's name: ``given``, or ``cls[readable..., digest of described]``.

    ``described`` holds every setting the readable part leaves out that is not its
    default; the digest is left out when there is none.

    Raises:
        JevConfigurationError: ``given`` is not a non-empty string of at most `MAX_NAME` characters.

    """
    if given is not None:
        if not isinstance(given, str) or not given.strip() or len(given) > MAX_NAME:
            raise JevConfigurationError(
                f"name must be a non-empty string of at most {MAX_NAME} characters, got {given!r:.80}"
            )
        return given
    parts = [part for part in readable if part]
    if described:
        text = json.dumps(stable(described), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        parts.append(hashlib.sha256(text.encode("ascii")).hexdigest()[:8])
    return f"{cls}[{', '.join(parts)}]" if parts else cls
