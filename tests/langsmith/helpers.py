"""Offline LangSmith experiments: a client that never reaches a server, a small RAG
dataset and its target, and judges on scripted and mock-transport models."""

from __future__ import annotations

import contextlib
import datetime
import json
import socket
import uuid
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from langchain_core.decisions import Choice, Noul, Score
from langsmith import Client
from langsmith.run_helpers import traceable
from langsmith.schemas import Example
from urllib3.util import Retry

from langchain_jev import JevCriterion, JevJudge, JevJudgeInput

# A port nothing listens on, used only by these tests: any connection to it is a
# LangSmith client trying to upload.
FAKE_LANGSMITH = ("127.0.0.1", 47731)
FAKE_LANGSMITH_URL = f"http://{FAKE_LANGSMITH[0]}:{FAKE_LANGSMITH[1]}"
NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def offline_client() -> Client:
    """A client with a fake key and a local URL; no background uploader thread, no retries."""
    return Client(
        api_key="fake-key",
        api_url=FAKE_LANGSMITH_URL,
        auto_batch_tracing=False,
        retry_config=Retry(total=0),
    )


@contextlib.contextmanager
def langsmith_attempts() -> Iterator[list[Any]]:
    """Record (and refuse) every connection attempt to the fake LangSmith server."""
    attempts: list[Any] = []

    def guarded(original: Any) -> Any:
        def call(self: socket.socket, address: Any) -> Any:
            if tuple(address[:2]) == FAKE_LANGSMITH:
                attempts.append(address)
                raise ConnectionRefusedError("LangSmith is offline in these tests")
            return original(self, address)

        return call

    with (
        mock.patch.object(socket.socket, "connect", guarded(socket.socket.connect)),
        mock.patch.object(socket.socket, "connect_ex", guarded(socket.socket.connect_ex)),
    ):
        yield attempts


# ---------------------------------------------------------------------- the dataset

DOCS = {
    "eiffel": "The Eiffel Tower is 330 metres tall and stands in Paris.",
    "louvre": "The Louvre is the world's most-visited museum, in Paris.",
}

# question -> (answer the target gives, retrieved documents, reference answer)
ROWS: dict[str, tuple[str, list[str], str]] = {
    "How tall is the Eiffel Tower?": ("It is 330 metres tall.", [DOCS["eiffel"]], "330 metres"),
    "Where is the Louvre?": ("The Louvre is in Lyon.", [DOCS["louvre"]], "Paris"),
    "Say hello.": ("Hello!", [], "Hello"),
    "What is 2 + 2?": ("", [], "4"),
}
QUESTIONS = list(ROWS)


def examples() -> list[Example]:
    dataset = uuid.UUID(int=7)
    return [
        Example(
            id=uuid.UUID(int=100 + i),
            dataset_id=dataset,
            inputs={"question": question},
            outputs={"answer": ROWS[question][2]},
        )
        for i, question in enumerate(QUESTIONS)
    ]


@traceable(run_type="retriever", name="search_docs")
def search_docs(query: str) -> dict[str, Any]:
    return {"documents": [{"page_content": text, "metadata": {}} for text in ROWS[query][1]]}


def rag_target(inputs: dict[str, Any]) -> dict[str, Any]:
    """The system under test: retrieves (a traced retriever child run), then answers."""
    search_docs(inputs["question"])
    return {"answer": ROWS[inputs["question"]][0]}


async def arag_target(inputs: dict[str, Any]) -> dict[str, Any]:
    search_docs(inputs["question"])
    return {"answer": ROWS[inputs["question"]][0]}


# ---------------------------------------------------------------------- the judge

GROUNDED = Noul(instructions="Is every claim in `assistant_answer` supported by `supporting_context`?")
HELPFULNESS = Score(
    instructions="How well does `assistant_answer` address `user_question`?",
    criteria=["Terrible", "Mostly unhelpful", "Mostly helpful", "Excellent"],
)
TONE = Choice(
    instructions="What is the tone of `assistant_answer`?",
    criteria={"neutral": None, "friendly": None, "rude": None},
)


def criteria() -> list[JevCriterion]:
    return [
        JevCriterion.noul("grounded", GROUNDED, 0.7).applies_when(lambda d: bool(d.context)),
        JevCriterion.score("helpfulness", HELPFULNESS, 2),
        JevCriterion.choice("tone", TONE, ["neutral", "friendly"]),
        JevCriterion.check("not_empty", lambda d: bool((d.answer or "").strip()), "the answer is empty"),
    ]


def grounded_probability(state: dict[str, Any]) -> float:
    """Scripted groundedness: high when every number and place in the answer is in the context."""
    context = " ".join(state.get("supporting_context", []))
    return 0.9 if "Lyon" not in state["assistant_answer"] and context else 0.2


def helpfulness_level(state: dict[str, Any]) -> float:
    return {"Hello!": 3.0, "": 0.0}.get(
        state["assistant_answer"], 2.4 if "Lyon" not in state["assistant_answer"] else 1.0
    )


# question -> {criterion: (score, value)} the judge above reaches on the target's answers
EXPECTED: dict[str, dict[str, tuple[float | None, str]]] = {
    "How tall is the Eiffel Tower?": {
        "grounded": (1.0, "PASSED (0.90)"),
        "helpfulness": (1.0, "PASSED (2.40)"),
        "tone": (1.0, "PASSED (neutral)"),
        "not_empty": (1.0, "PASSED"),
        "jev_pass": (1.0, "PASSED"),
    },
    "Where is the Louvre?": {
        "grounded": (0.0, "FAILED (0.20)"),
        "helpfulness": (0.0, "FAILED (1.00)"),
        "tone": (1.0, "PASSED (neutral)"),
        "not_empty": (1.0, "PASSED"),
        "jev_pass": (0.0, "FAILED"),
    },
    "Say hello.": {
        "grounded": (None, "NOT_APPLICABLE"),
        "helpfulness": (1.0, "PASSED (3.00)"),
        "tone": (1.0, "PASSED (friendly)"),
        "not_empty": (1.0, "PASSED"),
        "jev_pass": (1.0, "PASSED"),
    },
    "What is 2 + 2?": {
        "grounded": (None, "NOT_APPLICABLE"),
        "helpfulness": (0.0, "FAILED (0.00)"),
        "tone": (1.0, "PASSED (neutral)"),
        "not_empty": (0.0, "FAILED"),
        "jev_pass": (0.0, "FAILED"),
    },
}


def tone_label(state: dict[str, Any]) -> str:
    return "friendly" if state["assistant_answer"] == "Hello!" else "neutral"


def scripted_judge(**options: Any) -> JevJudge:
    from langchain_jev.testing import ScriptedDecisionModel

    model = ScriptedDecisionModel(
        {
            "grounded": lambda state, q: grounded_probability(state),
            "helpfulness": lambda state, q: helpfulness_level(state),
            "tone": lambda state, q: tone_label(state),
        }
    )
    return JevJudge(criteria(), model=model, **options)


def wire_answers() -> dict[str, Any]:
    """The same answers, as the Jev API sends them (for tests.fakes.JevWire)."""
    from tests.fakes import choice, noul

    def score(body: dict[str, Any]) -> dict[str, Any]:
        value = helpfulness_level(body["state"])
        return {
            "type": "score",
            "score": value,
            "legend": {str(i): text for i, text in enumerate(HELPFULNESS.criteria)},
            "probabilities": {},
            "confidence": 1.0,
        }

    return {
        "grounded": lambda body: noul(grounded_probability(body["state"])),
        "helpfulness": score,
        "tone": lambda body: choice(tone_label(body["state"])),
    }


def rows_by_question(results: Any) -> dict[str, dict[str, Any]]:
    """``{question: {key: EvaluationResult}}`` from an experiment's rows."""
    table: dict[str, dict[str, Any]] = {}
    for row in results:
        question = row["example"].inputs["question"]
        table[question] = {r.key: r for r in row["evaluation_results"]["results"]}
    return table


def judge_input_of(question: str) -> JevJudgeInput:
    answer, context, reference = ROWS[question]
    return JevJudgeInput(question, answer, expected=reference, context=context)


# ---------------------------------------------------------------------- LangChain's classic runner


CLASSIC_FEEDBACK = pytest.mark.filterwarnings(
    "ignore:Creating feedback for a run without session_id:langsmith.utils.LangSmithWarning"
)
"""The one deprecation LangChain's ``run_on_dataset`` cannot avoid, accepted by its words.

Its feedback is written by langchain-core's ``EvaluatorCallbackHandler``, which
passes no ``session_id`` (langsmith 0.15 deprecates that, and a SmithDB-only
deployment refuses it); nothing an evaluator returns can give one.
"""

DUAL = {"ch_query_enabled": True, "sdb_query_enabled": True}
"""The instance flags of a deployment whose queries both backends serve (feedback without a session warns)."""
SMITHDB_ONLY = {"ch_query_enabled": False, "sdb_query_enabled": True}
"""The instance flags of a SmithDB deployment: runs are read by ``runs.query_v2``, feedback needs its session."""


class LocalDatasetClient(Client):
    """A LangSmith client whose dataset, project, run and feedback calls stay in memory.

    ``langchain_classic.smith.run_on_dataset`` reads the dataset and its examples,
    creates a project, traces the runs and writes feedback through its client; this
    one answers those calls from ``examples`` and keeps what is written (``feedback``,
    the bodies the real ``create_feedback`` posts, and ``traced``), as a deployment
    of ``instance_flags`` would (its checks of a feedback's session included). Any
    other request fails the test. Everything else is the real client, pointed at the
    offline URL.
    """

    instance_flags: dict[str, bool] = DUAL

    def __init__(self, examples: list[Example]) -> None:
        super().__init__(
            api_key="fake-key", api_url=FAKE_LANGSMITH_URL, auto_batch_tracing=False, retry_config=Retry(total=0)
        )
        self.examples = {example.id: example for example in examples}
        self.feedback: list[dict[str, Any]] = []
        self.traced: list[dict[str, Any]] = []

    def read_dataset(self, *, dataset_name: str | None = None, **kwargs: Any) -> Any:
        from langsmith.schemas import Dataset, DataType

        return Dataset(
            id=uuid.UUID(int=7),
            name=dataset_name or "dataset",
            created_at=NOW,
            data_type=DataType.kv,
            _host_url=FAKE_LANGSMITH_URL,
        )

    def list_examples(self, **kwargs: Any) -> Iterator[Example]:  # type: ignore[override]
        return iter(self.examples.values())

    def read_example(self, example_id: Any, **kwargs: Any) -> Example:  # type: ignore[override]
        return self.examples[uuid.UUID(str(example_id))]

    def create_project(self, project_name: str, **kwargs: Any) -> Any:  # type: ignore[override]
        from langsmith.schemas import TracerSession

        return TracerSession(
            id=uuid.UUID(int=8),
            name=project_name,
            start_time=NOW,
            tenant_id=uuid.UUID(int=9),
            reference_dataset_id=uuid.UUID(int=7),
            extra={"metadata": kwargs.get("metadata") or {}},
        )

    def update_project(self, *args: Any, **kwargs: Any) -> Any:
        return None

    @property
    def info(self) -> Any:  # type: ignore[override]
        from langsmith.schemas import LangSmithInfo

        return LangSmithInfo(instance_flags=dict(self.instance_flags))

    def request_with_retries(self, method: str, pathname: str, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        if (method, pathname) != ("POST", "/feedback"):
            raise AssertionError(f"the offline LangSmith client was asked {method} {pathname}")
        self.feedback.append(json.loads(kwargs["request_kwargs"]["data"]))
        return None

    def create_run(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        self.traced.append(kwargs)

    def update_run(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        self.traced.append(kwargs)


# ---------------------------------------------------------------------- comparative experiments


class ComparisonClient(LocalDatasetClient):
    """A LangSmith client of a SmithDB deployment that holds experiments in memory, for ``evaluate_comparative``.

    `record` keeps the runs of a real offline ``evaluate`` as an experiment and returns
    its project; the comparative experiment, the examples and the feedback are served
    from and written to memory, and the runs through LangSmith's own generated client
    (``runs.query_v2``) over an ``httpx.MockTransport`` that answers as the v2 API
    does (`serve_runs_query`). As on such a deployment, feedback on a run without its
    session raises. Nothing is sent.
    """

    instance_flags = SMITHDB_ONLY

    def __init__(self, examples: list[Example]) -> None:
        super().__init__(examples)
        self.experiments: dict[uuid.UUID, list[Any]] = {}
        self.queries: list[dict[str, Any]] = []

    def record(self, name: str, rows: list[Any]) -> Any:
        """Keep the runs of an experiment's rows; return its project (a ``TracerSession``)."""
        from langsmith.schemas import TracerSession

        project = TracerSession(
            id=uuid.uuid4(), name=name, start_time=NOW, tenant_id=uuid.UUID(int=9), reference_dataset_id=uuid.UUID(int=7)
        )
        self.experiments[project.id] = [row["run"] for row in rows]
        return project

    def _get_langsmith_api_sync(self) -> Any:
        from langsmith._httpx import httpx  # the HTTPX backend LangSmith's client is built on
        from langsmith._internal._openapi_auth import SyncClient

        return SyncClient(
            header_provider=self._current_openapi_headers,
            api_key="fake-key",
            base_url=FAKE_LANGSMITH_URL,
            http_client=httpx.Client(transport=httpx.MockTransport(self.serve_runs_query)),
        )

    def serve_runs_query(self, request: Any) -> Any:
        """``POST /api/v2/runs/query``: the recorded runs of the asked projects, in the asked window and fields."""
        from langsmith._httpx import httpx

        if (request.method, request.url.path) != ("POST", "/api/v2/runs/query"):
            return httpx.Response(404, json={"detail": f"{request.method} {request.url.path}"})
        query = json.loads(request.content)
        self.queries.append(query)
        now = datetime.datetime.now(datetime.UTC)
        # The v2 API's defaults: a day's window, and the ids alone.
        low = _moment(query.get("min_start_time")) or now - datetime.timedelta(days=1)
        high = _moment(query.get("max_start_time")) or now
        selects = set(query.get("selects") or ["ID"])
        items = [
            _v2_run(run, project, selects)
            for project in query.get("project_ids") or []
            for run in self.experiments.get(uuid.UUID(project), [])
            if low <= _moment(run.start_time) <= high  # type: ignore[operator]
            and query.get("is_root") in (None, run.parent_run_id is None)
        ]
        return httpx.Response(200, json={"items": items, "next_cursor": None})

    def list_examples(self, *, example_ids: Any = None, **kwargs: Any) -> Iterator[Example]:  # type: ignore[override]
        wanted = {uuid.UUID(str(i)) for i in example_ids} if example_ids is not None else set(self.examples)
        return iter(e for i, e in self.examples.items() if i in wanted)

    def create_comparative_experiment(self, name: str, experiments: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        from langsmith.schemas import ComparativeExperiment

        return ComparativeExperiment(
            id=kwargs.get("id") or uuid.uuid4(),
            name=name,
            tenant_id=uuid.UUID(int=9),
            created_at=NOW,
            modified_at=NOW,
            reference_dataset_id=uuid.UUID(int=7),
            extra={},
        )


def _moment(value: Any) -> datetime.datetime | None:
    """A time as the v2 API compares it (naive times are UTC)."""
    if value is None:
        return None
    moment = value if isinstance(value, datetime.datetime) else datetime.datetime.fromisoformat(str(value))
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=datetime.UTC)


def _v2_run(run: Any, project: str, selects: set[str]) -> dict[str, Any]:
    """A run as ``/api/v2/runs/query`` returns it: the selected fields only, under the v2 names."""
    fields = {
        "ID": str(run.id),
        "NAME": run.name,
        "RUN_TYPE": str(run.run_type).upper(),
        "STATUS": "ERROR" if run.error else "SUCCESS",
        "START_TIME": _moment(run.start_time).isoformat(),  # type: ignore[union-attr]
        "END_TIME": _moment(run.end_time).isoformat() if run.end_time else None,  # type: ignore[union-attr]
        "INPUTS": run.inputs,
        "OUTPUTS": run.outputs,
        "PARENT_RUN_IDS": [str(run.parent_run_id)] if run.parent_run_id else [],
        "PROJECT_ID": project,
        "TRACE_ID": str(run.trace_id or run.id),
        "DOTTED_ORDER": run.dotted_order,
        "REFERENCE_EXAMPLE_ID": str(run.reference_example_id) if run.reference_example_id else None,
        "ERROR": run.error,
        "TAGS": run.tags,
    }
    return json.loads(
        json.dumps({key.lower(): value for key, value in fields.items() if key in selects and value is not None}, default=str)
    )
