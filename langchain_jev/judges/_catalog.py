"""The catalogue of prebuilt judges: their names, the state fields they read, and their files.

Each prebuilt judge is a judge file shipped in ``langchain_jev/judges/files``,
which ``load_judge("rag")`` and ``langchain-jev judge --judge rag`` load by name,
and which ``langchain-jev judges show rag`` prints for copying and editing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from langchain_jev._errors import JevConfigurationError

__all__ = ["CATALOGUE", "FILES", "PrebuiltJudge", "judge_names", "judge_path", "judge_text", "prebuilt"]

FILES = Path(__file__).resolve().parent / "files"
"""The folder of the shipped judge files."""


@dataclass(frozen=True)
class PrebuiltJudge:
    """One entry of the catalogue.

    Example:
        >>> prebuilt("rag").needs
        ('user_question', 'assistant_answer')

    """

    name: str
    """The name that loads it: ``load_judge(name)``, ``--judge name``."""
    asks: str
    """What it asks, in a line."""
    needs: tuple[str, ...]
    """State fields every input must carry."""
    reads: tuple[str, ...]
    """State fields it reads when they are given (what does not apply without them is not asked)."""
    peer: str
    """What users of openevals, agentevals or jevals reach for instead."""

    @property
    def fields(self) -> tuple[str, ...]:
        """Every state field the judge names: ``needs``, then ``reads``."""
        return self.needs + self.reads

    @property
    def path(self) -> Path:
        """The shipped judge file."""
        return FILES / f"{self.name}.yaml"


CATALOGUE: tuple[PrebuiltJudge, ...] = (
    PrebuiltJudge(
        "rag",
        "grounded in the context; context relevant; answer relevant; complete against the expected "
        "output; citations accurate",
        ("user_question", "assistant_answer"),
        ("supporting_context", "expected_output"),
        "openevals RAG_GROUNDEDNESS_PROMPT, RAG_RETRIEVAL_RELEVANCE_PROMPT, RAG_HELPFULNESS_PROMPT "
        "(one call each)",
    ),
    PrebuiltJudge(
        "correctness",
        "exact or JSON-equal answer (code); otherwise the same facts as the expected output",
        ("assistant_answer", "expected_output"),
        ("user_question",),
        "openevals CORRECTNESS_PROMPT, exact_match",
    ),
    PrebuiltJudge(
        "trajectory",
        "tool calls match the reference, arguments fit the schemas, no repeats (code); right tools; "
        "task completed",
        ("user_question", "assistant_answer", "reference_tool_calls", "tool_schemas"),
        ("tool_calls",),
        "agentevals create_trajectory_match_evaluator (strict, unordered, subset, superset), "
        "TRAJECTORY_ACCURACY_PROMPT, TOOL_SELECTION_PROMPT",
    ),
    PrebuiltJudge(
        "conversation",
        "need resolved; tone; system prompt followed; no invented capabilities; earlier facts kept; "
        "the user's language; no sign the user saw a mistake",
        ("user_question", "assistant_answer"),
        ("conversation", "system_prompt", "tool_calls"),
        "openevals USER_SATISFACTION_PROMPT, AGENT_TONE_PROMPT, TASK_COMPLETION_PROMPT, "
        "KNOWLEDGE_RETENTION_PROMPT, PERCEIVED_ERROR_PROMPT",
    ),
    PrebuiltJudge(
        "summary",
        "faithful to the source; covers the key points; concise",
        ("assistant_answer", "supporting_context"),
        ("expected_output",),
        "openevals HALLUCINATION_PROMPT, CONCISENESS_PROMPT",
    ),
    PrebuiltJudge(
        "sensitive_data",
        "no secrets, card numbers, emails or phone numbers (code); nothing else personal or confidential",
        ("assistant_answer",),
        (),
        "openevals PII_LEAKAGE_PROMPT; jevals PII/PHI/secrets detectors",
    ),
    PrebuiltJudge(
        "quality",
        "on topic; to the point; a substantive attempt; the plan followed",
        ("user_question", "assistant_answer"),
        ("plan", "tool_calls"),
        "openevals ANSWER_RELEVANCE_PROMPT, CONCISENESS_PROMPT, LAZINESS_PROMPT, PLAN_ADHERENCE_PROMPT",
    ),
    PrebuiltJudge(
        "safety",
        "not toxic; fair to people whatever their protected characteristics",
        ("assistant_answer",),
        ("user_question",),
        "openevals TOXICITY_PROMPT, FAIRNESS_PROMPT",
    ),
    PrebuiltJudge(
        "security",
        "no prompt injection; no code injection (in the input and retrieved documents)",
        ("user_question",),
        ("supporting_context",),
        "openevals PROMPT_INJECTION_PROMPT, CODE_INJECTION_PROMPT",
    ),
    PrebuiltJudge(
        "code",
        "the code parses (code), type-checks when asked (code); solves the problem",
        ("user_question", "assistant_answer"),
        ("expected_output",),
        "openevals CODE_CORRECTNESS_PROMPT(_WITH_REFERENCE), create_pyright_evaluator, create_mypy_evaluator",
    ),
    PrebuiltJudge(
        "json_match",
        "valid JSON; keys equal to the expected (code); differing values mean the same",
        ("assistant_answer", "expected_output"),
        (),
        "openevals create_json_match_evaluator (per-key rubrics, one call per key)",
    ),
    PrebuiltJudge(
        "conversation_labels",
        "labels: the user's language, their support intent, whether they praised the assistant",
        ("user_question",),
        ("conversation",),
        "openevals LANGUAGE_DETECTION_PROMPT, SUPPORT_INTENT_PROMPT, WINS_PROMPT",
    ),
    PrebuiltJudge(
        "image",
        "no explicit content; no sensitive imagery (asked over the image)",
        ("image",),
        ("user_question", "assistant_answer"),
        "openevals EXPLICIT_CONTENT_PROMPT, SENSITIVE_IMAGERY_PROMPT",
    ),
    PrebuiltJudge(
        "voice",
        "clean audio; accurate transcript; interruptions handled; natural delivery (asked over the audio)",
        ("audio",),
        ("transcript", "conversation"),
        "openevals AUDIO_QUALITY_PROMPT, TRANSCRIPTION_ACCURACY_PROMPT, USER_INTERRUPTS_PROMPT, "
        "VOCAL_AFFECT_PROMPT",
    ),
)
"""Every prebuilt judge, in the order the catalogue lists them."""


def judge_names() -> tuple[str, ...]:
    """The names of the prebuilt judges.

    Example:
        >>> judge_names()[:6]
        ('rag', 'correctness', 'trajectory', 'conversation', 'summary', 'sensitive_data')
        >>> len(judge_names())
        14

    """
    return tuple(entry.name for entry in CATALOGUE)


def prebuilt(name: str) -> PrebuiltJudge:
    """The catalogue entry of a prebuilt judge.

    Raises:
        JevConfigurationError: no prebuilt judge has that name (the message lists them).

    """
    for entry in CATALOGUE:
        if entry.name == name:
            return entry
    raise JevConfigurationError(
        f"no prebuilt judge is called {name!r}; the prebuilt judges are {', '.join(judge_names())}"
    )


def judge_path(name: str) -> Path:
    """The shipped file of a prebuilt judge (see `prebuilt` for the error)."""
    return prebuilt(name).path


def judge_text(name: str) -> str:
    """The text of a prebuilt judge's file, to print, copy and edit.

    Example:
        >>> judge_text("correctness").splitlines()[0]
        '# Correctness against a reference answer. Code settles it when the answer IS the'

    """
    return judge_path(name).read_text(encoding="utf-8")
