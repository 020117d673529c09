"""Two answers that are the same text are equally good on every criterion, whatever the model's position bias.

A model that always prefers the answer shown first used to give A the win on every
criterion when both answers were the same (it was asked, and its bias decided). The
same text, or the same but for whitespace (after Unicode NFC: `normal_answer`), is
now a TIE on every criterion with no request at all; answers that differ in any
other character are still asked. Sync and async, on a jury, in a head-to-head
comparison of two runs and in LangSmith's ``evaluate_comparative``.
"""

from __future__ import annotations

import asyncio
import unicodedata
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from langchain_jev.compare import AnswerPair, RowPair, compare_answers
from langchain_jev.models import JuryDecisionModel
from langchain_jev.pairwise import Preference, pairwise_judge
from langchain_jev.pairwise._verdict import normal_answer, same_answers
from langchain_jev.testing import ScriptedDecisionModel

QUESTION = "Will I need an umbrella in Dublin tomorrow?"
ANSWER = "Yes: rain from 9am to 3pm, about 8 mm; take an umbrella."
CRITERIA = {"helpful": "Which answer helps the user more?", "specific": "Which gives times and amounts?"}


def first_shown() -> ScriptedDecisionModel:
    """A model with position bias: the answer shown first wins every question."""
    return ScriptedDecisionModel({f"{name}__{k}": "answer_1" for name in CRITERIA for k in (1, 2)})


def assert_tie_without_a_request(verdict: Any, model: ScriptedDecisionModel) -> None:
    assert [f.preference for f in verdict.findings] == [Preference.TIE] * len(CRITERIA)
    assert verdict.preferred is Preference.TIE
    assert verdict.response is None and model.calls == 0
    assert all("the answers are the same text" in f.detail for f in verdict.findings)


def test_identical_answers_are_a_tie_on_every_criterion_without_asking() -> None:
    model = first_shown()
    verdict = pairwise_judge(CRITERIA, model=model).compare(QUESTION, ANSWER, ANSWER)
    assert_tie_without_a_request(verdict, model)
    assert verdict.to_dict()["summary"] == "preferred=TIE [helpful=TIE, specific=TIE]"


def test_identical_answers_are_a_tie_asynchronously_too() -> None:
    model = first_shown()
    verdict = asyncio.run(pairwise_judge(CRITERIA, model=model).acompare(QUESTION, ANSWER, ANSWER))
    assert_tie_without_a_request(verdict, model)


def test_a_jury_is_not_asked_either() -> None:
    members = {"one": first_shown(), "two": first_shown()}
    jury = JuryDecisionModel(members)
    verdict = pairwise_judge(CRITERIA, model=jury).compare(QUESTION, ANSWER, ANSWER + "\n")
    assert [f.preference for f in verdict.findings] == [Preference.TIE, Preference.TIE]
    assert all(member.calls == 0 for member in members.values())


WORDS = st.lists(st.text(st.characters(blacklist_categories=("Zs", "Cc", "Zl", "Zp", "Cs")), min_size=1, max_size=8),
                 min_size=1, max_size=8)  # fmt: skip
SPACE = st.lists(st.sampled_from([" ", "\t", "\n", "\r\n", "\u00a0", "\u2003"]), min_size=1, max_size=3).map("".join)


@given(WORDS, st.lists(SPACE, min_size=9, max_size=9), st.sampled_from(["NFC", "NFD"]))
def test_answers_that_differ_only_in_whitespace_or_composition_are_a_tie_without_asking(
    words: list[str], spaces: list[str], form: str
) -> None:
    one = " ".join(words)
    other = spaces[0] + "".join(word + spaces[i + 1] for i, word in enumerate(words))
    other = unicodedata.normalize(form, other)
    assert same_answers(one, other)
    model = first_shown()
    assert_tie_without_a_request(pairwise_judge(CRITERIA, model=model).compare(QUESTION, one, other), model)


@given(WORDS, st.integers(min_value=0), st.characters(blacklist_categories=("Zs", "Cc", "Zl", "Zp", "Cs")))
def test_answers_that_differ_in_anything_else_are_asked(words: list[str], where: int, extra: str) -> None:
    one = " ".join(words)
    at = where % (len(one) + 1)
    other = one[:at] + extra + one[at:]
    if normal_answer(other) == normal_answer(one):  # the character composed into its neighbour
        return
    model = first_shown()
    verdict = pairwise_judge(CRITERIA, model=model).compare(QUESTION, one, other)
    assert model.calls == 1 and verdict.response is not None
    assert all(f.preference is Preference.INCONCLUSIVE for f in verdict.findings)  # the bias, found out


def test_a_head_to_head_comparison_asks_only_for_the_rows_whose_answers_differ() -> None:
    model = first_shown()
    judge = pairwise_judge(CRITERIA, model=model)
    pairs = [
        AnswerPair(RowPair(f"k{n}#1", {"row": n, "key": f"k{n}"}, {"row": n, "key": f"k{n}"}),
                   {"user_question": QUESTION}, answers)
        for n, answers in enumerate([(ANSWER, ANSWER), (ANSWER, "Maybe."), (ANSWER, f"  {ANSWER}\n")], 1)
    ]  # fmt: skip
    result = compare_answers(judge, pairs, concurrency=1)
    assert model.calls == 1
    assert [c.tie for c in result.criteria] == [2, 2]
    assert [c.position_bias for c in result.criteria] == [1, 1]
    record = result.rows[0].record()
    assert record["preferred"] == "TIE" and "model" not in record


@pytest.mark.filterwarnings("ignore:'upload_runs' parameter is in beta", "ignore::UserWarning")
def test_evaluate_comparative_scores_identical_runs_half_each_without_a_request() -> None:
    import uuid

    from langsmith import evaluate
    from langsmith.evaluation import evaluate_comparative
    from langsmith.schemas import Example

    from langchain_jev.pairwise import comparative_evaluators
    from tests.langsmith.helpers import ComparisonClient, offline_client

    examples = [Example(id=uuid.UUID(int=900), dataset_id=uuid.UUID(int=9), inputs={"question": QUESTION},
                        outputs={"answer": ANSWER})]  # fmt: skip
    client = ComparisonClient(examples)
    projects = []
    for name, text in (("a", ANSWER), ("b", ANSWER.replace(" ", "  "))):
        rows = list(evaluate(lambda inputs, text=text: {"answer": text}, data=examples, client=offline_client(),
                             upload_results=False, max_concurrency=0))  # fmt: skip
        projects.append(client.record(f"experiment-{name}", rows))
    model = first_shown()
    results = list(evaluate_comparative((projects[0], projects[1]),
                                        evaluators=comparative_evaluators(pairwise_judge(CRITERIA, model=model)),
                                        client=client, max_concurrency=0))  # fmt: skip
    (row,) = results
    for name in CRITERIA:
        assert set(row["evaluation_results"][f"feedback.{name}"].scores.values()) == {0.5}
    assert model.calls == 0
