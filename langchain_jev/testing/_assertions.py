"""Assertions on model output for test suites: ``assert_judged`` and its async twin."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage, convert_to_messages
from langchain_core.runnables import RunnableConfig

from langchain_jev._conversation import input_from_messages, message_text
from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev._input import JevJudgeInput
from langchain_jev._judge import JevJudge
from langchain_jev._verdict import JevVerdict

if TYPE_CHECKING:
    from langchain_jev._statements import StatementLike

__all__ = ["Given", "aassert_judged", "assert_judged", "failure_message"]

Given = str | Sequence[BaseMessage | Mapping[str, Any]] | None
"""What the judged text answers: the user's question, or the conversation before it."""


def assert_judged(
    text: str | BaseMessage,
    *statements_or_judge: StatementLike | JevJudge,
    given: Given = None,
    context: str | Sequence[str] | None = None,
    model: Any = None,
    threshold: float = 0.5,
    config: RunnableConfig | None = None,
) -> JevVerdict:
    """Assert that a judge passes ``text``; return the verdict.

    Pass plain-English statements that must hold of the text (strings, or
    ``langchain_jev.Statement`` objects; each becomes a yes/no question
    passing at ``threshold``, all asked in one request), or one `JevJudge`.

    ``given`` is the user's question, or the conversation (LangChain messages or
    role/content mappings) whose last answer is ``text``: its last user message
    becomes the question and the tool calls of that turn are judged with it.
    ``context`` is the retrieved evidence. ``model`` is the decision model for
    statements (None for Jev from the environment); with a judge it replaces the
    judge's own model.

    A question the model gave no readable answer for fails the assertion too,
    whatever the judge's policy: a test must not pass on an answer nobody gave.

    Raises:
        AssertionError: the verdict did not pass; the message is the verdict's
            summary and feedback (and the errors, if any).
        JevConfigurationError: no statements, or statements mixed with a judge.
        JevInputError: ``text`` or ``given`` cannot be read.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> polite = JevJudge(
        ...     [JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)],
        ...     model=ScriptedDecisionModel({"polite": 0.2}),
        ... )
        >>> assert_judged("Go away.", polite, given="Can you help me?")
        Traceback (most recent call last):
        ...
        AssertionError: passed=false [polite=FAILED]
        polite: not met: "Is `assistant_answer` polite?" (yes at 0.20, needs 0.70)

    """
    __tracebackhide__ = True
    judge = _judge(statements_or_judge, model, threshold)
    verdict = judge.judge(judge_input(text, given=given, context=context), config=config)
    _check(verdict)
    return verdict


async def aassert_judged(
    text: str | BaseMessage,
    *statements_or_judge: StatementLike | JevJudge,
    given: Given = None,
    context: str | Sequence[str] | None = None,
    model: Any = None,
    threshold: float = 0.5,
    config: RunnableConfig | None = None,
) -> JevVerdict:
    """Assert as `assert_judged` does, asynchronously.

    Example:
        >>> import asyncio
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> polite = JevJudge(
        ...     [JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)],
        ...     model=ScriptedDecisionModel({"polite": 0.9}),
        ... )
        >>> asyncio.run(aassert_judged("Hello!", polite)).summary()
        'passed=true [polite=PASSED]'

    """
    __tracebackhide__ = True
    judge = _judge(statements_or_judge, model, threshold)
    verdict = await judge.ajudge(judge_input(text, given=given, context=context), config=config)
    _check(verdict)
    return verdict


def judge_input(
    text: str | BaseMessage, *, given: Given = None, context: str | Sequence[str] | None = None
) -> JevJudgeInput:
    """Return the judge input for ``text`` answering ``given`` (see `assert_judged`).

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> data = judge_input("Sunny.", given=[HumanMessage("Hi"), AIMessage("Hello"),
        ...                                      HumanMessage("Weather?")])
        >>> data.question, data.answer
        ('Weather?', 'Sunny.')

    """
    if isinstance(text, BaseMessage):
        text = message_text(text)
    if not isinstance(text, str):
        raise JevInputError(f"the text to judge must be a string or a message, got {type(text).__name__}")
    if given is None or isinstance(given, str):
        return JevJudgeInput(question=given, answer=text, context=context)
    if isinstance(given, Sequence) and not isinstance(given, (bytes, bytearray)):
        conversation: list[Any] = list(given)
        try:
            messages = convert_to_messages(conversation)
        except (ValueError, TypeError, NotImplementedError) as error:
            raise JevInputError(f"given must be a question or a list of messages: {error}") from None
        return input_from_messages([*messages, AIMessage(text)], context=context)
    raise JevInputError(f"given must be a question (str) or a list of messages, got {type(given).__name__}")


def failure_message(verdict: JevVerdict) -> str:
    """Return what a failed assertion says: the summary, the feedback, then any errors.

    Example:
        >>> from langchain_jev import JevCriterion, JevFinding, JevVerdict, Outcome
        >>> check = JevCriterion.check("short", lambda d: False, "too long")
        >>> finding = JevFinding(check, None, Outcome.FAILED, "short: too long")
        >>> print(failure_message(JevVerdict(False, (finding,), None, "short: too long")))
        passed=false [short=FAILED]
        short: too long

    """
    lines = [verdict.summary()]
    if verdict.feedback:
        lines.append(verdict.feedback)
    lines.extend(finding.detail for finding in verdict.errors())
    return "\n".join(lines)


def _check(verdict: JevVerdict) -> None:
    __tracebackhide__ = True
    if not verdict.passed or verdict.errors():
        raise AssertionError(failure_message(verdict))


def _judge(arguments: Sequence[Any], model: Any, threshold: float) -> JevJudge:
    if not arguments:
        raise JevConfigurationError(
            "assert_judged needs statements that must hold of the text, or a JevJudge"
        )
    judges = [argument for argument in arguments if isinstance(argument, JevJudge)]
    if judges:
        if len(arguments) > 1:
            raise JevConfigurationError(
                "assert_judged takes either statements or one JevJudge, not both or several judges"
            )
        judge = judges[0]
        if model is None:
            return judge
        from langchain_jev.models._resolve import as_decision_model

        return judge.model_copy(update={"model": as_decision_model(model)})
    return JevJudge.from_statements(list(arguments), model, threshold=threshold)
