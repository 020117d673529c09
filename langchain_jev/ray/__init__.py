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

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
