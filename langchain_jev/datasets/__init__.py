"""The one home of a dataset run: the rows coming in, the local engine, and the results file whole.

Where a row goes, in order (the Ray engine, `langchain_jev.ray`, takes the same steps on a cluster):

1. in: `reading` opens the file (a regular file only, every line bounded), `readers` reads its
   rows (JSONL, a JSON array, CSV) with their number and line, `rows` maps each to a judge input
   (the columns `options` names) and keys it by its content, `paths` checks first that no output
   is an input;
2. judged: `local` judges it, in this process or in worker processes (`local.run`, `local.pool`),
   by the decision model `model` builds (its connections `transport`, its rate limit `pacing`),
   the garbage collector tuned for it (`collector`);
3. out: `results` makes its record (the verdict, each raw answer, the question's fingerprint)
   and writes it to the results file as it comes: `header` is the file's first line (what
   judged the rows: `fingerprint`), `lock` keeps one writer, a stopped run resumes from it;
   `writing` is the one writer of every whole output and `strict_json` its JSON;
4. counted: `tally` adds it to the pass rates, printed as the closing table; `exit_codes`
   turns the run into the exit code;
5. read back: `stored` reads a results file back checked, `redecide` decides its answers again
   under another judge with no request (`read_to_redecide`, the check ``rejudge`` and
   ``calibrate --results`` make first), and `states` reads each row's judged state again from
   its dataset. `langchain_jev.calibration`, `langchain_jev.compare` and `langchain_jev.report`
   read results through these modules and nothing else.

Nothing here imports the command line (`langchain_jev.cli`) or Ray: the
commands and both engines import these modules, never the other way round.
"""
