"""The local engine of ``langchain-jev judge``: the rows judged in this process or in worker processes.

Modules, one job each:

- `run`: judging the rows here, on one event loop, or handing them to the worker pool;
- `session`: what a run shares with its workers (the options, the jobs, the reading and writing session);
- `pool` and `worker`: the worker processes and what runs inside each;
- `progress`: the progress line.

The ``judge`` command (`langchain_jev.cli`) starts it; the Ray engine (`langchain_jev.ray`) is its
twin on a cluster. It stands on the dataset modules beside it and imports nothing of either.
"""
