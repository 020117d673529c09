"""Helpers of the monitor tests: a project of traced runs on the fake LangSmith API, a judge, a client."""

from __future__ import annotations

import datetime
from typing import Any

from langchain_core.decisions import Noul, Score
from langsmith import Client
from urllib3.util import Retry

from langchain_jev import JevCriterion, JevJudge
from langchain_jev.testing import ScriptedDecisionModel
from tests.support.fake_langsmith import FakeProject

LANGSMITH_KEY = "lsv2_pt_monitor0123456789abcdef0123456789_ab12cd34ef"
T0 = datetime.datetime(2026, 1, 5, 8, tzinfo=datetime.UTC)
UNTIL = T0 + datetime.timedelta(days=1)
CRITERIA = ("polite", "helpful")
KEYS = (*CRITERIA, "jev_pass")


def criteria() -> list[JevCriterion]:
    """A noul and a score: two feedback keys per run, plus the verdict's."""
    return [
        JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7),
        JevCriterion.score(
            "helpful",
            Score(
                instructions="How well does `assistant_answer` address `user_question`?",
                criteria=["Not at all", "Partly", "Mostly", "Fully"],
            ),
            2,
        ),
    ]


def scripted_judge(**script: Any) -> JevJudge:
    """The judge on the scripted decision model (polite 0.9, helpful 2.6 unless told)."""
    return JevJudge(criteria(), model=ScriptedDecisionModel({"polite": 0.9, "helpful": 2.6, **script}))


def client_for(project: FakeProject, *, retries: bool = True) -> Client:
    """A real ``langsmith.Client`` talking to the fake API (``retries=False``: no urllib3 retries)."""
    options: dict[str, Any] = {} if retries else {"retry_config": Retry(total=0)}
    return Client(api_key=LANGSMITH_KEY, api_url=project.url, auto_batch_tracing=False, **options)


def add_runs(
    project: FakeProject, count: int, *, start: datetime.datetime = T0, step: float = 60.0
) -> list[str]:
    """``count`` traced root runs a minute apart (a question in, an answer out); their ids."""
    return [
        project.add_run(
            start=start + datetime.timedelta(seconds=step * index),
            inputs={"question": f"Will it rain in town {index} tomorrow?"},
            outputs={"answer": f"Yes, from 9am in town {index}."},
        )
        for index in range(count)
    ]


def feedback_by_run(project: FakeProject) -> dict[str, list[str]]:
    """The feedback keys LangSmith keeps, by run."""
    found: dict[str, list[str]] = {}
    for body in project.feedback.values():
        found.setdefault(body["run_id"], []).append(body["key"])
    return found


def day_pass(project: FakeProject, judge: JevJudge | None = None, **options: Any) -> Any:
    """One `monitor` pass of ``judge`` (the scripted one) over the test day, no cursor unless given."""
    from langchain_jev.monitor import monitor

    settings: dict[str, Any] = {"since": T0, "until": UNTIL, "cursor": None, **options}
    settings.setdefault("client", client_for(project))
    return monitor(judge or scripted_judge(), project=project.name, **settings)
