"""Human review of a check: decisions bound to one pause, and the reviewed text kept with reviewers.

A rail whose policy says ``"interrupt"`` pauses the graph with a value anyone
who reads the thread may see (the requester among them). So that value
(`review_request`) carries no text: only the side, why it paused, the categories
and probabilities, and what the pause is (a `ReviewBinding`): the **thread**, the
**review id** of this pause (the task's checkpoint namespace and the side
checked, so a later pause of the same thread has another) and the
**fingerprint** of the text judged. The text itself goes to the operator's
review store (`ReviewStore`: a function called with a `ReviewItem`'s data; by
default the ``langchain_jev.guardrail.review`` log).

A decision counts only when it is authenticated: the guardrail is given a
``review_key``, and an allow resumes with ``{"decision": "allow", "token":
review_token(key, request)}``, made from the paused value by someone who holds
the key. A token (`read_review`):

- is bound to its thread, its pause and its text: on any other it refuses;
- expires: it carries the time it was made, and counts only within
  ``review_ttl`` seconds of it (and not from the future, past a small clock skew);
- works once: the rail records it as spent (in its ledger's store) when it
  allows; presented again it refuses, unless LangGraph is re-reading the answer
  the same task already took (a task runs again from its start on each resume).
  Two resumes that present it at once cannot both allow: the claim (`claim_token`)
  is made under a lock of the process, and in the store by a splitter (each
  claimant writes its own claim id, closes the door, and wins only when it reads
  its own id back), so of claimants in several processes sharing a store at most
  one wins; under contention none may, which refuses (fail closed).

The documented forms are exactly these:

- ``"refuse"`` or ``{"decision": "refuse"}`` (no token needed: refusing is always safe);
- ``{"decision": "allow", "token": review_token(key, request)}``;
- LangChain's ``HumanInTheLoopMiddleware`` vocabulary, which agent UIs render, with
  exactly one decision: ``{"decisions": [{"type": "reject"}]}`` (a ``message`` may
  go with it) or ``{"decisions": [{"type": "approve", "token": review_token(key,
  request)}]}``, read as the two forms above (`plain_decision`).

Anything else refuses (fail closed) and the reason is logged, never the token.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from langchain_jev._errors import JevConfigurationError
from langchain_jev.guardrails._policy import GuardrailReport
from langchain_jev.guardrails._text import redact

if TYPE_CHECKING:
    from langchain_jev.guardrails._settings import GuardrailSettings
    from langchain_jev.models._cache import DecisionCache

__all__ = [
    "reviewed",
    "CLOCK_SKEW",
    "DEFAULT_REVIEW_TTL",
    "MIN_REVIEW_KEY_BYTES",
    "RESUME_FORMS",
    "ReviewAnswer",
    "ReviewBinding",
    "ReviewStore",
    "CLAIM_WAIT",
    "check_review_key",
    "claim_token",
    "log_review",
    "read_review",
    "review_id",
    "review_item",
    "review_request",
    "plain_decision",
    "review_token",
    "spent_key",
    "token_of",
]

review_logger = logging.getLogger("langchain_jev.guardrail.review")

MIN_REVIEW_KEY_BYTES = 16
"""The shortest review key accepted (bytes, or characters of a text key encoded as UTF-8)."""

DEFAULT_REVIEW_TTL = 3600.0
"""Seconds a review token counts for after it was made (``review_ttl``): an hour."""

CLOCK_SKEW = 300.0
"""Seconds a token may claim to be made in the future (a reviewer's clock ahead of the graph's)."""

RESUME_FORMS: tuple[str, ...] = (
    '"refuse"',
    '{"decision": "refuse"}',
    '{"decision": "allow", "token": review_token(key, request)}',
    '{"decisions": [{"type": "reject"}]}',
    '{"decisions": [{"type": "approve", "token": review_token(key, request)}]}',
)
"""The resume values a review reads; anything else refuses."""

ReviewStore = Callable[[dict[str, Any]], Any]
"""Receives each text put to review: ``{"fingerprint", "thread_id", "review_id", "check", "reason",
"categories", "probabilities", "text", ...}``. Reviewers read it there, never from the thread."""

_TOKEN_VERSION = "jev-review-2"


@dataclass(frozen=True)
class ReviewBinding:
    """What one review decides: the text (``fingerprint``) judged in one pause of one thread.

    Example:
        >>> binding = ReviewBinding("thread-1", review_id("thread-1", "agent:7f3", "input"), "f1")
        >>> binding.thread_id, len(binding.review_id)
        ('thread-1', 32)

    """

    thread_id: str
    """The thread paused (``configurable["thread_id"]``)."""
    review_id: str
    """This pause: see `review_id`."""
    fingerprint: str
    """The digest of the text judged (`langchain_jev.guardrails._policy.fingerprint`)."""

    def _message(self, issued: int) -> bytes:
        return "\x1f".join(
            (_TOKEN_VERSION, self.thread_id, self.review_id, self.fingerprint, str(issued))
        ).encode()


@dataclass(frozen=True)
class ReviewAnswer:
    """A reviewer's answer as the rail reads it: the resume ``value``, and whether it is a replay.

    ``replayed`` is True when LangGraph hands the task an answer it already took in
    an earlier run of the same task (a task runs again from its start on each resume).
    """

    value: Any
    replayed: bool = False


def review_id(thread_id: str, checkpoint_ns: str, check: str) -> str:
    """The id of one pause: the thread, the paused task's checkpoint namespace, the side checked.

    LangGraph gives each task its own namespace (its id is made from the checkpoint
    it runs from), so every pause of a thread has another id, while the task's own
    runs (it runs again from its start on each resume) keep it.

    Example:
        >>> review_id("t", "agent:1", "input") == review_id("t", "agent:1", "input")
        True
        >>> review_id("t", "agent:1", "input") == review_id("t", "agent:2", "input")
        False

    """
    return hashlib.sha256("\x1f".join((thread_id, checkpoint_ns, check)).encode()).hexdigest()[:32]


def review_request(report: GuardrailReport, binding: ReviewBinding) -> dict[str, Any]:
    """The value a rail pauses with (``interrupt``): the decision so far and the pause, never the text.

    Example:
        >>> binding = ReviewBinding("t", "r1", "f1")
        >>> request = review_request(GuardrailReport("input", False, undecided=("hate",)), binding)
        >>> request["fingerprint"], request["reason"], "text" in request
        ('f1', 'inconclusive', False)

    """
    return {
        "jev_guardrail": report.check,
        "reason": "error" if report.error is not None else "inconclusive",
        "categories": dict(report.categories),
        "probabilities": report.probabilities,
        "undecided": list(report.undecided),
        "borderline": dict(report.borderline),
        "error": report.error,
        "thread_id": binding.thread_id,
        "review_id": binding.review_id,
        "fingerprint": binding.fingerprint,
        "resume_with": list(RESUME_FORMS),
    }


def review_item(report: GuardrailReport, binding: ReviewBinding, data: Mapping[str, Any]) -> dict[str, Any]:
    """What a review store receives: the review request with the text judged."""
    return {**review_request(report, binding), "check": report.check, "text": dict(data)}


def check_review_key(key: Any) -> bytes | None:
    """Validate a review key: None, or text or bytes of at least `MIN_REVIEW_KEY_BYTES`.

    Raises:
        JevConfigurationError: the key is of another type or too short (the key itself is never shown).

    """
    if key is None:
        return None
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, bytes):
        raise JevConfigurationError(f"review_key must be text or bytes, got {type(key).__name__}")
    if len(key) < MIN_REVIEW_KEY_BYTES:
        raise JevConfigurationError(
            f"review_key must be at least {MIN_REVIEW_KEY_BYTES} bytes long (use secrets.token_hex())"
        )
    return key


def _binding_of(request: Any) -> ReviewBinding:
    if not isinstance(request, Mapping):
        raise JevConfigurationError(
            "review_token takes the paused review request (the interrupt's value, with its thread_id, "
            f"review_id and fingerprint), which binds the token to that pause; got {type(request).__name__}"
        )
    fields = ("thread_id", "review_id", "fingerprint")
    missing = [name for name in fields if not isinstance(request.get(name), str)]
    if missing:
        raise JevConfigurationError(
            f"the review request has no {', '.join(missing)}: pass the interrupt's value as it was paused"
        )
    return ReviewBinding(request["thread_id"], request["review_id"], request["fingerprint"])


def _mac(secret: bytes, binding: ReviewBinding, issued: int) -> str:
    return hmac.new(secret, binding._message(issued), hashlib.sha256).hexdigest()


def review_token(key: str | bytes, request: Mapping[str, Any], *, issued_at: float | None = None) -> str:
    """The token that authenticates a reviewer's allow of one paused review ``request``.

    ``request`` is the interrupt's value; the token is bound to its thread, its
    pause (``review_id``) and its text (``fingerprint``), and carries ``issued_at``
    (now, by default): it counts once, within the guardrail's ``review_ttl``.

    Raises:
        JevConfigurationError: the key is missing or too short, or ``request`` is not a paused review request.

    Example:
        >>> request = {"thread_id": "t", "review_id": "r1", "fingerprint": "0123456789abcdef"}
        >>> token = review_token("a-review-key-of-16+", request, issued_at=1_700_000_000)
        >>> token.split(".")[0], len(token.split(".")[1])
        ('1700000000', 64)

    """
    secret = check_review_key(key)
    if secret is None:
        raise JevConfigurationError("review_token needs the review key")
    issued = int(time.time() if issued_at is None else issued_at)
    return f"{issued}.{_mac(secret, _binding_of(request), issued)}"


_HITL_TYPES = {"approve": "allow", "reject": "refuse"}
"""``HumanInTheLoopMiddleware``'s decision types a review reads, and what each is here."""
_HITL_KEYS = {"approve": {"type", "token"}, "reject": {"type", "message"}}
"""The keys each of those decisions may carry (anything more is not a documented form)."""


def plain_decision(value: Any) -> Any:
    """A resume value in ``HumanInTheLoopMiddleware``'s shape as the plain form; any other value as it is.

    Only one decision of a documented type with its documented keys is read; any
    other shape comes back as given, which then refuses.

    Example:
        >>> plain_decision({"decisions": [{"type": "approve", "token": "1.ab"}]})
        {'decision': 'allow', 'token': '1.ab'}
        >>> plain_decision({"decisions": [{"type": "reject", "message": "no"}]})
        {'decision': 'refuse'}
        >>> plain_decision({"decisions": [{"type": "edit"}]})
        {'decisions': [{'type': 'edit'}]}

    """
    if not (isinstance(value, Mapping) and set(value) == {"decisions"}):
        return value
    decisions = value["decisions"]
    if not (isinstance(decisions, list) and len(decisions) == 1 and isinstance(decisions[0], Mapping)):
        return value
    (decision,) = decisions
    kind = decision.get("type")
    if not (isinstance(kind, str) and kind in _HITL_TYPES and set(decision) <= _HITL_KEYS[kind]):
        return value
    plain: dict[str, Any] = {"decision": _HITL_TYPES[kind]}
    if kind == "approve" and "token" in decision:
        plain["token"] = decision["token"]
    return plain


def token_of(value: Any) -> str | None:
    """The token an allow carries, in either vocabulary (None for any other value)."""
    value = plain_decision(value)
    token = value.get("token") if isinstance(value, Mapping) else None
    return token if isinstance(token, str) else None


def spent_key(token: str) -> str:
    """Where a spent token is recorded in a store (its digest: the token itself is never stored).

    Example:
        >>> spent_key("1700000000.ab").startswith("jev-review-spent:")
        True

    """
    return "jev-review-spent:" + hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def _claim_key(token: str) -> str:
    """Where claimants of a token write their claim ids (the splitter's first register)."""
    return "jev-review-claim:" + spent_key(token).partition(":")[2]


CLAIM_WAIT = 30.0
"""Seconds a claim waits for another claim of the same token in this process; past it, it refuses."""

_CLAIM_LOCKS = tuple(threading.Lock() for _ in range(64))
"""The process's claim locks, striped by token: two claims of one token in this process never overlap."""


def claim_token(store: DecisionCache, token: str, binding: ReviewBinding) -> bool:
    """Spend ``token`` in ``store``: True for exactly one of the claims of it made at once, False when spent.

    In this process claims of one token take turns under a lock, so the first
    spends it and every other finds it spent. Between processes sharing the store
    (whose ``put`` overwrites and which offers no compare-and-set), the claim is a
    splitter over two records: write a fresh claim id, refuse if the spent record
    exists (the door is closed), write the spent record (close the door), and win
    only when the claim id read back is this claim's. At most one claimant wins; a
    claimant overtaken in between loses, though the token may then allow nobody
    (fail closed). A store that does not keep what it is given allows nobody.

    Example:
        >>> from langchain_jev.models import InMemoryCache
        >>> store, binding = InMemoryCache(), ReviewBinding("t", "r1", "f1")
        >>> claim_token(store, "1.ab", binding), claim_token(store, "1.ab", binding)
        (True, False)

    """
    lock = _CLAIM_LOCKS[int(spent_key(token)[-8:], 16) % len(_CLAIM_LOCKS)]
    if not lock.acquire(timeout=CLAIM_WAIT):
        return False
    try:
        return _split(store, token, binding)
    finally:
        lock.release()


def _split(store: DecisionCache, token: str, binding: ReviewBinding) -> bool:
    """The splitter in the store (Moir and Anderson): of claimants running it at once, at most one wins.

    A winner read its own claim id back after it closed the door, so no claimant
    wrote its id between its write and that read; any claimant that wrote later
    found the door closed.
    """
    spent = spent_key(token)
    if store.get(spent) is not None:
        return False
    claim = secrets.token_hex(16)
    store.put(_claim_key(token), {"claim": claim})
    if store.get(spent) is not None:  # another claimant closed the door in between
        return False
    store.put(spent, {"thread_id": binding.thread_id, "review_id": binding.review_id, "claim": claim})
    back = store.get(_claim_key(token))
    return isinstance(back, Mapping) and back.get("claim") == claim


_UNDOCUMENTED = f"the resume value is none of the documented forms ({', '.join(RESUME_FORMS)})"


def read_review(
    value: Any,
    binding: ReviewBinding,
    key: bytes | None,
    *,
    now: float,
    ttl: float = DEFAULT_REVIEW_TTL,
    spent: bool = False,
    replayed: bool = False,
) -> tuple[bool, str | None]:
    """Read a resume value: (allowed, why it refuses or None when it is a plain refusal).

    Only the documented forms (`RESUME_FORMS`) are read. An allow counts only with
    a token of ``key`` for this ``binding``, made within ``ttl`` seconds before
    ``now``; a ``spent`` token counts only ``replayed`` (LangGraph re-reading the
    answer the same task took). Pure: the caller says whether the token is spent.

    Example:
        >>> key, binding = b"a-review-key-of-16+", ReviewBinding("t", "r1", "f1")
        >>> request = {"thread_id": "t", "review_id": "r1", "fingerprint": "f1"}
        >>> allow = {"decision": "allow", "token": review_token(key, request, issued_at=1000)}
        >>> read_review(allow, binding, key, now=1060)
        (True, None)
        >>> read_review(allow, binding, key, now=1060, spent=True)
        (False, 'the token was used already')
        >>> read_review(allow, ReviewBinding("t2", "r1", "f1"), key, now=1060)[1]
        "the token is not the review key's token for this thread, pause and text"
        >>> read_review(allow, binding, key, now=1000 + 7200)[1]
        'the token expired (made 7200 s ago; review_ttl is 3600 s)'
        >>> read_review("allow", binding, key, now=1060)[0], read_review("refuse", binding, key, now=0)
        (False, (False, None))

    """
    value = plain_decision(value)
    if value == "refuse" and isinstance(value, str):
        return False, None
    if not isinstance(value, Mapping) or not set(value) <= {"decision", "token"}:
        return False, _UNDOCUMENTED
    decision = value.get("decision")
    if decision == "refuse" and isinstance(decision, str):
        return False, None
    if not (decision == "allow" and isinstance(decision, str)):
        return False, _UNDOCUMENTED
    token = token_of(value)
    if key is None or token is None:
        return False, "an allow needs the token of the review key"
    issued_text, dot, mac = token.partition(".")
    if not (
        dot and mac.isascii() and issued_text.isascii() and issued_text.isdigit() and len(issued_text) <= 12
    ):
        return False, "the token is not a review token (review_token(key, request) makes one)"
    issued = int(issued_text)
    if not hmac.compare_digest(mac, _mac(key, binding, issued)):
        return False, "the token is not the review key's token for this thread, pause and text"
    if spent:
        return (True, None) if replayed else (False, "the token was used already")
    if issued > now + CLOCK_SKEW:
        return False, f"the token was made {issued - now:.0f} s in the future"
    if now - issued > ttl:
        return False, f"the token expired (made {now - issued:.0f} s ago; review_ttl is {ttl:g} s)"
    return True, None


def log_review(item: dict[str, Any]) -> None:
    """The default review store: the item, text and all, at WARNING on ``langchain_jev.guardrail.review``."""
    review_logger.warning(
        "a %s safety check awaits review (fingerprint %s): %s",
        item.get("check"),
        item.get("fingerprint"),
        redact(json.dumps(item, ensure_ascii=False, sort_keys=True, default=str)),
    )


rail_logger = logging.getLogger("langchain_jev.guardrail")
"""The rails' own logger, on which a review's outcome is logged."""


def reviewed(
    report: GuardrailReport,
    binding: ReviewBinding,
    data: Mapping[str, Any],
    reviewer: Callable[[dict[str, Any]], Any],
    settings: GuardrailSettings,
    store: DecisionCache,
    *,
    check: str,
) -> GuardrailReport:
    """Put a rail's check to a human: one pause, one decision, bound to ``binding``.

    The text goes to the review store (``settings.reviews_to``), the ``reviewer``
    gets a request without it, and only an authenticated allow, not spent in
    ``store`` before, counts; the report comes back refused or allowed.
    """
    try:
        settings.reviews_to(review_item(report, binding, data))
    except Exception as error:
        rail_logger.warning("the review store raised %s; the review goes on", type(error).__name__)
    answer = reviewer(review_request(report, binding))
    if not isinstance(answer, ReviewAnswer):
        answer = ReviewAnswer(answer)
    token = token_of(answer.value)
    try:
        spent = token is not None and store.get(spent_key(token)) is not None
        allowed, problem = read_review(
            answer.value,
            binding,
            settings.review_secret,
            now=time.time(),
            ttl=settings.review_ttl,
            spent=spent,
            replayed=answer.replayed,
        )
        if allowed and token is not None and not spent and not claim_token(store, token, binding):
            allowed, problem = False, "the token was used already"  # another resume spent it first
    except Exception as error:  # spent tokens that cannot be read or written: no allow counts
        allowed, problem = (
            False,
            f"the spent review tokens could not be read or written ({type(error).__name__})",
        )
    if problem is not None:
        rail_logger.warning("the %s safety check's review refuses the turn: %s", check, problem)
    return replace(report, refused=not allowed, review="allow" if allowed else "refuse")
