"""Prebuilt judges: the evaluators users reach for first, as typed atomic questions.

Each prebuilt judge is a judge file shipped with the package (``files/NAME.yaml``):
``load_judge("rag")`` and ``langchain-jev judge --judge rag`` load it by name,
``langchain-jev judges`` lists them and ``langchain-jev judges show rag`` prints one
to copy and edit. The factories build the same judge with your model, thresholds
and options, and the ``*_criteria`` functions give the criteria to compose.

=======================  ===============================================================
judge                    asks
=======================  ===============================================================
``rag``                  grounded, context relevant, answer relevant, complete, cited
``correctness``          exact or JSON-equal (code), else the same facts as the expected
``trajectory``           tool calls vs a reference, arguments vs schemas, repeats (code);
                         right tools; task completed
``conversation``         need resolved, tone, system prompt followed, no invented
                         capabilities, earlier facts kept, the user's language, no
                         perceived error
``summary``              faithful, key points, concise
``sensitive_data``       secrets, card numbers, emails, phones (code); anything else
``quality``              on topic, to the point, substantive, plan followed
``safety``               not toxic, fair
``security``             no prompt injection, no code injection (the input)
``code``                 parses, type-checks (code); solves the problem
``json_match``           valid JSON, exact keys (code); differing values mean the same
``conversation_labels``  the user's language, support intent, praise (labels)
``image``                no explicit content, no sensitive imagery (over the image)
``voice``                clean audio, accurate transcript, interrupts handled, natural
                         delivery (over the audio)
=======================  ===============================================================

Every judge asks all its questions in one request (none when no question
applies); its checks run locally and never reach the model.

Modules: `catalog` (names, fields, files), `build` (file + thresholds -> judge),
``_factories`` (one factory over the files: the ``NAME_judge`` and ``NAME_criteria``
of each judge with no option of its own, documented from its file), a module for
each judge with options of its own (`code`, `json_match`, `sensitive_data`,
`trajectory`), `threads` (trajectories read from LangGraph threads: steps, messages,
tool calls, subgraphs included), `turns` (the conversation judge over a whole thread,
every turn's criteria in one request) and `checks` (the code behind the built-in checks).

Example:
    >>> from langchain_jev.judges import rag_judge
    >>> from langchain_jev.testing import ScriptedDecisionModel
    >>> judge = rag_judge(ScriptedDecisionModel({"groundedness": 0.3, "answer_relevance": 3.0}))
    >>> print(judge.judge("Capital of France?", "Lyon.").feedback)  # doctest: +NORMALIZE_WHITESPACE
    groundedness: "At least one claim is missing from the context or contradicts it."
    (yes at 0.30, needs 0.70)

"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.judges._build import prebuilt_criteria, prebuilt_judge
    from langchain_jev.judges._catalog import CATALOGUE, PrebuiltJudge, judge_names, judge_path, judge_text
    from langchain_jev.judges._code import code_criteria, code_judge
    from langchain_jev.judges._factories import (
        conversation_criteria,
        conversation_judge,
        conversation_labels_criteria,
        conversation_labels_judge,
        correctness_criteria,
        correctness_judge,
        image_criteria,
        image_judge,
        quality_criteria,
        quality_judge,
        rag_criteria,
        rag_judge,
        safety_criteria,
        safety_judge,
        security_criteria,
        security_judge,
        summary_criteria,
        summary_judge,
        voice_criteria,
        voice_judge,
    )
    from langchain_jev.judges._json_match import json_match_criteria, json_match_judge
    from langchain_jev.judges._sensitive_data import sensitive_data_criteria, sensitive_data_judge
    from langchain_jev.judges._threads import (
        ThreadStep,
        ThreadTrajectory,
        aread_checkpoints,
        aread_thread,
        read_checkpoints,
        read_thread,
        steps_match,
    )
    from langchain_jev.judges._trajectory import trajectory_criteria, trajectory_judge
    from langchain_jev.judges._turns import ThreadJudge, conversation_thread_judge

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "code_criteria": "langchain_jev.judges._code",
    "code_judge": "langchain_jev.judges._code",
    "conversation_criteria": "langchain_jev.judges._factories",
    "conversation_judge": "langchain_jev.judges._factories",
    "conversation_thread_judge": "langchain_jev.judges._turns",
    "conversation_labels_criteria": "langchain_jev.judges._factories",
    "conversation_labels_judge": "langchain_jev.judges._factories",
    "correctness_criteria": "langchain_jev.judges._factories",
    "correctness_judge": "langchain_jev.judges._factories",
    "image_criteria": "langchain_jev.judges._factories",
    "image_judge": "langchain_jev.judges._factories",
    "json_match_criteria": "langchain_jev.judges._json_match",
    "json_match_judge": "langchain_jev.judges._json_match",
    "judge_names": "langchain_jev.judges._catalog",
    "judge_path": "langchain_jev.judges._catalog",
    "judge_text": "langchain_jev.judges._catalog",
    "prebuilt_criteria": "langchain_jev.judges._build",
    "prebuilt_judge": "langchain_jev.judges._build",
    "quality_criteria": "langchain_jev.judges._factories",
    "quality_judge": "langchain_jev.judges._factories",
    "rag_criteria": "langchain_jev.judges._factories",
    "rag_judge": "langchain_jev.judges._factories",
    "safety_criteria": "langchain_jev.judges._factories",
    "safety_judge": "langchain_jev.judges._factories",
    "security_criteria": "langchain_jev.judges._factories",
    "security_judge": "langchain_jev.judges._factories",
    "sensitive_data_criteria": "langchain_jev.judges._sensitive_data",
    "sensitive_data_judge": "langchain_jev.judges._sensitive_data",
    "summary_criteria": "langchain_jev.judges._factories",
    "summary_judge": "langchain_jev.judges._factories",
    "aread_checkpoints": "langchain_jev.judges._threads",
    "aread_thread": "langchain_jev.judges._threads",
    "read_checkpoints": "langchain_jev.judges._threads",
    "read_thread": "langchain_jev.judges._threads",
    "steps_match": "langchain_jev.judges._threads",
    "ThreadJudge": "langchain_jev.judges._turns",
    "ThreadStep": "langchain_jev.judges._threads",
    "ThreadTrajectory": "langchain_jev.judges._threads",
    "trajectory_criteria": "langchain_jev.judges._trajectory",
    "trajectory_judge": "langchain_jev.judges._trajectory",
    "voice_criteria": "langchain_jev.judges._factories",
    "voice_judge": "langchain_jev.judges._factories",
    "CATALOGUE": "langchain_jev.judges._catalog",
    "PrebuiltJudge": "langchain_jev.judges._catalog",
}

__all__ = [
    "CATALOGUE",
    "PrebuiltJudge",
    "ThreadJudge",
    "ThreadStep",
    "ThreadTrajectory",
    "aread_checkpoints",
    "aread_thread",
    "code_criteria",
    "code_judge",
    "conversation_criteria",
    "conversation_judge",
    "conversation_labels_criteria",
    "conversation_labels_judge",
    "conversation_thread_judge",
    "correctness_criteria",
    "correctness_judge",
    "image_criteria",
    "image_judge",
    "json_match_criteria",
    "json_match_judge",
    "judge_names",
    "judge_path",
    "judge_text",
    "prebuilt_criteria",
    "prebuilt_judge",
    "quality_criteria",
    "quality_judge",
    "rag_criteria",
    "rag_judge",
    "read_checkpoints",
    "read_thread",
    "safety_criteria",
    "safety_judge",
    "security_criteria",
    "security_judge",
    "sensitive_data_criteria",
    "sensitive_data_judge",
    "summary_criteria",
    "steps_match",
    "summary_judge",
    "trajectory_criteria",
    "trajectory_judge",
    "voice_criteria",
    "voice_judge",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
