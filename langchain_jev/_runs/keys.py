"""The keys a run's inputs and outputs, and an example's, are read under (each in its order)."""

from __future__ import annotations

from langchain_jev._input import ANSWER_FIELD, CONTEXT_FIELD, EXPECTED_FIELD, FIELD_ALIASES, QUESTION_FIELD

__all__ = [
    "ANSWER_KEYS",
    "CONTEXT_KEYS",
    "CONVERSATION_FIELD",
    "EXPECTED_KEYS",
    "MESSAGES_KEY",
    "QUESTION_KEYS",
    "RUNNABLE_INPUT_KEY",
    "STRUCTURED_KEY",
]

QUESTION_KEYS: tuple[str, ...] = FIELD_ALIASES[QUESTION_FIELD]
"""Input keys read as the question, in order (`FIELD_ALIASES`)."""
ANSWER_KEYS: tuple[str, ...] = FIELD_ALIASES[ANSWER_FIELD]
"""Output keys read as the answer, in order (`FIELD_ALIASES`): what chains, graphs and functions name it."""
EXPECTED_KEYS: tuple[str, ...] = (*ANSWER_KEYS, *FIELD_ALIASES[EXPECTED_FIELD])
"""Reference-output keys read as the expected output, in order: a reference's answer is the expected one."""
CONTEXT_KEYS: tuple[str, ...] = FIELD_ALIASES[CONTEXT_FIELD]
"""Output keys read as the retrieved documents, in order."""
MESSAGES_KEY = "messages"
"""The key of a conversation in inputs or outputs."""
STRUCTURED_KEY = "structured_response"
"""The output key of an agent's structured answer (``create_agent(..., response_format=...)``)."""
CONVERSATION_FIELD = "conversation"
"""The judge-input field holding the conversation a question was asked in."""
RUNNABLE_INPUT_KEY = "input"
"""The key under which a Runnable target's run records the example's inputs."""
