"""One settings object every guardrail takes: `GuardrailSettings`.

The LangGraph nodes, `guard_model`, the guarded model node and the agent
middleware share these settings. Each takes ``settings=GuardrailSettings(...)``
and the same settings as keyword arguments (`GuardrailOptions`), which are laid
over it; a setting is added here once, and every form has it.

Every value is checked when the settings are made, so a guardrail is refused
when it is built, with a message naming the setting.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, TypedDict

from langchain_core.callbacks import BaseCallbackHandler
from typing_extensions import Unpack

from langchain_jev._errors import JevConfigurationError
from langchain_jev.guardrails._hidden import DEFAULT_TRACERS, Tracers, check_tracers
from langchain_jev.guardrails._judged import DEFAULT_CONTEXT_MESSAGES
from langchain_jev.guardrails._policy import (
    ExitBehavior,
    GuardrailPolicy,
    GuardrailReport,
    Mode,
    OnError,
    OnUnjudgeable,
    RefusalMessage,
    check_refusal_message,
)
from langchain_jev.guardrails._review import DEFAULT_REVIEW_TTL, ReviewStore, check_review_key, log_review
from langchain_jev.models._cache import DecisionCache
from langchain_jev.models._secrets import remember_settings, settings_repr

__all__ = [
    "DEFAULT_CHUNK_CONTEXT",
    "DEFAULT_TIMEOUT",
    "MIN_CHUNK_CONTEXT",
    "GuardrailOptions",
    "GuardrailSettings",
    "OnFlag",
]

DEFAULT_TIMEOUT = 30.0
"""Seconds a check may take before it fails (and ``on_error`` decides)."""

DEFAULT_CHUNK_CONTEXT = 200
"""Characters shown before a streamed chunk that are judged with it (``chunk_context``)."""

MIN_CHUNK_CONTEXT = 64
"""The least ``chunk_context``: a word (or phrase) of up to this many characters plus one, split
across chunks however the model's tokens fall, is judged whole in the chunk where it ends."""

OnFlag = Callable[[GuardrailReport], Any]
"""Called with the report of every check that did not come back clean (may be async)."""


class GuardrailOptions(TypedDict, total=False):
    """The settings of `GuardrailSettings` as keyword arguments (each optional).

    Example:
        >>> options: GuardrailOptions = {"mode": "shadow", "timeout": 5.0}
        >>> GuardrailSettings(**options).mode
        'shadow'

    """

    refusal_message: RefusalMessage | None
    on_error: OnError
    on_inconclusive: OnError | None
    on_unjudgeable: OnUnjudgeable
    review_band: float
    exit_behavior: ExitBehavior
    mode: Mode
    on_flag: OnFlag | None
    context_messages: int
    stream_tokens: bool
    concurrent_input: bool
    stream_chunks: int | None
    chunk_context: int | None
    final_check: bool
    timeout: float | None
    review_key: str | bytes | None
    review_store: ReviewStore | None
    review_ttl: float
    ledger: DecisionCache | None
    allowed_tracers: Sequence[type[BaseCallbackHandler]]


@dataclass(frozen=True)
class GuardrailSettings:
    """What a guardrail does with its checks: every form takes these.

    Example:
        >>> settings = GuardrailSettings(on_error="end", timeout=5)
        >>> settings.policy.on_error, settings.timeout, settings.with_options(mode="shadow").mode
        ('refuse', 5, 'shadow')
        >>> GuardrailSettings(on_inconclusive="interrupt")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevConfigurationError: on_error/on_inconclusive='interrupt' needs review_key=...

    """

    refusal_message: RefusalMessage | None = None
    """The refusal text, or a function of the `GuardrailReport` returning it (None: a sentence
    naming the flagged categories)."""
    on_error: OnError = "refuse"
    """A check that fails (the decision model cannot be reached or answers nonsense, the
    deadline passes, any error in the rail): ``"refuse"`` (default, fail closed; alias
    ``"end"``), ``"allow"`` (log and pass), ``"raise"`` (alias ``"error"``: raise
    `GuardrailCheckError`) or ``"interrupt"`` (put to a human; needs ``review_key``)."""
    on_inconclusive: OnError | None = None
    """The same for an inconclusive check (a category without a readable answer, or within
    ``review_band`` below its threshold); None: as ``on_error``."""
    on_unjudgeable: OnUnjudgeable = "refuse"
    """A reply carrying binary media (an image, audio, a file that is not text) the battery
    cannot read: ``"refuse"`` (default) or ``"allow"``. The media is named in the report."""
    review_band: float = 0.0
    """How far below a category's threshold a probability makes the check inconclusive."""
    exit_behavior: ExitBehavior = "end"
    """How a refusal leaves the rail: ``"end"``, ``"error"`` (raise `GuardrailRefusedError`)
    or ``"replace"`` (the flagged content is replaced and the run goes on)."""
    mode: Mode = "enforce"
    """``"enforce"`` acts on decisions; ``"shadow"`` judges and records, never blocks."""
    on_flag: OnFlag | None = None
    """Called (sync or async) with the report of every check that did not come back clean."""
    context_messages: int = DEFAULT_CONTEXT_MESSAGES
    """How many earlier (already judged) messages an input check is shown as context."""
    stream_tokens: bool = False
    """Let ``stream_mode="messages"`` show a model's tokens before its reply is checked
    (False: the checked reply is streamed whole, or chunk by chunk with ``stream_chunks``).
    True shows an unsafe draft."""
    concurrent_input: bool = True
    """Start the model's call together with the input check, so the check's latency hides
    behind the model's. The draft is held until both checks are clean: a refused request
    drops it (the call is cancelled when async; sync, it is left to finish and its reply
    discarded), and it never reaches a stream, the state, a checkpoint or a tool. The model
    (and its provider) does read the request while it is judged. Only where the door can tell
    the model only writes a reply (`langchain_jev.guardrails._early`: every tool a recognised
    client tool, every setting known to be inert); never with ``stream_tokens=True``. False:
    the model is called once the input check is clean."""
    stream_chunks: int | None = None
    """Judge the reply as it streams, every this many tokens, and show each chunk to
    ``stream_mode="messages"`` and ``astream_events`` once it is judged clean (None: the reply
    is judged whole, then shown). A flagged chunk stops the stream and the refusal replaces
    the rest of the reply, in the state and checkpoint too; tool calls are shown only after
    the whole reply is judged. Used when something streams the model's tokens; otherwise the
    reply is judged whole once."""
    chunk_context: int | None = None
    """How many characters shown before a chunk are judged with it as context (None:
    `DEFAULT_CHUNK_CONTEXT`, 200; at least `MIN_CHUNK_CONTEXT`, 64). Counted in characters,
    not tokens, so a word the model streams in one-letter tokens is still judged whole, however
    small ``stream_chunks`` is."""
    final_check: bool = False
    """With ``stream_chunks``, also judge the whole reply once at the end (one more
    request), because a chunk-by-chunk check can miss what only the whole says; a flagged
    whole is replaced by the refusal in the state and checkpoint (the stream showed its chunks)."""
    timeout: float | None = DEFAULT_TIMEOUT
    """Seconds each check may take; past it the check fails and ``on_error`` decides.
    None waits as long as the decision model does."""
    review_key: str | bytes | None = None
    """The secret a reviewer's allow is authenticated with (see `review_token`); needed
    for ``"interrupt"``."""
    review_store: ReviewStore | None = None
    """Receives the text of each check put to review (None: the
    ``langchain_jev.guardrail.review`` log); the interrupt itself carries no text."""
    review_ttl: float = DEFAULT_REVIEW_TTL
    """Seconds a review token counts for after it was made (an hour by default); it counts
    once, for the thread, the pause and the text it was made for."""
    ledger: DecisionCache | None = None
    """Where the conversations judged are remembered (None: in this process, per battery);
    a `SQLiteCache` shares them between processes."""
    allowed_tracers: Sequence[type[BaseCallbackHandler]] = ()
    """Tracer classes, besides LangSmith's ``LangChainTracer``, that may record the guardrail's
    hidden runs (the checks' runs, which carry the text judged, and the model's draft before it
    is judged). Any other handler of the caller's is left out of them, whichever way it comes
    (the config, the context, the model's own ``callbacks=``); name here, by class (matched
    exactly), only tracers that record and never show a run to a user."""

    __repr__ = settings_repr  # the review key (any declared secret setting) is never shown

    def __post_init__(self) -> None:
        object.__setattr__(self, "allowed_tracers", check_tracers(self.allowed_tracers))
        remember_settings(self)  # the review key is redacted wherever the package writes
        policy = self.policy  # validates mode, on_error, on_inconclusive, exit_behavior, review_band
        check_refusal_message(self.refusal_message)
        if self.on_flag is not None and not callable(self.on_flag):
            raise JevConfigurationError(
                f"on_flag must be a function of the report, got {type(self.on_flag).__name__}"
            )
        context = self.context_messages
        if isinstance(context, bool) or not isinstance(context, int) or context < 0:
            raise JevConfigurationError(
                f"context_messages must be a whole number of messages >= 0, got {context!r}"
            )
        timeout = self.timeout
        if timeout is not None and (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not math.isfinite(timeout)
            or timeout <= 0
        ):
            raise JevConfigurationError(f"timeout must be a number of seconds > 0, or None; got {timeout!r}")
        check_review_key(self.review_key)
        ttl = self.review_ttl
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not math.isfinite(ttl) or ttl <= 0:
            raise JevConfigurationError(f"review_ttl must be a number of seconds > 0; got {ttl!r}")
        self._check_streaming(policy)
        if self.review_store is not None and not callable(self.review_store):
            raise JevConfigurationError(
                f"review_store must be a function of the review item, got {type(self.review_store).__name__}"
            )
        if self.ledger is not None and not all(
            callable(getattr(self.ledger, name, None)) for name in ("get", "put", "aget", "aput")
        ):
            raise JevConfigurationError(
                "ledger must be a cache store (get, put, aget, aput), such as SQLiteCache or "
                f"InMemoryCache; got {type(self.ledger).__name__}"
            )
        if policy.reviews and self.review_key is None:
            raise JevConfigurationError(
                "on_error/on_inconclusive='interrupt' needs review_key=...: without it, anyone who "
                "can resume the thread (the requester too) could approve what the check stopped. "
                "Give a secret of 16 bytes or more; reviewers resume with review_token(key, request)"
            )

    def _check_streaming(self, policy: GuardrailPolicy) -> None:
        for name in ("concurrent_input", "final_check"):
            if not isinstance(getattr(self, name), bool):
                raise JevConfigurationError(f"{name} must be True or False, got {getattr(self, name)!r}")
        for name, least, unit in (
            ("stream_chunks", 1, "tokens"),
            ("chunk_context", MIN_CHUNK_CONTEXT, "characters"),
        ):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < least):
                raise JevConfigurationError(
                    f"{name} must be a whole number of {unit} >= {least}, or None; got {value!r}"
                )
        if self.stream_chunks is None:
            for name in ("chunk_context", "final_check"):
                if getattr(self, name) not in (None, False):
                    raise JevConfigurationError(
                        f"{name} applies to a reply judged as it streams: set stream_chunks=N too"
                    )
            return
        if self.stream_tokens:
            raise JevConfigurationError(
                "stream_chunks and stream_tokens=True contradict each other: stream_tokens shows every "
                "token unjudged, stream_chunks shows each chunk once it is judged; choose one"
            )
        if policy.reviews:
            raise JevConfigurationError(
                "stream_chunks cannot be combined with on_error/on_inconclusive='interrupt': a check in "
                "the middle of a streamed reply cannot wait for a human"
            )

    @property
    def tracers(self) -> Tracers:
        """The tracer classes the hidden runs may carry: LangSmith's, then ``allowed_tracers``."""
        extra = tuple(tracer for tracer in self.allowed_tracers if tracer not in DEFAULT_TRACERS)
        return (*DEFAULT_TRACERS, *extra)

    @property
    def context_characters(self) -> int:
        """The characters of context a streamed chunk is judged with (``chunk_context``, resolved)."""
        return DEFAULT_CHUNK_CONTEXT if self.chunk_context is None else self.chunk_context

    @property
    def policy(self) -> GuardrailPolicy:
        """The decision policy these settings make (validated)."""
        return GuardrailPolicy.of(
            mode=self.mode,
            on_error=self.on_error,
            on_inconclusive=self.on_inconclusive,
            on_unjudgeable=self.on_unjudgeable,
            exit_behavior=self.exit_behavior,
            review_band=self.review_band,
        )

    @property
    def review_secret(self) -> bytes | None:
        """The review key as bytes (None without one)."""
        return check_review_key(self.review_key)

    @property
    def reviews_to(self) -> ReviewStore:
        """Where the text of a check put to review goes."""
        return self.review_store if self.review_store is not None else log_review

    def with_options(self, **options: Unpack[GuardrailOptions]) -> GuardrailSettings:
        """These settings with ``options`` laid over them (checked again)."""
        return replace(self, **options) if options else self

    @classmethod
    def of(
        cls, settings: GuardrailSettings | None = None, **options: Unpack[GuardrailOptions]
    ) -> GuardrailSettings:
        """``settings`` (or the defaults) with the keyword ``options`` laid over them.

        Raises:
            JevConfigurationError: ``settings`` is not a `GuardrailSettings`, an option is
                unknown, or a value is invalid (the message names it).

        """
        if settings is None:
            settings = cls()
        elif not isinstance(settings, GuardrailSettings):
            raise JevConfigurationError(
                f"settings must be a GuardrailSettings, got {type(settings).__name__}"
            )
        unknown = sorted(set(options) - _NAMES)
        if unknown:
            raise JevConfigurationError(
                f"unknown guardrail setting {unknown[0]!r}; the settings are: {', '.join(sorted(_NAMES))}"
            )
        return settings.with_options(**options)


_NAMES = frozenset(f.name for f in fields(GuardrailSettings))
