"""The voice judge: clean audio, an accurate transcript, interrupts handled, natural delivery.

==========================  =====  ================================================  ==========
criterion                   kind   asks                                              passes at
==========================  =====  ================================================  ==========
``clean_audio``             noul   no clipping, distortion or glitches               yes >= 0.7
``transcription_accurate``  noul   ``transcript`` says what is spoken (asked only    yes >= 0.7
                                   with one)
``handles_interrupts``      noul   the agent stops, takes in and adapts to           yes >= 0.7
                                   interruptions
``natural_delivery``        noul   warm, natural delivery suited to the content      yes >= 0.7
==========================  =====  ================================================  ==========

State fields: ``audio`` (a LangChain audio block, ``{"type": "audio", "base64": ..., "mime_type": ...}``);
``transcript``, ``conversation`` and ``user_question`` when given. It needs a decision model that
hears audio: a chat model that takes audio blocks (`ChatModelDecisionModel`); Jev takes images only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_jev.criteria import JevCriterion
from langchain_jev.judge import JevJudge
from langchain_jev.judges.build import prebuilt_criteria, prebuilt_judge

__all__ = ["voice_criteria", "voice_judge"]


def voice_judge(
    model: Any = None, *, thresholds: Mapping[str, float] | None = None, **options: Any
) -> JevJudge:
    """The voice judge (see the module documentation for its rubric).

    Args:
        model: anything `JevJudge` accepts; None for Jev from the environment.
        thresholds: criterion -> minimum, to replace the file's.
        options: `JevJudge` options.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> voice_judge(ScriptedDecisionModel({})).question_names
        ['clean_audio', 'transcription_accurate', 'handles_interrupts', 'natural_delivery']

    """
    return prebuilt_judge("voice", model, thresholds, **options)


def voice_criteria(*, thresholds: Mapping[str, float] | None = None) -> list[JevCriterion]:
    """The voice judge's criteria, to compose with others.

    Example:
        >>> [c.name for c in voice_criteria()][0]
        'clean_audio'

    """
    return prebuilt_criteria("voice", thresholds)
