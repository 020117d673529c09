"""The dataset core's parts: token bucket, readers, row mapping, results file, tally, exit codes, transport."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from langchain_jev.datasets import _readers as cli_readers
from langchain_jev.datasets._exit_codes import exit_code
from langchain_jev.datasets._pacing import TokenBucket
from langchain_jev.datasets._readers import DatasetError, count_rows, detect_format, read_rows
from langchain_jev.datasets._readers import json_array as json_reader
from langchain_jev.datasets._readers import jsonl as jsonl_reader
from langchain_jev.datasets._readers import rows as row_limits
from langchain_jev.datasets._rows import FieldMap, map_row, row_key
from langchain_jev.datasets._tally import Tally, format_table, summary_lines
from langchain_jev.datasets.results import ResultsError, resume_results

# ----------------------------------------------------------------------------- token bucket


@settings(max_examples=200, deadline=None)
@given(
    rate=st.floats(min_value=0.5, max_value=500),
    arrivals=st.lists(st.floats(min_value=0, max_value=2), min_size=1, max_size=60),
    lateness=st.lists(st.floats(min_value=0, max_value=3), min_size=1, max_size=60),
)
def test_token_bucket_never_lets_two_requests_leave_closer_than_its_rate(
    rate: float, arrivals: list[float], lateness: list[float]
) -> None:
    """However late each caller wakes to ask again (a busy machine), the tokens taken are 1 / rate apart."""
    bucket = TokenBucket(rate)
    asking = sorted((sum(arrivals[: i + 1]), i) for i in range(len(arrivals)))
    taken: list[float] = []
    tries = 0
    while asking:
        now, caller = asking.pop(0)
        wait = bucket.take(now)
        assert wait >= 0
        if wait == 0:
            taken.append(now)
            continue
        tries += 1
        asking.append((now + wait + lateness[tries % len(lateness)], caller))
        asking.sort()
    assert len(taken) == len(arrivals)
    for earlier, later in itertools.pairwise(taken):
        assert later - earlier >= 1 / rate - 1e-6


def test_token_bucket_does_not_delay_requests_already_spaced() -> None:
    bucket = TokenBucket(4.0)
    assert [bucket.take(t * 0.25) for t in range(10)] == [0.0] * 10


def test_token_bucket_allows_a_burst_up_to_its_capacity_and_promises_nothing_ahead() -> None:
    bucket = TokenBucket(1.0, capacity=3)
    assert [bucket.take(0.0) for _ in range(5)] == [0.0, 0.0, 0.0, 1.0, 1.0]
    assert [bucket.take(5.0) for _ in range(4)] == [0.0, 0.0, 0.0, 1.0]  # after a pause: the burst, no more


@pytest.mark.parametrize("rate", [0, -1, float("inf"), float("nan")])
def test_token_bucket_refuses_a_rate_that_is_not_positive(rate: float) -> None:
    with pytest.raises(ValueError, match="rate must be a positive number"):
        TokenBucket(rate)


# ----------------------------------------------------------------------------- readers


def test_a_json_array_is_streamed_across_chunk_boundaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [{"id": i, "answer": "x" * (i * 7 % 40), "nested": {"list": [1, 2, {"a": "]},"}]}} for i in range(30)]
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    monkeypatch.setattr(json_reader, "_CHUNK", 17)
    read = list(read_rows(path, "json"))
    assert [r.data for r in read] == rows
    lines = path.read_text().splitlines()
    for raw in read:
        assert lines[raw.line - 1].strip() == "{"  # each row starts on the line of its brace
    assert count_rows(path, "json") == 30


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"answer": "not an array"}', "must be an array"),
        ('[{"answer": "a"} {"answer": "b"}]', "expected ',' or ']'"),
        ('[{"answer": "a"}, {"answer": ', "cannot be read further"),
    ],
)
def test_a_broken_json_array_is_a_dataset_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "rows.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DatasetError, match=message):
        list(read_rows(path, "json"))


def test_csv_rows_know_the_line_they_start_on(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text('id,answer\n1,"two\nlines"\n\n2,plain\n3,a,extra\n', encoding="utf-8")
    read = list(read_rows(path, "csv"))
    assert [(r.number, r.line, r.data) for r in read[:2]] == [
        (1, 2, {"id": "1", "answer": "two\nlines"}),
        (2, 5, {"id": "2", "answer": "plain"}),
    ]
    assert read[2].problem == "has 3 cells but the header names 2"
    assert read[2].line == 6


def test_formats_are_told_by_extension_or_content(tmp_path: Path) -> None:
    array, lines = tmp_path / "a.json", tmp_path / "b.json"
    array.write_text(" [ ]", encoding="utf-8")
    lines.write_text('{"a": 1}\n', encoding="utf-8")
    assert (detect_format(array), detect_format(lines), detect_format("x.csv")) == ("json", "jsonl", "csv")
    with pytest.raises(DatasetError, match="unknown format"):
        detect_format("x.csv", "xml")


def test_a_row_that_is_not_utf8_is_reported_and_the_rest_are_read(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"answer": "a"}\n{"answer": "\xff\xfe"}\n{"answer": "b"}\n')
    read = list(read_rows(path, "jsonl"))
    assert [r.data for r in read] == [{"answer": "a"}, None, {"answer": "b"}]
    assert read[1].line == 2 and read[1].problem == "is not valid UTF-8 text: invalid start byte at byte 13"


DEEP = '{"answer": "a", "x": ' + "[" * 5000 + "]" * 5000 + "}"
SURROGATE = '{"answer": "a\\ud800b"}'
BAD_ROWS = {  # text of a JSON row -> the problem it is reported with
    DEEP: "nests objects and arrays deeper than 200 levels",
    '{"answer": "a", "x": ' + "[" * 300 + "]" * 300 + "}": "nests objects and arrays deeper than 200 levels",
    SURROGATE: "holds text that is not valid UTF-8 (a lone surrogate or an undecodable byte) at answer",
    '{"answer": "a", "k\\udc00": 1}': "holds text that is not valid UTF-8 (a lone surrogate or an undecodable byte) in a key",
    '{"answer": "' + "x" * 30_000 + '"}': "is larger than 20000 characters, the most a row may hold",
}


def _dataset(path: Path, fmt: str, rows: list[str]) -> Path:
    if fmt == "jsonl":
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    else:
        path.write_text("[\n" + ",\n".join(rows) + "\n]\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
@pytest.mark.parametrize(("row", "problem"), BAD_ROWS.items(), ids=["5000 deep", "300 deep", "surrogate", "surrogate key", "too large"])
def test_each_bad_row_is_reported_by_line_and_every_other_row_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, row: str, problem: str
) -> None:
    monkeypatch.setattr(row_limits, "MAX_ROW_CHARS", 20_000)
    monkeypatch.setattr(json_reader, "_CHUNK", 256)
    good = [json.dumps({"answer": f"a{i}", "n": [i, {"deep": [1]}]}) for i in range(3)]
    path = _dataset(tmp_path / f"rows.{fmt}", fmt, [good[0], row, good[1], row, good[2]])
    read = list(read_rows(path, fmt))
    assert [r.data for r in read if r.data is not None] == [json.loads(g) for g in good]
    bad = [r for r in read if r.data is None]
    first = 2 if fmt == "json" else 1  # the array's "[" has a line of its own
    assert [(r.number, r.line) for r in bad] == [(2, first + 1), (4, first + 3)]
    assert all(r.problem is not None and r.problem.startswith(problem) for r in bad), bad
    assert count_rows(path, fmt) == 5


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv"])
def test_one_row_size_limit_holds_for_every_format(tmp_path: Path, fmt: str) -> None:
    limit = cli_readers.MAX_ROW_CHARS
    rows = [{"id": "fits", "answer": "x" * (200 * 1024)}, {"id": "too large", "answer": "y" * (limit + 10)}]
    path = tmp_path / f"rows.{fmt}"
    if fmt == "csv":
        path.write_text("id,answer\n" + "".join(f"{r['id']},{r['answer']}\n" for r in rows), encoding="utf-8")
    else:
        _dataset(path, fmt, [json.dumps(r) for r in rows])
    read = list(read_rows(path, fmt))
    assert read[0].data == rows[0]  # a 200 KiB cell is read in every format
    assert read[1].data is None and read[1].problem is not None
    assert "larger than 16 Mi characters, the most a row may hold" in read[1].problem


def test_a_large_json_array_item_is_decoded_in_linear_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    size = 4 << 20
    path = _dataset(tmp_path / "rows.json", "json", [json.dumps({"answer": "z" * size}), '{"answer": "b"}'])
    scanned: list[int] = []

    class Counting(json.JSONDecoder):
        def raw_decode(self, s: str, idx: int = 0) -> tuple[Any, int]:
            scanned.append(len(s) - idx)
            return super().raw_decode(s, idx)

    monkeypatch.setattr(json_reader.json, "JSONDecoder", Counting)
    read = list(read_rows(path, "json"))
    assert [len(r.data["answer"]) for r in read if r.data] == [size, 1]
    assert sum(scanned) < 4 * size  # doubling the buffer: each retry reads as much again


@pytest.mark.parametrize("depth", [300, 5000])
@pytest.mark.parametrize("column", ["extra", "expected", "tool_calls"])
def test_a_csv_cell_of_json_nested_too_deeply_is_that_rows_problem(depth: int, column: str) -> None:
    deep = "[" * depth + "]" * depth
    mapped = map_row({"answer": "a", column: deep}, FieldMap(), from_csv=True)
    assert mapped.input is None
    assert mapped.problem == "a cell nests objects and arrays deeper than 200 levels"


# ----------------------------------------------------------------------------- row mapping


def test_a_row_maps_to_the_judge_input() -> None:
    row = {
        "id": "r1",
        "question": "Q?",
        "answer": "A.",
        "expected": {"k": 1},
        "context": ["doc"],
        "tool_calls": [{"name": "search", "arguments": {"q": "x"}}],
        "lang": "en",
        "debug": "drop me",
    }
    mapped = map_row(row, FieldMap.of(ignored=["debug"]))
    assert mapped.row_id == "r1"
    assert mapped.input is not None
    assert mapped.input.to_state() == {
        "user_question": "Q?",
        "assistant_answer": "A.",
        "expected_output": {"k": 1},
        "supporting_context": ["doc"],
        "tool_calls": [{"name": "search", "arguments": {"q": "x"}, "result": None}],
        "lang": "en",
    }


def test_state_names_work_as_columns_and_given_names_replace_the_defaults() -> None:
    assert map_row({"user_question": "Q?", "assistant_answer": "A."}, FieldMap()).input.question == "Q?"  # type: ignore[union-attr]
    custom = FieldMap.of(answer="response")
    mapped = map_row({"answer": "not this", "response": "this"}, custom)
    assert mapped.input is not None
    assert mapped.input.answer == "this"
    assert mapped.input.fields == {"answer": "not this"}


def test_csv_cells_are_read_as_json_where_they_hold_json() -> None:
    cells = {
        "answer": "42",
        "context": '["a", "b"]',
        "tool_calls": '[{"name": "search"}]',
        "search_required": "true",
        "count": "3",
        "label": "plain text",
        "zip": "007",
    }
    mapped = map_row(cells, FieldMap(), from_csv=True)
    assert mapped.input is not None
    assert mapped.input.answer == "42"
    assert mapped.input.context == ("a", "b")
    assert [c.name for c in mapped.input.tool_calls] == ["search"]
    assert dict(mapped.input.fields) == {"search_required": True, "count": 3, "label": "plain text", "zip": "007"}


@pytest.mark.parametrize(
    ("row", "required", "problem"),
    [
        ({"question": "Q?"}, ["assistant_answer"], "missing 'answer' (or 'assistant_answer', 'output', 'response', ...), which the judge needs"),
        ({"answer": "A"}, ["assistant_answer", "search_required"], "missing 'search_required', which the judge needs"),
        ({"answer": ["not", "text"]}, [], "'answer' must be text, got list"),
        ({"answer": "A", "tool_calls": "search"}, [], "'tool_calls' must be an array"),
        ({"answer": "A", "tool_calls": [{"no": "name"}]}, [], "a tool call must be an object with a string 'name'"),
        ({"answer": "A", "context": [1]}, [], "context[0] must be a string"),
    ],
)
def test_rows_that_cannot_be_judged_say_why(row: dict[str, Any], required: list[str], problem: str) -> None:
    mapped = map_row(row, FieldMap(), required)
    assert mapped.input is None
    assert mapped.problem is not None and problem in mapped.problem


def test_the_row_key_changes_with_the_content() -> None:
    assert row_key({"a": 1, "b": [1, 2]}) == row_key({"b": [1, 2], "a": 1})
    assert row_key({"a": 1}) != row_key({"a": 2})


# ----------------------------------------------------------------------------- results file


def _record(row: int, **extra: Any) -> str:
    return json.dumps({"row": row, "line": row, "key": f"k{row}", "passed": True, "findings": [], **extra})


def test_resume_keeps_verdicts_and_drops_errors_and_a_cut_short_line(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(
        "\n".join([_record(1), _record(2, error="TypeSafeAPIConnectionError: down"), _record(3), _record(1)])
        + "\n"
        + _record(4)[:20],
        encoding="utf-8",
    )
    seen: list[int] = []
    resumed = resume_results(path, lambda record: seen.append(record["row"]))
    assert resumed.done == {1: "k1", 3: "k3"}
    assert (resumed.dropped_errors, resumed.truncated) == (1, True)
    assert seen == [1, 3]
    assert path.read_text(encoding="utf-8") == _record(1) + "\n" + _record(3) + "\n"


def test_resume_keeps_a_complete_last_line_without_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(_record(1) + "\n" + _record(2), encoding="utf-8")
    resumed = resume_results(path)
    assert sorted(resumed.done) == [1, 2]
    assert not resumed.truncated
    assert path.read_text(encoding="utf-8").endswith(_record(2) + "\n")


@pytest.mark.parametrize("bad", ["not json", '{"no": "row"}'])
def test_resume_refuses_a_file_that_is_not_a_results_file(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "results.jsonl"
    original = bad + "\n" + _record(1) + "\n"
    path.write_text(original, encoding="utf-8")
    with pytest.raises(ResultsError, match=r"results.jsonl:1: "):
        resume_results(path)
    assert path.read_text(encoding="utf-8") == original  # left as it was


# ----------------------------------------------------------------------------- report


def _verdict(passed: bool, **outcomes: str) -> dict[str, Any]:
    return {
        "passed": passed,
        "findings": [{"name": n, "kind": "noul", "outcome": o} for n, o in outcomes.items()],
    }


def test_the_table_counts_outcomes_per_criterion_and_rows_overall() -> None:
    tally = Tally([("grounded", "noul"), ("helpful", "score")])
    tally.add(_verdict(True, grounded="PASSED", helpful="PASSED"))
    tally.add(_verdict(False, grounded="FAILED", helpful="INCONCLUSIVE"))
    tally.add(_verdict(True, grounded="NOT_APPLICABLE", helpful="PASSED"))
    tally.add({"passed": False, "error": "TimeoutError: slow"})
    assert format_table(tally).splitlines() == [
        "criterion  kind   passed  failed  inconcl.  error  n/a  pass rate",
        "grounded   noul        1       1         0      0    1      50.0%",
        "helpful    score       2       0         1      0    0      66.7%",
        "overall    rows        2       1                1           50.0%",
    ]
    lines = summary_lines(tally, bad_rows=1, fail_under=0.6)
    assert lines == [
        "4 rows: 2 passed, 1 failed, pass rate 50.0%",
        "1 row could not be judged (TimeoutError x1): recorded as errors and counted as not passed",
        "the first: TimeoutError: slow",
        "1 bad input row skipped (named above); not in the pass rate",
        "FAIL: pass rate 50.0% is under --fail-under 60.0%",
    ]


def test_a_criterion_that_never_applied_has_no_pass_rate() -> None:
    tally = Tally([("grounded", "noul")])
    tally.add(_verdict(True, grounded="NOT_APPLICABLE"))
    assert format_table(tally).splitlines()[1].split()[-1] == "-"


@pytest.mark.parametrize(
    ("bad", "rate", "fail_under", "errors", "code"),
    [
        (0, 1.0, None, 0, 0),
        (0, 0.5, 0.6, 0, 1),
        (0, 0.6, 0.6, 0, 0),
        (1, 1.0, 0.6, 0, 2),
        (1, 0.1, 0.6, 3, 2),
        (0, 0.9, None, 1, 3),
        (0, 0.4, 0.6, 1, 1),
        (0, None, 0.6, 0, 1),
    ],
)
def test_exit_codes(bad: int, rate: float | None, fail_under: float | None, errors: int, code: int) -> None:
    assert exit_code(bad, rate, fail_under, errors) == code


# ----------------------------------------------------------------------------- transport and pacing


async def test_the_sharded_transport_spreads_requests_over_its_pools() -> None:
    import asyncio

    import httpx2

    from langchain_jev.datasets._transport import ShardedTransport
    from langchain_jev.testing.server import JevServer

    transport = ShardedTransport(shards=4, connections=16)
    used: list[int] = []
    for index, pool in enumerate(transport.pools):
        original = pool.handle_async_request

        async def counted(request: httpx2.Request, original: Any = original, index: int = index) -> httpx2.Response:
            used.append(index)
            return await original(request)

        pool.handle_async_request = counted  # type: ignore[method-assign]
    body = {"state": {"marker": "x"}, "questions": {"ok": {"type": "noul", "instructions": "Ok?"}}}
    with JevServer({"ok": 0.7}, delay=0.1) as server:
        async with httpx2.AsyncClient(transport=transport) as client:
            replies = await asyncio.gather(
                *(
                    client.post(server.base_url + "/v1/systemone", json=body, headers={"Authorization": "Bearer k"})
                    for _ in range(16)
                )
            )
        assert server.peak_in_flight == 16
    assert [r.json()["answers"]["ok"]["noul"] for r in replies] == [0.7] * 16
    assert sorted(set(used)) == [0, 1, 2, 3]
    assert max(used.count(i) for i in range(4)) == 4  # the least busy pool takes the next request


async def test_cache_hits_do_not_wait_for_the_rate_limiter() -> None:
    import asyncio

    from langchain_core.decisions import Noul

    from langchain_jev.datasets._pacing import PacedDecisionModel, RateLimiter
    from langchain_jev.models import CachedDecisionModel, InMemoryCache
    from langchain_jev.testing import ScriptedDecisionModel

    inner = ScriptedDecisionModel({"ok": 0.9})
    # one request per 1000 s: only the first token is free
    model = CachedDecisionModel(PacedDecisionModel(inner=inner, limiter=RateLimiter(0.001)), InMemoryCache())
    request = {"state": "hi", "questions": {"ok": Noul(instructions="Ok?")}}
    first = await asyncio.wait_for(model.ainvoke(request), timeout=5)
    again = await asyncio.wait_for(model.ainvoke(request), timeout=5)
    assert (first.cache_hit, again.cache_hit, inner.calls) == (False, True, 1)
    other = {"state": "another", "questions": {"ok": Noul(instructions="Ok?")}}
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(model.ainvoke(other), timeout=0.3)  # a miss waits its turn


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.sampled_from(["a", "b", ",", '"', "\n", "\r\n", "\r", " ", "é"]), max_size=60))
def test_csv_records_are_split_as_the_csv_module_reads_them(pieces: list[str]) -> None:
    """The reader splits records by csv's own quoting rules before it parses them (to bound each one)."""
    import csv
    import io

    text = "".join(pieces)
    records = list(csv.reader(io.StringIO(text, newline="")))
    expected: list[Any] = []
    if records:
        names = [name.strip() for name in records[0]]
        for cells in records[1:]:
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) > len(names):
                expected.append(f"has {len(cells)} cells but the header names {len(names)}")
                continue
            expected.append({n: c for n, c in zip(names, cells, strict=False) if n and c != ""})
    got = [row.data if row.data is not None else row.problem for row in cli_readers.read_stream(io_bytes(text), "csv")]
    assert got == expected


def io_bytes(text: str) -> Any:
    import io

    return io.BytesIO(text.encode("utf-8"))


def test_a_jsonl_line_longer_than_a_read_is_decoded_piece_by_piece(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long line is read a piece at a time: characters cut between pieces, a bad byte and the row cap hold."""
    monkeypatch.setattr(jsonl_reader, "_LINE_PIECE", 7)  # every multi-byte character below straddles pieces
    monkeypatch.setattr(row_limits, "MAX_ROW_CHARS", 200)
    wide = {"answer": "naïve 東京 😀 " * 8, "id": 1}
    lines = [json.dumps(wide, ensure_ascii=False).encode(), b'{"answer": "' + b"x" * 40 + b"\xff" + b'"}',
             json.dumps({"answer": "y" * 300}).encode(), b'{"answer": "short"}', b'{"answer": "no newline at the end"}']  # fmt: skip
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b"\n".join(lines))
    read = list(read_rows(path, "jsonl"))
    assert [r.data for r in read] == [wide, None, None, {"answer": "short"}, {"answer": "no newline at the end"}]
    assert read[1].problem == "is not valid UTF-8 text: invalid start byte at byte 53"
    assert read[2].problem is not None and "larger than 200 characters" in read[2].problem
    assert [r.line for r in read] == [1, 2, 3, 4, 5] and count_rows(path, "jsonl") == 5
