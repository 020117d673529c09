"""The results file of the command line: a header line, then one JSON line per row as soon as it is known.

The first line of a results file (not of results sent to stdout) is its
header (`langchain_jev.datasets.header`: what judged the rows, and the run);
readers of results files skip it, and read it back checked
(`langchain_jev.datasets.stored`). Every record names its row (``row``: its
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
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import io
import json
import os
import stat
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TextIO

from langchain_core.decisions import ChoiceAnswer, ClassifierResponse, NoulAnswer, ScoreAnswer
from pydantic import TypeAdapter

from langchain_jev.datasets import strict_json
from langchain_jev.datasets.header import HEADER_KEY, header_record, is_header
from langchain_jev.datasets.paths import real_path
from langchain_jev.datasets.reading import bounded_lines, open_regular
from langchain_jev.datasets.stored import read_header
from langchain_jev.datasets.writing import atomic_output
from langchain_jev.errors import ResultsError
from langchain_jev.models.response import DecisionResponse, JuryPanel
from langchain_jev.models.secrets import contains_secret, redact, redact_data
from langchain_jev.verdict import JevVerdict, Outcome

if TYPE_CHECKING:
    from langchain_core.decisions import Answer

    from langchain_jev.criteria import JevCriterion

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


def record_head(row: int | None, line: int | None, key: str, row_id: Any) -> dict[str, Any]:
    """The fields that name a row in its record: ``row``, ``line``, ``key`` and ``id``.

    ``row`` and ``line`` are left out when None (rows read by Ray Data have no line
    in a file), ``id`` when the row has none.

    Example:
        >>> record_head(2, 3, "abc", None), record_head(None, None, "abc", 7)
        ({'row': 2, 'line': 3, 'key': 'abc'}, {'key': 'abc', 'id': 7})

    """
    record: dict[str, Any] = {} if row is None else {"row": row}
    if line is not None:
        record["line"] = line
    record["key"] = key
    if row_id is not None:
        record["id"] = row_id
    return record


def verdict_record(
    row: int | None, line: int | None, key: str, row_id: Any, verdict: JevVerdict
) -> dict[str, Any]:
    """The result record of a judged row.

    Example:
        >>> from langchain_jev import JevCriterion, JevFinding, JevVerdict, Outcome
        >>> check = JevCriterion.check("short", lambda d: True, "too long")
        >>> verdict = JevVerdict(True, (JevFinding(check, None, Outcome.PASSED, "short: ok"),), None, "")
        >>> record = verdict_record(1, 1, "abc", "r1", verdict)
        >>> record["passed"], record["findings"][0]["outcome"]
        (True, 'PASSED')

    A question's finding also keeps its raw answer, the question's fingerprint and,
    when the answer came back unreadable, why (see the module docstring).

    """
    record = record_head(row, line, key, row_id)
    record.update(verdict.to_dict())
    response = verdict.response
    if response is not None:
        unreadable: Mapping[str, str] = getattr(response, "unreadable", None) or {}
        for finding, data in zip(verdict.findings, record["findings"], strict=True):
            criterion = finding.criterion
            if criterion.question is None:
                continue
            stored = answer_data(finding.answer)
            problem = unreadable.get(criterion.name)
            if stored is None and problem is None and finding.outcome is Outcome.NOT_APPLICABLE:
                continue  # not asked
            data["question"] = question_fingerprint(criterion)
            if stored is not None:
                data["answer"] = stored
            if problem is not None:
                data["unreadable"] = problem
    if response is not None:
        record.update(response_fields(response))
    return record


_FINGERPRINTS: dict[int, tuple[Any, str]] = {}


def question_fingerprint(criterion: JevCriterion) -> str:
    """A short hash of what a criterion asks (its question's text, levels or options; not its threshold).

    Two criteria with the same fingerprint ask the same question, so an answer
    stored for one can be decided again for the other.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> strict = JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.9)
        >>> lenient = JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.5)
        >>> other = JevCriterion.noul("polite", Noul(instructions="Courteous?"), 0.5)
        >>> question_fingerprint(strict) == question_fingerprint(lenient) != question_fingerprint(other)
        True

    """
    question = criterion.question
    cached = _FINGERPRINTS.get(id(question))
    if cached is not None and cached[0] is question:
        return cached[1]
    dumped = question.model_dump(mode="json") if question is not None else None
    text = json.dumps([criterion.kind, dumped], sort_keys=True, ensure_ascii=False, default=str)
    fingerprint = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    if len(_FINGERPRINTS) > 4096:
        _FINGERPRINTS.clear()
    _FINGERPRINTS[id(question)] = (question, fingerprint)
    return fingerprint


def answer_data(answer: Any) -> dict[str, Any] | None:
    """A typed answer as the plain data a result record keeps (None for no answer).

    Example:
        >>> from langchain_core.decisions import NoulAnswer
        >>> answer_data(NoulAnswer(type="noul", noul=0.25))
        {'type': 'noul', 'noul': 0.25}

    """
    if isinstance(answer, NoulAnswer):
        return {"type": "noul", "noul": answer.noul}
    if isinstance(answer, ScoreAnswer):
        data: dict[str, Any] = {"type": "score", "score": answer.score, "confidence": answer.confidence}
        if answer.probabilities is not None:
            data["probabilities"] = {str(level): p for level, p in answer.probabilities.items()}
        return data
    if isinstance(answer, ChoiceAnswer):
        data = {"type": "choice", "choice": answer.choice, "confidence": answer.confidence}
        if answer.probabilities is not None:
            data["probabilities"] = dict(answer.probabilities)
        return data
    return None


def stored_answer(data: Any, criterion: JevCriterion | None = None) -> Answer:
    """Read a stored answer (`answer_data`) back as its typed answer.

    ``criterion`` gives a score's legend (its levels), which records leave out.

    Raises:
        ValueError: the data is not a stored answer.

    Example:
        >>> stored_answer({"type": "noul", "noul": 0.25})
        NoulAnswer(type='noul', noul=0.25)

    """
    from pydantic import ValidationError

    if not isinstance(data, Mapping) or data.get("type") not in ("noul", "score", "choice"):
        raise ValueError(f"not a stored answer: {data!r}"[:200])
    values = dict(data)
    if values["type"] == "score" and "legend" not in values:
        levels = criterion.levels if criterion is not None else []
        values["legend"] = dict(enumerate(levels))
    try:
        answer: Answer = _answer_adapter().validate_python(values)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        raise ValueError(f"not a stored answer: {first['msg']}") from None
    return answer


@functools.cache
def _answer_adapter() -> TypeAdapter[Answer]:
    from langchain_core.decisions import Answer

    return TypeAdapter(Answer)


def response_fields(response: ClassifierResponse) -> dict[str, Any]:
    """What a record keeps of the response that answered it: ``model``, ``request_id``, ``cache_hit``.

    A jury's response adds ``panel``: who said what (`panel_data`). A judge's result
    records and a comparison's head-to-head records keep the same fields.

    Example:
        >>> from langchain_jev.models.response import DecisionResponse
        >>> response_fields(DecisionResponse(model="jev-latest", answers={}, cache_hit=True))
        {'model': 'jev-latest', 'cache_hit': True}

    """
    fields: dict[str, Any] = {"model": response.model}
    if response.request_id is not None:
        fields["request_id"] = response.request_id
    if getattr(response, "cache_hit", False):
        fields["cache_hit"] = True
    panel = getattr(response, "panel", None)
    if isinstance(panel, JuryPanel):
        fields["panel"] = panel_data(panel)
    return fields


def panel_data(panel: JuryPanel) -> dict[str, Any]:
    """A jury's panel as the plain data a result record keeps under ``panel``.

    ``{"combine", "disagreement", "members": {name: {"model", "answers": {question:
    answer_data}, "unreadable": {question: why}, "request_id"}}, "failed": {name: error}}``.
    A member's answer that is not a finite noul, score or choice answer is kept as
    unreadable, so the record stays strict JSON.

    Example:
        >>> from langchain_core.decisions import NoulAnswer
        >>> yes = NoulAnswer(type="noul", noul=0.9)
        >>> panel = JuryPanel(combine="mean", disagreement=0.5, members={
        ...     "jev": DecisionResponse(model="jev-latest", answers={"polite": yes})},
        ...     failed={"gpt": "TimeoutError: no answer within 5.00 s"})
        >>> panel_data(panel)["members"], panel_data(panel)["failed"]
        ({'jev': {'model': 'jev-latest', 'answers': {'polite': {'type': 'noul', 'noul': 0.9}}}}, \
{'gpt': 'TimeoutError: no answer within 5.00 s'})

    """
    members: dict[str, Any] = {}
    for name, response in panel.members.items():
        answers: dict[str, Any] = {}
        unreadable = {str(q): str(why) for q, why in response.unreadable.items()}
        for question, answer in response.answers.items():
            if question in unreadable:
                continue
            stored = answer_data(answer)
            if stored is None or not _strict_json(stored):
                unreadable[question] = f"not a finite noul, score or choice answer: {answer!r}"[:300]
                continue
            answers[question] = stored
        entry: dict[str, Any] = {"model": response.model, "answers": answers}
        if unreadable:
            entry["unreadable"] = unreadable
        if response.request_id is not None:
            entry["request_id"] = response.request_id
        members[name] = entry
    return {
        "combine": panel.combine,
        "disagreement": panel.disagreement,
        "members": members,
        "failed": dict(panel.failed),
    }


def _strict_json(data: Any) -> bool:
    try:
        json.dumps(data, allow_nan=False)
    except ValueError:
        return False
    return True


def stored_panel(data: Any, criteria: Mapping[str, JevCriterion] | None = None) -> JuryPanel:
    """Read a record's ``panel`` (`panel_data`) back as a `JuryPanel`, each answer typed.

    ``criteria`` (by name) give the scores' levels. A member's answer that cannot be
    read is that member's unreadable answer (as a fresh response would have it).

    Raises:
        ValueError: the data is not a stored panel.

    Example:
        >>> stored = {"combine": "vote", "disagreement": None, "failed": {},
        ...           "members": {"a": {"model": "m", "answers": {"ok": {"type": "noul", "noul": 0.2}}}}}
        >>> stored_panel(stored).answers_to("ok")
        {'a': NoulAnswer(type='noul', noul=0.2)}

    """
    if not isinstance(data, Mapping) or not isinstance(data.get("combine"), str):
        raise ValueError("not a stored jury panel")
    members = data.get("members")
    failed = data.get("failed") or {}
    disagreement = data.get("disagreement")
    if not isinstance(members, Mapping) or not isinstance(failed, Mapping):
        raise ValueError("a stored jury panel has members and failed")
    if isinstance(disagreement, bool) or not isinstance(disagreement, (int, float, type(None))):
        raise ValueError(f"a stored jury panel's disagreement is a number or null, not {disagreement!r}")
    responses: dict[str, DecisionResponse] = {}
    for name, member in members.items():
        if not isinstance(member, Mapping) or not isinstance(member.get("answers"), Mapping):
            raise ValueError(f"jury member {name!r}: not a stored response")
        answers: dict[str, Any] = {}
        unreadable = {str(q): str(why) for q, why in (member.get("unreadable") or {}).items()}
        for question, stored in member["answers"].items():
            try:
                answers[str(question)] = stored_answer(stored, (criteria or {}).get(str(question)))
            except ValueError as error:
                unreadable[str(question)] = str(error)
        request_id = member.get("request_id")
        responses[str(name)] = DecisionResponse(
            model=str(member.get("model") or name),
            answers=answers,
            unreadable=unreadable,
            request_id=request_id if isinstance(request_id, str) else None,
        )
    return JuryPanel(
        combine=data["combine"],
        disagreement=None if disagreement is None else float(disagreement),
        members=responses,
        failed={str(k): str(v) for k, v in failed.items()},
    )


def error_record(
    row: int | None, line: int | None, key: str, row_id: Any, error: BaseException
) -> dict[str, Any]:
    """The record of a row that could not be judged: never a pass (known keys redacted).

    Example:
        >>> error_record(2, 3, "abc", None, ConnectionError("refused"))["error"]
        'ConnectionError: refused'

    """
    record = record_head(row, line, key, row_id)
    record["passed"] = False
    record["error"] = redact(f"{type(error).__name__}: {error}".strip())  # no echoed key
    return record


def record_line(record: Mapping[str, Any]) -> str:
    r"""A record as its line of the results file (JSON, without the newline), known keys redacted.

    Text UTF-8 cannot hold (a lone surrogate, from a ``\ud800`` escape in a
    dataset) is written as a JSON escape, and a number that is not finite (an
    unreadable answer's ``NaN``) as ``null``, so every line is strict, valid
    UTF-8 JSON.

    Example:
        >>> record_line({"row": 1, "passed": True, "summary": "très bien"})
        '{"row": 1, "passed": true, "summary": "très bien"}'
        >>> record_line({"row": 2, "id": "\ud800", "value": float("nan")})
        '{"row": 2, "id": "\\ud800", "value": null}'

    Every known key is redacted from every field (one a server echoed into a
    model name, a request id, a label or a finding's detail).

    """
    line = strict_json.dumps(record, ensure_ascii=False)
    if contains_secret(line):  # as written, so what ``default=str`` made of an object is searched too
        record = redact_data(json.loads(line))
        line = strict_json.dumps(record, ensure_ascii=False)
    if not line.isascii():
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            return strict_json.dumps(record, ensure_ascii=True)
    return line


_KINDS = ("noul", "score", "choice", "check")
_OUTCOMES = tuple(outcome.value for outcome in Outcome)
_FINDING_FIELDS: tuple[tuple[str, type | tuple[type, ...], bool], ...] = (
    ("name", str, True),
    ("kind", str, True),
    ("outcome", str, True),
    ("detail", str, True),
    ("question", str, False),
    ("answer", dict, False),
    ("unreadable", str, False),
    ("reasoning", str, False),
)


def record_problem(record: Mapping[str, Any]) -> str | None:
    """What in a row's record cannot be read back (its field, and why), or None when it all can.

    What `rejudge` and `calibrate` read of a record is checked: ``passed``, and
    each finding's ``name``, ``kind``, ``outcome`` and ``detail`` (with ``question``,
    ``answer`` and ``unreadable`` when given); a record of a row that could not be
    judged needs only its ``error``.

    Example:
        >>> record_problem({"row": 1, "key": "k", "passed": True, "findings": [
        ...     {"name": "ok", "kind": "noul", "outcome": "MAYBE", "detail": ""}]})
        "findings[0].outcome is 'MAYBE', not one of PASSED, FAILED, INCONCLUSIVE, ERROR, NOT_APPLICABLE"
        >>> record_problem({"row": 2, "key": "k", "passed": False, "error": "TimeoutError: slow"}) is None
        True

    """
    if "error" in record:
        return None if isinstance(record["error"], str) else f"error is {_shown(record['error'])}, not text"
    if not isinstance(record.get("passed"), bool):
        return f"passed is {_shown(record.get('passed'))}, not true or false"
    findings = record.get("findings")
    if not isinstance(findings, list):
        return f"findings is {_shown(findings)}, not a list"
    for index, finding in enumerate(findings):
        where = f"findings[{index}]"
        if not isinstance(finding, dict):
            return f"{where} is {_shown(finding)}, not an object"
        for name, kind, required in _FINDING_FIELDS:
            if name not in finding:
                if required:
                    return f"{where} has no {name}"
                continue
            if not isinstance(finding[name], kind):
                return f"{where}.{name} is {_shown(finding[name])}, not {_KIND_WORDS[name]}"
        if finding["kind"] not in _KINDS:
            return f"{where}.kind is {finding['kind']!r}, not one of {', '.join(_KINDS)}"
        if finding["outcome"] not in _OUTCOMES:
            return f"{where}.outcome is {finding['outcome']!r}, not one of {', '.join(_OUTCOMES)}"
    return None


_KIND_WORDS = {"answer": "an object", **{name: "text" for name, kind, _ in _FINDING_FIELDS if kind is str}}


def check_records(records: Iterable[Mapping[str, Any]], source: str | os.PathLike[str]) -> None:
    """Raise naming the first record of ``source`` that cannot be read back, and its field.

    Raises:
        ResultsError: ``source: row N (key K): field ...``; a record judged on Ray is named by its key.

    """
    for record in records:
        problem = record_problem(record)
        if problem is not None:
            row = record.get("row")
            named = (
                f"row {row} (key {record.get('key')})"
                if isinstance(row, int)
                else f"the row of key {record.get('key')}"
            )
            raise ResultsError(
                f"{os.fspath(source)}: {named}: {problem}; is it a results file of langchain-jev?"
            )


def _shown(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass
class Resumed:
    """What an earlier run left: the rows done, and what was dropped to be judged again."""

    done: dict[int, str] = field(default_factory=dict)
    """Row number -> content key of each row that has a verdict."""
    dropped_errors: int = 0
    """Rows that could not be judged last time; they are judged again."""
    truncated: bool = False
    """The last line was cut short (the run was killed while writing it)."""


def resume_results(
    path: str | os.PathLike[str],
    on_record: Callable[[Mapping[str, Any]], None] | None = None,
    *,
    judge: Mapping[str, Any] | None = None,
) -> Resumed:
    """Read an earlier results file, keep its verdicts, and rewrite it without the rest.

    With ``judge`` (a `judge_description`), the file must have been written by
    that judge: its header is checked first, and the file is refused, left as
    it was, when it records another judge (the message says what differs) or
    none. The file is then rewritten (atomically, with its permissions; through a
    symlink its target is rewritten and the link kept) with its header and only
    the records that have a verdict, one per row, so appending the rows still to
    do neither repeats nor loses one. ``on_record`` sees each kept record (to
    count it in the report). A missing file is an empty start.

    Raises:
        ResultsError: another judge wrote the file, or a line before the last is
            not a record of this command.

    """
    named = Path(path)
    target = Path(real_path(named))  # a symlinked --out: its target is rewritten, the link kept
    resumed = Resumed()
    if not target.exists():
        return resumed
    if judge is not None:
        _check_judge(named, judge)
    try:
        with open_regular(target) as source, atomic_output(target) as sink:
            pending: bytes | None = None
            number = 0
            for raw in bounded_lines(source, name=str(named)):
                if pending is not None:
                    _keep(pending, number, resumed, sink, on_record, named)
                number += 1
                pending = raw
            if pending is not None:
                if pending.endswith(b"\n") or _parses(pending):
                    _keep(pending.rstrip(b"\r\n") + b"\n", number, resumed, sink, on_record, named)
                else:
                    resumed.truncated = True
    except OSError as error:
        raise ResultsError(f"cannot resume from {named}: {error.strerror or error}") from None
    return resumed


def _check_judge(target: Path, judge: Mapping[str, Any]) -> None:
    from langchain_jev.datasets.fingerprint import differences, fingerprint

    header = read_header(target)  # a header edited into something else is refused, naming its field
    try:
        empty = target.stat().st_size == 0
    except OSError as error:
        raise ResultsError(f"cannot resume from {target}: {error.strerror or error}") from None
    if header is None:
        if empty:
            return
        raise ResultsError(
            f"{target} does not say which judge wrote it (it has no header line); "
            "to judge the rows again, start a new --out"
        )
    recorded = header.get("judge")
    if header.get("fingerprint") == fingerprint(judge) and recorded is not None:
        return
    changes = differences(recorded, judge) if isinstance(recorded, Mapping) else ["the judge is not recorded"]
    raise ResultsError(
        f"{target} was written by another judge; --resume continues only the same judge:\n  "
        + "\n  ".join(changes or ["the judge differs"])
        + "\nstart a new --out, or resume with the judge and --model of that run"
    )


def _keep(
    raw: bytes,
    number: int,
    resumed: Resumed,
    sink: IO[bytes],
    on_record: Callable[[Mapping[str, Any]], None] | None,
    target: Path,
) -> None:
    if not raw.strip():
        return
    try:
        record = json.loads(raw)
    except ValueError:
        raise ResultsError(
            f"{target}:{number}: not a JSON line; is this a results file of langchain-jev?"
        ) from None
    if number == 1 and is_header(record):  # checked by `_check_judge` when a judge is given
        sink.write(raw if raw.endswith(b"\n") else raw + b"\n")
        return
    if not isinstance(record, dict) or not isinstance(record.get("row"), int) or "key" not in record:
        raise ResultsError(
            f"{target}:{number}: a record without 'row' and 'key'; is this a results file of langchain-jev?"
        )
    if "error" in record:
        resumed.dropped_errors += 1
        return
    if record["row"] in resumed.done:
        return
    resumed.done[record["row"]] = str(record["key"])
    sink.write(raw if raw.endswith(b"\n") else raw + b"\n")
    if on_record is not None:
        on_record(record)


def _parses(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return False
    return True


class ResultsFile:
    """Where result records go: a file (created, or appended to when resuming) or ``-`` for stdout.

    A file starts with its header line (`header_record` of ``judge``), unless
    it is appended to and already has content; stdout gets records only. Each
    batch of records is written as whole lines with a single unbuffered write,
    so a kill leaves at most the last line cut short, and a write that fails
    part way (a full disk) is cut back to the lines before it. A file removed
    or replaced during the run (its folder deleted, say) fails the next write.

    Raises:
        OSError: from the constructor and the writes: the file cannot be written.

    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        append: bool = False,
        judge: Mapping[str, Any] | None = None,
        run: Mapping[str, Any] | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self._stream: IO[bytes]
        self._text: TextIO | None = None
        self._regular = False
        self._end = 0
        if self.path == "-":
            sys.stdout.flush()
            buffer = getattr(sys.stdout, "buffer", None)
            if buffer is None:  # stdout replaced by a text-only stream
                self._text = sys.stdout
            self._stream = buffer if buffer is not None else io.BytesIO()
            self._owned = False
            return
        # unbuffered: each batch of lines is one write, and a write that fails part way is undone
        self._stream = open(self.path, "ab" if append else "wb", buffering=0)  # noqa: SIM115 - held until close()
        self._owned = True
        try:
            self._regular = _is_file(self._stream)
            self._end = self._stream.seek(0, os.SEEK_END) if self._regular else 0
            if self._end == 0 and self._regular:
                self.write_lines([record_line(header_record(judge, run))])
        except BaseException:
            self._stream.close()
            raise

    def write(self, record: Mapping[str, Any]) -> None:
        """Write one record as a JSON line and flush it."""
        self.write_lines([record_line(record)])

    def write_lines(self, lines: list[str]) -> None:
        """Write records already made lines by `record_line` (one write), and flush them."""
        text = "\n".join(lines) + "\n"
        if self._text is not None:
            self._text.write(text)
            self._text.flush()
            return
        data = text.encode("utf-8", "backslashreplace")  # a lone surrogate as its JSON escape
        if not self._owned:
            self._stream.write(data)
            self._stream.flush()
            return
        view = memoryview(data)
        try:
            while view:
                written = self._stream.write(view)
                view = view[written or 0 :]
        except OSError:
            if self._regular:  # leave whole lines only (a full disk takes part of a write)
                with contextlib.suppress(OSError):
                    os.ftruncate(self._stream.fileno(), self._end)
            raise
        self._end += len(data)
        if self._regular:
            self._check_in_place()

    def _check_in_place(self) -> None:
        """Raise when the file is no longer at its path (it, or its directory, was removed or replaced).

        The lines written since went to a file nobody can read: the run must not carry on as if
        they were kept.
        """
        try:
            there = os.stat(self.path)
        except OSError:
            there = None
        here = os.fstat(self._stream.fileno())
        if there is None or (there.st_dev, there.st_ino) != (here.st_dev, here.st_ino):
            raise OSError(errno.ENOENT, "the file (or its folder) was removed or replaced during the run")

    def close(self) -> None:
        """Close the file (stdout stays open)."""
        if self._owned:
            self._stream.close()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _is_file(stream: IO[bytes]) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except OSError:
        return False
