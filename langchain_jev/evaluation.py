"""A Jev judge behind LangChain's ``StringEvaluator`` (needs the ``classic`` extra).

Install with ``pip install -e ".[classic]"`` in a checkout; nothing else in the
package needs ``langchain-classic``.

Example:
    >>> from langchain_core.decisions import Noul
    >>> from langchain_jev import JevCriterion, JevJudge
    >>> from langchain_jev.testing import ScriptedDecisionModel
    >>> judge = JevJudge(
    ...     [JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)],
    ...     model=ScriptedDecisionModel({"polite": 0.3}),
    ... )
    >>> result = JevStringEvaluator(judge).evaluate_strings(prediction="Go away.", input="Hi?")
    >>> result["score"], result["value"]
    (0, 'FAILED')
    >>> print(result["reasoning"])
    polite: not met: "Is `assistant_answer` polite?" (yes at 0.30, needs 0.70)

With LangChain's runner (``run_on_dataset``), pass it in
``RunEvalConfig(custom_evaluators=[JevStringEvaluator(judge)])``: it is also a
LangSmith ``RunEvaluator``, so the runner hands it the whole run and example
and the judge reads the question and the reference itself (see
`langchain_jev._runs`), whatever ``requires_input`` says.

"""

from __future__ import annotations

import uuid
from typing import Any

from langchain_jev._extras import missing_extra

try:
    from langchain_classic.evaluation import StringEvaluator
except ImportError as error:  # pragma: no cover - exercised in a subprocess test
    raise missing_extra("langchain_jev.evaluation", "langchain-classic", "classic") from error

from langchain_core.callbacks import Callbacks
from langchain_core.runnables import RunnableConfig
from langsmith.evaluation.evaluator import EvaluationResult, RunEvaluator
from langsmith.schemas import Example, RunBase

from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev._input import JevJudgeInput
from langchain_jev._judge import JevJudge
from langchain_jev._runs import judge_input_from_run
from langchain_jev._verdict import JevVerdict
from langchain_jev.langsmith import OVERALL_KEY, PASS_FAIL_FEEDBACK, offline_tracing

__all__ = ["JevStringEvaluator"]


class JevStringEvaluator(StringEvaluator, RunEvaluator):
    """A judge as a LangChain ``StringEvaluator`` (and a LangSmith ``RunEvaluator``).

    ``evaluate_strings(prediction=..., input=..., reference=...)`` judges the
    prediction as the answer, the input as the question and the reference as the
    expected output, and returns ``{"score": 1 or 0, "value": "PASSED" or
    "FAILED", "reasoning": ..., "metadata": {"findings": [...]}}``: the reasoning
    is the verdict's feedback, or its one-line summary when nothing failed; the
    findings are as `JevFinding.to_dict` gives them. ``callbacks``, ``tags`` and
    ``metadata`` passed in go to the judge, so its run nests under the caller's
    trace; ``include_run_info=True`` adds the judge's run id as ``"source_run_id"``.
    Every key but ``reasoning`` is a field of a LangSmith ``EvaluationResult``.

    As a ``RunEvaluator`` (what LangChain's ``run_on_dataset`` looks for first),
    ``evaluate_run(run, example)`` reads the question, answer, reference, context
    and tool calls of the run as `langchain_jev.judge_input_from_run` does,
    and returns one ``EvaluationResult`` under ``jev_pass`` whose comment is the
    reasoning. A run that cannot be judged (it failed, or has no answer) raises,
    so it is never scored as a pass.

    Args:
        judge: the judge to run.
        requires_input: the question (``input``) must be given.
        requires_reference: the expected output (``reference``) must be given.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> judge = JevJudge(
        ...     [JevCriterion.noul("correct", Noul(
        ...         instructions="Does `assistant_answer` agree with `expected_output`?"), 0.7)],
        ...     model=ScriptedDecisionModel({"correct": 0.95}),
        ... )
        >>> evaluator = JevStringEvaluator(judge, requires_reference=True)
        >>> evaluator.evaluate_strings(prediction="Paris", reference="Paris")["value"]
        'PASSED'

    """

    def __init__(
        self,
        judge: JevJudge,
        *,
        requires_input: bool = False,
        requires_reference: bool = False,
    ) -> None:
        if not isinstance(judge, JevJudge):
            raise JevConfigurationError(f"JevStringEvaluator needs a JevJudge, got {type(judge).__name__}")
        self._judge = judge
        self._requires_input = bool(requires_input)
        self._requires_reference = bool(requires_reference)

    @property
    def judge(self) -> JevJudge:
        """The judge."""
        return self._judge

    @property
    def requires_input(self) -> bool:
        """Whether ``input`` (the question) must be given."""
        return self._requires_input

    @property
    def requires_reference(self) -> bool:
        """Whether ``reference`` (the expected output) must be given."""
        return self._requires_reference

    @property
    def evaluation_name(self) -> str:
        """The feedback key under which LangChain's runners report this evaluator."""
        return OVERALL_KEY

    def evaluate_run(
        self,
        run: RunBase,
        example: Example | None = None,
        evaluator_run_id: uuid.UUID | None = None,
    ) -> EvaluationResult:
        """Judge one run (and its example): one result under ``jev_pass``.

        Raises:
            JevInputError: the run cannot be mapped to a judge input, or lacks a
                required question or reference.
            Exception: the decision model's error when the judge cannot reach it.

        """
        run_id = evaluator_run_id or uuid.uuid4()
        data, config = self._run_input(run, example, run_id)
        with offline_tracing():
            verdict = self._judge.invoke(data, config)
        return _run_result(verdict, run_id)

    async def aevaluate_run(
        self,
        run: RunBase,
        example: Example | None = None,
        evaluator_run_id: uuid.UUID | None = None,
    ) -> EvaluationResult:
        """Asynchronous `evaluate_run`: awaits the judge."""
        run_id = evaluator_run_id or uuid.uuid4()
        data, config = self._run_input(run, example, run_id)
        with offline_tracing():
            verdict = await self._judge.ainvoke(data, config)
        return _run_result(verdict, run_id)

    def _run_input(
        self, run: RunBase, example: Example | None, run_id: uuid.UUID
    ) -> tuple[JevJudgeInput, RunnableConfig]:
        data = judge_input_from_run(run, example)
        for argument, what, required, value in (
            ("input", "question", self._requires_input, data.question),
            ("reference", "reference", self._requires_reference, data.expected),
        ):
            if required and value is None:
                raise JevInputError(
                    f"JevStringEvaluator was built with requires_{argument}=True, and run "
                    f"{run.name!r} (with its example) has no {what}"
                )
        config: RunnableConfig = {
            "run_id": run_id,
            "metadata": {"target_run_id": str(run.id)},
        }
        return data, config

    def _check_evaluation_args(self, reference: str | None = None, input_: str | None = None) -> None:
        # The judge reads input and reference whenever they are given, so unlike the
        # base class this only checks that the required ones are there.
        for name, required, value in (
            ("input", self._requires_input, input_),
            ("reference", self._requires_reference, reference),
        ):
            if required and value is None:
                raise JevConfigurationError(
                    f"JevStringEvaluator was built with requires_{name}=True: pass {name}="
                )

    def _evaluate_strings(
        self,
        *,
        prediction: str | Any,
        reference: str | Any | None = None,
        input: str | Any | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        data, config, run_info = _prepare(prediction, input, reference, kwargs)
        return _result(self._judge.invoke(data, config), config["run_id"] if run_info else None)

    async def _aevaluate_strings(
        self,
        *,
        prediction: str | Any,
        reference: str | Any | None = None,
        input: str | Any | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        data, config, run_info = _prepare(prediction, input, reference, kwargs)
        return _result(await self._judge.ainvoke(data, config), config["run_id"] if run_info else None)

    def __repr__(self) -> str:
        flags = "".join(
            [
                ", requires_input=True" if self._requires_input else "",
                ", requires_reference=True" if self._requires_reference else "",
            ]
        )
        return f"JevStringEvaluator({self._judge!r}{flags})"


_OPTIONS = frozenset({"callbacks", "tags", "metadata", "include_run_info"})
"""What `StringEvaluator.evaluate_strings` passes on besides the strings."""


def _prepare(
    prediction: Any, question: Any, reference: Any, options: dict[str, Any]
) -> tuple[JevJudgeInput, RunnableConfig, bool]:
    """Check the arguments of one evaluation; return the judge input, config (with a run id) and run info."""
    if extra := set(options) - _OPTIONS:
        raise JevInputError(
            f"JevStringEvaluator got unexpected argument(s) {sorted(extra)}; it takes prediction, "
            "input, reference, callbacks, tags, metadata and include_run_info"
        )
    callbacks: Callbacks = options.get("callbacks")
    config: RunnableConfig = {"run_id": uuid.uuid4(), "callbacks": callbacks}
    if tags := options.get("tags"):
        config["tags"] = list(tags)
    if metadata := options.get("metadata"):
        config["metadata"] = dict(metadata)
    if not isinstance(prediction, str):
        raise JevInputError(f"prediction must be a string, got {type(prediction).__name__}")
    if question is not None and not isinstance(question, str):
        raise JevInputError(f"input must be a string, got {type(question).__name__}")
    return (
        JevJudgeInput(question, prediction, expected=reference),
        config,
        bool(options.get("include_run_info")),
    )


def _reasoning(verdict: JevVerdict) -> str:
    """The feedback, or the one-line summary when there is none (a pass)."""
    return verdict.feedback or verdict.summary()


def _result(verdict: JevVerdict, run_id: uuid.UUID | None) -> dict[str, Any]:
    result: dict[str, Any] = {
        "score": 1 if verdict.passed else 0,
        "value": "PASSED" if verdict.passed else "FAILED",
        "reasoning": _reasoning(verdict),
        "metadata": {"findings": [finding.to_dict() for finding in verdict.findings]},
    }
    if run_id is not None:
        result["source_run_id"] = run_id
    return result


def _run_result(verdict: JevVerdict, run_id: uuid.UUID) -> EvaluationResult:
    return EvaluationResult(
        key=OVERALL_KEY,
        score=1 if verdict.passed else 0,
        value="PASSED" if verdict.passed else "FAILED",
        comment=_reasoning(verdict),
        feedback_config=PASS_FAIL_FEEDBACK,
        source_run_id=run_id,
    )
