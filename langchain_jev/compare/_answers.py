"""Two runs' answers to the same rows, paired for a head-to-head comparison.

A results file names its rows but does not copy them: each row's judged state is
read again from the dataset the run recorded in its header
(`langchain_jev.report._run_report.states_for`). `answer_pairs` (pure) takes the
joined records and both runs' states and returns, per row, what both answers
answer (the shared input) and each run's answer. It refuses, naming the row:

- a row whose state cannot be recovered (the dataset is gone, or the row changed
  since it was judged), or that has no answer;
- a row whose question, or whose expected output, differs between the runs: the
  two are not answers to the same input (files of different datasets);
- runs that answered every row alike, whitespace aside (both read the same answer
  column): a comparison of identical answers has nothing to tell. A row whose two
  answers are alike is a tie by construction (`langchain_jev.pairwise._verdict.same_answers`).

The shared input is the question and the expected output, the documents of both
runs (A's, then those only B had, as `langchain_jev.pairwise.pair_input` reads two
LangSmith runs) and the fields both runs' rows hold alike; each run's tool calls and
the fields only one side has (its own answer column, its model's name) are left out.
`read_answer_pairs` does it for two results files.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_jev._errors import ComparisonError, JevInputError
from langchain_jev._input import ANSWER_FIELD, CONTEXT_FIELD, EXPECTED_FIELD, QUESTION_FIELD, TOOL_CALLS_FIELD
from langchain_jev.compare._join import Joined, JoinOn, RowPair, join_rows, row_name
from langchain_jev.pairwise._questions import comparison_state
from langchain_jev.pairwise._verdict import same_answers

__all__ = ["AnswerPair", "StateSource", "answer_pairs", "read_answer_pairs", "shared_input"]

States = Mapping[Any, Mapping[str, Any]]
StateSource = tuple[States | None, str | None]
"""One run's states by row number (or, for a row judged on Ray, by content key), and why some are missing."""


@dataclass(frozen=True)
class AnswerPair:
    """One row as both runs answered it: what both answer, and each run's answer.

    Example:
        >>> row = RowPair("k#1", {"row": 1}, {"row": 1})
        >>> pair = AnswerPair(row, {"user_question": "Hi?"}, ("Hello.", "Hey."))
        >>> pair.row, pair.answers[1]
        (1, 'Hey.')

    """

    pair: RowPair
    shared: dict[str, Any]
    """The state both answers answer (no answer, no tool calls)."""
    answers: tuple[str, str]
    """A's answer, then B's."""

    @property
    def row(self) -> Any:
        """A's row number (None for a row judged on Ray)."""
        return self.pair.a.get("row")


def _state_of(record: Mapping[str, Any], states: States | None) -> Mapping[str, Any] | None:
    if states is None:
        return None
    number = record.get("row")
    place = number if isinstance(number, int) and not isinstance(number, bool) else record.get("key")
    return states.get(place) if place is not None else None


def shared_input(
    a: Mapping[str, Any], b: Mapping[str, Any], where: str = "the row", labels: tuple[str, str] = ("A", "B")
) -> dict[str, Any]:
    """What two states of one row have in common, to compare their answers on (see the module docstring).

    Raises:
        ComparisonError: the question or the expected output differs: they answer different inputs.

    Example:
        >>> a = {"user_question": "Rain?", "assistant_answer": "Yes.", "supporting_context": ["Rain at 9."],
        ...      "locale": "en", "answer_b": "No."}
        >>> b = {"user_question": "Rain?", "assistant_answer": "No.", "supporting_context": ["Dry all day."],
        ...      "locale": "en", "answer_a": "Yes."}
        >>> shared_input(a, b)
        {'user_question': 'Rain?', 'supporting_context': ['Rain at 9.', 'Dry all day.'], 'locale': 'en'}

    """
    first, second = labels
    for name in (QUESTION_FIELD, EXPECTED_FIELD):
        mine, theirs = a.get(name), b.get(name)
        if name == EXPECTED_FIELD and (mine is None or theirs is None):
            continue
        if mine != theirs:
            raise ComparisonError(
                f"{where}: the {name} of {first} and {second} differ, so their answers do not answer the "
                "same input; the files are results of different datasets"
            )
    shared: dict[str, Any] = {}
    for name in (QUESTION_FIELD, EXPECTED_FIELD):
        value = a.get(name, b.get(name))
        if value is not None:
            shared[name] = value
    context = list(a.get(CONTEXT_FIELD) or [])
    context += [doc for doc in b.get(CONTEXT_FIELD) or [] if doc not in context]
    if context:
        shared[CONTEXT_FIELD] = context
    fixed = (QUESTION_FIELD, EXPECTED_FIELD, CONTEXT_FIELD, ANSWER_FIELD, TOOL_CALLS_FIELD)
    for name, value in a.items():
        if name not in fixed and name in b and b[name] == value:
            shared[name] = value
    return shared


def _row_order(pair: RowPair) -> float:
    number = pair.a.get("row")
    return float(number) if isinstance(number, int) and not isinstance(number, bool) else float("inf")


def answer_pairs(
    joined: Joined,
    states: tuple[StateSource, StateSource],
    *,
    labels: tuple[str, str] = ("A", "B"),
) -> list[AnswerPair]:
    """Each joined row's shared input and both answers (see the module docstring), in A's row order.

    ``states`` are each run's states and why some are missing (`StateSource`).

    Raises:
        ComparisonError: a row whose state cannot be recovered or that has no answer, a row
            whose question or expected output differs between the runs, or a comparison the
            row cannot be put in; or both runs answered every row alike.

    Example:
        >>> from langchain_jev.compare import join_rows
        >>> a, b = [{"row": 1, "key": "k1", "id": "q1"}], [{"row": 1, "key": "k9", "id": "q1"}]
        >>> states_a = {1: {"user_question": "Rain?", "assistant_answer": "Yes, from 9am."}}
        >>> states_b = {1: {"user_question": "Rain?", "assistant_answer": "Maybe."}}
        >>> (pair,) = answer_pairs(join_rows(a, b, on="id"), ((states_a, None), (states_b, None)))
        >>> pair.shared, pair.answers
        ({'user_question': 'Rain?'}, ('Yes, from 9am.', 'Maybe.'))

    """
    pairs = []
    for row in sorted(joined.pairs, key=_row_order):  # a run writes rows as they finish, not in order
        where = row_name(row.a)
        sides = []
        for label, record, (found, why) in zip(labels, (row.a, row.b), states, strict=True):
            state = _state_of(record, found)
            if state is None:
                raise ComparisonError(
                    f"{where}: {label}'s judged state cannot be recovered: "
                    + (why or "the dataset it was judged from is not known")
                )
            answer = state.get(ANSWER_FIELD)
            if not isinstance(answer, str):
                raise ComparisonError(f"{where}: {label} has no answer to compare")
            sides.append((state, answer))
        shared = shared_input(sides[0][0], sides[1][0], where, labels)
        try:
            comparison_state(shared, sides[0][1], sides[1][1])
        except JevInputError as error:
            raise ComparisonError(f"{where}: {error}") from None
        pairs.append(AnswerPair(row, shared, (sides[0][1], sides[1][1])))
    if pairs and all(same_answers(*p.answers) for p in pairs):
        first, second = labels
        raise ComparisonError(
            f"{first} and {second} give the same answer on every row ({len(pairs)}): both runs read the "
            "same answer column. To compare the answers of two datasets of the same examples, join them "
            "by id (--on id); to compare two answer columns of one dataset, judge each with its "
            "--answer-field"
        )
    return pairs


def read_answer_pairs(
    a: str | os.PathLike[str],
    b: str | os.PathLike[str],
    *,
    on: JoinOn = "key",
    only_shared: bool = False,
    labels: tuple[str, str] = ("A", "B"),
) -> tuple[Joined, list[AnswerPair], tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]]:
    """Two results files joined by row, their answers paired from the datasets their headers name.

    Returns the join, the pairs and both headers.

    Raises:
        ResultsError: a file cannot be read or is not a results file.
        ComparisonError: the files are of different datasets, or a row cannot be compared
            (see `answer_pairs`).

    Example::

        joined, pairs, headers = read_answer_pairs("gpt.jsonl", "claude.jsonl", on="id")

    """
    from langchain_jev.datasets._states import states_for
    from langchain_jev.datasets._stored import read_results_file

    stored_a, stored_b = read_results_file(a), read_results_file(b)
    header_a, header_b = stored_a.header, stored_b.header
    joined = join_rows(stored_a.records, stored_b.records, on=on, only_shared=only_shared, labels=labels)
    sources: list[StateSource] = []
    for label, path, header, records in zip(
        labels,
        (a, b),
        (header_a, header_b),
        ([p.a for p in joined.pairs], [p.b for p in joined.pairs]),
        strict=True,
    ):
        notes: list[str] = []
        source = states_for(header, notes=notes)
        if source is None:
            raise ComparisonError(
                f"{label} ({os.fspath(path)}) does not record the dataset it judged (its header has no run: "
                "written to stdout, or by a version before results kept it), so its answers cannot be read"
            )
        found = source(records)
        why = "; ".join(note.replace(" (not shown)", "") for note in notes)
        sources.append((found, why or None))
    return joined, answer_pairs(joined, (sources[0], sources[1]), labels=labels), (header_a, header_b)
