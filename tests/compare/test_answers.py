"""Pairing two runs' answers (`answer_pairs`, pure) and judging them head to head in Python, sync and
async: the shared input, refusals naming the row, row order, one request per row, a failed request an error."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from langchain_jev._errors import ComparisonError
from langchain_jev.compare import HeadToHead, acompare_answers, compare_answers, join_rows
from langchain_jev.compare._answers import answer_pairs, shared_input
from langchain_jev.pairwise import pairwise_judge
from langchain_jev.testing import ScriptedDecisionModel

GOOD, VAGUE = "Rain from 9am, 8 mm.", "Maybe."


def records(rows: list[int], prefix: str = "k") -> list[dict[str, Any]]:
    return [{"row": n, "key": f"{prefix}{n}", "id": f"q{n}", "passed": True, "findings": []} for n in rows]


def states(answers: dict[int, str], **extra: Any) -> dict[int, dict[str, Any]]:
    return {n: {"user_question": f"Rain in town {n}?", "assistant_answer": a, **extra} for n, a in answers.items()}


def pairs_of(a_answers: dict[int, str], b_answers: dict[int, str], order: list[int] | None = None) -> Any:
    order = order or sorted(a_answers)
    joined = join_rows(records(order), records(sorted(b_answers), "j"), on="id")
    return answer_pairs(joined, ((states(a_answers), None), (states(b_answers), None)))


def test_pairs_come_in_row_order_whatever_order_a_run_wrote_its_rows_in() -> None:
    """A run writes rows as they finish: the comparison followed the file's order (3, 1, 2)."""
    pairs = pairs_of({1: GOOD, 2: VAGUE, 3: GOOD}, {1: VAGUE, 2: GOOD, 3: VAGUE}, order=[3, 1, 2])
    assert [p.row for p in pairs] == [1, 2, 3]
    assert pairs[0].answers == (GOOD, VAGUE)


@pytest.mark.parametrize(
    ("b_state", "message"),
    [
        ({"user_question": "Snow?", "assistant_answer": GOOD}, "row 1 (q1): the user_question of A and B differ"),
        ({"user_question": "Rain in town 1?", "assistant_answer": GOOD, "expected_output": "No."},
         None),  # only one side has an expected output: it is used
        ({"user_question": "Rain in town 1?"}, "row 1 (q1): B has no answer to compare"),
        ({"user_question": "Rain in town 1?", "assistant_answer": GOOD, "comparison_1": "x"}, None),
    ],
)
def test_a_row_that_cannot_be_compared_is_refused_by_name(b_state: dict[str, Any], message: str | None) -> None:
    joined = join_rows(records([1]), records([1], "j"), on="id")
    a_states = states({1: VAGUE})
    if message is None:
        (pair,) = answer_pairs(joined, ((a_states, None), ({1: b_state}, None)))
        assert "comparison_1" not in pair.shared  # a field only B has is B's own
        return
    with pytest.raises(ComparisonError, match=re.escape(message)):
        answer_pairs(joined, ((a_states, None), ({1: b_state}, None)))


def test_a_field_both_rows_hold_that_would_clash_with_the_comparison_is_refused() -> None:
    joined = join_rows(records([1]), records([1], "j"), on="id")
    both = ((states({1: VAGUE}, comparison_2="x"), None), (states({1: GOOD}, comparison_2="x"), None))
    with pytest.raises(ComparisonError, match="row 1 \\(q1\\): the shared input of a comparison must not carry"):
        answer_pairs(joined, both)


def test_a_missing_state_says_why() -> None:
    joined = join_rows(records([1, 2]), records([1, 2], "j"), on="id")
    with pytest.raises(ComparisonError, match="row 2 \\(q2\\): B's judged state cannot be recovered: the row moved"):
        answer_pairs(joined, ((states({1: GOOD, 2: GOOD}), None), (states({1: VAGUE}), "the row moved")))


def test_identical_answers_on_every_row_are_refused_but_some_are_compared() -> None:
    with pytest.raises(ComparisonError, match="same answer on every row \\(2\\)"):
        pairs_of({1: GOOD, 2: VAGUE}, {1: GOOD, 2: VAGUE})
    assert len(pairs_of({1: GOOD, 2: VAGUE}, {1: GOOD, 2: GOOD})) == 2


def test_the_shared_input_keeps_what_both_rows_hold_alike_and_both_runs_documents() -> None:
    a = {"user_question": "Q", "assistant_answer": "a", "supporting_context": ["d1", "d2"], "tool_calls": [1],
         "lang": "en", "model": "gpt"}
    b = {"user_question": "Q", "assistant_answer": "b", "supporting_context": ["d2", "d3"], "tool_calls": [2],
         "lang": "en", "model": "claude"}
    assert shared_input(a, b) == {"user_question": "Q", "supporting_context": ["d1", "d2", "d3"], "lang": "en"}


def prefers(good: str) -> Any:
    def choose(state: dict[str, Any], question: Any) -> str:
        pair = state["comparison_1" if "`comparison_1`" in question.instructions else "comparison_2"]
        return "answer_1" if pair["answer_1"] == good else "answer_2"

    return choose


def judge_and_model(fail_on: str | None = None) -> Any:
    script: dict[str, Any] = {f"{name}__{i}": prefers(GOOD) for name in ("helpful", "specific") for i in (1, 2)}
    model = ScriptedDecisionModel(script)
    if fail_on is not None:
        original = prefers(GOOD)

        def flaky(state: dict[str, Any], question: Any) -> str:
            if fail_on in state["user_question"]:
                raise ConnectionError("down")
            return original(state, question)

        model = ScriptedDecisionModel({**script, "helpful__1": flaky})
    judge = pairwise_judge({"helpful": "Which helps more?", "specific": "Which gives times?"}, model=model)
    return judge, model


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_compare_answers_makes_one_request_per_row_and_a_failure_is_that_row_s_error(asynchronous: bool) -> None:
    judge, model = judge_and_model(fail_on="town 2")
    pairs = pairs_of({1: VAGUE, 2: GOOD, 3: GOOD}, {1: GOOD, 2: VAGUE, 3: VAGUE})

    if asynchronous:
        result = asyncio.run(acompare_answers(judge, pairs, concurrency=2))
    else:
        result = compare_answers(judge, pairs, concurrency=2)

    assert isinstance(result, HeadToHead) and model.calls == 3
    assert [r.verdict.preferred.value if r.verdict else r.error for r in result.rows] == [
        "B", "ConnectionError: down", "A"
    ]
    helpful = result.criteria[0]
    assert (helpful.a, helpful.b, helpful.errors) == (1, 1, 1) and result.errors == 1
    assert result.rows[1].record() == {"row": 2, "key": "k2", "key_b": "j2", "id": "q2", "error": "ConnectionError: down"}


def test_a_jury_s_head_to_head_record_keeps_who_said_what_and_a_split_is_undecided() -> None:
    import json

    from langchain_jev.datasets.results import record_line
    from langchain_jev.models import JuryDecisionModel
    from langchain_jev.report._head_to_head_page import render_head_to_head

    def member(name: str, prefers_b: bool) -> ScriptedDecisionModel:
        def choose(state: dict[str, Any], question: Any) -> str:
            pair = state["comparison_1" if "`comparison_1`" in question.instructions else "comparison_2"]
            wanted = GOOD if prefers_b else VAGUE
            return "answer_1" if pair["answer_1"] == wanted else "answer_2"

        return ScriptedDecisionModel({"helpful__1": choose, "helpful__2": choose}, model=name)

    jury = JuryDecisionModel([member("jev", True), member("gpt", True), member("claude", False)], disagreement=0.0)
    judge = pairwise_judge({"helpful": "Which helps more?"}, model=jury)
    result = compare_answers(judge, pairs_of({1: VAGUE}, {1: GOOD}))
    (row,) = result.rows
    assert "1 row compared head to head (joined by key), 3 requests each (one per jury member)" in result.table()
    assert "1 jury split (the members disagreed beyond the jury's bound)" in result.table()
    helpful = result.criteria[0]
    assert (helpful.split, helpful.lean, helpful.position_bias, helpful.inconclusive) == (1, 0, 0, 1)
    page = render_head_to_head(result, judged_by="judge.yaml")
    assert "Judged head to head by judge.yaml: 3 requests per row (one per jury member)" in page

    record = json.loads(record_line(row.record()))
    (finding,) = record["findings"]
    assert finding["preference"] == "INCONCLUSIVE" and finding["members"] == {"jev": "B", "gpt": "B", "claude": "A"}
    assert finding["detail"].endswith("dissent: A better for claude; B better for jev, gpt")
    panel = record["panel"]
    assert sorted(panel["members"]) == ["claude", "gpt", "jev"] and panel["failed"] == {}
    assert panel["members"]["claude"]["answers"]["helpful__1"]["choice"] == "answer_1"  # VAGUE, shown first


def test_a_page_of_many_rows_keeps_the_undecided_and_failed_ones_and_says_how_many_were_left_out() -> None:
    import json

    from langchain_jev.compare import HeadToHeadRow
    from langchain_jev.pairwise import PairwiseFinding, PairwiseVerdict, Preference
    from langchain_jev.report._head_to_head_page import render_head_to_head

    pairs = pairs_of(dict.fromkeys(range(1, 11), GOOD), dict.fromkeys(range(1, 11), VAGUE))
    won = PairwiseVerdict((PairwiseFinding("helpful", Preference.A, (Preference.A, Preference.A), None, ""),), None)
    odd = PairwiseVerdict((PairwiseFinding("helpful", Preference.INCONCLUSIVE, (Preference.A, Preference.B), None,
                                           ""),), None)
    rows = [HeadToHeadRow(p, odd if p.row == 7 else None if p.row == 9 else won, "down") for p in pairs]
    page = render_head_to_head(HeadToHead(("A", "B"), ["helpful"], rows), limit=4)
    data = json.loads(page.split('id="jev-data">', 1)[1].split("</script>", 1)[0])
    assert [r["n"] for r in data["rows"]] == [1, 2, 7, 9] and data["left_out"] == 6
    assert "6 rows are left out" in page
