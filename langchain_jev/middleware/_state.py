"""State channels that several instances of one middleware write in the same step.

``create_agent`` runs every ``wrap_model_call`` of a model step in one node, so
two guardrails (or two self-refine loops) in one agent write their keys in the
same step, which a plain key refuses (``InvalidUpdateError``). These keep both:

- `latest`: a reducer that keeps the last value written (the outermost middleware
  writes last, being the last to act), for the keys one instance always had;
- `by_name`: a reducer over ``{middleware name: value}`` maps that keeps every
  instance's entry (a None entry removes it), for each instance's own place;
- `UntrackedByName`: the same map for values of one run that are never
  checkpointed (as LangGraph's ``UntrackedValue``);
- `latest_untracked`: an ``UntrackedValue`` that takes the last of several writes.

Example:
    >>> by_name({"a": 1}, {"b": 2}), by_name({"a": 1, "b": 2}, {"a": None})
    ({'a': 1, 'b': 2}, {'b': 2})
    >>> latest(1, 2)
    2

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langgraph.channels.untracked_value import UntrackedValue

__all__ = ["UntrackedByName", "by_name", "latest", "latest_untracked"]


def latest(old: Any, new: Any) -> Any:
    """Keep the value written last."""
    return new


def by_name(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> dict[str, Any]:
    """``old`` with each entry of ``new`` laid over it; an entry of None removes its name."""
    merged = dict(old) if isinstance(old, Mapping) else {}
    for name, value in (new or {}).items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    return merged


def latest_untracked() -> UntrackedValue[Any]:
    """A channel for a value of one run, never checkpointed, that several middlewares write in one step."""
    return UntrackedValue(object, guard=False)


class UntrackedByName(UntrackedValue[Any]):
    """A ``{name: value}`` map of one run, never checkpointed, each write merged (`by_name`)."""

    __slots__ = ()

    def __init__(self, typ: Any = dict, guard: bool = False) -> None:
        super().__init__(typ, guard=False)

    def update(self, values: Sequence[Any]) -> bool:
        """Merge each write, in order, into the map."""
        if not values:
            return False
        current: dict[str, Any] = self.get() if self.is_available() else {}
        for value in values:
            current = by_name(current, value)
        self.value = current
        return True
