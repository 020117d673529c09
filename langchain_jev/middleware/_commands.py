"""What a middleware inside the guardrail hands outward beside its response: its commands, judged with it.

``create_agent`` composes ``wrap_model_call`` middleware so that the command an
inner middleware returns (``ExtendedModelResponse.command``) never reaches the
middleware outside it: the composer's handler keeps it in a list of its own and
hands the outer middleware only the ``ModelResponse``; the list is applied to the
state after the outer middleware returns (inner commands first, then the outer
one's). Those updates reach the state, and so the user, a stream, a checkpoint
and the model's next call, as surely as the reply does. So the guardrail reads
that list after each call (`InnerCommands`); the output rail judges every
command with the response it came with (`InnerCommands.beside`: every message of
an update as the reply's other messages are, every other key as a value, every
leaf; a leaf of no known kind fails the check, which ``on_error`` decides); and
the list keeps only the commands of the response released, none of a refused
one (`InnerCommands.release`). Nothing is subtracted from what is judged: what
is released is exactly what was judged, or nothing.

A route from inside (``goto``, ``graph``, ``resume``), or a command that is no
``Command``, is refused outright: `JevInputError`, the step writes nothing,
whatever the policy. LangChain applies no route from ``wrap_model_call`` (it
raises ``NotImplementedError``), and a route chosen inside the guardrail could
take the turn past the guardrail's decision (its jump to the end) or into a
parent graph this guardrail does not guard, which no verdict on a node's name
makes safe.

A command a guardrail wrote itself (`own`: its report, the placeholders of what
it refused, its jump) was judged by that guardrail and is kept as it is. The
record is by identity, so no middleware can make one of its own pass for it.

When ``create_agent`` hands the guardrail a handler of its composition whose
list cannot be found (another LangChain version), the guardrail refuses to run
(`JevConfigurationError`) rather than release commands it cannot see.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import weakref
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.types import Command

from langchain_jev._errors import JevConfigurationError, JevInputError

__all__ = ["COMPOSER", "MODEL_CALLS", "UPDATE", "InnerCommands", "own"]

COMPOSER = "langchain.agents.factory"
"""The module of ``create_agent``, whose functions are the handlers a model middleware is given."""

MODEL_CALLS = frozenset({"_execute_model_sync", "_execute_model_async"})
"""The names of ``create_agent``'s own model call, the handler of its innermost model middleware."""

_HELD = "accumulated_commands"
"""The name of the list in which ``create_agent``'s composed handler keeps the inner middleware's commands."""

UPDATE = "command update"
"""The key under which a command's update is judged beside the reply."""

_OWN: weakref.WeakValueDictionary[int, Command[Any]] = weakref.WeakValueDictionary()
"""The commands guardrails wrote, by identity (a command kept only while it lives)."""


def own(command: Command[Any]) -> Command[Any]:
    """``command``, recorded as a guardrail's own: judged by the guardrail that wrote it."""
    _OWN[id(command)] = command
    return command


def _is_own(command: Any) -> bool:
    return _OWN.get(id(command)) is command


def _held_by(handler: Any) -> list[Any] | None:
    """The list in which ``handler`` (``create_agent``'s composed handler) keeps the inner commands.

    None when the handler is ``create_agent``'s own model call (nothing is inside) or
    not of ``create_agent`` (no command of an inner middleware passes it: a response of
    another shape is refused as the reply is read).

    Raises:
        JevConfigurationError: a handler of ``create_agent`` whose list cannot be found.

    """
    if getattr(handler, "__module__", None) != COMPOSER or getattr(handler, "__name__", None) in MODEL_CALLS:
        return None
    names = getattr(getattr(handler, "__code__", None), "co_freevars", ())
    closure = getattr(handler, "__closure__", None) or ()
    if _HELD in names and len(closure) == len(names):
        try:
            held = closure[names.index(_HELD)].cell_contents
        except ValueError:  # pragma: no cover - an empty cell
            held = None
        if isinstance(held, list):
            return held
    raise JevConfigurationError(
        "JevGuardrailMiddleware cannot read the commands of the middleware inside it in this "
        "version of langchain's create_agent, so it cannot judge them; list it last, or use a "
        "langchain version it supports"
    )


def _refuse_route(command: Any) -> None:
    """Refuse a command that is no ``Command`` or that carries a route (see the module)."""
    if not isinstance(command, Command):
        raise JevInputError(
            f"a middleware inside the guardrail returned a command that is no Command "
            f"({type(command).__name__}); it cannot be judged"
        )
    if command.goto or command.graph is not None or command.resume is not None:
        raise JevInputError(
            "a middleware inside the guardrail returned a command with a route (goto, graph or "
            "resume); the guardrail releases no route from inside it"
        )


_CODE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, functools.partial)
"""Functions: the program's code, read by their name (a criterion's predicate in a verdict)."""


def _shown(value: Any) -> Any:
    """``value`` as the judge reads it: every leaf, each message as the reply's other messages are.

    A message by its fields (no id, as `_beside_the_reply` shows them); a mapping,
    list or tuple item by item; a dataclass field by field; a record of this
    package by its ``to_dict`` (which words what it holds: a finding's detail) beside
    its fields; a function by its name (code, not text a model or a user wrote);
    any other leaf as it is, judged by what it holds or refused as of no known kind
    (`langchain_jev.guardrails._values`).
    """
    if isinstance(value, BaseMessage):
        return value.model_dump(exclude={"id"})
    if isinstance(value, Mapping):
        return {key: _shown(item) for key, item in value.items()}
    if isinstance(value, _CODE):
        return f"<function {getattr(value, '__module__', None)}.{getattr(value, '__qualname__', '?')}>"
    held: Any = value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        held = {item.name: _shown(getattr(value, item.name)) for item in dataclasses.fields(value)}
    elif isinstance(value, (list, tuple)):
        held = [_shown(item) for item in value]
    to_dict = getattr(value, "to_dict", None)
    if type(value).__module__.startswith("langchain_jev.") and callable(to_dict):
        return {"record": _shown(to_dict()), "fields": held}
    return held


class InnerCommands:
    """The commands the middleware inside the guardrail hands outward, read from ``create_agent``'s handler.

    Args:
        handler: the handler the guardrail was given (sync or async).

    Raises:
        JevConfigurationError: ``handler`` is of ``create_agent`` and its list cannot be found.

    """

    def __init__(self, handler: Any) -> None:
        self._held = _held_by(handler)
        self._taken: list[tuple[Any, list[Any]]] = []

    def took(self, response: Any) -> None:
        """Note the commands handed outward with ``response``, by the call that has just returned it."""
        if self._held is not None:
            self._taken.append((response, list(self._held)))

    def _of(self, response: Any) -> list[Any]:
        for taken, commands in reversed(self._taken):
            if taken is response:
                return list(commands)
        return []

    def beside(self, response: Any) -> list[Any]:
        """What the commands handed with ``response`` write, as the output rail judges it beside the reply.

        Raises:
            JevInputError: a command carries a route, or is no ``Command``.

        """
        shown: list[Any] = []
        for command in self._of(response):
            _refuse_route(command)
            if not _is_own(command):
                shown.append({UPDATE: _shown(command.update)})
        return shown

    def release(self, response: Any | None) -> None:
        """Leave in ``create_agent``'s list only what goes out with the released ``response``.

        None (a refusal, or nothing of the model released): only the commands a
        guardrail inside wrote in the last call, its report and placeholders.

        Raises:
            JevInputError: a command carries a route, or is no ``Command``.

        """
        if self._held is None:
            return
        if response is not None:
            kept = self._of(response)
        else:
            kept = [c for c in (self._taken[-1][1] if self._taken else []) if _is_own(c)]
        for command in kept:
            _refuse_route(command)
        self._held[:] = kept
