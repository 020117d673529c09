"""Real offline experiments with every common target shape: the judge gets the user's
question, the target's answer and the reference, whatever the shape of the run LangSmith
records (a Runnable target's run has its example inputs under ``input``)."""

from __future__ import annotations

import uuid
from typing import Any, TypedDict

import pytest
from langchain.agents import create_agent
from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langgraph.graph import END, START, StateGraph
from langsmith import aevaluate, evaluate
from langsmith.schemas import Example
from pydantic import BaseModel

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.langsmith import JevRunEvaluator
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import ReplyingChatModel
from tests.langsmith.helpers import offline_client

pytestmark = [
    pytest.mark.filterwarnings("ignore:'upload_runs' parameter is in beta"),
    # A Runnable target is traced by LangChain's tracer, which LangSmith's local mode does
    # not stop from trying the (offline) server; those failures are logged, not raised.
]

QUESTION = "Capital of France?"
ANSWER = "Paris is the capital of France."
CORRECT = Noul(instructions="Does `assistant_answer` answer `user_question` as `expected_output` does?")


def judge() -> JevJudge:
    return JevJudge([JevCriterion.noul("correct", CORRECT, 0.7)], model=ScriptedDecisionModel({"correct": 0.9}))


def question_example() -> Example:
    return Example(
        id=uuid.uuid4(), dataset_id=uuid.UUID(int=1), inputs={"question": QUESTION}, outputs={"answer": "Paris"}
    )


def messages_example() -> Example:
    return Example(
        id=uuid.uuid4(),
        dataset_id=uuid.UUID(int=1),
        inputs={
            "messages": [
                {"role": "user", "content": "I am planning a trip."},
                {"role": "assistant", "content": "Where to?"},
                {"role": "user", "content": QUESTION},
            ]
        },
        outputs={
            "messages": [
                {"role": "user", "content": QUESTION},
                {"role": "assistant", "content": "Paris"},
            ]
        },
    )


class QA(TypedDict, total=False):
    question: str
    answer: str


def qa_graph() -> Any:
    builder = StateGraph(QA)
    builder.add_node("answer", lambda state: {"answer": ANSWER})
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    return builder.compile()


def chain() -> Any:
    prompt = ChatPromptTemplate.from_messages([("human", "{question}")])
    return prompt | ReplyingChatModel(replies=[ANSWER] * 4) | StrOutputParser()


def agent() -> Any:
    return create_agent(ReplyingChatModel(replies=[ANSWER] * 4))


class City(BaseModel):
    """The city that answers the question."""

    city: str
    country: str


def structured_agent() -> Any:
    call = AIMessage("", tool_calls=[{"name": "City", "args": {"city": "Paris", "country": "France"}, "id": "c1"}])
    return create_agent(ReplyingChatModel(replies=[call] * 4), response_format=City)


def plain_function(inputs: dict[str, Any]) -> dict[str, Any]:
    return {"answer": ANSWER}


async def async_function(inputs: dict[str, Any]) -> dict[str, Any]:
    return {"answer": ANSWER}


# name -> (target factory, example factory, the answer the judge must get)
SHAPES: dict[str, tuple[Any, Any, str]] = {
    "compiled graph": (qa_graph, question_example, ANSWER),
    "graph.invoke": (lambda: qa_graph().invoke, question_example, ANSWER),
    "LCEL chain": (chain, question_example, ANSWER),
    "create_agent agent": (agent, messages_example, ANSWER),
    "structured-output agent": (structured_agent, messages_example, '{"city": "Paris", "country": "France"}'),
    "plain function": (lambda: plain_function, question_example, ANSWER),
    "lambda": (lambda: lambda x: {"answer": ANSWER}, question_example, ANSWER),
}


def judged_state(model: ScriptedDecisionModel) -> dict[str, Any]:
    (request,) = model.requests
    state: dict[str, Any] = request["state"]
    return state


def check(state: dict[str, Any], answer: str, results: list[Any]) -> None:
    assert state["user_question"] == QUESTION
    assert state["assistant_answer"] == answer
    assert state["expected_output"] == "Paris"
    assert [(r.key, r.score) for r in results] == [("correct", 1.0), ("jev_pass", 1.0)]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_evaluate_gives_the_judge_the_question_of_every_target_shape(shape: str) -> None:
    make_target, make_example, answer = SHAPES[shape]
    the_judge = judge()

    rows = list(
        evaluate(
            make_target(),
            data=[make_example()],
            evaluators=[JevRunEvaluator(the_judge)],
            client=offline_client(),
            upload_results=False,
            max_concurrency=0,
        )
    )

    check(judged_state(the_judge.model), answer, rows[0]["evaluation_results"]["results"])  # type: ignore[arg-type]


# aevaluate takes Runnables and async functions (a sync function is read as runs).
ASYNC_SHAPES = {name: SHAPES[name] for name in SHAPES if name not in ("graph.invoke", "plain function", "lambda")}
ASYNC_SHAPES["graph.ainvoke"] = (lambda: qa_graph().ainvoke, question_example, ANSWER)
ASYNC_SHAPES["async function"] = (lambda: async_function, question_example, ANSWER)


@pytest.mark.parametrize("shape", list(ASYNC_SHAPES))
async def test_aevaluate_gives_the_judge_the_question_of_every_target_shape(shape: str) -> None:
    make_target, make_example, answer = ASYNC_SHAPES[shape]
    the_judge = judge()

    results = await aevaluate(
        make_target(),
        data=[make_example()],
        evaluators=[JevRunEvaluator(the_judge)],
        client=offline_client(),
        upload_results=False,
        max_concurrency=0,
    )
    rows = [row async for row in results]

    check(judged_state(the_judge.model), answer, rows[0]["evaluation_results"]["results"])  # type: ignore[arg-type]


def test_a_messages_shaped_input_gives_the_judge_the_conversation() -> None:
    the_judge = judge()

    evaluate(
        agent(),
        data=[messages_example()],
        evaluators=[JevRunEvaluator(the_judge)],
        client=offline_client(),
        upload_results=False,
        max_concurrency=0,
    )

    state = judged_state(the_judge.model)  # type: ignore[arg-type]
    assert state["conversation"] == [
        {"role": "user", "content": "I am planning a trip."},
        {"role": "assistant", "content": "Where to?"},
        {"role": "user", "content": QUESTION},
    ]


def test_a_failed_target_is_named_in_the_comment() -> None:
    def target(inputs: dict[str, Any]) -> dict[str, Any]:
        raise ConnectionError("the weather service is down")

    the_judge = judge()
    rows = list(
        evaluate(
            target,
            data=[question_example()],
            evaluators=[JevRunEvaluator(the_judge)],
            client=offline_client(),
            upload_results=False,
            max_concurrency=0,
        )
    )

    results = rows[0]["evaluation_results"]["results"]
    assert the_judge.model.requests == []  # type: ignore[attr-defined]
    assert results
    for result in results:
        assert result.score is None
        assert "ConnectionError: the weather service is down" in result.comment
        assert "looked for" not in result.comment
