"""A judge deployed as a LangSmith online evaluator, through the real generated client on a fake API."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.decisions import Choice, Noul, NoulCriteria, Score
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.prompts import ChatPromptTemplate
from langsmith import AsyncLangsmith, Langsmith

from langchain_jev import JevConfigurationError, JevCriterion, JevJudge, MissingCredentialsError
from langchain_jev.models import CachedDecisionModel, JevDecisionModel, JuryDecisionModel
from langchain_jev.online import Deployment, JevDeployWarning, adeploy, decision_rule, deploy
from langchain_jev.testing import ScriptedDecisionModel
from tests.support.fake_langsmith import RULES_PATH, Posted, fake_langsmith_api, rule_id, rules_api

pytestmark = pytest.mark.filterwarnings("ignore::langchain_jev.online.JevDeployWarning")

LS_KEY = "lsv2_pt_deploy-test-key-0123456789abcdef"
TS_KEY = "ts-deploy-test-key-0123456789abcdef"
PROJECT_ID = "11111111-1111-4111-8111-111111111111"
DATASET_ID = "22222222-2222-4222-8222-222222222222"

GROUNDED = Noul(
    instructions="Is every claim of `assistant_answer` supported by `supporting_context`?",
    criteria=NoulCriteria(true="Every claim is in the context", false="A claim is not in the context"),
)
HELPFUL = Score(
    instructions="How well does `assistant_answer` address `user_question`?",
    criteria=["Not at all", "Partly", {"level": "Fully", "note": "nothing missing"}],
)
MODE = Choice(
    instructions="How does the assistant reply?",
    criteria={"answered": "It answers the question", "asked_back": "It asks a clarifying question"},
)
LANGUAGE = Choice(instructions="In which language is `assistant_answer`?", criteria={"en": None, "fr": None})
POLITE = Noul(instructions="Is `assistant_answer` polite?", criteria=NoulCriteria(false="Rude or dismissive"))


def criteria() -> list[JevCriterion]:
    """One criterion of each kind and shape a rule question takes, and a code check."""
    return [
        JevCriterion.noul("grounded", GROUNDED, 0.7),
        JevCriterion.score("helpfulness", HELPFUL, 2),
        JevCriterion.choice("mode", MODE, ["answered"]),
        JevCriterion.choice("language", LANGUAGE, ["en"]),
        JevCriterion.noul("polite", POLITE, 0.5),
        JevCriterion.check("short", lambda data: len(data.answer or "") < 500, "the answer is too long"),
    ]


EXPECTED_QUESTIONS = {
    "grounded": {
        "type": "noul",
        "instructions": GROUNDED.instructions,
        "yes": "Every claim is in the context",
        "no": "A claim is not in the context",
    },
    "helpfulness": {
        "type": "score",
        "instructions": HELPFUL.instructions,
        "levels": ["Not at all", "Partly", '{"level": "Fully", "note": "nothing missing"}'],
    },
    "mode": {
        "type": "choice",
        "instructions": "How does the assistant reply?",
        "options": {"answered": "It answers the question", "asked_back": "It asks a clarifying question"},
    },
    "language": {"type": "choice", "instructions": LANGUAGE.instructions, "options": ["en", "fr"]},
    "polite": {
        "type": "noul",
        "instructions": "Is `assistant_answer` polite?\n\nA no answer means: Rude or dismissive",
    },
}


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TYPESAFE_BASE_URL", "LANGSMITH_API_KEY", "LANGSMITH_ENDPOINT", "LANGCHAIN_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def jev(**settings: Any) -> JevDecisionModel:
    """Jev, as a judge would ask it (no request is made by deploying)."""
    return JevDecisionModel(api_key=TS_KEY, **settings)


def judge(model: Any = None, items: list[JevCriterion] | None = None) -> JevJudge:
    """The judge to deploy: `criteria` on Jev, unless told otherwise."""
    return JevJudge(items if items is not None else criteria(), model if model is not None else jev())


@pytest.fixture
def api() -> Iterator[tuple[str, list[Posted]]]:
    """The fake LangSmith API, knowing one project and one dataset: its URL and what it received."""
    with fake_langsmith_api(rules_api({"support-bot": PROJECT_ID}, {"qa-set": DATASET_ID})) as served:
        yield served


def client(url: str) -> Langsmith:
    """The real generated LangSmith client, pointed at the fake API."""
    return Langsmith(api_key=LS_KEY, base_url=url, max_retries=0)


def created(posted: list[Posted]) -> list[dict[str, Any]]:
    """The bodies of the rules the fake API was asked to create."""
    return [request.json() for request in posted if request.method == "POST" and request.path == RULES_PATH]


def test_a_judge_becomes_one_rule_question_per_criterion_on_the_project(
    api: tuple[str, list[Posted]],
) -> None:
    url, posted = api
    with pytest.warns(JevDeployWarning) as told:
        deployment = deploy(
            judge(),
            project="support-bot",
            sampling_rate=0.25,
            filter="eq(is_root, true)",
            threads=True,
            client=client(url),
        )
    assert [(r.method, r.path) for r in posted] == [
        ("GET", "/api/v2/sessions?name=support-bot&page_size=2"),
        ("POST", RULES_PATH),
    ]
    assert posted[-1].headers["X-API-Key"] == LS_KEY  # the key went where it belongs, and only there
    (body,) = created(posted)
    assert body["questions"] == EXPECTED_QUESTIONS
    assert list(body["questions"]) == ["grounded", "helpfulness", "mode", "language", "polite"]
    assert body["variable_mapping"] == {
        "user_question": "input.question",
        "assistant_answer": "output.answer",
        "supporting_context": "output.context",
    }
    assert body["prompt"] == [
        [
            "human",
            "user_question:\n{user_question}\n\nassistant_answer:\n{assistant_answer}\n\n"
            "supporting_context:\n{supporting_context}",
        ]
    ]
    assert body["template_format"] == "f-string"
    assert (body["provider"], body["model"]) == ("typesafe", "jev-latest")
    assert "base_url" not in body
    assert body["session_id"] == PROJECT_ID
    assert (body["sampling_rate"], body["filter"], body["group_by"]) == (
        0.25,
        "eq(is_root, true)",
        "thread_id",
    )
    assert body["display_name"] == "langchain-jev: grounded, helpfulness, mode, language, polite"
    assert deployment.id == rule_id(1)
    assert deployment.body == body
    said = [str(w.message) for w in told if issubclass(w.category, JevDeployWarning)]
    assert said == list(deployment.notes)
    thresholds, checks = said
    for named in ("'grounded' (yes >= 0.70)", "'helpfulness' (level >= 2.00)", "'mode' (accepted: answered)"):
        assert named in thresholds
    assert "jev_pass" in thresholds
    assert "'short'" in checks and "no feedback" in checks
    assert TS_KEY not in repr(body) and LS_KEY not in repr(body)


def test_the_async_twin_sends_the_same_rule(api: tuple[str, list[Posted]]) -> None:
    url, posted = api
    deploy(judge(), project="support-bot", client=client(url))

    async def main() -> Deployment:
        async with AsyncLangsmith(api_key=LS_KEY, base_url=url, max_retries=0) as langsmith:
            return await adeploy(judge(), project="support-bot", client=langsmith)

    deployment = asyncio.run(main())
    first, second = created(posted)
    assert first == second
    assert deployment.id == rule_id(2)


def test_a_dry_run_sends_nothing_and_shows_the_body_a_deploy_sends(api: tuple[str, list[Posted]]) -> None:
    url, posted = api
    planned = deploy(judge(), project="support-bot", sampling_rate=0.5, dry_run=True, client=client(url))
    assert posted == []
    assert planned.evaluator is None and planned.id is None
    assert planned.target == ("project", "support-bot")
    deploy(judge(), project="support-bot", sampling_rate=0.5, client=client(url))
    (sent,) = created(posted)
    assert {**planned.body, "session_id": PROJECT_ID} == sent


def test_on_a_dataset_the_reference_is_mapped_and_the_dataset_named(api: tuple[str, list[Posted]]) -> None:
    url, posted = api
    correct = Noul(instructions="Does `assistant_answer` agree with `expected_output`?")
    items = [JevCriterion.noul("correct", correct, 0.5)]
    deploy(judge(items=items), dataset="qa-set", client=client(url))
    assert posted[0].path == "/api/v2/datasets?name=qa-set&page_size=2"
    (body,) = created(posted)
    assert body["dataset_id"] == DATASET_ID and "session_id" not in body
    assert body["variable_mapping"]["expected_output"] == "reference.answer"


def test_a_reference_on_a_project_needs_a_mapping(api: tuple[str, list[Posted]]) -> None:
    url, posted = api
    correct = Noul(instructions="Does `assistant_answer` agree with `expected_output`?")
    items = [JevCriterion.noul("correct", correct, 0.5)]
    with pytest.raises(JevConfigurationError, match=r"'correct' name `expected_output`.*dataset="):
        deploy(judge(items=items), project="support-bot", client=client(url))
    mapped = deploy(
        judge(items=items),
        project="support-bot",
        variable_mapping={"expected_output": "input.expected"},
        client=client(url),
    )
    assert mapped.body["variable_mapping"]["expected_output"] == "input.expected"
    assert len(created(posted)) == 1


def test_the_user_mapping_overrides_the_defaults_and_adds_variables(api: tuple[str, list[Posted]]) -> None:
    url, posted = api
    mapping = {"user_question": "input.messages", "locale": "input.metadata.locale"}
    deploy(judge(), project="support-bot", variable_mapping=mapping, client=client(url))
    (body,) = created(posted)
    assert body["variable_mapping"] == {
        "user_question": "input.messages",
        "assistant_answer": "output.answer",
        "supporting_context": "output.context",
        "locale": "input.metadata.locale",
    }
    assert body["prompt"][0][1].endswith("locale:\n{locale}")


@pytest.mark.parametrize(
    ("mapping", "problem"),
    [
        ({"user question": "input.q"}, "not a prompt variable's name"),
        ({"user_question": ""}, "must name a run field"),
        ({"user_question": "{input}"}, "must name a run field"),
    ],
)
def test_a_malformed_mapping_is_refused_by_name(mapping: dict[str, str], problem: str) -> None:
    with pytest.raises(JevConfigurationError, match=problem):
        decision_rule(judge(), variable_mapping=mapping)


def test_the_prompt_gives_the_model_the_runs_text_as_it_is() -> None:
    rule = decision_rule(judge())
    answer = 'Use <b>bold</b> & "quotes" {braces}'
    (pair,) = rule.prompt
    values = dict.fromkeys(rule.variable_mapping, answer)
    text = ChatPromptTemplate.from_messages([pair], template_format=rule.body()["template_format"])
    assert answer in text.invoke(values).to_messages()[0].content
    mustache = ChatPromptTemplate.from_messages([("human", "{{x}}")], template_format="mustache")
    assert answer not in mustache.invoke({"x": answer}).to_messages()[0].content  # why not mustache


def _openai_decisions(**settings: Any) -> Any:
    from langchain_openai.decisions import OpenAIDecisions

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return OpenAIDecisions(model="gpt-6-luna", api_key="sk-openai-deploy-test-0123456789", **settings)


def _typesafe_classifier(**settings: Any) -> Any:
    from langchain_typesafe import TypeSafeClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TypeSafeClassifier(api_key=TS_KEY, model="jev-2", **settings)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        (lambda: jev(), {"provider": "typesafe", "model": "jev-latest"}),
        (lambda: jev(model="semif-qwen3.5-4b", base_url="https://api.typesafe.ai/"),
         {"provider": "typesafe", "model": "semif-qwen3.5-4b"}),
        (lambda: jev(model="jev-2", base_url="https://jev.example.com/v1/"),
         {"provider": "typesafe_compatible", "model": "jev-2", "base_url": "https://jev.example.com/v1"}),
        (lambda: CachedDecisionModel(jev(model="jev-2")), {"provider": "typesafe", "model": "jev-2"}),
        (lambda: _typesafe_classifier(), {"provider": "typesafe", "model": "jev-2"}),
        (lambda: _typesafe_classifier(base_url="https://jev.example.com"),
         {"provider": "typesafe_compatible", "model": "jev-2", "base_url": "https://jev.example.com"}),
        (lambda: _openai_decisions(), {"provider": "openai_decisions", "model": "gpt-6-luna"}),
        (lambda: _openai_decisions(base_url="https://proxy.example.com/v1", timeout=7.5, max_retries=4),
         {"provider": "openai_decisions", "model": "gpt-6-luna", "base_url": "https://proxy.example.com/v1",
          "timeout_seconds": 8, "max_retries": 4}),
    ],
    ids=["jev", "jev-own-api", "jev-compatible", "cached-jev", "classifier", "classifier-compatible",
         "openai-decisions", "openai-decisions-settings"],
)  # fmt: skip
def test_the_provider_and_model_follow_the_judges_decision_model(
    model: Any, expected: dict[str, Any]
) -> None:
    body = decision_rule(judge(model())).body()
    fields = ("provider", "model", "base_url", "timeout_seconds", "max_retries")
    assert {key: body[key] for key in fields if key in body} == expected


def test_the_environments_typesafe_url_is_the_rules_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TYPESAFE_BASE_URL", "https://jev.internal.example.com")
    body = decision_rule(judge()).body()
    assert (body["provider"], body["base_url"]) == ("typesafe_compatible", "https://jev.internal.example.com")


@pytest.mark.parametrize(
    ("model", "named"),
    [
        (lambda: GenericFakeChatModel(messages=iter([AIMessage("{}")])), "a chat model"),
        (lambda: JuryDecisionModel({"a": jev(), "b": jev(model="jev-2")}), "a jury"),
        (lambda: ScriptedDecisionModel({"grounded": 0.9}), "a ScriptedDecisionModel"),
    ],
    ids=["chat-model", "jury", "scripted"],
)
def test_a_model_that_cannot_travel_is_refused_and_nothing_is_sent(
    model: Any, named: str, api: tuple[str, list[Posted]]
) -> None:
    url, posted = api
    with pytest.raises(JevConfigurationError, match=f"cannot travel to LangSmith: it is {named}"):
        deploy(judge(model()), project="support-bot", client=client(url))
    assert posted == []


def test_a_base_url_with_credentials_is_refused_without_echoing_them() -> None:
    secret = "user:hunter2-password"
    with pytest.raises(JevConfigurationError, match="base URL with credentials") as refused:
        decision_rule(judge(jev(base_url=f"https://{secret}@jev.example.com")))
    assert "hunter2" not in str(refused.value)


def test_conditional_criteria_are_refused_each_named(api: tuple[str, list[Posted]]) -> None:
    url, posted = api
    items = [
        JevCriterion.choice("mode", MODE, ["answered"]),
        JevCriterion.noul("grounded", GROUNDED, 0.7).applies_when(lambda data: bool(data.context)),
        JevCriterion.score("helpfulness", HELPFUL, 2).when_chosen("mode", "answered"),
        JevCriterion.noul("polite", POLITE, 0.5).when_passed("mode"),
    ]
    with pytest.raises(JevConfigurationError) as refused:
        deploy(judge(items=items), project="support-bot", client=client(url))
    message = str(refused.value)
    for said in (
        "'grounded' (applies_when)",
        "'helpfulness' (when_chosen 'mode': answered)",
        "'polite' (when_passed 'mode')",
        "NOT_APPLICABLE",
    ):
        assert said in message
    assert "'mode' (" not in message
    assert posted == []


@pytest.mark.parametrize(
    ("criterion", "problem"),
    [
        (JevCriterion.score("rubric", Score(instructions="How good?", criteria=[str(n) for n in range(11)]), 5),
         "'rubric' has 11 levels; a LangSmith rule question takes 2 to 10"),
        (JevCriterion.choice("only", Choice(instructions="Which?", criteria={"one": None}), ["one"]),
         "'only' has 1 options; a LangSmith rule question takes 2 to 255"),
        (JevCriterion.noul("pictured", Noul(instructions=[
            {"type": "text", "text": "Is this a cat?"},
            {"type": "image", "url": "https://example.com/cat.png"}]), 0.5),
         "'pictured': its instructions is media"),
        (JevCriterion.noul("told", Noul(instructions="Fine?", criteria=NoulCriteria(true="  ", false="no")), 0.5),
         "'told': its criteria.true is empty text"),
    ],
    ids=["too-many-levels", "one-option", "media", "empty-meaning"],
)  # fmt: skip
def test_a_question_a_rule_cannot_ask_is_refused_by_criterion(criterion: JevCriterion, problem: str) -> None:
    with pytest.raises(JevConfigurationError, match=problem.replace("(", r"\(")):
        decision_rule(judge(items=[criterion]))


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"project": "support-bot", "dataset": "qa-set"}, "one target"),
        ({}, "one target"),
        ({"project": "  "}, "project must be the project's name"),
        ({"project": "support-bot", "sampling_rate": 0}, "sampling_rate must be above 0"),
        ({"project": "support-bot", "sampling_rate": 1.5}, "sampling_rate must be above 0"),
        ({"project": "support-bot", "sampling_rate": True}, "sampling_rate must be above 0"),
        ({"project": "support-bot", "filter": " "}, "filter must be a LangSmith run filter"),
        ({"dataset": "qa-set", "threads": True}, "a dataset's experiments have no threads"),
        ({"project": "support-bot", "display_name": ""}, "display_name must be a non-empty string"),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_sent(
    options: dict[str, Any], problem: str, api: tuple[str, list[Posted]]
) -> None:
    url, posted = api
    with pytest.raises(JevConfigurationError, match=problem):
        deploy(judge(), client=client(url), **options)
    assert posted == []


def test_an_unknown_project_is_named_and_no_rule_is_created(api: tuple[str, list[Posted]]) -> None:
    url, posted = api
    with pytest.raises(JevConfigurationError, match="LangSmith has no project named 'support'"):
        deploy(judge(), project="support", client=client(url))
    assert created(posted) == []


def test_the_tracing_client_is_refused_for_the_generated_one(api: tuple[str, list[Posted]]) -> None:
    from langsmith import Client

    tracing = Client(api_key=LS_KEY, api_url=api[0], auto_batch_tracing=False)
    with pytest.raises(JevConfigurationError, match=r"langsmith\.Langsmith \(the generated client"):
        deploy(judge(), project="support-bot", client=tracing)  # type: ignore[arg-type]
    assert created(api[1]) == []


def test_without_a_client_the_environment_names_key_and_endpoint(
    api: tuple[str, list[Posted]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, posted = api
    with pytest.raises(MissingCredentialsError, match="LANGSMITH_API_KEY"):
        deploy(judge(), project="support-bot")
    assert posted == []
    monkeypatch.setenv("LANGSMITH_API_KEY", LS_KEY)
    monkeypatch.setenv("LANGSMITH_ENDPOINT", url)
    assert deploy(judge(), project="support-bot").id == rule_id(1)
    assert posted[-1].headers["X-API-Key"] == LS_KEY


def test_the_key_a_refusing_server_echoes_never_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    def echo(request: Posted) -> tuple[int, Any]:
        return 403, {"detail": f"key {request.headers.get('X-API-Key')} may not create rules"}

    with fake_langsmith_api(echo) as (url, _):
        monkeypatch.setenv("LANGSMITH_API_KEY", LS_KEY)
        monkeypatch.setenv("LANGSMITH_ENDPOINT", url)
        with pytest.raises(Exception) as refused:
            deploy(judge(), project="support-bot")
    error: BaseException | None = refused.value
    assert "403" in str(error) or "Permission" in type(error).__name__
    while error is not None:
        assert LS_KEY not in str(error) and LS_KEY not in repr(error.args), type(error)
        assert LS_KEY not in repr(getattr(error, "body", ""))
        error = error.__cause__ or error.__context__
