"""From a traced run and its dataset example to the input a judge reads.

Pure functions: they read a LangSmith run (``langsmith.schemas.Run`` or a
``RunTree``, including the runs LangChain's tracers record) and an optional
``langsmith.schemas.Example``, and never call anything.

Modules, one job each, a row of the table to a module: `question` (the question and its
conversation, from inputs), `answer`, `expected`, `context`, `tool_calls`; `judge_input`
puts them together (`judge_input_from_run`), `keys` names the keys read and `values`
reads the values under them (messages, documents, text, plain data).

==================  ==========================================================
judge input         where it is read from, first match wins
==================  ==========================================================
``question``        the run's inputs, then the example's: ``question``,
                    ``input``, ``query``, or the last human message of
                    ``messages``. Wrappers are opened first: a Runnable target's run holds
                    the example's inputs under ``input`` (with ``config``
                    beside it), a function's under its argument's name
``conversation``    a field beside the question when it came from a
                    conversation of more than one message: every message as
                    ``{"role", "content"}``, the question last
``answer``          the run's outputs (required; a failed run's error is
                    named), read by `answer_from_outputs`: a known key
                    (``answer``, ``output``, ``response``, ``result``,
                    ``text``, ``generation``, ``content``); else
                    ``structured_response`` (an agent with a
                    ``response_format``) as JSON; else the final AI
                    message of ``messages``; else outputs that are a
                    message's own fields (a target that returned a
                    message); else the one other value; else every other
                    value, as JSON (a pydantic model or a ``TypedDict``).
                    Wherever the answer is a list of messages, it is the
                    final AI message, and the messages before it are the
                    conversation (and give the question) when the inputs
                    give none
``expected``        the example's outputs: ``answer``, ``output``,
                    ``response``, ``expected`` or ``reference``; else the
                    final AI message of ``messages``; else the one value of a
                    one-key mapping; else the whole mapping
``context``         the run's outputs ``context``, ``documents`` or
                    ``source_documents``
                    (``Document`` objects, mappings or strings); else the
                    documents of the run's retriever child runs
``tool_calls``      the run's tool child runs; else the AI messages' tool
                    calls in the outputs' ``messages``, paired with the tool
                    messages that answered them
==================  ==========================================================
"""

from __future__ import annotations

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
