"""Checks decided by code alone, behind the built-in conditions of judge files, named after what they check.

- `tool_calls`: an agent's tool calls against a reference (strict, unordered,
  subset, superset), and repeated or looping calls;
- `schema`: tool-call arguments against their tools' JSON Schemas;
- `sensitive`: secrets and personal data found by patterns;
- `static_code`: code in an answer parses, and type-checks;
- `json_keys`: a JSON answer against the expected JSON, key by key
  (`json_values`: JSON equality and canonical forms);
- `similarity`: string similarity; `bounded`: the time bound of every pattern.

Pure functions of their inputs; nothing here calls a model. A judge built on them
is named after the judge (``judges/trajectory.py`` on `tool_calls`, ``judges/code.py``
on `static_code`, ``judges/json_match.py`` on `json_keys`).
"""
