"""Transport faults through the real typesafe-sdk clients, over MockTransport and the loopback server.

Every fault runs on both wires and under both ``judge`` and ``ajudge``. What a user
is promised: a fault the retry policy covers costs one more request and the verdict
comes; a fault that persists, or one no retry can mend, raises the provider's own
error with its message. A judge never passes a turn it could not judge.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from typesafe_sdk import (
    RetryPolicy,
    TypeSafeAPIConnectionError,
    TypeSafeAPIError,
    TypeSafeAPIResponseValidationError,
    TypeSafeAPITimeoutError,
    TypeSafeAuthenticationError,
    TypeSafeBadRequestError,
    TypeSafeInternalServerError,
    TypeSafeNotFoundError,
    TypeSafePermissionDeniedError,
    TypeSafeRateLimitError,
    TypeSafeUnprocessableEntityError,
)

from tests.support.faults import TIMEOUT, Rig, Step, decide, good_body, judge_over, rig_named

pytestmark = pytest.mark.slow  # a fault matrix: `-m 'not slow'` leaves it out

ONE_RETRY = RetryPolicy(max_retries=1, backoff_initial=0.001, backoff_max=0.002, backoff_jitter=0.0)


@pytest.fixture(params=["mock", "server"])
async def rig(request: pytest.FixtureRequest) -> AsyncIterator[Rig]:
    async with rig_named(request.param) as made:
        yield made


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


PASSING_FAULTS = {
    "429 without retry-after": Step(status=429),
    "429 with retry-after 0": Step(status=429, retry_after=0),
    "500": Step(status=500),
    "502": Step(status=502),
    "503": Step(status=503),
    "connection dropped": Step(drop=True),
    "connection reset": Step(reset=True),
    "timeout": Step(stall=True),
    "body cut off mid-stream": Step(cut=True),
}


@pytest.mark.parametrize("step", PASSING_FAULTS.values(), ids=PASSING_FAULTS.keys())
async def test_a_fault_the_policy_retries_costs_one_request_then_the_verdict_comes(
    rig: Rig, mode: str, step: Step
) -> None:
    verdict = await decide(judge_over(rig.model([step])), mode)
    assert verdict.summary() == "passed=true [is_safe=PASSED, tone=PASSED, helpfulness=PASSED]"
    assert rig.attempts == 2
    assert rig.retry_counts == [None, "1"]
    assert rig.bodies[0]["state"] == rig.bodies[1]["state"]


async def test_retry_after_is_waited_for_before_the_retry(rig: Rig, mode: str) -> None:
    verdict = await decide(judge_over(rig.model([Step(status=429, retry_after=0.25)])), mode)
    assert verdict.passed and rig.attempts == 2
    first, second = rig.times
    assert second - first >= 0.25  # the server asked for 0.25 s; the backoff alone is 0.002 s


async def test_a_retry_after_beyond_the_retry_budget_raises_at_once(rig: Rig, mode: str) -> None:
    budget = RetryPolicy(max_retries=3, backoff_initial=0.001, backoff_max=0.002, timeout=5.0)
    judge = judge_over(rig.model([Step(status=429, retry_after=60)], retry=budget))
    with pytest.raises(TypeSafeRateLimitError, match="429 injected fault: Too Many Requests") as error:
        await decide(judge, mode)
    assert error.value.retry_after_ms == 60_000
    assert rig.attempts == 1


PERSISTENT_FAULTS = {
    "429": (Step(status=429), TypeSafeRateLimitError, "429 injected fault: Too Many Requests"),
    "500": (Step(status=500), TypeSafeInternalServerError, "500 injected fault: Internal Server Error"),
    "502": (Step(status=502), TypeSafeInternalServerError, "502 injected fault: Bad Gateway"),
    "503": (Step(status=503), TypeSafeInternalServerError, "503 injected fault: Service Unavailable"),
    "connection dropped": (
        Step(drop=True),
        TypeSafeAPIConnectionError,
        "Connection error: .*(disconnected|closed)",
    ),
    "connection reset": (Step(reset=True), TypeSafeAPIConnectionError, "Connection error: "),
    "timeout": (Step(stall=True), TypeSafeAPITimeoutError, rf"Request timed out \(timeout={TIMEOUT}\)"),
}


@pytest.mark.parametrize(
    ("step", "error", "message"), PERSISTENT_FAULTS.values(), ids=PERSISTENT_FAULTS.keys()
)
async def test_a_fault_that_persists_raises_the_providers_error_after_the_retries(
    rig: Rig, mode: str, step: Step, error: type[Exception], message: str
) -> None:
    judge = judge_over(rig.model([step, step], retry=ONE_RETRY))
    with pytest.raises(error, match=message):
        await decide(judge, mode)
    # The retry reached the server and nothing after it. A first attempt the client gave up on
    # before the server's thread read it (a starved loopback server, under load) is read later,
    # or not at all before the error is raised, so the server's count alone would race.
    assert "1" in rig.retry_counts and rig.attempts <= 2
    assert set(rig.retry_counts) <= {None, "1"}


FINAL_STATUSES = {
    400: (TypeSafeBadRequestError, "Bad Request"),
    401: (TypeSafeAuthenticationError, "Unauthorized"),
    403: (TypeSafePermissionDeniedError, "Forbidden"),
    404: (TypeSafeNotFoundError, "Not Found"),
    422: (TypeSafeUnprocessableEntityError, "Unprocessable"),
}


@pytest.mark.parametrize(("status", "error", "phrase"), [(s, *v) for s, v in FINAL_STATUSES.items()], ids=str)
async def test_a_status_no_retry_can_mend_raises_at_once(
    rig: Rig, mode: str, status: int, error: type[Exception], phrase: str
) -> None:
    judge = judge_over(rig.model([Step(status=status)]))
    with pytest.raises(error, match=f"{status} injected fault: {phrase}"):
        await decide(judge, mode)
    assert rig.attempts == 1


def _good_bytes() -> bytes:
    return json.dumps(good_body()).encode()


WHOLE_BODY_FAULTS = {
    "truncated JSON": (Step(raw=_good_bytes()[:40]), "''"),
    "HTML instead of JSON": (Step(raw=b"<html><body>maintenance</body></html>"), "''"),
    "empty body": (Step(raw=b""), "''"),
    "a JSON string": (Step(body="all good"), "''"),
    "a JSON array": (Step(body=[1, 2, 3]), "''"),
    "no usage": (Step(body={k: v for k, v in good_body().items() if k != "usage"}), "'usage'"),
    "no model": (Step(body={k: v for k, v in good_body().items() if k != "model"}), "'model'"),
    "answers not an object": (Step(body={**good_body(), "answers": ["is_safe"]}), "'answers'"),
}


@pytest.mark.parametrize(("step", "where"), WHOLE_BODY_FAULTS.values(), ids=WHOLE_BODY_FAULTS.keys())
async def test_a_body_that_cannot_be_read_at_all_raises_and_is_not_retried(
    rig: Rig, mode: str, step: Step, where: str
) -> None:
    judge = judge_over(rig.model([step]))
    with pytest.raises(TypeSafeAPIResponseValidationError, match=f"200 Invalid response data at {where}"):
        await decide(judge, mode)
    assert rig.attempts == 1


async def test_an_html_gateway_page_is_retried_then_raised_with_the_page_as_message(
    rig: Rig, mode: str
) -> None:
    page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
    judge = judge_over(rig.model([Step(status=502, raw=page)] * 2, retry=ONE_RETRY))
    with pytest.raises(TypeSafeInternalServerError, match="502 <html><body><h1>502 Bad Gateway") as error:
        await decide(judge, mode)
    assert isinstance(error.value, TypeSafeAPIError) and error.value.status == 502
    assert rig.attempts == 2


async def test_an_error_raised_by_the_judge_is_never_a_verdict_even_with_every_policy_flag(
    rig: Rig, mode: str
) -> None:
    judge = judge_over(rig.model([Step(status=503)] * 3), fail_on_error=True, fail_on_inconclusive=True)
    with pytest.raises(TypeSafeInternalServerError):
        await decide(judge, mode)
    assert rig.attempts == 3
