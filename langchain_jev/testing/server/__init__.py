"""A Jev-compatible server on the loopback interface: try the package, and test it, without a key.

Run it in the background and take the settings it prints into your shell; the
command line and `JevDecisionModel` read them from the environment::

    eval "$(python -m langchain_jev.testing.server --answers answers.json --background)"
    langchain-jev judge data.jsonl --judge judge.yaml
    kill $JEV_SERVER_PID

Any key is accepted (the printed ``TYPESAFE_API_KEY`` is a placeholder) unless
``--api-key`` names one. Every answer comes from a script, never from a model: the verdicts are the
ones you wrote down, which is what a CI run of your own judges wants.

It speaks enough of the TypeSafe API for the real typesafe-sdk clients (and so
``JevDecisionModel``, ``TypeSafeClassifier`` and the ``langchain-jev`` command
line with ``--base-url``):

- ``POST /v1/systemone`` with ``{"state", "questions", "model"}`` answers every
  question, from a script or a default, after a configurable delay;
- ``GET /v1/models`` lists one model;
- request bodies sent with ``Content-Encoding: zstd`` are decoded when a zstd
  module exists (``compression.zstd`` on Python 3.14+, ``backports.zstd``), and
  refused with 415 otherwise (build clients with ``compression=False`` then);
- the API key is checked for shape only (``Authorization: Bearer <key>``), or
  against ``api_key=`` when given;
- a body that gives a key twice in one object is refused (400), as a script
  file is (`load_script`): JSON is read by the package's one rule
  (`langchain_jev.models._unique_json`), never by picking one of two values.

Script entries (per question name; ``answers`` may instead be a callable
``(state, questions) -> {name: entry}`` computed per request):

- a number: a noul's probability of yes, or a score's expected value;
- a string: a choice's label (probability 0.9 on it);
- ``{label_or_level: probability}``: a choice's or score's distribution;
- a mapping with a ``"type"``: the wire answer, sent as is (even when malformed);
- ``None``: leave the answer out of the response;
- a callable ``(state, question) -> entry``.

A question the script does not name is never answered for you, with one exception:

- a hazard question of the guardrails (one of `HAZARDS`, by its category's name and prescribed
  instructions) gets "no hazard" (a noul of 0.02), so a guardrail judged with a script of your own
  refuses only what the script flags (script a category by name to flag it);
- any other unnamed question makes the request fail with 422, whose message names the question
  and how to script it, and the server says so once per question (on stderr from the command
  line, as a warning of the ``langchain_jev.testing.server`` logger in Python): a verdict never
  passes on an answer nobody wrote, as with `ScriptedDecisionModel`;
- unless ``default_noul`` (``--noul P``) is given: then an unnamed noul answers that probability,
  which is also said once per question. Scores and choices are always scripted by name.

A script may also answer by what is judged: ``{"answers": {...}, "rules": [...]}``,
where each rule is ``{"when": {state field: text}, "answers": {...}}``. A rule
applies to a request whose state fields contain each of its texts (a field that
is not a string is matched as its JSON); the answers of every rule that applies
go over ``answers``, later rules last. For example::

    {"answers": {"polite": 0.9},
     "rules": [{"when": {"assistant_answer": "Go away"}, "answers": {"polite": 0.1}}]}

In Python, `JevServer` is a context manager that serves from a background thread.
Every request is recorded (`Received`: arrival order and time, headers, body; the
latest ``max_requests`` of them, 10,000 by default), so a test can count requests
or check their spacing. Faults can be injected per
request (`Fault`: an HTTP status with the API's error body, a dropped connection,
extra delay, a raw body). A *marker* field of the state (``marker`` by default)
is echoed as the response's request id (``x-typesafe-request-id``), so a load
test can check that each answer belongs to its input::

    with JevServer({"polite": 0.92, "mode": "answered"}, delay=0.1) as server:
        judge = JevJudge(criteria, model=JevDecisionModel(api_key="sk-test", base_url=server.base_url))
        ...
        assert server.request_count == 1

Command line (``python -m langchain_jev.testing.server --help``):

- ``--answers FILE.json``: the script, a JSON object ``{question name: entry}``
  (inline JSON works too: ``--answers '{"polite": 0.2}'``);
- ``--answer NAME=VALUE``: one entry (a number, a label, or JSON), repeatable, over the file's;
- ``--noul P``: the probability of yes for nouls the script does not name (default: none, so an
  unnamed noul is refused with 422, as any unnamed score or choice is);
- ``--port N`` (default: a free port), ``--host`` (default ``127.0.0.1``);
- ``--latency SECONDS``: wait before each answer, as a real model does;
- ``--model NAME``: the model name reported; ``--api-key KEY``: accept this key only;
- ``--background``: serve from a detached process, and exit once it answers.

Once it answers, it prints (on stdout) the shell lines that point a client at it::

    export TYPESAFE_BASE_URL=http://127.0.0.1:PORT
    export TYPESAFE_API_KEY=sk-jev-scripted

and serves until interrupted (Ctrl-C or SIGTERM). With ``--background`` it also
prints ``export JEV_SERVER_PID=PID`` (``kill $JEV_SERVER_PID`` stops the server)
and exits 0; the wait for the detached server is bounded (`READY_TIMEOUT`). A
``--port`` that is taken is refused (status 2, naming it): the server never
answers on another port than the one asked for, and with no ``--port`` it
takes a free one, so a client pointed at what it printed talks to it and to
nothing else.

The parts, one job each: the answer-script language (`_script`: entries, rules, ``--answers``,
``--answer``), the HTTP side (`_handler`: `Received`, `Fault`, the request handler), the
server's lifecycle (`_lifecycle`: `JevServer`), the placeholder key and loopback check
(`_environment`) and the command line (`_command`, run by ``__main__``).
"""

from __future__ import annotations

# the `X as X` names are importable from here as before the split, though not exported
from langchain_jev.testing.server._command import BANNER_NAMES as BANNER_NAMES
from langchain_jev.testing.server._command import READY_TIMEOUT, main
from langchain_jev.testing.server._environment import PLACEHOLDER_KEY, scripted_server_reason
from langchain_jev.testing.server._handler import MODELS_PATH as MODELS_PATH
from langchain_jev.testing.server._handler import REQUEST_ID_HEADER as REQUEST_ID_HEADER
from langchain_jev.testing.server._handler import SYSTEM_ONE_PATH as SYSTEM_ONE_PATH
from langchain_jev.testing.server._handler import Fault, Received, zstd_decompress
from langchain_jev.testing.server._handler import FaultPlan as FaultPlan
from langchain_jev.testing.server._lifecycle import MAX_RECORDED, JevServer
from langchain_jev.testing.server._script import MAX_SCRIPT_BYTES as MAX_SCRIPT_BYTES
from langchain_jev.testing.server._script import Answerer as Answerer
from langchain_jev.testing.server._script import load_script, wire_answer

__all__ = [
    "MAX_RECORDED",
    "PLACEHOLDER_KEY",
    "READY_TIMEOUT",
    "Fault",
    "JevServer",
    "Received",
    "load_script",
    "main",
    "scripted_server_reason",
    "wire_answer",
    "zstd_decompress",
]
