"""Trajectories read from LangGraph threads: the steps, the messages, the tool calls.

`read_thread` reads a thread of a compiled graph from its checkpoints
(``get_state_history``, subgraphs included through their checkpoint namespaces);
`read_checkpoints` reads one from a checkpointer and a thread id alone;
`aread_thread` and `aread_checkpoints` are their async twins. Each gives a
`ThreadTrajectory`:

- ``steps``: every node that ran, in order, as a `ThreadStep`: its name (a
  subgraph's nodes prefixed with the subgraph's node, ``"research:agent"``, as
  agentevals names them), the turn it ran in (a turn begins where the thread took
  input) and the messages it wrote. A step that only made tool calls is a step
  like any other.
- ``messages``: the thread's messages in the order the steps wrote them, each once.
- ``tool_calls``: every tool call, with the tool's result and the number of the
  assistant message that made it, so strict matching tells calls made together
  from calls made one after another.

`ThreadTrajectory.to_input` is the judge input the trajectory judge reads (every
match mode and arguments rule of `langchain_jev.judges._checks.tool_calls`), with
the steps in the ``graph_steps`` field; `steps_match` matches the steps against a
reference in the same four modes, by the same maximum matching.

A checkpointer alone does not say which of two nodes that ran side by side wrote
which message: `read_checkpoints` names such a step by its nodes joined with
``"|"``. Give the graph (`read_thread`) to tell them apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage, convert_to_messages
from langchain_core.runnables import RunnableConfig

from langchain_jev._conversation import message_text, tool_calls_from_messages
from langchain_jev._errors import JevInputError
from langchain_jev._input import JevJudgeInput, ToolCall
from langchain_jev.judges._checks.tool_calls import TrajectoryMode, trajectory_matches

__all__ = [
    "STEPS_FIELD",
    "ThreadStep",
    "ThreadTrajectory",
    "aread_checkpoints",
    "aread_thread",
    "read_checkpoints",
    "read_thread",
    "steps_match",
]

STEPS_FIELD = "graph_steps"
"""The state field `ThreadTrajectory.to_input` puts the steps in: node names, a list per turn."""


@dataclass(frozen=True)
class ThreadStep:
    """One node that ran in a thread, with the messages it wrote.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> call = {"name": "search", "args": {}, "id": "1"}
        >>> step = ThreadStep("agent", 0, (AIMessage("", tool_calls=[call]),))
        >>> step.node, [call.name for call in step.tool_calls]
        ('agent', ['search'])

    """

    node: str
    """The node's name; a subgraph's node is prefixed with the subgraph's node (``"research:agent"``)."""
    turn: int
    """The turn it ran in, from 0 (a turn begins where the thread took input)."""
    messages: tuple[BaseMessage, ...] = ()
    """The messages it wrote that no earlier step wrote."""

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls its assistant messages made (numbered within the step)."""
        return tool_calls_from_messages(self.messages)


@dataclass(frozen=True)
class ThreadTrajectory:
    """What a LangGraph thread did: its steps, and from them its messages and tool calls.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> thread = ThreadTrajectory((ThreadStep("__start__", 0, (HumanMessage("Hi", id="h"),)),
        ...                            ThreadStep("agent", 0, (AIMessage("Hello", id="a"),))))
        >>> thread.nodes(), thread.to_input().answer
        ([['__start__', 'agent']], 'Hello')

    """

    steps: tuple[ThreadStep, ...]
    """Every node that ran, in order, subgraphs' nodes included."""

    @property
    def messages(self) -> tuple[BaseMessage, ...]:
        """The thread's messages, in the order its steps wrote them."""
        return tuple(message for step in self.steps for message in step.messages)

    @property
    def tool_calls(self) -> list[ToolCall]:
        """Every tool call, with its result and the assistant message that made it (from 0)."""
        return tool_calls_from_messages(self.messages)

    def nodes(self) -> list[list[str]]:
        """The names of the steps, a list per turn (agentevals' ``steps``)."""
        turns: list[list[str]] = [[] for _ in range(max((s.turn for s in self.steps), default=-1) + 1)]
        for step in self.steps:
            turns[step.turn].append(step.node)
        return turns

    def to_input(self, *, fields: Mapping[str, Any] | None = None) -> JevJudgeInput:
        """The judge input of the whole thread: the last question and answer, every tool call.

        ``user_question`` is the last human message, ``assistant_answer`` the last
        assistant message without tool calls, ``tool_calls`` every call of the
        thread and `STEPS_FIELD` the steps' names per turn; ``fields`` adds more.
        """
        messages = self.messages
        question = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
        answer = next((m for m in reversed(messages) if isinstance(m, AIMessage) and not m.tool_calls), None)
        return JevJudgeInput(
            question=None if question is None else message_text(question),
            answer=None if answer is None else message_text(answer),
            tool_calls=self.tool_calls,
            fields={STEPS_FIELD: self.nodes(), **(fields or {})},
        )


def steps_match(
    trajectory: ThreadTrajectory | Sequence[Any], reference: Sequence[Any], mode: TrajectoryMode = "strict"
) -> bool:
    """Whether a thread's steps match ``reference`` in ``mode`` (strict, unordered, subset, superset).

    ``reference`` is a list of node names for the whole thread, or a list of such
    lists, one per turn (agentevals' ``steps``); then each turn is matched with its
    own, and the thread must have as many turns. Strict: the same nodes in the same
    order; the other modes as for tool calls (`trajectory_matches`).

    Example:
        >>> steps_match([["__start__", "agent", "tools", "agent"]], ["agent", "tools"], "superset")
        True
        >>> steps_match([["__start__", "agent"], ["agent"]], [["__start__", "agent"], []], "subset")
        False

    """
    mine = (
        trajectory.nodes() if isinstance(trajectory, ThreadTrajectory) else _turns(trajectory, "trajectory")
    )
    theirs = _turns(reference, "reference")
    if reference and all(isinstance(item, str) for item in reference):
        mine, theirs = [[node for turn in mine for node in turn]], [list(reference)]
    if len(mine) != len(theirs):
        return False
    return all(
        trajectory_matches([ToolCall(node) for node in made], [ToolCall(node) for node in wanted], mode)
        for made, wanted in zip(mine, theirs, strict=True)
    )


def _turns(value: Sequence[Any], name: str) -> list[list[str]]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise JevInputError(f"{name} steps must be a list of node names, or a list of them per turn")
    if all(isinstance(item, str) for item in value):
        return [list(value)]
    turns: list[list[str]] = []
    for index, turn in enumerate(value):
        if isinstance(turn, (str, bytes)) or not isinstance(turn, Sequence):
            raise JevInputError(
                f"{name} steps[{index}] must be a list of node names, got {type(turn).__name__}"
            )
        if not all(isinstance(node, str) for node in turn):
            raise JevInputError(f"{name} steps[{index}] must hold node names (strings) only")
        turns.append(list(turn))
    return turns


# ---------------------------------------------------------------- from a graph


def read_thread(graph: Any, config: RunnableConfig, *, messages_key: str = "messages") -> ThreadTrajectory:
    """The trajectory of the thread ``config`` names, read from ``graph``'s checkpoints, subgraphs included.

    Args:
        graph: a compiled LangGraph graph with a checkpointer (an agent from
            ``create_agent`` is one).
        config: the thread's config (``{"configurable": {"thread_id": ...}}``).
        messages_key: the state key holding the messages.

    """
    return _trajectory(_history(graph, config, messages_key))


async def aread_thread(
    graph: Any, config: RunnableConfig, *, messages_key: str = "messages"
) -> ThreadTrajectory:
    """`read_thread` through ``aget_state_history``."""
    return _trajectory(await _ahistory(graph, config, messages_key))


@dataclass(frozen=True)
class _Task:
    """A node that ran between two checkpoints: its name, what it wrote, a subgraph's own steps."""

    name: str
    writes: list[BaseMessage]
    children: list[_Transition] | None = None


@dataclass(frozen=True)
class _Transition:
    """From one checkpoint of a namespace to the next: the messages before and after, the tasks between."""

    starts_turn: bool
    before: list[BaseMessage]
    after: list[BaseMessage]
    tasks: list[_Task]


def _history(graph: Any, config: RunnableConfig, key: str) -> list[_Transition]:
    snapshots = list(graph.get_state_history(config))[::-1]
    nested = [{t.id: _history(graph, t.state, key) for t in s.tasks if _nested(t)} for s in snapshots]
    return _transitions(snapshots, nested, key)


async def _ahistory(graph: Any, config: RunnableConfig, key: str) -> list[_Transition]:
    snapshots = [s async for s in graph.aget_state_history(config)][::-1]
    nested = [{t.id: await _ahistory(graph, t.state, key) for t in s.tasks if _nested(t)} for s in snapshots]
    return _transitions(snapshots, nested, key)


def _nested(task: Any) -> bool:
    state = task.state
    return isinstance(state, Mapping) and bool(state.get("configurable", {}).get("checkpoint_ns"))


def _transitions(snapshots: list[Any], nested: list[dict[str, Any]], key: str) -> list[_Transition]:
    """A namespace's snapshots (oldest first) as transitions; a task's result is what it wrote."""
    return [
        _Transition(
            (before.metadata or {}).get("source") == "input",
            _messages(before.values, key),
            _messages(after.values, key),
            [
                _Task(task.name, _messages(task.result, key), children.get(task.id))
                for task in before.tasks
                if task.result is not None or task.id in children
            ],
        )
        for before, after, children in zip(snapshots, snapshots[1:], nested, strict=False)
    ]


def _trajectory(transitions: list[_Transition]) -> ThreadTrajectory:
    steps: list[ThreadStep] = []
    _walk(transitions, "", None, set(), steps)
    return ThreadTrajectory(tuple(steps))


def _walk(
    transitions: list[_Transition], prefix: str, turn: int | None, seen: set[str], out: list[ThreadStep]
) -> None:
    """Append the steps of one namespace (a subgraph's after its node's own step) to ``out``."""
    current = -1 if turn is None else turn
    for transition in transitions:
        if turn is None and transition.starts_turn:
            current += 1
        here = max(current, 0)
        known = {_identity(m) for m in transition.before}
        added = [m for m in transition.after if _identity(m) not in known]
        for task, written in zip(transition.tasks, _attribute(added, transition.tasks), strict=True):
            at = len(out)
            if task.children is not None:
                _walk(task.children, f"{prefix}{task.name}:", here, seen, out)
            out.insert(at, ThreadStep(prefix + task.name, here, _new(written, seen)))


def _attribute(added: list[BaseMessage], tasks: list[_Task]) -> list[list[BaseMessage]]:
    """Which task wrote each added message: the one whose writes hold it (ids aside), else the first."""
    placed: list[list[BaseMessage]] = [[] for _ in tasks]
    if len(tasks) == 1:
        return [added]
    pending = [[_content(m) for m in task.writes] for task in tasks]
    for message in added:
        content = _content(message)
        owner = next((i for i, writes in enumerate(pending) if content in writes), 0)
        if content in pending[owner]:
            pending[owner].remove(content)
        placed[owner].append(message)
    return placed


def _messages(values: Any, key: str) -> list[BaseMessage]:
    value = values.get(key) if isinstance(values, Mapping) else None
    if value is None:
        return []
    items = value if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) else [value]
    return [m for m in convert_to_messages(items) if not isinstance(m, RemoveMessage)]


def _content(message: BaseMessage) -> str:
    return json.dumps(message.model_dump(exclude={"id"}), sort_keys=True, default=str)


def _identity(message: BaseMessage) -> str:
    return message.id or _content(message)


def _new(messages: Iterable[BaseMessage], seen: set[str]) -> tuple[BaseMessage, ...]:
    fresh: list[BaseMessage] = []
    for message in messages:
        identity = _identity(message)
        if identity not in seen:
            seen.add(identity)
            fresh.append(message)
    return tuple(fresh)


# ---------------------------------------------------------------- from a checkpointer


def read_checkpoints(
    checkpointer: Any, thread_id: str, *, messages_key: str = "messages"
) -> ThreadTrajectory:
    """The trajectory of thread ``thread_id``, read from a LangGraph checkpointer alone.

    A step is named by the node that ran (its ``versions_seen`` changed); nodes
    that ran side by side make one step, named by their names joined with ``"|"``.
    """
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    return _trajectory(_from_checkpoints(list(checkpointer.list(config)), "", messages_key))


async def aread_checkpoints(
    checkpointer: Any, thread_id: str, *, messages_key: str = "messages"
) -> ThreadTrajectory:
    """`read_checkpoints` through the checkpointer's ``alist``."""
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    return _trajectory(_from_checkpoints([c async for c in checkpointer.alist(config)], "", messages_key))


def _from_checkpoints(tuples: list[Any], namespace: str, key: str) -> list[_Transition]:
    """The transitions of ``namespace`` among a thread's checkpoint tuples, its subgraphs' within."""
    items = sorted(
        (c for c in tuples if c.config["configurable"].get("checkpoint_ns", "") == namespace),
        key=lambda c: c.metadata.get("step", 0),
    )
    transitions: list[_Transition] = []
    for before, after in pairwise(items):
        ran = _ran(before.checkpoint, after.checkpoint)
        if not ran:
            continue
        writes = [value for _, channel, value in before.pending_writes or () if channel == key]
        children = None
        for task_id in dict.fromkeys(write[0] for write in before.pending_writes or ()):
            child = _child(tuples, namespace, task_id)
            if child is not None and len(ran) == 1:
                children = _from_checkpoints(tuples, child, key)
        transitions.append(
            _Transition(
                before.metadata.get("source") == "input",
                _messages(before.checkpoint.get("channel_values", {}), key),
                _messages(after.checkpoint.get("channel_values", {}), key),
                [
                    _Task(
                        "|".join(ran), [m for value in writes for m in _messages({key: value}, key)], children
                    )
                ],
            )
        )
    return transitions


def _ran(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The nodes that ran between two checkpoints: those whose ``versions_seen`` changed."""
    old, new = before.get("versions_seen", {}), after.get("versions_seen", {})
    return sorted(node for node, seen in new.items() if node != "__input__" and old.get(node) != seen)


def _child(tuples: list[Any], namespace: str, task_id: str) -> str | None:
    """The namespace of the subgraph that task ``task_id`` of ``namespace`` ran, if it ran one."""
    for item in tuples:
        candidate = item.config["configurable"].get("checkpoint_ns", "")
        parent, _, last = candidate.rpartition("|")
        if parent == namespace and last.endswith(f":{task_id}"):
            return str(candidate)
    return None
