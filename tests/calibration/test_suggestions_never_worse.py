"""A suggested threshold never makes the judge agree less with people; one class of labels teaches none.

When every label was the same and the judge agreed with all of them, kappa (0 or
undefined at every threshold) chose a threshold that took the verdict's accuracy
from 1.00 down, and ``--write-judge`` wrote it. Now labels of one class leave the
threshold as it is, saying a threshold cannot be learned; and for any answers, any
labels and any current threshold (on the sweep's grid or off it), every suggested
threshold agrees with people at least as well as the current one, and the overall
verdict after the suggestions at least as well as before, under every objective.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.decisions import Choice, Noul

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.calibration import Objective, calibrate
from langchain_jev.calibration._sweep import no_worse
from langchain_jev.testing import ScriptedDecisionModel

OBJECTIVES = [Objective(), Objective("accuracy"), Objective(max_false_pass=0.1), Objective(max_false_fail=0.1)]


def polite_judge(minimum: float, probabilities: list[float]) -> JevJudge:
    """A noul judge whose model answers row ``i`` (the answer names its index) with ``probabilities[i]``."""
    model = ScriptedDecisionModel({"polite": lambda state, q: probabilities[int(state["assistant_answer"])]})
    return JevJudge([JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), minimum)],
                    model=model)  # fmt: skip


def rows_of(labels: list[Any]) -> list[dict[str, Any]]:
    return [{"answer": str(i), "human": label} for i, label in enumerate(labels)]


@pytest.mark.parametrize("label", ["pass", "fail"])
@pytest.mark.parametrize("objective", OBJECTIVES, ids=lambda o: o.describe())
def test_one_class_of_labels_leaves_the_threshold_and_says_why(label: str, objective: Objective) -> None:
    agreeing = [0.8, 0.7, 0.9, 0.6] * 3 if label == "pass" else [0.2, 0.1, 0.3, 0.4] * 3
    calibration = calibrate(polite_judge(0.5, agreeing), rows_of([label] * 12), "human")
    assert calibration.criterion("polite").confusion.accuracy == 1.0  # the judge agrees with every label
    suggestion = calibration.suggest(objective.target, max_false_pass=objective.max_false_pass,
                                     max_false_fail=objective.max_false_fail)  # fmt: skip
    assert suggestion.changes() == []
    assert suggestion.unmet["polite"] == (
        f"a threshold cannot be learned from one class of labels (all 12 labelled rows {label})"
    )
    assert suggestion.before is not None and suggestion.after is not None
    assert suggestion.after.confusion.accuracy == suggestion.before.confusion.accuracy == 1.0


def test_a_choice_s_min_confidence_is_not_learned_from_one_class_either() -> None:
    tone = JevCriterion.choice("tone", Choice(instructions="Tone of `assistant_answer`?",
                                              criteria={"warm": None, "cold": None}), ["warm"])  # fmt: skip
    confidence = [0.55, 0.65, 0.75, 0.95] * 3
    model = ScriptedDecisionModel({"tone": lambda state, q: {
        "type": "choice", "choice": "warm", "confidence": confidence[int(state["assistant_answer"])],
        "probabilities": {"warm": confidence[int(state["assistant_answer"])],
                          "cold": 1 - confidence[int(state["assistant_answer"])]}}})  # fmt: skip
    calibration = calibrate(JevJudge([tone], model=model, min_confidence=0.5), rows_of(["pass"] * 12), "human")
    suggestion = calibration.suggest()
    assert suggestion.min_confidence is None and suggestion.changes() == []
    assert "cannot be learned from one class of labels" in suggestion.unmet["min_confidence"]


PROBABILITY = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@given(
    st.lists(st.tuples(PROBABILITY, st.booleans()), min_size=2, max_size=24),
    st.one_of(PROBABILITY, st.sampled_from([0.5, 0.7, 0.62, 0.333])),
    st.sampled_from(OBJECTIVES),
)
def test_no_suggestion_agrees_less_than_what_it_replaces(
    rows: list[tuple[float, bool]], minimum: float, objective: Objective
) -> None:
    probabilities = [p for p, _ in rows]
    labels = [label for _, label in rows]
    calibration = calibrate(polite_judge(minimum, probabilities), rows_of(labels), "human", rounds=20)
    suggestion = calibration.suggest(objective.target, max_false_pass=objective.max_false_pass,
                                     max_false_fail=objective.max_false_fail)  # fmt: skip
    current = calibration.criterion("polite").confusion
    if "polite" in suggestion.minimums:
        assert no_worse(current, suggestion.points["polite"].confusion, objective)
    if len(set(labels)) == 1:
        assert suggestion.changes() == []
    assert suggestion.before is not None and suggestion.after is not None
    assert no_worse(suggestion.before.confusion, suggestion.after.confusion, objective)
