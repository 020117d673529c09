"""Checks decided by code alone, behind the built-in conditions of judge files.

- `trajectory`: an agent's tool calls against a reference (strict, unordered,
  subset, superset), and repeated or looping calls;
- `schema`: tool-call arguments against their tools' JSON Schemas;
- `sensitive`: secrets and personal data found by patterns.

Pure functions of their inputs; nothing here calls a model.
"""
