"""``langchain-jev simulate``'s engine: a conversation per row of personas and goals, one record each.

Each row (``persona``, ``goal``, ``script``: `user_from_row`) becomes a simulated
user; `asimulate` runs its conversation with the app, the judge and the stop
criterion asked in one request per turn; the conversation's record is the
results file's record of a judged row (`verdict_record` of the final verdict),
with the conversation and how it ended beside it, so ``--html``, ``compare`` and
``rejudge`` read it as they read ``judge``'s. The reading and writing is the
judge command's `Session` (lock, header, resume, tally, progress): a resumed run
runs no conversation that was recorded, and a conversation that ended in an
error is recorded as an error (never a pass) and run again on resume.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from langchain_core.decisions import Noul
from langchain_core.messages import AIMessage, BaseMessage

from langchain_jev._conversation import message_text
from langchain_jev._criteria import JevCriterion
from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev._judge import JevJudge
from langchain_jev.datasets._local.session import RunOptions, RunResult, Session, StopRun
from langchain_jev.datasets._rows import plain_row, row_key
from langchain_jev.datasets.results import record_head, verdict_record
from langchain_jev.models._secrets import redact
from langchain_jev.simulation._result import Simulation
from langchain_jev.simulation._rows import user_from_row
from langchain_jev.simulation._run import asimulate, check_options
from langchain_jev.simulation._user import UserModel

__all__ = [
    "STOP_NAME",
    "SimulationSetup",
    "conversation_record",
    "load_object",
    "run_simulations",
    "simulation_description",
    "stop_criterion",
]

STOP_NAME = "stop"
"""The name of the stop criterion ``--stop-when`` asks (a judge's criterion may not take it)."""


@dataclass(frozen=True)
class SimulationSetup:
    """What each row's conversation runs with: app, judge, turn limit, stop, the user's model."""

    app: Any
    judge: JevJudge
    max_turns: int
    stop_when: JevCriterion | None = None
    user_model: Any = None

    def __post_init__(self) -> None:
        check_options(self.app, max_turns=self.max_turns, judge=self.judge, stop_when=self.stop_when)


def load_object(reference: str, option: str) -> Any:
    """The object ``module:attribute`` names (the current directory is searched first, as ``python -m`` does).

    It must be a runnable: it has ``invoke`` and ``ainvoke`` (a LangGraph graph, an agent,
    a chat model, any LangChain runnable).

    Raises:
        JevConfigurationError: the reference is malformed, cannot be imported, or names no runnable;
            the message names ``option``.

    Example:
        >>> load_object("langchain_jev.testing:ScriptedDecisionModel", "--app")
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevConfigurationError: --app langchain_jev.testing:ScriptedDecisionModel: ...

    """
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise JevConfigurationError(
            f"{option} {reference}: give module:attribute, e.g. myproject.agent:graph"
        )
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
    except Exception as error:
        raise JevConfigurationError(
            f"{option} {reference}: cannot import it: {type(error).__name__}: {error}"
        ) from None
    if isinstance(target, type) or not (hasattr(target, "invoke") and hasattr(target, "ainvoke")):
        raise JevConfigurationError(
            f"{option} {reference}: {type(target).__name__} is not a runnable (it needs invoke and ainvoke: "
            "a compiled graph, an agent, a chat model)"
        )
    return target


def stop_criterion(instructions: str, minimum: float) -> JevCriterion:
    """``--stop-when``: the noul question that ends a conversation once its yes reaches ``minimum``.

    Example:
        >>> stop = stop_criterion("Has the user's goal been reached?", 0.8)
        >>> stop.name, stop.kind
        ('stop', 'noul')

    """
    if not instructions.strip():
        raise JevConfigurationError("--stop-when needs a question, e.g. 'Has the user's goal been reached?'")
    return JevCriterion.noul(STOP_NAME, Noul(instructions=instructions), minimum)


def simulation_description(
    judge: Mapping[str, Any],
    *,
    app: str,
    user_model: str | None,
    max_turns: int,
    stop: JevCriterion | None,
) -> dict[str, Any]:
    """The results header's ``judge`` of a simulation: the judge's description and what ran it.

    Under ``simulation``: the app, the user's model, the turn limit and the stop question, so
    ``--resume`` continues only the same simulation (its fingerprint covers them).

    Example:
        >>> described = simulation_description({"model": "m", "options": {}, "criteria": []},
        ...     app="bot:graph", user_model=None, max_turns=5, stop=None)
        >>> described["simulation"]
        {'app': 'bot:graph', 'user_model': None, 'max_turns': 5, 'stop_when': None}

    """
    stop_when = None
    if stop is not None and stop.question is not None:
        stop_when = {"instructions": stop.question.instructions, "minimum": stop.minimum}
    return {
        **judge,
        "simulation": {"app": app, "user_model": user_model, "max_turns": max_turns, "stop_when": stop_when},
    }


def conversation_record(
    number: int, line: int, key: str, row_id: Any, simulation: Simulation
) -> dict[str, Any]:
    """The record of a row's conversation: its final verdict's record, or an error's (never a pass).

    Beside the verdict: ``simulation`` (how it ended, its turns, each turn's stop outcome) and
    ``conversation`` (each message's role and text, tool calls included).

    Example:
        >>> broken = Simulation((), (), "error", None, "RuntimeError: down")
        >>> record = conversation_record(1, 1, "k", None, broken)
        >>> record["passed"], record["error"], record["simulation"]["ending"]
        (False, 'RuntimeError: down', 'error')

    """
    verdict = simulation.verdict
    if simulation.error is not None or verdict is None:
        record = record_head(number, line, key, row_id)
        record["passed"] = False
        said = simulation.error or "the conversation ended before any turn was judged"
        record["error"] = redact(said)
    else:
        record = verdict_record(number, line, key, row_id, verdict)
    record["simulation"] = {
        "ending": simulation.ending,
        "turns": len(simulation.turns),
        "stops": [turn.stop.outcome.value for turn in simulation.turns if turn.stop is not None],
    }
    record["conversation"] = [_message(message) for message in simulation.messages]
    return record


def _message(message: BaseMessage) -> dict[str, Any]:
    shown: dict[str, Any] = {"role": message.type, "content": message_text(message)}
    if isinstance(message, AIMessage) and message.tool_calls:
        shown["tool_calls"] = [{"name": call["name"], "args": call["args"]} for call in message.tool_calls]
    return shown


@dataclass(frozen=True)
class _Row:
    number: int
    line: int
    key: str
    row_id: Any
    user: UserModel


def run_simulations(
    setup: SimulationSetup, options: RunOptions, stderr: TextIO, *, closers: Sequence[Any] = ()
) -> RunResult:
    """Run a conversation per row of ``options.data`` (``options.concurrency`` at once), one record each."""
    session = Session(((c.name, c.kind) for c in setup.judge.criteria), options, stderr)
    try:
        if session.open():
            asyncio.run(_simulate_rows(setup, session, closers))
        else:
            asyncio.run(_close(closers))
    finally:
        session.close()
    return session.result


async def _simulate_rows(setup: SimulationSetup, session: Session, closers: Sequence[Any]) -> None:
    rows = _rows(setup, session)

    async def worker() -> None:
        try:
            for row in rows:  # one stream shared by the workers: each takes the next row
                simulation = await asimulate(
                    setup.app,
                    row.user,
                    max_turns=setup.max_turns,
                    judge=setup.judge,
                    stop_when=setup.stop_when,
                )
                session.record(conversation_record(row.number, row.line, row.key, row.row_id, simulation))
                if session.halted:
                    return
        except StopRun:  # --strict's first bad row: the stream ended, for every worker
            return

    try:
        await asyncio.gather(*(worker() for _ in range(session.options.concurrency)))
    finally:
        await _close(closers)


def _rows(setup: SimulationSetup, session: Session) -> Iterator[_Row]:
    options = session.options
    for raw in session.readable_rows():
        plain, problem = plain_row(raw.data, from_csv=raw.from_csv)
        if plain is None:
            session.bad(raw.number, raw.line, problem or "cannot be read")
            continue
        key = row_key(plain)
        if session.already_done(raw.number, raw.line, key):
            if session.stopped:
                return
            continue
        try:
            user = user_from_row(plain, setup.user_model)
        except JevInputError as error:
            session.bad(raw.number, raw.line, str(error))
            continue
        row_id = plain.get(options.fields.id_field) if options.fields.id_field else None
        yield _Row(raw.number, raw.line, key, row_id if isinstance(row_id, (str, int)) else None, user)


async def _close(closers: Sequence[Any]) -> None:
    from langchain_jev.datasets._model import close_all

    await close_all(list(closers))
