"""What a simulation leaves: the conversation, a verdict per turn, why it ended, the final verdict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.messages import BaseMessage

from langchain_jev._verdict import JevFinding, JevVerdict, plain

__all__ = ["Ending", "Simulation", "SimulationTurn"]

Ending = Literal["stopped", "max_turns", "user_done", "error"]
"""Why a conversation ended: the stop criterion passed, the turn limit, the user had no more to
say, or something raised (the simulated user, the app or the judge)."""


@dataclass(frozen=True)
class SimulationTurn:
    """One turn: what the user said, what the app added, and what was judged of it."""

    index: int
    """The turn's number, from 0."""
    user: str
    """The user's message."""
    replies: tuple[BaseMessage, ...]
    """The messages the app added in answer (tool traffic included)."""
    verdict: JevVerdict | None
    """The judge's verdict on the conversation so far (None without a judge)."""
    stop: JevFinding | None
    """The stop criterion's finding (None without one)."""

    def to_dict(self) -> dict[str, Any]:
        """The turn as JSON-ready data."""
        return plain(self)


@dataclass(frozen=True)
class Simulation:
    """A whole simulated conversation and its verdicts.

    ``passed`` is False whenever the conversation ended in an error: an error is never a pass.
    """

    messages: tuple[BaseMessage, ...]
    """The whole conversation, as the app holds it."""
    turns: tuple[SimulationTurn, ...]
    """Each turn, in order."""
    ending: Ending
    """Why the conversation ended."""
    verdict: JevVerdict | None
    """The final verdict: the last turn's, or the final judge's when one was given."""
    error: str | None = None
    """What raised, when ``ending`` is ``"error"``."""
    thread_id: str | None = None
    """The LangGraph thread the conversation ran in, when the app keeps threads."""

    @property
    def passed(self) -> bool:
        """True when nothing raised and the final verdict (if any) passed."""
        return self.error is None and (self.verdict is None or self.verdict.passed)

    def to_dict(self) -> dict[str, Any]:
        """The simulation as JSON-ready data."""
        return plain(self, "passed", "ending", "error", "thread_id", "verdict", "turns", "messages")
