"""Answers of every JSON type: each finding is decided as its answer says, or is ERROR saying why.

Whatever a decision model sends back (any JSON value in any field), ``judge()``
returns a verdict: a well-typed answer is decided by the pass condition, anything
else makes that one finding ERROR with a detail, and the other findings are kept.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from langchain_core.decisions import Choice, Noul, Score

from langchain_jev import JevCriterion, JevJudge, Outcome
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import JevWire

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, 0.5, 1.0, 1e308, -0.0, 5e-324]),
    st.text(max_size=8),
    st.sampled_from(["0.9", "1", "true", "03", "3", "calm", "NaN"]),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=12,
)
LEVEL_KEYS = st.one_of(st.sampled_from(["0", "1", "2", "3", "03", "3.0", "-1", "7", " 1", "1e0"]), st.text(max_size=3))
LABEL_KEYS = st.one_of(st.sampled_from(["calm", "angry", "Calm", "calm "]), st.text(max_size=5))
PROBABILITY = st.one_of(
    st.floats(min_value=0, max_value=1), st.sampled_from([0, 1, 1e308, -0.1, math.nan]), JSON
)

SAFE = Noul(instructions="Is `assistant_answer` safe?")
TONE = Choice(instructions="Tone?", criteria={"calm": None, "angry": None})
HELPFUL = Score(instructions="Helpful?", criteria=["no", "little", "much", "fully"])
CRITERIA = [
    JevCriterion.noul("safe", SAFE, 0.5),
    JevCriterion.choice("tone", TONE, ["calm"]),
    JevCriterion.score("helpful", HELPFUL, 2),
]
FINE = {
    "safe": {"type": "noul", "noul": 0.9},
    "tone": {"type": "choice", "choice": "calm", "probabilities": {"calm": 0.9, "angry": 0.1}, "confidence": 0.9},
    "helpful": {
        "type": "score",
        "score": 2.9,
        "legend": {},
        "probabilities": {"2": 0.1, "3": 0.9},
        "confidence": 0.9,
    },
}


def _field(kind: str, name: str) -> st.SearchStrategy[Any]:
    if name == "probabilities":
        keys = LEVEL_KEYS if kind == "score" else LABEL_KEYS
        return st.one_of(JSON, st.dictionaries(keys, PROBABILITY, max_size=4))
    return JSON


@st.composite
def answers(draw: st.DrawFn) -> tuple[str, Any]:
    """One of the three answers with one or more fields replaced by any JSON value."""
    name = draw(st.sampled_from(sorted(FINE)))
    answer: Any = dict(FINE[name])
    kind = answer["type"]
    for field in draw(st.lists(st.sampled_from([k for k in answer if k != "type"]), min_size=1, max_size=3)):
        answer[field] = draw(_field(kind, field))
    if draw(st.booleans()):
        answer = draw(st.one_of(JSON, st.just(answer)))
    return name, answer


def _is_probability(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and 0 <= value <= 1


def _check(verdict: Any, name: str, answer: Any) -> None:
    others = [f for f in verdict.findings if f.name != name]
    assert [f.outcome for f in others] == [Outcome.PASSED, Outcome.PASSED]  # the rest are kept
    finding = verdict.finding(name)
    if finding.outcome is Outcome.ERROR:
        assert finding.detail.startswith(f"{name}: could not be judged: ") and len(finding.detail) > 30
        return
    assert isinstance(answer, dict)  # only a well-formed answer is decided
    if name == "safe":
        value = answer["noul"]
        assert _is_probability(value)
        assert finding.outcome is (Outcome.PASSED if value >= 0.5 else Outcome.FAILED)
        return
    probabilities = answer.get("probabilities")
    assert isinstance(probabilities, dict)
    assert all(_is_probability(p) or (type(p) in (int, float) and p > 1 and math.isfinite(p)) for p in probabilities.values())
    if name == "helpful":
        assert all(type(k) is str and k in {"0", "1", "2", "3"} for k in probabilities)
        assert type(answer["score"]) in (int, float) and math.isfinite(answer["score"])
    else:
        assert isinstance(answer["choice"], str) and answer["choice"] in ("calm", "angry")
        assert set(probabilities) <= {"calm", "angry"}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers())
def test_any_answer_from_a_model_is_decided_or_its_findings_error(case: tuple[str, Any]) -> None:
    name, answer = case
    assume(isinstance(answer, dict) and "type" in answer)  # else the script's own shorthand, not an answer
    model = ScriptedDecisionModel({**FINE, name: answer})
    verdict = JevJudge(CRITERIA, model=model).judge("Q?", "A.")
    _check(verdict, name, answer)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers())
def test_any_answer_over_the_wire_is_decided_or_its_findings_error(case: tuple[str, Any]) -> None:
    name, answer = case
    try:
        json.dumps(answer, allow_nan=False)  # what the wire double can send (NaN is not JSON)
    except (TypeError, ValueError):
        return
    wire = JevWire({**FINE, name: answer})
    verdict = JevJudge(CRITERIA, model=wire.model()).judge("Q?", "A.")
    _check(verdict, name, answer)
