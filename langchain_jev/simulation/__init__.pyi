"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.simulation._experiment import SimulationEvaluator as SimulationEvaluator
from langchain_jev.simulation._experiment import SimulationTarget as SimulationTarget
from langchain_jev.simulation._experiment import simulation_evaluator as simulation_evaluator
from langchain_jev.simulation._experiment import simulation_results as simulation_results
from langchain_jev.simulation._experiment import simulation_target as simulation_target
from langchain_jev.simulation._result import Simulation as Simulation
from langchain_jev.simulation._result import SimulationTurn as SimulationTurn
from langchain_jev.simulation._rows import user_from_row as user_from_row
from langchain_jev.simulation._run import asimulate as asimulate
from langchain_jev.simulation._run import simulate as simulate
from langchain_jev.simulation._run import turn_input as turn_input
from langchain_jev.simulation._user import SimulatedUser as SimulatedUser
from langchain_jev.simulation._user import simulated_user as simulated_user
