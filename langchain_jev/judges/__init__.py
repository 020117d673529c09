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

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
