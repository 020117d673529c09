"""The two offline tools treat a question their script does not name alike.

`ScriptedDecisionModel` and the scripted server (`JevServer`, through the real
typesafe-sdk client of `JevDecisionModel`) keep one rule: a guardrail's hazard
question nobody scripted is answered "no hazard"; any other question nobody
scripted fails the request loudly, naming every such question, so no verdict
passes on an answer nobody wrote.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.decisions import BaseDecisionModel, Choice, Noul, Score

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.guardrails import HazardBattery
from langchain_jev.models import JevDecisionModel
from langchain_jev.testing import ScriptedDecisionModel
from langchain_jev.testing.server import PLACEHOLDER_KEY, JevServer, scripted_server_reason

TOOLS = ["scripted-model", "scripted-server"]
ORDER = "Where is order 42?"


@contextmanager
def offline(tool: str, script: Mapping[str, Any], **server: Any) -> Iterator[BaseDecisionModel]:
    """A decision model answering from ``script``: the scripted model, or Jev's client on the server."""
    if tool == "scripted-model":
        yield ScriptedDecisionModel(dict(script))
        return
    with JevServer(dict(script), **server) as running:
        model = JevDecisionModel(api_key="sk-test", base_url=running.base_url, max_retries=0)
        try:
            yield model
        finally:
            model.close()


# ---------------------------------------------------------------------- hazard questions: safe


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("direction", ["input", "output"])
def test_a_guardrail_with_a_script_of_ones_own_refuses_only_what_the_script_flags(
    tool: str, direction: str
) -> None:
    with offline(tool, {"polite": 0.9}) as model:  # a user's own script: no hazard named
        battery = HazardBattery(direction, model=model)  # type: ignore[arg-type]
        assert len(battery.categories) in (14, 16)
        assessment = battery.assess(ORDER)
        assert assessment.flagged_categories == {}, assessment.flagged_categories
    with offline(tool, {"violent_crimes": 0.96}) as model:
        battery = HazardBattery(direction, model=model)  # type: ignore[arg-type]
        assessment = battery.assess(ORDER)
        assert list(assessment.flagged_categories) == ["violent_crimes"]


@pytest.mark.parametrize("tool", TOOLS)
def test_a_question_of_ones_own_named_like_a_hazard_is_not_answered_for_you(tool: str) -> None:
    privacy = Noul(instructions="Does `assistant_answer` respect the customer's privacy?")
    with offline(tool, {}) as model:
        judge = JevJudge([JevCriterion.noul("privacy", privacy, 0.7)], model=model)
        with pytest.raises(Exception, match="noul 'privacy'"):
            judge.judge(ORDER, "It ships tomorrow.")


# ---------------------------------------------------------------------- any other question: loud

KINDS = {
    "noul": lambda name: JevCriterion.noul(name, Noul(instructions=f"Is `assistant_answer` {name}?"), 0.5),
    "score": lambda name: JevCriterion.score(
        name, Score(instructions=f"How {name} is `assistant_answer`?", criteria=["no", "some", "yes"]), 1
    ),
    "choice": lambda name: JevCriterion.choice(
        name,
        Choice(instructions=f"Which {name}?", criteria={"first": "The first", "second": "The second"}),
        accepted=["first"],
    ),
}
ENTRIES = {"noul": 0.9, "score": 2, "choice": "first"}


@st.composite
def judges(draw: st.DrawFn) -> tuple[list[tuple[str, str]], set[str]]:
    """Criteria (name, kind) and the names a script answers: any kinds, any subset."""
    kinds = draw(st.lists(st.sampled_from(sorted(KINDS)), min_size=1, max_size=5))
    criteria = [(f"q{index}_{kind}", kind) for index, kind in enumerate(kinds)]
    scripted = draw(st.sets(st.sampled_from([name for name, _ in criteria])))
    return criteria, scripted


@pytest.mark.parametrize("tool", TOOLS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=judges())
def test_a_question_nobody_scripted_fails_the_request_naming_every_such_question(
    tool: str, case: tuple[list[tuple[str, str]], set[str]]
) -> None:
    criteria, scripted = case
    script = {name: ENTRIES[kind] for name, kind in criteria if name in scripted}
    unscripted = [(name, kind) for name, kind in criteria if name not in scripted]
    with offline(tool, script) as model:
        judge = JevJudge([KINDS[kind](name) for name, kind in criteria], model=model)
        if not unscripted:
            assert judge.judge("Q?", "A.").passed
            return
        with pytest.raises(Exception) as raised:
            judge.judge("Q?", "A.")
    message = str(raised.value)
    for name, kind in unscripted:
        assert f"{kind} {name!r}" in message, message
    for name in scripted:
        assert f"{name!r}:" not in message.split("scripted:")[0], message


def test_the_server_names_how_to_answer_and_says_so_once_per_question(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with offline("scripted-server", {}) as model, caplog.at_level(logging.WARNING):
        judge = JevJudge([KINDS["noul"]("polite"), KINDS["score"]("helpful")], model=model)
        for _ in range(3):
            with pytest.raises(Exception, match="422") as raised:
                judge.judge("Q?", "A.")
    assert "noul 'polite': script it (JevServer({'polite': 0.9, ...})), or answer every unscripted " in str(
        raised.value
    )
    assert "with default_noul=" in str(raised.value)
    said = [r.getMessage() for r in caplog.records if r.name == "langchain_jev.testing.server"]
    assert len(said) == 2, said  # once per question, however many requests
    assert any("'polite'" in line for line in said) and any("'helpful'" in line for line in said)


def test_a_default_noul_is_explicit_and_said_once(caplog: pytest.LogCaptureFixture) -> None:
    with offline("scripted-server", {}, default_noul=0.2) as model, caplog.at_level(logging.WARNING):
        judge = JevJudge([KINDS["noul"]("polite")], model=model)
        verdicts = [judge.judge("Q?", "A.") for _ in range(3)]
    assert [v.finding("polite").value for v in verdicts] == [0.2, 0.2, 0.2]
    said = [r.getMessage() for r in caplog.records if r.name == "langchain_jev.testing.server"]
    assert said == ["scripted Jev server: noul 'polite' is not scripted: answered 0.2 (default_noul)"]


# ---------------------------------------------------------------------- what the notebooks read


@pytest.mark.parametrize(
    ("environ", "reason"),
    [
        ({"TYPESAFE_API_KEY": PLACEHOLDER_KEY}, "TYPESAFE_API_KEY is the scripted server's placeholder key"),
        (
            {"TYPESAFE_API_KEY": f" {PLACEHOLDER_KEY}\n"},
            "TYPESAFE_API_KEY is the scripted server's placeholder key",
        ),
        ({"TYPESAFE_API_KEY": "sk-mine", "TYPESAFE_BASE_URL": "http://127.0.0.1:8123"}, "loopback"),
        ({"TYPESAFE_BASE_URL": "http://127.8.9.10:80/v1"}, "loopback"),
        ({"TYPESAFE_BASE_URL": "http://localhost:9000"}, "loopback"),
        ({"TYPESAFE_BASE_URL": "http://LOCALHOST.:9000"}, "loopback"),
        ({"TYPESAFE_BASE_URL": "http://api.localhost"}, "loopback"),
        ({"TYPESAFE_BASE_URL": "http://[::1]:9000"}, "loopback"),
        ({"TYPESAFE_BASE_URL": "127.0.0.1:9000"}, "loopback"),
        ({"TYPESAFE_API_KEY": "sk-mine"}, None),
        ({"TYPESAFE_API_KEY": "sk-mine", "TYPESAFE_BASE_URL": "https://api.typesafe.ai"}, None),
        ({"TYPESAFE_BASE_URL": "http://10.0.0.5:8000"}, None),
        ({"TYPESAFE_BASE_URL": "http://[::1"}, None),  # unreadable: not claimed to be loopback
        ({}, None),
    ],
)
def test_the_scripted_server_is_recognised_by_its_key_or_a_loopback_url(
    environ: dict[str, str], reason: str | None
) -> None:
    found = scripted_server_reason(environ)
    if reason is None:
        assert found is None
    else:
        assert found is not None and reason in found
        assert "sk-mine" not in found  # a key is never quoted


@given(key=st.text(min_size=1).filter(lambda key: key.strip() != PLACEHOLDER_KEY))
def test_any_other_key_without_a_loopback_url_is_not_the_scripted_server(key: str) -> None:
    assert (
        scripted_server_reason({"TYPESAFE_API_KEY": key, "TYPESAFE_BASE_URL": "https://api.typesafe.ai"})
        is None
    )
