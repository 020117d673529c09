"""The command line against a hostile server: no echoed key written anywhere, no body read without bound.

One hostile loopback server for the module; each test runs ``langchain-jev judge``
as a user would (a subprocess, the key in ``TYPESAFE_API_KEY``) on three rows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import FAKE_KEY, judge_args, numbered_rows, read_results, run_cli, write_jsonl
from tests.support.hostile_server import HostileServer

pytestmark = pytest.mark.slow  # a fault matrix: `-m 'not slow'` leaves it out

FORMS = (FAKE_KEY, FAKE_KEY[-16:])


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    with HostileServer(interval=0.2, give_up_after=30.0) as server:
        yield server


def _run(tmp_path: Path, url: str, *options: str) -> tuple[int, str, list[dict[str, object]], float]:
    data = write_jsonl(tmp_path / "rows.jsonl", numbered_rows(3))
    out = tmp_path / "results.jsonl"
    started = time.monotonic()
    done = run_cli(*judge_args(data, url, "--out", out, "--quiet", *options), timeout=90)
    took = time.monotonic() - started
    written = out.read_text(encoding="utf-8") if out.exists() else ""
    for form in FORMS:
        assert form not in written and form not in done.stderr and form not in done.stdout, form
    return done.returncode, done.stderr, read_results(out) if out.exists() else [], took


def test_a_server_echoing_the_key_in_every_field_gets_it_into_no_results_record(
    hostile: HostileServer, tmp_path: Path
) -> None:
    _, _, records, _ = _run(tmp_path, hostile.url("echo"))
    assert len(records) == 3
    assert all(record["model"] == "[redacted]" for record in records)  # the server's model name was the key
    assert any("[redacted]" in json.dumps(record["findings"]) for record in records)


def test_an_error_body_echoing_the_key_is_written_redacted(hostile: HostileServer, tmp_path: Path) -> None:
    _, _, records, _ = _run(tmp_path, hostile.url("echo-invalid"))
    assert records and all("error" in record for record in records)


@pytest.mark.parametrize("behaviour", ["endless", "gzip-bomb", "huge"])
def test_an_endless_or_bombing_body_makes_each_row_an_error_naming_the_limit(
    hostile: HostileServer, tmp_path: Path, behaviour: str
) -> None:
    code, _, records, _ = _run(tmp_path, hostile.url(behaviour))
    assert code != 0 and len(records) == 3
    for record in records:
        assert record["passed"] is False
        assert str(record["error"]).startswith("ResponseTooLargeError: ")
        assert "larger than the limit of 16 MiB (max_response_bytes=16777216)" in str(record["error"])


def test_a_trickling_body_is_cut_off_at_the_timeout_as_a_deadline(
    hostile: HostileServer, tmp_path: Path
) -> None:
    code, _, records, took = _run(tmp_path, hostile.url("slow-body"), "--timeout", "1")
    assert code != 0 and len(records) == 3
    assert all(str(record["error"]).startswith("TypeSafeAPITimeoutError") for record in records)
    assert took < 30  # each request ends at its 1 s deadline (the trickle would last 15 minutes)
