"""The dataset core both engines share: the local engine of ``langchain-jev judge`` and the Ray engine.

Modules, one job each:

- `reading`, `writing`: the one reader of every file (regular files only, every line bounded) and the
  one writer of every whole output (complete, or the previous file);
- `readers`, `rows`: dataset files in (JSONL, a JSON array, CSV), rows mapped to judge inputs and keyed;
- `results`: result records and results files out (written as they come, resumed);
- `header`, `stored`: a results file's header (made, checked field by field) and the file read back;
- `redecide`, `states`: stored answers decided again under a judge (no request); the rows' judged
  states, read again from their dataset;
- `fingerprint`, `lock`: the judge a results file records (``--resume`` continues it only), one writer;
- `tally`: pass rates per criterion and overall, as the closing table and summary;
- `model`, `transport`, `pacing`: the decision model a run builds, its connections, the rate limit;
- `options`: the options both engines read alike (the columns, the decision model, trusted code);
- `exit_codes`: the exit codes, the one error line, the quiet end of a closed stdout.
- `local`: the local engine (the rows judged here or in worker processes, the progress line).

Nothing here imports the command line (`langchain_jev.cli`) or Ray: the
commands and both engines import these modules, never the other way round.
"""
