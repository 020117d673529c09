"""Two runs' answers judged head to head by a pairwise judge: one request per row, tallied per criterion.

`compare_answers` (and `acompare_answers`) ask a `langchain_jev.pairwise.PairwiseJudge`
to compare each row's two answers (`langchain_jev.compare.AnswerPair`), at
most ``concurrency`` rows at once, one request per row whatever the number of
criteria (both orders of every criterion go in that request). A row whose request
fails is that row's error, never a preference. The `HeadToHead` they return tallies
each criterion: A's wins, B's wins, ties, undecided comparisons (position bias: each
order preferred the answer shown in one place; a lean: one order preferred an answer,
the other found them equal; a split: a jury's members disagreed beyond its bound) and
errors; and the sign test of A's wins against B's
(an exact binomial test at 1/2, ties and undecided left out: the computation of
McNemar's exact test, `langchain_jev.compare.mcnemar_exact`), which says
whether one run's answers are better by more than noise. `HeadToHead.table` is what
``langchain-jev compare A B --judge SPEC`` prints; `HeadToHeadRow.record` what its
``--out`` keeps per row (`write_head_to_head`, after a header line that says what
compared them and which results files).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from typing_extensions import Unpack

from langchain_jev._verdict import plain
from langchain_jev.compare._answers import AnswerPair
from langchain_jev.compare._join import row_name
from langchain_jev.compare._stats import ALPHA, mcnemar_exact
from langchain_jev.datasets._header import HEAD_TO_HEAD, HEADER_KEY
from langchain_jev.datasets._tally import text_columns
from langchain_jev.datasets.results import record_line, response_fields
from langchain_jev.pairwise._verdict import PairwiseVerdict, Preference

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

    from langchain_jev.pairwise._judge import PairwiseJudge

__all__ = [
    "HEADER",
    "HeadToHead",
    "HeadToHeadOptions",
    "HeadToHeadRow",
    "PreferenceCounts",
    "acompare_answers",
    "compare_answers",
    "head_to_head_header",
    "write_head_to_head",
]

HEADER = HEAD_TO_HEAD
"""The value of ``langchain_jev`` in the header of a file of head-to-head records (not a results file)."""

_ERROR_TEXT = 500
SIGN_TEST = "sign test: exact binomial test of wins (ties, undecided left out); a winner at p < 0.05"
"""What the table's last column means, as the terminal says it."""


@dataclass(frozen=True)
class HeadToHeadRow:
    """One row's comparison: the pairwise verdict, or why its request failed.

    Example:
        >>> from langchain_jev.compare import RowPair
        >>> pair = AnswerPair(RowPair("k#1", {"row": 1, "key": "k"}, {"row": 1, "key": "k"}), {}, ("a", "b"))
        >>> HeadToHeadRow(pair, None, "ConnectionError: refused").record()
        {'row': 1, 'key': 'k', 'error': 'ConnectionError: refused'}

    """

    pair: AnswerPair
    verdict: PairwiseVerdict | None
    error: str | None = None

    def record(self) -> dict[str, Any]:
        """The row's line of ``--out``: A's row, key and id (B's too when they differ), then the verdict."""
        a, b = self.pair.pair.a, self.pair.pair.b
        record: dict[str, Any] = {}
        for name in ("row", "key", "id"):
            if a.get(name) is not None:
                record[name] = a[name]
            if b.get(name) is not None and b.get(name) != a.get(name):
                record[f"{name}_b"] = b[name]
        if self.verdict is None:
            record["error"] = self.error or "not compared"
            return record
        record.update(self.verdict.to_dict())
        if self.verdict.response is not None:
            record.update(response_fields(self.verdict.response))
        return record


@dataclass(frozen=True)
class PreferenceCounts:
    """How one criterion (or the overall preference) landed over the rows.

    Example:
        >>> counts = PreferenceCounts("helpful", a=1, b=9, tie=2)
        >>> round(counts.p_value, 4), counts.verdict
        (0.0215, 'B better')

    """

    name: str
    a: int = 0
    b: int = 0
    tie: int = 0
    position_bias: int = 0
    """Undecided: each order preferred the answer shown in the same place."""
    lean: int = 0
    """Undecided: one order preferred an answer, the other found them equally good."""
    split: int = 0
    """Undecided: both orders agreed, but a jury's members disagreed beyond its bound."""
    errors: int = 0

    @property
    def inconclusive(self) -> int:
        """Undecided comparisons (position bias, leans and jury splits)."""
        return self.position_bias + self.lean + self.split

    @property
    def n(self) -> int:
        """Rows counted."""
        return self.a + self.b + self.tie + self.inconclusive + self.errors

    @property
    def p_value(self) -> float:
        """The sign test's two-sided p of A's wins against B's (1.0 with no win)."""
        return mcnemar_exact(self.a, self.b)

    @property
    def verdict(self) -> str:
        """``A better`` or ``B better`` when the sign test's p is under 0.05, else ``no clear winner``."""
        if self.p_value >= ALPHA or self.a == self.b:
            return "no clear winner"
        return "A better" if self.a > self.b else "B better"

    def add(
        self, preference: Preference | None, orders: Sequence[Preference | None] = ()
    ) -> PreferenceCounts:
        """These counts with one more comparison (None: the row's request failed)."""
        if preference is None or preference is Preference.ERROR:
            which = "errors"
        elif preference is Preference.INCONCLUSIVE:
            if set(orders) == {Preference.A, Preference.B}:
                which = "position_bias"
            elif len(orders) == 2 and orders[0] is orders[1]:
                which = "split"  # the orders agree: undecided only by a jury's members
            else:
                which = "lean"
        else:
            which = {"A": "a", "B": "b", "TIE": "tie"}[preference.value]
        return dataclasses.replace(self, **{which: getattr(self, which) + 1})

    def to_dict(self) -> dict[str, Any]:
        """The counts and the test as plain data."""
        counts = ("a", "b", "tie", "inconclusive", "position_bias", "lean", "split", "errors")
        return plain(self, "name", *counts, "p_value", "verdict")


@dataclass(frozen=True)
class HeadToHead:
    """Every row's comparison and each criterion's tally (see the module docstring).

    Example:
        >>> from langchain_jev.compare import RowPair
        >>> from langchain_jev.pairwise import PairwiseFinding
        >>> won = PairwiseFinding("helpful", Preference.B, (Preference.B, Preference.B), None, "")
        >>> pair = AnswerPair(RowPair("k#1", {"row": 1, "key": "k"}, {"row": 1, "key": "k"}), {}, ("a", "b"))
        >>> result = HeadToHead(("A", "B"), ["helpful"], [HeadToHeadRow(pair, PairwiseVerdict((won,), None))])
        >>> result.criteria[0].b, result.overall.b, result.errors
        (1, 1, 0)

    """

    labels: tuple[str, str]
    names: list[str]
    """The pairwise judge's criteria, in order."""
    rows: list[HeadToHeadRow]
    on: str = "key"
    """How the rows were joined."""
    headers: tuple[Any, Any] = (None, None)
    criteria: list[PreferenceCounts] = field(init=False)
    overall: PreferenceCounts = field(init=False)
    """The row's overall preference (the answer more criteria prefer)."""

    def __post_init__(self) -> None:
        counts = {name: PreferenceCounts(name) for name in self.names}
        overall = PreferenceCounts("overall")
        for row in self.rows:
            verdict = row.verdict
            if verdict is None:
                counts = {name: c.add(None) for name, c in counts.items()}
                overall = overall.add(None)
                continue
            for finding in verdict.findings:
                if finding.name in counts:
                    counts[finding.name] = counts[finding.name].add(finding.preference, finding.orders)
            overall = overall.add(verdict.preferred)
        object.__setattr__(self, "criteria", list(counts.values()))
        object.__setattr__(self, "overall", overall)

    def requests(self, per: str = "each") -> str:
        """How many requests each row took, ``per`` row: ``1 request each``, or one per jury member.

        Example:
            >>> HeadToHead(("A", "B"), ["helpful"], []).requests("per row")
            '1 request per row'

        """
        sizes = set()
        for row in self.rows:
            panel = getattr(row.verdict.response, "panel", None) if row.verdict is not None else None
            if panel is not None:
                sizes.add(len(panel.members) + len(panel.failed))
        if not sizes:
            return f"1 request {per}"
        return f"{sizes.pop() if len(sizes) == 1 else 'several'} requests {per} (one per jury member)"

    @property
    def errors(self) -> int:
        """Rows whose request failed."""
        return sum(1 for row in self.rows if row.verdict is None)

    def to_dict(self) -> dict[str, Any]:
        """Every figure, as plain data (the rows by name)."""
        return {
            "labels": list(self.labels),
            "joined_on": self.on,
            "rows": len(self.rows),
            "errors": self.errors,
            "criteria": [c.to_dict() for c in self.criteria],
            "overall": self.overall.to_dict(),
        }

    def table(self) -> str:
        """The tally as the terminal shows it, with the sentences under it.

        Example:
            >>> from langchain_jev.compare import RowPair
            >>> row = {"row": 1, "key": "k"}
            >>> pair = AnswerPair(RowPair("k#1", row, row), {}, ("a", "b"))
            >>> print(HeadToHead(("A", "B"), ["helpful"], [HeadToHeadRow(pair, None, "refused")]).table())
            ... # doctest: +NORMALIZE_WHITESPACE
            criterion  A wins  B wins  ties  inconclusive  errors  sign test p
            helpful         0       0     0             0       1        1.000  no clear winner
            overall         0       0     0             0       1        1.000  no clear winner
            <BLANKLINE>
            1 row compared head to head (joined by key), 1 request each; 1 could not be compared
              row 1: refused
            sign test: exact binomial test of wins (ties, undecided left out); a winner at p < 0.05

        """
        first, second = self.labels
        headers = (
            "criterion",
            f"{first} wins",
            f"{second} wins",
            "ties",
            "inconclusive",
            "errors",
            "sign test p",
            "",
        )
        body: list[tuple[str, ...]] = [headers]
        for c in [*self.criteria, self.overall]:
            counts = (c.a, c.b, c.tie, c.inconclusive, c.errors)
            body.append((c.name, *map(str, counts), f"{c.p_value:.3f}", c.verdict))
        lines = [text_columns(body, left=(0, 7)), ""]
        lines.extend(self.notes())
        return "\n".join(lines)

    def notes(self) -> list[str]:
        """The sentences under the table: rows compared, what undecided means here, the errors."""
        rows = len(self.rows)
        said = f"{rows} row{'' if rows == 1 else 's'} compared head to head (joined by {self.on})"
        said += f", {self.requests()}"
        lines = [said + (f"; {self.errors} could not be compared" if self.errors else "")]
        failed = [r for r in self.rows if r.verdict is None]
        lines.extend(f"  {row_name(r.pair.pair.a)}: {r.error}" for r in failed[:5])
        if len(failed) > 5:
            lines.append(f"  ... and {len(failed) - 5} more (--out keeps every row's error)")
        biased = sum(c.position_bias for c in self.criteria)
        leaning = sum(c.lean for c in self.criteria)
        split = sum(c.split for c in self.criteria)
        if biased or leaning or split:
            lines.append(
                f"inconclusive: {biased} position bias (the answer shown in one place won in both orders), "
                f"{leaning} leaning (one order preferred an answer, the other found them equally good)"
                + (f", {split} jury split (the members disagreed beyond the jury's bound)" if split else "")
            )
        lines.append(SIGN_TEST)
        return lines


def _error_text(error: BaseException) -> str:
    from langchain_jev.models._secrets import redact

    text = redact(f"{type(error).__name__}: {error}".strip())
    return text if len(text) <= _ERROR_TEXT else text[: _ERROR_TEXT - 3] + "..."


def _config(pair: AnswerPair) -> RunnableConfig:
    a = pair.pair.a
    return {"metadata": {"row": a.get("row"), "key": a.get("key")}}


class HeadToHeadOptions(TypedDict, total=False):
    """What `compare_answers` and `acompare_answers` take besides the judge and the pairs (each optional)."""

    concurrency: int
    """Rows compared at once (8; at least one)."""
    labels: tuple[str, str]
    """What the two sides are called (``("A", "B")``)."""
    on: str
    """How the rows were joined, as the result records it (``"key"``)."""


@dataclass(frozen=True)
class _Comparing:
    """A head-to-head comparison's options, with their defaults."""

    concurrency: int = 8
    labels: tuple[str, str] = ("A", "B")
    on: str = "key"

    @property
    def workers(self) -> int:
        """Rows compared at once: ``concurrency``, at least one."""
        return max(1, self.concurrency)

    def result(self, judge: PairwiseJudge, rows: Iterable[HeadToHeadRow]) -> HeadToHead:
        """The comparison of ``rows`` by ``judge``."""
        return HeadToHead(self.labels, list(judge.names), list(rows), self.on)


def compare_answers(
    judge: PairwiseJudge, pairs: Sequence[AnswerPair], **options: Unpack[HeadToHeadOptions]
) -> HeadToHead:
    """Compare each pair's answers with ``judge`` (one request per row, ``concurrency`` at once).

    Example:
        >>> from langchain_jev.compare import RowPair
        >>> from langchain_jev.pairwise import pairwise_judge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> model = ScriptedDecisionModel({"helpful__1": "answer_2", "helpful__2": "answer_1"})
        >>> judge = pairwise_judge({"helpful": "Which answer helps more?"}, model=model)
        >>> row = RowPair("k#1", {"row": 1}, {"row": 1})
        >>> pair = AnswerPair(row, {"user_question": "Rain?"}, ("Maybe.", "Yes."))
        >>> compare_answers(judge, [pair, pair]).criteria[0].b, model.calls
        (2, 2)

    """
    how = _Comparing(**options)

    def one(pair: AnswerPair) -> HeadToHeadRow:
        try:
            verdict = judge.compare(pair.shared, *pair.answers, config=_config(pair))
        except Exception as error:  # the model failed: the row's error, never a preference
            return HeadToHeadRow(pair, None, _error_text(error))
        return HeadToHeadRow(pair, verdict)

    with ThreadPoolExecutor(max_workers=how.workers) as pool:
        return how.result(judge, pool.map(one, pairs))


async def acompare_answers(
    judge: PairwiseJudge, pairs: Sequence[AnswerPair], **options: Unpack[HeadToHeadOptions]
) -> HeadToHead:
    """Asynchronous `compare_answers`: at most ``concurrency`` requests in flight on the running loop.

    Example:
        >>> import asyncio
        >>> from langchain_jev.compare import RowPair
        >>> from langchain_jev.pairwise import pairwise_judge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> model = ScriptedDecisionModel({"helpful__1": "answer_1", "helpful__2": "answer_1"})
        >>> judge = pairwise_judge({"helpful": "Which answer helps more?"}, model=model)
        >>> row = RowPair("k#1", {"row": 1}, {"row": 1})
        >>> pair = AnswerPair(row, {"user_question": "Rain?"}, ("Yes.", "No."))
        >>> asyncio.run(acompare_answers(judge, [pair])).criteria[0].position_bias
        1

    """
    how = _Comparing(**options)
    gate = asyncio.Semaphore(how.workers)

    async def one(pair: AnswerPair) -> HeadToHeadRow:
        async with gate:
            try:
                verdict = await judge.acompare(pair.shared, *pair.answers, config=_config(pair))
            except Exception as error:  # the model failed: the row's error, never a preference
                return HeadToHeadRow(pair, None, _error_text(error))
        return HeadToHeadRow(pair, verdict)

    return how.result(judge, await asyncio.gather(*(one(pair) for pair in pairs)))


def head_to_head_header(
    judge: Mapping[str, Any] | None,
    results: tuple[str, str],
    headers: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None] = (None, None),
    on: str = "key",
) -> dict[str, Any]:
    """The first line of a file of head-to-head records: the pairwise judge, and the two results files.

    ``judge`` is the judge file's description (`langchain_jev.datasets._fingerprint.judge_description`).

    Example:
        >>> judge = {"model": "m", "options": {}, "criteria": []}
        >>> header = head_to_head_header(judge, ("a.jsonl", "b.jsonl"))
        >>> header["langchain_jev"], header["a"], header["fingerprint"].startswith("sha256:")
        ('pairwise', {'results': 'a.jsonl'}, True)

    """
    from langchain_jev.datasets._fingerprint import fingerprint

    header: dict[str, Any] = {
        HEADER_KEY: HEADER,
        "format": 1,
        "fingerprint": fingerprint(judge) if judge is not None else None,
        "judge": dict(judge) if judge is not None else None,
        "joined_on": on,
    }
    for side, path, given in zip(("a", "b"), results, headers, strict=True):
        header[side] = {"results": path}
        if given is not None and given.get("fingerprint") is not None:
            header[side]["fingerprint"] = given["fingerprint"]
    return header


def write_head_to_head(path: str | os.PathLike[str], result: HeadToHead, header: Mapping[str, Any]) -> None:
    """Write ``header`` and every row's record to ``path`` as JSON lines, in one replace of the file.

    The file is written whole or not at all (`langchain_jev.datasets._writing`: a link is followed),
    so a reader never sees half a file; known keys are redacted.

    Raises:
        OSError: the file cannot be written.

    """
    from langchain_jev.datasets._writing import write_atomic

    lines = [record_line(header), *(record_line(row.record()) for row in result.rows)]
    write_atomic(path, "\n".join(lines) + "\n")
