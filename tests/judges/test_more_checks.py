"""The built-in checks beyond trajectories and sensitive data: JSON match, string similarity, code checks."""

from __future__ import annotations

from typing import Any

import pytest

from langchain_jev import JevConfigurationError, JevInputError, JevJudgeInput, JudgeSpecError
from langchain_jev.judges._checks.json_keys import json_keys_match
from langchain_jev.judges._checks.similarity import MAX_LENGTH, similarity
from langchain_jev.spec import load_spec
from langchain_jev.spec._builtins import BUILTIN_FORMS, CodeParses, StringSimilarity, compile_builtin
from langchain_jev.spec._conditions import FORMS


def _levenshtein(a: str, b: str) -> int:
    """The edit distance, by the textbook table (to check the library against)."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


@pytest.mark.parametrize(
    ("a", "b"),
    [("kitten", "sitting"), ("", ""), ("", "abc"), ("flaw", "lawn"), ("Paris", "paris"), ("naïve café", "naive cafe"),
     ("The quick brown fox", "The quick brown fox jumps"), ("abc", "abc")],
)
def test_levenshtein_similarity_is_openevals_score(a: str, b: str) -> None:
    longest = max(len(a), len(b))
    expected = 1.0 - _levenshtein(a, b) / longest if longest else 1.0  # openevals' levenshtein_distance score
    assert similarity(a, b, normalize=False) == pytest.approx(expected)


def test_similarity_metrics_and_normalising() -> None:
    assert similarity("Paris,  France", "paris, france") == 1.0
    assert similarity("Paris,  France", "paris, france", normalize=False) < 1.0
    assert similarity("world hello hello", "hello world", "token_set") == 1.0
    assert similarity("MARTHA", "MARHTA", "jaro_winkler") == pytest.approx(0.9611, abs=1e-4)
    assert 0 < similarity("abcd", "abce", "indel") < 1
    with pytest.raises(JevInputError, match=f"more than {MAX_LENGTH}"):
        similarity("a" * (MAX_LENGTH + 1), "a")


def test_string_similarity_check_reads_json_values_as_text() -> None:
    check = compile_builtin(StringSimilarity(minimum=0.9))
    assert check(JevJudgeInput(answer="[1, 2]", expected=[1, 2]))
    assert not check(JevJudgeInput(answer="Lyon", expected="Paris"))


@pytest.mark.parametrize(
    ("answer", "expected", "rules", "default", "matches"),
    [
        ('{"a": 1, "b": 2}', {"a": 1.0, "b": 2}, {}, "exact", True),
        ('{"a": 1, "b": 3}', {"a": 1, "b": 2}, {}, "exact", False),
        ('{"a": 1, "b": 3}', {"a": 1, "b": 2}, {"b": "ignore"}, "exact", True),
        ('{"a": 1, "b": 3}', {"a": 1, "b": 2}, {"b": "question"}, "exact", True),
        ('{"a": true}', {"a": 1}, {}, "exact", False),
        ('{"a": {"x": 1, "y": 2}}', {"a": {"x": 1, "y": 9}}, {"a.x": "exact"}, "ignore", True),
        ('{"a": {"x": 1, "y": 2}}', {"a": {"x": 0, "y": 2}}, {"a.x": "exact"}, "ignore", False),
        ('{"b": 2}', {"a": 1, "b": 2}, {}, "exact", False),  # a missing key
        ("[1, 2]", {"a": 1}, {}, "exact", False),
        ("not json", {"a": 1}, {}, "exact", False),
        ('{"a": NaN}', {"a": 1}, {}, "exact", False),
    ],
)
def test_json_keys_match(answer: str, expected: Any, rules: dict[str, Any], default: Any, matches: bool) -> None:
    assert json_keys_match(answer, expected, rules, default) is matches


@pytest.mark.parametrize(
    ("answer", "language", "valid"),
    [
        ("def f(x):\n    return x", "python", True),
        ("```python\nprint('hi')\n```\nThat prints hi.", "python", True),
        ("```python\nprint('hi'\n```", "python", False),
        ("```js\nconsole.log(1)\n```\n```python\nx = 1\n```", "python", True),
        ("\x00", "python", False),
        ("(" * 200_000, "python", False),
        ('{"a": [1, {"b": null}]}', "json", True),
        ("```json\n{\"a\": 1}\n```", "json", True),
        ('{"a": NaN}', "json", False),
        ("[" * 100_000, "json", False),
    ],
)
def test_code_parses(answer: str, language: Any, valid: bool) -> None:
    assert compile_builtin(CodeParses(language=language))(JevJudgeInput(answer=answer)) is valid


def test_code_longer_than_the_bound_is_refused() -> None:
    with pytest.raises(JevInputError, match="more than 200000"):
        compile_builtin(CodeParses())(JevJudgeInput(answer="x = 1\n" * 40_000))


def test_a_type_checker_that_is_not_installed_is_named_when_the_judge_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(JudgeSpecError, match="pyright is not installed"):
        load_spec({"criteria": [{"kind": "check", "name": "t", "check": {"code_type_checks": {"tool": "pyright"}}, "defect": "d"},
                                {"kind": "noul", "name": "q", "instructions": "ok?", "minimum": 0.5}]}).build(None)


def test_every_built_in_form_is_a_condition_form() -> None:
    assert set(BUILTIN_FORMS) <= set(FORMS)


def test_the_new_forms_declare_their_fields_and_name_bad_parameters() -> None:
    def spec(check: dict[str, Any]) -> Any:
        return load_spec({"criteria": [{"kind": "check", "name": "c", "check": check, "defect": "d"},
                                       {"kind": "noul", "name": "q", "instructions": "ok?", "minimum": 0.5}]})

    assert spec({"json_match": {}}).required_fields() == ["assistant_answer", "expected_output"]
    assert sorted(spec({"string_similarity": {"minimum": 0.5, "field": "title"}}).required_fields()) == [
        "assistant_answer", "expected_output", "title"]
    with pytest.raises(JudgeSpecError, match=r"criteria\[0\]\.check\.json_match\.rules\.a"):
        spec({"json_match": {"rules": {"a": "fuzzy"}}})
    with pytest.raises(JudgeSpecError, match=r"criteria\[0\]\.check\.string_similarity\.minimum"):
        spec({"string_similarity": {"minimum": 1.5}})
    with pytest.raises(JudgeSpecError, match=r"criteria\[0\]\.check\.code_parses\.language"):
        spec({"code_parses": {"language": "cobol"}})
    assert JevConfigurationError  # the type checker's absence is a configuration error (above)
