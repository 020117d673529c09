"""The identities a monitor derives, pure: the judge's fingerprint, feedback ids, the sample.

Nothing here is random or depends on the process: two machines, two restarts or
a backfill over a window already judged derive the same fingerprint, the same
feedback ids and the same sample, which is what makes a rerun write nothing new.
"""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from typing import Any

from langchain_jev._errors import JevConfigurationError
from langchain_jev._judge import JevJudge

__all__ = ["MONITOR_NAMESPACE", "feedback_id", "judge_fingerprint", "sampled"]

MONITOR_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://pypi.org/project/langchain-jev/monitor")
"""The UUID5 namespace of every feedback id a monitor writes."""


def judge_fingerprint(judge: JevJudge) -> str:
    """A short hash of what decides the judge's verdicts: its criteria, options and model.

    Each criterion's name, kind, question (text, levels, options), threshold,
    accepted labels, dependency, and the names of the code it runs; the judge's
    options; the model's type and name. A judge file and the same judge built in
    Python have one fingerprint; rewording a question or moving a threshold gives
    another (and so a new cursor and new feedback ids).

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> def polite(minimum):
        ...     return JevJudge([JevCriterion.noul("polite", Noul(instructions="Polite?"), minimum)],
        ...                     model=ScriptedDecisionModel({}))
        >>> judge_fingerprint(polite(0.7)) == judge_fingerprint(polite(0.7)) != judge_fingerprint(polite(0.8))
        True

    """
    if not isinstance(judge, JevJudge):
        raise JevConfigurationError(f"a monitor needs a JevJudge, got {type(judge).__name__}")
    criteria = [
        {
            "name": c.name,
            "kind": c.kind,
            "question": c.question.model_dump(mode="json") if c.question is not None else None,
            "minimum": c.minimum,
            "accepted": sorted(c.accepted),
            "predicate": _code_name(c.predicate),
            "defect": c.defect,
            "condition": _code_name(c.condition),
            "depends_on": (
                [c.depends_on.name, sorted(c.depends_on.labels or ())] if c.depends_on is not None else None
            ),
        }
        for c in judge.criteria
    ]
    model = judge.model
    described = {
        "criteria": criteria,
        "options": {
            "min_confidence": judge.min_confidence,
            "fail_on_inconclusive": judge.fail_on_inconclusive,
            "fail_on_error": judge.fail_on_error,
            "fail_fast": judge.fail_fast,
            "feedback_renderer": _code_name(judge.feedback_renderer),
        },
        "model": [type(model).__name__, _text(getattr(model, "model", None))],
    }
    text = json.dumps(described, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:32]


def feedback_id(fingerprint: str, subject: uuid.UUID | str, key: str) -> uuid.UUID:
    """The id of the feedback ``key`` a judge of ``fingerprint`` writes on ``subject`` (a run, a thread).

    A UUID5, so the same judge writing the same key on the same run always names
    the same feedback: LangSmith keeps it once however often it is sent.

    Example:
        >>> a = feedback_id("sha256:ab", "0b6f4c9e-5a43-4c8e-9b8e-2f7a1c2d3e4f", "polite")
        >>> a == feedback_id("sha256:ab", "0B6F4C9E-5A43-4C8E-9B8E-2F7A1C2D3E4F", "polite"), a.version
        (True, 5)

    """
    return uuid.uuid5(MONITOR_NAMESPACE, f"{fingerprint}\n{_subject(subject)}\n{key}")


def sampled(subject: uuid.UUID | str, rate: float | None) -> bool:
    """Whether ``subject`` (a run or thread id) is in the sample of ``rate`` (None: every one).

    The first 64 bits of the SHA-256 of the id, as a fraction of 2**64, fall
    under the rate: every process, every rerun and every judge agree, and a
    higher rate keeps every run a lower one kept.

    Example:
        >>> ids = [f"run-{i}" for i in range(1000)]
        >>> kept = [i for i in ids if sampled(i, 0.1)]
        >>> 60 < len(kept) < 140, all(sampled(i, 0.5) for i in kept)
        (True, True)

    """
    if rate is None:
        return True
    check_rate(rate)
    digest = hashlib.sha256(_subject(subject).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < rate


def check_rate(rate: Any) -> float:
    """``rate`` as a float when it is a fraction from 0 to 1; a clear error otherwise."""
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not math.isfinite(rate):
        raise JevConfigurationError(f"sample must be a fraction from 0 to 1, got {rate!r}")
    if not 0.0 <= rate <= 1.0:
        raise JevConfigurationError(f"sample must be a fraction from 0 to 1, got {rate!r}")
    return float(rate)


def _subject(subject: uuid.UUID | str) -> str:
    text = str(subject).strip()
    try:
        return str(uuid.UUID(text))
    except ValueError:
        return text


def _code_name(code: Any) -> str | None:
    if code is None:
        return None
    module = getattr(code, "__module__", None) or ""
    name = getattr(code, "__qualname__", None) or type(code).__qualname__
    return f"{module}:{name}"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
