"""A review resumes in HumanInTheLoopMiddleware's vocabulary too, still bound to its token.

Agent UIs render LangChain's ``{"decisions": [{"type": "approve" | "reject" ...}]}``;
a guardrail's review reads one ``approve`` (with the review token) as an allow and one
``reject`` as a refusal, on every form. An approve without the token, or with another
pause's, refuses; so does any other shape (an edit, two decisions, an unknown key).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.types import Command

from langchain_jev.guardrails._review import ReviewBinding, plain_decision, read_review, review_token
from tests.guardrails.test_review_binding import FORMS, REPLY, allowed, graph_for, paused, thread, token_for


def approve(token: str | None) -> dict[str, Any]:
    decision: dict[str, Any] = {"type": "approve"}
    if token is not None:
        decision["token"] = token
    return {"decisions": [decision]}


@pytest.mark.parametrize("form", FORMS)
def test_an_approve_with_the_token_allows_its_pause(form: str) -> None:
    graph = graph_for(form)
    pending = paused(graph, "t1")
    out = graph.invoke(Command(resume=approve(token_for(pending))), thread("t1"))
    assert allowed(out) and out["messages"][-1].content == REPLY


@pytest.mark.parametrize("form", FORMS)
def test_a_reject_refuses(form: str) -> None:
    graph = graph_for(form)
    paused(graph, "t1")
    out = graph.invoke(Command(resume={"decisions": [{"type": "reject", "message": "no"}]}), thread("t1"))
    assert not allowed(out)


@pytest.mark.parametrize("form", FORMS)
def test_an_approve_without_its_token_or_with_another_pause_s_refuses(form: str) -> None:
    graph = graph_for(form)
    paused(graph, "t1")
    assert not allowed(graph.invoke(Command(resume=approve(None)), thread("t1")))
    graph = graph_for(form)
    other = paused(graph, "t2")
    paused(graph, "t1")
    assert not allowed(graph.invoke(Command(resume=approve(token_for(other))), thread("t1")))


KEY = b"a-review-key-of-16+"
BINDING = ReviewBinding("t", "r1", "f1")
REQUEST = {"thread_id": "t", "review_id": "r1", "fingerprint": "f1"}


@given(
    st.one_of(
        st.just({"decisions": []}),
        st.lists(st.just({"type": "approve"}), min_size=2, max_size=3).map(lambda d: {"decisions": d}),
        st.sampled_from(["edit", "respond", "Approve", "allow", ""]).map(
            lambda t: {"decisions": [{"type": t}]}
        ),
        st.dictionaries(st.text(max_size=5), st.integers(), min_size=1).map(
            lambda extra: {"decisions": [{"type": "approve", **extra}]}
        ),
        st.just({"decisions": [{"type": "approve"}], "decision": "allow"}),
    )
)
def test_no_other_shape_is_an_allow(value: dict[str, Any]) -> None:
    token = review_token(KEY, REQUEST, issued_at=1000)
    with_token = {  # each decision that could carry a token carries the right one
        **value,
        "decisions": [
            {**d, "token": token} if isinstance(d, dict) and not (set(d) - {"type", "token"}) else d
            for d in value["decisions"]
        ],
    }
    if plain_decision(with_token) == {"decision": "allow", "token": token}:
        return  # exactly one approve with only its token: the documented form
    assert read_review(with_token, BINDING, KEY, now=1060)[0] is False
