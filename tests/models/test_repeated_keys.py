"""A decision model that answers a question twice said nothing readable: that finding is an ERROR.

JSON lets an object name a key twice, and every parser picks the last value
silently. The package reads answers by one rule (`langchain_jev.models._unique_json`):
nothing is picked from a key given twice. On the Jev wire (the real SDK over
``httpx2.MockTransport``), a question named twice or a key given twice inside an
answer makes that one finding ERROR, whatever its depth, and a key given twice
elsewhere makes the body unreadable (the SDK's validation error); a guardrail
therefore refuses (fail closed). The chat model's JSON (text replies, and OpenAI's
tool-call arguments through langchain-openai's own parser), a jury's members and
the scripted server follow the same rule.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage, HumanMessage
from typesafe_sdk import TypeSafeAPIResponseValidationError

from langchain_jev import ChatModelDecisionModel, JevCriterion, JevJudge, Outcome
from langchain_jev.guardrails import HazardBattery
from langchain_jev.models import JuryDecisionModel
from langchain_jev.testing import ScriptedDecisionModel
from langchain_jev.testing.server import Fault, JevServer, load_script
from tests.fakes import JevWire
from tests.guardrails.helpers import chat, guarded_graph
from tests.models.chat.helpers import ScriptedChatModel, ToolCallingChatModel
from tests.models.test_answer_properties import CRITERIA, FINE, JSON

MODES = pytest.mark.parametrize("mode", ["sync", "async"])


class Pairs(list[tuple[str, Any]]):
    """A JSON object as its key-value pairs in order, so that one key may be given twice."""


def as_pairs(value: Any) -> Any:
    if isinstance(value, dict):
        return Pairs((key, as_pairs(item)) for key, item in value.items())
    if isinstance(value, list):
        return [as_pairs(item) for item in value]
    return value


def dump(value: Any, colon: str = ": ") -> str:
    """JSON text of a document, an object's pairs in order (``colon`` between each key and its value)."""
    if isinstance(value, Pairs):
        return "{" + ", ".join(f"{json.dumps(key)}{colon}{dump(item, colon)}" for key, item in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dump(item, colon) for item in value) + "]"
    return json.dumps(value)


COLONS = st.sampled_from([": ", ":", " : ", "\n:\t"])
"""How a server may write the colon after a key (a quick count of keys must never be fooled)."""


def objects(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Pairs]]:
    """Every object of a document with its path, the top level first."""
    found: list[tuple[tuple[Any, ...], Pairs]] = []
    if isinstance(value, Pairs):
        found.append((path, value))
        for key, item in value:
            found += objects(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += objects(item, (*path, index))
    return found


def dotted(place: tuple[Any, ...]) -> str:
    return "".join(
        f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(place)
    )


def body(answers: dict[str, Any] | None = None) -> Pairs:
    document = {
        "model": "jev-latest",
        "usage": {"input_tokens": 9, "output_tokens": 3},
        "answers": answers or FINE,
    }
    return as_pairs(document)  # type: ignore[no-any-return]


def judge_over(content: str | bytes, mode: str, criteria: list[JevCriterion] = CRITERIA) -> Any:
    judge = JevJudge(criteria, model=JevWire(body=content).model(mode))
    if mode == "sync":
        return judge.judge("Is it safe?", "Yes.")
    return asyncio.run(judge.ajudge("Is it safe?", "Yes."))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), mode=st.sampled_from(["sync", "async"]), colon=COLONS)
def test_a_key_given_twice_at_any_depth_is_never_picked_from(
    data: st.DataObject, mode: str, colon: str
) -> None:
    document = body()
    path, node = data.draw(st.sampled_from([(p, o) for p, o in objects(document) if o]), label="object")
    key, value = data.draw(st.sampled_from(list(node)), label="key")
    again = data.draw(st.one_of(st.just(value), JSON), label="its second value")
    node.insert(data.draw(st.integers(0, len(node)), label="at"), (key, again))
    place = (*path, key)

    if len(place) >= 2 and place[0] == "answers":  # inside the answers: that one finding
        verdict = judge_over(dump(document, colon), mode)
        name = place[1]
        for finding in verdict.findings:
            if finding.name == name:
                assert finding.outcome is Outcome.ERROR, finding.detail
                assert f'the key "{key}" is given 2 times' in finding.detail
            else:
                assert finding.outcome is Outcome.PASSED, finding.detail  # the others stand
    else:  # the answers, the model or the usage given twice: the body says nothing readable
        with pytest.raises(TypeSafeAPIResponseValidationError) as caught:
            judge_over(dump(document, colon), mode)
        assert caught.value.field_path == dotted(place)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    colon=COLONS,
    extra=st.dictionaries(st.sampled_from(["id", "note", "type"]), JSON, max_size=2),
)
def test_the_quick_count_of_keys_never_passes_a_body_that_gives_one_twice(
    data: st.DataObject, colon: str, extra: dict[str, Any]
) -> None:
    """Whatever the body, a count that agrees means no key is given twice (else the exact check decides)."""
    from langchain_jev.models._unique_json import loads
    from langchain_jev.models._wire import _every_key_once, _QuickResponse

    document = body({**FINE, "safe": {**FINE["safe"], **extra}})
    if data.draw(st.booleans(), label="repeat a key"):
        _, node = data.draw(st.sampled_from([(p, o) for p, o in objects(document) if o]), label="object")
        key, value = data.draw(st.sampled_from(list(node)), label="key")
        node.insert(
            data.draw(st.integers(0, len(node)), label="at"),
            (key, data.draw(st.one_of(st.just(value), JSON))),
        )
    content = dump(document, colon).encode()
    try:
        quick = _QuickResponse.model_validate_json(content, strict=True)
    except ValueError:
        return
    if _every_key_once(content, quick):
        assert loads(content)[1] == ()


@MODES
def test_the_issue_s_answer_given_twice_is_an_error_whichever_value_comes_last(mode: str) -> None:
    for first, last in [(0.1, 0.9), (0.9, 0.1)]:
        content = (
            '{"model": "jev-latest", "usage": {}, "answers": {'
            f'"safe": {{"type": "noul", "noul": {first}}}, "safe": {{"type": "noul", "noul": {last}}}}}}}'
        )
        finding = judge_over(content, mode, CRITERIA[:1]).finding("safe")
        assert finding.outcome is Outcome.ERROR
        assert 'answers.safe: the key "safe" is given 2 times' in finding.detail


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_guardrail_refuses_a_turn_whose_hazard_was_answered_twice(asynchronous: bool) -> None:
    """Before, the second (safe) answer was picked and the battery let the turn through."""
    content = (
        '{"model": "jev-latest", "usage": {}, "answers": {'
        '"hate": {"type": "noul", "noul": 0.97}, "hate": {"type": "noul", "noul": 0.01}}}'
    )
    wire = JevWire(body=content)
    agent = chat("Here you are.")
    battery = HazardBattery.input(["hate"], model=wire.model("async" if asynchronous else "sync"))
    graph = guarded_graph(agent, input_battery=battery)
    state = {"messages": [HumanMessage("a message about a group of people")]}

    out = asyncio.run(graph.ainvoke(state)) if asynchronous else graph.invoke(state)

    assert wire.calls == 1
    assert agent.calls == 0
    assert out["guardrail"]["refused"] is True


def test_a_jury_member_that_answers_twice_is_never_combined() -> None:
    twice = '{"model": "a", "usage": {}, "answers": {"safe": {"type": "noul", "noul": 0.1, "noul": 0.99}}}'
    members = {
        "twice": JevWire(body=twice).model("sync"),
        "other": ScriptedDecisionModel({"safe": 0.3}, model="b"),
    }

    everyone = JevJudge(CRITERIA[:1], model=JuryDecisionModel(members)).judge("Is it safe?", "Yes.")
    assert everyone.finding("safe").outcome is Outcome.ERROR
    assert "twice: answers.safe.noul" in everyone.finding("safe").detail

    one = JevJudge(CRITERIA[:1], model=JuryDecisionModel(members, quorum=1)).judge("Is it safe?", "Yes.")
    assert one.finding("safe").value == pytest.approx(0.3)  # the other member's alone: no pick of 0.1 or 0.99
    assert one.finding("safe").outcome is Outcome.FAILED


# ---------------------------------------------------------------- chat models


POLITE = [JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.5)]


def test_a_chat_model_s_text_reply_that_answers_twice_is_an_error_after_its_retry() -> None:
    reply = '{"polite": {"yes_probability": 0.05}, "polite": {"yes_probability": 0.95}}'
    model = ScriptedChatModel(replies=[reply, reply])
    finding = JevJudge(POLITE, model=ChatModelDecisionModel(model, strategy="structured")).judge(
        "Hi?", "Hello!"
    )
    assert finding.finding("polite").outcome is Outcome.ERROR
    assert len(model.calls) == 2  # asked once more, told what was wrong
    assert 'the key "polite" is given 2 times' in str(model.calls[1]["messages"][-1].content)


def test_a_tool_call_whose_arguments_repeat_an_inner_key_is_an_error() -> None:
    arguments = '{"polite": {"reasoning": "Kind.", "yes_probability": 0.05, "yes_probability": 0.95}}'
    call = {"id": "c1", "type": "function", "function": {"name": "jev_answers", "arguments": arguments}}
    parsed = json.loads(arguments)
    replies = [
        AIMessage(
            content="",
            tool_calls=[{"name": "jev_answers", "args": parsed, "id": "c1"}],
            additional_kwargs={"tool_calls": [call]},
        )
    ] * 2
    model = ToolCallingChatModel(replies=replies)
    verdict = JevJudge(POLITE, model=ChatModelDecisionModel(model, strategy="structured")).judge(
        "Hi?", "Hello!"
    )
    assert verdict.finding("polite").outcome is Outcome.ERROR
    assert "polite.yes_probability" in verdict.finding("polite").detail


def openai_chat(content: str) -> Any:
    """langchain-openai's ChatOpenAI over ``httpx.MockTransport``: its own parser reads the reply."""
    from langchain_openai import ChatOpenAI

    def handler(request: httpx.Request) -> httpx.Response:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        return httpx.Response(
            200,
            json={
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1,
                "model": "gpt-4o-mini",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            },
        )

    return ChatOpenAI(
        model="gpt-4o-mini",
        api_key="sk-test-openai",  # type: ignore[arg-type]
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
        max_retries=0,
    )


def test_openai_s_own_parser_picks_the_last_value_and_the_judge_does_not() -> None:
    """ChatOpenAI's structured output (json_schema) parses the reply's text: the judge reads that text again."""
    pytest.importorskip("langchain_openai")
    text = '{"polite_reasoning": "Kind.", "polite": 0.05, "polite": 0.95}'
    model = ChatModelDecisionModel(openai_chat(text), strategy="structured")
    verdict = JevJudge(POLITE, model=model).judge("Hi?", "Hello!")
    assert verdict.finding("polite").outcome is Outcome.ERROR, verdict.finding("polite").detail


# ---------------------------------------------------------------- the scripted server


def test_a_script_that_answers_a_question_twice_is_refused_naming_it(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match='polite: the key "polite" is given 2 times'):
        load_script('{"polite": 0.2, "polite": 0.9}')
    path = tmp_path / "answers.json"
    path.write_text(
        '{"answers": {}, "rules": [{"when": {"a": "b"}, "answers": {"x": 1, "x": 0}}]}', encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"rules\[0\]\.answers\.x"):
        load_script(str(path))


def test_the_server_refuses_a_request_that_names_a_key_twice_and_sends_raw_bodies() -> None:
    raw = b'{"model": "m", "usage": {}, "answers": {"ok": {"type": "noul", "noul": 0.1}, "ok": {"type": "noul", "noul": 0.9}}}'
    headers = {"Authorization": "Bearer sk-test", "Content-Type": "application/json"}
    with JevServer({"ok": 0.8}, faults=[None, Fault(body=raw)]) as server:
        refused = httpx2.post(
            server.base_url + "/v1/systemone",
            headers=headers,
            content=b'{"state": {}, "state": {"x": 1}, "questions": {"ok": {"type": "noul", "instructions": "Ok?"}}}',
        )
        sent = httpx2.post(
            server.base_url + "/v1/systemone",
            headers=headers,
            content=b'{"state": {}, "questions": {"ok": {"type": "noul", "instructions": "Ok?"}}}',
        )
    assert refused.status_code == 400 and "state" in refused.json()["error"]["message"]
    assert sent.content == raw
