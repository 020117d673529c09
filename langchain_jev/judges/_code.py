"""The code judge: code that parses (by code, first), type-checks when asked, and solves the problem.

==================  =====  ================================================  ============
criterion           kind   decides                                           passes when
==================  =====  ================================================  ============
``code_parses``     check  the answer's code parses (``language``: python    it parses
                           or json; fenced blocks when there are any)
``code_types``      check  the code passes ``type_checker`` (mypy or         no errors
                           pyright; only when the factory is given one)
``code_correct``    noul   the code solves the problem of                    yes >= 0.7
                           ``user_question`` (as ``expected_output`` does,
                           where given)
==================  =====  ================================================  ============

State fields: ``user_question`` and ``assistant_answer``; ``expected_output`` (a reference
solution) when given. The judge is ``fail_fast``: code that does not parse fails with no
request. Nothing is ever run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_jev._criteria import JevCriterion
from langchain_jev._judge import JevJudge
from langchain_jev.judges._build import Edit, prebuilt_criteria, prebuilt_judge
from langchain_jev.judges._checks.static_code import Language, TypeChecker

__all__ = ["code_criteria", "code_judge"]


def code_judge(
    model: Any = None,
    *,
    language: Language = "python",
    type_checker: TypeChecker | None = None,
    thresholds: Mapping[str, float] | None = None,
    **options: Any,
) -> JevJudge:
    r"""The code judge (see the module documentation for its rubric).

    Args:
        model: anything `JevJudge` accepts; None for Jev from the environment.
        language: the language the code must parse in (python or json).
        type_checker: "mypy" or "pyright" to add a type check (installed apart:
            the ``code`` extra brings mypy); None for none.
        thresholds: ``{"code_correct": minimum}`` to replace 0.7.
        options: `JevJudge` options.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = code_judge(ScriptedDecisionModel({"code_correct": 0.9}))
        >>> judge.judge("Add two numbers", "```python\ndef add(a, b) return a + b\n```").summary()
        'passed=false [code_parses=FAILED, code_correct=NOT_APPLICABLE]'

    """
    return prebuilt_judge("code", model, thresholds, _editor(language, type_checker), **options)


def code_criteria(
    *,
    language: Language = "python",
    type_checker: TypeChecker | None = None,
    thresholds: Mapping[str, float] | None = None,
) -> list[JevCriterion]:
    """The code judge's criteria, to compose with others (arguments as `code_judge`).

    Example:
        >>> [c.name for c in code_criteria(type_checker="mypy")]
        ['code_parses', 'code_types', 'code_correct']

    """
    return prebuilt_criteria("code", thresholds, _editor(language, type_checker))


def _editor(language: Language, type_checker: TypeChecker | None) -> Edit:
    def edit(criteria: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept: list[dict[str, Any]] = []
        for criterion in criteria:
            if criterion["name"] == "code_parses":
                criterion["check"] = {"code_parses": {"language": language}}
                kept.append(criterion)
                if type_checker is not None:
                    kept.append(
                        {
                            "name": "code_types",
                            "kind": "check",
                            "check": {"code_type_checks": {"tool": type_checker}},
                            "defect": f"the code does not pass {type_checker}",
                        }
                    )
                continue
            kept.append(criterion)
        return kept

    return edit
