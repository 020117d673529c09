"""Silent mistakes warned of, once: instructions naming a field the state lacks, and dataset-style mapping keys."""

from __future__ import annotations

import warnings

import pytest
from langchain_core.decisions import Noul

from langchain_jev import JevCriterion, JevJudge
from langchain_jev._input import JevFieldWarning, dataset_style_keys, unknown_fields
from langchain_jev.testing import ScriptedDecisionModel


def _judge(instructions: str) -> tuple[JevJudge, ScriptedDecisionModel]:
    model = ScriptedDecisionModel({"polite": 0.9})
    return JevJudge([JevCriterion.noul("polite", Noul(instructions=instructions), 0.7)], model=model), model


def _warnings(call: object) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()  # type: ignore[operator]
    return [str(w.message) for w in caught if issubclass(w.category, JevFieldWarning)]


@pytest.mark.parametrize(
    ("instructions", "named", "meant"),
    [
        ("Is `answer` polite?", "answer", "assistant_answer"),
        ("Does `assistant_answer` address `question`?", "question", "user_question"),
        ("Is `assistant_answr` polite?", "assistant_answr", "assistant_answer"),  # a typo of a state key
        ("Is `response` polite?", "response", "assistant_answer"),
    ],
)
def test_instructions_naming_a_field_the_state_lacks_warn_once_naming_the_field_meant(
    instructions: str, named: str, meant: str
) -> None:
    judge, _ = _judge(instructions)
    first = _warnings(lambda: judge.judge("Hi?", "Hello!"))
    assert len(first) == 1 and f"`{named}` (did you mean `{meant}`?)" in first[0] and "'polite'" in first[0]
    assert _warnings(lambda: judge.judge("Hi?", "Hello!")) == []  # once


@pytest.mark.parametrize(
    "instructions",
    [
        "Is `assistant_answer` polite to `user_question`?",
        "Is `assistant_answer` grounded in `supporting_context`?",  # a state field may be absent
        "Does `assistant_answer` say `yes` or `no`?",  # literal words
    ],
)
def test_fields_the_state_carries_or_may_lack_do_not_warn(instructions: str) -> None:
    judge, _ = _judge(instructions)
    assert _warnings(lambda: judge.judge("Hi?", "Hello!")) == []


def test_a_mapping_with_dataset_style_keys_warns_once_naming_the_state_fields() -> None:
    judge, model = _judge("Is `assistant_answer` polite?")
    said = _warnings(lambda: judge.judge({"question": "Hi?", "answer": "Hello!"}))
    assert len(said) == 1
    assert "'question' -> 'user_question'" in said[0] and "'answer' -> 'assistant_answer'" in said[0]
    assert _warnings(lambda: judge.judge({"question": "Hi?", "answer": "Hello!"})) == []
    assert model.requests[0]["state"] == {"question": "Hi?", "answer": "Hello!"}  # still sent as it is


def test_a_mapping_of_state_fields_or_custom_fields_does_not_warn() -> None:
    judge, _ = _judge("Is `assistant_answer` polite?")
    assert _warnings(lambda: judge.judge({"user_question": "Hi?", "assistant_answer": "Hello!"})) == []
    claims, _ = _judge("Does `passage` support `claim`?")
    assert _warnings(lambda: claims.judge({"passage": "The sky is blue.", "claim": "The sky is blue."})) == []


def test_the_pure_parts() -> None:
    assert unknown_fields("Does `answer_1` beat `answer_2`?", {"comparison_1": {"answer_1": "a", "answer_2": "b"}}) == {}
    assert dataset_style_keys({"input": "Hi?", "output": "Hello"}) == {
        "input": "user_question",
        "output": "assistant_answer",
    }


def test_a_judge_reads_its_instructions_field_names_once_whatever_the_number_of_inputs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The field check is one set test per input: each instruction is scanned once, not once per call."""
    import langchain_jev._input as judge_input

    scans: list[str] = []
    pattern = judge_input._NAMED

    class Counting:
        def findall(self, text: str) -> list[str]:
            scans.append(text)
            return pattern.findall(text)

    monkeypatch.setattr(judge_input, "_NAMED", Counting())
    judge_input.backticked_names.cache_clear()
    questions = {f"c{i}": Noul(instructions=f"Is claim {i} in `assistant_answer`?") for i in range(50)}
    judge = JevJudge(
        [JevCriterion.noul(name, q, 0.5) for name, q in questions.items()],
        model=ScriptedDecisionModel(dict.fromkeys(questions, 0.9)),
    )
    for _ in range(20):
        assert judge.judge("Hi?", "Hello!").passed
    assert len(scans) == 50
    assert _warnings(lambda: judge.judge("Hi?", "Hello!")) == []
    judge_input.backticked_names.cache_clear()
