"""The Ray engine (extra ``ray``): a dataset judged on a Ray cluster, standing on `langchain_jev.datasets`.

Where a row goes, in order:

1. `reading`: the file is read on Ray by the local engine's own readers (`read_file`: JSONL,
   JSON, CSV; Parquet by Ray Data), each row as the exact object the local engine reads, with
   its number and line, or the problem that made it unreadable;
2. `source`: each actor builds its judge once from plain, picklable data (`JudgeSource`: a
   judge file, a prebuilt judge's name, or a factory), the API key from its own environment;
3. `actor`: an actor judges a batch of rows on its event loop, under the rate limit the whole
   pool shares, and adds the verdict `COLUMNS`, the record among them
   (`langchain_jev.datasets.results`, the records the local engine writes);
4. `dataset`: `judge_dataset` maps a Ray Dataset through a pool of those actors, lazily;
5. `run`: `run_ray`, the whole run of ``langchain-jev judge --engine ray``: Ray started or
   joined, the rows judged, brought back to the driver once, tallied, and written to a results
   file (through `langchain_jev.datasets.results`, locked as the local engine locks it) or to
   Parquet.

The command itself (its options, the table, the exit codes) is `langchain_jev.cli._judge`;
nothing here imports the command line. Names are imported lazily, so importing this package
works without Ray until one is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.ray._actor import COLUMNS
    from langchain_jev.ray._dataset import judge_dataset
    from langchain_jev.ray._reading import read_file
    from langchain_jev.ray._source import JudgeSource

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "COLUMNS": "langchain_jev.ray._actor",
    "JudgeSource": "langchain_jev.ray._source",
    "judge_dataset": "langchain_jev.ray._dataset",
    "read_file": "langchain_jev.ray._reading",
}

__all__ = [
    "COLUMNS",
    "JudgeSource",
    "judge_dataset",
    "read_file",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
