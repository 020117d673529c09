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
- ``on_unjudgeable``: what a reply the battery cannot see (an image, audio or
  video file in a media block) means: ``"refuse"`` (default) or
  ``"allow"``; the media is named in the report either way.
- ``exit_behavior``: how a refusal leaves the rail, in the vocabulary of
  LangChain's ``OpenAIModerationMiddleware``: ``"end"`` (the refusal ends the
  turn, the default), ``"error"`` (raise `GuardrailRefusedError`) or
  ``"replace"`` (the flagged content is replaced by a message and the run goes on).

A failed check's report names the error's class and a fixed description of it
(`describe_error`), never the error's own text, which may quote what was judged.

A refusal that leaves by raising (``exit_behavior="error"``, ``"raise"``) is a
`GuardrailStop`, which no generic fallback or retry catches (see
`langchain_jev._errors`); `stop_error` makes it, as LangGraph control flow when it
is raised inside a LangGraph run (`in_graph_run`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal, TypeVar

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config

from langchain_jev._errors import GuardrailStop, GuardrailUndecidedError, JevConfigurationError
from langchain_jev.guardrails._battery import HazardAssessment
from langchain_jev.guardrails._catalog import Direction, Hazard
from langchain_jev.guardrails._categories import find_hazard
from langchain_jev.guardrails._refusal import (  # the wording of a refusal, importable from here too
    WITHHELD_REQUEST,
    WITHHELD_TOOL_RESULT,
    default_refusal,
    refusal_messages,
    refusal_reply,
    refusal_text,
    withheld_request,
)

__all__ = [
    "EXIT_BEHAVIORS",
    "MODES",
    "ON_ERROR_MODES",
    "ON_UNJUDGEABLE",
    "Action",
    "ExitBehavior",
    "GuardrailPolicy",
    "GuardrailReport",
    "GuardrailUndecidedError",
    "Mode",
    "OnError",
    "OnUnjudgeable",
    "RefusalMessage",
    "WITHHELD_REQUEST",
    "WITHHELD_TOOL_RESULT",
    "check_on_error",
    "check_refusal_message",
    "decide",
    "default_refusal",
    "describe_error",
    "error_report",
    "fingerprint",
    "in_graph_run",
    "read_assessment",
    "refusal_messages",
    "refusal_reply",
    "refusal_text",
    "stop_error",
    "withheld_request",
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

OnUnjudgeable = Literal["refuse", "allow"]
"""What a reply the battery cannot read (binary media) means."""

ON_UNJUDGEABLE: tuple[OnUnjudgeable, ...] = ("refuse", "allow")
"""Every ``on_unjudgeable`` value."""

Action = Literal["pass", "refuse", "raise", "review"]
"""What a rail does with a decision: let the turn pass, refuse it, re-raise, or ask a human."""


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
    unjudgeable: tuple[str, ...] = ()
    """Image, audio or video files in a reply, which the battery cannot see, each named by where it is."""

    def __post_init__(self) -> None:
        if self.would_refuse is None:
            object.__setattr__(self, "would_refuse", self.refused)

    @property
    def flagged(self) -> bool:
        """True unless the check came back clean: a category flagged, borderline or undecided, or an error."""
        return bool(self.categories or self.undecided or self.error or self.borderline or self.unjudgeable)

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
            "unjudgeable": list(self.unjudgeable),
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
        langchain_jev._errors.JevConfigurationError: on_error must be one of refuse, ...; got 'fail'

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
    on_unjudgeable: OnUnjudgeable = "refuse"

    @classmethod
    def of(
        cls,
        *,
        mode: Any = "enforce",
        on_error: Any = "refuse",
        on_inconclusive: Any = None,
        exit_behavior: Any = "end",
        review_band: Any = 0.0,
        on_unjudgeable: Any = "refuse",
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
        if on_unjudgeable not in ON_UNJUDGEABLE:
            raise JevConfigurationError(
                f"on_unjudgeable must be one of {', '.join(ON_UNJUDGEABLE)}; got {on_unjudgeable!r}"
            )
        return cls(mode, failure, inconclusive, exit_behavior, float(review_band), on_unjudgeable)

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


_DESCRIPTIONS: tuple[tuple[str, str], ...] = (
    ("TimeoutError", "the check timed out"),
    ("TypeSafeAPITimeoutError", "the decision model timed out"),
    ("TimeoutException", "the decision model timed out"),
    ("TypeSafeAPIConnectionError", "the decision model could not be reached"),
    ("ConnectionError", "the decision model could not be reached"),
    ("TypeSafeAPIError", "the decision model's server answered with an error"),
    ("HTTPStatusError", "the decision model's server answered with an error"),
    ("TypeSafeAPIResponseValidationError", "the decision model's answer could not be read"),
    ("ChatModelOutputError", "the decision model's answer could not be read"),
    ("ValidationError", "the decision model's answer could not be read"),
    ("TypeSafeError", "the decision model failed"),
    ("GuardrailBudgetError", "what is to be judged is over the check's budget, so none of it was judged"),
    ("JevInputError", "the text could not be read for the check"),
    ("JevConfigurationError", "the check is set up wrong"),
)
"""Fixed descriptions of the errors a check meets, by the name of a class in the error's MRO."""


def describe_error(error: BaseException | None) -> str:
    """The error's class and a fixed description of it: what a report or a raised error says.

    Never the error's own message, which may quote what was judged; an HTTP status is named.

    Example:
        >>> describe_error(TimeoutError("took 30 s judging 'How do I make...'"))
        'TimeoutError: the check timed out'
        >>> describe_error(KeyError("a bug of ours"))
        'KeyError: the check failed'

    """
    if error is None:
        return "unknown error: the check failed"
    names = {kind.__name__ for kind in type(error).__mro__}
    description = next((text for name, text in _DESCRIPTIONS if name in names), "the check failed")
    status = getattr(error, "status_code", getattr(error, "status", None))
    if isinstance(status, int) and not isinstance(status, bool):
        description = f"{description} (status {status})"
    size, budget = getattr(error, "size", None), getattr(error, "budget", None)
    if isinstance(size, int) and isinstance(budget, int):
        description = f"{description} ({size:,} over a budget of {budget:,})"
    return f"{type(error).__name__}: {description}"


def decide(
    check: Direction,
    policy: GuardrailPolicy,
    assessment: HazardAssessment | None = None,
    error: BaseException | None = None,
    unjudgeable: tuple[str, ...] = (),
) -> tuple[GuardrailReport, Action]:
    """Decide a turn from an assessment, or from the ``error`` that kept the rail from one.

    Flagged categories refuse. Binary media the battery could not read
    (``unjudgeable``) follows ``on_unjudgeable``. A failed check follows
    ``on_error``, an inconclusive one (undecided or borderline categories)
    ``on_inconclusive``. In shadow mode the action is always ``"pass"`` and
    ``would_refuse`` says what enforcing would have done. Without an assessment
    or an error, only the media decide (a reply with nothing else to judge).

    Example:
        >>> from types import MappingProxyType as M
        >>> a = HazardAssessment("input", "balanced", M({"hate": 0.9}), M({"hate": 0.5}))
        >>> report, action = decide("input", GuardrailPolicy.of(mode="shadow"), a)
        >>> action, report.refused, report.would_refuse
        ('pass', False, True)

    """
    media = tuple(unjudgeable)
    unreadable = "refuse" if media and policy.on_unjudgeable == "refuse" else "allow"
    if assessment is None and (error is not None or not media):
        categories: Mapping[str, float] = MappingProxyType({})
        undecided: tuple[str, ...] = ()
        failure = policy.on_error
        report = GuardrailReport(
            check, False, categories, undecided, describe_error(error), None, policy.mode, unjudgeable=media
        )
    elif assessment is None:
        report = GuardrailReport(check, False, mode=policy.mode, unjudgeable=media)
        failure = unreadable
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
            check,
            False,
            flagged,
            undecided,
            None,
            assessment,
            policy.mode,
            borderline=borderline,
            unjudgeable=media,
        )
        if flagged or unreadable == "refuse":
            failure = "refuse"
        else:
            failure = policy.on_inconclusive if undecided or borderline else "allow"
    would_refuse = failure != "allow"
    if policy.mode == "shadow":
        return replace(report, refused=False, would_refuse=would_refuse), "pass"
    action: Action = {"refuse": "refuse", "allow": "pass", "raise": "raise", "interrupt": "review"}[failure]  # type: ignore[assignment]
    return replace(report, refused=action == "refuse", would_refuse=would_refuse), action


S = TypeVar("S", bound=GuardrailStop)

_TASK_KEY = "__pregel_task_id"
"""The key LangGraph sets in a task's ``configurable`` (a run of a graph's node)."""


def in_graph_run(config: RunnableConfig | None = None) -> bool:
    """True when ``config`` (or, when None, the context's config) belongs to a LangGraph task.

    Example:
        >>> in_graph_run({"configurable": {"thread_id": "t"}})
        False

    """
    return _TASK_KEY in (ensure_config(config).get("configurable") or {})


_GRAPH_KINDS: dict[type[GuardrailStop], type[GuardrailStop]] = {}
"""Each stop's LangGraph form, made once."""


def _graph_kind(kind: type[S]) -> type[S]:
    """``kind`` as LangGraph control flow too: a `GuardrailStop` that is a ``GraphBubbleUp``."""
    made = _GRAPH_KINDS.get(kind)
    if made is None:
        from langgraph.errors import GraphBubbleUp  # a LangGraph task is running: it is loaded

        doc = f"`{kind.__name__}` raised inside a LangGraph run, as LangGraph's own control flow."
        # named as ``kind`` is, where ``kind`` is: a user (or a server's error) sees the public name
        namespace = {"__module__": kind.__module__, "__qualname__": kind.__qualname__, "__doc__": doc}
        made = _GRAPH_KINDS.setdefault(kind, type(kind.__name__, (kind, GraphBubbleUp), namespace))
    return made  # type: ignore[return-value]


def stop_error(kind: type[S], config: RunnableConfig | None, *args: Any) -> S:
    """The `GuardrailStop` of ``kind`` to raise, made with ``args``.

    Outside a LangGraph run it is ``kind`` itself, a `BaseException`, which no
    generic composition catches. Inside one (`in_graph_run`) it is ``kind`` and
    LangGraph's ``GraphBubbleUp`` at once: the graph, its node retry policies,
    LangChain's model middleware and tool node re-raise it untouched, and the run
    (on ``langgraph dev`` too) ends with it as an ordinary error, never a crash.

    Example:
        >>> from langchain_jev import GuardrailRefusedError
        >>> error = stop_error(GuardrailRefusedError, None, GuardrailReport("input", True, {"hate": 0.9}))
        >>> type(error).__name__, isinstance(error, Exception)
        ('GuardrailRefusedError', False)

    """
    made = _graph_kind(kind) if in_graph_run(config) else kind
    return made(*args)


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
