"""From traced runs to judge inputs: runs recorded by LangChain's tracer and by
LangSmith's @traceable, with retriever and tool child runs, and the documented
fallbacks and errors."""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.load import dumpd
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import tool
from langsmith.run_trees import RunTree
from langsmith.schemas import Example

from langchain_jev import JevInputError, ToolCall
from langchain_jev._runs import (
    answer_from_outputs,
    context_from_outputs,
    expected_from_reference,
    judge_input_from_run,
    question_from_inputs,
)
from tests.fakes import RunRecorder

EIFFEL = "The Eiffel Tower is 330 metres tall."
HISTORY = "It was finished in 1889."


class Shelf(BaseRetriever):
    """A retriever over two fixed documents."""

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        return [Document(EIFFEL, metadata={"source": "a"}), Document(HISTORY, metadata={"source": "b"})]


@tool
def to_feet(metres: int) -> str:
    """Convert metres to feet."""
    return f"{metres * 3.28:.0f} feet"


@tool
def broken(metres: int) -> str:
    """Always fails."""
    raise ValueError("unit service down")


def example(inputs: dict[str, Any], outputs: dict[str, Any] | None) -> Example:
    return Example(id=uuid.uuid4(), dataset_id=uuid.uuid4(), inputs=inputs, outputs=outputs)


def traced(func: Any, inputs: dict[str, Any]) -> Any:
    """Run ``func`` as a LangChain runnable and return the root run LangChain's tracer recorded."""
    collector = RunRecorder()
    RunnableLambda(func).invoke(inputs, {"callbacks": [collector]})
    (root,) = collector.roots
    return root


def test_a_langchain_rag_run_with_retriever_and_tool_children_maps_to_the_judge_input() -> None:
    def rag(inputs: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        Shelf().invoke(inputs["question"], config)
        feet = to_feet.invoke({"metres": 330}, config)
        tool_message = to_feet.invoke(
            {"type": "tool_call", "name": "to_feet", "args": {"metres": 1}, "id": "call-1"}, config
        )
        assert isinstance(tool_message, ToolMessage)
        return {"answer": f"330 metres, or {feet}."}

    root = traced(rag, {"question": "How tall is the Eiffel Tower?"})
    data = judge_input_from_run(root, example({"question": "ignored"}, {"answer": "330 metres"}))

    assert data.question == "How tall is the Eiffel Tower?"
    assert data.answer == "330 metres, or 1082 feet."
    assert data.expected == "330 metres"
    assert data.context == (EIFFEL, HISTORY)
    assert data.tool_calls == (
        ToolCall("to_feet", {"metres": 330}, "1082 feet"),
        ToolCall("to_feet", {"metres": 1}, "3 feet"),
    )
    # The state is what the decision model receives: plain JSON.
    assert data.to_state()["tool_calls"][1] == {
        "name": "to_feet",
        "arguments": {"metres": 1},
        "result": "3 feet",
    }


def test_nested_chains_are_searched_but_a_tool_s_own_children_are_not() -> None:
    def inner(inputs: dict[str, Any], config: RunnableConfig) -> str:
        Shelf().invoke("q", config)
        return "ok"

    def outer(inputs: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        RunnableLambda(inner).invoke(inputs, config)
        return {"output": "done"}

    data = judge_input_from_run(traced(outer, {"input": "Go"}))
    assert (data.question, data.answer, data.context) == ("Go", "done", (EIFFEL, HISTORY))


def test_a_failed_tool_run_reports_its_error_as_the_result() -> None:
    def agent(inputs: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        with contextlib.suppress(ValueError):
            broken.invoke({"metres": 3}, config)
        return {"response": "I could not convert it."}

    (call,) = judge_input_from_run(traced(agent, {"query": "Convert 3 m"})).tool_calls
    assert call.name == "broken"
    assert call.arguments == {"metres": 3}
    assert "unit service down" in call.result["error"]


def test_traceable_runs_with_retriever_and_tool_children_map_the_same_way() -> None:
    root = RunTree(name="agent", run_type="chain", inputs={"question": "Weather in Dublin?"})
    retriever = root.create_child(name="search", run_type="retriever", inputs={"query": "Dublin"})
    retriever.end(
        outputs={"documents": [{"page_content": "Rain in Dublin.", "metadata": {}, "type": "Document"}]}
    )
    weather = root.create_child(name="weather", run_type="tool", inputs={"city": "Dublin"})
    weather.end(outputs={"output": {"sky": "rain", "celsius": 12}})
    root.end(outputs={"answer": "Rain, 12C."})

    data = judge_input_from_run(root)
    assert data.context == ("Rain in Dublin.",)
    assert data.tool_calls == (ToolCall("weather", {"city": "Dublin"}, {"sky": "rain", "celsius": 12}),)


def test_without_tool_runs_the_tool_calls_come_from_the_output_messages_of_the_last_turn() -> None:
    messages = [
        HumanMessage("Old question"),
        AIMessage("", tool_calls=[{"name": "old", "args": {}, "id": "0"}]),
        ToolMessage("old result", tool_call_id="0"),
        AIMessage("Old answer"),
        HumanMessage("Weather in Dublin?"),
        AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Dublin"}, "id": "1"}]),
        ToolMessage("Rain, 12C", tool_call_id="1"),
        AIMessage("Bring an umbrella."),
    ]
    root = RunTree(name="agent", run_type="chain", inputs={"messages": messages[:5]})
    root.end(outputs={"messages": [dumpd(m) for m in messages]})  # as read back from LangSmith

    data = judge_input_from_run(root)
    assert data.question == "Weather in Dublin?"
    assert data.answer == "Bring an umbrella."
    assert data.tool_calls == (ToolCall("weather", {"city": "Dublin"}, "Rain, 12C"),)


@pytest.mark.parametrize(
    ("inputs", "question"),
    [
        ({"question": "Q", "input": "I"}, "Q"),
        ({"input": "I", "query": "Y"}, "I"),
        ({"query": "Y"}, "Y"),
        (
            {
                "messages": [
                    SystemMessage("be brief"),
                    HumanMessage("first"),
                    AIMessage("a"),
                    HumanMessage("last"),
                ]
            },
            "last",
        ),
        ({"messages": [{"role": "user", "content": "as dicts"}]}, "as dicts"),
        ({"messages": [[HumanMessage("chat model batch")]]}, "chat model batch"),
        ({"question": HumanMessage("a message")}, "a message"),
        ({"other": "x"}, None),
    ],
)
def test_question_keys_in_order(inputs: dict[str, Any], question: str | None) -> None:
    assert question_from_inputs(inputs) == question


@pytest.mark.parametrize(
    ("outputs", "answer"),
    [
        ({"answer": "A", "output": "O"}, "A"),
        ({"output": "O", "response": "R"}, "O"),
        ({"response": "R"}, "R"),
        ({"output": AIMessage("from a chat model")}, "from a chat model"),
        ({"output": {"role": "assistant", "content": "a message dict"}}, "a message dict"),
        ({"output": {"city": "Paris"}}, '{"city": "Paris"}'),
        ({"output": 42}, "42"),
        ({"messages": [HumanMessage("q"), AIMessage("final")]}, "final"),
        ({"messages": [AIMessage("earlier"), HumanMessage("unanswered")]}, None),
        ({"other": "x"}, "x"),
        ({"answer": None, "other": "x"}, None),
        ({"messages": [], "other": "x"}, None),
        ({"response": "R", "result": "S", "text": "T"}, "R"),
        ({"result": "S", "text": "T", "generation": "G", "content": "C"}, "S"),
        ({"text": "T", "generation": "G", "content": "C"}, "T"),
        ({"generation": "G", "content": "C"}, "G"),
        ({"content": "C", "metadata": {}}, "C"),
        ({"output": [HumanMessage("q"), AIMessage("only the reply")]}, "only the reply"),
        ({"output": [HumanMessage("q"), AIMessage("", tool_calls=[{"name": "t", "args": {}, "id": "1"}])]}, None),
        ({"output": ["a", "b"]}, '["a", "b"]'),
        ({"content": [{"type": "text", "text": "blocks"}], "type": "ai"}, "blocks"),
        ({"summary": "S", "documents": ["d"]}, "S"),
        ({"summary": "S", "score": 3}, '{"score": 3, "summary": "S"}'),
        ({"documents": ["d"]}, None),
    ],
)
def test_answer_keys_in_order(outputs: dict[str, Any], answer: str | None) -> None:
    assert answer_from_outputs(outputs) == answer


def test_the_question_falls_back_to_the_example_inputs() -> None:
    run = RunTree(name="t", run_type="chain", inputs={"payload": 1})
    run.end(outputs={"answer": "A"})
    assert (
        judge_input_from_run(run, example({"question": "From the dataset"}, None)).question
        == "From the dataset"
    )


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        (None, None),
        ({}, None),
        ({"answer": "Paris", "notes": "x"}, "Paris"),
        ({"reference": "Paris", "notes": "x"}, "Paris"),
        ({"label": "positive"}, "positive"),
        ({"city": "Paris", "country": "France"}, {"city": "Paris", "country": "France"}),
        ({"output": AIMessage("as a message")}, "as a message"),
        ({"content": "recorded as its fields", "type": "ai", "tool_calls": []}, "recorded as its fields"),
        ({"output": [HumanMessage("Capital?"), AIMessage("Paris")]}, "Paris"),
        ({"label": [{"role": "user", "content": "Capital?"}, {"role": "assistant", "content": "Paris"}]}, "Paris"),
        ({"answer": ["Paris", "Lyon"]}, ["Paris", "Lyon"]),
    ],
)
def test_expected_output_from_reference_outputs(reference: Any, expected: Any) -> None:
    assert expected_from_reference(reference) == expected


def test_context_in_the_outputs_wins_over_retriever_runs_and_reads_every_document_shape() -> None:
    root = RunTree(name="rag", run_type="chain", inputs={"question": "q"})
    root.create_child(name="search", run_type="retriever", inputs={}).end(outputs={"documents": ["ignored"]})
    serialized = dumpd(Document("serialized"))
    root.end(
        outputs={"answer": "a", "documents": [Document("doc"), {"page_content": "dict"}, serialized, "text"]}
    )
    assert judge_input_from_run(root).context == ("doc", "dict", "serialized", "text")
    assert context_from_outputs({"context": "one string"}) == ["one string"]
    assert context_from_outputs({"context": []}) == []
    assert context_from_outputs({"answer": "a"}) is None


def test_a_document_that_is_not_text_names_its_key_and_position() -> None:
    with pytest.raises(JevInputError, match=r"outputs\['context'\]\[1\] is a int"):
        context_from_outputs({"context": ["fine", 7]})


def test_a_run_without_an_answer_names_the_keys_looked_for_and_those_present() -> None:
    run = RunTree(name="bot", run_type="chain", inputs={"question": "q"})
    run.end(outputs={"result": None, "documents": ["d"]})
    with pytest.raises(JevInputError) as caught:
        judge_input_from_run(run)
    message = str(caught.value)
    for key in ("'answer'", "'output'", "'response'", "'messages'", "['documents', 'result']", "prepare="):
        assert key in message


def test_a_failed_run_says_it_failed() -> None:
    run = RunTree(name="bot", run_type="chain", inputs={"question": "q"})
    run.end(error="Traceback ...\nTimeoutError: upstream took too long")
    with pytest.raises(
        JevInputError, match=r"run 'bot' failed, so there is no answer to judge: TimeoutError: upstream took too long$"
    ):
        judge_input_from_run(run)


def test_a_failed_run_with_outputs_names_the_error_not_the_keys() -> None:
    # LangSmith's @traceable ends a failed target with outputs {"output": None}.
    run = RunTree(name="Target", run_type="chain", inputs={"question": "q"})
    run.end(outputs={"output": None}, error="ConnectionError('down')\n\nTraceback ...\nConnectionError: down\n")
    with pytest.raises(JevInputError, match=r"failed, so there is no answer to judge: ConnectionError: down$"):
        judge_input_from_run(run)


def test_a_messages_shaped_reference_gives_the_final_assistant_content() -> None:
    reference = {
        "messages": [
            {"role": "user", "content": "Capital of France?"},
            {"role": "assistant", "content": "", "tool_calls": [{"name": "search", "args": {}, "id": "1"}]},
            {"role": "tool", "content": "Paris", "tool_call_id": "1"},
            {"role": "assistant", "content": "Paris"},
        ]
    }
    assert expected_from_reference(reference) == "Paris"


@pytest.mark.parametrize(
    "inputs",
    [
        {"input": {"question": "q?"}, "config": None, "stream_mode": "values"},
        {"x": {"question": "q?"}},
        {"inputs": {"input": {"question": "q?"}}},
        {"input": {"messages": [{"role": "user", "content": "q?"}]}, "config": None},
        {"input": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "q?"}]},
    ],
)
def test_wrapped_inputs_are_opened(inputs: dict[str, Any]) -> None:
    assert question_from_inputs(inputs) == "q?"


def test_a_message_under_input_is_not_opened_as_a_wrapper() -> None:
    assert question_from_inputs({"input": {"role": "user", "content": "q?"}}) == "q?"


def test_structured_response_is_the_answer_as_json() -> None:
    from pydantic import BaseModel

    class City(BaseModel):
        name: str
        population: int

    outputs = {"messages": [AIMessage("", tool_calls=[{"name": "City", "args": {}, "id": "1"}])],
               "structured_response": City(name="Paris", population=2_100_000)}
    assert answer_from_outputs(outputs) == '{"name": "Paris", "population": 2100000}'


def test_the_conversation_of_a_messages_input_goes_to_the_judge_beside_the_question() -> None:
    run = RunTree(
        name="agent",
        run_type="chain",
        inputs={"messages": [SystemMessage("Be brief."), HumanMessage("Weather in Dublin?")]},
    )
    run.end(outputs={"answer": "Rain."})
    data = judge_input_from_run(run)
    assert data.question == "Weather in Dublin?"
    assert data.field("conversation") == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Dublin?"},
    ]
