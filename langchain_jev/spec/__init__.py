"""Judges as files: a YAML or JSON document that describes a `JevJudge`.

- `model`: `JudgeSpec`, the whole file, with `load_spec`, `load_judge` and `judge_schema`;
- `kinds`: the criteria a file lists, one kind each (``noul``, ``score``, ``choice``, ``check``);
- `judge_model`: the model a file names, a ``provider:model`` string or a jury of them;
- `conditions`: code checks and conditions written as data;
- `reading`: bounded reading of the file (size, nesting, no YAML aliases);
- `code`: the code a file names, and the user's opt-in (``allow_code``) to run it;
- `reference`: the reference page of judge files, written from the models and the conditions' table;
- `errors`: the wording of judge-file problems, each naming its place (the error itself,
  ``JudgeSpecError``, is imported from ``langchain_jev`` with the other errors).

Names are imported lazily, so importing this package stays cheap.
"""

from __future__ import annotations

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
