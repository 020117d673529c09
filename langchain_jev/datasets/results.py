"""The results file of the command line: a header line, then one JSON line per row as soon as it is known.

The first line of a results file (not of results sent to stdout) is its
header (`langchain_jev.datasets._header`: what judged the rows, and the run);
readers of results files skip it, and read it back checked
(`langchain_jev.datasets._stored`). Every record names its row (``row``: its
number from 1; ``line``: where it starts in the dataset; ``key``: a hash of its
content), so a run that was stopped can be resumed: `resume_results` first
checks that the file was written by the same judge (and refuses, leaving it as
it was, when not), then keeps the rows that have a verdict, drops rows that
could not be judged (they are judged again) and a last line cut short by a
kill, and says which rows are done.

`verdict_record` is the one place the record of a judged row is made. Besides
the verdict (``passed``, ``summary``, ``feedback``, ``findings``) each finding of
a question that was answered keeps the model's raw answer under ``answer``
(``{"type": "noul", "noul": p}``; ``{"type": "score", "score", "confidence",
"probabilities": {level: p}}``; ``{"type": "choice", "choice", "confidence",
"probabilities": {label: p}}``), the fingerprint of the question it answered
under ``question`` (`question_fingerprint`), and the model's reason when an
answer came back unreadable under ``unreadable``; so the verdict can be decided
again at other thresholds without a request (`stored_answer` reads an answer
back as its typed answer). When a jury answered, the record keeps every member's
answers under ``panel`` (`panel_data`; `stored_panel` reads it back), so the
verdict decided again is decided by every member too, and who said what can be shown.

The parts, one job each, live in `langchain_jev.datasets._results`: the records made and their
lines (``records``), answers and panels kept and read back (``answers``), a record read back
checked (``checks``), a stopped run resumed (``resume``) and the writer (``writer``, `ResultsFile`).
Import their names from here.
"""

from __future__ import annotations

from langchain_jev._errors import ResultsError
from langchain_jev.datasets._header import HEADER_KEY, header_record, is_header
from langchain_jev.datasets._results.answers import answer_data, panel_data, stored_answer, stored_panel
from langchain_jev.datasets._results.checks import check_records, record_problem
from langchain_jev.datasets._results.records import (
    error_record,
    question_fingerprint,
    record_head,
    record_line,
    response_fields,
    verdict_record,
)
from langchain_jev.datasets._results.resume import Resumed, resume_results
from langchain_jev.datasets._results.writer import ResultsFile
from langchain_jev.datasets._stored import read_header

__all__ = [
    "HEADER_KEY",
    "Resumed",
    "ResultsError",
    "ResultsFile",
    "answer_data",
    "check_records",
    "error_record",
    "header_record",
    "is_header",
    "panel_data",
    "question_fingerprint",
    "read_header",
    "record_head",
    "record_line",
    "record_problem",
    "response_fields",
    "resume_results",
    "stored_answer",
    "stored_panel",
    "verdict_record",
]
