"""`simulate` / `asimulate`: an app and a simulated user talk, each turn judged with its stop decision.

The conversation is one procedure (`_conversation`, a generator) that yields
what it needs done (the user's next turn, the app's answer, a verdict) and is
given back what came of it; a sync and an async driver do the I/O, so the two
forms cannot drift apart. Per turn, the judge's criteria and the stop criterion
go in ONE request (one judge holding both); the last turn's verdict is the
final one unless a separate ``final_judge`` is given. Whatever raises (the
user, the app, the judge) ends the conversation with ``ending="error"``, which
never passes; ``max_turns`` always holds.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from typing import Any, TypedDict

from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, convert_to_messages
from langchain_core.runnables import RunnableConfig
from typing_extensions import Unpack

from langchain_jev import _feedback as feedback
from langchain_jev._conversation import input_from_messages
from langchain_jev._criteria import JevCriterion
from langchain_jev._errors import JevConfigurationError
from langchain_jev._input import JevJudgeInput
from langchain_jev._judge import JevJudge
from langchain_jev._runs import CONVERSATION_FIELD, conversation_from_inputs
from langchain_jev._verdict import JevFinding, JevVerdict, Outcome
from langchain_jev.simulation._result import Ending, Simulation, SimulationTurn
from langchain_jev.simulation._user import SimulatedUser

__all__ = ["SimulationOptions", "StopCondition", "StopWhen", "asimulate", "check_options", "simulate"]

StopCondition = Callable[[Sequence[BaseMessage]], bool | Awaitable[bool]]
"""A function of the conversation so far that says (True) it ends; `asimulate` awaits what it returns."""

StopWhen = JevCriterion | tuple[Noul, float] | StopCondition
"""What ends a conversation early: a noul criterion, a `Noul` and the probability it must reach,
or a `StopCondition` function (asked after the turn's verdict, in no request of ours)."""

_Step = tuple[str, Any]


class SimulationOptions(TypedDict, total=False):
    """What `simulate` and `asimulate` take besides the app, the user and ``max_turns`` (each optional).

    `simulate` documents each; every one is None by default.
    """

    judge: JevJudge | None
    stop_when: StopWhen | None
    model: Any
    final_judge: JevJudge | None
    thread_id: str | None
    config: RunnableConfig | None


def simulate(
    app: Any, user: SimulatedUser, *, max_turns: int, **options: Unpack[SimulationOptions]
) -> Simulation:
    """Run a conversation of at most ``max_turns`` user turns between ``app`` and ``user``.

    ``app`` is a LangGraph graph (an agent from ``create_agent`` included): with a
    checkpointer it is sent each new user message in thread ``thread_id`` (a new
    one when None), without one the whole conversation each turn; any other
    runnable is sent the list of messages and may answer with a message, a text or
    messages. After each turn ``judge`` (if any) judges the conversation so far
    and ``stop_when`` (if any) decides whether it ends, in one request; a stop
    criterion without a judge is asked of ``model``. ``stop_when`` may instead be
    a function of the conversation so far returning True to end it (openevals'
    ``stopping_condition``), called after the turn's verdict.

    Raises:
        JevConfigurationError: ``max_turns`` below 1, a stop criterion that is not a noul
            question, a name it shares with the judge's criteria, or no model to ask it of.
            A stop function that answers other than True or False (or, in `simulate`,
            an awaitable) ends the conversation with that error.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_core.runnables import RunnableLambda
        >>> from langchain_jev.simulation import simulate, simulated_user
        >>> echo = RunnableLambda(lambda messages: AIMessage("You said: " + messages[-1].content))
        >>> result = simulate(echo, simulated_user(script=["Hi.", "Bye."]), max_turns=5)
        >>> [turn.user for turn in result.turns], result.ending, result.passed
        (['Hi.', 'Bye.'], 'user_done', True)

    """
    plan = _Plan.of(app, max_turns, options)
    steps = _Steps(_conversation(plan, user))
    while (step := steps.next()) is not None:
        try:
            steps.sent(_do(*step, plan, user))
        except Exception as error:
            steps.failed(error)
    return steps.result


async def asimulate(
    app: Any, user: SimulatedUser, *, max_turns: int, **options: Unpack[SimulationOptions]
) -> Simulation:
    """Asynchronous `simulate`: the same conversation, every call awaited."""
    plan = _Plan.of(app, max_turns, options)
    steps = _Steps(_conversation(plan, user))
    while (step := steps.next()) is not None:
        try:
            steps.sent(await _ado(*step, plan, user))
        except Exception as error:
            steps.failed(error)
    return steps.result


def check_options(app: Any, *, max_turns: int, **options: Unpack[SimulationOptions]) -> None:
    """Check `simulate`'s options without running a conversation (a target checks them when built).

    Raises:
        JevConfigurationError: as `simulate` raises for them.

    """
    _Plan.of(app, max_turns, options)


class _Plan:
    """What a simulation was asked: the app's kind, the one judge per turn, the config."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    app: Any
    graph: bool
    threaded: bool
    max_turns: int
    turn_judge: JevJudge | None
    judge: JevJudge | None
    stop: JevCriterion | None
    stop_call: StopCondition | None
    final_judge: JevJudge | None
    thread_id: str | None
    config: RunnableConfig

    @classmethod
    def of(cls, app: Any, max_turns: int, options: SimulationOptions) -> _Plan:
        unknown = sorted(set(options) - SimulationOptions.__optional_keys__)
        if unknown:  # as a signature refuses it
            raise TypeError(f"unexpected keyword argument {unknown[0]!r}: not an option of simulate")
        judge, stop_when, model = options.get("judge"), options.get("stop_when"), options.get("model")
        thread_id = options.get("thread_id")
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise JevConfigurationError(f"max_turns must be a whole number of at least 1, got {max_turns!r}")
        stop_call = stop_when if callable(stop_when) and not isinstance(stop_when, JevCriterion) else None
        stop = None if stop_call is not None else _stop_criterion(stop_when)
        turn_judge = judge
        if stop is not None:
            if judge is not None and stop.name in {c.name for c in judge.criteria}:
                raise JevConfigurationError(
                    f"stop_when: criterion {stop.name!r} has the name of one of the judge's criteria"
                )
            if judge is None and model is None:
                raise JevConfigurationError("stop_when needs a judge or a model= to ask it of")
            turn_judge = _with_stop(judge, stop, model)
        graph = _is_graph(app)
        threaded = graph and getattr(app, "checkpointer", None) not in (None, False)
        if threaded and thread_id is None:
            thread_id = str(uuid.uuid4())
        run_config: dict[str, Any] = dict(options.get("config") or {})
        if threaded:
            run_config["configurable"] = {**run_config.get("configurable", {}), "thread_id": thread_id}
        return cls(
            app=app,
            graph=graph,
            threaded=threaded,
            max_turns=max_turns,
            turn_judge=turn_judge,
            judge=judge,
            stop=stop,
            stop_call=stop_call,
            final_judge=options.get("final_judge"),
            thread_id=thread_id if threaded else None,
            config=run_config,
        )


def _stop_criterion(stop_when: StopWhen | None) -> JevCriterion | None:
    if stop_when is None:
        return None
    if isinstance(stop_when, tuple) and len(stop_when) == 2 and isinstance(stop_when[0], Noul):
        return JevCriterion.noul("stop", stop_when[0], stop_when[1])
    if isinstance(stop_when, JevCriterion) and stop_when.kind == "noul":
        return stop_when
    raise JevConfigurationError(
        "stop_when must be a noul JevCriterion or (Noul, minimum), "
        f"got {type(stop_when).__name__}: {stop_when!r:.80}"
    )


def _with_stop(judge: JevJudge | None, stop: JevCriterion, model: Any) -> JevJudge:
    """One judge asking the judge's questions and the stop question together."""
    if judge is None:
        return JevJudge([stop], model)
    return JevJudge(
        [*judge.criteria, stop],
        judge.model,
        min_confidence=judge.min_confidence,
        fail_on_inconclusive=judge.fail_on_inconclusive,
        fail_on_error=judge.fail_on_error,
        fail_fast=judge.fail_fast,
        feedback_renderer=judge.feedback_renderer,
    )


def _is_graph(app: Any) -> bool:
    try:
        from langgraph.pregel import Pregel
    except ImportError:  # pragma: no cover - langgraph is a core dependency
        return False
    return isinstance(app, Pregel)


# ---------------------------------------------------------------- the conversation, once


def _conversation(plan: _Plan, user: SimulatedUser) -> Generator[_Step, Any, Simulation]:
    history: list[BaseMessage] = []
    turns: list[SimulationTurn] = []
    verdict: JevVerdict | None = None
    ending: Ending = "max_turns"
    try:
        if plan.threaded:
            history = list((yield ("state", None)))
        for index in range(plan.max_turns):
            said = yield ("user", tuple(history))
            if said is None:
                ending = "user_done"
                break
            before = len(history)
            history = yield ("app", (history, HumanMessage(said)))
            replies = tuple(history[before + 1 :])
            stop: JevFinding | None = None
            if plan.turn_judge is not None:
                asked = yield ("judge", (plan.turn_judge, turn_input(history)))
                verdict, stop = _split(asked, plan)
            turns.append(SimulationTurn(index, said, replies, verdict, stop))
            if stop is not None and stop.outcome is Outcome.PASSED:
                ending = "stopped"
                break
            if plan.stop_call is not None and (yield ("stop", tuple(history))):
                ending = "stopped"
                break
        if plan.final_judge is not None:
            verdict = yield ("judge", (plan.final_judge, turn_input(history)))
    except Exception as error:
        return Simulation(tuple(history), tuple(turns), "error", verdict, _describe(error), plan.thread_id)
    return Simulation(tuple(history), tuple(turns), ending, verdict, None, plan.thread_id)


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def turn_input(messages: Sequence[BaseMessage]) -> JevJudgeInput:
    """The judge input of a conversation so far: its last turn, the earlier turns as ``conversation``.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> data = turn_input([HumanMessage("Hi"), AIMessage("Hello"), HumanMessage("Refund?"),
        ...                    AIMessage("Which order?")])
        >>> data.question, data.answer, len(data.fields["conversation"])
        ('Refund?', 'Which order?', 3)

    """
    last = input_from_messages(messages)
    asked = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    conversation = conversation_from_inputs({"messages": list(messages[: asked + 1])})
    return JevJudgeInput(
        last.question,
        last.answer,
        tool_calls=last.tool_calls,
        fields={CONVERSATION_FIELD: conversation} if conversation else None,
    )


def _split(verdict: JevVerdict, plan: _Plan) -> tuple[JevVerdict | None, JevFinding | None]:
    """The judge's own verdict and the stop finding, out of the one judge that asked both."""
    if plan.stop is None:
        return verdict, None
    stop = verdict.finding(plan.stop.name)
    if plan.judge is None:
        return None, stop
    own = tuple(finding for finding in verdict.findings if finding.criterion.name != plan.stop.name)
    failed = any(finding.outcome is Outcome.FAILED for finding in own)
    passed = not failed and (verdict.passed or stop.outcome is Outcome.FAILED)
    renderer = plan.judge.feedback_renderer or feedback.default_feedback
    return JevVerdict(passed, own, verdict.response, renderer(own)), stop


# ---------------------------------------------------------------- the I/O, sync and async


class _Steps:
    """The conversation driven one step at a time: each step is sent what came of it, or its error."""

    def __init__(self, conversation: Generator[_Step, Any, Simulation]) -> None:
        self._conversation = conversation
        self._sent: Any = None
        self._failure: BaseException | None = None
        self.result: Simulation

    def next(self) -> _Step | None:
        """The next step the conversation asks for; None once it has ended (with its `result`)."""
        failure, self._failure = self._failure, None
        try:
            if failure is not None:
                return self._conversation.throw(failure)
            return self._conversation.send(self._sent)
        except StopIteration as done:
            self.result = done.value
            return None

    def sent(self, value: Any) -> None:
        """What the step came to: the conversation is given it."""
        self._sent = value

    def failed(self, error: BaseException) -> None:
        """The step raised: the conversation is thrown ``error``."""
        self._failure = error


def _payload(plan: _Plan, history: list[BaseMessage], said: HumanMessage) -> Any:
    if plan.threaded:
        return {"messages": [said]}
    if plan.graph:
        return {"messages": [*history, said]}
    return [*history, said]


def _after(history: list[BaseMessage], said: HumanMessage, output: Any) -> list[BaseMessage]:
    """The conversation after the app answered ``said`` with ``output``."""
    if isinstance(output, Mapping) and "messages" in output:
        return list(convert_to_messages(output["messages"]))
    if isinstance(output, BaseMessage):
        return [*history, said, output]
    if isinstance(output, str):
        return [*history, said, AIMessage(output)]
    if isinstance(output, Sequence):
        return [*history, said, *convert_to_messages(output)]
    raise JevConfigurationError(
        f"the app answered with {type(output).__name__}; expected messages, a message or text"
    )


def _state(plan: _Plan) -> list[BaseMessage]:
    values = plan.app.get_state(plan.config).values or {}
    return list(convert_to_messages(values.get("messages", [])))


async def _astate(plan: _Plan) -> list[BaseMessage]:
    values = (await plan.app.aget_state(plan.config)).values or {}
    return list(convert_to_messages(values.get("messages", [])))


def _stopped(answer: Any) -> bool:
    """What a stop function answered, held to True or False (fail closed on anything else)."""
    if not isinstance(answer, bool):
        raise JevConfigurationError(
            "stop_when: the stop function must return True or False, "
            f"got {type(answer).__name__}: {answer!r:.60}"
        )
    return answer


def _do(kind: str, argument: Any, plan: _Plan, user: SimulatedUser) -> Any:
    if kind == "state":
        return _state(plan)
    if kind == "stop":
        answer = plan.stop_call(argument)  # type: ignore[misc]
        if inspect.isawaitable(answer):
            getattr(answer, "close", lambda: None)()
            raise JevConfigurationError(
                "stop_when: the stop function returned an awaitable; run it with asimulate"
            )
        return _stopped(answer)
    if kind == "user":
        return user.next_turn(argument)
    if kind == "app":
        history, said = argument
        return _after(history, said, plan.app.invoke(_payload(plan, history, said), plan.config))
    judge, data = argument
    return judge.invoke(data)


async def _ado(kind: str, argument: Any, plan: _Plan, user: SimulatedUser) -> Any:
    if kind == "state":
        return await _astate(plan)
    if kind == "stop":
        answer = plan.stop_call(argument)  # type: ignore[misc]
        return _stopped(await answer if inspect.isawaitable(answer) else answer)
    if kind == "user":
        return await user.anext_turn(argument)
    if kind == "app":
        history, said = argument
        return _after(history, said, await plan.app.ainvoke(_payload(plan, history, said), plan.config))
    judge, data = argument
    return await judge.ainvoke(data)
