"""Guardrail decisions and wording: pure functions shared by the node and the middleware.

A rail reads a `HazardAssessment` (or the error that kept it from one) into a
`GuardrailReport`: refuse or pass, with the flagged categories and their
probabilities. ``on_error`` says what a model that could not be reached, or a
category it left unanswered, means: ``"refuse"`` (fail closed, the default),
``"allow"`` (fail open, with a warning) or ``"raise"``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, RemoveMessage, ToolMessage

from langchain_jev.errors import GuardrailUndecidedError, JevConfigurationError
from langchain_jev.guardrails.battery import HazardAssessment, find_hazard
from langchain_jev.guardrails.catalog import Direction, Hazard
from langchain_jev.guardrails.subjects import Subject

__all__ = [
    "ON_ERROR_MODES",
    "GuardrailReport",
    "GuardrailUndecidedError",
    "OnError",
    "RefusalMessage",
    "WITHHELD_TOOL_RESULT",
    "check_on_error",
    "check_refusal_message",
    "default_refusal",
    "error_report",
    "read_assessment",
    "refusal_messages",
    "refusal_reply",
    "refusal_text",
]

OnError = Literal["refuse", "raise", "allow"]
"""What a rail does when the decision model cannot be reached or leaves a category unanswered."""

ON_ERROR_MODES: tuple[OnError, ...] = ("refuse", "raise", "allow")
"""Every ``on_error`` mode."""

WITHHELD_TOOL_RESULT = "[withheld: the safety check flagged this tool result]"
"""What replaces the content of a tool result a rail flagged."""


@dataclass(frozen=True)
class GuardrailReport:
    """What one rail decided about a turn.

    ``to_dict()`` is what a guardrail writes to the graph state (key ``guardrail``).

    Example:
        >>> report = GuardrailReport("input", True, {"hate": 0.93})
        >>> report.to_dict()["categories"], [h.title for h in report.hazards]
        ({'hate': 0.93}, ['hate'])

    """

    check: Direction
    """The side checked: ``"input"``, ``"output"`` or ``"tool_results"``."""
    refused: bool
    """True when the turn is refused."""
    categories: Mapping[str, float] = field(default_factory=dict)
    """The flagged categories with their probability of yes."""
    undecided: tuple[str, ...] = ()
    """Categories the model left without a readable answer."""
    error: str | None = None
    """The decision model's error (type and message) when it could not be reached."""
    assessment: HazardAssessment | None = field(default=None, repr=False, compare=False)
    """The battery's assessment (None when the model could not be reached)."""

    @property
    def hazards(self) -> tuple[Hazard, ...]:
        """The flagged categories as `Hazard` entries."""
        return tuple(find_hazard(name) for name in self.categories)

    def to_dict(self) -> dict[str, Any]:
        """Return the report as plain JSON-ready data (what goes into the state)."""
        return {
            "check": self.check,
            "refused": self.refused,
            "categories": dict(self.categories),
            "undecided": list(self.undecided),
            "error": self.error,
            "strictness": self.assessment.strictness if self.assessment is not None else None,
        }


RefusalMessage = str | Callable[[GuardrailReport], str]
"""The refusal text, or a function of the report that returns it."""


def check_on_error(on_error: Any) -> OnError:
    """Validate an ``on_error`` mode.

    Example:
        >>> check_on_error("fail")
        Traceback (most recent call last):
        ...
        langchain_jev.errors.JevConfigurationError: on_error must be one of refuse, raise, allow; got 'fail'

    """
    if on_error not in ON_ERROR_MODES:
        raise JevConfigurationError(f"on_error must be one of {', '.join(ON_ERROR_MODES)}; got {on_error!r}")
    mode: OnError = on_error
    return mode


def check_refusal_message(message: Any) -> RefusalMessage | None:
    """Validate a refusal message: None (the default wording), a string, or a callable."""
    if message is None or callable(message):
        return message  # type: ignore[no-any-return]
    if isinstance(message, str) and message.strip():
        return message
    raise JevConfigurationError(
        "refusal_message must be a non-empty string or a callable taking the GuardrailReport; "
        f"got {type(message).__name__}"
    )


def read_assessment(check: Direction, assessment: HazardAssessment, on_error: OnError) -> GuardrailReport:
    """Decide a turn from an assessment.

    Flagged categories refuse. Undecided categories refuse with ``"refuse"``, pass
    with ``"allow"``, and raise `GuardrailUndecidedError` with ``"raise"``.

    Example:
        >>> from types import MappingProxyType as M
        >>> a = HazardAssessment("input", "balanced", M({"hate": 0.1}), M({"hate": 0.5, "S1": 0.5}),
        ...                      ("violent_crimes",))
        >>> read_assessment("input", a, "refuse").refused, read_assessment("input", a, "allow").refused
        (True, False)

    """
    flagged = MappingProxyType(assessment.flagged_categories)
    undecided = assessment.undecided
    if flagged:
        return GuardrailReport(check, True, flagged, undecided, None, assessment)
    report = GuardrailReport(
        check, bool(undecided) and on_error == "refuse", flagged, undecided, None, assessment
    )
    if undecided and on_error == "raise":
        raise GuardrailUndecidedError(report)
    return report


def error_report(check: Direction, error: BaseException, on_error: OnError) -> GuardrailReport:
    """The report of a rail whose decision model could not be reached (refuse or allow)."""
    text = f"{type(error).__name__}: {error}"
    return GuardrailReport(check, on_error != "allow", MappingProxyType({}), (), text, None)


def _titles(names: Any) -> str:
    titles = [find_hazard(name).title for name in names]
    if len(titles) <= 1:
        return "".join(titles)
    return f"{', '.join(titles[:-1])} and {titles[-1]}"


_OPENINGS: Mapping[str, str] = MappingProxyType(
    {
        "input": "I can't help with that request",
        "output": "I can't share that response",
        "tool_results": "I stopped before using a tool result",
    }
)


def default_refusal(report: GuardrailReport) -> str:
    """The default refusal wording, naming the flagged categories.

    Example:
        >>> default_refusal(GuardrailReport("input", True, {"violent_crimes": 0.9, "hate": 0.7}))
        "I can't help with that request: it was flagged for violent crimes and hate."
        >>> default_refusal(GuardrailReport("output", True, error="TimeoutError: timed out"))
        "I can't share that response: the safety check could not be completed."

    """
    opening = _OPENINGS[report.check]
    if report.categories:
        return f"{opening}: it was flagged for {_titles(report.categories)}."
    if report.undecided:
        return f"{opening}: the safety check could not decide on {_titles(report.undecided)}."
    return f"{opening}: the safety check could not be completed."


def refusal_text(message: RefusalMessage | None, report: GuardrailReport) -> str:
    """The refusal text for a report: the default wording, the string, or the callable's result."""
    if message is None:
        return default_refusal(report)
    if isinstance(message, str):
        return message
    text = message(report)
    if not isinstance(text, str):
        raise JevConfigurationError(
            f"refusal_message returned {type(text).__name__}; it must return a string"
        )
    return text


def refusal_reply(report: GuardrailReport, text: str) -> AIMessage:
    """The refusal as an AI message, carrying the report under ``response_metadata["jev_guardrail"]``.

    Example:
        >>> reply = refusal_reply(GuardrailReport("output", True, {"hate": 0.9}), "No.")
        >>> reply.content, reply.response_metadata["jev_guardrail"]["categories"]
        ('No.', {'hate': 0.9})

    """
    return AIMessage(content=text, response_metadata={"jev_guardrail": report.to_dict()})


def refusal_messages(subject: Subject, report: GuardrailReport, text: str) -> list[BaseMessage]:
    """The message updates of a refusal, for a ``messages`` channel with the add_messages reducer.

    - input: the refusal is appended as an AI message;
    - output: the checked AI message is removed and the refusal appended;
    - tool results: the flagged tool messages keep their ids and tool call ids but
      their content is withheld, and the refusal is appended.

    Raises:
        JevConfigurationError: a message to replace has no id (the messages channel
            does not use the add_messages reducer), so it cannot be removed.

    """
    refusal = refusal_reply(report, text)
    if report.check == "input":
        return [refusal]
    updates: list[BaseMessage] = []
    for message in subject.messages:
        if message.id is None:
            raise JevConfigurationError(
                f"the {report.check} guardrail must replace a {type(message).__name__} that has "
                "no id; keep messages in a channel with the add_messages reducer (MessagesState)"
            )
        if isinstance(message, ToolMessage):
            updates.append(
                ToolMessage(
                    content=WITHHELD_TOOL_RESULT,
                    id=message.id,
                    tool_call_id=message.tool_call_id,
                    name=message.name,
                    status="error",
                )
            )
        else:
            updates.append(RemoveMessage(id=message.id))
    return [*updates, refusal]
