"""The simulated user: fixed first turns, then a chat model steered by a persona and a goal.

A simulated user reads the conversation so far and writes the next user turn,
or None when it has nothing more to say (a script that ran out, with no model
to go on). The model is shown the conversation from the user's side: the
agent's replies as the messages it answers, its own turns as its replies, tool
traffic left out (a user never sees it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from langchain_jev._conversation import message_text
from langchain_jev._errors import JevConfigurationError

__all__ = ["SimulatedUser", "UserModel", "simulated_user"]


@runtime_checkable
class SimulatedUser(Protocol):
    """Anything that writes the next user turn of a conversation (None: it has nothing more to say)."""

    def next_turn(self, messages: Sequence[BaseMessage]) -> str | None:
        """The next user turn after ``messages``."""
        ...

    async def anext_turn(self, messages: Sequence[BaseMessage]) -> str | None:
        """Asynchronous `next_turn`."""
        ...


_SYSTEM = (
    "You are role-playing a user talking with an AI assistant. Stay in character and write only "
    "the user's next message, in the first person, without narration.\n"
)


@dataclass(frozen=True)
class UserModel:
    """A simulated user: ``script`` for its first turns, then ``model`` (if any) in character.

    Built by `simulated_user`; its fields are what the model is told.
    """

    model: Any = None
    """A LangChain chat model (or any runnable taking messages), or None for the script alone."""
    persona: str | None = None
    """Who the user is ("a first-time traveller, impatient")."""
    goal: str | None = None
    """What the user wants from the conversation."""
    script: tuple[str, ...] = ()
    """The user's first turns, said as written."""
    system: str | None = field(default=None, repr=False)
    """The whole system prompt instead of the one built from persona and goal."""

    def _scripted(self, messages: Sequence[BaseMessage]) -> tuple[bool, str | None]:
        said = sum(isinstance(message, HumanMessage) for message in messages)
        if said < len(self.script):
            return True, self.script[said]
        return self.model is None, None

    def prompt(self, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        """What the model is sent: the system prompt, then the conversation seen from the user's side."""
        system = self.system
        if system is None:
            system = _SYSTEM + "".join(
                f"{label}: {text}\n"
                for label, text in (("Persona", self.persona), ("Goal", self.goal))
                if text
            )
        seen: list[BaseMessage] = [SystemMessage(system)]
        for message in messages:
            text = message_text(message)
            if isinstance(message, HumanMessage):
                seen.append(AIMessage(text))
            elif isinstance(message, AIMessage) and text.strip():
                seen.append(HumanMessage(text))
        if len(seen) == 1:
            seen.append(HumanMessage("(The assistant is waiting for your first message.)"))
        return seen

    def next_turn(self, messages: Sequence[BaseMessage]) -> str | None:
        """The next user turn: the script's next line, else the model's reply in character."""
        scripted, line = self._scripted(messages)
        if scripted:
            return line
        return _said(self.model.invoke(self.prompt(messages)))

    async def anext_turn(self, messages: Sequence[BaseMessage]) -> str | None:
        """Asynchronous `next_turn`."""
        scripted, line = self._scripted(messages)
        if scripted:
            return line
        return _said(await self.model.ainvoke(self.prompt(messages)))


def _said(reply: Any) -> str:
    text = message_text(reply) if isinstance(reply, BaseMessage) else reply
    if not isinstance(text, str) or not text.strip():
        raise JevConfigurationError(
            f"the simulated user's model wrote no message (it returned {reply!r:.80})"
        )
    return text


def simulated_user(
    model: Any = None,
    *,
    persona: str | None = None,
    goal: str | None = None,
    script: Sequence[str] = (),
    system: str | None = None,
) -> UserModel:
    """A simulated user: the ``script``'s turns first, then ``model`` playing ``persona`` after ``goal``.

    Raises:
        JevConfigurationError: neither a model nor a script, or a script line that is not text.

    Example:
        >>> user = simulated_user(script=["Hi, I need a refund.", "Order 42."])
        >>> user.next_turn([])
        'Hi, I need a refund.'
        >>> from langchain_core.messages import AIMessage, HumanMessage
        >>> user.next_turn([HumanMessage("Hi, I need a refund."), AIMessage("Which order?")])
        'Order 42.'
        >>> user.next_turn([HumanMessage("a"), AIMessage("b"), HumanMessage("c"), AIMessage("d")]) is None
        True

    """
    if isinstance(script, str):
        script = [script]
    lines = tuple(script)
    for index, line in enumerate(lines):
        if not isinstance(line, str) or not line.strip():
            raise JevConfigurationError(f"script[{index}] must be a non-empty string, got {line!r:.60}")
    if model is None and not lines:
        raise JevConfigurationError("a simulated user needs a model, a script, or both")
    return UserModel(model=model, persona=persona, goal=goal, script=lines, system=system)
