"""Whatever shape a target returns, the judge reads the same answer, question and reference:
through `evaluate`, `aevaluate`, LangChain's `run_on_dataset` and a direct `evaluate_run`
of a run traced in production.

Each shape is a real target; the judge's one request is what is asserted."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypedDict

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableGenerator, RunnableLambda, RunnableParallel
from langgraph.graph import END, START, MessagesState, StateGraph
from langsmith import aevaluate, evaluate
from langsmith.run_helpers import traceable, tracing_context
from langsmith.schemas import Example
from pydantic import BaseModel

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.langsmith import JevRunEvaluator
from langchain_jev.spec import load_judge
from langchain_jev.testing import ScriptedDecisionModel
from tests.fakes import ReplyingChatModel
from tests.langsmith.helpers import CLASSIC_FEEDBACK, LocalDatasetClient, offline_client
from tests.langsmith.test_targets import CORRECT

pytestmark = [
    pytest.mark.filterwarnings("ignore:'upload_runs' parameter is in beta"),
]

QUESTION = "Capital of France?"
ANSWER = "Paris is the capital of France."
REFERENCE = "Paris"


class City(BaseModel):
    """A structured answer."""

    city: str
    country: str


@dataclasses.dataclass
class CityRecord:
    city: str
    country: str


class CityDict(TypedDict):
    city: str
    country: str


CITY_JSON = '{"city": "Paris", "country": "France"}'


def reply_chain() -> Any:
    """prompt | chat model: the chain's output is the model's AIMessage."""
    return ChatPromptTemplate.from_messages([("human", "{question}")]) | ReplyingChatModel(replies=[ANSWER] * 4)


def structured_chain() -> Any:
    """A chain that ends in a pydantic model, as ``with_structured_output`` chains do."""
    return RunnableLambda(lambda inputs: City(city="Paris", country="France"))


def streamed(chunks: Iterator[Any]) -> Iterator[str]:
    for _ in chunks:
        yield "Paris is the capital "
    yield "of France."


async def astreamed(chunks: AsyncIterator[Any]) -> AsyncIterator[str]:
    async for _ in chunks:
        yield "Paris is the capital "
    yield "of France."


def chat_graph() -> Any:
    """A LangGraph graph over MessagesState whose state goes in as the question alone."""

    def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(ANSWER)]}

    builder = StateGraph(MessagesState)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    graph = builder.compile()
    return RunnableLambda(lambda inputs: {"messages": [HumanMessage(inputs["question"])]}) | graph


def tool_turn() -> list[Any]:
    return [
        HumanMessage(QUESTION),
        AIMessage("", tool_calls=[{"name": "lookup", "args": {"country": "France"}, "id": "c1"}]),
        {"role": "tool", "content": "capital: Paris", "tool_call_id": "c1"},
        AIMessage(ANSWER),
    ]


@dataclasses.dataclass(frozen=True)
class Shape:
    """A target, and what the judge must read from its run."""

    target: Callable[[], Any]
    answer: str = ANSWER
    question: str | None = QUESTION
    conversation: list[dict[str, str]] | None = None
    inputs: dict[str, Any] = dataclasses.field(default_factory=lambda: {"question": QUESTION})
    runnable: bool = False
    """A Runnable (aevaluate and run_on_dataset take it as it is)."""


def function(value: Callable[[dict[str, Any]], Any]) -> Callable[[], Any]:
    return lambda: value


SHAPES: dict[str, Shape] = {
    # lists of messages: the final assistant message, never the user's text with it
    "a list of messages": Shape(function(lambda inputs: [HumanMessage(inputs["question"]), AIMessage(ANSWER)])),
    "a list of message dicts": Shape(
        function(
            lambda inputs: [{"role": "user", "content": inputs["question"]}, {"role": "assistant", "content": ANSWER}]
        )
    ),
    "a list of messages with a tool turn": Shape(function(lambda inputs: tool_turn())),
    "a list of messages, inputs without a question": Shape(
        function(lambda inputs: [HumanMessage(QUESTION), AIMessage(ANSWER)]), inputs={"ticket": 7}
    ),
    "a conversation, inputs without a question": Shape(
        function(
            lambda inputs: [
                SystemMessage("You answer in one sentence."),
                HumanMessage("I am planning a trip."),
                AIMessage("Where to?"),
                HumanMessage(QUESTION),
                AIMessage(ANSWER),
            ]
        ),
        inputs={"ticket": 7},
        conversation=[
            {"role": "system", "content": "You answer in one sentence."},
            {"role": "user", "content": "I am planning a trip."},
            {"role": "assistant", "content": "Where to?"},
            {"role": "user", "content": QUESTION},
        ],
    ),
    "a RunnableLambda returning messages": Shape(
        lambda: RunnableLambda(lambda inputs: [HumanMessage(inputs["question"]), AIMessage(ANSWER)]), runnable=True
    ),
    "a messages graph behind a lambda": Shape(chat_graph, runnable=True),
    # messages: LangSmith records a returned message as the message's own fields
    "an AIMessage": Shape(function(lambda inputs: AIMessage(ANSWER))),
    "an AIMessage with content blocks": Shape(
        function(lambda inputs: AIMessage([{"type": "text", "text": ANSWER}]))
    ),
    "a RunnableLambda returning an AIMessage": Shape(lambda: RunnableLambda(lambda inputs: AIMessage(ANSWER)), runnable=True),
    "prompt | chat model": Shape(reply_chain, runnable=True),
    "a dict holding an AIMessage": Shape(function(lambda inputs: {"reply": AIMessage(ANSWER)})),
    # structured values: their JSON
    "a pydantic model": Shape(function(lambda inputs: City(city="Paris", country="France")), answer=CITY_JSON),
    "a chain ending in a pydantic model": Shape(structured_chain, answer=CITY_JSON, runnable=True),
    "a dataclass": Shape(function(lambda inputs: CityRecord("Paris", "France")), answer=CITY_JSON),
    "a TypedDict of several keys": Shape(
        function(lambda inputs: CityDict(city="Paris", country="France")), answer=CITY_JSON
    ),
    "a tuple": Shape(function(lambda inputs: (ANSWER, 1)), answer=f'["{ANSWER}", 1]'),
    "a number": Shape(function(lambda inputs: 4), answer="4"),
    # known keys, and one key of any name
    "RetrievalQA's result": Shape(function(lambda inputs: {"result": ANSWER, "source_documents": [Document("d")]})),
    "LLMChain's text": Shape(function(lambda inputs: {"text": ANSWER})),
    "a RAG graph's generation": Shape(function(lambda inputs: {"generation": ANSWER, "documents": ["d"]})),
    "content": Shape(function(lambda inputs: {"content": ANSWER})),
    "one key of another name": Shape(function(lambda inputs: {"reply": ANSWER})),
    "one key beside the documents": Shape(function(lambda inputs: {"summary": ANSWER, "context": ["d"]})),
    # shapes that worked before, kept working
    "a string": Shape(function(lambda inputs: ANSWER)),
    "a RunnableGenerator": Shape(lambda: RunnableGenerator(streamed, astreamed), runnable=True),
    "a RunnableParallel": Shape(
        lambda: RunnableParallel(answer=RunnableLambda(lambda inputs: ANSWER), context=RunnableLambda(lambda i: ["d"])),
        runnable=True,
    ),
    "prompt | chat model | parser": Shape(lambda: reply_chain() | StrOutputParser(), runnable=True),
}


def example(shape: Shape) -> Example:
    return Example(
        id=uuid.UUID(int=31), dataset_id=uuid.UUID(int=7), inputs=shape.inputs, outputs={"answer": REFERENCE}
    )


def judge() -> JevJudge:
    return JevJudge([JevCriterion.noul("correct", CORRECT, 0.7)], model=ScriptedDecisionModel({"correct": 0.9}))


def received(the_judge: JevJudge) -> dict[str, Any]:
    """The state of the judge's one request."""
    (request,) = the_judge.model.requests  # type: ignore[attr-defined]
    state: dict[str, Any] = request["state"]
    return state


def check(shape: Shape, state: dict[str, Any]) -> None:
    assert state["assistant_answer"] == shape.answer
    assert state.get("user_question") == shape.question
    assert state["expected_output"] == REFERENCE
    assert state.get("conversation") == shape.conversation


def check_results(results: list[Any]) -> None:
    assert [(r.key, r.score) for r in results] == [("correct", 1.0), ("jev_pass", 1.0)]


@pytest.mark.parametrize("name", list(SHAPES))
def test_evaluate_reads_every_output_shape(name: str) -> None:
    shape, the_judge = SHAPES[name], judge()

    rows = list(
        evaluate(
            shape.target(),
            data=[example(shape)],
            evaluators=[JevRunEvaluator(the_judge)],
            client=offline_client(),
            upload_results=False,
            max_concurrency=0,
        )
    )

    check(shape, received(the_judge))
    check_results(rows[0]["evaluation_results"]["results"])


def asynchronous(shape: Shape) -> Any:
    """The target as aevaluate takes it: a Runnable as it is, a function made async."""
    target = shape.target()
    if shape.runnable:
        return target

    async def atarget(inputs: dict[str, Any]) -> Any:
        return target(inputs)

    return atarget


@pytest.mark.parametrize("name", list(SHAPES))
async def test_aevaluate_reads_every_output_shape(name: str) -> None:
    shape, the_judge = SHAPES[name], judge()

    results = await aevaluate(
        asynchronous(shape),
        data=[example(shape)],
        evaluators=[JevRunEvaluator(the_judge)],
        client=offline_client(),
        upload_results=False,
        max_concurrency=0,
    )
    rows = [row async for row in results]

    check(shape, received(the_judge))
    check_results(rows[0]["evaluation_results"]["results"])


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_direct_evaluate_run_of_a_traced_run_reads_every_output_shape(name: str) -> None:
    # Online evaluation: the run a @traceable target records in production, judged as it is.
    shape, the_judge = SHAPES[name], judge()
    runs: list[Any] = []
    target = shape.target()
    call = target.invoke if shape.runnable else target
    recorder = LocalDatasetClient([])  # keeps what tracing writes, sends nothing
    with tracing_context(enabled=True, client=recorder, project_name="production"):
        traceable(name="target")(call)(shape.inputs, langsmith_extra={"on_end": runs.append})

    results = JevRunEvaluator(the_judge).evaluate_run(runs[0], example(shape))

    check(shape, received(the_judge))
    check_results(results["results"])


@CLASSIC_FEEDBACK
@pytest.mark.parametrize("name", list(SHAPES))
def test_run_on_dataset_reads_every_output_shape(name: str) -> None:
    from langchain_classic.smith import RunEvalConfig, run_on_dataset

    shape, the_judge = SHAPES[name], judge()
    client = LocalDatasetClient([example(shape)])
    target = shape.target()
    runnable = target if shape.runnable else RunnableLambda(target)

    results = run_on_dataset(
        client, "shapes", runnable, evaluation=RunEvalConfig(custom_evaluators=[JevRunEvaluator(the_judge)])
    )

    check(shape, received(the_judge))
    (row,) = results["results"].values()
    assert [(f.key, f.score) for f in row["feedback"]] == [("correct", 1.0), ("jev_pass", 1.0)]


def test_the_user_s_email_in_a_returned_conversation_is_not_the_answer_s() -> None:
    # The prebuilt sensitive-data judge checks the answer for email addresses by code.
    model = ScriptedDecisionModel({"no_other_sensitive_data": 0.95})
    sensitive = load_judge("sensitive_data", model=model)

    def support_bot(inputs: dict[str, Any]) -> list[Any]:
        return [HumanMessage(inputs["question"]), AIMessage("I have reset your password; check your inbox.")]

    rows = list(
        evaluate(
            support_bot,
            data=[
                Example(
                    id=uuid.uuid4(),
                    dataset_id=uuid.UUID(int=7),
                    inputs={"question": "Please reset the password of jane.doe@example.com"},
                )
            ],
            evaluators=[JevRunEvaluator(sensitive)],
            client=offline_client(),
            upload_results=False,
            max_concurrency=0,
        )
    )

    scores = {r.key: r.score for r in rows[0]["evaluation_results"]["results"]}
    assert scores["no_email_addresses"] == 1.0
    assert scores["jev_pass"] == 1.0
    assert model.requests[0]["state"]["assistant_answer"] == "I have reset your password; check your inbox."
