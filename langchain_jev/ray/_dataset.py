"""`judge_dataset`: a verdict for every row of a Ray Dataset, judged by a pool of actors.

Judging waits on the network, not the CPU: each actor takes a fraction of a CPU
(``num_cpus``, 0.25 by default, so the read and write tasks are never starved)
and keeps ``in_flight`` requests going on one event loop. An actor that dies is
replaced and its batch judged again by Ray, whose output holds only the batch
that finished, so every input row comes out exactly once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from langchain_jev._errors import JevConfigurationError
from langchain_jev.datasets._model import ModelSettings
from langchain_jev.datasets._rows import FieldMap
from langchain_jev.ray._actor import JudgeActor, RateLimitActor
from langchain_jev.ray._source import JudgeSource

if TYPE_CHECKING:
    import ray.data

__all__ = ["judge_dataset"]


def judge_dataset(
    ds: ray.data.Dataset,
    judge: Any,
    *,
    model: str | None = None,
    base_url: str | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
    cache: str | None = None,
    fields: FieldMap | Mapping[str, Any] | None = None,
    actors: int = 2,
    in_flight: int = 32,
    batch_size: int = 64,
    batches_per_actor: int = 4,
    num_cpus: float = 0.25,
    rate_limit: float | None = None,
    from_csv: bool = False,
) -> ray.data.Dataset:
    """Add the verdict of ``judge`` to every row of ``ds``; lazily, like every Ray Data transform.

    Args:
        ds: rows with the columns the judge needs (``question``, ``answer``, ...;
            see ``fields``).
        judge: a judge file's path, a prebuilt judge's name, a judge file as a
            mapping, or a picklable function returning a `JevJudge` (called once
            per actor).
        model: the decision model a judge file is judged with, as ``--model`` on
            the command line (the key comes from each actor's ``TYPESAFE_API_KEY``).
        base_url: a Jev-compatible server.
        timeout: seconds per HTTP operation.
        max_retries: retries per request (the model's policy; then the row is an error row).
        cache: a SQLite file answering repeated requests; actors on one filesystem share it.
        fields: which columns hold each part of the judge input (a `FieldMap`, or
            its keyword arguments such as ``{"question": "prompt"}``).
        actors: how many actors judge at once.
        in_flight: requests each actor keeps in flight.
        batch_size: rows per batch handed to an actor (the rows are cut into blocks of this
            many, so the pool's actors share them whatever blocks ``ds`` came in).
        batches_per_actor: batches an actor judges at once on its loop, at least (more when
            ``in_flight`` needs them: twice ``in_flight`` rows are handed to each actor).
        num_cpus: the CPU each actor reserves (judging is I/O-bound).
        rate_limit: requests per second across all actors.
        from_csv: the rows were read from CSV with every cell as text (cells holding
            JSON, such as a ``context`` list, are read as JSON).

    Returns:
        ``ds`` with the columns ``jev_key``, ``jev_passed``, ``jev_summary``,
        ``jev_feedback``, ``jev_error`` (None when judged) and ``jev_record`` (the
        row's result record as JSON, the same as a line of ``langchain-jev judge``'s
        results file).

    Example:
        >>> import ray  # doctest: +SKIP
        >>> rows = ray.data.from_items([{"question": "Hi?", "answer": "Hello!"}])  # doctest: +SKIP
        >>> judge_dataset(rows, "judge.yaml", base_url="http://127.0.0.1:8000").take(1)  # doctest: +SKIP

    """
    import ray
    from ray.data import ActorPoolStrategy

    counts = {
        "actors": actors,
        "in_flight": in_flight,
        "batch_size": batch_size,
        "batches_per_actor": batches_per_actor,
    }
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise JevConfigurationError(f"{name} must be a whole number of at least 1, got {value!r}")
    if not num_cpus > 0:
        raise JevConfigurationError(f"num_cpus must be positive, got {num_cpus!r}")
    field_map = fields if isinstance(fields, FieldMap) else FieldMap.of(**dict(fields or {}))
    settings = ModelSettings(
        model=model,
        base_url=base_url,
        timeout=timeout,
        max_retries=max_retries,
        cache=cache,
        concurrency=in_flight,
    )
    source = JudgeSource.of(judge, settings=settings, fields=field_map, from_csv=from_csv)
    limiter = None
    if rate_limit is not None:
        if not rate_limit > 0:
            raise JevConfigurationError(f"rate_limit must be positive, got {rate_limit!r}")
        limiter = ray.remote(num_cpus=0)(RateLimitActor).remote(float(rate_limit))
    # Blocks of one batch each, however the rows were read (one block for a whole file is common):
    # the pool hands blocks to its actors, so every actor gets rows, and enough batches go to each
    # at once to keep its in_flight requests going while a batch's last rows finish.
    concurrent = max(batches_per_actor, -(-2 * in_flight // batch_size))
    return ds.repartition(target_num_rows_per_block=batch_size).map_batches(
        JudgeActor,
        fn_constructor_args=(source, in_flight, limiter, rate_limit),
        batch_size=batch_size,
        batch_format="pyarrow",
        compute=ActorPoolStrategy(
            size=actors,
            max_tasks_in_flight_per_actor=concurrent,
            max_concurrent_calls_per_actor=concurrent,
        ),
        num_cpus=num_cpus,
    )
