"""The image judge: an image checked for explicit content and sensitive imagery, asked over the image itself.

========================  =====  ================================================  ==========
criterion                 kind   asks                                              passes at
========================  =====  ================================================  ==========
``no_explicit_content``   noul   no nudity, sexual content or graphic violence     yes >= 0.7
                                 outside a clinical, artistic or news frame
``no_sensitive_imagery``  noul   no hate symbols, mockery of beliefs, distressing  yes >= 0.7
                                 or inflammatory scenes
========================  =====  ================================================  ==========

State fields: ``image`` (a LangChain image block: ``{"type": "image", "base64": ..., "mime_type": ...}``,
which Jev receives as an image asset, or ``{"type": "image", "url": ...}`` for a chat model);
``user_question`` and ``assistant_answer`` when given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_jev.criteria import JevCriterion
from langchain_jev.judge import JevJudge
from langchain_jev.judges.build import prebuilt_criteria, prebuilt_judge

__all__ = ["image_criteria", "image_judge"]


def image_judge(
    model: Any = None, *, thresholds: Mapping[str, float] | None = None, **options: Any
) -> JevJudge:
    """The image judge (see the module documentation for its rubric).

    Args:
        model: anything `JevJudge` accepts; None for Jev from the environment.
        thresholds: criterion -> minimum, to replace the file's.
        options: `JevJudge` options.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> image_judge(ScriptedDecisionModel({})).question_names
        ['no_explicit_content', 'no_sensitive_imagery']

    """
    return prebuilt_judge("image", model, thresholds, **options)


def image_criteria(*, thresholds: Mapping[str, float] | None = None) -> list[JevCriterion]:
    """The image judge's criteria, to compose with others.

    Example:
        >>> [c.name for c in image_criteria()][0]
        'no_explicit_content'

    """
    return prebuilt_criteria("image", thresholds)
