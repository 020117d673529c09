"""Feedback wording: the specification's strings, exactly."""

from __future__ import annotations

import subprocess
import sys

from langchain_core.decisions import NoulAnswer, ScoreAnswer

from langchain_jev import JevCriterion, JevFinding, Outcome, default_feedback
from langchain_jev._outcomes import decide
from tests.support.rubrics import HELPFULNESS_LEVELS, RELEVANT, helpfulness, plausible


def scored(value: float, probabilities: dict[int, float] | None = None) -> ScoreAnswer:
    return ScoreAnswer(
        type="score", score=value, legend=dict(enumerate(HELPFULNESS_LEVELS)),
        probabilities=probabilities or {}, confidence=0.9,
    )


def test_score_feedback_is_the_specification_sentence() -> None:
    decision = decide(helpfulness(2.0), scored(1.2), 0.6)
    assert decision.text == (
        'helpfulness: rated "Mostly unhelpful: misses the main point" (1.20), '
        'needs to reach 2.00 which is "Mostly helpful: minor gaps remain"'
    )


def test_the_level_quoted_is_the_one_the_score_lands_on_not_the_likeliest() -> None:
    # 1.08 lands on level 1; level 2 is the most probable, but quoting it would contradict 1.08 < 2.
    decision = decide(helpfulness(2.0), scored(1.08, {0: 0.36, 1: 0.2, 2: 0.44}), 0.5)
    assert decision.outcome is Outcome.FAILED
    assert decision.text.startswith('helpfulness: rated "Mostly unhelpful: misses the main point" (1.08)')


def test_a_noul_quotes_its_false_description() -> None:
    decision = decide(plausible(0.7), NoulAnswer(type="noul", noul=0.4), 0.6)
    assert decision.text == 'is_plausible: "At least one value is impossible" (yes at 0.40, needs 0.70)'


def test_a_noul_without_descriptions_quotes_its_question() -> None:
    decision = decide(JevCriterion.noul("is_relevant", RELEVANT, 0.7), NoulAnswer(type="noul", noul=0.25), 0.6)
    assert decision.text == (
        'is_relevant: not met: "Is `assistant_answer` relevant to `user_question`?" (yes at 0.25, needs 0.70)'
    )


def test_default_feedback_has_one_line_per_failure_and_leaves_out_the_rest() -> None:
    check = JevCriterion.check("searched", lambda d: False, "skipped a required search")
    findings = [
        JevFinding(check, None, Outcome.FAILED, "searched: skipped a required search"),
        JevFinding(helpfulness(), None, Outcome.ERROR, "helpfulness: could not be judged: x"),
        JevFinding(plausible(), None, Outcome.NOT_APPLICABLE, "is_plausible: does not apply"),
        JevFinding(plausible(), None, Outcome.FAILED, 'is_plausible: "x" (yes at 0.10, needs 0.70)'),
    ]
    assert default_feedback(findings) == (
        'searched: skipped a required search\nis_plausible: "x" (yes at 0.10, needs 0.70)'
    )


def test_numbers_do_not_follow_a_comma_decimal_locale() -> None:
    code = (
        "import locale\n"
        "for name in ('de_DE.UTF-8', 'fr_FR.UTF-8', 'C.UTF-8'):\n"
        "    try:\n"
        "        locale.setlocale(locale.LC_ALL, name); break\n"
        "    except locale.Error:\n"
        "        pass\n"
        "from langchain_core.decisions import NoulAnswer\n"
        "from langchain_jev._outcomes import decide\n"
        "from tests.support.rubrics import plausible\n"
        "print(decide(plausible(0.7), NoulAnswer(type='noul', noul=0.4), 0.6).text)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "(yes at 0.40, needs 0.70)" in out.stdout
