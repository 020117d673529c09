"""Deciding a preference from both orders: pure, every combination, symmetric in the two answers."""

from __future__ import annotations

import itertools

import pytest
from langchain_core.decisions import ChoiceAnswer, NoulAnswer

from langchain_jev.pairwise import PairwiseFinding, PairwiseVerdict, Preference, decide_preference

A, B, TIE, UNDECIDED = Preference.A, Preference.B, Preference.TIE, Preference.INCONCLUSIVE


def chose(label: str, probabilities: dict[str, float] | None = None) -> ChoiceAnswer:
    return ChoiceAnswer(type="choice", choice=label, probabilities=probabilities or {}, confidence=1.0)


# (label with A shown first, label with B shown first) -> preference
TABLE = {
    ("answer_1", "answer_2"): A,  # A both times
    ("answer_2", "answer_1"): B,  # B both times
    ("equally_good", "equally_good"): TIE,
    ("answer_1", "answer_1"): UNDECIDED,  # the first shown wins both times: position bias
    ("answer_2", "answer_2"): UNDECIDED,  # the second shown wins both times
    ("answer_1", "equally_good"): UNDECIDED,  # a lean held in one order only
    ("equally_good", "answer_2"): UNDECIDED,
    ("answer_2", "equally_good"): UNDECIDED,
    ("equally_good", "answer_1"): UNDECIDED,
}


@pytest.mark.parametrize(("labels", "preference"), list(TABLE.items()))
def test_every_combination_of_the_two_orders(labels: tuple[str, str], preference: Preference) -> None:
    finding = decide_preference("helpful", [chose(labels[0]), chose(labels[1])])
    assert finding.preference is preference
    assert finding.consistent == (labels[0] == "equally_good" == labels[1] or preference in (A, B))


def test_the_details_say_why() -> None:
    assert decide_preference("x", [chose("answer_1"), chose("answer_2")]).detail == "x: A is better, in both orders"
    assert decide_preference("x", [chose("answer_2"), chose("answer_2")]).detail == (
        "x: undecided: the answer shown second wins in both orders (position bias)"
    )
    assert decide_preference("x", [chose("equally_good"), chose("answer_1")]).detail == (
        "x: undecided: B is better with B first, and they are equally good in the other order"
    )


MIRROR = {A: B, B: A, TIE: TIE, UNDECIDED: UNDECIDED}


@pytest.mark.parametrize(("first", "second"), list(itertools.product(["answer_1", "answer_2", "equally_good"], repeat=2)))
def test_swapping_the_answers_mirrors_the_preference(first: str, second: str) -> None:
    # Comparing (B, A) shows B first where (A, B) showed it second: the two orders trade places.
    forward = decide_preference("x", [chose(first), chose(second)]).preference
    backward = decide_preference("x", [chose(second), chose(first)]).preference
    assert backward is MIRROR[forward]


def test_both_orders_distributions_are_averaged_after_undoing_the_swap() -> None:
    finding = decide_preference(
        "x",
        [
            chose("answer_1", {"answer_1": 0.6, "answer_2": 0.2, "equally_good": 0.2}),
            chose("answer_2", {"answer_1": 0.1, "answer_2": 0.8, "equally_good": 0.1}),
        ],
    )
    assert finding.preference is A
    assert finding.probabilities == pytest.approx({"A": 0.7, "B": 0.15, "TIE": 0.15})


@pytest.mark.parametrize(
    ("answers", "problems", "why"),
    [
        ([None, chose("answer_1")], [None, None], "A first: no answer"),
        ([chose("answer_1"), NoulAnswer(type="noul", noul=0.9)], [None, None], "B first: not a choice of"),
        ([chose("answer_1"), chose("answer_2")], ["timed out", None], "A first: timed out"),
    ],
)
def test_an_order_without_a_readable_answer_is_an_error_never_a_winner(answers, problems, why) -> None:  # type: ignore[no-untyped-def]
    finding = decide_preference("x", answers, problems)
    assert finding.preference is Preference.ERROR
    assert why in finding.detail
    assert finding.preference.score_of("A") is None


def test_the_verdict_tallies_and_prefers_what_more_criteria_prefer() -> None:
    def finding(name: str, preference: Preference) -> PairwiseFinding:
        return PairwiseFinding(name, preference, (preference, preference), None, "")

    verdict = PairwiseVerdict((finding("a", A), finding("b", A), finding("c", B), finding("d", UNDECIDED)), None)
    assert verdict.preferred is A
    assert verdict.summary() == "preferred=A [a=A, b=A, c=B, d=INCONCLUSIVE]"
    assert verdict.to_dict()["findings"][3]["preference"] == "INCONCLUSIVE"
    assert PairwiseVerdict((finding("d", UNDECIDED),), None).preferred is UNDECIDED
