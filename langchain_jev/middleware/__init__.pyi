"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.middleware._guardrail import JevGuardrailMiddleware as JevGuardrailMiddleware
from langchain_jev.middleware._guardrail import JevGuardrailState as JevGuardrailState
from langchain_jev.middleware._self_refine import JevSelfRefineMiddleware as JevSelfRefineMiddleware
from langchain_jev.middleware._self_refine import SelfRefineAgentState as SelfRefineAgentState
