"""langchain-openai's OpenAIDecisions as a judge's model: the real runnable over httpx.MockTransport."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.decisions import Choice, Noul, NoulCriteria, Score

from langchain_jev import JevConfigurationError, JevCriterion, JevJudge, Outcome
from langchain_jev.models import as_decision_model
from langchain_jev.models._openai_decisions import OpenAIDecisionsModel
from tests.fakes import JevWire, choice, noul, score

pytest.importorskip("langchain_openai.decisions")
from langchain_openai.decisions import OpenAIClassifier, OpenAIDecisions

KEY = "sk-openai-decisions-0123456789abcdef"
LEVELS = ["Not helpful.", "Somewhat helpful.", "Helpful.", "Very helpful."]


def criteria() -> list[JevCriterion]:
    return [
        JevCriterion.noul(
            "polite",
            Noul(
                instructions="Is the answer polite?", criteria=NoulCriteria(true="Courteous.", false="Rude.")
            ),
            0.7,
        ),
        JevCriterion.score("helpful", Score(instructions="How helpful is it?", criteria=LEVELS), 2),
        JevCriterion.choice(
            "mode",
            Choice(instructions="What does it do?", criteria={"answered": "It answers.", "asked": None}),
            ["answered"],
        ),
    ]


def predicate(name: str, p: float) -> dict[str, Any]:
    return {"type": "predicate", "name": name, "probability": p}


def level_answer(name: str, probabilities: dict[int, float]) -> dict[str, Any]:
    return {
        "type": "score",
        "name": name,
        "score": sum(level * p for level, p in probabilities.items()),
        "confidence": max(probabilities.values()),
        "probabilities": [
            {"value": level, "label": LEVELS[level], "probability": p} for level, p in probabilities.items()
        ],
    }


def label_answer(name: str, probabilities: dict[str, float]) -> dict[str, Any]:
    return {
        "type": "choice",
        "name": name,
        "choice": max(probabilities, key=lambda label: probabilities[label]),
        "confidence": max(probabilities.values()),
        "probabilities": [{"value": label, "probability": p} for label, p in probabilities.items()],
    }


class DecisionsWire:
    """The OpenAI Decisions API (``POST /decisions``) over httpx.MockTransport: records every request."""

    def __init__(self, answers: list[dict[str, Any]] | Callable[[dict[str, Any]], httpx.Response]) -> None:
        self.answers = answers
        self.requests: list[dict[str, Any]] = []
        self.headers: list[httpx.Headers] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        self.headers.append(request.headers)
        assert request.url.path.endswith("/decisions")
        if callable(self.answers):
            return self.answers(body)
        usage = {
            "input_tokens": 90,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 3,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 93,
        }
        decision = {"model": "gpt-6-luna", "answers": self.answers, "usage": usage}
        return httpx.Response(200, json=decision, headers={"x-request-id": "req_openai_1"})

    async def handle_async(self, request: httpx.Request) -> httpx.Response:
        return self(request)

    def decisions(self, **kwargs: Any) -> Any:
        return self.built(OpenAIDecisions, **kwargs)

    def built(self, kind: type[Any], **kwargs: Any) -> Any:
        """An ``OpenAIDecisions`` or ``OpenAIClassifier`` whose clients reach this wire."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # the class is in beta
            return kind(
                model="gpt-6-luna",
                api_key=KEY,
                max_retries=0,
                http_client=httpx.Client(transport=httpx.MockTransport(self)),
                http_async_client=httpx.AsyncClient(transport=httpx.MockTransport(self.handle_async)),
                **kwargs,
            )


GOOD = [
    predicate("polite", 0.92),
    level_answer("helpful", {1: 0.1, 2: 0.5, 3: 0.4}),
    label_answer("mode", {"answered": 0.85, "asked": 0.15}),
]
BAD = [
    predicate("polite", 0.2),
    level_answer("helpful", {0: 0.6, 1: 0.3, 2: 0.1}),
    label_answer("mode", {"answered": 0.1, "asked": 0.9}),
]


def jev_answers(openai_answers: list[dict[str, Any]]) -> dict[str, Any]:
    """The same answers as Jev gives them."""
    polite, helpful, mode = openai_answers
    return {
        "polite": noul(polite["probability"]),
        "helpful": score({item["value"]: item["probability"] for item in helpful["probabilities"]}, LEVELS),
        "mode": choice(
            mode["choice"], {item["value"]: item["probability"] for item in mode["probabilities"]}
        ),
    }


def test_a_judge_wraps_openai_decisions_by_itself() -> None:
    wire = DecisionsWire(GOOD)
    model = as_decision_model(wire.decisions())
    assert isinstance(model, OpenAIDecisionsModel) and model.model == "gpt-6-luna"


@pytest.mark.parametrize("answers", [GOOD, BAD], ids=["passing", "failing"])
def test_verdicts_and_feedback_are_jevs_and_all_questions_go_in_one_request(
    answers: list[dict[str, Any]],
) -> None:
    wire = DecisionsWire(answers)
    verdict = JevJudge(criteria(), model=wire.decisions()).judge(
        "Where is my order?", "It ships today, thanks!"
    )
    jev = JevJudge(criteria(), model=JevWire(jev_answers(answers)).model()).judge(
        "Where is my order?", "It ships today, thanks!"
    )
    assert verdict.passed is jev.passed is (answers is GOOD)
    assert [(f.criterion.name, f.outcome, f.detail) for f in verdict.findings] == [
        (f.criterion.name, f.outcome, f.detail) for f in jev.findings
    ]
    assert verdict.feedback == jev.feedback
    assert len(wire.requests) == 1
    sent = wire.requests[0]
    assert sent["model"] == "gpt-6-luna"
    assert [(q["type"], q["name"]) for q in sent["questions"]] == [
        ("predicate", "polite"),
        ("score", "helpful"),
        ("choice", "mode"),
    ]
    polite, helpful, mode = sent["questions"]
    assert (
        "Answer true if: Courteous." in polite["instructions"]
        and "Answer false if: Rude." in polite["instructions"]
    )
    assert [level["label"] for level in helpful["levels"]] == LEVELS
    assert mode["choices"] == [{"value": "answered", "description": "It answers."}, {"value": "asked"}]
    assert wire.headers[0]["authorization"] == f"Bearer {KEY}"


async def test_async_judging_gives_the_same_verdict_in_one_request() -> None:
    wire = DecisionsWire(BAD)
    judge = JevJudge(criteria(), model=wire.decisions())
    verdict = await judge.ajudge("Where is my order?", "No idea.")
    assert not verdict.passed
    assert [f.outcome for f in verdict.findings] == [Outcome.FAILED] * 3
    assert len(wire.requests) == 1


def refusing(reason: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "refusal", "name": "polite", **reason}, *GOOD[1:]]


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        ({}, "the model refused to answer (it gave no reason)"),
        ({"refusal": "I cannot assess this."}, ": I cannot assess this."),
    ],
)
async def test_a_refusal_is_that_criterions_error_with_its_reason_never_a_pass(
    reason: dict[str, Any], said: str
) -> None:
    wire = DecisionsWire(refusing(reason))
    judge = JevJudge(criteria(), model=wire.decisions(), fail_on_error=True)
    for verdict in (judge.judge("q", "a"), await judge.ajudge("q", "a")):
        polite, helpful, mode = verdict.findings
        assert polite.outcome is not Outcome.PASSED and "refused" in polite.detail and said in polite.detail
        assert helpful.outcome is Outcome.PASSED and mode.outcome is Outcome.PASSED  # the others stand
        assert not verdict.passed
        assert "refused" in verdict.feedback
    lenient = JevJudge(criteria(), model=wire.decisions()).judge("q", "a")  # errors do not fail the verdict
    assert lenient.findings[0].outcome is Outcome.ERROR and said in lenient.findings[0].detail


def test_a_missing_malformed_or_ambiguous_answer_is_that_criterions_error() -> None:
    repeated = '{"type": "predicate", "name": "polite", "probability": 0.9, "probability": 0.1}'
    malformed = json.dumps(level_answer("helpful", {2: 1.0}) | {"confidence": 1.5})
    doubled = f'{{"model": "gpt-6-luna", "answers": [{repeated}, {malformed}, {json.dumps(GOOD[2])}]}}'
    wire = DecisionsWire(lambda body: httpx.Response(200, content=doubled))
    verdict = JevJudge(criteria(), model=wire.decisions()).judge("q", "a")
    polite, helpful, mode = verdict.findings
    assert polite.outcome is Outcome.ERROR and "given 2 times" in polite.detail
    assert helpful.outcome is Outcome.ERROR and "confidence" in helpful.detail
    assert mode.outcome is Outcome.PASSED

    twice = DecisionsWire([GOOD[0], predicate("polite", 0.1), *GOOD[1:2]])
    verdict = JevJudge(criteria(), model=twice.decisions()).judge("q", "a")
    polite, helpful, mode = verdict.findings
    assert polite.outcome is Outcome.ERROR and "more than once" in polite.detail
    assert helpful.outcome is Outcome.PASSED
    assert mode.outcome is Outcome.ERROR and "no answer" in mode.detail


def test_no_key_in_reprs_or_errors() -> None:
    def echo(body: dict[str, Any]) -> httpx.Response:
        return httpx.Response(
            401, json={"error": {"message": f"bad key {KEY}", "type": "invalid_request_error"}}
        )

    decisions = DecisionsWire(echo).decisions()
    judge = JevJudge(criteria(), model=decisions)
    assert KEY not in repr(judge) and KEY not in repr(judge.model)
    with pytest.raises(Exception) as raised:
        judge.judge("q", "a")
    shown = [str(raised.value), repr(raised.value), *map(str, raised.value.args)]
    assert all(KEY not in text for text in shown)


def test_a_box_question_is_refused_with_its_name() -> None:
    from langchain_core.decisions import Box

    model = as_decision_model(DecisionsWire(GOOD).decisions())
    with pytest.raises(JevConfigurationError, match=r"'where'.*box"):
        model.invoke({"state": "x", "questions": {"where": Box(instructions="Where is the cat?")}})


def classifier(wire: DecisionsWire) -> Any:
    return wire.built(OpenAIClassifier)


def test_openai_classifier_on_its_own_raises_for_the_whole_request_when_one_question_is_refused() -> None:
    from langchain_core.exceptions import ModelRefusalError

    with pytest.raises(ModelRefusalError):
        classifier(DecisionsWire(refusing({}))).invoke(
            {"state": "q", "questions": {c.name: c.question for c in criteria()}}
        )


async def test_openai_classifier_as_a_judges_model_gives_each_refusal_its_own_error() -> None:
    model = as_decision_model(classifier(DecisionsWire(GOOD)))
    assert isinstance(model, OpenAIDecisionsModel) and model.model == "gpt-6-luna"
    assert JevJudge(criteria(), model=classifier(DecisionsWire(GOOD))).judge("q", "a").passed
    wire = DecisionsWire(refusing({"refusal": "Not able to judge tone."}))
    judge = JevJudge(criteria(), model=classifier(wire), fail_on_error=True)
    for verdict in (judge.judge("q", "a"), await judge.ajudge("q", "a")):
        polite, helpful, mode = verdict.findings
        assert (
            "refused to answer: Not able to judge tone." in polite.detail
            and polite.outcome is not Outcome.PASSED
        )
        assert (helpful.outcome, mode.outcome) == (Outcome.PASSED, Outcome.PASSED) and not verdict.passed
    assert wire.requests[0]["questions"][0]["type"] == "predicate"  # the classifier's own request


def test_a_jury_mixes_jev_and_openai_decisions() -> None:
    from langchain_jev.models import JuryDecisionModel

    jury = JuryDecisionModel(
        {"jev": JevWire(jev_answers(GOOD)).model(), "openai": DecisionsWire(GOOD).decisions()}
    )
    verdict = JevJudge(criteria(), model=jury).judge("q", "a")
    assert verdict.passed
    assert verdict.response is not None and verdict.response.panel is not None
    assert sorted(verdict.response.panel.members) == ["jev", "openai"]


def test_an_openai_decisions_string_names_the_model_and_reads_the_key_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_API_BASE", "LANGSMITH_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(JevConfigurationError, match="OPENAI_API_KEY"):
        as_decision_model("openai-decisions:gpt-6-luna")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    model = as_decision_model("openai-decisions:gpt-6-luna")
    assert isinstance(model, OpenAIDecisionsModel) and model.model == "gpt-6-luna"
    assert type(model.decisions) is OpenAIDecisions and KEY not in repr(model)


def test_a_judge_file_names_openai_decisions_alone_or_in_a_jury(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from langchain_jev.models import JuryDecisionModel
    from langchain_jev.spec import load_judge

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    criterion = "criteria:\n  - {name: polite, kind: noul, instructions: 'Is it polite?', minimum: 0.7}\n"
    alone, jury = tmp_path / "alone.yaml", tmp_path / "jury.yaml"
    alone.write_text("model: openai-decisions:gpt-6-luna\n" + criterion, encoding="utf-8")
    jury.write_text(
        "model:\n  jury: [jev:jev-a, openai-decisions:gpt-6-luna]\n" + criterion, encoding="utf-8"
    )
    model = load_judge(alone).model
    assert isinstance(model, OpenAIDecisionsModel) and model.model == "gpt-6-luna"
    panel = load_judge(jury).model
    assert isinstance(panel, JuryDecisionModel)
    assert [type(member).__name__ for member in panel.members] == ["JevDecisionModel", "OpenAIDecisionsModel"]


def test_the_command_line_judges_with_model_openai_decisions(tmp_path: Path) -> None:
    from tests.cli.helpers import run_cli, write_jsonl
    from tests.support.decisions_server import DecisionsServer

    judge = tmp_path / "judge.yaml"
    judge.write_text(
        "criteria:\n  - {name: polite, kind: noul, instructions: 'Is `assistant_answer` polite?', minimum: 0.7}\n",
        encoding="utf-8",
    )
    data = write_jsonl(tmp_path / "rows.jsonl", [{"id": f"r{i}", "answer": f"Hello {i}!"} for i in range(2)])
    out = tmp_path / "results.jsonl"
    with DecisionsServer(lambda state, questions: dict.fromkeys(questions, 0.9)) as server:
        done = run_cli(
            "judge", data, "--judge", judge, "--out", out, "--model", "openai-decisions:gpt-6-luna",
            "--max-retries", "0", OPENAI_API_KEY=KEY, OPENAI_API_BASE=server.base_url,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [body["model"] for body in server.received] == ["gpt-6-luna"] * 2
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:]]
    assert [r["findings"][0]["outcome"] for r in records] == ["PASSED"] * 2
    assert KEY not in done.stdout + done.stderr + out.read_text(encoding="utf-8")


async def test_a_pairwise_judge_compares_on_openai_decisions_in_one_request() -> None:
    from langchain_jev.pairwise import Preference, pairwise_judge

    def pick(label: str) -> dict[str, float]:
        return {"answer_1": 0.0, "answer_2": 0.0, "equally_good": 0.0} | {label: 1.0}

    wire = DecisionsWire(
        [label_answer("helpful__1", pick("answer_2")), label_answer("helpful__2", pick("answer_1"))]
    )
    judge = pairwise_judge({"helpful": "Which answer helps more?"}, model=wire.decisions())
    for verdict in (
        judge.compare("Rain?", "Maybe.", "Yes, from 9am."),
        await judge.acompare("Rain?", "Maybe.", "Yes."),
    ):
        assert verdict.finding("helpful").preference is Preference.B
    assert len(wire.requests) == 2 and [q["name"] for q in wire.requests[0]["questions"]] == [
        "helpful__1",
        "helpful__2",
    ]
