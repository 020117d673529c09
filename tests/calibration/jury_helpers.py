"""A judged, labelled dataset of a jury of three scripted members who each see it differently."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.decisions import Noul, Score

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.models import JuryDecisionModel
from langchain_jev.testing import ScriptedDecisionModel

POLITE = JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.5)
HELPFUL = JevCriterion.score(
    "helpful",
    Score(instructions="How helpful is `assistant_answer`?", criteria=["No", "Partly", "Mostly", "Fully"]),
    2,
)
ROWS = 12
DOWN_ON = 5
"""The row the flaky member fails on."""


def labelled_rows() -> list[dict[str, Any]]:
    """Rows whose answers are polite and helpful on odd rows (people pass odd rows only)."""
    return [
        {"id": f"r{n}", "question": f"Question {n}?", "answer": f"answer {n}", "ok": n % 2 == 1}
        for n in range(1, ROWS + 1)
    ]


def _number(state: Mapping[str, Any]) -> int:
    return int(str(state["assistant_answer"]).split()[-1])


def sharp() -> ScriptedDecisionModel:
    """Agrees with people on every row."""
    return ScriptedDecisionModel(
        {
            "polite": lambda s, q: 0.9 if _number(s) % 2 else 0.1,
            "helpful": lambda s, q: {3: 0.8, 2: 0.2} if _number(s) % 2 else {0: 0.7, 1: 0.3},
        },
        model="sharp",
    )


def lenient() -> ScriptedDecisionModel:
    """Passes everything: wrong on every even row."""
    return ScriptedDecisionModel({"polite": 0.8, "helpful": {2: 0.6, 3: 0.4}}, model="lenient")


def flaky() -> ScriptedDecisionModel:
    """Agrees with people on rows above 4, is wrong below; fails on row `DOWN_ON`."""

    def polite(state: Mapping[str, Any], question: Any) -> Any:
        n = _number(state)
        if n == DOWN_ON:
            raise ConnectionError("flaky is down")
        right = n % 2 == 1
        return 0.7 if (right if n > 4 else not right) else 0.2

    def helpful(state: Mapping[str, Any], question: Any) -> Any:
        n = _number(state)
        right = n % 2 == 1
        return {2: 1.0} if (right if n > 4 else not right) else {1: 1.0}

    return ScriptedDecisionModel({"polite": polite, "helpful": helpful}, model="flaky")


def members() -> dict[str, ScriptedDecisionModel]:
    return {"sharp": sharp(), "lenient": lenient(), "flaky": flaky()}


def jury_judge(combine: str = "mean", **options: Any) -> JevJudge:
    """The judge on a jury of the three members (a quorum of two, so the flaky row is judged)."""
    options.setdefault("quorum", 2)
    jury = JuryDecisionModel(members(), combine=combine, **options)  # type: ignore[arg-type]
    return JevJudge([POLITE, HELPFUL], model=jury)
