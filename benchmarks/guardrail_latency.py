"""Guardrail latency: what a user of a guarded model waits for, against the same model unguarded.

Jev is the loopback test server in a child process, answering every question after
``JUDGE_DELAY`` seconds (as a remote Jev would); the chat model is a fake that takes
``LATENCY`` seconds to reply, or streams ``TOKENS`` tokens ``TOKEN_S`` seconds apart.
Every guarded form carries an input and an output battery of all their categories.
All runs are interleaved in one process, one of each per round, and the figures are
medians; the machine's load is printed before and after (it is shared: the figures
that involve waiting drift with it).

- **turn**: ``invoke`` of a guarded turn / the same turn unguarded, for the guarded
  model node (``create_guarded_model_node``) and the agent middleware
  (``JevGuardrailMiddleware`` in ``create_agent``). With the input check running
  beside the model's call (``concurrent_input``, the default) the ideal is
  ``(LATENCY + JUDGE_DELAY) / LATENCY`` (only the output check adds its wait);
  checking one after the other (``concurrent_input=False``, shown for comparison)
  it is ``(LATENCY + 2 * JUDGE_DELAY) / LATENCY``. Goal: at most 1.40.
- **time to the first visible token** (``stream_mode="messages"``): with
  ``stream_chunks=CHUNK`` the first chunk is shown once the model wrote it and one
  check judged it, so the ideal is the time the unguarded stream takes to its
  ``CHUNK``-th token plus one check (the output battery called bare, measured here).
  Goal: the guarded time to the first token at most 1.3 times that. The reply held
  whole until it is judged (no ``stream_chunks``) is shown against the unguarded
  first token for comparison.
- **time to the first judged chunk on v3** (``stream_events(version="v3")``, the
  protocol's text deltas): the agent middleware with ``stream_chunks=CHUNK``, whose
  ideal is the unguarded agent's time to its ``CHUNK``-th delta on v3 plus one
  check. Goal: at most 1.3 times that.

    python benchmarks/guardrail_latency.py
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import count
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, print_table, row, served_url
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableLambda
from langgraph.graph import END, START, MessagesState, StateGraph

from langchain_jev.graph import GuardrailState, create_guarded_model_node
from langchain_jev.guardrails import HazardBattery
from langchain_jev.middleware import JevGuardrailMiddleware
from langchain_jev.models import JevDecisionModel

LATENCY = 0.3
JUDGE_DELAY = 0.1
TOKENS = 100
TOKEN_S = 0.02
CHUNK = 20
TURN_GOAL = 1.40
TTFT_GOAL = 1.3
ROUNDS = 7


class SlowChat(BaseChatModel):
    """A chat model that replies after ``LATENCY`` seconds, or streams ``TOKENS`` tokens ``TOKEN_S`` apart."""

    streaming_reply: bool = False

    @property
    def _llm_type(self) -> str:
        return "slow-chat"

    def _text(self) -> str:
        return "".join(self._tokens())

    @staticmethod
    def _tokens() -> list[str]:
        return [f"word{i} " for i in range(TOKENS)]

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        time.sleep(TOKENS * TOKEN_S if self.streaming_reply else LATENCY)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self._text()))])

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        await asyncio.sleep(TOKENS * TOKEN_S if self.streaming_reply else LATENCY)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self._text()))])

    def _stream(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> Iterator[ChatGenerationChunk]:
        if not self.streaming_reply:
            time.sleep(LATENCY)
            yield ChatGenerationChunk(message=AIMessageChunk(content=self._text()))
            return
        for token in self._tokens():
            time.sleep(TOKEN_S)
            yield ChatGenerationChunk(message=AIMessageChunk(content=token))

    def bind_tools(self, tools: Any, **kwargs: Any) -> SlowChat:  # type: ignore[override]
        return self


@contextmanager
def jev_server() -> Iterator[str]:
    """The loopback Jev server in a child process, every noul answered 0.02 after JUDGE_DELAY; yields its URL."""
    command = [sys.executable, "-m", "langchain_jev.testing.server", "--delay", str(JUDGE_DELAY), "--noul", "0.02"]
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        yield served_url(child.stdout)
    finally:
        child.terminate()
        child.wait(timeout=10)


def _plain_graph(chat: SlowChat) -> Any:
    def call(state: MessagesState) -> dict[str, Any]:
        return {"messages": [chat.invoke(state["messages"])]}

    async def acall(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await chat.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState).add_node("agent", RunnableLambda(call, afunc=acall))
    return builder.add_edge(START, "agent").add_edge("agent", END).compile()


def _guarded_graph(chat: SlowChat, jev: JevDecisionModel, **options: Any) -> Any:
    node = create_guarded_model_node(chat, HazardBattery.input(model=jev), HazardBattery.output(model=jev), **options)
    builder = StateGraph(GuardrailState).add_node("agent", node)
    return builder.add_edge(START, "agent").add_edge("agent", END).compile()


def _guarded_agent(chat: SlowChat, jev: JevDecisionModel, **options: Any) -> Any:
    return create_agent(chat, middleware=[JevGuardrailMiddleware(model=jev, **options)])


_questions = count()


def _turn() -> dict[str, Any]:
    """A new question each time, so the ledger never spares a check."""
    return {"messages": [HumanMessage(f"Question {next(_questions)}: how long do lentils take to cook?")]}


def _medians(runs: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    """Each run's median seconds, the runs interleaved one of each per round (after one warm-up round)."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for fn in runs.values():
        fn()
    for _ in range(rounds):
        for name, fn in runs.items():
            samples[name].append(fn())
    return {name: statistics.median(values) for name, values in samples.items()}


def _timed(call: Callable[[], Any]) -> Callable[[], float]:
    def run() -> float:
        start = time.perf_counter()
        call()
        return time.perf_counter() - start

    return run


def _first_shown(parts: Callable[[], Iterable[Any]], shows: Callable[[Any], bool], nth: int) -> Callable[[], float]:
    """Seconds from the start of a run's stream (``parts()``) to its ``nth`` part that ``shows`` text (the run consumed whole)."""

    def run() -> float:
        start = time.perf_counter()
        seen, at = 0, None
        for part in parts():
            if shows(part):
                seen += 1
                if seen == nth and at is None:
                    at = time.perf_counter() - start
        assert at is not None, f"the stream showed {seen} parts with text, fewer than {nth}"
        return at

    return run


def _first_tokens(graph: Any, nth: int = 1) -> Callable[[], float]:
    """Time to the ``nth`` token with text on ``stream_mode="messages"`` (a chunk, or a reply shown whole)."""

    def shows(part: Any) -> bool:
        return isinstance(part[0], AIMessage) and bool(part[0].content)

    return _first_shown(lambda: graph.stream(_turn(), stream_mode="messages"), shows, nth)


def _text_delta(event: dict[str, Any]) -> bool:
    """True for a v3 event that shows text: a text delta of a model run, or a message shown whole."""
    if event["method"] != "messages":
        return False
    payload = event["params"]["data"][0]
    if isinstance(payload, AIMessage):
        return bool(payload.content)
    delta = payload.get("delta") if isinstance(payload, dict) else None
    return isinstance(delta, dict) and delta.get("type") == "text-delta" and bool(delta.get("text"))


def _first_deltas(graph: Any, nth: int = 1) -> Callable[[], float]:
    """Time to the ``nth`` text delta of a ``stream_events(version="v3")`` run."""
    return _first_shown(lambda: graph.stream_events(_turn(), version="v3"), _text_delta, nth)


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} on {os.cpu_count()} cores"


def measure(rounds: int = ROUNDS) -> dict[str, float]:
    """Median seconds of every run (see the module docs)."""
    with jev_server() as url:
        jev = JevDecisionModel(api_key="sk-bench", base_url=url)
        chat, streamer = SlowChat(), SlowChat(streaming_reply=True)
        graphs = {
            "graph": _plain_graph(chat),
            "graph guarded": _guarded_graph(chat, jev),
            "graph guarded, sequential": _guarded_graph(chat, jev, concurrent_input=False),
            "agent": create_agent(chat),
            "agent guarded": _guarded_agent(chat, jev),
            "agent guarded, sequential": _guarded_agent(chat, jev, concurrent_input=False),
        }
        turns = {name: _timed(lambda graph=graph: graph.invoke(_turn())) for name, graph in graphs.items()}
        loop = asyncio.new_event_loop()  # one loop for every async run: the async client's pool lives on it
        turns["graph async"] = _timed(lambda: loop.run_until_complete(graphs["graph"].ainvoke(_turn())))
        turns["graph guarded async"] = _timed(
            lambda: loop.run_until_complete(graphs["graph guarded"].ainvoke(_turn()))
        )
        battery = HazardBattery.output(model=jev)
        chunk_text = "".join(SlowChat._tokens()[:CHUNK])
        streams = {
            "stream: unguarded, first token": _first_tokens(_plain_graph(streamer)),
            f"stream: unguarded, token {CHUNK}": _first_tokens(_plain_graph(streamer), CHUNK),
            "stream: guarded in chunks, first token": _first_tokens(_guarded_graph(streamer, jev, stream_chunks=CHUNK)),
            "stream: guarded whole, first token": _first_tokens(_guarded_graph(streamer, jev)),
            f"v3: unguarded agent, delta {CHUNK}": _first_deltas(create_agent(streamer), CHUNK),
            "v3: middleware in chunks, first delta": _first_deltas(_guarded_agent(streamer, jev, stream_chunks=CHUNK)),
            "one check": _timed(lambda: battery.invoke({"user_question": "A question?", "assistant_answer": chunk_text})),
        }
        try:
            return {**_medians(turns, rounds), **_medians(streams, max(3, rounds - 2))}
        finally:
            loop.close()


def run() -> list[Row]:
    """The guardrail latency rows of the benchmark table (the load is printed with them)."""
    before = os.getloadavg()[0]
    print(f"guardrail latency: before, {_load()}", file=sys.stderr)
    t = measure()
    print(f"guardrail latency: after, {_load()}", file=sys.stderr)
    after = os.getloadavg()[0]
    ideal = (LATENCY + JUDGE_DELAY) / LATENCY
    sequential = (LATENCY + 2 * JUDGE_DELAY) / LATENCY
    graph = t["graph guarded"] / t["graph"]
    agent = t["agent guarded"] / t["agent"]
    first = t["stream: guarded in chunks, first token"]
    ttft_ideal = t[f"stream: unguarded, token {CHUNK}"] + t["one check"]
    held = t["stream: guarded whole, first token"] / t["stream: unguarded, first token"]
    v3_first = t["v3: middleware in chunks, first delta"]
    v3_ideal = t[f"v3: unguarded agent, delta {CHUNK}"] + t["one check"]
    return [
        row(f"guardrail turn: guarded model node / unguarded (ideal {ideal:.2f})", graph, f"<= {TURN_GOAL}", graph <= TURN_GOAL),
        row(f"guardrail turn: middleware / unguarded agent (ideal {ideal:.2f})", agent, f"<= {TURN_GOAL}", agent <= TURN_GOAL),
        row(
            f"guardrail turn: guarded model node, async / unguarded, async (ideal {ideal:.2f})",
            t["graph guarded async"] / t["graph async"],
            "(info)",
            True,
        ),
        row(
            f"guardrail turn: node, checks one after the other / unguarded (ideal {sequential:.2f})",
            t["graph guarded, sequential"] / t["graph"],
            "(info)",
            True,
        ),
        row(
            f"guardrail turn: middleware, checks one after the other / unguarded (ideal {sequential:.2f})",
            t["agent guarded, sequential"] / t["agent"],
            "(info)",
            True,
        ),
        row(
            f"guardrail stream: first token, stream_chunks={CHUNK} / (unguarded token {CHUNK} + one check)",
            first / ttft_ideal,
            f"<= {TTFT_GOAL}",
            first / ttft_ideal <= TTFT_GOAL,
        ),
        row(f"guardrail stream: first token, stream_chunks={CHUNK} (s)", first, "(info)", True, unit="s"),
        row(f"guardrail stream: unguarded token {CHUNK} + one check (s)", ttft_ideal, "(info)", True, unit="s"),
        row("guardrail stream: first token, reply held whole / unguarded first token", held, "(info)", True),
        row(
            f"guardrail stream v3: first judged chunk, middleware stream_chunks={CHUNK} / (unguarded delta {CHUNK} + one check)",
            v3_first / v3_ideal,
            f"<= {TTFT_GOAL}",
            v3_first / v3_ideal <= TTFT_GOAL,
        ),
        row("guardrail stream v3: first judged chunk (s)", v3_first, "(info)", True, unit="s"),
        row(f"guardrail stream v3: unguarded delta {CHUNK} + one check (s)", v3_ideal, "(info)", True, unit="s"),
        row(f"guardrail latency: machine load before the run ({os.cpu_count()} cores)", before, "(info)", True, "load"),
        row(f"guardrail latency: machine load after the run ({os.cpu_count()} cores)", after, "(info)", True, "load"),
    ]


if __name__ == "__main__":
    print(_load())
    rows = run()
    print_table(
        f"Guardrail latency (chat model {LATENCY:g} s or {TOKENS} tokens x {TOKEN_S:g} s, Jev server {JUDGE_DELAY:g} s; "
        "medians of interleaved runs)",
        rows,
    )
    print(_load())
