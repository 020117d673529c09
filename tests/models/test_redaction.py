"""A server that echoes the key gets it into no exception, no response, no verdict and no log record.

The hostile loopback server echoes the bearer token it receives into every field
it can (model name, request id, choice label, score level, answer type, answer
value, response headers, error body and message). Everything a Python caller
can reach is then searched for the key in each form `redact` knows: the
exception's text, repr, ``args``, every attribute and the whole traceback; the
verdict and the response; and every log record of every logger at DEBUG.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import traceback
from collections.abc import Iterator
from typing import Any

import httpx
import pydantic
import pytest
from langchain_core.decisions import Choice, Noul, Score
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from typesafe_sdk import RetryPolicy, TypeSafeAPIResponseValidationError, TypeSafeAuthenticationError

from langchain_jev import ChatModelDecisionModel, JevCriterion, JevJudge
from langchain_jev.models import JevDecisionModel
from langchain_jev.models._secrets import install_log_filter, redact_data, redact_error, remember_secret
from tests.support.hostile_server import HostileServer

KEY = "sk-echoed-Hq4Zt8Wm2Lx6Nv0Rb3Kc"
FORMS = (KEY, KEY[-16:])
NO_RETRY = RetryPolicy(max_retries=0)


def criteria() -> list[JevCriterion]:
    return [
        JevCriterion.noul("safe", Noul(instructions="Is it safe?"), 0.5),
        JevCriterion.choice("tone", Choice(instructions="Tone?", criteria={"calm": None, "angry": None}), ["calm"]),
        JevCriterion.score("helpful", Score(instructions="Helpful?", criteria=["no", "some", "very"]), 1),
    ]


@pytest.fixture(autouse=True)
def known() -> None:
    """The key is known, as a model given it (``api_key=``) makes it known."""
    remember_secret(KEY)


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    with HostileServer(give_up_after=10.0) as server:
        yield server


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Every record of every logger at DEBUG (the SDK's wire log, httpx2's, httpcore2's child loggers)."""
    caplog.set_level(logging.DEBUG)
    loggers = [logging.getLogger(name) for name in ("typesafe_sdk", "httpx2", "httpcore2", "httpx", "httpcore")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
    yield caplog
    for logger, level in zip(loggers, levels, strict=True):
        logger.setLevel(level)


def everything_of(error: BaseException) -> str:
    """What a caller can print of an error: text, repr, args, each attribute (and theirs), the traceback."""
    texts = [str(error), repr(error), repr(error.args), "".join(traceback.format_exception(error))]
    for name, value in vars(error).items():
        texts.append(f"{name}={value!r}")
        if isinstance(value, (httpx.Response, httpx.Request)):
            texts += [repr(dict(value.headers)), value.text if isinstance(value, httpx.Response) else ""]
            request = getattr(value, "request", None)
            if request is not None:
                texts.append(repr(dict(request.headers)))
        elif hasattr(value, "multi_items"):
            texts.append(repr(list(value.multi_items())))
    for linked in (error.__cause__, error.__context__):
        if linked is not None:
            texts.append(everything_of(linked))
    return "\n".join(texts)


def shown(records: list[logging.LogRecord]) -> str:
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    return "\n".join(f"{formatter.format(r)} {r.args!r} {r.exc_text or ''}" for r in records)


def assert_clean(text: str) -> None:
    for form in FORMS:
        assert form not in text, f"the key ({form!r}) leaked:\n{text[:3000]}"


def jev(server: HostileServer, behaviour: str) -> JevDecisionModel:
    return JevDecisionModel(api_key=KEY, base_url=server.url(behaviour), retry=NO_RETRY, timeout=5.0)


MODES = pytest.mark.parametrize("mode", ["sync", "async"])


async def run(judge: JevJudge, mode: str) -> Any:
    if mode == "sync":
        return judge.judge("Is it safe?", "Yes.")
    return await judge.ajudge("Is it safe?", "Yes.")


@MODES
async def test_a_response_validation_error_carries_no_key(
    hostile: HostileServer, logs: pytest.LogCaptureFixture, mode: str
) -> None:
    with pytest.raises(TypeSafeAPIResponseValidationError) as caught:
        await run(JevJudge(criteria(), model=jev(hostile, "echo-invalid")), mode)
    assert caught.value.field_path == "usage"
    assert_clean(everything_of(caught.value) + json.dumps(caught.value.body))
    assert "[redacted]" in json.dumps(caught.value.body)
    assert caught.value.request_id == "[redacted]"
    assert_clean(shown(logs.records))


@MODES
async def test_an_error_response_carries_no_key_in_its_message_body_or_headers(
    hostile: HostileServer, logs: pytest.LogCaptureFixture, mode: str
) -> None:
    with pytest.raises(TypeSafeAuthenticationError) as caught:
        await run(JevJudge(criteria(), model=jev(hostile, "echo-401")), mode)
    error = caught.value
    assert "invalid key Bearer [redacted]" in str(error)
    assert error.headers["x-echo"] == "[redacted]"
    assert_clean(everything_of(error))
    assert_clean(shown(logs.records))


@MODES
async def test_a_response_echoing_the_key_in_every_field_gives_a_verdict_without_it(
    hostile: HostileServer, logs: pytest.LogCaptureFixture, mode: str
) -> None:
    verdict = await run(JevJudge(criteria(), model=jev(hostile, "echo")), mode)
    response = verdict.response
    assert response.model == "[redacted]" and response.request_id == "[redacted]"
    dumped = json.dumps(verdict.to_dict(), default=str)
    shown_verdict = "\n".join(
        [dumped, repr(verdict), verdict.summary(), str(verdict.feedback), repr(response), response.model_dump_json()]
    )
    assert_clean(shown_verdict)
    assert_clean(shown(logs.records))
    assert any(r.name.startswith("httpcore2.") for r in logs.records)  # the child loggers were heard


def test_records_of_any_logger_are_redacted_as_they_are_made(caplog: pytest.LogCaptureFixture) -> None:
    install_log_filter()
    caplog.set_level(logging.DEBUG)
    try:
        raise ValueError(f"the server said {KEY}")
    except ValueError:
        logging.getLogger("langchain_jev.models._wire").warning("answer %r has type %r", "x", KEY, exc_info=True)
    logging.getLogger("some.library.deep.child").debug(f"headers={{'x-echo': {KEY!r}}}")
    logging.getLogger("httpcore2.http11").debug("receive_response_headers.complete", stack_info=False)
    logging.getLogger().error("root %s", {"nested": [KEY]})
    text = shown(caplog.records) + "".join(caplog.text)
    assert text.count("[redacted]") >= 4
    assert_clean(text)


def test_a_handler_added_after_install_sees_only_redacted_records() -> None:
    install_log_filter()
    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(self.format(record) + repr(record.args))

    logger = logging.getLogger("late.handler.child")
    handler = Keep()
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("key=%s", KEY)
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    assert seen == ["key=[redacted]None"]


def test_a_warning_a_library_shows_carries_no_key() -> None:
    """What Python prints for a warning, and what logging.captureWarnings logs, are redacted."""
    program = f"""
import logging, warnings
from langchain_jev.models import JevDecisionModel
JevDecisionModel(api_key={KEY!r}, base_url="http://127.0.0.1:9")
warnings.warn("the server echoed {KEY}", UserWarning)
logging.captureWarnings(True)
logging.basicConfig()
warnings.warn("echoed again {KEY}", RuntimeWarning)
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "the server echoed [redacted]" in done.stderr and "echoed again [redacted]" in done.stderr
    assert_clean(done.stderr)


# ----------------------------------------------------------------------- the chat path


class EchoingError(Exception):
    """A provider-style error: a message, a body and the HTTP response it came with."""

    def __init__(self, message: str, *, body: Any, response: httpx.Response) -> None:
        super().__init__(message)
        self.body = body
        self.response = response
        self.request_id = KEY


class RefusingChatModel(BaseChatModel):
    """A chat model whose provider refuses the key and echoes it everywhere, as a hostile gateway would."""

    @property
    def _llm_type(self) -> str:
        return "refusing"

    def _error(self) -> EchoingError:
        request = httpx.Request("POST", "http://gateway.test/v1/chat", headers={"Authorization": f"Bearer {KEY}"})
        response = httpx.Response(
            401, headers={"x-echo": KEY}, content=json.dumps({"error": KEY}).encode(), request=request
        )
        cause = ConnectionError(f"upstream refused {KEY}")
        error = EchoingError(f"401: bad key {KEY}", body={"error": {"key": KEY}}, response=response)
        error.__cause__ = cause
        return error

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        raise self._error()

    async def _agenerate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        raise self._error()


@MODES
async def test_a_chat_providers_error_out_of_judge_carries_no_key(mode: str) -> None:
    judge = JevJudge(criteria(), model=ChatModelDecisionModel(RefusingChatModel(), strategy="structured"))
    with pytest.raises(EchoingError) as caught:
        await run(judge, mode)
    error = caught.value
    assert str(error) == "401: bad key [redacted]" and error.body == {"error": {"key": "[redacted]"}}
    assert error.response.request.headers["authorization"] == "Bearer [redacted]"  # our own key, sent by us
    assert_clean(everything_of(error))


class _Reply(pydantic.BaseModel):
    tokens: int


class ValidatingChatModel(RefusingChatModel):
    """A provider whose reply parsing fails in pydantic on a body that echoes the key."""

    def _error(self) -> Exception:  # type: ignore[override]
        try:
            _Reply.model_validate({"tokens": f"echo {KEY}"})
        except pydantic.ValidationError as error:
            return error
        raise AssertionError("the reply validated")


@MODES
async def test_a_pydantic_validation_error_out_of_judge_is_a_redacted_copy_of_its_type(mode: str) -> None:
    judge = JevJudge(criteria(), model=ChatModelDecisionModel(ValidatingChatModel(), strategy="structured"))
    with pytest.raises(pydantic.ValidationError) as caught:
        await run(judge, mode)
    error = caught.value
    assert error.errors()[0]["input"] == "echo [redacted]" and error.title == "_Reply"
    assert_clean(everything_of(error) + repr(error.errors()))


def test_redact_error_rebuilds_what_pydantic_keeps_and_stands_in_for_what_it_cannot() -> None:
    try:
        _Reply.model_validate({"tokens": KEY})
    except pydantic.ValidationError as error:
        rebuilt = redact_error(error)
    assert isinstance(rebuilt, pydantic.ValidationError) and rebuilt.errors()[0]["input"] == "[redacted]"

    class Frozen(Exception):
        def __str__(self) -> str:
            return f"frozen {KEY}"

    stood_in = redact_error(Frozen())
    assert type(stood_in).__name__ == "RedactedError" and str(stood_in) == "Frozen: frozen [redacted]"


def test_redact_data_copies_only_what_holds_a_key() -> None:
    clean = {"a": [1, 2.5, None, True, {"b": "text"}]}
    assert redact_data(clean) is clean
    dirty = {KEY: [("label", KEY)], "n": 3}
    assert redact_data(dirty) == {"[redacted]": [("label", "[redacted]")], "n": 3}
    assert dirty[KEY] == [("label", KEY)]  # the original is left as it was
    deep: Any = KEY
    for _ in range(200):
        deep = [deep]
    assert_clean(json.dumps(redact_data(deep)))  # too deep to search: replaced whole
    assert redact_error(ValueError(b"bytes " + KEY.encode())).args == (b"bytes [redacted]",)


def test_two_keys_that_end_alike_are_each_redacted_whole() -> None:
    """A key's last 16 characters are one of its forms; another key ending with them is still redacted whole."""
    from langchain_jev.models._secrets import redact

    remember_secret("sk-first-account-0123456789abcdef")
    remember_secret("sk-second-0123456789abcdef")
    for key in ("sk-first-account-0123456789abcdef", "sk-second-0123456789abcdef"):
        assert redact(f"Bearer {key} is invalid") == "Bearer [redacted] is invalid"
        assert redact_data({"detail": key}) == {"detail": "[redacted]"}
