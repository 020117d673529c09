"""Judges as files: a YAML or JSON document that describes a `JevJudge`.

- `model`: `JudgeSpec`, the whole file, with `load_spec`, `load_judge` and `judge_schema`;
- `kinds`: the criteria a file lists, one kind each (``noul``, ``score``, ``choice``, ``check``);
- `judge_model`: the model a file names, a ``provider:model`` string or a jury of them;
- `conditions`: code checks and conditions written as data;
- `reading`: bounded reading of the file (size, nesting, no YAML aliases);
- `code`: the code a file names, and the user's opt-in (``allow_code``) to run it;
- `reference`: the reference page of judge files, written from the models and the conditions' table;
- `errors`: the wording of judge-file problems, each naming its place (the error itself,
  ``JudgeSpecError``, is imported from ``langchain_jev`` with the other errors).

Names are imported lazily, so importing this package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.spec._conditions import ConditionSpec
    from langchain_jev.spec._kinds import (
        CheckSpec,
        ChoiceSpec,
        CriterionSpec,
        NoulSpec,
        ScoreSpec,
        WhenChosen,
    )
    from langchain_jev.spec._model import JudgeSpec, judge_schema, load_judge, load_spec

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "CheckSpec": "langchain_jev.spec._kinds",
    "ChoiceSpec": "langchain_jev.spec._kinds",
    "ConditionSpec": "langchain_jev.spec._conditions",
    "CriterionSpec": "langchain_jev.spec._kinds",
    "JudgeSpec": "langchain_jev.spec._model",
    "NoulSpec": "langchain_jev.spec._kinds",
    "ScoreSpec": "langchain_jev.spec._kinds",
    "WhenChosen": "langchain_jev.spec._kinds",
    "judge_schema": "langchain_jev.spec._model",
    "load_judge": "langchain_jev.spec._model",
    "load_spec": "langchain_jev.spec._model",
}

__all__ = [
    "CheckSpec",
    "ChoiceSpec",
    "ConditionSpec",
    "CriterionSpec",
    "JudgeSpec",
    "NoulSpec",
    "ScoreSpec",
    "WhenChosen",
    "judge_schema",
    "load_judge",
    "load_spec",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
