"""Every secret setting is redacted, by one declaration (`SECRET_SETTINGS`), wherever it appears.

Before, `GuardrailSettings`' repr (and so the middleware's attributes) showed the
review key in clear, and a jury member's API key given as a setting of its chat
model reached the traced runs of a guarded turn (``HazardBattery[input]``,
``JevJudge``, ``JuryDecisionModel``) and the comments of `evaluate_run` (a quorum
unmet) and of the summary evaluator, through the member's error. Now the package
knows every setting declared secret, on every model it resolves and every settings
object it is given, and redacts it as it redacts API keys. The walk below finds
every class of the package with a declared secret setting, so a new one is tested
as soon as it is declared; the traces are those a real LangChain tracer records,
the chat model langchain-openai's own over ``httpx.MockTransport``.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import pkgutil
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pydantic
import pytest
from langchain_core.decisions import BaseDecisionModel, ClassifierResponse, Noul, Question, State
from langchain_core.messages import HumanMessage
from langsmith.run_trees import RunTree

import langchain_jev
from langchain_jev import JevCriterion, JevJudge
from langchain_jev.guardrails import GuardrailSettings, HazardBattery
from langchain_jev.langsmith import JevRunEvaluator, jev_summary_evaluator
from langchain_jev.models import JevDecisionModel, JuryDecisionModel
from langchain_jev.models._secrets import declare_secret_setting, is_secret_setting, redact, settings_repr
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import RunRecorder
from tests.guardrails.helpers import chat, guarded_graph

KEY = "sk-proj-member-Zx81Qw73Lm09Pt46KaVb"
"""A jury member's key, given to its chat model only (never to a model of this package)."""
RECIPE_KEY = "sk-recipe-Ty6Ux2Nc9Ve4Mk1Jh8Dg"
REVIEW_KEY = "review-key-Hq4Zt8Wm2Lx6Nv0Rb3Kc"
FORMS = (KEY, KEY[-16:], RECIPE_KEY, RECIPE_KEY[-16:], REVIEW_KEY, REVIEW_KEY[-16:])
POLITE = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)


def assert_clean(text: str, what: str) -> None:
    for form in FORMS:
        assert form not in text, f"{what} shows a secret ({form!r}):\n{text[:2000]}"


# ---------------------------------------------------------------------- every class, by the declaration


def package_classes() -> Iterator[type]:
    for info in pkgutil.walk_packages(langchain_jev.__path__, "langchain_jev."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed (ray, classic)
            continue
        for _, value in inspect.getmembers(module, inspect.isclass):
            if value.__module__ == module.__name__:
                yield value


def secret_fields(kind: type) -> list[str]:
    names: list[str] = []
    if isinstance(kind, type) and issubclass(kind, pydantic.BaseModel):
        for name, info in kind.model_fields.items():
            text = str(info.annotation)
            if is_secret_setting(name) or "SecretStr" in text or "SecretBytes" in text:
                names.append(name)
    elif dataclasses.is_dataclass(kind):
        names = [field.name for field in dataclasses.fields(kind) if is_secret_setting(field.name)]
    return names


RECIPES: dict[str, Callable[[], Any]] = {
    "langchain_jev.models._jev.JevDecisionModel": lambda: JevDecisionModel(api_key=RECIPE_KEY),
    "langchain_jev.guardrails._settings.GuardrailSettings": lambda: GuardrailSettings(
        review_key=REVIEW_KEY, on_error="interrupt"
    ),
    "langchain_jev.testing.server._handler.Config": lambda: (
        __import__("langchain_jev.testing.server", fromlist=["JevServer"])
        .JevServer(api_key=RECIPE_KEY)
        ._config
    ),
}
"""How to make each class of the package that has a declared secret setting, with a secret in it."""


def test_every_class_with_a_declared_secret_setting_has_its_secret_redacted_in_its_repr() -> None:
    found = {f"{kind.__module__}.{kind.__qualname__}" for kind in package_classes() if secret_fields(kind)}
    assert found == set(RECIPES), (
        "a class with a declared secret setting needs a recipe here (and no secret shown)"
    )
    for name, make in RECIPES.items():
        made = make()
        assert_clean(repr(made) + str(made), f"repr of {name}")
    assert (
        redact(f"{RECIPE_KEY} {REVIEW_KEY}") == "[redacted] [redacted]"
    )  # known wherever the package writes


class Signed(BaseDecisionModel):
    """A member of the user's own, with a secret setting of a name the package did not know."""

    model: str = "signed"
    signing_token: str

    @property
    def _provider(self) -> str:
        return "test"

    def _classify(self, state: State, questions: dict[str, Question]) -> ClassifierResponse:
        raise PermissionError(f"token {self.signing_token} was refused")


def test_a_secret_setting_declared_later_is_covered_too() -> None:
    token = "hook-token-Pq2Wn8Rt5Ys1Lv7Mb4Xc"
    declare_secret_setting("signing_token")
    assert is_secret_setting("signing_token")

    @dataclasses.dataclass
    class Hook:
        url: str = "https://hooks.test/x"
        signing_token: str | None = None

    assert (
        settings_repr(Hook(signing_token=token))
        == "Hook(url='https://hooks.test/x', signing_token='[redacted]')"
    )
    jury = JuryDecisionModel(
        {"signed": Signed(signing_token=token), "ok": ScriptedDecisionModel({"polite": 0.9}, model="ok")}
    )
    verdict = JevJudge([POLITE], model=jury).judge("Hi?", "Hello!")
    assert "PermissionError: token [redacted] was refused" in verdict.finding("polite").detail
    assert token not in json.dumps(verdict.response.model_dump(mode="json"))


def test_the_middleware_s_attributes_show_no_review_key() -> None:
    from langchain_jev.middleware import JevGuardrailMiddleware

    guard = JevGuardrailMiddleware(
        check_output=False,
        categories=["hate"],
        model=ScriptedDecisionModel({"hate": 0.01}),
        review_key=REVIEW_KEY,
        on_error="interrupt",
    )
    for name, value in vars(guard).items():
        assert_clean(repr(value), f"middleware.{name}")
        for inner, part in vars(value).items() if hasattr(value, "__dict__") else ():
            if not is_secret_setting(inner):  # the setting itself is its value, by definition
                assert_clean(repr(part), f"middleware.{name}.{inner}")


# ---------------------------------------------------------------------- a member's key, in traces and comments


def refusing_openai(api_key: str = KEY) -> Any:
    """langchain-openai's ChatOpenAI given its key as a setting, against a server that echoes it in a 401."""
    from langchain_openai import ChatOpenAI

    def handler(request: httpx.Request) -> httpx.Response:
        sent = request.headers.get("authorization", "")
        return httpx.Response(
            401, json={"error": {"message": f"invalid key {sent}", "type": "invalid_request_error"}}
        )

    return ChatOpenAI(
        model="gpt-4o-mini",
        api_key=api_key,  # type: ignore[arg-type]
        max_retries=0,
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
    )


def member_jury() -> JuryDecisionModel:
    from langchain_jev import ChatModelDecisionModel

    return JuryDecisionModel(
        {
            "gpt": ChatModelDecisionModel(refusing_openai(), strategy="structured"),
            "jev": ScriptedDecisionModel({"hate": 0.01, "polite": 0.9}, model="jev"),
        }
    )


def dumped(run: Any) -> str:
    parts = {
        "inputs": run.inputs,
        "outputs": run.outputs,
        "error": run.error,
        "extra": run.extra,
        "serialized": run.serialized,
    }
    return json.dumps(parts, default=repr)


def test_a_guarded_turn_with_a_jury_traces_no_member_s_key() -> None:
    pytest.importorskip("langchain_openai")
    recorder = RunRecorder()
    graph = guarded_graph(
        chat("Here you are."),
        input_battery=HazardBattery.input(["hate"], model=member_jury()),
        allowed_tracers=[RunRecorder],  # a tracer that records, as LangSmith's does
    )

    out = graph.invoke({"messages": [HumanMessage("a message about a group")]}, {"callbacks": [recorder]})

    assert out["guardrail"]["refused"] is True  # the member is down and the quorum is unmet: fail closed
    names = {run.name for run in recorder.runs}
    assert {"HazardBattery[input]", "JevJudge", "JuryDecisionModel"} <= names, names
    for run in recorder.runs:
        if run.name in ("ChatOpenAI",):  # the provider's own run records the provider's error as it is
            continue
        assert_clean(dumped(run), f"the trace of {run.name}")
    assert_clean(json.dumps(out["guardrail"], default=repr), "the guardrail's report")


def answered_run() -> RunTree:
    run = RunTree(name="target", run_type="chain", inputs={"question": "Hi?"})
    run.end(outputs={"answer": "Hello! How can I help?"})
    return run


def test_evaluate_run_comments_and_the_summary_comment_carry_no_member_s_key() -> None:
    pytest.importorskip("langchain_openai")
    evaluator = JevRunEvaluator(JevJudge([POLITE], model=member_jury()))
    results = evaluator.evaluate_run(answered_run())["results"]
    assert "quorum is 2" in results[0].comment
    for result in results:
        assert_clean(f"{result.comment} {result.value}", f"the comment of {result.key}")

    from langchain_jev import ChatModelDecisionModel

    down = JuryDecisionModel(
        {
            "a": ChatModelDecisionModel(refusing_openai(), strategy="structured"),
            "b": ChatModelDecisionModel(refusing_openai(), strategy="structured"),
        }
    )
    failing = JevRunEvaluator(JevJudge([POLITE], model=down))
    with pytest.raises(Exception) as caught:
        failing.evaluate_run(answered_run())
    assert_clean(str(caught.value), "the error evaluate_run raises")
    summary = jev_summary_evaluator(failing)([answered_run()], [None])["results"]  # type: ignore[list-item]
    assert "could not be judged" in summary[-1].comment
    for result in summary:
        assert_clean(str(result.comment), f"the summary comment of {result.key}")
