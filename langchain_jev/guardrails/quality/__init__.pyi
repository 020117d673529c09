"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.guardrails.quality._evaluate import Columns as Columns
from langchain_jev.guardrails.quality._evaluate import GuardrailEval as GuardrailEval
from langchain_jev.guardrails.quality._evaluate import aguardrail_eval as aguardrail_eval
from langchain_jev.guardrails.quality._evaluate import guardrail_eval as guardrail_eval
from langchain_jev.guardrails.quality._evaluate import measure_results as measure_results
from langchain_jev.guardrails.quality._judging import BatteryJudge as BatteryJudge
from langchain_jev.guardrails.quality._labels import RowLabel as RowLabel
from langchain_jev.guardrails.quality._labels import read_row_label as read_row_label
from langchain_jev.guardrails.quality._metrics import CurvePoint as CurvePoint
from langchain_jev.guardrails.quality._metrics import Undefined as Undefined
from langchain_jev.guardrails.quality._shadow import measure_shadow as measure_shadow
from langchain_jev.guardrails.quality._shadow import shadow_recorder as shadow_recorder
from langchain_jev.guardrails.quality._summary import CategoryQuality as CategoryQuality
from langchain_jev.guardrails.quality._summary import GuardrailQuality as GuardrailQuality
from langchain_jev.guardrails.quality._summary import ScoredRow as ScoredRow
from langchain_jev.guardrails.quality._summary import measure as measure
from langchain_jev.guardrails.quality._tables import format_quality as format_quality
from langchain_jev.guardrails.quality._thresholds import Suggestion as Suggestion
from langchain_jev.guardrails.quality._thresholds import Target as Target
from langchain_jev.guardrails.quality._thresholds import suggest_thresholds as suggest_thresholds
