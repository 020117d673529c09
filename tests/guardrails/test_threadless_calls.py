"""A run without a thread id holds no release (invariant 2; round 10 class 6).

Every run without a ``thread_id`` used to count as one conversation, so a call
released in one ran unjudged when another sent it. No conversation holds a
release there now: nothing is recorded for such a run, and every call it sends
to the tools' door is judged (the graph tests are round 10's).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from langchain_jev.guardrails._calls import ReleasedCalls, ReleasedResponses
from langchain_jev.models import InMemoryCache

calls = st.fixed_dictionaries(
    {
        "name": st.text(min_size=1, max_size=8),
        "args": st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=3),
        "id": st.text(min_size=1, max_size=8),
        "type": st.just("tool_call"),
    }
)


@settings(max_examples=60, deadline=None)
@given(call=calls, thread=st.text(min_size=1, max_size=6), responses=st.booleans())
def test_a_release_holds_in_its_thread_once_and_never_without_one(
    call: dict[str, Any], thread: str, responses: bool
) -> None:
    kind = ReleasedResponses if responses else ReleasedCalls
    record = kind(InMemoryCache(), namespace="battery")
    record.grant("", [call])
    assert not record.claim("", call)  # a run without a thread: never a release
    record.grant(thread, [call])
    assert not record.claim("", call) and not record.claim(thread + "x", call)
    assert record.claim(thread, call)
    assert record.claim(thread, call) is responses  # a call runs once; a response id is read again
