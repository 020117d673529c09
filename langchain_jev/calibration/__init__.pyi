"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.calibration._figures import Agreement as Agreement
from langchain_jev.calibration._figures import CriterionCalibration as CriterionCalibration
from langchain_jev.calibration._figures import Stability as Stability
from langchain_jev.calibration._labels import read_label as read_label
from langchain_jev.calibration._measure import Calibration as Calibration
from langchain_jev.calibration._metrics import Confusion as Confusion
from langchain_jev.calibration._metrics import auroc as auroc
from langchain_jev.calibration._metrics import bootstrap_kappa as bootstrap_kappa
from langchain_jev.calibration._metrics import brier_score as brier_score
from langchain_jev.calibration._metrics import expected_calibration_error as expected_calibration_error
from langchain_jev.calibration._metrics import reliability_bins as reliability_bins
from langchain_jev.calibration._rewrite import write_thresholds as write_thresholds
from langchain_jev.calibration._study import acalibrate as acalibrate
from langchain_jev.calibration._study import calibrate as calibrate
from langchain_jev.calibration._suggest import Suggestion as Suggestion
from langchain_jev.calibration._sweep import Objective as Objective
from langchain_jev.calibration._sweep import SweepPoint as SweepPoint
from langchain_jev.calibration._tables import Disagreement as Disagreement
from langchain_jev.datasets._redecide import NoRequestModel as NoRequestModel
from langchain_jev.datasets._redecide import redecide as redecide
from langchain_jev.datasets._redecide import redecide_records as redecide_records
from langchain_jev.datasets._stored import read_results as read_results
