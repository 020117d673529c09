"""The self-refine graph: real LangGraph graphs, fake chat models, scripted and wire judges."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableLambda
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from langchain_jev import JevConfigurationError, JevInputError, JevJudge, JevJudgeInput
from langchain_jev._conversation import message_text
from langchain_jev._refine import DEFAULT_FEEDBACK_TEMPLATE
from langchain_jev.graph import SelfRefineState, create_self_refine_graph
from tests.fakes import JevWire, ReplyingChatModel, RunRecorder, noul
from tests.support.self_refine import (
    QUESTION,
    ask,
    calls_tool,
    contents,
    run,
    three_judge,
    unit_judge,
)

UNIT_FEEDBACK = 'cites_unit: "A number is given without its unit" (yes at 0.20, needs 0.70)'
ERROR = {"type": "noul"}  # an answer without its probability: the finding is ERROR


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_a_draft_that_fails_then_passes_ends_with_only_the_revised_answer(mode: str) -> None:
    judge, decisions = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    state = await run(create_self_refine_graph(model, judge), ask(), mode)

    assert contents(state["messages"]) == [("human", QUESTION), ("ai", "About 100 degrees Celsius.")]
    assert state["jev_attempts"] == 2 and decisions.calls == 2 and model.calls == 2
    assert model.paths == [mode, mode]
    assert state["jev_verdict"].passed and state["jev_verdict"].finding("cites_unit").value == 0.9
    rejected, accepted = state["jev_drafts"]
    assert rejected.answer.content == "About 100." and not rejected.passed
    assert accepted.feedback is None and accepted.verdict is state["jev_verdict"]


async def test_the_feedback_reaches_the_model_on_the_retry(mode: str) -> None:
    judge, _ = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    state = await run(create_self_refine_graph(model, judge), ask(), mode)

    first, retry = model.received
    assert contents(first) == [("human", QUESTION)]
    assert contents(retry[:2]) == [("human", QUESTION), ("ai", "About 100.")]
    feedback = retry[2]
    assert isinstance(feedback, HumanMessage) and len(retry) == 3
    assert feedback.content == DEFAULT_FEEDBACK_TEMPLATE.format(feedback=UNIT_FEEDBACK)
    assert UNIT_FEEDBACK in feedback.content
    assert feedback.id == state["jev_drafts"][0].feedback.id


async def test_the_judge_sees_the_users_question_not_the_feedback(mode: str) -> None:
    judge, decisions = unit_judge(0.2, 0.3, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100, really.", "About 100 degrees Celsius."])
    await run(create_self_refine_graph(model, judge), ask(), mode)

    states = [request["state"] for request in decisions.requests]
    assert [s["user_question"] for s in states] == [QUESTION] * 3
    assert [s["assistant_answer"] for s in states] == [
        "About 100.",
        "About 100, really.",
        "About 100 degrees Celsius.",
    ]


async def test_exhaustion_keeps_the_last_draft_and_its_failed_verdict(mode: str) -> None:
    judge, decisions = unit_judge(0.1, 0.2, 0.3)
    model = ReplyingChatModel(replies=["One hundred.", "100.", "About 100."])
    state = await run(create_self_refine_graph(model, judge, max_attempts=3), ask(), mode)

    assert contents(state["messages"]) == [("human", QUESTION), ("ai", "About 100.")]
    assert state["jev_attempts"] == 3 and decisions.calls == 3 and model.calls == 3
    verdict = state["jev_verdict"]
    assert not verdict.passed and verdict.finding("cites_unit").value == 0.3
    assert [d.feedback is not None for d in state["jev_drafts"]] == [True, True, False]


async def test_one_attempt_judges_once_and_never_retries(mode: str) -> None:
    judge, decisions = unit_judge(0.1)
    model = ReplyingChatModel(replies=["100."])
    state = await run(create_self_refine_graph(model, judge, max_attempts=1), ask(), mode)

    assert (state["jev_attempts"], decisions.calls, model.calls) == (1, 1, 1)
    assert not state["jev_verdict"].passed and contents(state["messages"])[-1] == ("ai", "100.")


@pytest.mark.parametrize(("keep", "kept"), [("best", "Draft one."), ("last", "Draft three.")])
async def test_keep_chooses_between_the_best_and_the_last_draft(mode: str, keep: str, kept: str) -> None:
    judge, decisions = three_judge(
        {"cites_unit": 0.9, "sourced": 0.9, "brief": 0.1},  # 2 passed, 1 failed
        {"cites_unit": 0.1, "sourced": 0.9, "brief": 0.1},  # 1 passed, 2 failed
        {"cites_unit": 0.9, "sourced": 0.1, "brief": 0.1},  # 1 passed, 2 failed
    )
    model = ReplyingChatModel(replies=["Draft one.", "Draft two.", "Draft three."])
    state = await run(create_self_refine_graph(model, judge, keep=keep), ask(), mode)

    assert contents(state["messages"]) == [("human", QUESTION), ("ai", kept)]
    assert decisions.calls == 3 and state["jev_attempts"] == 3
    index = ["Draft one.", "Draft two.", "Draft three."].index(kept)
    assert state["jev_verdict"] is state["jev_drafts"][index].verdict
    assert not state["jev_verdict"].passed


async def test_best_breaks_ties_on_fewest_failures_then_the_later_draft(mode: str) -> None:
    judge, _ = three_judge(
        {"cites_unit": 0.9, "sourced": 0.1, "brief": ERROR},  # 1 passed, 1 failed
        {"cites_unit": 0.9, "sourced": 0.1, "brief": 0.1},  # 1 passed, 2 failed
        {"cites_unit": 0.1, "sourced": 0.9, "brief": ERROR},  # 1 passed, 1 failed: ties with one
    )
    model = ReplyingChatModel(replies=["Draft one.", "Draft two.", "Draft three."])
    state = await run(create_self_refine_graph(model, judge, keep="best"), ask(), mode)

    assert contents(state["messages"])[-1] == ("ai", "Draft three.")


async def test_best_prefers_a_passing_draft_to_a_failing_one_with_more_passes(mode: str) -> None:
    judge, decisions = three_judge(
        {"cites_unit": 0.9, "sourced": 0.9, "brief": 0.1},  # 2 passed, 1 failed
        {"cites_unit": 0.9, "sourced": ERROR, "brief": ERROR},  # 1 passed, no failure: passes
    )
    model = ReplyingChatModel(replies=["Draft one.", "Draft two."])
    state = await run(create_self_refine_graph(model, judge, keep="best"), ask(), mode)

    assert contents(state["messages"])[-1] == ("ai", "Draft two.")
    assert state["jev_verdict"].passed and decisions.calls == 2


@pytest.mark.parametrize("option", ["fail_on_error", "fail_on_inconclusive"])
async def test_undecided_findings_retry_only_when_the_judge_fails_on_them(mode: str, option: str) -> None:
    from langchain_core.decisions import Score

    from langchain_jev import JevCriterion
    from langchain_jev.testing import ScriptedDecisionModel

    rubric = Score(instructions="How complete is `assistant_answer`?", criteria=["poor", "fair", "good"])
    undecided = ERROR if option == "fail_on_error" else {0: 0.45, 1: 0.1, 2: 0.45}

    def build(**options: Any) -> tuple[JevJudge, ScriptedDecisionModel]:
        decisions = ScriptedDecisionModel([{"complete": undecided}, {"complete": {2: 1.0}}])
        return JevJudge([JevCriterion.score("complete", rubric, 1)], model=decisions, **options), decisions

    lenient, lenient_calls = build()
    model = ReplyingChatModel(replies=["About 100."])
    state = await run(create_self_refine_graph(model, lenient), ask(), mode)
    assert state["jev_verdict"].passed and lenient_calls.calls == 1 and model.calls == 1

    strict, strict_calls = build(**{option: True})
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    state = await run(create_self_refine_graph(model, strict), ask(), mode)
    assert not state["jev_drafts"][0].passed and state["jev_verdict"].passed
    assert strict_calls.calls == 2 and model.calls == 2


async def test_a_feedback_template_words_the_message(mode: str) -> None:
    judge, _ = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    graph = create_self_refine_graph(model, judge, feedback_message="Please fix: {feedback}")
    await run(graph, ask(), mode)

    feedback = model.received[1][-1]
    assert isinstance(feedback, HumanMessage) and feedback.content == f"Please fix: {UNIT_FEEDBACK}"


async def test_a_feedback_callable_can_return_any_message_or_a_string(mode: str) -> None:
    def as_system(verdict: Any) -> BaseMessage:
        return SystemMessage(f"Reviewer: {verdict.summary()}")

    judge, _ = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    await run(create_self_refine_graph(model, judge, feedback_message=as_system), ask(), mode)
    feedback = model.received[1][-1]
    assert isinstance(feedback, SystemMessage)
    assert feedback.content == "Reviewer: passed=false [cites_unit=FAILED]"

    judge, _ = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    graph = create_self_refine_graph(model, judge, feedback_message=lambda v: f"Fix {len(v.failures())}")
    await run(graph, ask(), mode)
    assert contents(model.received[1][-1:]) == [("human", "Fix 1")]


async def test_keep_drafts_leaves_the_transcript_in_the_conversation(mode: str) -> None:
    judge, _ = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    state = await run(create_self_refine_graph(model, judge, keep_drafts=True), ask(), mode)

    assert contents(state["messages"]) == [
        ("human", QUESTION),
        ("ai", "About 100."),
        ("human", DEFAULT_FEEDBACK_TEMPLATE.format(feedback=UNIT_FEEDBACK)),
        ("ai", "About 100 degrees Celsius."),
    ]


async def test_keep_drafts_with_an_earlier_best_repeats_it_last(mode: str) -> None:
    judge, _ = three_judge(
        {"cites_unit": 0.9, "sourced": 0.9, "brief": 0.1},
        {"cites_unit": 0.1, "sourced": 0.1, "brief": 0.1},
    )
    model = ReplyingChatModel(replies=["Draft one.", "Draft two."])
    graph = create_self_refine_graph(model, judge, keep="best", keep_drafts=True, max_attempts=2)
    state = await run(graph, ask(), mode)

    messages = state["messages"]
    assert [m.content for m in messages if isinstance(m, AIMessage)] == [
        "Draft one.",
        "Draft two.",
        "Draft one.",
    ]
    assert len(messages) == 5 and messages[-1].id != messages[1].id
    assert len({m.id for m in messages}) == 5


async def test_to_input_builds_the_judge_input_from_the_conversation_the_judge_sees(mode: str) -> None:
    seen: list[list[tuple[str, Any]]] = []

    def to_input(state: Any) -> JevJudgeInput:
        seen.append(contents(state["messages"]))
        answer = message_text(state["messages"][-1])
        return JevJudgeInput(question="Boiling point of water?", answer=answer, expected="100 C")

    judge, decisions = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    await run(create_self_refine_graph(model, judge, to_input=to_input), ask(), mode)

    assert seen == [
        [("human", QUESTION), ("ai", "About 100.")],
        [("human", QUESTION), ("ai", "About 100 degrees Celsius.")],
    ]
    assert [r["state"]["expected_output"] for r in decisions.requests] == ["100 C", "100 C"]
    assert decisions.requests[1]["state"]["user_question"] == "Boiling point of water?"


async def test_to_input_must_return_something_a_judge_takes(mode: str) -> None:
    judge, decisions = unit_judge(0.9)
    model = ReplyingChatModel(replies=["About 100."])
    graph = create_self_refine_graph(model, judge, to_input=lambda state: "not an input")
    with pytest.raises(JevInputError, match="to_input must return a JevJudgeInput"):
        await run(graph, ask(), mode)
    assert decisions.calls == 0


async def test_a_judge_that_cannot_reach_its_model_raises(mode: str) -> None:
    judge, _ = unit_judge()
    judge.model.script = [{"cites_unit": ConnectionError("decision model unreachable")}]  # type: ignore[attr-defined]
    model = ReplyingChatModel(replies=["About 100."])
    with pytest.raises(ConnectionError, match="unreachable"):
        await run(create_self_refine_graph(model, judge), ask(), mode)


async def test_it_runs_as_a_subgraph_node_and_adds_one_message(mode: str) -> None:
    judge, decisions = unit_judge(0.2, 0.3, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "100 C?", "About 100 degrees Celsius."])
    seen_after: list[list[tuple[str, Any]]] = []

    def after(state: MessagesState) -> dict[str, Any]:
        seen_after.append(contents(state["messages"]))
        return {}

    parent = StateGraph(MessagesState)
    parent.add_node("prepare", lambda state: {"messages": [SystemMessage("Answer with units.")]})
    parent.add_node("refine", create_self_refine_graph(model, judge))
    parent.add_node("after", after)
    parent.add_edge(START, "prepare")
    parent.add_edge("prepare", "refine")
    parent.add_edge("refine", "after")
    parent.add_edge("after", END)
    state = await run(parent.compile(), ask(), mode)

    expected = [("human", QUESTION), ("system", "Answer with units."), ("ai", "About 100 degrees Celsius.")]
    assert contents(state["messages"]) == expected and seen_after == [expected]
    assert set(state) == {"messages"} and decisions.calls == 3
    assert contents(model.received[0]) == expected[:2]


async def test_a_parent_on_self_refine_state_receives_the_verdict(mode: str) -> None:
    judge, _ = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    parent = StateGraph(SelfRefineState)
    parent.add_node("refine", create_self_refine_graph(model, judge))
    parent.add_edge(START, "refine")
    parent.add_edge("refine", END)
    state = await run(
        parent.compile(checkpointer=InMemorySaver()), ask(), mode, {"configurable": {"thread_id": "t"}}
    )

    assert state["jev_verdict"].passed and state["jev_attempts"] == 2
    assert contents(state["messages"])[-1] == ("ai", "About 100 degrees Celsius.")


async def test_with_a_checkpointer_each_turn_starts_afresh_and_no_draft_is_stored(mode: str) -> None:
    judge, decisions = unit_judge(0.2, 0.9, 0.95)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius.", "About 3.1 kilometres."])
    app = create_self_refine_graph(model, judge, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "turns"}}

    first = await run(app, ask(), mode, config)
    second = await run(app, ask("How high is Mont Blanc's tunnel above the sea?"), mode, config)

    assert (first["jev_attempts"], second["jev_attempts"], decisions.calls) == (2, 1, 3)
    assert [d.answer.content for d in second["jev_drafts"]] == ["About 3.1 kilometres."]
    stored = app.get_state(config).values
    assert [m.type for m in stored["messages"]] == ["human", "ai", "human", "ai"]
    assert "jev_verdict" not in stored


async def test_any_runnable_or_function_returning_an_answer_can_generate(mode: str) -> None:
    judge, _ = unit_judge(0.2, 0.9)
    replies = iter(["About 100.", "About 100 degrees Celsius."])
    as_text = RunnableLambda(lambda messages: next(replies))
    state = await run(create_self_refine_graph(as_text, judge), ask(), mode)
    assert contents(state["messages"])[-1] == ("ai", "About 100 degrees Celsius.")

    judge, _ = unit_judge(0.9)
    generic = GenericFakeChatModel(messages=iter(["About 100 degrees Celsius."]))
    state = await run(create_self_refine_graph(generic, judge), ask(), mode)
    assert state["jev_verdict"].passed


async def test_drafts_that_reuse_an_id_still_each_get_their_own_message(mode: str) -> None:
    judge, _ = unit_judge(0.1, 0.2, 0.9)
    same = AIMessage("Same id every time.", id="fixed")
    graph = create_self_refine_graph(lambda messages: same, judge, keep_drafts=True)
    state = await run(graph, ask(), mode)

    ids = [m.id for m in state["messages"]]
    assert len(state["messages"]) == 6 and len(set(ids)) == 6
    assert [m.type for m in state["messages"]] == ["human", "ai", "human", "ai", "human", "ai"]


async def test_a_model_that_calls_tools_is_refused_with_a_pointer_to_the_middleware(mode: str) -> None:
    judge, decisions = unit_judge(0.9)
    model = ReplyingChatModel(replies=[calls_tool("search", {"q": "boiling point"}, "call-1")])
    with pytest.raises(JevInputError, match=r"tool calls \(search\).*JevSelfRefineMiddleware"):
        await run(create_self_refine_graph(model, judge), ask(), mode)
    assert decisions.calls == 0


async def test_a_model_returning_something_else_is_refused(mode: str) -> None:
    judge, _ = unit_judge(0.9)
    graph = create_self_refine_graph(lambda messages: {"text": "100"}, judge)
    with pytest.raises(JevInputError, match="must return an AIMessage or a string, got dict"):
        await run(graph, ask(), mode)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_attempts": 0}, "max_attempts must be an integer of at least 1, got 0"),
        ({"max_attempts": True}, "max_attempts must be an integer of at least 1, got True"),
        ({"max_attempts": "3"}, "max_attempts must be an integer of at least 1, got '3'"),
        ({"keep": "first"}, 'keep must be "last" or "best", got \'first\''),
        ({"keep_drafts": "yes"}, "keep_drafts must be True or False"),
        ({"feedback_message": "Try again."}, "must contain {feedback}"),
        ({"feedback_message": "Fix {feedback} in {place}"}, "cannot be filled with only {feedback}"),
        ({"feedback_message": 42}, "feedback_message must be a template string"),
        ({"to_input": "question"}, "to_input must be a callable"),
    ],
)
def test_arguments_are_checked_when_the_graph_is_built(options: dict[str, Any], message: str) -> None:
    judge, _ = unit_judge(0.9)
    with pytest.raises(JevConfigurationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        create_self_refine_graph(ReplyingChatModel(), judge, **options)


def test_the_judge_and_the_model_are_checked_when_the_graph_is_built() -> None:
    judge, _ = unit_judge(0.9)
    with pytest.raises(JevConfigurationError, match="judge must be a JevJudge, got str"):
        create_self_refine_graph(ReplyingChatModel(), "judge")  # type: ignore[arg-type]
    with pytest.raises(JevConfigurationError, match=r"model must be a chat model.*got int"):
        create_self_refine_graph(42, judge)


async def test_a_feedback_callable_returning_something_else_fails_clearly(mode: str) -> None:
    judge, _ = unit_judge(0.2)
    model = ReplyingChatModel(replies=["About 100."])
    graph = create_self_refine_graph(model, judge, feedback_message=lambda verdict: 42)  # type: ignore[arg-type,return-value]
    with pytest.raises(
        JevConfigurationError, match="feedback_message must return a message or a string, got int"
    ):
        await run(graph, ask(), mode)


async def test_over_the_jev_wire_a_failing_draft_is_revised(mode: str) -> None:
    from langchain_jev import JevCriterion
    from tests.support.self_refine import UNITS

    wire = JevWire([{"cites_unit": noul(0.2)}, {"cites_unit": noul(0.95)}], input_tokens=80)
    judge = JevJudge([JevCriterion.noul("cites_unit", UNITS, 0.7)], model=wire.model(mode))
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    state = await run(create_self_refine_graph(model, judge), ask(), mode)

    assert len(wire.bodies) == 2 and state["jev_attempts"] == 2
    assert [body["state"]["assistant_answer"] for body in wire.bodies] == [
        "About 100.",
        "About 100 degrees Celsius.",
    ]
    assert [body["state"]["user_question"] for body in wire.bodies] == [QUESTION, QUESTION]
    assert list(wire.bodies[1]["questions"]) == ["cites_unit"]
    assert state["jev_verdict"].passed and state["jev_verdict"].response.usage["input_tokens"] == 80
    assert UNIT_FEEDBACK in model.received[1][-1].content


def test_the_graph_describes_its_input_and_output_as_json_schema() -> None:
    graph = create_self_refine_graph(ReplyingChatModel(), unit_judge()[0])
    assert set(graph.get_input_jsonschema()["properties"]) == {"messages"}
    output = graph.get_output_jsonschema()["properties"]
    assert set(output) == {"messages", "jev_verdict", "jev_attempts", "jev_drafts"}
    assert output["jev_attempts"]["type"] == "integer"


async def test_each_judge_run_sits_under_the_judge_node_in_the_trace(mode: str) -> None:
    judge, _ = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    tracer = RunRecorder()
    await run(create_self_refine_graph(model, judge), ask(), mode, {"callbacks": [tracer]})

    assert tracer.parents("JevJudge") == ["judge", "judge"]
    assert tracer.parents("ScriptedDecisionModel") == ["JevJudge", "JevJudge"]
    assert tracer.parents("ReplyingChatModel") == ["generate", "generate"]
    assert tracer.parents("self_refine") == [None]


def every_checkpoint(saver: InMemorySaver) -> list[tuple[str, str]]:
    """Every checkpoint the saver holds, subgraph namespaces included, with its writes, as text."""
    return [
        (t.config["configurable"]["checkpoint_ns"], repr(t.checkpoint["channel_values"]) + repr(t.pending_writes))
        for t in saver.list(None)
    ]


async def test_as_a_subgraph_of_a_checkpointed_parent_no_checkpoint_keeps_a_draft(mode: str) -> None:
    judge, _ = unit_judge(0.2, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "About 100 degrees Celsius."])
    parent = StateGraph(MessagesState)
    parent.add_node("refine", create_self_refine_graph(model, judge))
    parent.add_edge(START, "refine")
    parent.add_edge("refine", END)
    saver = InMemorySaver()
    app = parent.compile(checkpointer=saver)

    state = await run(app, ask(), mode, {"configurable": {"thread_id": "parent"}})

    assert contents(state["messages"])[-1] == ("ai", "About 100 degrees Celsius.")
    checkpoints = every_checkpoint(saver)
    assert any(ns.startswith("refine:") for ns, _ in checkpoints)  # the subgraph did checkpoint
    for ns, text in checkpoints:
        assert "'About 100.'" not in text, ns
        assert "A reviewer checked your previous answer" not in text, ns


async def test_with_its_own_checkpointer_no_step_keeps_a_draft(mode: str) -> None:
    judge, _ = unit_judge(0.2, 0.3, 0.9)
    model = ReplyingChatModel(replies=["About 100.", "100 C?", "About 100 degrees Celsius."])
    saver = InMemorySaver()
    app = create_self_refine_graph(model, judge, checkpointer=saver)

    await run(app, ask(), mode, {"configurable": {"thread_id": "own"}})

    checkpoints = every_checkpoint(saver)
    assert len(checkpoints) > 4
    for ns, text in checkpoints:
        assert "'About 100.'" not in text and "100 C?" not in text, ns
        assert "A reviewer checked your previous answer" not in text, ns
