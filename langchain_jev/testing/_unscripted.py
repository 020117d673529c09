"""What the scripted tools answer to a question their script does not name: one rule for both.

`ScriptedDecisionModel` and the scripted server (`langchain_jev.testing.server`) keep it alike:

- a *hazard question* (one of the guardrail's prescribed questions, `HAZARDS`, asked under its
  category's name) that the script does not name is answered "no hazard" (`HAZARD_DEFAULT`),
  so a guardrail judged with a script of your own refuses only what the script flags;
- any other question the script does not name is refused, loudly, naming the question and how to
  answer it: a test never passes on an answer nobody wrote. The server answers such a request
  with 422 (and says so once per question on its stderr), unless a default for nouls is given
  (``--noul P``, ``default_noul=``), which it then says once per question too.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

HAZARD_DEFAULT = 0.02
"""The probability of yes an unscripted hazard question gets: below every strictness preset."""


@cache
def _hazard_questions() -> frozenset[tuple[str, str]]:
    """Every prescribed (category name, instructions) pair, on every side it is asked."""
    from langchain_jev.guardrails._catalog import HAZARDS

    return frozenset(
        (hazard.name, question.instructions) for hazard in HAZARDS for question in hazard.questions.values()
    )


def is_hazard_question(name: str, question: Any) -> bool:
    """True when ``question`` (a `Noul` or its wire mapping) is a prescribed hazard question named ``name``.

    Both the name and the instructions must be the catalogue's, so a question of your own that
    happens to be called ``privacy`` is not answered for you.

    Example:
        >>> from langchain_jev.guardrails import HAZARDS
        >>> hate = HAZARDS[9]
        >>> is_hazard_question(hate.name, hate.questions["input"].noul())
        True
        >>> is_hazard_question(hate.name, {"type": "noul", "instructions": "Is it hateful?"})
        False

    """
    if isinstance(question, Mapping):
        kind, instructions = question.get("type"), question.get("instructions")
    else:
        kind, instructions = getattr(question, "type", None), getattr(question, "instructions", None)
    return kind == "noul" and isinstance(instructions, str) and (name, instructions) in _hazard_questions()


def question_type(question: Any) -> str:
    """The type of a question (a `Noul`, `Score`, `Choice` or its wire mapping): ``noul``, ...

    Example:
        >>> question_type({"type": "score"}), question_type(object())
        ('score', 'question')

    """
    kind = question.get("type") if isinstance(question, Mapping) else getattr(question, "type", None)
    return kind if isinstance(kind, str) else "question"


def how_to_answer(name: str, kind: str, *, command: bool) -> str:
    """How to give the scripted server an answer for ``name`` (a question of type ``kind``).

    ``command``: in the words of the command line's flags, else of `JevServer`'s arguments.

    Example:
        >>> how_to_answer("mode", "choice", command=True)
        'script it (--answer mode=LABEL, or in the --answers file)'
        >>> how_to_answer("polite", "noul", command=False)
        "script it (JevServer({'polite': 0.9, ...})), or answer every unscripted noul with default_noul="

    """
    example = {"noul": "0.9", "score": "2", "choice": "LABEL"}.get(kind, "VALUE")
    if command:
        where, default = f"--answer {name}={example}, or in the --answers file", "--noul P"
    else:
        where, default = f"JevServer({{{name!r}: {example}, ...}})", "default_noul="
    return (
        f"script it ({where}), or answer every unscripted noul with {default}"
        if kind == "noul"
        else (f"script it ({where})")
    )
