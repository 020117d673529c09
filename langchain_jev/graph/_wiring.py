"""How a guardrail is wired into the graph it runs in: the mistakes LangGraph does not flag.

A guardrail node routes the turn itself, with the ``Command`` it returns, and
writes its report to the state. Two natural ways of wiring it break that, and
LangGraph says nothing about either:

- **a route out of the guardrail node** (``builder.add_edge("guard", "agent")``,
  as tutorials wire every node, a join, or a conditional edge): LangGraph follows
  a node's edges *in addition to* ``Command.goto``, so a refused turn goes on to
  the next node and the model answers after the refusal. A node cannot see the
  graph it is compiled into, and LangGraph has no hook at compile time, so
  `require_no_route_out` reads the routes from the task LangGraph runs the node
  as, and **refuses on the first run**, before any check (fail closed: a
  wiring that lets a refused turn through is not run at all, not even for a
  safe turn, so it is found in development rather than by an attack);
- **no channel for the report** (``StateGraph(MessagesState)`` instead of
  `GuardrailState`): LangGraph drops an update to a key its state does not
  declare, without a word, so ``state["guardrail"]`` is never there.
  `report_channel_warning` warns on a node's first run (the turn itself is
  guarded all the same), naming the channel and the state class to use.

The same class holds a third: **messages without the ``add_messages`` reducer**
(``messages: list``, or ``Annotated[list, operator.add]`` as older tutorials
write). A refusal replaces the refused messages by id, which only
``add_messages`` does: with no reducer the update would overwrite the thread,
with list concatenation the refused request would stay in it, for the model to
read on the next turn. `require_messages_reducer` refuses that on the first run.

`add_guardrail` (in `langchain_jev.graph._builder`) wires a guardrail node so
that none of them can happen, and checks the builder's state when it wires
(`require_builder_channels`).

What is read of LangGraph's run config (its task and its channels) is not a
public interface: where it is missing or laid out otherwise (the node called
outside a graph, or from inside another node's function) nothing is checked.
"""

from __future__ import annotations

import functools
import operator
import warnings
from collections.abc import Callable, Collection, Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.channels.binop import BinaryOperatorAggregate
from langgraph.graph.message import add_messages

from langchain_jev._errors import JevConfigurationError

__all__ = [
    "GuardrailWiringWarning",
    "missing_report_channel",
    "outgoing_routes",
    "replaces_by_id",
    "require_builder_channels",
    "require_messages_reducer",
    "require_no_route_out",
    "report_channel_warning",
    "warn_without_report_channel",
]

_CALL_KEY = "__pregel_call"
"""Where LangGraph puts the call function of a node's task (it holds a reference to the task)."""
_READ_KEY = "__pregel_read"
"""Where LangGraph puts the read function of a node's task (it holds the graph's channels)."""
_BRANCH_TO = "branch:to:"
_JOIN = "join:"
_CONCATENATING = (operator.add, operator.iadd, operator.concat)


class GuardrailWiringWarning(UserWarning):
    """A guardrail is wired into a graph in a way that loses what it decided (its report).

    Turn it into an error with ``warnings.simplefilter("error", GuardrailWiringWarning)``.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("error", GuardrailWiringWarning)
        ...     try:
        ...         warnings.warn(missing_report_channel("guardrail", "the node"), GuardrailWiringWarning)
        ...     except GuardrailWiringWarning as caught:
        ...         print(str(caught).split(",")[0])
        the graph's state has no 'guardrail' channel

    """


def missing_report_channel(state_key: str, who: str) -> str:
    """The sentence that says a state has no channel for the guardrail's report, and what to use.

    Example:
        >>> print(missing_report_channel("guardrail", "the node 'guard'"))  # doctest: +ELLIPSIS
        the graph's state has no 'guardrail' channel, so the report of the node 'guard' (refused, ...

    """
    return (
        f"the graph's state has no {state_key!r} channel, so the report of {who} (refused, "
        "categories, probabilities) is dropped by LangGraph without a word: build the graph with "
        "StateGraph(GuardrailState) (from langchain_jev.graph) instead of MessagesState, or add "
        f"`{state_key}: NotRequired[dict[str, Any] | None]` to your own state"
    )


def _unwrapped(step: Any) -> Any:
    for _ in range(8):  # bindings (with_config, with_retry) nest shallowly
        inner = getattr(step, "bound", None)
        if inner is None:
            break
        step = inner
    return step


def _task(config: RunnableConfig | None, funcs: Collection[Callable[..., Any]]) -> Any | None:
    """The LangGraph task running a node whose runnable calls one of ``funcs``; None when there is none."""
    configurable = (config or {}).get("configurable") or {}
    call = configurable.get(_CALL_KEY)
    args: tuple[Any, ...] = getattr(call, "args", ())
    if not isinstance(call, functools.partial) or not args or not callable(args[0]):
        return None
    task = args[0]()  # a weak reference to the task
    steps = getattr(getattr(task, "proc", None), "steps", None)
    if not steps:
        return None
    first = _unwrapped(steps[0])
    if not any(getattr(first, attr, None) in funcs for attr in ("func", "afunc")):
        return None  # called from inside another node: that node's routes are not ours
    return task


def outgoing_routes(config: RunnableConfig | None, funcs: Collection[Callable[..., Any]]) -> list[str] | None:
    """The routes LangGraph takes out of the running node besides the ``Command`` it returns.

    ``funcs`` are the node's own functions (sync and async), which tell the node
    from another node that calls it. Each route is described for a person: a
    static edge or a join names the node it goes to, a conditional edge its path.
    None when the node does not run as a LangGraph node (nothing can be said).
    """
    task = _task(config, funcs)
    if task is None:
        return None
    routes: list[str] = []
    for writer in getattr(task, "writers", ()):
        writes = getattr(writer, "writes", None)
        if writes is None:
            path = getattr(getattr(getattr(writer, "func", None), "__self__", None), "path", None)
            named = getattr(path, "name", None) or getattr(path, "__name__", None)
            routes.append(f"a conditional edge ({named})" if named else "a conditional edge")
            continue
        for entry in writes:
            channel = getattr(entry, "channel", None)
            if not isinstance(channel, str):
                continue  # the node's own update and its Command's route
            if channel.startswith(_BRANCH_TO):
                routes.append(f"an edge to {channel[len(_BRANCH_TO) :]!r}")
            elif channel.startswith(_JOIN):
                routes.append(f"an edge to {channel.rsplit(':', 1)[-1]!r}")
    return routes


def require_no_route_out(
    config: RunnableConfig | None, funcs: Collection[Callable[..., Any]], who: str, next_node: str
) -> None:
    """Refuse to run a guardrail node that has an edge out of it (see the module docs).

    Raises:
        JevConfigurationError: the node has a static edge, a join or a conditional edge out of it.

    """
    routes = outgoing_routes(config, funcs)
    if not routes:
        return
    node = ((config or {}).get("metadata") or {}).get("langgraph_node") or "the guardrail node"
    raise JevConfigurationError(
        f"{who} {node!r} has {', '.join(routes)} out of it. LangGraph follows a node's edges in "
        "addition to the Command it returns, so a refused turn would go on past the refusal (the "
        "model would answer it). Remove the edge: the node routes the turn itself (a safe turn to "
        f"next_node={next_node!r}, a refusal to END); add it with "
        f"destinations=({next_node!r}, END), or wire it with "
        "add_guardrail(builder, battery, before=...). (A node cannot see its graph when it is built, "
        "so this is checked on its first run.)"
    )


def _channels(config: RunnableConfig | None) -> Mapping[str, Any] | None:
    configurable = (config or {}).get("configurable") or {}
    read = configurable.get(_READ_KEY)
    args: tuple[Any, ...] = getattr(read, "args", ())
    if isinstance(read, functools.partial) and len(args) >= 2 and isinstance(args[1], Mapping):
        return args[1]
    return None


def warn_without_report_channel(config: RunnableConfig | None, state_key: str, who: str) -> bool:
    """Warn (`GuardrailWiringWarning`) when the running graph's state has no ``state_key`` channel.

    Returns:
        True when it warned.

    """
    channels = _channels(config)
    if channels is None or state_key in channels:
        return False
    node = ((config or {}).get("metadata") or {}).get("langgraph_node")
    named = f"{who} {node!r}" if node else who
    warnings.warn(missing_report_channel(state_key, named), GuardrailWiringWarning, stacklevel=2)
    return True


def report_channel_warning(state_key: str, who: str) -> Callable[[RunnableConfig | None], bool]:
    """`warn_without_report_channel` for one node: it warns on the node's first run, not on every turn.

    The node keeps the fact that it warned itself rather than leaving it to Python's warning registry,
    which anything entering `warnings.catch_warnings` resets (langchain-core before 1.8.3 did on each
    call of a beta API, so the warning came back on every turn). A warning turned into an error is not
    counted as given: the next run raises again.

    Returns:
        The check to call with the running node's config; it returns True when it warned.

    """
    warned = False

    def check(config: RunnableConfig | None) -> bool:
        nonlocal warned
        if warned:
            return False
        warned = warn_without_report_channel(config, state_key, who)
        return warned

    return check


def replaces_by_id(channel: Any) -> bool | None:
    """Whether a messages channel replaces a message that comes again under its id.

    True for ``add_messages`` (as in `MessagesState`); False for a channel known
    not to: no reducer (the last value wins) or list concatenation
    (``operator.add``); None for a reducer of your own (it may).

    Example:
        >>> from langgraph.channels import LastValue
        >>> from langgraph.graph import MessagesState, StateGraph
        >>> replaces_by_id(StateGraph(MessagesState).channels["messages"])
        True
        >>> replaces_by_id(BinaryOperatorAggregate(list, operator.add)), replaces_by_id(LastValue(list))
        (False, False)

    """
    if not isinstance(channel, BinaryOperatorAggregate):
        return False
    reducer = channel.operator
    if reducer is add_messages or getattr(reducer, "func", None) is add_messages:
        return True
    return False if reducer in _CONCATENATING else None


def messages_without_reducer(messages_key: str, who: str) -> str:
    """The sentence that says a messages channel lacks ``add_messages``, why it matters, and the fix."""
    return (
        f"the graph's state keeps {messages_key!r} without the add_messages reducer, and {who} "
        "replaces a refused message by its id, which only add_messages does: the refused request "
        "would stay in the thread (or the thread be overwritten) for the model to read on the next "
        f"turn. Declare `{messages_key}: Annotated[list[AnyMessage], add_messages]`, as "
        "MessagesState and GuardrailState do"
    )


def require_messages_reducer(config: RunnableConfig | None, messages_key: str, who: str) -> None:
    """Refuse to run when the running graph keeps its messages in a channel that cannot replace by id.

    A missing channel is left to the node, which names the key it cannot read.

    Raises:
        JevConfigurationError: the messages channel has no reducer, or concatenates lists.

    """
    channels = _channels(config)
    if channels is None or messages_key not in channels:
        return
    if replaces_by_id(channels[messages_key]) is False:
        node = ((config or {}).get("metadata") or {}).get("langgraph_node")
        named = f"{who} {node!r}" if node else who
        raise JevConfigurationError(messages_without_reducer(messages_key, named))


def require_builder_channels(builder: Any, state_key: str, messages_key: str, who: str) -> None:
    """Refuse a `StateGraph` builder whose state has no channel for the report or cannot keep messages.

    Raises:
        JevConfigurationError: the builder's state has no ``state_key`` channel, no
            ``messages_key`` channel, or one without the ``add_messages`` reducer.

    """
    channels = getattr(builder, "channels", None)
    if not isinstance(channels, Mapping):
        raise JevConfigurationError(f"{who} needs a langgraph StateGraph, got {type(builder).__name__}")
    if state_key not in channels:
        raise JevConfigurationError(missing_report_channel(state_key, who))
    if messages_key not in channels:
        raise JevConfigurationError(
            f"the graph's state has no {messages_key!r} channel for the messages that {who} guards "
            "(use GuardrailState, or give messages_key=)"
        )
    if replaces_by_id(channels[messages_key]) is False:
        raise JevConfigurationError(messages_without_reducer(messages_key, who))
