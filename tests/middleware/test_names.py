"""Every middleware of the package is named by its settings: two that differ never share a name.

``create_agent`` refuses two middlewares of one name; LangChain's own stackable
middleware names itself by its settings (``PIIMiddleware[email]``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain_core.decisions import Noul

from langchain_jev import JevConfigurationError, JevCriterion, JevJudge
from langchain_jev.middleware import JevGuardrailMiddleware, JevSelfRefineMiddleware
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import ReplyingChatModel

RAILS = st.sampled_from(
    [
        (True, True, False),
        (True, False, False),
        (False, True, False),
        (True, True, True),
        (False, False, True),
    ]
)
GUARD = st.fixed_dictionaries(
    {
        "rails": RAILS,
        "strictness": st.sampled_from(["lenient", "balanced", "strict"]),
        "categories": st.sampled_from([None, ("violent_crimes",), ("hate", "privacy")]),
        "timeout": st.sampled_from([30.0, 5.0]),
        "mode": st.sampled_from(["enforce", "shadow"]),
        "stream_chunks": st.sampled_from([None, 8]),
    }
)


def guard(config: dict[str, Any]) -> JevGuardrailMiddleware:
    check_input, check_output, check_tool_results = config["rails"]
    categories = config["categories"]
    if categories is not None and not (check_input or check_output):
        categories = None
    options = {k: v for k, v in config.items() if k not in ("rails", "categories")}
    if not check_output:
        options.pop("stream_chunks")
    return JevGuardrailMiddleware(
        check_input=check_input,
        check_output=check_output,
        check_tool_results=check_tool_results,
        categories=categories,
        **options,
    )


@settings(max_examples=60, deadline=None)
@given(GUARD, GUARD)
def test_two_guardrails_share_a_name_only_when_their_settings_are_the_same(
    one: dict[str, Any], other: dict[str, Any]
) -> None:
    first, second = guard(one), guard(other)
    same = first.settings == second.settings and [
        (r.check, r.battery.fingerprint) for r in first.door.rails
    ] == [(r.check, r.battery.fingerprint) for r in second.door.rails]
    assert (first.name == second.name) == same, (first.name, second.name)


def test_a_guardrail_name_reads_like_langchains_own() -> None:
    assert JevGuardrailMiddleware().name == "JevGuardrailMiddleware[input+output]"
    assert (
        JevGuardrailMiddleware(check_input=False, strictness="strict").name
        == "JevGuardrailMiddleware[output, strict]"
    )
    assert JevGuardrailMiddleware(check_output=False, categories=["hate", "S1"]).name == (
        "JevGuardrailMiddleware[input, hate+violent_crimes]"
    )


def test_the_models_tell_guardrails_apart_and_a_secret_never_shows() -> None:
    jev_a = JevGuardrailMiddleware(model=ScriptedDecisionModel({}, model="a"))
    jev_b = JevGuardrailMiddleware(model=ScriptedDecisionModel({}, model="b"))
    assert jev_a.name != jev_b.name
    key = "k" * 48
    one = JevGuardrailMiddleware(review_key=key, on_error="interrupt")
    other = JevGuardrailMiddleware(review_key="z" * 48, on_error="interrupt")
    assert key not in one.name and one.name == other.name  # the key counts as set, never by its value


@pytest.mark.parametrize("bad", ["", "   ", 3, "x" * 201])
def test_a_bad_name_is_refused_naming_it(bad: Any) -> None:
    with pytest.raises(JevConfigurationError, match="name must be"):
        JevGuardrailMiddleware(name=bad)
    with pytest.raises(JevConfigurationError, match="name must be"):
        JevSelfRefineMiddleware(judge(0.7), name=bad)


def judge(minimum: float, model: str = "scripted", name: str = "cites_unit") -> JevJudge:
    question = Noul(instructions="Does `assistant_answer` give the unit of every number?")
    return JevJudge(
        [JevCriterion.noul(name, question, minimum)], model=ScriptedDecisionModel({}, model=model)
    )


REFINE = st.fixed_dictionaries(
    {
        "minimum": st.sampled_from([0.5, 0.7]),
        "model": st.sampled_from(["scripted", "other"]),
        "criterion": st.sampled_from(["cites_unit", "brief"]),
        "max_attempts": st.sampled_from([1, 3]),
        "keep": st.sampled_from(["last", "best"]),
        "stream_drafts": st.booleans(),
    }
)


def refine(config: dict[str, Any]) -> JevSelfRefineMiddleware:
    return JevSelfRefineMiddleware(
        judge(config["minimum"], config["model"], config["criterion"]),
        max_attempts=config["max_attempts"],
        keep=config["keep"],
        stream_drafts=config["stream_drafts"],
    )


@settings(max_examples=60, deadline=None)
@given(REFINE, REFINE)
def test_two_self_refine_loops_share_a_name_only_when_their_settings_are_the_same(
    one: dict[str, Any], other: dict[str, Any]
) -> None:
    assert (refine(one).name == refine(other).name) == (one == other)


def test_names_are_the_same_in_every_process() -> None:
    import subprocess
    import sys

    code = (
        "from langchain_jev.middleware import JevGuardrailMiddleware as G\n"
        "from langchain_jev.testing import ScriptedDecisionModel as S\n"
        "print(G(timeout=5, model=S({}), on_flag=print).name)"
    )
    names = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    }
    assert len(names) == 1 and "JevGuardrailMiddleware[input+output, " in names.pop()


def test_create_agent_takes_two_of_each_and_a_given_name() -> None:
    mw = [
        JevGuardrailMiddleware(check_output=False),
        JevGuardrailMiddleware(check_input=False, strictness="lenient"),
        JevSelfRefineMiddleware(judge(0.7)),
        JevSelfRefineMiddleware(judge(0.5)),
    ]
    create_agent(ReplyingChatModel(replies=["ok"]), middleware=mw)
    with pytest.raises(AssertionError, match="duplicate"):
        create_agent(
            ReplyingChatModel(replies=["ok"]), middleware=[JevGuardrailMiddleware(), JevGuardrailMiddleware()]
        )
    named = [JevGuardrailMiddleware(name="a"), JevGuardrailMiddleware(name="b")]
    create_agent(ReplyingChatModel(replies=["ok"]), middleware=named)
