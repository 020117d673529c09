"""JevDecisionModel: configuration, the wire, secrets and tracing."""

from __future__ import annotations

import asyncio
import base64
import logging

import httpx2
import pytest
from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage, HumanMessage
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

from langchain_jev import JevJudge, MissingCredentialsError, TypeSafeClassifierDecisionModel
from langchain_jev.models import JevDecisionModel
from langchain_jev.testing.server import JevServer
from tests.fakes import API_KEY, JevWire, RunRecorder, noul
from tests.support.rubrics import plausible

QUESTION = {"ok": Noul(instructions="Is it ok?")}


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("TYPESAFE_API_KEY", "TYPESAFE_DEFAULT_MODEL", "TYPESAFE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_without_a_key_the_model_and_a_judge_build(clean_env: pytest.MonkeyPatch) -> None:
    model = JevDecisionModel()
    judge = JevJudge([plausible()])
    assert model.api_key is None and isinstance(judge.model, JevDecisionModel)
    assert repr(judge) == "JevJudge([noul:is_plausible], model=JevDecisionModel('jev-latest'))"


def test_the_first_call_without_a_key_names_the_variable_and_the_alternatives(
    clean_env: pytest.MonkeyPatch,
) -> None:
    judge = JevJudge([plausible()])
    with pytest.raises(MissingCredentialsError) as error:
        judge.judge("How hot is boiling water?", "About 100 C.")
    message = str(error.value)
    assert "TYPESAFE_API_KEY" in message and "ChatModelDecisionModel" in message and "client=" in message
    assert "ScriptedDecisionModel" in message and "langchain_jev.testing.server" in message
    with pytest.raises(MissingCredentialsError, match="TYPESAFE_API_KEY"):
        JevDecisionModel().invoke({"state": "x", "questions": QUESTION})
    with pytest.raises(MissingCredentialsError, match="TYPESAFE_API_KEY"):
        JevDecisionModel().resolve_api_key()


async def test_the_first_async_call_without_a_key_raises_the_same_error(clean_env: pytest.MonkeyPatch) -> None:
    judge = JevJudge([plausible()])
    with pytest.raises(MissingCredentialsError, match="no API key for Jev: set TYPESAFE_API_KEY"):
        await judge.ajudge("How hot is boiling water?", "About 100 C.")
    with pytest.raises(MissingCredentialsError, match="TYPESAFE_API_KEY"):
        await JevDecisionModel().ainvoke({"state": "x", "questions": QUESTION})


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_a_key_set_after_the_judge_was_built_is_read_on_the_first_request(
    clean_env: pytest.MonkeyPatch, mode: str
) -> None:
    with JevServer({"is_plausible": 0.9}, api_key=API_KEY) as server:
        judge = JevJudge([plausible()], model=JevDecisionModel(base_url=server.base_url))
        clean_env.setenv("TYPESAFE_API_KEY", API_KEY)  # a fixture or conftest sets it later
        if mode == "sync":
            verdict = judge.judge("How hot is boiling water?", "About 100 C.")
        else:
            verdict = await judge.ajudge("How hot is boiling water?", "About 100 C.")
        assert verdict.passed and server.request_count == 1
        assert judge.model.api_key is None  # read for the request, never stored on the model
        assert API_KEY not in repr(judge.model)


def test_configuration_comes_from_arguments_then_environment_then_defaults(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("TYPESAFE_API_KEY", API_KEY)
    model = JevDecisionModel()
    assert model.model == "jev-latest" and model.base_url is None
    clean_env.setenv("TYPESAFE_DEFAULT_MODEL", "jev-2")
    clean_env.setenv("TYPESAFE_BASE_URL", "http://127.0.0.1:9")
    model = JevDecisionModel()
    assert (model.model, model.base_url) == ("jev-2", "http://127.0.0.1:9")
    assert JevDecisionModel(model="jev-3", base_url="http://localhost:1").model == "jev-3"
    assert isinstance(JevJudge([plausible()]).model, JevDecisionModel)


def test_the_key_never_shows_in_repr_str_or_serialisation(clean_env: pytest.MonkeyPatch) -> None:
    model = JevDecisionModel(api_key=API_KEY)
    judge = JevJudge([plausible()], model=model)
    for text in (repr(model), str(model), repr(judge), str(model.to_json()), model.model_dump_json()):
        assert API_KEY not in text
    assert model.api_key is not None and model.api_key.get_secret_value() == API_KEY


def test_base_url_points_the_sdk_at_a_jev_compatible_server(clean_env: pytest.MonkeyPatch) -> None:
    wire = JevWire({"ok": noul(0.8)})
    http = httpx2.Client(transport=httpx2.MockTransport(wire))
    client = TypeSafeClient(api_key=API_KEY, http_client=http, base_url="http://jev.local:8080/api")
    JevDecisionModel(client=client, model="local-jev").invoke({"state": "x", "questions": QUESTION})
    request = wire.requests[0]
    assert str(request.url) == "http://jev.local:8080/api/v1/systemone"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert wire.bodies[0]["model"] == "local-jev"


def test_messages_in_the_state_go_as_role_and_content() -> None:
    wire = JevWire({"ok": noul(0.8)})
    state = {"conversation": [HumanMessage("Hi"), AIMessage("Hello!")], "note": HumanMessage("n")}
    wire.model().invoke({"state": state, "questions": QUESTION})
    assert wire.bodies[0]["state"] == {
        "conversation": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}],
        "note": {"role": "user", "content": "n"},
    }


def test_an_image_block_is_uploaded_as_an_asset() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json={"model": "jev-latest", "usage": {"input_tokens": 1, "output_tokens": 1},
                                          "answers": {"ok": noul(0.7)}})

    client = TypeSafeClient(api_key=API_KEY, transport=httpx2.MockTransport(handler))
    state = {"photo": {"type": "image", "base64": base64.b64encode(png).decode(), "mime_type": "image/png"}}
    response = JevDecisionModel(client=client).invoke({"state": state, "questions": QUESTION})
    assert response.nouls["ok"].noul == 0.7
    assert seen[0].headers["content-type"].startswith("multipart/form-data")
    assert png in seen[0].content


def test_native_async_uses_the_async_client() -> None:
    wire = JevWire({"ok": noul(0.6)})
    async_client = AsyncTypeSafeClient(api_key=API_KEY, transport=httpx2.MockTransport(wire.handle_async))
    model = JevDecisionModel(async_client=async_client)
    response = asyncio.run(model.ainvoke({"state": "x", "questions": QUESTION}))
    assert response.nouls["ok"].noul == 0.6 and wire.calls == 1


def test_retries_are_the_sdks(clean_env: pytest.MonkeyPatch) -> None:
    attempts: list[int] = []

    def flaky(request: httpx2.Request) -> httpx2.Response:
        attempts.append(1)
        if len(attempts) < 3:
            return httpx2.Response(503, json={"error": "busy"})
        return httpx2.Response(200, json={"model": "jev-latest", "usage": {"input_tokens": 1, "output_tokens": 1},
                                          "answers": {"ok": noul(0.9)}})

    policy = RetryPolicy(max_retries=2, backoff_initial=0, backoff_max=0)
    client = TypeSafeClient(api_key=API_KEY, transport=httpx2.MockTransport(flaky), retry=policy)
    response = JevDecisionModel(client=client).invoke({"state": "x", "questions": QUESTION})
    assert response.nouls["ok"].noul == 0.9 and len(attempts) == 3


def test_usage_and_model_are_recorded_on_the_trace() -> None:
    wire = JevWire({"ok": noul(0.8)})
    tracer = RunRecorder()
    wire.model().invoke({"state": "x", "questions": QUESTION}, {"callbacks": [tracer]})
    [run] = tracer.roots
    assert run.run_type == "llm"
    assert run.extra["metadata"]["ls_provider"] == "typesafe"
    assert run.outputs is not None


def test_the_key_never_reaches_logs_or_errors(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    wire = JevWire(status=401)
    with pytest.raises(Exception) as error:
        JevJudge([plausible()], model=wire.model()).judge("q", "a")
    assert API_KEY not in str(error.value) and API_KEY not in repr(error.value)
    assert API_KEY not in caplog.text


def test_only_an_async_client_and_no_key_is_a_clear_error_for_sync_calls(clean_env: pytest.MonkeyPatch) -> None:
    async_client = AsyncTypeSafeClient(api_key=API_KEY, transport=httpx2.MockTransport(JevWire({})))
    with pytest.raises(ValueError, match="given only one kind of client"):
        JevDecisionModel(async_client=async_client).invoke({"state": "x", "questions": QUESTION})


def test_typesafe_clients_are_wrapped_by_the_judge() -> None:
    wire = JevWire({"is_plausible": noul(0.9)})
    client = TypeSafeClient(api_key=API_KEY, transport=httpx2.MockTransport(wire))
    judge = JevJudge([plausible()], model=client)
    assert isinstance(judge.model, JevDecisionModel)
    assert judge.judge("q", "a").passed and wire.calls == 1


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_langchain_typesafe_classifier_works_as_a_judge_model() -> None:
    from langchain_typesafe import TypeSafeClassifier

    wire = JevWire({"is_plausible": noul(0.2), "ok": noul(0.9)})
    classifier = TypeSafeClassifier(
        api_key=API_KEY,
        client=httpx2.Client(transport=httpx2.MockTransport(wire)),
        async_client=httpx2.AsyncClient(transport=httpx2.MockTransport(wire.handle_async)),
    )
    judge = JevJudge([plausible()], model=classifier)
    assert isinstance(judge.model, TypeSafeClassifierDecisionModel)
    verdict = judge.judge("q", "a")
    assert verdict.summary() == "passed=false [is_plausible=FAILED]"
    assert wire.bodies[0]["questions"]["is_plausible"]["criteria"]["false"] == "At least one value is impossible"
    assert asyncio.run(judge.ajudge("q", "a")).passed is False
    assert wire.calls == 2


def test_an_unknown_model_object_is_refused_with_the_options() -> None:
    from langchain_jev import JevConfigurationError

    with pytest.raises(JevConfigurationError, match=r"model must be a langchain_core BaseDecisionModel.*got int"):
        JevJudge([plausible()], model=42)


