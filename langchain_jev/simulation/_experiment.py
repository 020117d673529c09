"""A simulation per example in a LangSmith experiment: the target runs it, the evaluator reports it.

`simulation_target` builds the target: for each example it reads a simulated user
from the example's inputs (`user_from_row`, or your own ``user_from_example``),
runs one conversation (`simulate`, or `asimulate` through ``target.acall``) and
returns it as JSON-ready data. `simulation_evaluator` turns the conversation's
verdict into LangSmith feedback through the package's one mapper
(`langchain_jev.langsmith.verdict_results`): a key per criterion and
``jev_pass``, plus ``turns`` (how many, and why it ended). The conversation's
requests were made while it ran, so the evaluator makes none; it reads the
simulation the target kept for that run. A conversation that ended in an error
reports every criterion as ERROR and ``jev_pass`` as failed, never a pass.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langsmith.evaluation.evaluator import EvaluationResult, EvaluationResults, RunEvaluator
from langsmith.run_helpers import get_current_run_tree
from langsmith.schemas import Example, RunBase

from langchain_jev._criteria import JevCriterion
from langchain_jev._errors import JevConfigurationError, JevInputError
from langchain_jev._judge import JevJudge
from langchain_jev._verdict import JevFinding, JevVerdict, Outcome
from langchain_jev.langsmith import OVERALL_KEY, feedback_key, offline_tracing, verdict_results
from langchain_jev.simulation._result import Simulation
from langchain_jev.simulation._rows import user_from_row
from langchain_jev.simulation._run import StopWhen, asimulate, check_options, simulate
from langchain_jev.simulation._user import SimulatedUser

__all__ = [
    "TURNS_KEY",
    "SimulationEvaluator",
    "SimulationTarget",
    "UserFromExample",
    "simulation_evaluator",
    "simulation_results",
    "simulation_target",
]

TURNS_KEY = "turns"
"""The key of the result that counts a conversation's turns (its value: why it ended)."""

UserFromExample = Callable[[Mapping[str, Any]], SimulatedUser]
"""Maps an example's inputs to the simulated user of its conversation."""

KEPT = 10_000
"""How many conversations a target keeps for its evaluator (the most recent)."""


class SimulationTarget:
    """A LangSmith target running one simulated conversation per example (built by `simulation_target`).

    Call it (``evaluate(target, ...)``) or pass ``target.acall`` to ``aevaluate``. Each call
    returns `Simulation.to_dict` and keeps the simulation under the run LangSmith traced it
    in, for `simulation_evaluator`.
    """

    def __init__(self, app: Any, user_from_example: UserFromExample, options: Mapping[str, Any]) -> None:
        self._app = app
        self._user = user_from_example
        self._options = dict(options)
        self._kept: OrderedDict[str, Simulation] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def judge(self) -> JevJudge | None:
        """The judge of each turn (None when only a stop criterion is asked)."""
        judge: JevJudge | None = self._options.get("final_judge") or self._options.get("judge")
        return judge

    def __call__(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        """Run the conversation of one example's ``inputs``; return it as JSON-ready data."""
        with offline_tracing():  # under upload_results=False the app's and judge's runs stay local
            simulation = simulate(self._app, self._user(inputs), **self._options)
        return self._keep(simulation)

    async def acall(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        """Asynchronous call: the conversation run with `asimulate` (for ``aevaluate``)."""
        with offline_tracing():
            simulation = await asimulate(self._app, self._user(inputs), **self._options)
        return self._keep(simulation)

    def simulation(self, run_id: uuid.UUID | str) -> Simulation | None:
        """The conversation this target ran in LangSmith run ``run_id``, or None if it kept none."""
        with self._lock:
            return self._kept.get(str(run_id))

    def _keep(self, simulation: Simulation) -> dict[str, Any]:
        run = get_current_run_tree()
        if run is not None:
            with self._lock:
                self._kept[str(run.id)] = simulation
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
        return simulation.to_dict()

    def __repr__(self) -> str:
        return f"SimulationTarget({self._app!r}, max_turns={self._options['max_turns']})"


def simulation_target(
    app: Any,
    user_from_example: UserFromExample | None = None,
    *,
    max_turns: int,
    user_model: Any = None,
    judge: JevJudge | None = None,
    stop_when: StopWhen | None = None,
    model: Any = None,
    final_judge: JevJudge | None = None,
) -> SimulationTarget:
    """A LangSmith target: one conversation between ``app`` and the example's simulated user per example.

    The user is ``user_from_example(inputs)``, or by default read from the inputs'
    ``persona``, ``goal`` and ``script`` with ``user_model`` playing it
    (`user_from_row`). The other options are `simulate`'s, checked here.

    Raises:
        JevConfigurationError: as `simulate` raises for its options.

    Example:
        >>> from langchain_core.runnables import RunnableLambda
        >>> echo = RunnableLambda(lambda messages: "You said: " + messages[-1].content)
        >>> target = simulation_target(echo, max_turns=3)
        >>> result = target({"script": ["Hi.", "Bye."]})
        >>> result["ending"], len(result["turns"])
        ('user_done', 2)

        In an experiment::

            evaluate(target, data="personas", evaluators=[simulation_evaluator(target)])

    """
    options = {
        "max_turns": max_turns,
        "judge": judge,
        "stop_when": stop_when,
        "model": model,
        "final_judge": final_judge,
    }
    check_options(app, **options)
    if user_from_example is None:

        def user_from_example(inputs: Mapping[str, Any]) -> SimulatedUser:
            return user_from_row(inputs, user_model)

    elif not callable(user_from_example):
        raise JevConfigurationError(
            f"user_from_example must be callable as user_from_example(inputs), got {user_from_example!r:.60}"
        )
    return SimulationTarget(app, user_from_example, options)


def simulation_results(
    simulation: Simulation,
    criteria: Sequence[JevCriterion] = (),
    *,
    key_prefix: str | None = None,
) -> EvaluationResults:
    """A conversation's verdict as LangSmith results: `verdict_results` of it, then ``turns``.

    A conversation that ended in an error reports each of ``criteria`` (the judge's) as
    ERROR and ``jev_pass`` as failed, with the error as the comment.

    Example:
        >>> from langchain_jev.simulation import Simulation
        >>> broken = Simulation((), (), "error", None, "RuntimeError: the app is down")
        >>> [(r.key, r.score, r.value) for r in simulation_results(broken)["results"]]
        [('jev_pass', 0.0, 'FAILED'), ('turns', 0.0, 'error')]

    """
    verdict = simulation.verdict
    if simulation.error is not None:
        said = f"the conversation ended in an error: {simulation.error}"
        findings = tuple(JevFinding(c, None, Outcome.ERROR, f"{c.name}: {said}") for c in criteria)
        verdict = JevVerdict(False, findings, None, said)
    elif verdict is None:
        verdict = JevVerdict(simulation.passed, (), None, "")
    results = list(verdict_results(verdict, key_prefix=key_prefix)["results"])
    turns = len(simulation.turns)
    results.append(
        EvaluationResult(
            key=feedback_key(key_prefix, TURNS_KEY),
            score=float(turns),
            value=simulation.ending,
            comment=f"{turns} turn(s); ended: {simulation.ending}",
        )
    )
    return EvaluationResults(results=results)


class SimulationEvaluator(RunEvaluator):
    """Reports the conversation a `SimulationTarget` ran for a run (built by `simulation_evaluator`).

    It asks no model: the verdict was reached while the conversation ran. A run the target
    kept no conversation for (it failed before, or ran in another process) raises, so
    LangSmith records an error, never a pass.
    """

    def __init__(self, target: SimulationTarget, *, key_prefix: str | None = None) -> None:
        if not isinstance(target, SimulationTarget):
            raise JevConfigurationError(
                "simulation_evaluator needs the SimulationTarget of the experiment, "
                f"got {type(target).__name__}"
            )
        self._target = target
        self._key_prefix = key_prefix or None

    @property
    def feedback_keys(self) -> list[str]:
        """Every key this evaluator reports: the judge's criteria, ``jev_pass``, then ``turns``.

        LangSmith records an error under each of them when a run cannot be evaluated.
        """
        judge = self._target.judge
        names = [c.name for c in judge.criteria] if judge is not None else []
        return [feedback_key(self._key_prefix, name) for name in [*names, OVERALL_KEY, TURNS_KEY]]

    def evaluate_run(
        self, run: RunBase, example: Example | None = None, evaluator_run_id: uuid.UUID | None = None
    ) -> EvaluationResults:
        """The results of the conversation of ``run``.

        Raises:
            JevInputError: the target ran no conversation for this run.

        """
        simulation = self._target.simulation(run.id)
        if simulation is None:
            raise JevInputError(
                f"run {run.id} has no conversation of this target: evaluate the target it was run by, "
                "in the same process"
            )
        judge = self._target.judge
        criteria = judge.criteria if judge is not None else ()
        return simulation_results(simulation, criteria, key_prefix=self._key_prefix)

    async def aevaluate_run(
        self, run: RunBase, example: Example | None = None, evaluator_run_id: uuid.UUID | None = None
    ) -> EvaluationResults:
        """Asynchronous `evaluate_run` (it makes no request either)."""
        return self.evaluate_run(run, example, evaluator_run_id)


def simulation_evaluator(target: SimulationTarget, *, key_prefix: str | None = None) -> SimulationEvaluator:
    """The evaluator of ``target``'s conversations: each one's verdict as feedback (see `simulation_results`).

    Raises:
        JevConfigurationError: ``target`` is not a `SimulationTarget`.

    """
    return SimulationEvaluator(target, key_prefix=key_prefix)
