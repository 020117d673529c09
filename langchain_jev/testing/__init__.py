"""Testing helpers: a scripted decision model, assertions, and a pytest plugin."""

from langchain_jev.testing.scripted import ScriptedDecisionModel, ScriptEntry

__all__ = ["ScriptEntry", "ScriptedDecisionModel"]
