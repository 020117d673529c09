"""The options both engines of ``judge`` read alike: the columns, the decision model, trusted code."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_jev.datasets._model import ModelSettings
    from langchain_jev.datasets._rows import FieldMap

__all__ = ["allow_code", "field_map", "model_settings"]


def model_settings(args: argparse.Namespace) -> ModelSettings:
    """The decision model the ``judge`` command's options describe (the key comes from the environment)."""
    from langchain_jev.datasets._model import ModelSettings

    return ModelSettings(
        model=args.model,
        base_url=args.base_url,
        timeout=args.timeout,
        max_retries=args.max_retries,
        cache=args.cache,
        concurrency=args.concurrency,
    )


def field_map(args: argparse.Namespace) -> FieldMap:
    """Which columns the ``judge`` command's options say hold each part of the judge input."""
    from langchain_jev.datasets._rows import FieldMap

    return FieldMap.of(
        question=args.question_field,
        answer=args.answer_field,
        expected=args.expected_field,
        context=args.context_field,
        tool_calls=args.tool_calls_field,
        id_field=args.id_field,
        ignored=args.ignore_field,
    )


def allow_code(given: Sequence[str] | None) -> bool | list[str]:
    """``--allow-code`` alone trusts any module; with names, those modules."""
    if not given:
        return False
    return True if "" in given else list(given)
