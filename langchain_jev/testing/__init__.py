"""Testing helpers: a scripted decision model, a scripted Jev server, assertions, and a pytest plugin.

- `ScriptedDecisionModel` answers from a script, for offline tests of anything built on a judge.
- `scripted_chat_model()` is a real LangChain chat model (`ScriptedChatModel`) writing scripted
  drafts per question: the ``chat_model`` of the examples (self-refine, guardrails, agents), offline.
- `JevServer` is a Jev-compatible server on the loopback interface answering from a script, for
  tests (and tries) of the real wire path without a key: ``python -m langchain_jev.testing.server``
  runs it from the command line; see `langchain_jev.testing.server`. `scripted_server_reason()`
  tells whether the environment points at it (its placeholder key, or a loopback URL).
- `assert_judged` / `aassert_judged` assert that statements hold of a text (or that a judge passes it).
- The pytest plugin (loaded automatically) gives the ``jev_model`` fixture and ``--jev-require``;
  see `langchain_jev.testing.plugin`.

Names are imported on first use, so loading the pytest plugin stays cheap.

Example:
    >>> from langchain_core.decisions import Noul
    >>> from langchain_jev import JevCriterion, JevJudge
    >>> from langchain_jev.testing import ScriptedDecisionModel, assert_judged
    >>> judge = JevJudge(
    ...     [JevCriterion.noul("polite", Noul(instructions="Is `assistant_answer` polite?"), 0.7)],
    ...     model=ScriptedDecisionModel({"polite": 0.9}),
    ... )
    >>> assert_judged("Hello! How can I help?", judge, given="Hi?").passed
    True
    >>> from langchain_jev.testing import scripted_chat_model
    >>> scripted_chat_model({"Hi?": "Hello! How can I help?"}).invoke("Hi?").content
    'Hello! How can I help?'

"""

from __future__ import annotations

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
