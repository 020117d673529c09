"""A server that echoes the bearer token never gets it into an error, a log line or a results file."""

from __future__ import annotations

import json
import logging
import traceback
from pathlib import Path

import httpx2
import pytest
from langchain_core.decisions import Noul
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient, TypeSafeError

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.datasets.results import error_record
from langchain_jev.models import JevDecisionModel
from langchain_jev.models._secrets import redact
from tests.cli.helpers import FAKE_KEY, judge_args, numbered_rows, run_cli, write_jsonl
from tests.support.jev_server import Fault, JevServer

ECHOED = "sk-echo-Qw7Er5Ty3Ui1Op9As8DfGh"
NO_RETRY = RetryPolicy(max_retries=0)


def _echo(request: httpx2.Request) -> httpx2.Response:
    bearer = request.headers.get("authorization", "")
    return httpx2.Response(
        401,
        json={
            "error": {
                "message": f"invalid credentials: {bearer}",
                "type": "authentication_error",
                "key": bearer,
            }
        },
    )


def _judge(key: str, *, given: bool) -> JevJudge:
    model = JevDecisionModel(
        api_key=key if given else None,
        client=TypeSafeClient(api_key=key, transport=httpx2.MockTransport(_echo), retry=NO_RETRY),
        async_client=AsyncTypeSafeClient(api_key=key, transport=httpx2.MockTransport(_echo), retry=NO_RETRY),
    )
    return JevJudge([JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.5)], model=model)


async def _sync(judge: JevJudge) -> None:
    judge.judge("Hi?", "Hello!")


def _everything(error: BaseException) -> str:
    texts = [str(error), repr(error), "".join(traceback.format_exception(error))]
    texts += [str(getattr(error, name, "")) for name in ("message", "body")]
    return "\n".join(texts)


@pytest.mark.parametrize("given", [True, False], ids=["api_key=", "TYPESAFE_API_KEY"])
@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_an_echoed_key_is_redacted_from_the_error_and_the_logs(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, given: bool, mode: str
) -> None:
    if not given:
        monkeypatch.setenv("TYPESAFE_API_KEY", ECHOED)
    judge = _judge(ECHOED, given=given)
    caplog.set_level(logging.DEBUG)

    with pytest.raises(TypeSafeError) as caught:
        await (judge.ajudge("Hi?", "Hello!") if mode == "async" else _sync(judge))

    shown = _everything(caught.value)
    assert "invalid credentials: Bearer [redacted]" in shown
    assert ECHOED not in shown and ECHOED[-16:] not in shown
    assert ECHOED not in caplog.text
    record = error_record(1, 1, "k", None, caught.value)
    assert ECHOED not in record["error"] and "[redacted]" in record["error"]


def test_redact_covers_the_escaped_and_cut_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-prov/ider\\key+0123456789"
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", key)
    assert redact(json.dumps({"k": key})) == '{"k": "[redacted]"}'
    assert redact("ends with ..." + key[-16:]) == "ends with ...[redacted]"
    assert redact("nothing secret here") == "nothing secret here"


@pytest.mark.slow
def test_the_command_line_never_writes_an_echoed_key(tmp_path: Path) -> None:
    echo = {"error": {"message": f"invalid key Bearer {FAKE_KEY}", "type": "authentication_error"}}
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(3))
    out = tmp_path / "results.jsonl"
    with JevServer(lambda state, questions: {}, faults=[Fault(status=401, body=echo)] * 10) as server:
        done = run_cli(*judge_args(data, server.base_url, "--out", out))
    written = out.read_text(encoding="utf-8") if out.exists() else ""
    assert done.returncode != 0
    for text in (done.stdout, done.stderr, written):
        assert FAKE_KEY not in text
    assert "[redacted]" in done.stderr + written
