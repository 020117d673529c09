"""Agents evaluated as conversations: a simulated user talks with an app, every turn judged.

- `user`: `simulated_user` (a script's turns first, then a chat model playing a persona after a
  goal) and the `SimulatedUser` protocol any other user follows;
- `run`: `simulate` / `asimulate`, the conversation with its judge and stop decision asked in one
  request per turn, and `turn_input`, the judge input of a conversation so far;
- `result`: `Simulation` and `SimulationTurn`, what a conversation leaves;
- `rows`: `user_from_row`, the simulated user a dataset row or a LangSmith example describes;
- `experiment`: `simulation_target` and `simulation_evaluator`, a simulation per example under
  ``langsmith.evaluate``, its verdict as feedback (`simulation_results`);
- `dataset`: the engine of ``langchain-jev simulate``, a conversation per row into a results file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.simulation._experiment import (
        SimulationEvaluator,
        SimulationTarget,
        simulation_evaluator,
        simulation_results,
        simulation_target,
    )
    from langchain_jev.simulation._result import Simulation, SimulationTurn
    from langchain_jev.simulation._rows import user_from_row
    from langchain_jev.simulation._run import asimulate, simulate, turn_input
    from langchain_jev.simulation._user import SimulatedUser, simulated_user

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "SimulatedUser": "langchain_jev.simulation._user",
    "Simulation": "langchain_jev.simulation._result",
    "SimulationTurn": "langchain_jev.simulation._result",
    "asimulate": "langchain_jev.simulation._run",
    "simulate": "langchain_jev.simulation._run",
    "simulated_user": "langchain_jev.simulation._user",
    "turn_input": "langchain_jev.simulation._run",
    "SimulationEvaluator": "langchain_jev.simulation._experiment",
    "SimulationTarget": "langchain_jev.simulation._experiment",
    "simulation_evaluator": "langchain_jev.simulation._experiment",
    "simulation_results": "langchain_jev.simulation._experiment",
    "simulation_target": "langchain_jev.simulation._experiment",
    "user_from_row": "langchain_jev.simulation._rows",
}

__all__ = [
    "SimulatedUser",
    "Simulation",
    "SimulationTurn",
    "asimulate",
    "simulate",
    "simulated_user",
    "turn_input",
    "SimulationEvaluator",
    "SimulationTarget",
    "simulation_evaluator",
    "simulation_results",
    "simulation_target",
    "user_from_row",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
