"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev._refine import ATTEMPT_METADATA as ATTEMPT_METADATA
from langchain_jev._refine import DRAFT_TAG as DRAFT_TAG
from langchain_jev._refine import SelfRefineDraft as SelfRefineDraft
from langchain_jev.graph._builder import add_guardrail as add_guardrail
from langchain_jev.graph._guarded_model import create_guarded_model_node as create_guarded_model_node
from langchain_jev.graph._guarded_model import create_guarded_tool_node as create_guarded_tool_node
from langchain_jev.graph._guarded_model import guard_model as guard_model
from langchain_jev.graph._guardrail import GuardrailState as GuardrailState
from langchain_jev.graph._guardrail import create_guardrail_node as create_guardrail_node
from langchain_jev.graph._self_refine import SelfRefineState as SelfRefineState
from langchain_jev.graph._self_refine import create_self_refine_graph as create_self_refine_graph
from langchain_jev.graph._wiring import GuardrailWiringWarning as GuardrailWiringWarning
