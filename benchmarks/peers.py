"""Side by side with what users would install instead: jevals, pytest-jev, openevals, deepeval.

Every side runs in this one process, interleaved round by round, on the same
scripted Jev wire or the same fake chat model, and the figures are medians of
the rounds. Peers are pinned in the ``bench`` extra (``pip install -e
".[test,bench]"``); a peer that does not import is reported as missing and the
rest are measured.

1. **Jev path**: CPU per verdict over a bare ``client.system_one`` (the
   typesafe-sdk call every side makes, or could make) with 1, 10 and 50 yes/no
   criteria, sync and async. Each side gets its own scripted wire: a
   ``MockTransport`` handler that answers every question it is asked with
   ``noul 0.9`` from bytes prepared on its first request, so the handler costs
   every side the same. jevals talks to Jev through httpx (not the SDK), so its
   wire is an ``httpx.MockTransport`` with the same bytes.
2. **Chat path**: 50 examples x 5 yes/no criteria on one fake chat model (a
   real ``BaseChatModel`` with tool calling, 50 ms per call, no log-probabilities,
   answering whatever schema it is given), at most 50 calls in flight: calls,
   prompt and schema tokens (the tokenizer of ``chat_requests.py``), wall time
   against the ideal (one call's latency) and CPU per verdict.
3. **Dataset command**: ``cli_throughput`` (3,200 rows at 64 in flight against
   the loopback server with 100 ms latency), and jevals' own dataset runner
   against the same server, as shares of the theoretical 640 rows/s.

What is not like for like is printed with the table: pytest-jev decides
nothing (it returns the probabilities and asserts), openevals' hand-batched
call returns booleans rather than probabilities, and jevals decides with its
own reduce step.

    python benchmarks/peers.py            # everything, about 3 minutes on 2 cores
    python benchmarks/peers.py jev chat   # some sections
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
os.environ.setdefault("DEEPEVAL_UPDATE_WARNING_OPT_IN", "NO")
os.environ.setdefault("DEEPEVAL_GRPC_LOGGING", "NO")
os.environ.setdefault("ERROR_REPORTING", "NO")

import httpx2
from _common import Row, load_row, machine_load, print_table, row
from chat_requests import count_tokens
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.decisions import Noul
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr
from typesafe_sdk import AsyncTypeSafeClient, RetryPolicy, TypeSafeClient

from langchain_jev import ChatModelDecisionModel, JevCriterion, JevJudge, JevJudgeInput
from langchain_jev.models import JevDecisionModel

PEERS = ("jevals", "pytest_jev", "openevals", "deepeval")
KEY = "sk-bench"
QUESTION = "What is the boiling point of water at sea level?"
ANSWER = "Water boils at 100 degrees Celsius (212 F) at sea level; higher up it boils at a lower temperature."
GOALS = {"sync 10": 1.4, "async 10": 1.4, "sync 50": 1.6, "async 50": 1.6, "sync 1000": 1.6, "async 1000": 1.6}
SIZES = (1, 10, 50, 1000)
PER_CRITERION_GOAL = 3.0  # microseconds over the SDK per extra criterion


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in ("langchain-jev", "typesafe-sdk", "langchain-core", "jevals", "pytest-jev", "openevals", "deepeval"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "missing"
    return found


def _available(module: str) -> str | None:
    """None when the peer imports, else why not."""
    try:
        __import__(module)
    except Exception as error:  # a peer that cannot import is reported, not fatal
        return f"{type(error).__name__}: {error}"
    return None


# ------------------------------------------------------------------ the scripted Jev wire


class Wire:
    """Answers every question it is asked with ``noul 0.9``; the bytes are prepared on the first request."""

    def __init__(self) -> None:
        self.body: bytes | None = None
        self.requests = 0

    def _body(self, request: Any) -> bytes:
        if self.body is None:
            content = request.content
            if request.headers.get("content-encoding") == "zstd":  # the SDK compresses when zstd is installed
                from backports import zstd

                content = zstd.decompress(content)
            names = json.loads(content)["questions"]
            self.body = json.dumps(
                {
                    "model": "jev-latest",
                    "usage": {"input_tokens": 100, "output_tokens": len(names)},
                    "answers": {name: {"type": "noul", "noul": 0.9} for name in names},
                }
            ).encode()
        return self.body

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        return httpx2.Response(
            200, content=self._body(request), headers={"content-type": "application/json"}
        )

    def httpx(self, request: Any) -> Any:
        import httpx

        self.requests += 1
        return httpx.Response(200, content=self._body(request), headers={"content-type": "application/json"})


def _clients(wire: Wire) -> tuple[TypeSafeClient, AsyncTypeSafeClient]:
    retry = RetryPolicy(max_retries=0)
    transport = httpx2.MockTransport(wire)
    return (
        TypeSafeClient(api_key=KEY, transport=transport, retry=retry),
        AsyncTypeSafeClient(api_key=KEY, transport=transport, retry=retry),
    )


def _statements(size: int) -> list[str]:
    return [f"the answer states fact number {i} about boiling water correctly" for i in range(size)]


Side = tuple[Callable[[], object] | None, Callable[[], Awaitable[object]] | None]


def _ours(size: int) -> dict[str, Side]:
    sdk_sync, sdk_async = _clients(Wire())
    questions = {
        f"c{i}": Noul(instructions=f"Is it true that {text}?") for i, text in enumerate(_statements(size))
    }
    data = JevJudgeInput(QUESTION, ANSWER)
    state = data.to_state()
    wired = {name: question.model_dump(mode="json") for name, question in questions.items()}
    sync_client, async_client = _clients(Wire())
    model = JevDecisionModel(client=sync_client, async_client=async_client)
    judge = JevJudge([JevCriterion.noul(name, q, 0.5) for name, q in questions.items()], model=model)
    alone_sync, alone_async = _clients(Wire())
    alone = JevDecisionModel(client=alone_sync, async_client=alone_async)
    request = {"state": state, "questions": questions}
    return {
        "bare SDK client.system_one": (
            lambda: sdk_sync.system_one(state, wired),
            lambda: sdk_async.system_one(state, wired),
        ),
        "langchain-jev judge / ajudge": (lambda: judge.invoke(data), lambda: judge.ainvoke(data)),
        "its decision model alone": (lambda: alone.invoke(request), lambda: alone.ainvoke(request)),
    }


def _jevals(size: int) -> dict[str, Side]:
    import httpx
    from jevals import Eval, Result, evaluate
    from jevals import Noul as JNoul
    from jevals._runner import aevaluate
    from jevals.backends.typesafe import TypeSafeBackend

    wire = Wire()
    statements = _statements(size)

    class Statements(Eval):
        name = "statements"

        def questions(self, s: Any) -> dict[str, Any]:
            return {f"c{i}": JNoul(f"Is it true that {text}?") for i, text in enumerate(statements)}

        def reduce(self, answers: dict[str, Any], s: Any) -> Result:
            probabilities = [answers[f"c{i}"].probability for i in range(len(statements))]
            return Result(passed=all(p >= 0.5 for p in probabilities), probability=min(probabilities))

    class Backend(TypeSafeBackend):
        def _client(self) -> httpx.AsyncClient:  # the same wire, one client per event loop as theirs
            loop = asyncio.get_running_loop()
            if self._http is None or self._http_loop is not loop:
                self._http = httpx.AsyncClient(transport=httpx.MockTransport(wire.httpx))
                self._http_loop = loop
            return self._http

    backend = Backend(api_key=KEY, base_url="http://jev.invalid")
    evals = [Statements()]
    sample = {"input": QUESTION, "output": ANSWER}
    checked = evaluate(sample, evals, backend)
    if checked.results[0].error or not checked.results[0].passed:  # jevals reports a failing eval, never raises
        raise RuntimeError(f"the jevals side does not judge: {checked.results[0].error}")
    return {
        "jevals, one eval holding the questions": (
            lambda: evaluate(sample, evals, backend),
            lambda: aevaluate(sample, evals, backend),
        )
    }


def _pytest_jev(size: int) -> dict[str, Side]:
    from pytest_jev.judge import Jev, JevSession

    client, _ = _clients(Wire())
    jev = Jev(JevSession(None), client, model="jev-latest", threshold=0.5)
    claims = _statements(size)
    return {"pytest-jev expect (no outcomes or feedback)": (lambda: jev.expect(ANSWER, holds=claims), None)}


def _deepeval(size: int) -> dict[str, Side]:
    from deepeval.metrics import JevEval
    from deepeval.metrics.jev_eval.questions import Noul as DNoul
    from deepeval.models.system_one.typesafe_model import TypeSafeModel
    from deepeval.test_case import LLMTestCase, SingleTurnParams

    wire = Wire()
    model = TypeSafeModel(api_key=KEY, transport=httpx2.MockTransport(wire), retry=RetryPolicy(max_retries=0))
    questions = [DNoul(statement=f"It is true that {text}.") for text in _statements(size)]
    params = [SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT]
    sync_metric = JevEval("facts", params, questions, model, async_mode=False)
    async_metric = JevEval("facts", params, questions, model)
    case = LLMTestCase(input=QUESTION, actual_output=ANSWER)
    return {
        "deepeval JevEval": (
            lambda: sync_metric.measure(case, _show_indicator=False),
            lambda: async_metric.a_measure(case, _show_indicator=False),
        )
    }


def _cpu_rounds(
    sides: dict[str, Side], rounds: int, inner: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Median CPU seconds per call of every side, sync and async, in interleaved rounds."""
    sync = {name: fn for name, (fn, _) in sides.items() if fn is not None}
    asyn = {name: fn for name, (_, fn) in sides.items() if fn is not None}
    samples: dict[tuple[str, str], list[float]] = {}

    async def async_round(warm: bool) -> None:
        for name, fn in asyn.items():
            start = time.process_time()
            for _ in range(inner):
                await fn()
            if not warm:
                samples.setdefault(("async", name), []).append((time.process_time() - start) / inner)

    loop = asyncio.new_event_loop()
    try:
        for index in range(rounds + 1):
            warm = index == 0
            for name, fn in sync.items():
                start = time.process_time()
                for _ in range(inner):
                    fn()
                if not warm:
                    samples.setdefault(("sync", name), []).append((time.process_time() - start) / inner)
            loop.run_until_complete(async_round(warm))
    finally:
        loop.close()
    medians = {key: statistics.median(values) for key, values in samples.items()}
    return (
        {name: medians[("sync", name)] for name in sync},
        {name: medians[("async", name)] for name in asyn},
    )


def jev_path(rounds: int = 9, inner: int = 60) -> tuple[list[Row], list[str]]:
    """CPU per verdict over the bare SDK, every side, 1, 10 and 50 criteria."""
    rows: list[Row] = []
    lines: list[str] = []
    builders = {"jevals": _jevals, "pytest_jev": _pytest_jev, "deepeval": _deepeval}
    missing = {peer: _available(peer) for peer in builders}
    for peer, why in missing.items():
        if why is not None:
            lines.append(f"  {peer}: not measured ({why})")
    per_size: dict[int, tuple[dict[str, float], dict[str, float]]] = {}
    for size in SIZES:
        sides = _ours(size)
        for peer, build in builders.items():
            if missing[peer] is None:
                sides.update(build(size))
        sync, asyn = _cpu_rounds(sides, rounds, inner if size < 50 else max(3, inner * 25 // size))
        per_size[size] = (sync, asyn)
        base_sync, base_async = sync["bare SDK client.system_one"], asyn["bare SDK client.system_one"]
        lines.append(f"  {size} criteria: CPU per verdict / bare SDK (sync {base_sync * 1e6:.0f} us, async {base_async * 1e6:.0f} us)")
        for name in sides:
            if name == "bare SDK client.system_one":
                continue
            s = f"{sync[name] / base_sync:5.2f}" if name in sync else "    -"
            a = f"{asyn[name] / base_async:5.2f}" if name in asyn else "    -"
            lines.append(f"    {name:<46} sync {s}  async {a}")
        judge = "langchain-jev judge / ajudge"
        for mode, measured, base in (("sync", sync, base_sync), ("async", asyn, base_async)):
            ratio = measured[judge] / base
            goal = GOALS.get(f"{mode} {size}")
            rows.append(
                row(
                    f"peers: judge / bare SDK, {size} criteria, {mode}",
                    ratio,
                    f"<= {goal}" if goal else "(info)",
                    goal is None or ratio <= goal,
                )
            )
    for mode, index in (("sync", 0), ("async", 1)):
        ten, fifty = per_size[10][index], per_size[50][index]
        ours = (fifty["langchain-jev judge / ajudge"] - ten["langchain-jev judge / ajudge"]) / 40 * 1e6
        sdk = (fifty["bare SDK client.system_one"] - ten["bare SDK client.system_one"]) / 40 * 1e6
        rows.append(
            row(
                f"peers: extra criterion over the SDK, {mode} (SDK {sdk:.1f} us)",
                ours - sdk,
                f"<= {PER_CRITERION_GOAL:g}",
                ours - sdk <= PER_CRITERION_GOAL,
                "us",
            )
        )
    return rows, lines


# ------------------------------------------------------------------ the fake chat model

LATENCY = 0.05
EXAMPLES = 50
IN_FLIGHT = 50

CRITERIA = {
    "answers_question": "Does the answer address the user's question directly?",
    "is_correct": "Is every factual claim in the answer correct?",
    "is_grounded": "Is every claim in the answer supported by the context?",
    "is_concise": "Is the answer free of padding and repetition?",
    "is_polite": "Is the answer courteous and free of condescension?",
}


BATCHED = "openevals, one hand-written prompt + described schema"
BATCHED_LEAN = "openevals, one hand-written prompt + lean schema"
TOKEN_GOAL = 1.2
"""Prompt plus schema tokens per verdict over the hand-batched openevals call's (either schema)."""


def _filled(schema: dict[str, Any]) -> Any:
    """A valid value for a JSON schema: yes, 0.9, a short reason."""
    kind = schema.get("type")
    if kind == "object":
        return {name: _filled(sub) for name, sub in schema.get("properties", {}).items()}
    if kind == "boolean":
        return True
    if kind in ("number", "integer"):
        return 0.9
    if kind == "array":
        return []
    return "It holds."


class FakeChat(BaseChatModel):
    """A chat model with tool calling that takes ``latency`` seconds and answers any schema validly."""

    latency: float = LATENCY
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _prompts: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _schemas: list[list[dict[str, Any]]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "bench-fake-chat"

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], tool_choice=tool_choice, **kwargs)

    def totals(self) -> tuple[int, int, int]:
        """Calls, prompt tokens and schema tokens so far (counted here, outside the timed run)."""
        prompt = sum(count_tokens(_text(m)) for messages in self._prompts for m in messages)
        schema = sum(count_tokens(json.dumps(t)) for tools in self._schemas for t in tools)
        return len(self._prompts), prompt, schema

    def _reply(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> ChatResult:
        tools = kwargs.get("tools") or []
        with self._lock:
            self._prompts.append(list(messages))
            self._schemas.append(list(tools))
        if not tools:
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="yes"))])
        function = tools[0]["function"]
        call = {"name": function["name"], "args": _filled(function["parameters"]), "id": "call_1", "type": "tool_call"}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=[call]))])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        time.sleep(self.latency)
        return self._reply(messages, kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        await asyncio.sleep(self.latency)
        return self._reply(messages, kwargs)


def _text(message: BaseMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(b["text"] for b in message.content if isinstance(b, dict) and b.get("type") == "text")


def _examples() -> list[tuple[str, str, list[str]]]:
    return [
        (
            f"How long should I boil an egg at {600 + 100 * (i % 20)} metres?",
            f"About {9 + i % 4} minutes for a hard yolk: water boils a little cooler up there, so add a minute.",
            [f"Water boils at about {100 - (i % 20) * 0.33:.1f} C at {600 + 100 * (i % 20)} m. Hard-boiled eggs take 9 to 12 minutes."],
        )
        for i in range(EXAMPLES)
    ]


OPENEVALS_ONE = """You are an expert judge. {criterion} Answer true if it does, false if it does not.

<question>
{{inputs}}
</question>

<context>
{{context}}
</context>

<answer>
{{outputs}}
</answer>
"""

OPENEVALS_BATCH = """You are an expert judge. Judge the answer below against each criterion, and for each \
give a short reasoning and a true or false verdict.

Criteria:
{criteria}

<question>
{{inputs}}
</question>

<context>
{{context}}
</context>

<answer>
{{outputs}}
</answer>
"""


def _batch_schema(described: bool = True) -> dict[str, Any]:
    """The hand-batched openevals call's schema: with a description on every field, or lean (none)."""
    verdict: dict[str, Any] = {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string", "description": "Why, in one or two sentences."},
            "passed": {"type": "boolean", "description": "True if the criterion is met."},
        },
        "required": ["reasoning", "passed"],
        "additionalProperties": False,
    }
    schema: dict[str, Any] = {
        "title": "verdicts",
        "description": "One verdict per criterion.",
        "type": "object",
        "properties": dict.fromkeys(CRITERIA, verdict),
        "required": list(CRITERIA),
        "additionalProperties": False,
    }
    return schema if described else _lean(schema)


def _lean(schema: Any) -> Any:
    """A JSON schema without its descriptions."""
    if isinstance(schema, dict):
        return {key: _lean(value) for key, value in schema.items() if key != "description"}
    return schema


def content_tokens(example: tuple[str, str, list[str]]) -> int:
    """The tokens no judge prompt can leave out: the question, the answer, the context and the criterion texts."""
    question, answer, context = example
    return sum(count_tokens(text) for text in (question, answer, *context, *CRITERIA.values()))


Runner = Callable[[], Awaitable[object]]


def _chat_sides() -> dict[str, Callable[[FakeChat], Callable[[tuple[str, str, list[str]]], Awaitable[object]]]]:
    sides: dict[str, Callable[[FakeChat], Callable[[tuple[str, str, list[str]]], Awaitable[object]]]] = {}
    if _available("openevals") is None:
        from openevals.llm import create_async_llm_as_judge

        def one_per_criterion(chat: FakeChat) -> Callable[[tuple[str, str, list[str]]], Awaitable[object]]:
            judges = [
                create_async_llm_as_judge(prompt=OPENEVALS_ONE.format(criterion=text), judge=chat, feedback_key=name)
                for name, text in CRITERIA.items()
            ]

            async def run(example: tuple[str, str, list[str]]) -> object:
                question, answer, context = example
                return await asyncio.gather(
                    *(j(inputs=question, outputs=answer, context="\n".join(context)) for j in judges)
                )

            return run

        def batched(described: bool) -> Callable[[FakeChat], Callable[[tuple[str, str, list[str]]], Awaitable[object]]]:
            def build(chat: FakeChat) -> Callable[[tuple[str, str, list[str]]], Awaitable[object]]:
                listed = "\n".join(f"- {name}: {text}" for name, text in CRITERIA.items())
                judge = create_async_llm_as_judge(
                    prompt=OPENEVALS_BATCH.format(criteria=listed), judge=chat, output_schema=_batch_schema(described)
                )

                async def run(example: tuple[str, str, list[str]]) -> object:
                    question, answer, context = example
                    return await judge(inputs=question, outputs=answer, context="\n".join(context))

                return run

            return build

        sides["openevals, one call per criterion"] = one_per_criterion
        sides[BATCHED] = batched(True)
        sides[BATCHED_LEAN] = batched(False)

    def ours(strategy: str) -> Callable[[FakeChat], Callable[[tuple[str, str, list[str]]], Awaitable[object]]]:
        def build(chat: FakeChat) -> Callable[[tuple[str, str, list[str]]], Awaitable[object]]:
            criteria = [JevCriterion.noul(name, Noul(instructions=text), 0.5) for name, text in CRITERIA.items()]
            judge = JevJudge(criteria, model=ChatModelDecisionModel(chat, strategy=strategy))

            async def run(example: tuple[str, str, list[str]]) -> object:
                question, answer, context = example
                return await judge.ajudge(JevJudgeInput(question, answer, context=context))

            return run

        return build

    sides["langchain-jev structured"] = ours("structured")
    sides["langchain-jev auto (default)"] = ours("auto")
    return sides


async def _chat_round(build: Callable[[FakeChat], Callable[[tuple[str, str, list[str]]], Awaitable[object]]]) -> dict[str, float]:
    chat = FakeChat()
    run = build(chat)  # a fresh instance per round: auto probes again
    examples = _examples()
    gate = asyncio.Semaphore(IN_FLIGHT)

    async def one(example: tuple[str, str, list[str]]) -> object:
        async with gate:
            return await run(example)

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one(e) for e in examples))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    calls, prompt, schema = chat.totals()
    return {"calls": calls, "prompt": prompt, "schema": schema, "wall": wall, "cpu": cpu}


def chat_path(rounds: int = 7) -> tuple[list[Row], list[str]]:
    """The chat-path table: calls, tokens, wall and CPU, medians of interleaved rounds."""
    sides = _chat_sides()
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    loop = asyncio.new_event_loop()
    try:
        for index in range(rounds + 1):
            for name, build in sides.items():
                measured = loop.run_until_complete(_chat_round(build))
                if index:  # the first round warms up
                    samples[name].append(measured)
    finally:
        loop.close()
    table = {
        name: {key: statistics.median(s[key] for s in found) for key in found[0]} for name, found in samples.items()
    }
    lines = [
        f"  {EXAMPLES} examples x {len(CRITERIA)} yes/no criteria, fake chat model with {LATENCY * 1000:.0f} ms "
        f"latency, at most {IN_FLIGHT} in flight (ideal wall {LATENCY:.2f} s)",
        f"    {'side':<52} {'calls':>5} {'prompt tok':>10} {'schema tok':>10} {'wall s':>7} {'CPU s':>7}",
    ]
    for name, t in table.items():
        lines.append(
            f"    {name:<52} {t['calls']:5.0f} {t['prompt']:10,.0f} {t['schema']:10,.0f} {t['wall']:7.3f} {t['cpu']:7.3f}"
        )
    rows: list[Row] = []
    ours = table["langchain-jev structured"]
    auto = table["langchain-jev auto (default)"]
    rows.append(row("peers chat: auto calls for 50 first verdicts", auto["calls"], "<= 51", auto["calls"] <= 51, "calls"))
    rows.append(
        row("peers chat: structured wall / ideal (50 in flight)", ours["wall"] / LATENCY, "<= 1.5", ours["wall"] / LATENCY <= 1.5)
    )
    floor = content_tokens(_examples()[0]) * EXAMPLES
    lines.append(f"    {'content alone (question, answer, context, criterion texts): the floor':<52} {'':>5} {floor:10,.0f}")
    ours_tokens = ours["prompt"] + ours["schema"]
    for side, label in ((BATCHED, "described"), (BATCHED_LEAN, "lean")):
        batched = table.get(side)
        if batched is None:
            continue
        theirs = batched["prompt"] + batched["schema"]
        tokens = ours_tokens / theirs
        rows.append(
            row(f"peers chat: prompt+schema tokens / openevals batched, {label} schema", tokens, f"<= {TOKEN_GOAL}", tokens <= TOKEN_GOAL)
        )
        rows.append(row(f"peers chat: the floor (content alone) / openevals batched, {label} schema", floor / theirs, "(info)", True))
    batched = table.get(BATCHED)
    if batched is not None:
        cpu = ours["cpu"] / batched["cpu"]
        rows.append(row("peers chat: CPU per verdict / openevals batched", cpu, "<= 1.2", cpu <= 1.2))
    return rows, lines


# ------------------------------------------------------------------ the dataset command


def dataset(rows_count: int = 3200) -> tuple[list[Row], list[str]]:
    """The command line's throughput (cli_throughput) and jevals' dataset runner on the same server."""
    import cli_throughput

    rows = cli_throughput.run()
    lines = ["  dataset command: see the cli_throughput rows"]
    if _available("jevals") is None:
        share = _jevals_dataset(rows_count)
        lines.append(f"  jevals aevaluate_dataset, concurrency {cli_throughput.CONCURRENCY}: {share:.2f} of theory")
        rows.append(row("peers dataset: jevals rows/s / theoretical", share, "(info)", True))
    return rows, lines


def _jevals_dataset(count: int) -> float:
    """jevals' aevaluate_dataset with the command line's three questions, on the same server and clock."""
    import cli_throughput
    from jevals import Choice as JChoice
    from jevals import Eval, Result
    from jevals import Noul as JNoul
    from jevals import Score as JScore
    from jevals._runner import aevaluate_dataset
    from jevals.backends.typesafe import TypeSafeBackend

    from tests.support.jev_server import JevServer

    class Weather(Eval):
        name = "weather"

        def state(self, s: Any) -> dict[str, Any]:
            return {"user_question": s["input"], "assistant_answer": s["output"]}

        def questions(self, s: Any) -> dict[str, Any]:
            return {
                "helpfulness": JScore("How helpful?", criteria=["0", "1", "2", "3"]),
                "mode": JChoice("How?", criteria={"answered": None, "clarification_needed": None}),
                "has_details": JNoul("Detailed?"),
            }

        def reduce(self, answers: dict[str, Any], s: Any) -> Result:
            return Result(passed=answers["has_details"].probability >= 0.5)

    rows = [
        {"input": f"Will it rain in town {i} tomorrow?", "output": f"Yes: rain from 9am to noon in town {i}."}
        for i in range(count)
    ]
    with JevServer(delay=cli_throughput.DELAY, keep_bodies=False) as server:
        server.reset()
        backend = TypeSafeBackend(api_key=KEY, base_url=server.base_url)
        report = asyncio.run(
            aevaluate_dataset(rows, [Weather()], backend=backend, concurrency=cli_throughput.CONCURRENCY)
        )
        rate = cli_throughput._rate(server.times(), count)
    errors = [r.results[0].error for r in report.reports if r.results[0].error]
    if len(report.reports) != count or errors:
        raise RuntimeError(f"jevals did not judge every row: {errors[:1]}")
    return rate / cli_throughput.THEORETICAL


# ------------------------------------------------------------------ the run


SECTIONS: dict[str, Callable[[], tuple[list[Row], list[str]]]] = {
    "jev": jev_path,
    "chat": chat_path,
    "dataset": dataset,
}

NOTES = [
    "Not like for like:",
    "  - pytest-jev decides nothing: it returns the probabilities and asserts; no outcomes, feedback or tracing.",
    "  - openevals' hand-batched call returns booleans, not probabilities; its schema and prompt are the",
    "    user's to write (the ones used here are printed by this module's source).",
    "  - jevals reduces with its own code (here: all probabilities >= 0.5); its sync call runs a fresh event loop.",
    "  - deepeval builds a new sync SDK client per measure(); its async client is kept.",
    "  - CPU is process time. The chat path counts tokens after the timed run; its CPU includes",
    "    LangChain's chat-model machinery and the fake model (the same for every side).",
]


def _scratch() -> None:
    """Work in a fresh folder: peers that write files (deepeval's ``.deepeval``) write them there."""
    os.chdir(tempfile.mkdtemp(prefix="peers-"))


def run() -> list[Row]:
    """Every section's rows (for benchmarks/run.py)."""
    _scratch()
    rows: list[Row] = [load_row()]
    for build in SECTIONS.values():
        found, _ = build()
        rows.extend(found)
    return rows


def main(argv: list[str]) -> int:
    chosen = argv or list(SECTIONS)
    unknown = [name for name in chosen if name not in SECTIONS]
    if unknown:
        print(f"unknown section(s): {', '.join(unknown)}; sections: {', '.join(SECTIONS)}")
        return 2
    _scratch()
    print(f"peers side by side, {date.today().isoformat()}, {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"{machine_load()} at start")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in _versions().items()))
    rows: list[Row] = []
    for name in chosen:
        found, lines = SECTIONS[name]()
        print(f"\n[{name}]")
        print("\n".join(lines))
        rows.extend(found)
    print(f"\n{machine_load()} at the end")
    print()
    print("\n".join(NOTES))
    print()
    print_table("Goals", rows)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
