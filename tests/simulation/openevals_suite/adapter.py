"""openevals' multi-turn simulator, answered by our `simulate` / `asimulate`.

The vendored tests import ``run_multiturn_simulation`` (and its async twin),
``create_llm_simulated_user`` (and its twin), ``create_llm_as_judge`` (and its
twin), ``ChatCompletionMessage`` and ``_is_internal_message`` from here instead
of openevals. What each openevals argument becomes:

- ``app(inputs, *, thread_id)``: a runnable our simulation sends the conversation;
  it hands the app the last user message, as openevals does, and adds what it
  returns (a message, an OpenAI message object, text, or messages);
- ``user``: a list of responses is our script; a callable
  ``(trajectory, *, turn_counter, thread_id)`` writes each turn; the user
  `create_llm_simulated_user` builds is our `simulated_user` (``fixed_responses``
  as its script, ``system`` as its whole prompt, ``client`` as its model);
- ``trajectory_evaluators``: those built by `create_llm_as_judge` here become
  the criteria of ONE `JevJudge`, asked every turn (openevals asks each once, at
  the end); the last turn's verdict gives their results. Any other evaluator is
  called once at the end with ``outputs`` and ``reference_outputs``, as openevals
  calls it;
- ``stopping_condition``: our ``stop_when`` function, given the trajectory and
  ``turn_counter``;
- ``max_turns``: required (our simulate always holds a turn limit).

Whatever raised (the app, the user, the judge, the stop function) ends our
conversation with an error; the adapter raises it, as openevals lets it raise.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain.chat_models import init_chat_model
from langchain_core.decisions import Noul
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    convert_to_messages,
    convert_to_openai_messages,
)
from langchain_core.runnables import RunnableLambda

from langchain_jev import JevConfigurationError, JevCriterion, JevJudge, Outcome
from langchain_jev.simulation import Simulation, asimulate, simulate, simulated_user, turn_input

ChatCompletionMessage = dict[str, Any]
"""An OpenAI chat message, as openevals' TypedDict holds one: a plain dict."""

_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name", "id")


def _is_internal_message(message: ChatCompletionMessage) -> bool:
    """openevals' rule: a message the user never sees (tool traffic, tool-calling turns)."""
    return bool(
        message.get("role") != "user" and (message.get("role") != "assistant" or message.get("tool_calls"))
    )


def _trajectory(messages: Sequence[BaseMessage]) -> list[ChatCompletionMessage]:
    return list(convert_to_openai_messages(list(messages)))


def _messages(value: Any) -> list[BaseMessage]:
    """What an app or a user returned, as messages (an OpenAI message object read as its dict)."""
    if isinstance(value, Mapping) and "messages" in value:
        value = value["messages"]
    if isinstance(value, (str, BaseMessage, Mapping)) or hasattr(value, "model_dump"):
        value = [value]
    read: list[BaseMessage] = []
    for item in value:
        if isinstance(item, BaseMessage):
            read.append(item)
            continue
        if isinstance(item, str):
            item = AIMessage(item)
        elif hasattr(item, "model_dump"):
            item = item.model_dump()
        if isinstance(item, Mapping):
            item = {key: item[key] for key in _KEYS if item.get(key) is not None}
        read.extend(convert_to_messages([item]))
    return read


def _text(said: Any) -> str:
    if isinstance(said, str):
        return said
    (message,) = _messages(said)
    return message.text


def _count(messages: Sequence[BaseMessage]) -> int:
    return sum(isinstance(message, HumanMessage) for message in messages)


def _ready(value: Any, where: str) -> Any:
    if inspect.isawaitable(value):
        getattr(value, "close", lambda: None)()
        raise TypeError(f"the {where} is async: run it with run_multiturn_simulation_async")
    return value


# ---------------------------------------------------------------- the app and the user


def _app(app: Callable[..., Any], thread_id: str) -> RunnableLambda[Any, list[BaseMessage]]:
    def call(messages: list[BaseMessage]) -> list[BaseMessage]:
        return _messages(_ready(app(_trajectory(messages[-1:])[0], thread_id=thread_id), "app"))

    async def acall(messages: list[BaseMessage]) -> list[BaseMessage]:
        answer = app(_trajectory(messages[-1:])[0], thread_id=thread_id)
        return _messages(await answer if inspect.isawaitable(answer) else answer)

    return RunnableLambda(call, afunc=acall, name="app")


@dataclass(frozen=True)
class _CallableUser:
    """openevals' user callable as our `SimulatedUser`."""

    user: Callable[..., Any]
    thread_id: str

    def _ask(self, messages: Sequence[BaseMessage]) -> Any:
        return self.user(_trajectory(messages), turn_counter=_count(messages), thread_id=self.thread_id)

    def next_turn(self, messages: Sequence[BaseMessage]) -> str | None:
        return _text(_ready(self._ask(messages), "user"))

    async def anext_turn(self, messages: Sequence[BaseMessage]) -> str | None:
        said = self._ask(messages)
        return _text(await said if inspect.isawaitable(said) else said)


def create_llm_simulated_user(
    *,
    system: str,
    model: str | None = None,
    client: Any = None,
    fixed_responses: Sequence[str | ChatCompletionMessage] | None = None,
) -> Any:
    """openevals' factory, as our `simulated_user`: the fixed responses, then the model in character."""
    if not model and client is None:
        raise ValueError("Either model or client must be provided")
    if model and client is not None:
        raise ValueError("Only one of model or client must be provided")
    chat = client if client is not None else init_chat_model(model=model)
    return simulated_user(chat, system=system, script=[_text(line) for line in fixed_responses or ()])


create_async_llm_simulated_user = create_llm_simulated_user
"""The async twin: our simulated user answers both paths."""


# ---------------------------------------------------------------- the LLM-as-judge evaluators


@dataclass(frozen=True)
class _Judged:
    """An evaluator `create_llm_as_judge` built: a noul criterion and the decision model it is asked of."""

    criterion: JevCriterion
    model: Any

    def __call__(self, *, outputs: Any, **_: Any) -> dict[str, Any]:
        """Judge a finished trajectory on its own, as openevals' evaluator does."""
        verdict = JevJudge([self.criterion], self.model).invoke(turn_input(_messages(outputs)))
        return _result(self.criterion, verdict)


@dataclass(frozen=True)
class _AsyncJudged(_Judged):
    async def __call__(self, *, outputs: Any, **_: Any) -> dict[str, Any]:  # type: ignore[override]
        verdict = await JevJudge([self.criterion], self.model).ainvoke(turn_input(_messages(outputs)))
        return _result(self.criterion, verdict)


def create_llm_as_judge(*, prompt: str, model: Any, feedback_key: str = "score", **options: Any) -> _Judged:
    """openevals' factory, as a noul criterion asked of a decision model (a boolean score at 0.5)."""
    return _criterion(_Judged, prompt, model, feedback_key, options)


def create_async_llm_as_judge(
    *, prompt: str, model: Any, feedback_key: str = "score", **options: Any
) -> _AsyncJudged:
    """The async twin of `create_llm_as_judge`."""
    return _criterion(_AsyncJudged, prompt, model, feedback_key, options)


_J = TypeVar("_J", bound=_Judged)


def _criterion(kind: type[_J], prompt: str, model: Any, feedback_key: str, options: Mapping[str, Any]) -> _J:
    if options:
        raise TypeError(f"create_llm_as_judge: this adapter does not map {sorted(options)}")
    if isinstance(model, str):
        raise JevConfigurationError(
            f"create_llm_as_judge: model {model!r} names a chat model; this adapter asks a decision model"
        )
    instructions = prompt.replace("{outputs}", "`conversation`, then `user_question` and `assistant_answer`")
    return kind(JevCriterion.noul(feedback_key, Noul(instructions=instructions), 0.5), model)


def _result(criterion: JevCriterion, verdict: Any) -> dict[str, Any]:
    finding = verdict.finding(criterion.name)
    return {
        "key": criterion.name,
        "score": finding.outcome is Outcome.PASSED,
        "comment": finding.reasoning or finding.detail,
        "metadata": None,
    }


# ---------------------------------------------------------------- the simulation


@dataclass(frozen=True)
class _Setup:
    app: Any
    user: Any
    judged: tuple[_Judged, ...]
    others: tuple[Callable[..., Any], ...]
    options: dict[str, Any]

    @classmethod
    def of(
        cls,
        app: Callable[..., Any],
        user: Any,
        max_turns: int | None,
        trajectory_evaluators: Sequence[Callable[..., Any]] | None,
        stopping_condition: Callable[..., Any] | None,
        thread_id: str | None,
    ) -> _Setup:
        if max_turns is None:
            raise JevConfigurationError("max_turns: our simulate always holds a turn limit; give one")
        thread = thread_id or str(uuid.uuid4())
        if isinstance(user, list):
            user = simulated_user(script=[_text(line) for line in user])
        elif not hasattr(user, "next_turn"):
            user = _CallableUser(user, thread)
        evaluators = tuple(trajectory_evaluators or ())
        judged = tuple(e for e in evaluators if isinstance(e, _Judged))
        options: dict[str, Any] = {"max_turns": max_turns, "thread_id": thread}
        if judged:
            if len({id(e.model) for e in judged}) > 1:
                raise JevConfigurationError(
                    "trajectory_evaluators: the LLM judges must share one decision model"
                )
            options["judge"] = JevJudge([e.criterion for e in judged], judged[0].model)
        if stopping_condition is not None:
            options["stop_when"] = lambda messages: stopping_condition(
                _trajectory(messages), turn_counter=_count(messages)
            )
        others = tuple(e for e in evaluators if not isinstance(e, _Judged))
        return cls(_app(app, thread), user, judged, others, options)

    def outcome(self, simulation: Simulation) -> tuple[list[ChatCompletionMessage], list[dict[str, Any]]]:
        if simulation.ending == "error":
            raise RuntimeError(f"the simulation ended in an error: {simulation.error}")
        return _trajectory(simulation.messages), [
            _result(e.criterion, simulation.verdict) for e in self.judged
        ]


def _extend(results: list[dict[str, Any]], result: Any) -> None:
    results.extend(result if isinstance(result, list) else [result])


def run_multiturn_simulation(
    *,
    app: Callable[..., Any],
    user: Any,
    max_turns: int | None = None,
    trajectory_evaluators: Sequence[Callable[..., Any]] | None = None,
    stopping_condition: Callable[..., bool] | None = None,
    reference_outputs: Any = None,
    thread_id: str | None = None,
) -> dict[str, Any]:
    """openevals' simulator, run by our `simulate`: ``{"trajectory": ..., "evaluator_results": ...}``."""
    setup = _Setup.of(app, user, max_turns, trajectory_evaluators, stopping_condition, thread_id)
    trajectory, results = setup.outcome(simulate(setup.app, setup.user, **setup.options))
    for evaluator in setup.others:
        _extend(
            results, _ready(evaluator(outputs=trajectory, reference_outputs=reference_outputs), "evaluator")
        )
    return {"trajectory": trajectory, "evaluator_results": results}


async def run_multiturn_simulation_async(
    *,
    app: Callable[..., Any],
    user: Any,
    max_turns: int | None = None,
    trajectory_evaluators: Sequence[Callable[..., Any]] | None = None,
    stopping_condition: Callable[..., Awaitable[bool] | bool] | None = None,
    reference_outputs: Any = None,
    thread_id: str | None = None,
) -> dict[str, Any]:
    """The async twin, run by our `asimulate`."""
    setup = _Setup.of(app, user, max_turns, trajectory_evaluators, stopping_condition, thread_id)
    trajectory, results = setup.outcome(await asimulate(setup.app, setup.user, **setup.options))
    for evaluator in setup.others:
        result = evaluator(outputs=trajectory, reference_outputs=reference_outputs)
        _extend(results, await result if inspect.isawaitable(result) else result)
    return {"trajectory": trajectory, "evaluator_results": results}
