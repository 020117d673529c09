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

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
