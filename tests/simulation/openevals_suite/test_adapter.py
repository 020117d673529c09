"""What the adapter adds to openevals' simulator, and how it differs, checked beside the vendored tests.

A scripted app and user; the decision model is Jev over `JevWire`, whose
every request is counted.
"""

from __future__ import annotations

from typing import Any

import pytest

from langchain_jev import JevConfigurationError
from tests.fakes import JevWire, noul
from tests.simulation.openevals_suite.adapter import create_llm_as_judge, run_multiturn_simulation


def _app(inputs: dict[str, Any], *, thread_id: str) -> dict[str, Any]:
    return {"role": "assistant", "content": f"You said: {inputs['content']}"}


def test_every_llm_judge_is_asked_each_turn_in_one_request() -> None:
    wire = JevWire({"helpful": noul(0.9), "polite": noul(0.2)})
    model = wire.model()
    judges = [
        create_llm_as_judge(prompt="Was the assistant helpful?\n{outputs}", model=model, feedback_key=key)
        for key in ("helpful", "polite")
    ]
    result = run_multiturn_simulation(
        app=_app, user=["Hi.", "Bye."], max_turns=2, trajectory_evaluators=judges
    )

    assert wire.calls == 2, "one request per turn, both judges in it (openevals: one call per judge)"
    assert all(sorted(body["questions"]) == ["helpful", "polite"] for body in wire.bodies)
    assert [(r["key"], r["score"]) for r in result["evaluator_results"]] == [
        ("helpful", True),
        ("polite", False),
    ]
    assert [m["content"] for m in result["trajectory"]] == ["Hi.", "You said: Hi.", "Bye.", "You said: Bye."]


def test_another_evaluator_is_called_once_at_the_end_with_the_reference() -> None:
    calls: list[dict[str, Any]] = []

    def evaluator(*, outputs: Any, reference_outputs: Any) -> dict[str, Any]:
        calls.append({"outputs": outputs, "reference_outputs": reference_outputs})
        return {"key": "length", "score": len(outputs) == 4}

    result = run_multiturn_simulation(
        app=_app,
        user=["Hi.", "Bye."],
        max_turns=2,
        trajectory_evaluators=[evaluator],
        reference_outputs="ref",
    )

    assert len(calls) == 1 and calls[0]["reference_outputs"] == "ref" and len(calls[0]["outputs"]) == 4
    assert result["evaluator_results"] == [{"key": "length", "score": True}]


def test_a_failing_app_raises_as_in_openevals() -> None:
    def broken(inputs: dict[str, Any], *, thread_id: str) -> Any:
        raise ValueError("app down")

    with pytest.raises(RuntimeError, match="app down"):
        run_multiturn_simulation(app=broken, user=["Hi."], max_turns=1)


def test_no_turn_limit_is_refused_where_openevals_would_run_until_the_stop() -> None:
    with pytest.raises(JevConfigurationError, match="max_turns"):
        run_multiturn_simulation(app=_app, user=["Hi."], stopping_condition=lambda t, **_: True)


def test_a_script_shorter_than_max_turns_ends_the_conversation_where_openevals_raises() -> None:
    result = run_multiturn_simulation(app=_app, user=["Hi."], max_turns=3)

    assert len(result["trajectory"]) == 2
