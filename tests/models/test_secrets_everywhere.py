"""A recognisable API key never shows in logs, traces, reprs, states or error texts.

A full run goes through the real SDK clients to the loopback server: judgements
that pass, a key the server refuses, an unreachable server, a timeout and an
unreadable body; a LangSmith experiment with the judge as evaluator; and the
guardrail node and middleware, failing closed. Everything a user could see or
ship off is collected, every logger at DEBUG included (the SDK's, httpx2's,
LangChain's), every traced run serialised to JSON, and searched for the key.
"""

from __future__ import annotations

import json
import logging
import traceback
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.load import dumpd
from langchain_core.messages import HumanMessage
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.schemas import Run
from langsmith import aevaluate, evaluate
from langsmith.schemas import Example
from typesafe_sdk import RetryPolicy, TypeSafeError

from langchain_jev import GuardrailCheckError, JevJudge, JevJudgeInput
from langchain_jev.guardrails import HazardBattery
from langchain_jev.langsmith import JevRunEvaluator
from langchain_jev.middleware import JevGuardrailMiddleware
from langchain_jev.models import JevDecisionModel
from tests.guardrails.helpers import chat, guarded_graph
from tests.langsmith.helpers import offline_client
from tests.support.faults import GOOD_ANSWERS, criteria
from tests.support.jev_server import Fault, JevServer

SECRET = "sk-canary-Zq8Lw3Vn5Rt1Xy7KpD2mB9"
FORMS = (SECRET, SECRET[-16:], json.dumps(SECRET)[1:-1], repr(SECRET.encode()))
LOGGERS = (
    "",
    "typesafe_sdk",
    "httpx2",
    "httpcore2",
    "httpx",
    "httpcore",
    "langchain_jev",
    "langchain_core",
    "langchain",
    "langgraph",
    "langsmith",
    "urllib3",
    "asyncio",
)
NO_RETRY = RetryPolicy(max_retries=0)

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:'upload_runs' parameter is in beta")]


class Everything(logging.Handler, BaseTracer):
    """Every log record (message, arguments and fields) and every finished run, as text."""

    def __init__(self) -> None:
        logging.Handler.__init__(self, level=logging.DEBUG)
        BaseTracer.__init__(self)
        self.texts: list[str] = []
        self.runs: list[Run] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.texts.append(self.format(record))
        self.texts.append(repr(record.args))
        self.texts.append(repr({k: v for k, v in record.__dict__.items() if k != "args"}))

    def _persist_run(self, run: Run) -> None:
        self.runs.append(run)
        self.texts.append(json.dumps(run.model_dump(), default=repr))

    def keep(self, *values: Any) -> None:
        """Add what a user could print, log or ship: reprs, strings and JSON of ``values``."""
        for value in values:
            self.texts.extend([repr(value), str(value), json.dumps(value, default=repr)])

    def keep_error(self, error: BaseException) -> None:
        """The error's text, repr, arguments and whole traceback, causes and contexts included."""
        self.keep(error, error.args, getattr(error, "body", None))
        self.texts.append("".join(traceback.format_exception(error)))

    @property
    def text(self) -> str:
        return "\n".join(self.texts)


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[Everything]:
    handler = Everything()
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    levels = {name: logging.getLogger(name).level for name in LOGGERS}
    root.addHandler(handler)
    for name in LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG)
    monkeypatch.setenv("TYPESAFE_API_KEY", SECRET)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def assert_no_secret(seen: Everything) -> None:
    text = seen.text
    for form in FORMS:
        assert form not in text, f"the API key ({form!r}) leaked"


def examples() -> list[Example]:
    return [
        Example(
            id=uuid.UUID(int=i + 1), dataset_id=uuid.UUID(int=99), inputs={"question": f"q{i}"}, outputs={}
        )
        for i in range(2)
    ]


def target(inputs: dict[str, Any]) -> dict[str, Any]:
    return {"answer": f"an answer to {inputs['question']}"}


async def atarget(inputs: dict[str, Any]) -> dict[str, Any]:
    return target(inputs)


def test_the_key_never_shows_through_a_full_sync_run(
    seen: Everything, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        JevServer(GOOD_ANSWERS, api_key=SECRET) as server,
        JevServer(GOOD_ANSWERS, api_key="sk-another-key") as refusing,
        JevServer(GOOD_ANSWERS, faults=lambda r: Fault(delay=1.0)) as stalling,
        JevServer(GOOD_ANSWERS, faults=lambda r: Fault(body=["not", "a", "response"])) as garbling,
    ):
        monkeypatch.setenv("TYPESAFE_BASE_URL", server.base_url)
        from_env = JevDecisionModel(retry=NO_RETRY)  # the key and the URL come from the environment
        judge = JevJudge(criteria(), model=from_env)
        config = {"callbacks": [seen]}
        verdict = judge.judge(JevJudgeInput("Is it safe?", "Yes."), config=config)
        assert verdict.passed and server.request_count == 1  # the server checks the key: it was sent
        seen.keep(verdict.to_dict(), verdict.summary(), verdict.feedback, verdict.findings, verdict.response)
        seen.keep(
            from_env,
            judge,
            from_env.model_dump(),
            from_env.model_dump_json(),
            dumpd(from_env),
            from_env.to_json(),
            from_env._sync(),
            JevRunEvaluator(judge),
        )

        for url, expected in (
            (refusing.base_url, "401"),
            ("http://127.0.0.1:9", "Connection error"),
            (stalling.base_url, "timed out"),
            (garbling.base_url, "Invalid response data"),
        ):
            failing = JevJudge(
                criteria(), model=JevDecisionModel(api_key=SECRET, base_url=url, retry=NO_RETRY, timeout=0.3)
            )
            with pytest.raises(TypeSafeError, match=expected) as error:
                failing.judge("Is it safe?", "Yes.", config=config)
            seen.keep_error(error.value)

            results = evaluate(
                target,
                data=examples(),
                evaluators=[JevRunEvaluator(failing)],
                client=offline_client(),
                upload_results=False,
            )
            rows = [row["evaluation_results"]["results"] for row in results]
            assert all(r.comment for row in rows for r in row)  # failures are reported, with a comment
            seen.keep([[r.model_dump() for r in row] for row in rows])

            battery = HazardBattery.output(["hate"], model=failing.model)
            out = guarded_graph(chat("Sure."), output_battery=battery).invoke(
                {"messages": [HumanMessage("hi")]}, config
            )
            assert out["guardrail"]["refused"] is True  # the error's class, never its text
            assert str(out["guardrail"]["error"]).startswith(f"{type(error.value).__name__}: ")
            seen.keep(out, battery, [m.model_dump() for m in out["messages"]])
            guard = JevGuardrailMiddleware(categories=["hate"], model=failing.model)
            out = create_agent(chat("Sure."), middleware=[guard]).invoke(
                {"messages": [HumanMessage("hi")]}, config
            )
            assert out["guardrail"]["refused"] is True
            seen.keep(out, guard, [m.model_dump() for m in out["messages"]])

        results = evaluate(
            target,
            data=examples(),
            evaluators=[JevRunEvaluator(judge)],
            client=offline_client(),
            upload_results=False,
        )
        seen.keep([row["evaluation_results"]["results"] for row in results])

    assert any(run.name == "JevJudge" for run in seen.runs)
    assert "typesafe_sdk DEBUG POST http://127.0.0.1" in seen.text  # the SDK's wire log was captured
    assert_no_secret(seen)


async def test_the_key_never_shows_through_a_full_async_run(seen: Everything) -> None:
    with (
        JevServer(GOOD_ANSWERS, api_key=SECRET) as server,
        JevServer(GOOD_ANSWERS, api_key="sk-another-key") as refusing,
    ):
        model = JevDecisionModel(api_key=SECRET, base_url=server.base_url, retry=NO_RETRY)
        judge = JevJudge(criteria(), model=model)
        config = {"callbacks": [seen]}
        verdict = await judge.ajudge("Is it safe?", "Yes.", config=config)
        assert verdict.passed
        seen.keep(verdict.to_dict(), verdict.response, model, judge)
        results = await aevaluate(
            atarget,
            data=examples(),
            evaluators=[JevRunEvaluator(judge)],
            client=offline_client(),
            upload_results=False,
        )
        seen.keep([row["evaluation_results"]["results"] async for row in results])

        failing = JevDecisionModel(api_key=SECRET, base_url=refusing.base_url, retry=NO_RETRY)
        with pytest.raises(TypeSafeError, match="401") as error:
            await JevJudge(criteria(), model=failing).ajudge("Is it safe?", "Yes.", config=config)
        seen.keep_error(error.value)
        battery = HazardBattery.output(["hate"], model=failing)
        out = await guarded_graph(chat("Sure."), output_battery=battery).ainvoke(
            {"messages": [HumanMessage("hi")]}, config
        )
        seen.keep(out)
        guard = JevGuardrailMiddleware(categories=["hate"], model=failing, on_error="raise")
        with pytest.raises(GuardrailCheckError) as error:
            await create_agent(chat("Sure."), middleware=[guard]).ainvoke(
                {"messages": [HumanMessage("hi")]}, config
            )
        seen.keep_error(error.value)
        await model.aclose()
        await failing.aclose()

    assert server.request_count == 1 + len(examples())
    assert_no_secret(seen)
