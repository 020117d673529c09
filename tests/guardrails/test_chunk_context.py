"""A streamed reply's chunks are judged with their context counted in characters, so a word is judged whole.

With ``stream_chunks=N`` each chunk is judged with the last ``chunk_context``
characters shown before it (200 by default, at least 64). So a marker split at a
chunk boundary, whatever the chunk size (below 4 too) and however the model cut
it into tokens (one letter each too), is seen whole by the check of the chunk it
ends in, on every form (guarded model node, ``guard_model``, middleware). The
property test generates the split.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.guardrails.test_streamed import (
    FORMS,
    MARK,
    REFUSAL,
    PacedChat,
    build,
    run,
    shown_chunks,
    thread,
)


def outcome(
    form: str, tokens: list[str], size: int, way: str = "astream:messages"
) -> tuple[Any, Any, list[Any]]:
    """The reply the thread kept, the judge, and what ``way`` showed, for ``tokens`` judged every ``size``."""
    graph, judge = build(form, PacedChat(tokens=tokens, pace=size), stream_chunks=size, chunk_context=None)
    parts = asyncio.run(run(graph, way, thread()))
    return graph.get_state(thread()).values["messages"][-1], judge, parts


def assert_seen_whole_and_stopped(reply: Any, judge: Any, parts: list[Any], way: str) -> None:
    assert any(MARK in answer for answer in judge.answers), "no check saw the marker whole"
    assert str(reply.content).endswith(REFUSAL), "the reply carrying the marker was released"
    shown = "".join(str(c.content) for c in shown_chunks(parts, way))
    assert MARK not in shown


@pytest.mark.parametrize("way", ["astream:messages", "stream:messages"])
@pytest.mark.parametrize("size", [1, 2, 3])
@pytest.mark.parametrize("form", FORMS)
def test_with_stream_chunks_below_4_a_word_split_at_a_boundary_is_judged_whole(
    form: str, size: int, way: str
) -> None:
    tokens = [*(["word "] * (size - 1)), "nerve", " agent", " that", " I", " describe", " below"]
    assert tokens.index("nerve") % size == size - 1  # the marker's words end one chunk and start the next
    reply, judge, parts = outcome(form, tokens, size, way)
    assert_seen_whole_and_stopped(reply, judge, parts, way)


@pytest.mark.parametrize("form", FORMS)
def test_a_word_streamed_in_one_letter_tokens_is_judged_whole_at_20(form: str) -> None:
    text = "Lentils are " + MARK + " and more words follow here, quite a few of them."
    assert text.index(MARK) == 12  # eight of its letters end the first chunk of 20
    reply, judge, parts = outcome(form, list(text), 20)
    assert_seen_whole_and_stopped(reply, judge, parts, "astream:messages")


filler = st.lists(st.sampled_from(["lentils", "simmer", "water", "salt", "a", "the", "rinse"]), max_size=40)


@st.composite
def replies(draw: st.DrawFn) -> tuple[list[str], int]:
    """A reply of random length with the marker somewhere, cut into tokens at random places."""
    text = " ".join([*draw(filler), MARK, *draw(filler)])
    cuts = sorted(draw(st.sets(st.integers(1, len(text) - 1), max_size=len(text) - 1)))
    bounds = [0, *cuts, len(text)]
    tokens = [text[a:b] for a, b in itertools.pairwise(bounds)]
    return tokens, draw(st.integers(1, 25))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies(), st.sampled_from(FORMS))
def test_a_marker_cut_into_tokens_anywhere_is_judged_whole(case: tuple[list[str], int], form: str) -> None:
    tokens, size = case
    reply, judge, parts = outcome(form, tokens, size)
    assert_seen_whole_and_stopped(reply, judge, parts, "astream:messages")


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_a_window_holds_every_text_of_up_to_context_plus_one_characters_that_ends_in_its_chunk(
    data: st.DataObject,
) -> None:
    from langchain_jev.guardrails._chunks import chunk_window
    from langchain_jev.guardrails._settings import MIN_CHUNK_CONTEXT

    tokens = data.draw(st.lists(st.text(min_size=1, max_size=6), min_size=2, max_size=80))
    shown = data.draw(st.integers(1, len(tokens) - 1))
    context = data.draw(st.integers(MIN_CHUNK_CONTEXT, 300))
    before, chunk = "".join(tokens[:shown]), "".join(tokens[shown:])
    whole = before + chunk
    end = data.draw(st.integers(len(before), len(whole) - 1))  # a text ending inside the chunk
    start = data.draw(st.integers(max(0, end - context), end))  # of at most context + 1 characters
    left, right = chunk_window(tokens, shown, context)
    assert right == chunk and (left + right).endswith(whole[end + 1 :])
    assert whole[start : end + 1] in left + right
