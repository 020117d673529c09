"""Which role a provider gives a message, and which adjacent messages it may send as one.

Pure functions over LangChain messages, for the reading of what is judged
(`langchain_jev.guardrails._judged`): `role_of` names a message's role as a
provider sends it; `sent_apart` is the allow-list of boundaries every chat API
keeps apart (any other boundary may be merged into one message, so a word split
across it is read joined); `provider_orders` lists the orders a provider may send
the messages in (as they stand, with system messages taken out of line, and the
system messages alone).
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

__all__ = ["APART", "SYSTEM_ROLES", "provider_orders", "role_of", "sent_apart"]


def role_of(message: BaseMessage) -> str:
    """The role a provider gives ``message``: user, system, developer, assistant, tool, function or its own.

    Example:
        >>> from langchain_core.messages import ChatMessage, SystemMessage
        >>> role_of(SystemMessage("x")), role_of(ChatMessage("x", role="critic"))
        ('system', 'critic')

    """
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, SystemMessage):
        return "developer" if message.additional_kwargs.get("__openai_role__") == "developer" else "system"
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, ToolMessage):
        return "tool"
    if isinstance(message, FunctionMessage):
        return "function"
    if isinstance(message, ChatMessage):
        return str(message.role)
    return str(message.type)


APART = frozenset({"user", "system", "developer", "tool", "function"})
"""The roles no provider sends in one message with an assistant's: every chat API keeps the assistant's
turn apart from these. Any other boundary (an unknown role on either side, or two of these) is read
joined."""


def sent_apart(before: BaseMessage, after: BaseMessage) -> bool:
    """Whether a provider always sends ``before`` and ``after`` as two messages (an allow-list of boundaries).

    Only a boundary between the assistant and a role of `APART` is; every other
    one may be merged into one message by some provider, so a word split across it
    is read whole.

    Example:
        >>> from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
        >>> sent_apart(AIMessage("a"), HumanMessage("b")), sent_apart(ToolMessage("a", tool_call_id="1"),
        ...                                                             HumanMessage("b"))
        (True, False)
        >>> sent_apart(SystemMessage("a"), HumanMessage("b"))
        False

    """
    roles = {role_of(before), role_of(after)}
    return "assistant" in roles and len(roles) == 2 and not roles - APART - {"assistant"}


SYSTEM_ROLES = frozenset({"system", "developer"})
"""The roles a provider may take out of line: Anthropic's builder sends a system message that is not first in
its top-level ``system`` field, Gemini's in its system instruction, so the messages around it become
adjacent and the system messages are sent together."""


def provider_orders(messages: Sequence[BaseMessage]) -> list[list[tuple[int, BaseMessage]]]:
    """The orders a provider may send ``messages`` in, each message with its index.

    As they stand; with the system messages taken out of line; and the system
    messages alone (one system field).
    """
    indexed = list(enumerate(messages))
    inline = [(i, m) for i, m in indexed if role_of(m) not in SYSTEM_ROLES]
    system = [(i, m) for i, m in indexed if role_of(m) in SYSTEM_ROLES]
    return [indexed, inline, system] if system and inline else [indexed]
