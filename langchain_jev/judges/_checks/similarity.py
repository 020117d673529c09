"""String similarity, by code: how close an answer is to the expected text (rapidfuzz's metrics).

=====================  ==============================================================
metric                 similarity from 0 (nothing alike) to 1 (the same)
=====================  ==============================================================
``levenshtein``        1 - edit distance / length of the longer text (openevals'
                       ``levenshtein_distance`` evaluator's score)
``indel``              rapidfuzz's ``ratio``: insertions and deletions only
``jaro_winkler``       for short strings such as names, favouring a common prefix
``token_set``          words as a set, order and repeats aside
=====================  ==============================================================

Texts are compared as given, or with case and runs of whitespace folded
(``normalize``). The metrics run in rapidfuzz's compiled code, in time linear
in the product of the lengths at worst; inputs past `MAX_LENGTH` characters are
refused rather than compared slowly.
"""

from __future__ import annotations

from typing import Literal, get_args

from rapidfuzz import fuzz
from rapidfuzz.distance import JaroWinkler, Levenshtein

from langchain_jev._errors import JevInputError

__all__ = ["MAX_LENGTH", "METRICS", "Metric", "similarity"]

Metric = Literal["levenshtein", "indel", "jaro_winkler", "token_set"]
"""A string similarity metric."""
METRICS: tuple[str, ...] = get_args(Metric)
"""The metrics."""
MAX_LENGTH = 100_000
"""Characters a compared text may have."""


def similarity(
    answer: str, expected: str, metric: Metric = "levenshtein", *, normalize: bool = True
) -> float:
    """How similar two texts are, from 0 to 1.

    Raises:
        JevInputError: a text is longer than `MAX_LENGTH`.

    Example:
        >>> round(similarity("kitten", "sitting"), 3)
        0.571
        >>> similarity("Paris,  France", "paris, france")
        1.0

    """
    for name, text in (("answer", answer), ("expected output", expected)):
        if len(text) > MAX_LENGTH:
            raise JevInputError(
                f"the string_similarity check: the {name} has {len(text)} characters, more than {MAX_LENGTH}"
            )
    if normalize:
        answer, expected = " ".join(answer.split()).casefold(), " ".join(expected.split()).casefold()
    if metric == "levenshtein":
        return float(Levenshtein.normalized_similarity(answer, expected))
    if metric == "indel":
        return float(fuzz.ratio(answer, expected)) / 100
    if metric == "jaro_winkler":
        return float(JaroWinkler.similarity(answer, expected))
    if metric == "token_set":
        return float(fuzz.token_set_ratio(answer, expected)) / 100
    raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
