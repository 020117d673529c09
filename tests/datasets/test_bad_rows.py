"""One bad row never stops a dataset run: it is named by file:line and skipped, the rest are judged.

The command runs as users run it (a subprocess against the loopback Jev server),
over JSONL, a JSON array and CSV.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import WORKERS, judge_args, numbered_rows, read_results, run_cli, weather_answers
from tests.support.jev_server import JevServer

pytestmark = pytest.mark.slow  # subprocesses and a server


@pytest.fixture
def server() -> Iterator[JevServer]:
    with JevServer(weather_answers) as running:
        yield running


def _rows() -> list[bytes]:
    good = [json.dumps(row).encode() for row in numbered_rows(4)]
    return [
        good[0],
        b'{"id": 2, "question": "Q?", "answer": "caf\xe9 au lait"}',  # Latin-1, not UTF-8
        good[1],
        b'{"id": 4, "question": "Q?", "answer": "half a pair \\ud800"}',  # a lone surrogate
        good[2],
        b'{"id": 6, "question": "Q?", "answer": "deep", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}",
        good[3],
    ]


@WORKERS
@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_undecodable_surrogate_and_deep_rows_are_skipped_by_line_and_the_rest_judged(
    server: JevServer, tmp_path: Path, fmt: str, workers: str
) -> None:
    data = tmp_path / f"rows.{fmt}"
    rows = _rows()
    data.write_bytes(b"\n".join(rows) + b"\n" if fmt == "jsonl" else b"[\n" + b",\n".join(rows) + b"\n]\n")
    out = tmp_path / "results.jsonl"
    shift = 1 if fmt == "json" else 0

    done = run_cli(*judge_args(data, server.base_url, "--out", out, "--workers", workers))

    assert done.returncode == 2, done.stderr  # bad input
    undecodable = "is not valid UTF-8 text" if fmt == "jsonl" else "holds text that is not valid UTF-8"
    assert f"rows.{fmt}:{2 + shift}: row 2: {undecodable}" in done.stderr
    if undecodable == "holds text that is not valid UTF-8":  # row 4's problem is row 2's: said once, then counted
        assert (
            f"rows.{fmt}: 2 rows skipped in all for this (the first at line {2 + shift}): {undecodable}"
        ) in done.stderr
    else:
        assert f"rows.{fmt}:{4 + shift}: row 4: holds text that is not valid UTF-8" in done.stderr
    assert f"rows.{fmt}:{6 + shift}: row 6: nests objects and arrays deeper than 200 levels" in done.stderr
    judged = sorted(record["row"] for record in read_results(out))
    assert judged == [1, 3, 5, 7]
    assert "3 bad input rows skipped" in done.stdout


def test_a_csv_with_a_bad_byte_and_a_large_cell_judges_every_other_row(server: JevServer, tmp_path: Path) -> None:
    data = tmp_path / "rows.csv"
    big = "b" * (200 * 1024)  # over the csv module's default cell limit, well under the row limit
    data.write_bytes(
        b"id,question,answer\n"
        b"1,Q?,Fine and sunny from 9am.\n"
        b"2,Q?,caf\xe9\n"
        + f"3,Q?,{big}\n".encode()
        + b"4,Q?,Rain from 9am to 3pm.\n"
    )
    out = tmp_path / "results.jsonl"

    done = run_cli(*judge_args(data, server.base_url, "--out", out))

    assert done.returncode == 2, done.stderr
    assert "rows.csv:3: row 2: holds text that is not valid UTF-8" in done.stderr
    assert sorted(record["row"] for record in read_results(out)) == [1, 3, 4]
