"""Guardrail decisions and wording: pure functions shared by the nodes and the middleware.

A rail reads a `HazardAssessment` (or the error that kept it from one) into a
`GuardrailReport` and an action, by its `GuardrailPolicy`:

- ``mode``: ``"enforce"`` (default) acts on the decision; ``"shadow"`` judges
  and records it (``would_refuse``) but never blocks, raises or pauses.
- ``on_error``: what a check that failed (the model could not be reached, the
  text could not be read, any error inside the rail) means: ``"refuse"`` (fail
  closed, the default; alias ``"end"``), ``"allow"`` (fail open, with a
  warning), ``"raise"`` (alias ``"error"``) or ``"interrupt"`` (ask a human).
- ``on_inconclusive``: the same, for an inconclusive check: categories the model
  left without a readable answer, and (with ``review_band``) categories whose
  probability of yes fell within ``review_band`` below their threshold (by
  default, whatever ``on_error`` says).
- ``exit_behavior``: how a refusal leaves the rail, in the vocabulary of
  LangChain's ``OpenAIModerationMiddleware``: ``"end"`` (the refusal ends the
  turn, the default), ``"error"`` (raise `GuardrailRefusedError`) or
  ``"replace"`` (the flagged content is replaced by a message and the run goes on).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage, ToolMessage

from langchain_jev.errors import GuardrailUndecidedError, JevConfigurationError
from langchain_jev.guardrails.battery import HazardAssessment, find_hazard
from langchain_jev.guardrails.catalog import Direction, Hazard
from langchain_jev.guardrails.subjects import Subject

__all__ = [
    "EXIT_BEHAVIORS",
    "MODES",
    "ON_ERROR_MODES",
    "Action",
    "ExitBehavior",
    "GuardrailPolicy",
    "GuardrailReport",
    "GuardrailUndecidedError",
    "Mode",
    "OnError",
    "RefusalMessage",
    "WITHHELD_REQUEST",
    "WITHHELD_TOOL_RESULT",
    "check_on_error",
    "check_refusal_message",
    "decide",
    "default_refusal",
    "error_report",
    "fingerprint",
    "read_assessment",
    "read_review",
    "refusal_messages",
    "refusal_reply",
    "refusal_text",
    "review_request",
]

OnError = Literal["refuse", "raise", "allow", "interrupt", "end", "error"]
"""What a rail does when its check fails or is inconclusive (``"end"`` is ``"refuse"``,
``"error"`` is ``"raise"``, in the words of LangChain's moderation middleware)."""

ON_ERROR_MODES: tuple[OnError, ...] = ("refuse", "raise", "allow", "interrupt", "end", "error")
"""Every ``on_error`` / ``on_inconclusive`` value."""

_ALIASES: Mapping[str, str] = MappingProxyType({"end": "refuse", "error": "raise"})

Mode = Literal["enforce", "shadow"]
"""``"enforce"`` acts on a decision; ``"shadow"`` only records it."""

MODES: tuple[Mode, ...] = ("enforce", "shadow")
"""Every mode."""

ExitBehavior = Literal["end", "error", "replace"]
"""How a refusal leaves the rail (LangChain ``OpenAIModerationMiddleware`` vocabulary)."""

EXIT_BEHAVIORS: tuple[ExitBehavior, ...] = ("end", "error", "replace")
"""Every exit behaviour."""

Action = Literal["pass", "refuse", "raise", "review"]
"""What a rail does with a decision: let the turn pass, refuse it, re-raise, or ask a human."""

WITHHELD_TOOL_RESULT = "[withheld: the safety check flagged this tool result]"
"""What replaces the content of a tool result a rail flagged."""

WITHHELD_REQUEST = "[withheld: the safety check refused this request]"
"""What replaces a refused human message in the thread, so no later turn shows it to the model."""


@dataclass(frozen=True)
class GuardrailReport:
    """What one rail decided about a turn: the record a guardrail keeps and reports.

    ``to_dict()`` is what a guardrail writes to the graph state (key ``guardrail``)
    and to the trace; ``on_flag`` callbacks get the report itself.

    Example:
        >>> report = GuardrailReport("input", True, {"hate": 0.93})
        >>> report.to_dict()["categories"], [h.title for h in report.hazards], report.would_refuse
        ({'hate': 0.93}, ['hate'], True)

    """

    check: Direction
    """The side checked: ``"input"``, ``"output"`` or ``"tool_results"``."""
    refused: bool
    """True when the turn is refused (never in shadow mode)."""
    categories: Mapping[str, float] = field(default_factory=dict)
    """The flagged categories with their probability of yes."""
    undecided: tuple[str, ...] = ()
    """Categories the model left without a readable answer."""
    error: str | None = None
    """The check's error (type and message) when it failed."""
    assessment: HazardAssessment | None = field(default=None, repr=False, compare=False)
    """The battery's assessment (None when the check failed)."""
    mode: Mode = "enforce"
    """The rail's mode when it decided."""
    would_refuse: bool | None = None
    """Whether an enforcing rail would refuse, before any human review (in shadow mode,
    the refusal that was not made). Defaults to ``refused``."""
    review: str | None = None
    """``"allow"`` or ``"refuse"`` when a human decided the turn (``interrupt``), else None."""
    borderline: Mapping[str, float] = field(default_factory=dict)
    """Categories not flagged but within the policy's ``review_band`` below their threshold."""

    def __post_init__(self) -> None:
        if self.would_refuse is None:
            object.__setattr__(self, "would_refuse", self.refused)

    @property
    def flagged(self) -> bool:
        """True unless the check came back clean: a category flagged, borderline or undecided, or an error."""
        return bool(self.categories or self.undecided or self.error or self.borderline)

    @property
    def probabilities(self) -> dict[str, float]:
        """The probability of yes of every category answered (empty when the check failed)."""
        return dict(self.assessment.probabilities) if self.assessment is not None else {}

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
            "probabilities": self.probabilities,
            "mode": self.mode,
            "would_refuse": self.would_refuse,
            "review": self.review,
            "borderline": dict(self.borderline),
        }


RefusalMessage = str | Callable[[GuardrailReport], str]
"""The refusal text, or a function of the report that returns it."""


def check_on_error(on_error: Any, name: str = "on_error") -> str:
    """Validate an ``on_error`` (or ``on_inconclusive``) value; return its canonical name.

    ``"end"`` is ``"refuse"`` and ``"error"`` is ``"raise"``.

    Example:
        >>> check_on_error("end")
        'refuse'
        >>> check_on_error("fail")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev.errors.JevConfigurationError: on_error must be one of refuse, ...; got 'fail'

    """
    if not isinstance(on_error, str) or on_error not in ON_ERROR_MODES:
        raise JevConfigurationError(f"{name} must be one of {', '.join(ON_ERROR_MODES)}; got {on_error!r}")
    return _ALIASES.get(on_error, on_error)


@dataclass(frozen=True)
class GuardrailPolicy:
    """What a rail does with its decisions (see the module docs).

    Example:
        >>> policy = GuardrailPolicy.of(on_error="end", exit_behavior="replace")
        >>> policy.on_error, policy.on_inconclusive, policy.exit_behavior
        ('refuse', 'refuse', 'replace')

    """

    mode: Mode = "enforce"
    on_error: str = "refuse"
    on_inconclusive: str = "refuse"
    exit_behavior: ExitBehavior = "end"
    review_band: float = 0.0

    @classmethod
    def of(
        cls,
        *,
        mode: Any = "enforce",
        on_error: Any = "refuse",
        on_inconclusive: Any = None,
        exit_behavior: Any = "end",
        review_band: Any = 0.0,
    ) -> GuardrailPolicy:
        """Validate the settings by name; ``on_inconclusive`` defaults to ``on_error``.

        Raises:
            JevConfigurationError: a value is not one of the valid ones (the message lists them).

        """
        if mode not in MODES:
            raise JevConfigurationError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
        if exit_behavior not in EXIT_BEHAVIORS:
            raise JevConfigurationError(
                f"exit_behavior must be one of {', '.join(EXIT_BEHAVIORS)}; got {exit_behavior!r}"
            )
        failure = check_on_error(on_error)
        inconclusive = (
            failure if on_inconclusive is None else check_on_error(on_inconclusive, "on_inconclusive")
        )
        if (
            isinstance(review_band, bool)
            or not isinstance(review_band, (int, float))
            or not 0.0 <= review_band < 1.0
        ):
            raise JevConfigurationError(
                f"review_band must be a probability from 0 (no band) up to 1, got {review_band!r}"
            )
        return cls(mode, failure, inconclusive, exit_behavior, float(review_band))

    @property
    def reviews(self) -> bool:
        """True when some decision may be put to a human (``interrupt``) in this mode."""
        return self.mode == "enforce" and "interrupt" in (self.on_error, self.on_inconclusive)


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


def decide(
    check: Direction,
    policy: GuardrailPolicy,
    assessment: HazardAssessment | None = None,
    error: BaseException | None = None,
) -> tuple[GuardrailReport, Action]:
    """Decide a turn from an assessment, or from the ``error`` that kept the rail from one.

    Flagged categories refuse. A failed check follows ``on_error``, an
    inconclusive one (undecided or borderline categories) ``on_inconclusive``.
    In shadow mode the action is always ``"pass"`` and ``would_refuse`` says
    what enforcing would have done.

    Example:
        >>> from types import MappingProxyType as M
        >>> a = HazardAssessment("input", "balanced", M({"hate": 0.9}), M({"hate": 0.5}))
        >>> report, action = decide("input", GuardrailPolicy.of(mode="shadow"), a)
        >>> action, report.refused, report.would_refuse
        ('pass', False, True)

    """
    if assessment is None:
        text = "unknown error" if error is None else f"{type(error).__name__}: {error}"
        categories: Mapping[str, float] = MappingProxyType({})
        undecided: tuple[str, ...] = ()
        failure = policy.on_error
        report = GuardrailReport(check, False, categories, undecided, text, None, policy.mode)
    else:
        flagged = MappingProxyType(assessment.flagged_categories)
        undecided = assessment.undecided
        borderline = {
            name: p
            for name, p in assessment.probabilities.items()
            if policy.review_band > 0.0
            and name not in flagged
            and name not in undecided
            and p >= assessment.thresholds[name] - policy.review_band - 1e-9
        }
        report = GuardrailReport(
            check, False, flagged, undecided, None, assessment, policy.mode, borderline=borderline
        )
        failure = "refuse" if flagged else (policy.on_inconclusive if undecided or borderline else "allow")
    would_refuse = failure != "allow"
    if policy.mode == "shadow":
        return replace(report, refused=False, would_refuse=would_refuse), "pass"
    action: Action = {"refuse": "refuse", "allow": "pass", "raise": "raise", "interrupt": "review"}[failure]  # type: ignore[assignment]
    return replace(report, refused=action == "refuse", would_refuse=would_refuse), action


def read_assessment(check: Direction, assessment: HazardAssessment, on_error: str) -> GuardrailReport:
    """Decide a turn from an assessment with an enforcing rail.

    Flagged categories refuse. Undecided categories refuse with ``"refuse"``, pass
    with ``"allow"``, and raise `GuardrailUndecidedError` with ``"raise"``.

    Example:
        >>> from types import MappingProxyType as M
        >>> a = HazardAssessment("input", "balanced", M({"hate": 0.1}), M({"hate": 0.5, "S1": 0.5}),
        ...                      ("violent_crimes",))
        >>> read_assessment("input", a, "refuse").refused, read_assessment("input", a, "allow").refused
        (True, False)

    """
    report, action = decide(check, GuardrailPolicy.of(on_error=on_error), assessment)
    if action == "raise":
        raise GuardrailUndecidedError(report)
    return report


def error_report(check: Direction, error: BaseException, on_error: str) -> GuardrailReport:
    """The report of an enforcing rail whose check failed with ``error`` (refuse or allow)."""
    report, _ = decide(check, GuardrailPolicy.of(on_error=on_error), None, error)
    return replace(report, refused=report.would_refuse is True)


def fingerprint(data: Mapping[str, Any]) -> str:
    """A short, stable digest of what a rail judged, to bind a human's review to that text.

    Example:
        >>> fingerprint({"user_question": "hi"}) == fingerprint({"user_question": "hi"})
        True

    """
    encoded = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8", "replace")
    return hashlib.sha256(encoded).hexdigest()[:16]


def review_request(report: GuardrailReport, data: Mapping[str, Any]) -> dict[str, Any]:
    """The value a rail pauses with (``interrupt``): the decision so far and the text judged.

    Resume with ``"allow"`` or ``"refuse"`` (or ``{"action": ..., "fingerprint": ...}``
    to bind the decision to this text).
    """
    return {
        "jev_guardrail": report.check,
        "reason": "error" if report.error is not None else "inconclusive",
        "categories": dict(report.categories),
        "probabilities": report.probabilities,
        "undecided": list(report.undecided),
        "borderline": dict(report.borderline),
        "error": report.error,
        "text": dict(data),
        "fingerprint": fingerprint(data),
        "resume_with": ["allow", "refuse"],
    }


_ALLOW = frozenset({"allow", "approve", "accept", "yes"})
_REFUSE = frozenset({"refuse", "reject", "deny", "no", "end"})


def read_review(value: Any, data: Mapping[str, Any]) -> tuple[bool, str | None]:
    """Read a human's resume value: (allowed, why a value was not understood or None).

    Anything but a clear allow refuses (fail closed): a value that is not understood,
    or a decision bound by ``fingerprint`` to another text than ``data``.

    Example:
        >>> read_review("allow", {}), read_review({"action": "refuse"}, {})
        ((True, None), (False, None))
        >>> read_review({"action": "allow", "fingerprint": "0"}, {"x": 1})[0]
        False

    """
    action: Any = value
    if isinstance(value, Mapping):
        action = value.get("action", value.get("decision"))
        bound = value.get("fingerprint")
        if bound is not None and bound != fingerprint(data):
            return False, "the review is bound to another text than the one judged now"
    if isinstance(action, bool):
        return action, None
    if isinstance(action, str) and action.lower() in _ALLOW:
        return True, None
    if isinstance(action, str) and action.lower() in _REFUSE:
        return False, None
    return False, f"the resume value {type(value).__name__} is not allow or refuse"


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
    if report.borderline:
        return f"{opening}: the safety check was unsure about {_titles(report.borderline)}."
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


def _replaceable(message: BaseMessage, check: str) -> str:
    if message.id is None:
        raise JevConfigurationError(
            f"the {check} guardrail must replace a {type(message).__name__} that has "
            "no id; keep messages in a channel with the add_messages reducer (MessagesState)"
        )
    return message.id


def refusal_messages(
    subject: Subject, report: GuardrailReport, text: str, exit_behavior: ExitBehavior = "end"
) -> list[BaseMessage]:
    """The message updates of a refusal, for a ``messages`` channel with the add_messages reducer.

    - input: every human message of the turn is replaced in the thread by a
      placeholder (`WITHHELD_REQUEST`), so no later turn shows the request to the
      model, and the refusal is appended (``"replace"``: the last placeholder is
      the refusal text, and nothing is appended: the model answers it);
    - output: the checked AI message is removed and the refusal appended;
    - tool results: the flagged tool messages keep their ids and tool call ids but
      their content is withheld, and the refusal is appended (``"replace"``: not
      appended, the model reads the withheld results).

    Raises:
        JevConfigurationError: a message to replace has no id (the messages channel
            does not use the add_messages reducer), so it cannot be replaced.

    """
    refusal = refusal_reply(report, text)
    updates: list[BaseMessage] = []
    if report.check == "input":
        last = len(subject.messages) - 1
        for index, message in enumerate(subject.messages):
            placeholder = text if exit_behavior == "replace" and index == last else WITHHELD_REQUEST
            updates.append(
                HumanMessage(
                    content=placeholder,
                    id=_replaceable(message, report.check),
                    response_metadata={"jev_guardrail": "withheld"},
                )
            )
        return updates if exit_behavior == "replace" else [*updates, refusal]
    for message in subject.messages:
        message_id = _replaceable(message, report.check)
        if isinstance(message, ToolMessage):
            updates.append(
                ToolMessage(
                    content=WITHHELD_TOOL_RESULT,
                    id=message_id,
                    tool_call_id=message.tool_call_id,
                    name=message.name,
                    status="error",
                )
            )
        else:
            updates.append(RemoveMessage(id=message_id))
    if report.check == "tool_results" and exit_behavior == "replace":
        return updates
    return [*updates, refusal]
