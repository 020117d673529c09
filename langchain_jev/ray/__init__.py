"""Judging Ray Datasets on a Ray cluster (extra ``ray``): `judge_dataset`, `read_file`.

- `dataset`: `judge_dataset`, the verdict of every row by a pool of actors;
- `reading`: `read_file`, a JSONL, JSON or CSV file read as the local engine reads it;
- `actor`: the actor that judges batches, and the rate limit the actors share;
- `source`: how each actor builds its judge (a judge file, a prebuilt name, a factory);
- `command`: ``langchain-jev judge DATA --engine ray``.

Names are imported lazily, so importing this package works without Ray until
one is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.ray.actor import COLUMNS
    from langchain_jev.ray.dataset import judge_dataset
    from langchain_jev.ray.reading import read_file
    from langchain_jev.ray.source import JudgeSource

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "COLUMNS": "langchain_jev.ray.actor",
    "JudgeSource": "langchain_jev.ray.source",
    "judge_dataset": "langchain_jev.ray.dataset",
    "read_file": "langchain_jev.ray.reading",
}

__all__ = [
    "COLUMNS",
    "JudgeSource",
    "judge_dataset",
    "read_file",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
