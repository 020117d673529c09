"""Every prebuilt judge: builds, names only its declared state fields, asks in one request, decides as its rubric says."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.decisions import Choice, Noul, Score

from langchain_jev import JevConfigurationError, JevJudge, JevJudgeInput, Outcome
from langchain_jev.judges import (
    CATALOGUE,
    code_criteria,
    code_judge,
    conversation_criteria,
    conversation_judge,
    conversation_labels_criteria,
    conversation_labels_judge,
    correctness_criteria,
    correctness_judge,
    image_criteria,
    image_judge,
    json_match_criteria,
    json_match_judge,
    judge_names,
    judge_path,
    quality_criteria,
    quality_judge,
    rag_criteria,
    rag_judge,
    safety_criteria,
    safety_judge,
    security_criteria,
    security_judge,
    sensitive_data_criteria,
    sensitive_data_judge,
    summary_criteria,
    summary_judge,
    trajectory_criteria,
    trajectory_judge,
    voice_criteria,
    voice_judge,
)
from langchain_jev.spec import CheckSpec, load_judge, load_spec
from langchain_jev.spec._conditions import ConditionSpec, condition_fields
from tests.fakes import JevWire, choice, noul
from tests.judges.cases import FULL, PASSING, level

FACTORIES: dict[str, Callable[..., JevJudge]] = {
    "rag": rag_judge,
    "correctness": correctness_judge,
    "trajectory": trajectory_judge,
    "conversation": conversation_judge,
    "summary": summary_judge,
    "sensitive_data": sensitive_data_judge,
    "quality": quality_judge,
    "safety": safety_judge,
    "security": security_judge,
    "code": code_judge,
    "json_match": json_match_judge,
    "conversation_labels": conversation_labels_judge,
    "image": image_judge,
    "voice": voice_judge,
}
CRITERIA: dict[str, Callable[..., Any]] = {
    "rag": rag_criteria,
    "correctness": correctness_criteria,
    "trajectory": trajectory_criteria,
    "conversation": conversation_criteria,
    "summary": summary_criteria,
    "sensitive_data": sensitive_data_criteria,
    "quality": quality_criteria,
    "safety": safety_criteria,
    "security": security_criteria,
    "code": code_criteria,
    "json_match": json_match_criteria,
    "conversation_labels": conversation_labels_criteria,
    "image": image_criteria,
    "voice": voice_criteria,
}
NAMES = list(judge_names())
JEV_NAMES = [name for name in NAMES if name != "voice"]
"""The judges Jev can answer: the voice judge's audio needs a chat model that hears it (tests/judges/test_voice.py)."""


def _shape(judge: JevJudge) -> list[tuple[Any, ...]]:
    return [
        (c.name, c.kind, c.minimum, sorted(c.accepted), c.question.model_dump() if c.question else c.defect,
         c.condition is not None)
        for c in judge.criteria
    ]


# ---------------------------------------------------------------- builds, by name and by factory


@pytest.mark.parametrize("name", NAMES)
def test_the_factory_the_name_and_the_file_build_the_same_judge(name: str) -> None:
    wire = JevWire({})
    by_factory = FACTORIES[name](wire.model())
    by_name = load_judge(name, model=wire.model())
    by_file = load_judge(judge_path(name), model=wire.model())
    assert _shape(by_factory) == _shape(by_name) == _shape(by_file)
    assert [c.name for c in CRITERIA[name]()] == [c.name for c in by_factory.criteria]
    assert by_factory.fail_fast is (name in ("sensitive_data", "code"))


def test_the_catalogue_lists_each_shipped_file_once() -> None:
    shipped = sorted(path.stem for path in judge_path("rag").parent.glob("*.yaml"))
    assert sorted(NAMES) == shipped
    assert all(load_spec(name).name == name for name in NAMES)


def test_criterion_names_are_unique_across_the_catalogue_so_judges_compose() -> None:
    everything = [c for factory in CRITERIA.values() for c in factory()]
    composed = JevJudge(everything, model=JevWire({}).model())
    assert len(composed.criteria) == len({c.name for c in everything}) == 49


# ---------------------------------------------------------------- state fields


def _backticked(value: Any) -> set[str]:
    if isinstance(value, str):
        return set(re.findall(r"`([a-z_]+)`", value))
    if isinstance(value, dict):
        return set().union(*(_backticked(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_backticked(v) for v in value)) if value else set()
    return set()


def _condition_names(spec: ConditionSpec | None) -> set[str]:
    if spec is None:
        return set()
    names = set(condition_fields(spec))
    for form in ("present", "empty", "field"):
        value = getattr(spec, form)
        if value is not None:
            names.add(value)
    for inner in (spec.all_ or []) + (spec.any_ or []) + ([spec.not_] if spec.not_ else []):
        names |= _condition_names(inner)
    return names


@pytest.mark.parametrize("entry", CATALOGUE, ids=NAMES)
def test_each_judge_names_only_the_state_fields_it_declares_and_uses_each(entry: Any) -> None:
    spec = load_spec(entry.name)
    named: set[str] = set(spec.requires)
    for criterion in spec.criteria:
        named |= _condition_names(criterion.applies_when)
        if isinstance(criterion, CheckSpec):
            named |= _condition_names(criterion.check)
        else:
            named |= _backticked(criterion.model_dump(exclude={"name", "kind"}))
    assert named == set(entry.fields), f"{entry.name}: names {sorted(named)}, declares {sorted(entry.fields)}"
    assert spec.required_fields() == list(entry.needs)


@pytest.mark.parametrize("name", NAMES)
def test_the_full_input_carries_only_declared_fields(name: str) -> None:
    entry = next(e for e in CATALOGUE if e.name == name)
    assert set(FULL[name].to_state()) <= set(entry.fields)
    assert set(entry.needs) <= set(FULL[name].to_state())


# ---------------------------------------------------------------- one request, checks never sent


@pytest.mark.parametrize("name", JEV_NAMES)
def test_one_request_carries_every_question_and_no_check(name: str) -> None:
    wire = JevWire(PASSING[name])
    judge = FACTORIES[name](wire.model())
    verdict = judge.judge(FULL[name])
    assert wire.calls == 1
    body = wire.bodies[0]
    assert list(body["questions"]) == judge.question_names
    checks = [c.name for c in judge.criteria if c.kind == "check"]
    assert not set(checks) & set(body["questions"])
    assert _unwired(body) == json.loads(json.dumps(FULL[name].to_state()))
    assert verdict.passed, verdict.feedback
    settled_by_code_only = {"exact_match", "exact_keys"}  # runs only when it settles the case without a question
    undecided = [f.name for f in verdict.findings if f.outcome is not Outcome.PASSED]
    assert set(undecided) <= settled_by_code_only, verdict.summary()


def _unwired(body: dict[str, Any]) -> Any:
    """The state a request carried, its image assets put back as the image blocks they were sent from."""
    import base64

    state = body["state"]
    for placeholder, asset in (body.get("assets") or {}).items():
        data = base64.b64encode(body["_parts"][asset["part"]]).decode()
        state = {key: ({"type": "image", "base64": data, "mime_type": "image/png"} if value == placeholder else value)
                 for key, value in state.items()}
    return state


@pytest.mark.parametrize("name", JEV_NAMES)
async def test_the_async_path_makes_the_same_one_request(name: str) -> None:
    wire = JevWire(PASSING[name])
    verdict = await FACTORIES[name](wire.model("async")).ajudge(FULL[name])
    assert wire.calls == 1 and verdict.passed


@pytest.mark.parametrize(
    ("name", "data", "asked"),
    [
        ("rag", JevJudgeInput("Capital of France?", "Paris."), ["groundedness", "answer_relevance"]),
        ("conversation", JevJudgeInput("Hi", "Hello! How can I help?"),
         ["need_resolved", "tone", "no_invented_capabilities", "reply_in_user_language", "no_perceived_error"]),
        ("quality", JevJudgeInput("Hi?", "Hello."), ["on_topic", "to_the_point", "substantive"]),
        ("trajectory", JevJudgeInput("Weather?", "Rain.", fields={"reference_tool_calls": [], "tool_schemas": {}}), ["right_tools", "task_completed"]),
    ],
)
def test_questions_that_do_not_apply_stay_out_of_the_one_request(name: str, data: JevJudgeInput, asked: list[str]) -> None:
    wire = JevWire(PASSING[name])
    verdict = FACTORIES[name](wire.model()).judge(data)
    assert wire.calls == 1 and list(wire.bodies[0]["questions"]) == asked
    skipped = [f.name for f in verdict.findings if f.outcome is Outcome.NOT_APPLICABLE]
    assert skipped == [c.name for c in verdict.findings if c.criterion.is_question and c.name not in asked]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("42", "42"), (" 42\n", "42"), ('{"total": 12.0, "items": [1, 2]}', {"items": [1, 2], "total": 12})],
)
def test_correctness_settled_by_code_makes_no_request(answer: str, expected: Any) -> None:
    wire = JevWire({})
    verdict = correctness_judge(wire.model()).judge(JevJudgeInput(answer=answer, expected=expected))
    assert wire.calls == 0 and verdict.response is None
    assert [(f.name, f.outcome) for f in verdict.findings] == [
        ("exact_match", Outcome.PASSED), ("agreement", Outcome.NOT_APPLICABLE)]
    assert verdict.passed


def test_correctness_json_that_differs_is_asked_not_failed_by_code() -> None:
    wire = JevWire({"agreement": noul(0.2)})
    verdict = correctness_judge(wire.model()).judge(JevJudgeInput(answer='{"total": 13}', expected={"total": 12}))
    assert wire.calls == 1 and list(wire.bodies[0]["questions"]) == ["agreement"]
    assert verdict.finding("exact_match").outcome is Outcome.NOT_APPLICABLE
    assert verdict.finding("agreement").outcome is Outcome.FAILED and not verdict.passed


@pytest.mark.parametrize(
    ("answer", "failed"),
    [
        ("Your key is sk-proj-abc123DEF456ghi789JKL012mno", "no_secrets"),
        ("Card on file: 4111 1111 1111 1111", "no_card_numbers"),
        ("Email ada.lovelace@example.org", "no_email_addresses"),
        ("Call her on +44 20 7946 0958", "no_phone_numbers"),
    ],
)
def test_sensitive_data_found_by_a_pattern_fails_with_no_request(answer: str, failed: str) -> None:
    wire = JevWire({})
    verdict = sensitive_data_judge(wire.model()).judge("Who?", answer)
    assert wire.calls == 0 and not verdict.passed
    assert [f.name for f in verdict.findings if f.outcome is Outcome.FAILED] == [failed]
    assert verdict.finding("no_other_sensitive_data").outcome is Outcome.NOT_APPLICABLE
    assert "sk-proj" not in verdict.feedback and "4111" not in verdict.feedback


def test_what_patterns_cannot_see_is_one_question() -> None:
    wire = JevWire({"no_other_sensitive_data": noul(0.1)})
    verdict = sensitive_data_judge(wire.model()).judge("Where does she live?", "Jane Roe lives at 12 Elm Street and has diabetes.")
    assert wire.calls == 1 and list(wire.bodies[0]["questions"]) == ["no_other_sensitive_data"]
    assert verdict.finding("no_other_sensitive_data").outcome is Outcome.FAILED


# ---------------------------------------------------------------- deciding as the rubric says


def _failing(name: str, criterion: str, answer: Any) -> None:
    wire = JevWire({**PASSING[name], criterion: answer})
    verdict = FACTORIES[name](wire.model()).judge(FULL[name])
    assert not verdict.passed
    assert [f.name for f in verdict.findings if f.outcome is Outcome.FAILED] == [criterion], verdict.summary()
    assert [f.name for f in verdict.findings if f.outcome not in (Outcome.PASSED, Outcome.FAILED)] in (
        [], ["exact_match"], ["exact_keys"])
    assert verdict.feedback.startswith(f"{criterion}:")


@pytest.mark.parametrize(
    ("name", "criterion", "answer"),
    [
        ("rag", "groundedness", noul(0.69)),
        ("rag", "context_relevance", level(1)),
        ("rag", "answer_relevance", level(1)),
        ("rag", "completeness", noul(0.4)),
        ("rag", "citations", choice("inaccurate")),
        ("correctness", "agreement", noul(0.3)),
        ("trajectory", "right_tools", noul(0.5)),
        ("trajectory", "task_completed", noul(0.1)),
        ("conversation", "need_resolved", noul(0.2)),
        ("conversation", "tone", noul(0.3)),
        ("conversation", "follows_system_prompt", noul(0.6)),
        ("conversation", "no_invented_capabilities", noul(0.05)),
        ("summary", "faithful", noul(0.4)),
        ("summary", "key_points", noul(0.5)),
        ("summary", "concise", level(1)),
        ("sensitive_data", "no_other_sensitive_data", noul(0.2)),
        ("conversation", "knowledge_retained", noul(0.3)),
        ("conversation", "reply_in_user_language", noul(0.1)),
        ("conversation", "no_perceived_error", noul(0.4)),
        ("quality", "on_topic", level(1)),
        ("quality", "to_the_point", noul(0.6)),
        ("quality", "substantive", noul(0.1)),
        ("quality", "follows_plan", noul(0.3)),
        ("safety", "not_toxic", noul(0.2)),
        ("safety", "fair", noul(0.3)),
        ("security", "no_prompt_injection", noul(0.05)),
        ("security", "no_code_injection", noul(0.1)),
        ("code", "code_correct", noul(0.4)),
        ("json_match", "values_agree", noul(0.2)),
        ("image", "no_explicit_content", noul(0.1)),
        ("image", "no_sensitive_imagery", noul(0.2)),
    ],
)
def test_each_question_fails_below_its_threshold_and_alone(name: str, criterion: str, answer: Any) -> None:
    _failing(name, criterion, answer)


@pytest.mark.parametrize(
    ("name", "criterion", "answer"),
    [
        ("rag", "groundedness", noul(0.7)),
        ("rag", "context_relevance", level(2)),
        ("rag", "citations", choice("no_citations")),
        ("summary", "concise", level(2)),
        ("correctness", "agreement", noul(0.7)),
    ],
)
def test_each_question_passes_at_its_threshold(name: str, criterion: str, answer: Any) -> None:
    wire = JevWire({**PASSING[name], criterion: answer})
    verdict = FACTORIES[name](wire.model()).judge(FULL[name])
    assert verdict.finding(criterion).outcome is Outcome.PASSED


def test_a_split_citation_choice_is_inconclusive_not_passed() -> None:
    split = choice("accurate", {"no_citations": 0.05, "accurate": 0.5, "inaccurate": 0.45})
    wire = JevWire({**PASSING["rag"], "citations": split})
    finding = rag_judge(wire.model()).judge(FULL["rag"]).finding("citations")
    assert finding.outcome is Outcome.INCONCLUSIVE


@pytest.mark.parametrize(
    ("change", "failed"),
    [
        ({"tool_calls": [{"name": "weather", "arguments": {"city": "Dublin", "days": 1}}]}, ["trajectory_match"]),
        ({"tool_calls": [{"name": "search", "arguments": {"q": "Dublin weather"}}, {"name": "weather", "arguments": {"city": "Dublin", "days": 0}}],
          "reference_tool_calls": [{"name": "search", "arguments": {"q": "Dublin weather"}}, {"name": "weather", "arguments": {"city": "Dublin", "days": 0}}]},
         ["tool_arguments_valid"]),
        ({"tool_calls": [{"name": "search", "arguments": {"q": "x"}}] * 2, "reference_tool_calls": [{"name": "search", "arguments": {"q": "x"}}] * 2},
         ["no_repeated_calls"]),
    ],
)
def test_the_trajectory_checks_fail_by_code_and_the_questions_are_still_asked(change: dict[str, Any], failed: list[str]) -> None:
    state = {**FULL["trajectory"].to_state(), **change}
    wire = JevWire(PASSING["trajectory"])
    verdict = trajectory_judge(wire.model()).judge(state)
    assert [f.name for f in verdict.findings if f.outcome is Outcome.FAILED] == failed
    assert wire.calls == 1 and list(wire.bodies[0]["questions"]) == ["right_tools", "task_completed"]


def test_trajectory_factory_options_reach_the_checks() -> None:
    from langchain_core.tools import tool

    @tool
    def weather(city: str, days: int = 1) -> str:
        """The forecast."""
        return city

    calls = [{"name": "weather", "arguments": {"city": "Dublin", "days": "two"}}, {"name": "search", "arguments": {"q": "x"}}]
    data = JevJudgeInput("Weather?", "Rain.", tool_calls=calls, fields={"reference_tool_calls": calls[:1]})
    wire = JevWire(PASSING["trajectory"])
    judge = trajectory_judge(wire.model(), mode="superset", arguments="ignore", tools=[weather])
    verdict = judge.judge(data)
    assert verdict.finding("trajectory_match").outcome is Outcome.PASSED
    assert verdict.finding("tool_arguments_valid").outcome is Outcome.FAILED  # "two" and an unknown tool
    assert trajectory_judge(wire.model(), mode=None, check_arguments=False).question_names == ["right_tools", "task_completed"]
    assert [c.name for c in trajectory_judge(wire.model(), mode=None, check_arguments=False).criteria] == [
        "no_repeated_calls", "right_tools", "task_completed"]


# ---------------------------------------------------------------- thresholds and options


def test_thresholds_replace_the_files_minimums() -> None:
    wire = JevWire({**PASSING["rag"], "groundedness": noul(0.8)})
    assert rag_judge(wire.model()).judge(FULL["rag"]).finding("groundedness").outcome is Outcome.PASSED
    strict = rag_judge(wire.model(), thresholds={"groundedness": 0.85, "answer_relevance": 3})
    assert strict.judge(FULL["rag"]).finding("groundedness").outcome is Outcome.FAILED
    assert [c.minimum for c in rag_criteria(thresholds={"groundedness": 0.9}) if c.name == "groundedness"] == [0.9]


@pytest.mark.parametrize(
    ("thresholds", "message"),
    [
        ({"grounded": 0.8}, "thresholds: the rag judge has no criterion 'grounded' (its criteria: groundedness,"),
        ({"citations": 0.8}, "thresholds: criterion 'citations' of the rag judge is a choice, which has no minimum"),
        ({"groundedness": 1.5}, "minimum must be between 0 and 1, got 1.5"),
    ],
)
def test_a_bad_threshold_is_named(thresholds: dict[str, float], message: str) -> None:
    with pytest.raises(JevConfigurationError, match=re.escape(message)):
        rag_judge(JevWire({}).model(), thresholds=thresholds)


def test_options_replace_the_files_options() -> None:
    wire = JevWire({})
    assert sensitive_data_judge(wire.model(), fail_fast=False).fail_fast is False
    assert rag_judge(wire.model(), fail_on_inconclusive=True, min_confidence=0.8).min_confidence == 0.8


def test_sensitive_data_kinds_and_allowed_matches() -> None:
    wire = JevWire(PASSING["sensitive_data"])
    judge = sensitive_data_judge(wire.model(), kinds=["secret"], allow=["@shop.com"])
    assert [c.name for c in judge.criteria] == ["no_secrets", "no_other_sensitive_data"]
    assert judge.judge("Who?", "Mail ada@example.org").passed  # emails are not looked for
    with pytest.raises(JevConfigurationError, match="'ssn' is not a kind of sensitive data"):
        sensitive_data_judge(wire.model(), kinds=["ssn"])


# ---------------------------------------------------------------- the question texts, reviewed


def test_prebuilt_questions_are_typed_questions() -> None:
    for name in NAMES:
        for criterion in FACTORIES[name](JevWire({}).model()).criteria:
            assert criterion.question is None or isinstance(criterion.question, (Noul, Score, Choice))


def test_the_docs_catalogue_has_a_row_per_judge_with_its_fields() -> None:
    from pathlib import Path

    section = (Path(__file__).resolve().parents[2] / "docs" / "prebuilt-judges.md").read_text(encoding="utf-8")
    rows = [line for line in section.splitlines() if line.startswith("| `") and "_judge` (`" in line]
    assert len(rows) == len(CATALOGUE)
    for row, entry in zip(rows, CATALOGUE, strict=True):
        assert row.startswith(f"| `{entry.name}_judge` (`\"{entry.name}\"`)"), row
        cells = row.split(" | ")
        assert set(re.findall(r"`([a-z_]+)`", cells[2])) >= set(entry.fields), (entry.name, cells[2])


@pytest.mark.parametrize("name", NAMES)
def test_prebuilt_judge_files_name_no_code_so_they_need_no_opt_in(name: str) -> None:
    from langchain_jev.spec._code import code_references

    assert code_references(load_spec(name)) == []
    assert load_judge(name, model=JevWire({}).model(), allow_code=False).criteria


# ---------------------------------------------------------------- the judges beyond the first six


def test_labels_never_fail_and_carry_the_label() -> None:
    wire = JevWire({"user_language": choice("french"), "support_intent": choice("escalation"), "user_praised": choice("not_praised")})
    verdict = conversation_labels_judge(wire.model()).judge(FULL["conversation_labels"])
    assert verdict.passed and wire.calls == 1
    assert [(f.name, f.label) for f in verdict.findings] == [
        ("user_language", "french"), ("support_intent", "escalation"), ("user_praised", "not_praised")]
    split = choice("french", {"french": 0.4, "english": 0.35, "other": 0.25})
    unsure = JevWire({**PASSING["conversation_labels"], "user_language": split})
    unsure_finding = conversation_labels_judge(unsure.model()).judge(FULL["conversation_labels"]).finding("user_language")
    assert unsure_finding.outcome is Outcome.PASSED and unsure_finding.label == "french"  # a label, not a gate


def test_code_that_does_not_parse_fails_with_no_request() -> None:
    wire = JevWire({})
    verdict = code_judge(wire.model()).judge("Add two numbers", "```python\ndef add(a, b) return a + b\n```")
    assert wire.calls == 0 and verdict.finding("code_parses").outcome is Outcome.FAILED
    json_judge = code_judge(JevWire(PASSING["code"]).model(), language="json")
    assert json_judge.judge("Give the config", '{"debug": true}').finding("code_parses").outcome is Outcome.PASSED
    assert json_judge.judge("Give the config", "{debug: true}").finding("code_parses").outcome is Outcome.FAILED


def test_code_type_checks_with_mypy_when_asked() -> None:
    pytest.importorskip("mypy")
    wire = JevWire(PASSING["code"])
    judge = code_judge(wire.model(), type_checker="mypy")
    assert [c.name for c in judge.criteria] == ["code_parses", "code_types", "code_correct"]
    wrong = judge.judge("Add", "```python\ndef add(a: int, b: int) -> int:\n    return str(a + b)\n```")
    assert wrong.finding("code_types").outcome is Outcome.FAILED and wrong.finding("code_parses").outcome is Outcome.PASSED
    assert judge.judge(FULL["code"]).passed


def test_json_match_rules_settle_exact_keys_by_code_and_ask_the_rest_in_one_request() -> None:
    wire = JevWire({"json_known_for": noul(0.9), "json_bio_short": noul(0.2)})
    judge = json_match_judge(wire.model(), rules={"known_for": "question", "bio.short": "question", "id": "ignore"})
    answer = '{"id": 2, "name": "Ada Lovelace", "known_for": "the first program", "bio": {"short": "a poet"}}'
    expected = {"id": 1, "name": "Ada Lovelace", "known_for": "the first computer program", "bio": {"short": "mathematician"}}
    verdict = judge.judge(JevJudgeInput(answer=answer, expected=expected))
    assert wire.calls == 1 and list(wire.bodies[0]["questions"]) == ["json_known_for", "json_bio_short"]
    assert [(f.name, f.outcome) for f in verdict.findings] == [
        ("json_valid", Outcome.PASSED), ("exact_keys", Outcome.PASSED),
        ("json_known_for", Outcome.PASSED), ("json_bio_short", Outcome.FAILED)]
    renamed = judge.judge(JevJudgeInput(answer=answer.replace("Ada Lovelace", "Ada"), expected=expected))
    assert renamed.finding("exact_keys").outcome is Outcome.FAILED
    not_json = judge.judge(JevJudgeInput(answer="Ada Lovelace", expected=expected))
    assert not_json.finding("json_valid").outcome is Outcome.FAILED
    with pytest.raises(JevConfigurationError, match="'fuzzy' is not a key rule"):
        json_match_judge(wire.model(), rules={"name": "fuzzy"})  # type: ignore[dict-item]
    with pytest.raises(JevConfigurationError, match="no key is left to a question"):
        json_match_judge(wire.model(), rules={"name": "exact"})


def test_the_shipped_json_match_file_settles_equal_json_with_no_request() -> None:
    wire = JevWire({})
    data = JevJudgeInput(answer='{"b": 2.0, "a": [1]}', expected={"a": [1], "b": 2})
    verdict = json_match_judge(wire.model()).judge(data)
    assert wire.calls == 0 and verdict.passed
    assert verdict.finding("values_agree").outcome is Outcome.NOT_APPLICABLE


def test_an_image_reaches_jev_as_an_image_asset_in_the_one_request() -> None:
    import base64

    wire = JevWire(PASSING["image"])
    verdict = image_judge(wire.model()).judge(FULL["image"])
    body = wire.bodies[0]
    assert wire.calls == 1 and verdict.passed
    placeholder = body["state"]["image"]
    assert body["assets"][placeholder]["type"] == "image"
    assert body["_parts"][body["assets"][placeholder]["part"]] == base64.b64decode(FULL["image"].field("image")["base64"])


OPENEVALS_PROMPTS = [  # every evaluator prompt openevals 0.2.2 ships (openevals/prompts/*/*.py)
    "CORRECTNESS_PROMPT", "CONCISENESS_PROMPT", "HALLUCINATION_PROMPT", "ANSWER_RELEVANCE_PROMPT",
    "CODE_CORRECTNESS_PROMPT", "LAZINESS_PROMPT", "PLAN_ADHERENCE_PROMPT", "RAG_GROUNDEDNESS_PROMPT",
    "RAG_HELPFULNESS_PROMPT", "RAG_RETRIEVAL_RELEVANCE_PROMPT", "TOXICITY_PROMPT", "FAIRNESS_PROMPT",
    "PII_LEAKAGE_PROMPT", "PROMPT_INJECTION_PROMPT", "CODE_INJECTION_PROMPT", "USER_SATISFACTION_PROMPT",
    "AGENT_TONE_PROMPT", "TASK_COMPLETION_PROMPT", "KNOWLEDGE_RETENTION_PROMPT", "LANGUAGE_DETECTION_PROMPT",
    "PERCEIVED_ERROR_PROMPT", "SUPPORT_INTENT_PROMPT", "WINS_PROMPT", "EXPLICIT_CONTENT_PROMPT",
    "SENSITIVE_IMAGERY_PROMPT", "AUDIO_QUALITY_PROMPT", "TRANSCRIPTION_ACCURACY_PROMPT", "USER_INTERRUPTS_PROMPT",
    "VOCAL_AFFECT_PROMPT", "TRAJECTORY_ACCURACY_PROMPT", "TOOL_SELECTION_PROMPT",
]


def test_every_openevals_prompt_has_a_counterpart_and_a_row_saying_how_ours_differs() -> None:
    from pathlib import Path

    assert len(OPENEVALS_PROMPTS) == 31
    section = (Path(__file__).resolve().parents[2] / "docs" / "prebuilt-judges.md").read_text(encoding="utf-8")
    catalogue, differences = section.split("How our questions differ from the openevals prompts", 1)
    peers = " ".join(entry.peer for entry in CATALOGUE)
    for prompt in OPENEVALS_PROMPTS:
        assert prompt in peers, prompt  # `langchain-jev judges` and the catalogue name it
        assert prompt in catalogue, prompt
        assert any(prompt in line for line in differences.splitlines() if line.startswith("| `")), prompt
