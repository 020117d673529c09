"""The parts of a results file, one job each; imported from their face, `langchain_jev.datasets.results`.

- `records`: the records made (a judged row's, a failed row's) and their JSON lines;
- `answers`: answers and a jury's panel kept as plain data, and read back typed;
- `checks`: a record read back checked, naming its row and field;
- `resume`: a stopped run's file checked for the same judge and kept to its verdicts;
- `writer`: `ResultsFile`, the header then whole lines as the run goes.
"""
