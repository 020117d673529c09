"""The JSON match judge: a JSON answer against the expected JSON, key by key, in one request.

================  =====  ==================================================  ============
criterion         kind   decides                                             passes when
================  =====  ==================================================  ============
``json_valid``    check  the answer parses as JSON                           it does
``exact_keys``    check  every key ruled ``exact`` has the expected value    all equal
                         (JSON equality; run only when it settles the case)
``values_agree``  noul   where a value differs, it means the same (the       yes >= 0.7
                         shipped file; asked only when ``exact_keys`` fails)
``json_KEY``      noul   per key ruled ``question`` (factory ``rules``):     yes >= 0.7
                         the answer's value means the expected one's
================  =====  ==================================================  ============

With ``rules`` (key, dotted for nested keys -> ``exact``, ``question`` or
``ignore``; ``default`` for the other keys), exact keys are settled by code, each
question key is its own question, and all of them go in one request; ignored keys
are looked at by nothing. State fields: ``assistant_answer`` and ``expected_output``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import regex

from langchain_jev._criteria import JevCriterion
from langchain_jev._errors import JevConfigurationError
from langchain_jev._judge import JevJudge
from langchain_jev.judges._build import Edit, prebuilt_criteria, prebuilt_judge
from langchain_jev.judges._checks.json_keys import KEY_RULES, KeyRule

__all__ = ["json_match_criteria", "json_match_judge"]


def json_match_judge(
    model: Any = None,
    *,
    rules: Mapping[str, KeyRule] | None = None,
    default: KeyRule = "exact",
    thresholds: Mapping[str, float] | None = None,
    **options: Any,
) -> JevJudge:
    """The JSON match judge (see the module documentation for its rubric).

    Args:
        model: anything `JevJudge` accepts; None for Jev from the environment.
        rules: key -> ``exact``, ``question`` or ``ignore``; None for the shipped file
            (every key exact, and one question where a value differs).
        default: the rule of the keys ``rules`` does not name.
        thresholds: criterion -> minimum (``json_KEY`` for a question key).
        options: `JevJudge` options.

    Raises:
        JevConfigurationError: a rule is unknown, or no key is left to a question
            (a judge asks at least one; compose `json_match_criteria` instead).

    Example:
        >>> from langchain_jev import JevJudgeInput
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = json_match_judge(ScriptedDecisionModel({"json_summary": 0.9}),
        ...                          rules={"summary": "question", "id": "ignore"})
        >>> data = JevJudgeInput(answer='{"id": 9, "name": "Ada", "summary": "a mathematician"}',
        ...                      expected={"id": 1, "name": "Ada", "summary": "mathematician"})
        >>> judge.judge(data).summary()
        'passed=true [json_valid=PASSED, exact_keys=PASSED, json_summary=PASSED]'

    """
    return prebuilt_judge("json_match", model, thresholds, _editor(rules, default), **options)


def json_match_criteria(
    *,
    rules: Mapping[str, KeyRule] | None = None,
    default: KeyRule = "exact",
    thresholds: Mapping[str, float] | None = None,
) -> list[JevCriterion]:
    """The JSON match judge's criteria, to compose with others (arguments as `json_match_judge`).

    Example:
        >>> [c.name for c in json_match_criteria(rules={"bio": "question"})]
        ['json_valid', 'exact_keys', 'json_bio']

    """
    return prebuilt_criteria("json_match", thresholds, _editor(rules, default))


def _editor(rules: Mapping[str, KeyRule] | None, default: KeyRule) -> Edit | None:
    if rules is None and default == "exact":
        return None
    given = dict(rules or {})
    bad = {key: rule for key, rule in given.items() if rule not in KEY_RULES} or (
        {"default": default} if default not in KEY_RULES else {}
    )
    if bad:
        key, rule = next(iter(bad.items()))
        raise JevConfigurationError(f"rules: {key!r}: {rule!r} is not a key rule ({', '.join(KEY_RULES)})")
    asked = [key for key, rule in given.items() if rule == "question"]
    if not asked:
        raise JevConfigurationError(
            "rules: no key is left to a question, and a judge asks at least one; compose "
            "json_match_criteria(...) with other criteria, or rule a key 'question'"
        )
    if default == "question":
        raise JevConfigurationError("default: 'question' needs the keys named; rule each key 'question'")
    check = {"json_match": {"rules": given, "default": default}}

    def edit(criteria: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept: list[dict[str, Any]] = []
        for criterion in criteria:
            if criterion["name"] == "exact_keys":
                criterion["check"], criterion["applies_when"] = check, {"answer_is_json": True}
            if criterion["name"] == "values_agree":
                continue
            kept.append(criterion)
        for key in asked:
            kept.append(
                {
                    "name": "json_" + regex.sub(r"\W", "_", key),
                    "kind": "noul",
                    "instructions": (
                        f"Does the value under the key `{key}` of `assistant_answer` (a JSON object) mean "
                        f"the same as the value under `{key}` in `expected_output`?"
                    ),
                    "when_true": "The same meaning, in whatever words or form.",
                    "when_false": "The key is missing, or its value says something else.",
                    "minimum": 0.7,
                    "applies_when": {"answer_is_json": True},
                }
            )
        return kept

    return edit
