"""Errors raised by langchain-jev: the whole hierarchy, in one place.

Every error the package raises is a `JevError`, so a caller can catch the
package's own failures at one level, or at the level below that it cares
about. Built-in parents are kept where a caller would reach for them
(``except ValueError`` still catches a bad setting)::

    JevError
    ├── JevConfigurationError (ValueError)   a judge, criterion, model or option built wrong
    │   ├── MissingCredentialsError          no API key for Jev (names TYPESAFE_API_KEY)
    │   └── JudgeSpecError                   a judge file that cannot become a judge; names each place
    ├── JevInputError (TypeError)            a state or judge input that cannot be read
    │   └── GuardrailBudgetError             a text over what a safety check may judge (names size and budget)
    ├── ChatModelOutputError (ValueError)    a chat model's reply unreadable after one corrective retry
    │   └── LogprobsUnavailableError         the "logprobs" strategy got no token log-probabilities
    ├── ResponseTooLargeError                a model's response body over its size cap (names the limit)
    ├── DatasetError                         a dataset file the command line cannot read at all
    ├── ResultsError                         a results file that cannot be resumed
    │   ├── RedecideError                    stored answers that cannot be decided again
    │   ├── ComparisonError                  two results files that cannot be compared (says why)
    │   └── ResultsLockedError               another run writes that results file (cli.lock)
    └── CalibrationError (ValueError)        labels that cannot be read, or too few to calibrate on

A guardrail's decision to stop a turn is not a failure, and it is not an
``Exception``: like ``asyncio.CancelledError`` it is a `BaseException`, so the
generic composition that catches ``Exception`` (``with_fallbacks``,
``with_retry``, LangChain's ``ModelFallbackMiddleware`` and
``ModelRetryMiddleware``, a LangGraph ``RetryPolicy``, ``except Exception``)
never hands a refused turn to another model or runs it again::

    GuardrailStop (BaseException)            a rail stopped the turn; ``report`` says why
    ├── GuardrailRefusedError                a rail with exit_behavior="error" refused the turn
    ├── GuardrailCheckError                  a rail with on_error="raise" failed; names the cause's class only
    └── GuardrailUndecidedError              a rail with on_inconclusive="raise" got no readable answer

Inside a LangGraph run a stop is raised as LangGraph's own control flow
(``GraphBubbleUp``, which LangGraph, its server and LangChain's middleware
re-raise untouched), so the run ends with it as its error.

A decision model that cannot be reached raises the provider's own error
unchanged (``typesafe.TypeSafeError`` and its family, or the chat provider's),
so a judge that cannot reach its model never quietly passes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_jev.guardrails._policy import GuardrailReport

__all__ = [
    "CalibrationError",
    "ChatModelOutputError",
    "ComparisonError",
    "DatasetError",
    "GuardrailBudgetError",
    "GuardrailCheckError",
    "GuardrailRefusedError",
    "GuardrailStop",
    "GuardrailUndecidedError",
    "JevConfigurationError",
    "JevError",
    "JevInputError",
    "JudgeSpecError",
    "LogprobsUnavailableError",
    "MissingCredentialsError",
    "RedecideError",
    "ResponseTooLargeError",
    "ResultsError",
]


class JevError(Exception):
    """Base class of the errors raised by langchain-jev.

    Example:
        >>> from langchain_jev import JevJudge
        >>> try:
        ...     JevJudge([])
        ... except JevError as error:
        ...     print(type(error).__name__)
        JevConfigurationError

    """


class JevConfigurationError(JevError, ValueError):
    """A judge, criterion or decision model was built with invalid settings.

    The message names the offending criterion, field or value.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> JevCriterion.noul("ok", Noul(instructions="Is it fine?"), 1.5)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevConfigurationError: criterion 'ok': minimum must be between 0 and 1, ...

    """


class JevInputError(JevError, TypeError):
    """A state or judge input cannot be read as the judge needs it.

    Example:
        >>> from langchain_jev import JevJudgeInput
        >>> JevJudgeInput.of(["not", "an", "object"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevInputError: the state must be a JSON object ... got list

    """


class GuardrailBudgetError(JevInputError):
    """What a safety check is to judge is over its budget, so it is not judged at all (never cut).

    A rail reads it as a failed check, decided by ``on_error`` (fail closed by
    default); its report names the class, the size and the budget. ``size`` and
    ``budget`` are in the unit the message names (characters, bytes, pages or levels).

    Example:
        >>> error = GuardrailBudgetError("3,000,000 characters to judge, over the budget", size=3, budget=2)
        >>> error.size, error.budget
        (3, 2)

    """

    def __init__(self, message: str, *, size: int, budget: int) -> None:
        self.size = size
        self.budget = budget
        super().__init__(message)


class MissingCredentialsError(JevConfigurationError):
    """No API key was found for a Jev decision model when it was about to send a request.

    Example:
        >>> import os
        >>> from langchain_jev.models import JevDecisionModel
        >>> os.environ.pop("TYPESAFE_API_KEY", None) and None
        >>> from langchain_core.decisions import Noul
        >>> jev = JevDecisionModel()  # builds; the key is needed on the first request
        >>> jev.invoke({"state": "Hi", "questions": {"ok": Noul(instructions="Ok?")}})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev._errors.MissingCredentialsError: no API key for Jev: set TYPESAFE_API_KEY...

    """


class JudgeSpecError(JevConfigurationError):
    """A judge file or mapping that cannot become a judge; every problem names its place.

    ``problems`` lists ``(location, message)`` pairs; ``source`` is the file, if
    any, and ``lines`` the line of each location in it, where known.

    Example:
        >>> from langchain_jev.spec import load_judge
        >>> load_judge({"criteria": [{"kind": "noul", "name": "ok",
        ...     "instructions": "Is it fine?", "minimum": 1.5}]})
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JudgeSpecError: criteria[0].minimum: must be between 0 and 1, got 1.5

    """

    def __init__(
        self,
        problems: Sequence[tuple[str, str]],
        source: str | None = None,
        lines: Mapping[str, int] | None = None,
    ) -> None:
        self.problems: tuple[tuple[str, str], ...] = tuple(problems)
        self.source = source
        self.lines: dict[str, int] = dict(lines or {})
        super().__init__("\n".join(self.messages()))

    def messages(self) -> list[str]:
        """One line per problem: ``[source[:line]: ]location: message``."""
        out = []
        for where, what in self.problems:
            prefix = ""
            if self.source:
                line = self.lines.get(where)
                prefix = f"{self.source}:{line}: " if line else f"{self.source}: "
            out.append(f"{prefix}{where}: {what}" if where else f"{prefix}{what}")
        return out


class ResponseTooLargeError(JevError):
    """A decision model's response body is over the size cap: as sent, or once inflated.

    The message names the request, the limit (``max_response_bytes``) and what
    went over it; ``limit`` is the cap in bytes. It is not retried: a server that
    sends too much once will again.

    Example:
        >>> str(ResponseTooLargeError("the response is larger than the limit of 16 MiB", limit=2**24))
        'the response is larger than the limit of 16 MiB'

    """

    def __init__(self, message: str, *, limit: int) -> None:
        self.limit = limit
        super().__init__(message)


class GuardrailStop(BaseException):
    """A guardrail stopped the turn: a refusal, or a check that could not decide (``report`` says which).

    Not an ``Exception``, so that nothing that catches errors to try again or to
    try another model (``with_fallbacks``, ``with_retry``, ``ModelFallbackMiddleware``,
    ``ModelRetryMiddleware``, a node's ``RetryPolicy``) takes a refused turn
    elsewhere. Catch it by name (or one of its three kinds).

    Example:
        >>> from langchain_jev.guardrails import GuardrailReport
        >>> stop = GuardrailRefusedError(GuardrailReport("input", True, {"hate": 0.9}))
        >>> isinstance(stop, GuardrailStop), isinstance(stop, Exception), stop.report.check
        (True, False, 'input')

    """

    report: GuardrailReport
    """The rail's report of the decision."""


class GuardrailUndecidedError(GuardrailStop):
    """A rail whose inconclusive checks raise got no readable answer (or was unsure) for some categories.

    Example:
        >>> from langchain_jev.guardrails import GuardrailReport
        >>> error = GuardrailUndecidedError(GuardrailReport("output", True, undecided=("hate",)))
        >>> str(error)
        'the output safety check got no readable answer for: hate'

    """

    def __init__(self, report: GuardrailReport) -> None:
        self.report = report
        if report.undecided:
            why = f"got no readable answer for: {', '.join(report.undecided)}"
        else:
            unsure = ", ".join(f"{name} ({p:.2f})" for name, p in report.borderline.items())
            why = f"was unsure (within the review band) about: {unsure}"
        super().__init__(f"the {report.check} safety check {why}")


class GuardrailRefusedError(GuardrailStop):
    """A rail with ``exit_behavior="error"`` refused the turn (OpenAI moderation's ``"error"``).

    The message names the side and the flagged categories, never the text judged;
    ``report`` is the rail's `GuardrailReport`.

    Example:
        >>> from langchain_jev.guardrails import GuardrailReport
        >>> str(GuardrailRefusedError(GuardrailReport("input", True, {"hate": 0.9})))
        'the input safety check refused the turn: flagged for hate (0.90)'

    """

    def __init__(self, report: GuardrailReport) -> None:
        self.report = report
        if report.categories:
            why = "flagged for " + ", ".join(f"{name} ({p:.2f})" for name, p in report.categories.items())
        elif report.undecided:
            why = "no readable answer for " + ", ".join(report.undecided)
        elif report.borderline:
            why = "unsure about " + ", ".join(f"{name} ({p:.2f})" for name, p in report.borderline.items())
        else:
            why = f"the check could not be completed ({report.error})"
        super().__init__(f"the {report.check} safety check refused the turn: {why}")


class GuardrailCheckError(GuardrailStop):
    """A rail with ``on_error="raise"`` could not complete its check.

    The message is the side, the class of the error that stopped the check and a
    fixed description of it, never the error's own text: a decision model's error
    may quote what it was sent (the text judged). ``error_type`` is that class's
    name and ``report`` the rail's `GuardrailReport`; the detail, redacted, is
    logged on ``langchain_jev.guardrail``.

    Example:
        >>> from langchain_jev.guardrails import GuardrailReport
        >>> report = GuardrailReport("output", False, error="TimeoutError: the check took too long")
        >>> str(GuardrailCheckError(report, "TimeoutError"))
        'the output safety check failed: TimeoutError: the check took too long'

    """

    def __init__(self, report: GuardrailReport, error_type: str) -> None:
        self.report = report
        self.error_type = error_type
        super().__init__(f"the {report.check} safety check failed: {report.error}")


class ChatModelOutputError(JevError, ValueError):
    """The chat model's reply could not be read, even after a corrective retry.

    The message says what failed and shows the start of the raw output, so the
    cause can be seen without a trace.

    Example:
        >>> try:
        ...     raise ChatModelOutputError("the reply is not valid JSON; raw output: 'Sure!'")
        ... except ValueError as error:
        ...     print(error)
        the reply is not valid JSON; raw output: 'Sure!'

    """


class LogprobsUnavailableError(ChatModelOutputError):
    """The ``"logprobs"`` strategy got a reply without token log-probabilities.

    Probabilities are never invented: use a provider that returns OpenAI-style
    ``logprobs`` (ChatOpenAI, vLLM, Ollama's OpenAI-compatible endpoint), or the
    ``"structured"`` or ``"auto"`` strategy.

    Example:
        >>> issubclass(LogprobsUnavailableError, ChatModelOutputError)
        True

    """


class DatasetError(JevError):
    """A dataset file that cannot be read at all (missing, unreadable, not the format).

    Example:
        >>> issubclass(DatasetError, JevError)
        True

    """


class ResultsError(JevError):
    """A results file that cannot be resumed (not ours, or damaged before its last line).

    Example:
        >>> issubclass(ResultsError, JevError)
        True

    """


class RedecideError(ResultsError):
    """Stored answers that cannot be decided again under a judge: ``criteria`` names each one and why.

    A criterion whose question changed (its text, levels or options), that the
    results never asked, or whose kind changed cannot be decided from the answers
    stored for another question.

    Example:
        >>> error = RedecideError({"polite": "its question changed since the answers were stored"})
        >>> print(error)  # doctest: +NORMALIZE_WHITESPACE
        cannot decide again from the stored answers:
        polite: its question changed since the answers were stored

    """

    def __init__(self, criteria: Mapping[str, str]) -> None:
        self.criteria = dict(criteria)
        """Criterion name -> why it cannot be decided again."""
        reasons = "; ".join(f"{name}: {why}" for name, why in self.criteria.items())
        super().__init__(f"cannot decide again from the stored answers: {reasons}")


class ComparisonError(ResultsError):
    """Two results files that cannot be compared row by row: of different datasets, or rows unnamed.

    Example:
        >>> issubclass(ComparisonError, ResultsError)
        True

    """


class CalibrationError(JevError, ValueError):
    """Labels that cannot be read (named by row and field), or a calibration that cannot be made.

    Example:
        >>> issubclass(CalibrationError, ValueError)
        True

    """


def checked_number(value: Any, accept: Callable[[float], bool], message: str) -> float:
    """``value`` as a float when it is a finite number (not a bool) that ``accept`` takes.

    Else `JevConfigurationError` with ``message``, which names the option and the value:
    the one check behind every numeric option (thresholds, rates, timeouts, deadlines).

    Example:
        >>> checked_number(2, lambda v: v > 0, "timeout must be positive, got 2")
        2.0

    """
    finite = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    if not finite or not accept(value):
        raise JevConfigurationError(message)
    return float(value)


def checked_whole(value: Any, accept: Callable[[int], bool], message: str) -> int:
    """``value`` when it is a whole number (an int, not a bool) that ``accept`` takes; else ``message``.

    Example:
        >>> checked_whole(3, lambda v: v >= 1, "quorum must be at least 1, got 3")
        3

    """
    if isinstance(value, bool) or not isinstance(value, int) or not accept(value):
        raise JevConfigurationError(message)
    return value
