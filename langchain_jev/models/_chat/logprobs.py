"""Probabilities from token log-probabilities: pure functions.

The logprobs strategy asks each question as a single label token: ``yes``/``no``
for a noul, a letter (``A``, ``B``...) per label of a choice, a digit per level of
a score. The probability of each label is the softmax over the label tokens found
among the top alternatives of the answer's token, where every variant of a label
counts for it (``" B"`` and ``"B"``; for yes/no also ``"Yes"``, ``"YES"``). Labels
missing from the alternatives get 0. The replies are read in the OpenAI chat
format (``response_metadata["logprobs"]["content"]``, a list of ``{token,
logprob, top_logprobs}``) that ChatOpenAI, vLLM and Ollama's OpenAI-compatible
endpoint return.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.decisions import Answer, Choice, Question, Score

from langchain_jev.models._chat.answers import choice_answer, noul_answer, score_answer

__all__ = [
    "MAX_LEVELS",
    "MAX_OPTIONS",
    "TokenPosition",
    "answer_from_positions",
    "label_distribution",
    "label_tokens",
    "token_positions",
    "unfit_reason",
]

MAX_OPTIONS = 26
"""A choice asked through logprobs has at most this many labels (letters A to Z)."""
MAX_LEVELS = 10
"""A score asked through logprobs has at most this many levels (digits 0 to 9)."""


@dataclass(frozen=True)
class TokenPosition:
    """One generated token and the alternatives the provider reported for its place."""

    token: str
    """The token generated."""
    alternatives: tuple[tuple[str, float], ...]
    """``(token, logprob)`` pairs: the top alternatives, with the generated token."""


def label_tokens(question: Question) -> list[str]:
    """The label tokens a question is answered with, in option or level order.

    Example:
        >>> from langchain_core.decisions import Choice, Noul
        >>> label_tokens(Noul(instructions="Polite?"))
        ['yes', 'no']
        >>> label_tokens(Choice(instructions="How?", criteria={"answered": None, "asked": None}))
        ['A', 'B']

    """
    if isinstance(question, Choice):
        return [chr(ord("A") + index) for index in range(len(question.criteria))]
    if isinstance(question, Score):
        return [str(level) for level in range(len(question.criteria))]
    return ["yes", "no"]


def unfit_reason(question: Question) -> str | None:
    """Why a question cannot be answered with one label token, or None when it can.

    Example:
        >>> from langchain_core.decisions import Score
        >>> unfit_reason(Score(instructions="?", criteria=[str(i) for i in range(11)]))
        'a score has at most 10 levels (digits 0 to 9) to be asked through logprobs, this one has 11'

    """
    if isinstance(question, Choice) and len(question.criteria) > MAX_OPTIONS:
        return (
            f"a choice has at most {MAX_OPTIONS} labels (letters A to Z) to be asked through "
            f"logprobs, this one has {len(question.criteria)}"
        )
    if isinstance(question, Score) and len(question.criteria) > MAX_LEVELS:
        return (
            f"a score has at most {MAX_LEVELS} levels (digits 0 to 9) to be asked through "
            f"logprobs, this one has {len(question.criteria)}"
        )
    return None


def _finite_logprob(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return None
    return float(value)


def token_positions(metadata: Mapping[str, Any]) -> list[TokenPosition] | None:
    """The token positions of a reply's ``response_metadata``, or None without logprobs.

    Example:
        >>> meta = {"logprobs": {"content": [{"token": "B", "logprob": -0.1,
        ...     "top_logprobs": [{"token": "B", "logprob": -0.1}, {"token": "A", "logprob": -2.4}]}]}}
        >>> token_positions(meta)[0].alternatives
        (('B', -0.1), ('A', -2.4))
        >>> token_positions({"finish_reason": "stop"}) is None
        True

    """
    raw = metadata.get("logprobs")
    content = raw.get("content") if isinstance(raw, Mapping) else raw
    if not isinstance(content, Sequence) or isinstance(content, (str, bytes)) or not content:
        return None
    positions: list[TokenPosition] = []
    for entry in content:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("token"), str):
            continue
        alternatives: list[tuple[str, float]] = []
        for alternative in entry.get("top_logprobs") or ():
            if isinstance(alternative, Mapping) and isinstance(alternative.get("token"), str):
                logprob = _finite_logprob(alternative.get("logprob"))
                if logprob is not None:
                    alternatives.append((alternative["token"], logprob))
        own = _finite_logprob(entry.get("logprob"))
        if own is not None and all(token != entry["token"] for token, _ in alternatives):
            alternatives.append((entry["token"], own))
        positions.append(TokenPosition(entry["token"], tuple(alternatives)))
    return positions or None


def _normal(token: str, case_sensitive: bool) -> str:
    stripped = token.strip()
    return stripped if case_sensitive else stripped.casefold()


def label_distribution(
    alternatives: Sequence[tuple[str, float]],
    labels: Sequence[str],
    *,
    case_sensitive: bool = True,
) -> dict[str, float] | None:
    """Softmax over the label tokens among ``alternatives``, summing each label's variants.

    A token is a variant of a label when it equals the label once surrounding white
    space is removed (and, with ``case_sensitive=False``, case is ignored). Labels not
    among the alternatives get 0. Returns None when no label is among them.

    Example:
        >>> probs = label_distribution([(" B", -0.5), ("B", -1.5), ("A", -2.0), ("The", -0.1)], ["A", "B"])
        >>> {label: round(p, 3) for label, p in probs.items()}
        {'A': 0.14, 'B': 0.86}

    """
    keyed = {_normal(label, case_sensitive): label for label in labels}
    found: list[tuple[str, float]] = []
    for token, logprob in alternatives:
        label = keyed.get(_normal(token, case_sensitive))
        if label is not None and logprob > -math.inf:
            found.append((label, logprob))
    if not found:
        return None
    top = max(logprob for _, logprob in found)
    weights = dict.fromkeys(labels, 0.0)
    for label, logprob in found:
        weights[label] += math.exp(logprob - top)
    total = math.fsum(weights.values())
    return {label: weight / total for label, weight in weights.items()}


def _position(
    positions: Sequence[TokenPosition], labels: Sequence[str], case_sensitive: bool
) -> TokenPosition | None:
    """The place of the answer: the first token that is a label, else the first non-blank one."""
    keyed = {_normal(label, case_sensitive) for label in labels}
    for position in positions:
        if _normal(position.token, case_sensitive) in keyed:
            return position
    return next((p for p in positions if p.token.strip()), None)


def answer_from_positions(
    question: Question, positions: Sequence[TokenPosition]
) -> tuple[Answer | None, str | None]:
    """The typed answer read from a reply's token positions, or None and the reason.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> pos = [TokenPosition("Yes", (("Yes", -0.2), ("No", -1.8), ("yes", -3.0)))]
        >>> answer, problem = answer_from_positions(Noul(instructions="Polite?"), pos)
        >>> round(answer.noul, 2), problem
        (0.84, None)

    """
    labels = label_tokens(question)
    case_sensitive = isinstance(question, (Choice, Score))
    position = _position(positions, labels, case_sensitive)
    if position is None:
        return None, "the reply has no token to read an answer from"
    distribution = label_distribution(position.alternatives, labels, case_sensitive=case_sensitive)
    if distribution is None:
        listed = ", ".join(labels)
        return None, (
            f"none of the labels ({listed}) is among the top alternatives of the answer "
            f"token {position.token!r}"
        )
    if isinstance(question, Choice):
        names = list(question.criteria)
        return choice_answer(question, {names[i]: distribution[t] for i, t in enumerate(labels)}), None
    if isinstance(question, Score):
        return score_answer(question, {i: distribution[t] for i, t in enumerate(labels)}), None
    return noul_answer(distribution["yes"]), None
