"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.guardrails._battery import HazardAssessment as HazardAssessment
from langchain_jev.guardrails._battery import HazardBattery as HazardBattery
from langchain_jev.guardrails._catalog import HAZARDS as HAZARDS
from langchain_jev.guardrails._catalog import STRICTNESS_PRESETS as STRICTNESS_PRESETS
from langchain_jev.guardrails._catalog import Hazard as Hazard
from langchain_jev.guardrails._door import GuardrailDoor as GuardrailDoor
from langchain_jev.guardrails._policy import GuardrailPolicy as GuardrailPolicy
from langchain_jev.guardrails._policy import GuardrailReport as GuardrailReport
from langchain_jev.guardrails._review import review_token as review_token
from langchain_jev.guardrails._settings import GuardrailOptions as GuardrailOptions
from langchain_jev.guardrails._settings import GuardrailSettings as GuardrailSettings
